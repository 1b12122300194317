"""Shared fixtures of the SYCL suite (`cargo xtask sycl`): dpnp on the zekit CPU driver.

Every test asks for `device`, which fails (never skips) unless the process runs on the zekit
device through the Level Zero loader that `cargo xtask sycl` built (test_environment.py also
checks the adapter). Each result is compared with numpy.
"""

import os

import numpy as np
import pytest

import dpctl
import dpnp

pytest_plugins = ["isolate", "known"]

# Sizes of the 1-D tests: 1, a few, and sizes that no work-group size divides, up to 1 Mi.
SIZES = [1, 7, 1000, 4097, 1 << 20]


def _mapped_libraries():
    """Paths of the shared objects mapped into this process."""
    with open("/proc/self/maps") as f:
        return {line.split()[-1] for line in f if "/" in line.split()[-1]}


def _require_env(name):
    value = os.environ.get(name)
    if not value:
        pytest.fail(f"{name} is not set: run this suite through `cargo xtask sycl`", pytrace=False)
    return value


def _check_device():
    loader_dir = os.path.realpath(_require_env("ZEKIT_SYCL_LOADER_DIR"))
    driver = os.path.realpath(_require_env("ZE_ENABLE_ALT_DRIVERS"))
    devices = dpctl.get_devices()
    names = [f"{d.backend.name}:{d.name}" for d in devices]
    zekit = [d for d in devices if d.backend == dpctl.backend_type.level_zero and d.name.startswith("zekit CPU")]
    if len(zekit) != 1 or len(devices) != 1:
        pytest.fail(f"expected exactly one device, the zekit one through Level Zero; found {names}", pytrace=False)
    dev = zekit[0]
    # The device must work: make a queue and an array on it before looking at what is mapped.
    q = dpctl.SyclQueue(dev)
    dpnp.empty(1, sycl_queue=q)
    libs = _mapped_libraries()
    loaders = sorted(p for p in libs if os.path.basename(p).startswith("libze_loader.so"))
    wrong = [p for p in loaders if os.path.dirname(os.path.realpath(p)) != loader_dir]
    if not loaders or wrong:
        pytest.fail(f"the Level Zero loader mapped is {loaders}, not the one in {loader_dir}", pytrace=False)
    if not any(os.path.realpath(p) == driver for p in libs):
        pytest.fail(f"the zekit driver {driver} is not mapped into this process", pytrace=False)
    return dev, q


@pytest.fixture(scope="session")
def device_and_queue():
    return _check_device()


@pytest.fixture
def device(device_and_queue):
    return device_and_queue[0]


@pytest.fixture
def queue(device_and_queue):
    return device_and_queue[1]


def need_fp16(device):
    """Skips (saying why) when the device reports no fp16 aspect; every other dtype must work."""
    if not device.has_aspect_fp16:
        pytest.skip("the device reports no fp16 aspect (sycl::aspect::fp16)")


def need_dtype(device, dtype):
    if np.dtype(dtype) == np.float16:
        need_fp16(device)


def to_device(a, queue):
    return dpnp.asarray(a, sycl_queue=queue)


def check(got, expected, rtol=None, atol=0.0):
    """`got` (a dpnp array) equals numpy's `expected`: same shape and dtype, values within `rtol`."""
    assert isinstance(got, dpnp.ndarray), type(got)
    host = dpnp.asnumpy(got)
    expected = np.asarray(expected)
    assert host.shape == expected.shape, (host.shape, expected.shape)
    assert host.dtype == expected.dtype, (host.dtype, expected.dtype)
    if rtol is None:
        rtol = {np.float16: 2e-3, np.float32: 2e-6, np.float64: 1e-13}.get(expected.dtype.type, 0.0)
    if expected.dtype.kind in "fc":
        np.testing.assert_allclose(host, expected, rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(host, expected)


def rng(seed=0):
    return np.random.default_rng(seed)


# oneMKL's SYCL back ends run only on a real Intel GPU architecture (they ask for one); on any
# other Level Zero device they raise. Tests of what goes through oneMKL run the operation and
# skip, with this reason, only when oneMKL refuses the device that way; any other error fails.
ONEMKL_REASON = "needs oneMKL's GPU path: {what}"


def onemkl_refused(exc):
    """oneMKL's own refusal of a device that is no Intel GPU it knows (not a module the driver
    refused, nor a wrong result: those fail)."""
    text = str(exc)
    return "unknown GPU architecture" in text or "mkl_gpu_get_architecture" in text
