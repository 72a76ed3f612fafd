//! Runs one case for a number of iterations, for instruction counting under callgrind:
//! `icount <case> <iters>`; `icount --list` prints the cases, their floors and budgets.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [flag] if flag == "--list" => {
            for c in abi_benches::CASES {
                println!("{} {} {}", c.name, c.floor, c.budget);
            }
        }
        [name, iters] => {
            let case = abi_benches::case(name).unwrap_or_else(|| panic!("unknown case {name}; try --list"));
            let iters: u64 = iters.parse().expect("iterations must be a number");
            (case.run)(iters);
        }
        _ => {
            eprintln!("usage: icount <case> <iters> | icount --list");
            std::process::exit(2);
        }
    }
}
