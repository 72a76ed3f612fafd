#[derive(abi_core::Object)]
#[abi(type_key = "mylib.Timer")]
pub struct Timer {
    #[abi(get)]
    pub started: std::time::Instant,
}

fn main() {}
