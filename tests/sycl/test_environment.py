"""The suite runs where it should: one device, zekit's, through the loader and adapter asked for."""

import os
import subprocess
import sys

from conftest import _mapped_libraries


def test_device_is_zekit(device):
    assert device.name.startswith("zekit CPU"), device.name
    assert device.backend.name == "level_zero", device.backend


def test_loader_is_the_one_built(device):
    loader_dir = os.path.realpath(os.environ["ZEKIT_SYCL_LOADER_DIR"])
    loaders = [p for p in _mapped_libraries() if "libze_loader.so" in p]
    assert loaders, "no Level Zero loader mapped"
    for p in loaders:
        assert os.path.dirname(os.path.realpath(p)) == loader_dir, p
        assert not p.startswith("/usr/lib"), p


def test_adapter_is_the_one_asked_for(device):
    """Both adapters are always loaded; the one not asked for says it steps aside."""
    adapter = os.environ["ZEKIT_SYCL_ADAPTER"]
    assert adapter in ("v1", "v2"), adapter
    assert os.environ.get("UR_LOADER_USE_LEVEL_ZERO_V2", "0") == ("1" if adapter == "v2" else "0")
    env = dict(os.environ, UR_LOG_LEVEL_ZERO="level:debug;output:stderr")
    out = subprocess.run([sys.executable, "-c", "import dpctl; print(dpctl.get_devices())"], env=env,
                         capture_output=True, text=True, timeout=120)
    other = "V1" if adapter == "v2" else "V2"
    assert f"Skipping L0 {other} adapter" in out.stderr, out.stderr[-3000:]
    assert "Level Zero Loader version: 1.32.0" in out.stderr, out.stderr[-3000:]
    assert "zekit CPU" in out.stdout, out.stdout
