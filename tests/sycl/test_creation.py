"""Array creation: zeros, ones, full, arange, linspace, eye."""

import numpy as np
import pytest

import dpnp
from conftest import SIZES, check, need_dtype

DTYPES = [np.float32, np.float64, np.float16, np.int32, np.int64, np.bool_]


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("fn", ["zeros", "ones"])
def test_zeros_ones(queue, device, fn, dtype, n):
    need_dtype(device, dtype)
    check(getattr(dpnp, fn)(n, dtype=dtype, sycl_queue=queue), getattr(np, fn)(n, dtype=dtype))


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype,value", [(np.float32, 2.5), (np.float64, -1e300), (np.float16, 3.0), (np.int32, -7), (np.int64, 1 << 40), (np.bool_, True)], ids=lambda v: str(v))
def test_full(queue, device, dtype, value, n):
    need_dtype(device, dtype)
    check(dpnp.full(n, value, dtype=dtype, sycl_queue=queue), np.full(n, value, dtype=dtype))


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_arange(queue, dtype, n):
    check(dpnp.arange(n, dtype=dtype, sycl_queue=queue), np.arange(n, dtype=dtype))


@pytest.mark.parametrize("n", SIZES)
def test_arange_step(queue, n):
    check(dpnp.arange(-3, 2 * n - 3, 2, dtype=np.int64, sycl_queue=queue), np.arange(-3, 2 * n - 3, 2, dtype=np.int64))


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_linspace(queue, dtype, n):
    check(dpnp.linspace(-1.0, 3.0, n, dtype=dtype, sycl_queue=queue), np.linspace(-1.0, 3.0, n, dtype=dtype), rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-6)


@pytest.mark.parametrize("n", [1, 7, 100, 1000, 4097])
@pytest.mark.parametrize("k", [0, 3, -2])
def test_eye(queue, n, k):
    check(dpnp.eye(n, k=k, dtype=np.float32, sycl_queue=queue), np.eye(n, k=k, dtype=np.float32))


@pytest.mark.parametrize("n,m", [(1, 5), (7, 3), (33, 1000)])
def test_eye_rectangular(queue, n, m):
    check(dpnp.eye(n, m, dtype=np.int32, sycl_queue=queue), np.eye(n, m, dtype=np.int32))
