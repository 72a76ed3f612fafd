//! Criterion: every case in one run, next to its floor. `scripts/bench.sh` turns the
//! estimates into the ratio table. With `ABI_BENCH_TVM_FFI=<libtvm_ffi.so>` the library is
//! loaded first and the group is `calls_tvm_ffi` (the world where a host serves the runtime).

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};

fn calls(c: &mut Criterion) {
    let name = match std::env::var("ABI_BENCH_TVM_FFI") {
        Ok(lib) => {
            abi_benches::load_tvm_ffi(&lib);
            "calls_tvm_ffi"
        }
        Err(_) => "calls",
    };
    let mut group = c.benchmark_group(name);
    group.warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    let host = name != "calls";
    for case in abi_benches::CASES.iter().filter(|c| c.worlds.includes(host)) {
        group.bench_function(case.name, |b| {
            b.iter_custom(|iters| {
                let start = Instant::now();
                (case.run)(iters);
                start.elapsed()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, calls);
criterion_main!(benches);
