// The IREE tensor benchmark's programs (scripts/bench-iree.sh). `MODULE` is replaced by the
// module under test (`kit`, the generated one, or `hand`, benches/iree/hand_tensor_module.c)
// before iree-compile sees it. MODULE.total sums a rank-1 f32 tensor.
func.func private @MODULE.total(tensor<?xf32>) -> f32

// One call on the caller's tensor: timed by iree-benchmark-module on 1M elements.
func.func @sum(%x: tensor<?xf32>) -> f32 {
  %s = func.call @MODULE.total(%x) : (tensor<?xf32>) -> f32
  return %s : f32
}

// `n` calls on the same (small) tensor, accumulating the totals: the instructions per call
// are the difference of two values of `n`, as add_loop.mlir does for the scalar case.
func.func @total_loop(%x: tensor<?xf32>, %n: i32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %count = arith.index_cast %n : i32 to index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %count step %c1 iter_args(%acc = %zero) -> (f32) {
    %s = func.call @MODULE.total(%x) : (tensor<?xf32>) -> f32
    %next = arith.addf %acc, %s : f32
    scf.yield %next : f32
  }
  return %r : f32
}
