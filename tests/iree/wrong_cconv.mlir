// Imports `kit.add_i32` with the wrong types: the module refuses the lookup with both
// calling conventions named.
func.func private @kit.add_i32(i64, i64) -> i64

func.func @add(%a: i64, %b: i64) -> i64 {
  %r = call @kit.add_i32(%a, %b) : (i64, i64) -> i64
  return %r : i64
}
