//! Threads racing through the runtime, for the race detector (scripts/test-tsan.sh runs it
//! under ThreadSanitizer; `cargo test` runs it plainly): 8 threads call the objects
//! library's exports that make, share and drop objects and weak references, and
//! mathlib's that raise errors, and read and set their environment's stream, while
//! another thread opens a second abi library (attaching it to this process's runtime, at
//! its first call) and registers and calls globals. Every result is checked, and at the
//! end every counter made is dropped once.

#[path = "../../fixtures/objects-lib/src/counter.rs"]
mod counter;

use core::ffi::c_void;

use abi_core::ffi::device_type;
use abi_core::{env, Device, Function, Library, Obj, TypedFunction};
use abi_derive_tests::fixture_library;
use counter::Counter;

#[abi_core::import(Objects)]
extern "C" {
    fn make_counter(name: &str) -> Obj<Counter>;
    fn counter_value(c: &Obj<Counter>) -> i64;
    fn keep(c: Obj<Counter>) -> Obj<Counter>;
    fn bump(c: &Obj<Counter>, times: i64) -> i64;
    fn watch(c: Obj<Counter>);
    fn watched_value() -> Option<i64>;
    fn dropped() -> usize;
}

#[abi_core::import(Math)]
extern "C" {
    fn divide(a: i64, b: i64) -> i64;
    fn register_scaler(name: &str, factor: i64);
}

#[abi_core::import(Twin)]
extern "C" {
    fn twin_make(name: &str, start: i64) -> Obj<Counter>;
    fn twin_value(c: &Obj<Counter>) -> i64;
    fn twin_dropped() -> usize;
}

const THREADS: i64 = 8;
const ROUNDS: i64 = 400;

#[test]
fn threads_share_objects_errors_streams_while_a_library_attaches() {
    let objects =
        Objects::bind(&Library::open(fixture_library("abi-objects-lib", "abi_objects_lib")).unwrap()).unwrap();
    let math = Math::bind(&Library::open(fixture_library("abi-mathlib", "mathlib")).unwrap()).unwrap();
    // Built before the threads start (building may run cargo), opened while they run.
    let twin_path = fixture_library("abi-objects-twin", "abi_objects_twin");
    let dropped_before = objects.dropped().unwrap();
    let shared = objects.make_counter("shared").unwrap();
    let made = std::thread::scope(|s| {
        let workers: Vec<_> = (0..THREADS)
            .map(|t| {
                let (objects, math, shared) = (&objects, &math, shared.clone());
                s.spawn(move || {
                    let cuda = Device::new(device_type::CUDA, t as i32);
                    let mut made = 0;
                    for i in 0..ROUNDS {
                        assert!(objects.bump(&shared, 1).unwrap() >= 1);
                        let mine = objects.make_counter(&format!("t{t}-{i}")).unwrap();
                        made += 1;
                        mine.add(t);
                        assert_eq!(objects.counter_value(&mine).unwrap(), t);
                        let back = objects.keep(mine.clone()).unwrap();
                        assert_eq!(back.value(), t);
                        // A weak reference every thread replaces and reads.
                        objects.watch(back).unwrap();
                        let _ = objects.watched_value().unwrap();
                        let e = math.divide(t * 1_000_000 + i, 0).unwrap_err();
                        assert_eq!(e.message(), format!("cannot divide {} by zero", t * 1_000_000 + i));
                        let stream = env::Stream::from_ptr((0x1000 + t * 16 + i % 16) as *mut c_void);
                        {
                            let _guard = env::set_stream(cuda, stream);
                            assert_eq!(env::stream(cuda), stream, "thread {t} reads its own stream");
                        }
                        assert!(env::stream(cuda).is_null());
                    }
                    assert!(abi_core::host::take_raised().is_none(), "thread {t} has a stray error");
                    made
                })
            })
            .collect();
        // Meanwhile: a second library attaches and globals are registered and called.
        let twin = Twin::bind(&Library::open(&twin_path).unwrap()).unwrap();
        let twin_before = twin.twin_dropped().unwrap();
        for i in 0..ROUNDS / 4 {
            let c = twin.twin_make("twin", i).unwrap();
            assert_eq!(twin.twin_value(&c).unwrap(), i);
            let name = format!("thread_stress.scale{}", i % 8);
            math.register_scaler(&name, i).unwrap();
            let scale = TypedFunction::<fn(i64) -> i64>::from_function(Function::get_global(&name).unwrap());
            assert_eq!(scale.call(2).unwrap(), 2 * i);
        }
        assert_eq!(twin.twin_dropped().unwrap() - twin_before, (ROUNDS / 4) as usize, "the twin's counters");
        workers.into_iter().map(|w| w.join().unwrap()).sum::<i64>()
    });
    assert_eq!(shared.value(), THREADS * ROUNDS);
    drop(shared);
    // Every counter dropped once (the last one watched too: a weak reference keeps only
    // its memory).
    assert_eq!(objects.dropped().unwrap() - dropped_before, made as usize + 1);
}
