//! Runs cases for instruction counting under callgrind.
//!
//! - `icount [--tvm-ffi LIB] --all SHORT LONG`: every case of this world (the embedded
//!   runtime, or with `--tvm-ffi` libtvm_ffi loaded first, `RTLD_GLOBAL`, as a Python or
//!   C++ host has it, so every runtime service goes through it), one after the other in one
//!   process: each runs once unmeasured, then for SHORT and for LONG iterations between
//!   the marks of `benches/marks.c` (the library ABI_BENCH_MARKS names), on which callgrind
//!   zeroes its counts and writes them. Prints the cases' names in order, so the dumps (two
//!   a case) can be named.
//! - `icount [--tvm-ffi LIB] <case> <iters>`: one case, once.
//! - `icount --list`: the cases, their floors, budgets and worlds.

/// The marks of `benches/marks.c`, from the library ABI_BENCH_MARKS names.
struct Marks {
    start: unsafe extern "C" fn(),
    stop: unsafe extern "C" fn(),
    _lib: libloading::Library,
}

impl Marks {
    fn load() -> Marks {
        let path = std::env::var_os("ABI_BENCH_MARKS")
            .expect("--all needs ABI_BENCH_MARKS, the marks library (scripts/bench.sh builds it)");
        // SAFETY: the library is benches/marks.c built by scripts/bench.sh: loading it runs no
        // constructor, and its two functions take and return nothing.
        unsafe {
            let lib = libloading::Library::new(&path).expect("load the marks library");
            let start = *lib.get::<unsafe extern "C" fn()>(b"abi_bench_mark_start\0").expect("abi_bench_mark_start");
            let stop = *lib.get::<unsafe extern "C" fn()>(b"abi_bench_mark_stop\0").expect("abi_bench_mark_stop");
            Marks { start, stop, _lib: lib }
        }
    }
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut host = false;
    if args.first().map(String::as_str) == Some("--tvm-ffi") && args.len() > 1 {
        let lib = args.remove(1);
        args.remove(0);
        abi_benches::load_tvm_ffi(&lib);
        host = true;
    }
    let number = |s: &str| -> u64 { s.parse().expect("iterations must be a number") };
    match args.as_slice() {
        [flag] if flag == "--list" => {
            for c in abi_benches::CASES {
                println!("{} {} {} {}", c.name, c.floor, c.budget, c.worlds);
            }
        }
        [flag, short, long] if flag == "--all" => {
            let (short, long) = (number(short), number(long));
            let marks = Marks::load();
            for case in abi_benches::CASES.iter().filter(|c| c.worlds.includes(host)) {
                (case.run)(short);
                for iters in [short, long] {
                    // SAFETY: the marks take nothing and only talk to callgrind (nothing
                    // outside valgrind).
                    unsafe { (marks.start)() };
                    (case.run)(iters);
                    // SAFETY: as above.
                    unsafe { (marks.stop)() };
                }
                println!("{}", case.name);
            }
        }
        [name, iters] => {
            let case = abi_benches::case(name).unwrap_or_else(|| panic!("unknown case {name}; try --list"));
            (case.run)(number(iters));
        }
        _ => {
            eprintln!("usage: icount [--tvm-ffi LIB] --all SHORT LONG | icount [--tvm-ffi LIB] <case> <iters> | icount --list");
            std::process::exit(2);
        }
    }
}
