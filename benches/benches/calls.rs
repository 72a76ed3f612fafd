//! Criterion: every case in one run, next to its floor. `scripts/bench.sh` turns the
//! estimates into the ratio table.

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};

fn calls(c: &mut Criterion) {
    let mut group = c.benchmark_group("calls");
    group.warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    for case in abi_benches::CASES {
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
