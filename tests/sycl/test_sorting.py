"""sort, argsort, searchsorted and unique."""

import numpy as np
import pytest

import dpnp
from conftest import SIZES, check, need_dtype, rng, to_device

names = lambda d: np.dtype(d).name  # noqa: E731


def amd_host():
    """Whether the host CPU is AMD's (where dpnp 0.20's 1 Mi float16 sort loses values)."""
    with open("/proc/cpuinfo") as f:
        return "AuthenticAMD" in f.read()


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize(
    "dtype", [np.float32, np.float64, np.int32, np.int64, np.float16, np.int16, np.uint8], ids=names
)
def test_sort(request, queue, device, dtype, n):
    need_dtype(device, dtype)
    if dtype == np.float16 and n == 1 << 20 and amd_host():
        # Not a driver bug: on AMD hosts (seen on a 2-core EPYC) Intel's OpenCL CPU runtime
        # gives the same result (checked with dpnp 0.20.0 / dpctl 0.22.1,
        # ONEAPI_DEVICE_SELECTOR='opencl:cpu;level_zero:*'): sorted, but 1,748 of the 1 Mi
        # values replaced by others. On an Intel Xeon host both sort it right, so there the
        # test must pass. Strict: a fixed dpnp fails this.
        request.applymarker(pytest.mark.xfail(
            strict=True,
            reason="dpnp 0.20's sort of 1 Mi float16 loses values on Intel's OpenCL CPU runtime too"))
    lo, hi = (0, 256) if dtype == np.uint8 else (-1000, 1000)
    a = rng(1).integers(lo, hi, n).astype(dtype)
    check(dpnp.sort(to_device(a, queue)), np.sort(a))


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [np.float32, np.int64], ids=names)
def test_argsort(queue, dtype, n):
    # Distinct keys: the permutation is unique, whatever the sort's stability.
    a = rng(2).permutation(n).astype(dtype)
    check(dpnp.argsort(to_device(a, queue)), np.argsort(a))


@pytest.mark.parametrize("n", SIZES)
def test_sort_descending_2d(queue, n):
    a = rng(3).standard_normal((3, n)).astype(np.float32)
    check(dpnp.sort(to_device(a, queue), axis=1)[:, ::-1], np.sort(a, axis=1)[:, ::-1])


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted(queue, side, n):
    hay = np.sort(rng(4).integers(0, 500, n)).astype(np.int64)
    needles = rng(5).integers(-5, 505, 1000).astype(np.int64)
    check(dpnp.searchsorted(to_device(hay, queue), to_device(needles, queue), side=side), np.searchsorted(hay, needles, side=side))


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [np.int32, np.float64], ids=names)
def test_unique(queue, dtype, n):
    a = rng(6).integers(0, 300, n).astype(dtype)
    check(dpnp.unique(to_device(a, queue)), np.unique(a))


@pytest.mark.parametrize("n", SIZES)
def test_unique_counts(queue, n):
    a = rng(7).integers(0, 50, n).astype(np.int64)
    vals, counts = dpnp.unique(to_device(a, queue), return_counts=True)
    want_vals, want_counts = np.unique(a, return_counts=True)
    check(vals, want_vals)
    check(counts, want_counts.astype(dpnp.asnumpy(counts).dtype))
