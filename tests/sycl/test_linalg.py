"""Integer matmul and dot (dpnp's own kernels); what goes through oneMKL skips with the reason."""

import numpy as np
import pytest

import dpnp
from conftest import ONEMKL_REASON, SIZES, check, onemkl_refused, rng, to_device

SHAPES = [(1, 1, 1), (7, 5, 3), (64, 33, 17), (130, 257, 65), (257, 1000, 9)]


@pytest.mark.parametrize("m,k,n", SHAPES)
@pytest.mark.parametrize("dtype", [np.int32, np.int64], ids=lambda d: np.dtype(d).name)
def test_matmul_int(queue, dtype, m, k, n):
    a = rng(1).integers(-10, 10, (m, k)).astype(dtype)
    b = rng(2).integers(-10, 10, (k, n)).astype(dtype)
    check(dpnp.matmul(to_device(a, queue), to_device(b, queue)), np.matmul(a, b))


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [np.int32, np.int64], ids=lambda d: np.dtype(d).name)
def test_dot_int(queue, dtype, n):
    a = rng(3).integers(-10, 10, n).astype(dtype)
    b = rng(4).integers(-10, 10, n).astype(dtype)
    check(dpnp.dot(to_device(a, queue), to_device(b, queue)), np.dot(a, b))


@pytest.mark.parametrize("m,k,n", SHAPES[:3])
def test_matmul_int_batched(queue, m, k, n):
    a = rng(5).integers(-10, 10, (3, m, k)).astype(np.int64)
    b = rng(6).integers(-10, 10, (3, k, n)).astype(np.int64)
    check(dpnp.matmul(to_device(a, queue), to_device(b, queue)), np.matmul(a, b))


def run_or_skip(what, fn):
    """Runs `fn`; skips with ONEMKL_REASON only when oneMKL refuses the device, fails otherwise."""
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - dpnp raises several kinds
        if onemkl_refused(e):
            pytest.skip(ONEMKL_REASON.format(what=f"{what} ({type(e).__name__}: {e})"))
        raise


@pytest.mark.parametrize("n", [7, 1000])
def test_matmul_float(queue, n):
    a = rng(7).standard_normal((n, 5)).astype(np.float32)
    b = rng(8).standard_normal((5, 3)).astype(np.float32)
    got = run_or_skip("float matmul is oneMKL's gemm", lambda: dpnp.matmul(to_device(a, queue), to_device(b, queue)))
    check(got, a @ b, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("n", [7, 4097])
def test_dot_float(queue, n):
    a = rng(9).standard_normal(n)
    b = rng(10).standard_normal(n)
    got = run_or_skip("float dot is oneMKL's dot", lambda: dpnp.dot(to_device(a, queue), to_device(b, queue)))
    check(got, np.dot(a, b), rtol=1e-10)


def test_fft(queue):
    a = rng(11).standard_normal(1000)
    got = run_or_skip("FFT is oneMKL's DFT", lambda: dpnp.fft.fft(to_device(a, queue)))
    check(got, np.fft.fft(a), rtol=1e-9, atol=1e-9)


def test_linalg_solve(queue):
    a = rng(12).standard_normal((7, 7)) + 7 * np.eye(7)
    b = rng(13).standard_normal(7)
    got = run_or_skip("solve is oneMKL's LAPACK", lambda: dpnp.linalg.solve(to_device(a, queue), to_device(b, queue)))
    check(got, np.linalg.solve(a, b), rtol=1e-9)


def test_random(queue):
    # Distribution checks only: oneMKL's generators are not numpy's.
    got = run_or_skip("random is oneMKL's RNG", lambda: dpnp.random.rand(100000, sycl_queue=queue))
    host = dpnp.asnumpy(got)
    assert host.shape == (100000,)
    assert 0.0 <= host.min() and host.max() < 1.0
    assert abs(host.mean() - 0.5) < 0.01
