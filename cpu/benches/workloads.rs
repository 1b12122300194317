//! The workloads of the speed goal, on zekit against Intel's OpenCL CPU runtime (PyPI
//! `intel-opencl-rt`, fed the same SPIR-V through `clCreateProgramWithIL`) and PoCL (the
//! bitcode translated back from it), in one process, in alternating rounds, beside the
//! machine's own limits measured in the same run (`support/limits.rs`: FMA loops in C at 512,
//! 256 and 128 bits, `memcpy` and a non-temporal copy, on every core; the best of the rounds).
//!
//! The kernels are `spirv/kernels/bench/workloads.cl` (and `collective.cl`, `empty.cl`,
//! `copy4.cl`); every
//! workload runs the same global size on every side, and its output is compared between the
//! sides before anything is printed. Each is printed as a row of a Markdown table: the rate on
//! each side, zekit's throughput as a multiple of Intel's (time for the launch rows: Intel's
//! time over ours, so above 1 is better everywhere), and, for FMA and bandwidth, zekit's share of
//! the machine's limit. Nothing asserts on time.
//!
//! Intel's runtime needs its own libraries found first: when `OCL_ICD_FILENAMES` is not set
//! yet, the bench starts itself again with `LD_LIBRARY_PATH` and `OCL_ICD_FILENAMES` set to
//! the venv that `cargo xtask bench` (or `cargo xtask sycl`) installs under
//! `target/zekit-deps/sycl-venv` (`ZEKIT_INTEL_OCL` names another `libintelocl.so`). Without
//! Intel's runtime or PoCL the bench says so and prints the other columns.
//! `ZEKIT_BENCH_ROUNDS` (default 5) sets the rounds, `ZEKIT_BENCH_ONLY` a substring of the
//! workloads to run.

// The driver's library (`zekit-cpu`), under the name these files use.
extern crate zekit_cpu as zekit_driver_core;

#[path = "support/limits.rs"]
mod limits;
#[path = "support/opencl.rs"]
mod opencl;
#[path = "support/ze.rs"]
mod support;
#[path = "support/workload.rs"]
mod workload;

use std::path::PathBuf;

use opencl::{Cl, Vendor};
use support::{env_usize, kernels_dir, read};
use workload::{Arg, Check, Init, Limit, Side, Work, Workload};

/// The `libintelocl.so` the bench runs Intel's runtime from.
fn intel_library() -> PathBuf {
    match std::env::var_os("ZEKIT_INTEL_OCL") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/zekit-deps/sycl-venv/lib/libintelocl.so"),
    }
}

/// Starts the bench again with Intel's runtime findable (see the module documentation), unless
/// that is done or impossible. Returns only when this process runs the bench.
fn reexec_with_intel() {
    use std::os::unix::process::CommandExt;
    let lib = intel_library();
    if std::env::var_os("OCL_ICD_FILENAMES").is_some() || !lib.exists() {
        return;
    }
    let dir = lib.parent().unwrap_or(std::path::Path::new("."));
    let mut path = dir.as_os_str().to_owned();
    if let Some(old) = std::env::var_os("LD_LIBRARY_PATH") {
        path.push(":");
        path.push(old);
    }
    let Ok(exe) = std::env::current_exe() else { return };
    let e = std::process::Command::new(exe)
        .args(std::env::args_os().skip(1))
        .env("LD_LIBRARY_PATH", path)
        .env("OCL_ICD_FILENAMES", &lib)
        .exec();
    println!("(could not start again with Intel's runtime: {e})");
}

/// The CPU's model name and the cores this process may use.
fn machine() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("model name")).and_then(|l| l.split(':').nth(1)).map(|m| m.trim().to_owned()))
        .unwrap_or_else(|| "unknown CPU".into());
    format!("{model}, {} usable cores", zekit_driver_core::host::host().usable_cores)
}

const MI: usize = 1 << 20;

/// The table's rows, in order.
fn workloads() -> Vec<Workload> {
    use Arg::*;
    let fma = |name: &'static str, kernel: &'static str, items: usize, fmas: f64| Workload {
        name,
        kernel,
        module: "workloads",
        local: 256,
        items,
        args: vec![Buf(0), F32(0.999), F32(0.01)],
        bufs: vec![(items * 4, Init::Zero)],
        out: Some((0, Check::Close(1e-5))),
        work: Work::Flops(items as f64 * fmas * 2.0),
        reps: 1,
        limit: Limit::Fma,
    };
    let sgemm = |name, kernel| Workload {
        name,
        kernel,
        module: "workloads",
        local: 256,
        items: 1 << 20,
        args: vec![U32(10), Buf(0), Buf(1), Buf(2)],
        bufs: vec![(4 * MI, Init::Unit), (4 * MI, Init::Unit), (4 * MI, Init::Zero)],
        out: Some((2, Check::Close(1e-4))),
        work: Work::Flops(2.0 * 1024f64.powi(3)),
        reps: 1,
        limit: Limit::None,
    };
    let sum = |name, kernel, module, args| Workload {
        name,
        kernel,
        module,
        local: 256,
        items: 16 * MI,
        args,
        bufs: vec![(64 * MI, Init::Unit), (MI / 4, Init::Zero)],
        out: Some((1, Check::Close(1e-4))),
        work: Work::Bytes(64.0 * MI as f64),
        reps: 1,
        limit: Limit::None,
    };
    let hist = |name, kernel| Workload {
        name,
        kernel,
        module: "workloads",
        local: 256,
        items: 16 * MI,
        args: vec![Buf(0), Buf(1)],
        bufs: vec![(64 * MI, Init::Bits), (1024, Init::Zero)],
        out: Some((1, Check::Exact)),
        work: Work::Bytes(64.0 * MI as f64),
        reps: 1,
        limit: Limit::None,
    };
    let empty = |name, local, items, reps| Workload {
        name,
        kernel: "empty",
        module: "empty",
        local,
        items,
        args: vec![],
        bufs: vec![],
        out: None,
        work: Work::Launch,
        reps,
        limit: Limit::None,
    };
    vec![
        empty("empty launch, 1 work-item (launch + wait)", 1, 1, 1000),
        empty("empty launch, 1 Mi work-items", 256, MI, 50),
        fma("FMA, scalar, 1 chain per work-item", "fma_chain1", MI, 2048.0),
        fma("FMA, scalar, 8 chains per work-item", "fma_chain8", MI, 2048.0),
        fma("FMA, float4", "fma_float4", MI / 4, 2048.0 * 4.0),
        fma("FMA, float16", "fma_float16", MI / 16, 2048.0 * 16.0),
        Workload {
            name: "float4 copy of 256 MiB",
            kernel: "copy4",
            module: "copy4",
            local: 256,
            items: 16 * MI,
            args: vec![Buf(0), Buf(1)],
            bufs: vec![(256 * MI, Init::Bits), (256 * MI, Init::Zero)],
            out: Some((1, Check::Exact)),
            work: Work::Bytes(512.0 * MI as f64),
            reps: 1,
            limit: Limit::Copy,
        },
        sum("sum of 16 Mi floats, local memory and barriers", "sum_local", "workloads", vec![Buf(0), Buf(1), Local(1024)]),
        sum("sum of 16 Mi floats, work_group_reduce_add", "sum_collective", "collective", vec![Buf(0), Buf(1)]),
        sgemm("SGEMM 1024, naive", "sgemm_naive"),
        sgemm("SGEMM 1024, 16 × 16 local tiles", "sgemm_tiled"),
        Workload {
            name: "n-body, 8192 bodies (rsqrt; 20 flops per pair)",
            kernel: "nbody",
            module: "workloads",
            local: 256,
            items: 8192,
            args: vec![I32(8192), F32(0.01), Buf(0), Buf(1)],
            bufs: vec![(8192 * 16, Init::Unit), (8192 * 16, Init::Zero)],
            out: Some((1, Check::Close(1e-3))),
            work: Work::Flops(20.0 * 8192.0 * 8192.0),
            reps: 1,
            limit: Limit::None,
        },
        hist("histogram of 16 Mi uints, 256 bins, global atomics", "hist_global"),
        hist("histogram of 16 Mi uints, 256 bins, local atomics and barriers", "hist_local"),
    ]
}

/// Which of zekit's code generators makes the code the rounds run.
fn tier_line() -> String {
    use zekit_spirv::jit::{tier, tiers_up, tierup, Tier, HAS_LLVM};
    if tiers_up() {
        let ms = tierup::threshold() as f64 / 1e6;
        return format!("Cranelift's code first, LLVM's after {ms} ms of launches (ZEKIT_TIER=auto); each workload warms up until the faster of the two runs");
    }
    match tier() {
        Tier::Llvm if HAS_LLVM => "LLVM's (ZEKIT_TIER=llvm)".into(),
        _ if HAS_LLVM => "Cranelift's (ZEKIT_TIER=cranelift)".into(),
        _ => "Cranelift's (this build has no LLVM tier: the `llvm` feature)".into(),
    }
}

fn main() {
    reexec_with_intel();
    let rounds = env_usize("ZEKIT_BENCH_ROUNDS", 5).max(1);
    let only = std::env::var("ZEKIT_BENCH_ONLY").unwrap_or_default();
    let d = support::setup();
    let cores = zekit_driver_core::host::host().usable_cores;
    println!("Workloads: zekit CPU driver / Intel's OpenCL CPU runtime / PoCL, on {}", machine());
    println!("medians of {rounds} interleaved rounds; the same SPIR-V on zekit and Intel, its bitcode on PoCL");
    println!("zekit's kernels: {}", tier_line());

    let bench = kernels_dir().join("bench");
    let modules = ["workloads", "collective", "empty", "copy4"];
    let spirv: Vec<(&str, Vec<u8>)> = modules.iter().map(|m| (*m, read(bench.join(format!("{m}.spv"))))).collect();
    let bitcode: Vec<(&str, Vec<u8>)> = modules.iter().map(|m| (*m, read(bench.join(format!("{m}.bc"))))).collect();

    let mut cls = vec![];
    for vendor in [Vendor::Intel, Vendor::Pocl] {
        match Cl::open(vendor, 64) {
            Ok(cl) => cls.push(cl),
            Err(e) => println!("({} not available: {e})", vendor.name()),
        }
    }
    let mut sides = vec![Side::zekit(&d, &spirv)];
    for cl in &cls {
        let code = if cl.vendor == Vendor::Intel { &spirv } else { &bitcode };
        sides.push(Side::opencl(cl, code));
    }

    let limits = limits::Limits::open(cores as usize);
    let mut peak = None;
    let mut copy_limit = None;
    match &limits {
        Ok(l) => {
            let fma: Vec<(u32, Option<f64>)> = [512, 256, 128]
                .into_iter()
                .map(|b| {
                    // The best of the rounds: a limit is what the machine can reach.
                    let v: Vec<f64> = (0..rounds).filter_map(|_| l.fma_gflops(b, 0.1)).collect();
                    (b, v.into_iter().reduce(f64::max))
                })
                .collect();
            for (b, g) in &fma {
                match g {
                    Some(g) => println!("machine: FP32 FMA loop in C, {b}-bit vectors, {cores} cores: {g:.1} GFLOPS"),
                    None => println!("machine: no {b}-bit FMA on this CPU"),
                }
            }
            peak = fma.iter().find_map(|(b, g)| g.map(|g| (*b, g)));
            let size = 256 * MI;
            let (a, b) = (d.device_mem(size), d.device_mem(size));
            // SAFETY: both buffers hold `size` bytes; writing them maps their pages first.
            unsafe {
                std::ptr::write_bytes(a.cast::<u8>(), 0x3c, size);
                std::ptr::write_bytes(b.cast::<u8>(), 0, size);
            }
            let best = |nt| (0..rounds).map(|_| l.copy_gbs(b, a, size, nt)).fold(0.0, f64::max);
            let (m, nt) = (best(false), best(true));
            println!("machine: memcpy of 256 MiB, {cores} threads: {m:.1} GB/s; non-temporal copy: {nt:.1} GB/s (read + written)");
            copy_limit = Some(m);
            d.free(a);
            d.free(b);
        }
        Err(e) => println!("(the machine's limits are not measured: {e})"),
    }

    println!();
    let names: Vec<&str> = sides.iter().map(|s| s.name()).collect();
    println!("| workload | {} | zekit's speed / Intel's | zekit, of the machine's limit |", names.join(" | "));
    println!("|---|{}---|---|", "---|".repeat(names.len()));
    for w in workloads() {
        if !w.name.contains(&only) {
            continue;
        }
        let row = workload::measure(&w, &mut sides, rounds);
        let cells: Vec<String> = row.iter().map(|r| r.map_or("—".into(), |v| w.work.show(v))).collect();
        let ratio = match (row.first().copied().flatten(), sides.iter().position(|s| s.name() == "Intel").and_then(|i| row[i])) {
            (Some(ours), Some(intel)) => format!("{:.2}×", intel / ours),
            _ => "—".into(),
        };
        let share = match (w.limit, row[0]) {
            (Limit::Fma, Some(t)) => peak.map_or("—".into(), |(b, g)| format!("{:.0}% of {b}-bit peak", 100.0 * w.work.rate(t) / g)),
            (Limit::Copy, Some(t)) => copy_limit.map_or("—".into(), |m| format!("{:.0}% of memcpy", 100.0 * w.work.rate(t) / m)),
            _ => String::new(),
        };
        println!("| {} ({}) | {} | {ratio} | {share} |", w.name, w.work.unit(), cells.join(" | "));
    }
    if zekit_spirv::jit::tiers_up() {
        use zekit_spirv::jit::tierup;
        println!(
            "(tiering up: {} kernels compiled by LLVM, of which {} went back to Cranelift's code, LLVM's being slower)",
            tierup::upgrades(),
            tierup::given_up()
        );
    }
    let ready = workload::module_build(&d, &sides, rounds);
    println!("{ready}");
}
