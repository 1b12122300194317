"""Elementwise arithmetic and math on float32, float64, float16, integers and bool."""

import numpy as np
import pytest

import dpnp
from conftest import SIZES, check, need_dtype, rng, to_device

FLOATS = [np.float32, np.float64, np.float16]
INTS = [np.int8, np.int32, np.int64, np.uint32]
names = lambda d: np.dtype(d).name  # noqa: E731

# (name, operand range): unary math that numpy and SYCL round alike within the tolerances.
UNARY = [("negative", (-10, 10)), ("abs", (-10, 10)), ("sqrt", (0, 100)), ("exp", (-5, 5)), ("log", (0.01, 100)),
         ("sin", (-6, 6)), ("cos", (-6, 6)), ("tanh", (-4, 4)), ("floor", (-50, 50)), ("square", (-10, 10))]
BINARY = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "power"]


def floats(dtype, n, lo, hi, seed=0):
    return rng(seed).uniform(lo, hi, n).astype(dtype)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", FLOATS, ids=names)
@pytest.mark.parametrize("op,span", UNARY, ids=[u[0] for u in UNARY])
def test_unary_float(queue, device, op, span, dtype, n):
    need_dtype(device, dtype)
    a = floats(dtype, n, *span)
    rtol = {np.float16: 4e-3, np.float32: 1e-5, np.float64: 1e-12}[dtype]
    check(getattr(dpnp, op)(to_device(a, queue)), getattr(np, op)(a), rtol=rtol, atol=rtol)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", FLOATS, ids=names)
@pytest.mark.parametrize("op", BINARY)
def test_binary_float(queue, device, op, dtype, n):
    need_dtype(device, dtype)
    a = floats(dtype, n, 0.5, 4, seed=1)
    b = floats(dtype, n, 0.5, 3, seed=2)
    rtol = {np.float16: 4e-3, np.float32: 1e-5, np.float64: 1e-12}[dtype]
    check(getattr(dpnp, op)(to_device(a, queue), to_device(b, queue)), getattr(np, op)(a, b), rtol=rtol)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", FLOATS, ids=names)
def test_scalar_broadcast_float(queue, device, dtype, n):
    need_dtype(device, dtype)
    a = floats(dtype, n, -2, 2)
    x = to_device(a, queue)
    check(x * dtype(3) + dtype(0.5), a * dtype(3) + dtype(0.5))


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", INTS, ids=names)
@pytest.mark.parametrize("op", ["add", "subtract", "multiply", "floor_divide", "remainder", "bitwise_and", "bitwise_or", "bitwise_xor", "maximum"])
def test_binary_int(queue, op, dtype, n):
    info = np.iinfo(dtype)
    lo, hi = max(info.min, -100), min(info.max, 100)
    a = rng(3).integers(lo, hi, n, dtype=dtype, endpoint=True)
    b = rng(4).integers(1, hi, n, dtype=dtype, endpoint=True)  # no zero divisors
    check(getattr(dpnp, op)(to_device(a, queue), to_device(b, queue)), getattr(np, op)(a, b))


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [np.int32, np.int64], ids=names)
@pytest.mark.parametrize("op", ["negative", "abs", "invert"])
def test_unary_int(queue, op, dtype, n):
    a = rng(5).integers(-1000, 1000, n, dtype=dtype)
    check(getattr(dpnp, op)(to_device(a, queue)), getattr(np, op)(a))


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64], ids=names)
def test_shifts(queue, dtype, n):
    a = rng(6).integers(0, 1000, n, dtype=dtype)
    s = rng(7).integers(0, 20, n, dtype=dtype)
    x, y = to_device(a, queue), to_device(s, queue)
    check(dpnp.left_shift(x, y), np.left_shift(a, s))
    check(dpnp.right_shift(x, y), np.right_shift(a, s))


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("op", ["logical_and", "logical_or", "logical_xor", "bitwise_xor"])
def test_binary_bool(queue, op, n):
    a = rng(8).integers(0, 2, n).astype(np.bool_)
    b = rng(9).integers(0, 2, n).astype(np.bool_)
    check(getattr(dpnp, op)(to_device(a, queue), to_device(b, queue)), getattr(np, op)(a, b))


@pytest.mark.parametrize("n", SIZES)
def test_logical_not(queue, n):
    a = rng(10).integers(0, 2, n).astype(np.bool_)
    check(dpnp.logical_not(to_device(a, queue)), np.logical_not(a))
