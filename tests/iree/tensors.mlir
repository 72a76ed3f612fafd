// Programs passing tensors to the iree-kit example's module `kit` and using the tensors it
// returns; compiled by iree-compile in the IREE suite (tests/iree/test_iree.py).
func.func private @kit.total(tensor<?xf32>) -> f32
func.func private @kit.scaled(tensor<?x?xf32>, f32) -> tensor<?x?xf32>
func.func private @kit.row_sums(tensor<?x?xi32>) -> (tensor<?xi64>, i64)

func.func @total(%x: tensor<?xf32>) -> f32 {
  %r = call @kit.total(%x) : (tensor<?xf32>) -> f32
  return %r : f32
}

func.func @scaled(%x: tensor<?x?xf32>, %k: f32) -> tensor<?x?xf32> {
  %r = call @kit.scaled(%x, %k) : (tensor<?x?xf32>, f32) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// The returned tensor feeds the program's own ops.
func.func @scaled_doubled(%x: tensor<?x?xf32>, %k: f32) -> tensor<?x?xf32> {
  %y = call @kit.scaled(%x, %k) : (tensor<?x?xf32>, f32) -> tensor<?x?xf32>
  %z = arith.addf %y, %y : tensor<?x?xf32>
  return %z : tensor<?x?xf32>
}

func.func @row_sums(%m: tensor<?x?xi32>) -> (tensor<?xi64>, i64) {
  %s, %n = call @kit.row_sums(%m) : (tensor<?x?xi32>) -> (tensor<?xi64>, i64)
  return %s, %n : tensor<?xi64>, i64
}

// Many calls in one run: `total` n times on the same input, and `scaled` n times, each
// call on the previous call's result (a new result buffer every call).
func.func @many(%x: tensor<?x?xf32>, %v: tensor<?xf32>, %n: i32) -> (tensor<?x?xf32>, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %nn = arith.index_cast %n : i32 to index
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %r:2 = scf.for %i = %c0 to %nn step %c1 iter_args(%acc = %x, %sum = %zero) -> (tensor<?x?xf32>, f32) {
    %y = func.call @kit.scaled(%acc, %one) : (tensor<?x?xf32>, f32) -> tensor<?x?xf32>
    %t = func.call @kit.total(%v) : (tensor<?xf32>) -> f32
    %s = arith.addf %sum, %t : f32
    scf.yield %y, %s : tensor<?x?xf32>, f32
  }
  return %r#0, %r#1 : tensor<?x?xf32>, f32
}

// Tensors the program computes (on local-task, transient buffers backed by another buffer
// once committed), passed to `total` n times.
func.func @computed(%v: tensor<?xf32>, %n: i32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %nn = arith.index_cast %n : i32 to index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %nn step %c1 iter_args(%sum = %zero) -> (f32) {
    %w = arith.addf %v, %v : tensor<?xf32>
    %t = func.call @kit.total(%w) : (tensor<?xf32>) -> f32
    %s = arith.addf %sum, %t : f32
    scf.yield %s : f32
  }
  return %r : f32
}
