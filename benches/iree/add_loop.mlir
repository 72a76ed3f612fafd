// The IREE call benchmark's program (scripts/bench-iree.sh): `n` calls of add_i32 in one
// function, accumulating 1 each time, so the result is `n` and the time per call is the
// function's time over `n`. `MODULE` is replaced by the module under test (`kit`, the
// generated one, or `hand`, benches/iree/hand_module.c) before iree-compile sees it.
func.func private @MODULE.add_i32(i32, i32) -> i32

func.func @add_loop(%n: i32) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %count = arith.index_cast %n : i32 to index
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %r = scf.for %i = %c0 to %count step %c1 iter_args(%acc = %zero) -> (i32) {
    %next = func.call @MODULE.add_i32(%acc, %one) : (i32, i32) -> i32
    scf.yield %next : i32
  }
  return %r : i32
}
