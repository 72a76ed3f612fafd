#[abi_core::export_fn]
fn pointer(x: i64) -> std::rc::Rc<i64> {
    std::rc::Rc::new(x)
}

// A borrowed tensor view is a parameter only: the note names `Tensor`.
#[abi_core::export_fn]
fn view(x: abi_core::HostTensor<'_, f32, 1>) -> abi_core::HostTensor<'_, f32, 1> {
    x
}

fn main() {}
