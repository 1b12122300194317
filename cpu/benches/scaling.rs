//! Multi-core scaling of the CPU driver: the same workloads with the process on 1, 2, 4, ...
//! and every usable core, against the speed on one core measured in the same run.
//!
//! Each measurement is a child process of this bench (`ZEKIT_SCALING_CHILD=workload`) whose
//! CPU affinity is the first `n` CPUs this process may use, so that the driver's worker pool
//! (one thread per usable core) and everything else see `n` cores, as under `taskset`. Rounds
//! alternate the core counts (the order rotates each round) and each child prints the median of
//! its repetitions; the table shows the median over rounds, the speedup over one core and the
//! efficiency (speedup / cores). The machine's own limit is measured beside the float4 copy:
//! `memcpy` of the same bytes by `n` threads. Nothing asserts on time.
//!
//! Workloads (kernels from `spirv/kernels`, `ZEKIT_KERNELS_DIR` for a copy elsewhere):
//! - `fma_v1`, `fma_v4`: FP32 fused multiply-add chains (`bench/flops.cl`), GFLOPS;
//! - `copy4`: a float4 copy of 256 MiB (`bench/copy4.cl`), GB/s read + written; `memcpy`: the
//!   same bytes copied by `n` threads with `memcpy`, GB/s;
//! - `tree_reduce`: groups of 256 with 8 barriers over 16 Mi ints, G work-item barriers/s;
//! - `empty`: 1 Mi work-items of the empty kernel in groups of 256, G work-items/s.
//!
//! `ZEKIT_BENCH_ROUNDS` (default 5) rounds; `ZEKIT_SCALING_CORES=1,2,8` picks the core counts.

// The driver's library (`zekit-cpu`), under the name these files use.
extern crate zekit_cpu as zekit_driver_core;

#[path = "support/ze.rs"]
mod support;

use std::os::unix::process::CommandExt;
use std::process::Command;
use std::time::Instant;

use support::{arg, env_usize, kernel, kernels_dir, launch_and_wait, median, ok, read, setup};
use zekit_icd::entry as ze;
use zekit_sys::*;

const LOCAL: u32 = 256;
const BIG: usize = 256 << 20;
const MAX_GROUPS: u32 = 1 << 16;
const FLOPS_V1: f64 = 128.0 * 16.0 * 2.0;
/// Repetitions inside one child (after a warm-up).
const REPS: usize = 5;

/// (name, unit) of each workload, in the order printed.
const WORKLOADS: [(&str, &str); 6] = [
    ("fma_v1", "GFLOPS"),
    ("fma_v4", "GFLOPS"),
    ("copy4", "GB/s"),
    ("memcpy", "GB/s"),
    ("tree_reduce", "G wi-barriers/s"),
    ("empty", "G work-items/s"),
];

fn main() {
    if let Ok(w) = std::env::var("ZEKIT_SCALING_CHILD") {
        println!("{}", child(&w));
        return;
    }
    let cpus = allowed_cpus();
    let counts = core_counts(cpus.len());
    let rounds = env_usize("ZEKIT_BENCH_ROUNDS", 5).max(1);
    println!("multi-core scaling of the zekit CPU driver on {}", machine());
    println!(
        "{} usable CPUs ({:?}); core counts {counts:?}, the first n of them; medians of {rounds} rounds alternating the counts",
        cpus.len(),
        cpus
    );
    for (w, unit) in WORKLOADS {
        let mut by_count: Vec<Vec<f64>> = vec![Vec::new(); counts.len()];
        for r in 0..rounds {
            for i in 0..counts.len() {
                let c = (i + r) % counts.len();
                by_count[c].push(run_child(w, &cpus[..counts[c]]));
            }
        }
        let values: Vec<f64> = by_count.iter_mut().map(|v| median(v)).collect();
        println!("{w} ({unit}):");
        println!("  cores  {unit:>16}  speedup  efficiency");
        for (n, v) in counts.iter().zip(&values) {
            let speedup = v / values[0];
            println!("  {n:5}  {v:16.3}  {speedup:7.2}  {:9.0}%", 100.0 * speedup / *n as f64 * counts[0] as f64);
        }
    }
}

/// The CPUs this process may run on, ascending.
fn allowed_cpus() -> Vec<usize> {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; sched_getaffinity fills it for this
    // process, and CPU_ISSET only reads it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return vec![0];
        }
        (0..libc::CPU_SETSIZE as usize).filter(|&c| libc::CPU_ISSET(c, &set)).collect()
    }
}

/// 1, 2, 4, ... and `all` (or `ZEKIT_SCALING_CORES`), within `all`.
fn core_counts(all: usize) -> Vec<usize> {
    if let Ok(list) = std::env::var("ZEKIT_SCALING_CORES") {
        let mut v: Vec<usize> = list.split(',').filter_map(|s| s.trim().parse().ok()).filter(|&n| n >= 1 && n <= all).collect();
        v.sort();
        v.dedup();
        if !v.is_empty() {
            return v;
        }
    }
    let mut v: Vec<usize> = std::iter::successors(Some(1usize), |n| Some(n * 2)).take_while(|&n| n < all).collect();
    v.push(all);
    v
}

/// Runs workload `w` in a child restricted to `cpus`; the value it prints.
fn run_child(w: &str, cpus: &[usize]) -> f64 {
    let exe = std::env::current_exe().expect("the bench binary");
    let cpus = cpus.to_vec();
    let mut cmd = Command::new(exe);
    cmd.env("ZEKIT_SCALING_CHILD", w);
    // SAFETY: between fork and exec the closure only fills a stack value and makes one system
    // call (async-signal-safe), touching no lock or allocation of the parent.
    unsafe {
        cmd.pre_exec(move || {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            for &c in &cpus {
                libc::CPU_SET(c, &mut set);
            }
            if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = cmd.output().expect("the scaling child");
    assert!(out.status.success(), "{w}: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines().last().and_then(|l| l.trim().parse().ok()).unwrap_or_else(|| panic!("{w}: printed {text:?}"))
}

/// The median over [`REPS`] of `measure` after one warm-up run.
fn reps(mut measure: impl FnMut() -> f64) -> f64 {
    measure();
    let mut v: Vec<f64> = (0..REPS).map(|_| measure()).collect();
    median(&mut v)
}

/// One workload on this process's cores.
fn child(w: &str) -> f64 {
    if w == "memcpy" {
        return memcpy_gbs(std::thread::available_parallelism().map_or(1, |n| n.get()));
    }
    let d = setup();
    let imm = d.immediate(ze_command_queue_mode_t::ASYNCHRONOUS);
    let dir = kernels_dir();
    match w {
        "fma_v1" | "fma_v4" => {
            let m = d.module(&read(dir.join("bench/flops.spv"))).expect("flops.spv");
            let per_item = if w == "fma_v4" { FLOPS_V1 * 4.0 } else { FLOPS_V1 };
            let out = d.device_mem(MAX_GROUPS as usize * LOCAL as usize * 4);
            let k = kernel(m, w, LOCAL);
            arg(k, 0, &out);
            arg(k, 1, &1.0001f32);
            let groups = support::calibrate(16, MAX_GROUPS, 0.2, |g| launch_and_wait(imm, k, g));
            reps(|| groups as f64 * LOCAL as f64 * per_item / launch_and_wait(imm, k, groups) / 1e9)
        }
        "copy4" => {
            let m = d.module(&read(dir.join("bench/copy4.spv"))).expect("copy4.spv");
            let k = kernel(m, "copy4", LOCAL);
            let (src, dst) = (d.device_mem(BIG), d.device_mem(BIG));
            // SAFETY: both buffers hold BIG bytes; touching them maps their pages first.
            unsafe {
                std::ptr::write_bytes(src.cast::<u8>(), 0x3c, BIG);
                std::ptr::write_bytes(dst.cast::<u8>(), 0, BIG);
            }
            arg(k, 0, &src);
            arg(k, 1, &dst);
            let groups = (BIG / 16 / LOCAL as usize) as u32;
            let gbs = reps(|| 2.0 * BIG as f64 / launch_and_wait(imm, k, groups) / 1e9);
            // SAFETY: `dst` holds BIG bytes and every launch writing it has finished.
            assert_eq!(unsafe { *dst.cast::<u8>() }, 0x3c, "copy4 copied");
            gbs
        }
        "tree_reduce" => {
            let m = d.module(&read(dir.join("tree_reduce.spv"))).expect("tree_reduce.spv");
            let k = kernel(m, "tree_reduce", LOCAL);
            let items = 16usize << 20;
            let groups = (items / LOCAL as usize) as u32;
            let (input, out) = (d.device_mem(items * 4), d.device_mem(groups as usize * 4));
            // SAFETY: `input` holds `items` ints.
            unsafe { std::ptr::write_bytes(input.cast::<u8>(), 1, items * 4) };
            arg(k, 0, &input);
            arg(k, 1, &out);
            // SAFETY: a local argument takes its size and no value.
            ok("zeKernelSetArgumentValue", unsafe {
                ze::zeKernelSetArgumentValue(k, 2, LOCAL as usize * 4, std::ptr::null())
            });
            let barriers = (LOCAL as f64).log2();
            reps(|| items as f64 * barriers / launch_and_wait(imm, k, groups) / 1e9)
        }
        "empty" => {
            let m = d.module(&read(dir.join("bench/empty.spv"))).expect("empty.spv");
            let k = kernel(m, "empty", LOCAL);
            let items = 1usize << 20;
            let groups = (items / LOCAL as usize) as u32;
            reps(|| items as f64 / launch_and_wait(imm, k, groups) / 1e9)
        }
        _ => panic!("unknown workload {w}"),
    }
}

/// `memcpy` of [`BIG`] bytes split among `threads` threads, GB/s read + written.
fn memcpy_gbs(threads: usize) -> f64 {
    let src = vec![0x3cu8; BIG];
    let mut dst = vec![0u8; BIG];
    let chunk = BIG.div_ceil(threads);
    reps(|| {
        let t = Instant::now();
        std::thread::scope(|s| {
            for (d, s_) in dst.chunks_mut(chunk).zip(src.chunks(chunk)) {
                s.spawn(move || d.copy_from_slice(s_));
            }
        });
        2.0 * BIG as f64 / t.elapsed().as_secs_f64() / 1e9
    })
}

/// The CPU model and logical CPU count, from `/proc/cpuinfo`.
fn machine() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = info
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map_or("unknown CPU", |(_, m)| m.trim());
    let logical = info.lines().filter(|l| l.starts_with("processor")).count();
    format!("{model}, {logical} logical CPUs")
}
