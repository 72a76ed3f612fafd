// One bad declaration is reported once: the struct and every method are still generated,
// so code that binds and calls them reports nothing more.
#[abi_core::import(Math)]
extern "C" {
    fn add(a: i64, b: i64) -> i64;
    async fn slow(x: i64) -> i64;
}

fn main() -> abi_core::Result<()> {
    let math = Math::bind_linked()?;
    let three: i64 = math.add(1, 2)?;
    let four: i64 = math.slow(4)?;
    assert_eq!(three + 1, four);
    Ok(())
}
