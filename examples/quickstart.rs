fn main() {
    println!("quickstart");
}
