"""dpnp on zekit's CPU driver against Intel's OpenCL CPU runtime, in one process.

Run by `cargo xtask sycl --bench` (xtask/src/sycl_bench.rs), which sets
ONEAPI_DEVICE_SELECTOR='opencl:cpu;level_zero:*', OCL_ICD_FILENAMES to the venv's
libintelocl.so and ZE_ENABLE_ALT_DRIVERS to the driver. Each operation runs on both devices
and in numpy, in alternating rounds (the order of the three rotates each round), after a warm-up
on each (module builds, first-touch costs and tiering up are not what is measured: three passes
of ZEKIT_BENCH_WARMUP_S seconds, 0.5 by default). Prints the median
of each, and zekit's time as a multiple of Intel's: below 1.0 zekit is faster.
"""

import os
import platform
import statistics
import sys
import time

import dpctl
import dpnp
import numpy as np

N = 16 << 20
SORT_N = 1 << 20
H2D_BYTES = 64 << 20
ROUNDS = int(os.environ.get("ZEKIT_BENCH_ROUNDS", "7"))
# Seconds of each of three warm-up passes per operation and side: long enough for a driver
# whose kernels tier up (zekit built with the LLVM tier) to compile them in the background and
# settle on a code before the rounds.
WARMUP_S = float(os.environ.get("ZEKIT_BENCH_WARMUP_S", "0.5"))


def machine():
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} logical CPUs, {platform.system()} {platform.release()}"


def devices():
    intel = zekit = None
    for d in dpctl.get_devices():
        # Intel's OpenCL CPU runtime, not another OpenCL CPU device (PoCL, which `cargo xtask
        # bench` installs for its kernel benchmarks, lists one too).
        if (d.backend == dpctl.backend_type.opencl and d.device_type == dpctl.device_type.cpu
                and d.vendor.startswith("Intel")):
            intel = d
        elif d.backend == dpctl.backend_type.level_zero and "zekit" in d.name:
            zekit = d
    if intel is None or zekit is None:
        sys.exit(f"need Intel's OpenCL CPU device and the zekit device; found {dpctl.get_devices()}")
    return intel, zekit


def operations(q):
    """name -> (setup() -> state, run(state) -> result) on queue q (None: numpy)."""
    xp = np if q is None else dpnp
    kw = {} if q is None else {"sycl_queue": q}
    host = np.random.default_rng(0).standard_normal(N).astype(np.float32)
    host_sort = np.random.default_rng(1).standard_normal(SORT_N).astype(np.float32)
    host_h2d = np.ones(H2D_BYTES // 4, dtype=np.float32)
    a = xp.asarray(host, **kw)
    b = xp.asarray(host[::-1].copy(), **kw)
    s = xp.asarray(host_sort, **kw)
    return {
        "add 16M float32": lambda: xp.add(a, b),
        "sum 16M float32": lambda: xp.sum(a),
        "sort 1M float32": lambda: xp.sort(s),
        "zeros 16M float32": lambda: xp.zeros(N, dtype=np.float32, **kw),
        "arange 16M float32": lambda: xp.arange(N, dtype=np.float32, **kw),
        "host to device 64 MiB": (lambda: np.array(host_h2d, copy=True)) if q is None
        else (lambda: dpnp.asarray(host_h2d, **kw)),
        "copy 16M float32": lambda: xp.copy(a),
        "flip 16M float32 (copied)": lambda: xp.ascontiguousarray(xp.flip(a)),
    }


def timed(fn, q):
    t = time.perf_counter()
    r = fn()
    if q is not None:
        q.wait()
    elapsed = time.perf_counter() - t
    del r
    return elapsed


def warm_up(fn, q):
    """Module builds, first touch, and tiering up: three passes of at least WARMUP_S seconds
    each (one call at least)."""
    for _ in range(3):
        t = time.perf_counter()
        timed(fn, q)
        while time.perf_counter() - t < WARMUP_S:
            timed(fn, q)


def main():
    intel, zekit = devices()
    qi, qz = dpctl.SyclQueue(intel), dpctl.SyclQueue(zekit)
    print(f"machine: {machine()}")
    print(f"Intel: {intel.name} ({intel.driver_version}); zekit: {zekit.name} ({zekit.driver_version})")
    print(f"{ROUNDS} alternating rounds, medians")
    sides = [("intel", qi), ("zekit", qz), ("numpy", None)]
    ops = {name: operations(q) for name, q in sides}
    rows = []
    for op in ops["zekit"]:
        times = {name: [] for name, _ in sides}
        for name, q in sides:
            warm_up(ops[name][op], q)
        for r in range(ROUNDS):
            order = sides[r % 3:] + sides[:r % 3]
            for name, q in order:
                times[name].append(timed(ops[name][op], q))
        med = {k: statistics.median(v) for k, v in times.items()}
        rows.append((op, med))
        print(f"  {op:28} intel {med['intel']*1e3:8.2f} ms  zekit {med['zekit']*1e3:8.2f} ms  "
              f"numpy {med['numpy']*1e3:8.2f} ms  zekit/intel {med['zekit']/med['intel']:5.2f}x",
              flush=True)
    print()
    print("| operation | Intel OpenCL CPU | zekit | numpy | zekit / Intel (time) |")
    print("|---|---|---|---|---|")
    for op, med in rows:
        print(f"| {op} | {med['intel']*1e3:.2f} ms | {med['zekit']*1e3:.2f} ms | "
              f"{med['numpy']*1e3:.2f} ms | {med['zekit']/med['intel']:.2f}x |")


if __name__ == "__main__":
    main()
