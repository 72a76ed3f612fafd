// A program importing a function the module `kit` does not have: refused at load, naming it.
func.func private @kit.nosuch(i32) -> i32
func.func @main(%x: i32) -> i32 {
  %r = call @kit.nosuch(%x) : (i32) -> i32
  return %r : i32
}
