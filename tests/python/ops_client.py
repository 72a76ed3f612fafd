"""A client of op-kit's package calling its ops from numpy, torch and JAX, for
test_ops_client.py: type-checked with `mypy --strict` against the stubs `abi stubs` writes
(each result annotated with the caller's array type), then run, so the types are what the
calls return (run with JAX_ENABLE_X64=1). A `# type: ignore[...]` marks a line the stubs must refuse (`--strict` warns
about an ignore that is not needed, so a stub typed `Any` fails the check)."""

import jax
import jax.numpy as jnp
import numpy as np
import numpy.typing as npt
import torch

import op_kit


def numpy_calls() -> list[object]:
    x, k = np.ones((2, 3)), np.ones(3)
    y: npt.NDArray[np.float64] = op_kit.scale_rows(x, k)
    given: npt.NDArray[np.float64] = op_kit.scale_rows(x, k, y=np.empty((2, 3)))
    lo, hi = op_kit.minmax(np.ones((2, 3), np.float32))
    pair: tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]] = (lo, hi)
    r = np.ones((2, 2), np.float32)
    nothing = op_kit.relu_(r)
    found = op_kit.scale_rows(x, k)
    wrong: torch.Tensor = found  # type: ignore[assignment]
    # The op's own dtype, whatever its input's; what numpy's annotations give; sequences.
    hot: npt.NDArray[np.float32] = op_kit.one_hot(np.arange(3), 4)
    curve: npt.NDArray[np.float64] = op_kit.quad(np.linspace(-1, 1, 5), 2.0)
    listed: npt.NDArray[np.float64] = op_kit.scale_rows([[1.0, 2.0, 3.0]], [1, 2, 3])
    not_int: npt.NDArray[np.int64] = op_kit.one_hot(np.arange(3), 4)  # type: ignore[assignment]
    return [y, given, *pair, nothing, wrong, hot, curve, listed, not_int]


def torch_calls() -> list[object]:
    x, k = torch.ones(2, 3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    y: torch.Tensor = op_kit.scale_rows(x, k)
    z: torch.Tensor = op_kit.torch.scale_rows(x, k)
    given: torch.Tensor = op_kit.torch.scale_rows(x, k, y=torch.empty(2, 3, dtype=torch.float64))
    c: torch.Tensor = op_kit.torch.matmul(torch.ones(2, 3), torch.ones(3, 4))
    dx, dk = op_kit.torch.scale_rows_bwd(x, k, torch.ones_like(x))
    grads: tuple[torch.Tensor, torch.Tensor] = (dx, dk)
    r = torch.ones(2, 2)
    op_kit.torch.relu_(r)
    ramp = op_kit.torch.ramp(3, 0.5)
    found = op_kit.torch.matmul(torch.ones(2, 3), torch.ones(3, 4))
    wrong: jax.Array = found  # type: ignore[assignment]
    hot: torch.Tensor = op_kit.one_hot(torch.arange(3), 4)
    ramp_into: torch.Tensor = op_kit.ramp(3, 0.5, y=torch.empty(3, dtype=torch.float64))
    not_numpy: npt.NDArray[np.float32] = op_kit.one_hot(torch.arange(3), 4)  # type: ignore[assignment]
    # An enum scalar: a member of the package's class, or its name.
    act: torch.Tensor = op_kit.torch.activate(torch.ones(2, 2), op_kit.Activation.Tanh)
    return [y, z, given, c, *grads, ramp, wrong, hot, ramp_into, not_numpy, act, op_kit.activate(r, "relu")]


def jax_calls() -> list[object]:
    x, k = jnp.ones((2, 3)), jnp.ones(3)
    y: jax.Array = op_kit.scale_rows(x, k)
    z: jax.Array = op_kit.jax.scale_rows(x, k)
    r: jax.Array = op_kit.jax.relu_(jnp.ones((2, 2), jnp.float32))
    lo, hi = op_kit.jax.minmax(jnp.ones((2, 3), jnp.float32))
    pair: tuple[jax.Array, jax.Array] = (lo, hi)
    jitted = jax.jit(op_kit.jax.scale_rows)(x, k)
    found = op_kit.jax.scale_rows(x, k)
    wrong: npt.NDArray[np.float64] = found  # type: ignore[assignment]
    hot: jax.Array = op_kit.one_hot(jnp.arange(3), 4)
    in_place: jax.Array = op_kit.relu_(jnp.ones((2, 2), jnp.float32))
    from_numpy = op_kit.jax.scale_rows(np.ones((2, 3)), np.ones(3))
    not_torch: torch.Tensor = op_kit.one_hot(jnp.arange(3), 4)  # type: ignore[assignment]
    act: jax.Array = op_kit.jax.activate(jnp.ones((2, 2), jnp.float32), "sigmoid")
    return [y, z, r, *pair, jitted, wrong, hot, in_place, from_numpy, not_torch, act]


def refused_calls() -> None:
    """Calls the stubs refuse (and the ops would, at run time): never run."""
    op_kit.one_hot(np.linspace(0, 1, 3), 2)  # type: ignore[arg-type]
    op_kit.torch.scale_rows(np.ones((2, 3)), np.ones(3))  # type: ignore[type-var, arg-type]
    op_kit.scale_rows(jnp.ones((2, 3)), jnp.ones(3), y=jnp.empty((2, 3)))  # type: ignore[call-overload]
    op_kit.scale_rows(torch.ones(2, 3), "k")  # type: ignore[arg-type]
    op_kit.torch.activate(torch.ones(2, 2), "gelu")  # type: ignore[arg-type]


if __name__ == "__main__":  # with JAX_ENABLE_X64=1 (scale_rows is float64)
    kinds = [
        [type(v).__name__ for v in numpy_calls()],
        [type(v).__name__ for v in torch_calls()],
        sorted({isinstance(v, jax.Array) for v in jax_calls()}),
    ]
    print(kinds)
