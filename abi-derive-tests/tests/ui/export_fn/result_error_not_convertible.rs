struct MyError;

#[abi_core::export_fn]
fn check(x: i64) -> Result<i64, MyError> {
    if x < 0 {
        Err(MyError)
    } else {
        Ok(x)
    }
}

fn main() {}
