#[abi_core::export_fn]
fn pointer(x: i64) -> std::rc::Rc<i64> {
    std::rc::Rc::new(x)
}

fn main() {}
