// Programs calling every function of the iree-kit example's module `kit`; compiled by
// iree-compile in the IREE suite (tests/iree/test_iree.py), run by iree-run-module.
func.func private @kit.add_i32(i32, i32) -> i32
func.func private @kit.mix(i32, i64, f32) -> (f32, i64)
func.func private @kit.checked(i64) -> i64
func.func private @kit.pick(i32) -> f64
func.func private @kit.lookup(i32) -> i64
func.func private @kit.widen(i8, i16, i1) -> i64
func.func private @kit.is_positive(f64) -> i1
func.func private @kit.pair() -> (i32, i32)
func.func private @kit.tick() -> ()
func.func private @kit.unlucky(i32) -> i32
func.func private @kit.halve(i64) -> i64

func.func @add(%a: i32, %b: i32) -> i32 {
  %r = call @kit.add_i32(%a, %b) : (i32, i32) -> i32
  return %r : i32
}

func.func @mix(%a: i32, %b: i64, %c: f32) -> (f32, i64) {
  %r:2 = call @kit.mix(%a, %b, %c) : (i32, i64, f32) -> (f32, i64)
  return %r#0, %r#1 : f32, i64
}

func.func @checked(%x: i64) -> i64 {
  %r = call @kit.checked(%x) : (i64) -> i64
  return %r : i64
}

func.func @pick(%i: i32) -> f64 {
  %r = call @kit.pick(%i) : (i32) -> f64
  return %r : f64
}

func.func @lookup(%k: i32) -> i64 {
  %r = call @kit.lookup(%k) : (i32) -> i64
  return %r : i64
}

// i8, i16 and i1 travel as i32 (the `i` letter); the module range-checks them.
func.func @widen(%a: i32, %b: i32, %neg: i32) -> i64 {
  %a8 = arith.trunci %a : i32 to i8
  %b16 = arith.trunci %b : i32 to i16
  %n1 = arith.trunci %neg : i32 to i1
  %r = call @kit.widen(%a8, %b16, %n1) : (i8, i16, i1) -> i64
  return %r : i64
}

func.func @is_positive(%x: f64) -> i32 {
  %r = call @kit.is_positive(%x) : (f64) -> i1
  %w = arith.extui %r : i1 to i32
  return %w : i32
}

func.func @pair() -> (i32, i32) {
  %r:2 = call @kit.pair() : () -> (i32, i32)
  return %r#0, %r#1 : i32, i32
}

func.func @unlucky(%x: i32) -> i32 {
  %r = call @kit.unlucky(%x) : (i32) -> i32
  return %r : i32
}

func.func @halve(%x: i64) -> i64 {
  %r = call @kit.halve(%x) : (i64) -> i64
  return %r : i64
}

// Many calls in one run: sum of 0..n-1 through add_i32, and `tick` n times.
func.func @sum_to(%n: i32) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %nn = arith.index_cast %n : i32 to index
  %zero = arith.constant 0 : i32
  %r = scf.for %i = %c0 to %nn step %c1 iter_args(%acc = %zero) -> (i32) {
    %ii = arith.index_cast %i : index to i32
    %s = func.call @kit.add_i32(%acc, %ii) : (i32, i32) -> i32
    func.call @kit.tick() : () -> ()
    scf.yield %s : i32
  }
  return %r : i32
}
