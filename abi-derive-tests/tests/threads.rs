//! Threads: 8 threads x 100k calls into a real cdylib mixing success and errors. Each
//! thread's errors name its own arguments, so an error leaking across threads is caught;
//! callbacks made on one thread are invoked from the others.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use abi_core::{Library, TypedFunction};
use abi_derive_tests::fixture_library;

#[abi_core::import(Math)]
extern "C" {
    fn add(a: i64, b: i64) -> i64;
    fn divide(a: i64, b: i64) -> i64;
    fn map_ints(xs: Vec<i64>, f: TypedFunction<fn(i64) -> i64>) -> Vec<i64>;
}

const THREADS: i64 = 8;
const CALLS: i64 = 100_000;

#[test]
fn eight_threads_mix_success_and_errors_without_crosstalk() {
    let math = Math::bind(&Library::open(fixture_library("abi-mathlib", "mathlib")).unwrap()).unwrap();
    let seen = Arc::new(AtomicU64::new(0));
    let counter = Arc::clone(&seen);
    // Made here, called from every worker thread.
    let callback = TypedFunction::<fn(i64) -> i64>::new(move |x| {
        counter.fetch_add(1, Ordering::Relaxed);
        x + 1
    });
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let (math, callback) = (&math, callback.clone());
            s.spawn(move || {
                for i in 0..CALLS {
                    match i % 4 {
                        0 | 1 => assert_eq!(math.add(t, i).unwrap(), t + i),
                        2 => {
                            let e = math.divide(t * 1_000_000 + i, 0).unwrap_err();
                            assert_eq!(e.kind(), "ValueError");
                            assert_eq!(e.message(), format!("cannot divide {} by zero", t * 1_000_000 + i));
                        }
                        _ if i % 1000 == 3 => {
                            assert_eq!(math.map_ints(vec![t, i], callback.clone()).unwrap(), vec![t + 1, i + 1]);
                        }
                        _ => assert_eq!(math.divide(i, t + 1).unwrap(), i / (t + 1)),
                    }
                }
                assert!(abi_core::host::take_raised().is_none(), "thread {t} has a stray error");
            });
        }
    });
    assert_eq!(seen.load(Ordering::Relaxed), (THREADS * (CALLS / 1000) * 2) as u64);
}
