"""flip, roll, reshape and transpose copies, strided and broadcast views, concatenation."""

import numpy as np
import pytest

import dpnp
from conftest import SIZES, check, rng, to_device

names = lambda d: np.dtype(d).name  # noqa: E731
DTYPES = [np.float32, np.int64, np.int8, np.float64]


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", DTYPES, ids=names)
def test_flip(queue, dtype, n):
    a = rng(1).integers(-100, 100, n).astype(dtype)
    check(dpnp.flip(to_device(a, queue)), np.flip(a))


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("shift", [1, -3, 1000])
def test_roll(queue, shift, n):
    a = np.arange(n, dtype=np.int32)
    check(dpnp.roll(to_device(a, queue), shift), np.roll(a, shift))


@pytest.mark.parametrize("rows,cols", [(1, 1), (7, 3), (1000, 33), (4097, 5), (1024, 1024)])
@pytest.mark.parametrize("dtype", DTYPES, ids=names)
def test_transpose_copy(queue, dtype, rows, cols):
    a = rng(2).integers(-100, 100, (rows, cols)).astype(dtype)
    check(dpnp.ascontiguousarray(to_device(a, queue).T), np.ascontiguousarray(a.T))


@pytest.mark.parametrize("rows,cols", [(1, 1), (7, 3), (1000, 33), (4097, 5), (1024, 1024)])
def test_reshape_copy(queue, rows, cols):
    a = rng(3).standard_normal((rows, cols)).astype(np.float32)
    # A reshape of a transposed (non-contiguous) array must copy.
    check(dpnp.reshape(to_device(a, queue).T, (-1,)), np.reshape(a.T, (-1,)))
    check(dpnp.reshape(to_device(a, queue), (cols, rows)), np.reshape(a, (cols, rows)))


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("step", [2, 3, -5])
def test_strided_view(queue, step, n):
    a = rng(4).standard_normal(n).astype(np.float64)
    x = to_device(a, queue)
    check(x[::step] * 2.0, a[::step] * 2.0)
    check(dpnp.copy(x[1::step]), a[1::step].copy())


@pytest.mark.parametrize("n", SIZES)
def test_strided_assign(queue, n):
    a = np.zeros(n, dtype=np.int32)
    x = to_device(a, queue)
    x[::3] = 5
    a[::3] = 5
    check(x, a)


@pytest.mark.parametrize("n", [1, 7, 1000, 4097])
def test_broadcast(queue, n):
    a = rng(5).standard_normal(n).astype(np.float32)
    b = rng(6).standard_normal(13).astype(np.float32)
    x, y = to_device(a, queue), to_device(b, queue)
    check(x[:, None] + y[None, :], a[:, None] + b[None, :])
    check(dpnp.broadcast_to(y, (n, 13)) * 2, np.broadcast_to(b, (n, 13)) * 2)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", DTYPES, ids=names)
def test_concatenate(queue, dtype, n):
    a = rng(7).integers(-100, 100, n).astype(dtype)
    b = rng(8).integers(-100, 100, 5).astype(dtype)
    check(dpnp.concatenate([to_device(a, queue), to_device(b, queue), to_device(a, queue)]), np.concatenate([a, b, a]))


@pytest.mark.parametrize("n", [1, 7, 1000, 4097])
def test_stack_axis1(queue, n):
    a = rng(9).standard_normal((n, 3)).astype(np.float32)
    b = rng(10).standard_normal((n, 2)).astype(np.float32)
    check(dpnp.concatenate([to_device(a, queue), to_device(b, queue)], axis=1), np.concatenate([a, b], axis=1))
    check(dpnp.stack([to_device(a, queue)] * 2), np.stack([a] * 2))
