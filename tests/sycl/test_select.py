"""astype, where and comparisons."""

import numpy as np
import pytest

import dpnp
from conftest import SIZES, check, need_dtype, rng, to_device

names = lambda d: np.dtype(d).name  # noqa: E731
CASTS = [(np.float32, np.int32), (np.float64, np.float32), (np.int64, np.float64), (np.int32, np.int8),
         (np.bool_, np.int32), (np.float32, np.bool_), (np.float32, np.float16), (np.float16, np.float64),
         (np.uint32, np.int64)]


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("src,dst", CASTS, ids=[f"{names(a)}-{names(b)}" for a, b in CASTS])
def test_astype(queue, device, src, dst, n):
    need_dtype(device, src)
    need_dtype(device, dst)
    a = (rng(11).uniform(-100, 100, n) * (np.dtype(src).kind != "b")).astype(src)
    if np.dtype(src).kind == "b":
        a = rng(11).integers(0, 2, n).astype(np.bool_)
    if np.dtype(src).kind == "u":
        a = rng(11).integers(0, 1 << 31, n).astype(src)
    check(to_device(a, queue).astype(dst), a.astype(dst))


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.float16], ids=names)
def test_where(queue, device, dtype, n):
    need_dtype(device, dtype)
    c = rng(12).integers(0, 2, n).astype(np.bool_)
    a = rng(13).integers(-50, 50, n).astype(dtype)
    b = rng(14).integers(-50, 50, n).astype(dtype)
    check(dpnp.where(to_device(c, queue), to_device(a, queue), to_device(b, queue)), np.where(c, a, b))


@pytest.mark.parametrize("n", SIZES)
def test_where_scalar(queue, n):
    a = rng(15).standard_normal(n).astype(np.float32)
    x = to_device(a, queue)
    check(dpnp.where(x > 0, x, np.float32(0)), np.where(a > 0, a, np.float32(0)))


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.float16, np.bool_], ids=names)
@pytest.mark.parametrize("op", ["less", "less_equal", "equal", "not_equal", "greater", "greater_equal"])
def test_compare(queue, device, op, dtype, n):
    need_dtype(device, dtype)
    a = rng(16).integers(0, 4, n).astype(dtype)
    b = rng(17).integers(0, 4, n).astype(dtype)
    check(getattr(dpnp, op)(to_device(a, queue), to_device(b, queue)), getattr(np, op)(a, b))


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=names)
def test_isnan_isfinite(queue, dtype, n):
    a = rng(18).standard_normal(n).astype(dtype)
    a[::3] = np.nan
    a[1::5] = np.inf
    x = to_device(a, queue)
    check(dpnp.isnan(x), np.isnan(a))
    check(dpnp.isfinite(x), np.isfinite(a))
