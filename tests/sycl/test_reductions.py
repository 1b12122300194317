"""Reductions: sum, prod, max, min, argmax, mean, std; cumulative sum and product."""

import numpy as np
import pytest

import dpnp
from conftest import SIZES, check, need_dtype, rng, to_device

names = lambda d: np.dtype(d).name  # noqa: E731
# Sums of n floats carry rounding of order n*eps: the tolerances grow with the size.
TOL = {np.float16: 1e-2, np.float32: 1e-4, np.float64: 1e-10, np.int32: 0, np.int64: 0}


def data(dtype, n, seed=0):
    if np.dtype(dtype).kind in "iu":
        return rng(seed).integers(-100, 100, n).astype(dtype)
    return rng(seed).uniform(-1, 1, n).astype(dtype)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int32, np.int64], ids=names)
def test_sum(queue, device, dtype, n):
    need_dtype(device, dtype)
    a = data(dtype, n)
    want = a.sum(dtype=np.float64).astype(a.sum().dtype) if np.dtype(dtype).kind == "f" else a.sum()
    check(dpnp.sum(to_device(a, queue)), want, rtol=TOL[dtype], atol=TOL[dtype] * np.sqrt(n))


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64], ids=names)
def test_prod(queue, dtype, n):
    # Factors near 1 (floats) or mostly 1 with a few -1 and 2 (integers): no overflow at any size.
    if np.dtype(dtype).kind == "f":
        a = rng(1).uniform(0.999, 1.001, n).astype(dtype)
    else:
        a = np.ones(n, dtype=dtype)
        a[rng(1).integers(0, n, 20)] = -1
        a[rng(2).integers(0, n, 10)] = 2
    check(dpnp.prod(to_device(a, queue)), np.prod(a), rtol=TOL[dtype] * 10)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int32, np.int64], ids=names)
@pytest.mark.parametrize("op", ["max", "min", "argmax", "argmin"])
def test_extremes(queue, device, op, dtype, n):
    need_dtype(device, dtype)
    a = rng(2).permutation(n).astype(np.float64)
    a = (a - n / 2).astype(dtype) if np.dtype(dtype).itemsize > 2 else rng(2).uniform(-1, 1, n).astype(dtype)
    check(getattr(dpnp, op)(to_device(a, queue)), getattr(np, op)(a))


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=names)
def test_mean_std(queue, dtype, n):
    a = data(dtype, n, seed=3)
    x = to_device(a, queue)
    tol = TOL[dtype]
    check(dpnp.mean(x), np.mean(a, dtype=np.float64).astype(dtype), rtol=tol, atol=tol)
    check(dpnp.std(x), np.std(a, dtype=np.float64).astype(dtype), rtol=tol, atol=tol)


@pytest.mark.parametrize("n", [1000, 4097])
def test_sum_axis(queue, n):
    a = data(np.float32, (n, 7), seed=4)
    x = to_device(a, queue)
    check(dpnp.sum(x, axis=0), a.sum(axis=0, dtype=np.float64).astype(np.float32), rtol=1e-4, atol=1e-3)
    check(dpnp.sum(x, axis=1), a.sum(axis=1, dtype=np.float64).astype(np.float32), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64], ids=names)
def test_cumsum(queue, dtype, n):
    a = data(dtype, n, seed=5)
    want = np.cumsum(a, dtype=np.float64).astype(dtype) if np.dtype(dtype).kind == "f" else np.cumsum(a)
    check(dpnp.cumsum(to_device(a, queue)), want, rtol=TOL[dtype], atol=TOL[dtype] * np.sqrt(n))


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [np.float64, np.int64], ids=names)
def test_cumprod(queue, dtype, n):
    if np.dtype(dtype).kind == "f":
        a = rng(6).uniform(0.9999, 1.0001, n).astype(dtype)
    else:
        a = np.ones(n, dtype=dtype)
        a[rng(6).integers(0, n, 20)] = -1
    check(dpnp.cumprod(to_device(a, queue)), np.cumprod(a), rtol=1e-9)
