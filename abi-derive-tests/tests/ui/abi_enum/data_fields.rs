// A variant's fields cross as a struct's: each converts both ways, owns its data and has
// its own key.
#[derive(abi_core::AbiEnum)]
enum Shape {
    Circle { r: f64 },
    Label(&'static str),
    Rect {
        w: f64,
        #[abi(rename = "w")]
        h: f64,
    },
}

fn main() {}
