//! Runs one case for a number of iterations, for instruction counting under callgrind:
//! `icount [--tvm-ffi LIB] <case> <iters>`; `icount --list` prints the cases, their floors,
//! budgets and worlds. With `--tvm-ffi`, libtvm_ffi is loaded first (RTLD_GLOBAL, as a Python or
//! C++ host has it), so every runtime service goes through it.

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--tvm-ffi") && args.len() > 1 {
        let lib = args.remove(1);
        args.remove(0);
        abi_benches::load_tvm_ffi(&lib);
    }
    match args.as_slice() {
        [flag] if flag == "--list" => {
            for c in abi_benches::CASES {
                println!("{} {} {} {}", c.name, c.floor, c.budget, c.worlds);
            }
        }
        [name, iters] => {
            let case = abi_benches::case(name).unwrap_or_else(|| panic!("unknown case {name}; try --list"));
            let iters: u64 = iters.parse().expect("iterations must be a number");
            (case.run)(iters);
        }
        _ => {
            eprintln!("usage: icount [--tvm-ffi LIB] <case> <iters> | icount --list");
            std::process::exit(2);
        }
    }
}
