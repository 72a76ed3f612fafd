struct Counter(i64);

impl Counter {
    #[abi_core::export_fn]
    fn get(&self) -> i64 {
        self.0
    }
}

fn main() {}
