// Programs whose tensors are not what the functions of `kit` take: a rank-2 tensor for
// `total` (rank 1) and an i32 matrix for `scaled` (f32). The calling conventions agree
// (`0r_f`, `0rf_r`), so the module refuses each call, naming the parameter.
func.func private @kit.total(tensor<?x?xf32>) -> f32
func.func private @kit.scaled(tensor<?x?xi32>, f32) -> tensor<?x?xf32>

func.func @total_of_matrix(%x: tensor<?x?xf32>) -> f32 {
  %r = call @kit.total(%x) : (tensor<?x?xf32>) -> f32
  return %r : f32
}

func.func @scaled_ints(%x: tensor<?x?xi32>, %k: f32) -> tensor<?x?xf32> {
  %r = call @kit.scaled(%x, %k) : (tensor<?x?xi32>, f32) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
