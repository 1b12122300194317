//! SPIR-V kernels on the CPU driver against PoCL (Debian's `pocl-opencl-icd`, through the
//! OpenCL ICD loader; `cargo xtask bench` installs it), measured side by side in one run, in
//! process through the generated C entry points (`zekit_icd::entry`). Both sides run the same
//! kernels: ours the committed SPIR-V, PoCL (which takes no SPIR-V) the LLVM bitcode that
//! `cargo xtask kernels` translates back from it with `llvm-spirv-15 -r`
//! (`spirv/kernels/bench/`), so neither pays a C front end.
//!
//! 1. module build, cold: `zeModuleCreate` of every test kernel `spirv/kernels/*.spv` against
//!    `clCreateProgramWithBinary` + `clBuildProgram` of their bitcode (`POCL_KERNEL_CACHE=0`;
//!    kernels PoCL fails to build are left out on both sides, and named). `zeModuleCreate`
//!    returns before the machine code is generated (in the background), so a second line
//!    counts every module ready: `zeModuleCreate` + `zeKernelCreate` of each of its kernels;
//!    And the empty kernel from binary to first result (build, kernel, first launch and wait):
//!    PoCL generates a kernel's work-group function at its first enqueue, which (1) does not
//!    count;
//! 2. an empty kernel, one group of one work-item: append on an asynchronous immediate list +
//!    `zeCommandListHostSynchronize` against `clEnqueueNDRangeKernel` + `clFinish`;
//! 3. FP32 multiply-add chains (`bench/flops.cl`, clpeak-style; `mad` and `fma`, scalar and
//!    float4), global size calibrated per side for ~100 ms, in GFLOPS;
//! 4. global memory bandwidth: a float4 copy kernel over 256 MiB (`bench/copy4.cl`), in GB/s
//!    (bytes read + written);
//! 5. work-group barriers: the tree reduction `tree_reduce.cl` (groups of 256, 8 barriers in a
//!    loop) over 16 Mi ints, in ns per work-item per barrier; and, for the other way to run
//!    barriers, what one fiber switch costs (`support/fiber.rs`), which fibers would pay per
//!    work-item per barrier on top of the work.
//!
//! Each measure alternates the two sides over `ZEKIT_BENCH_ROUNDS` rounds (default 9) and prints
//! medians: ours, PoCL's and ours / PoCL's. Nothing asserts on time. Without PoCL the bench says
//! so and prints only our side.

// The driver's library (`zekit-cpu`), under the name these files use.
extern crate zekit_cpu as zekit_driver_core;

#[cfg(target_arch = "x86_64")]
#[path = "support/fiber.rs"]
mod fiber;
#[path = "support/opencl.rs"]
mod opencl;
#[path = "support/ze.rs"]
mod support;

use support::{arg, create_every_kernel, destroy_module, env_usize, kernel, kernels_dir, launch_and_wait, median, ok, read, setup};

use std::time::Instant;

use zekit_icd::entry as ze;
use zekit_sys::*;

const BIG: usize = 256 << 20;
/// Work-items per group in (3) and (4), on both sides.
const LOCAL: u32 = 256;
/// At most this many groups in (3) (a 64 MiB result buffer).
const MAX_GROUPS: u32 = 1 << 16;
/// Flops per work-item of `mad_v1`/`fma_v1` (128 × 16 `mad`s of 2 flops) and `mad_v4`/`fma_v4`
/// (4 lanes).
const FLOPS_V1: f64 = 128.0 * 16.0 * 2.0;
const FLOPS_V4: f64 = FLOPS_V1 * 4.0;



/// The test kernels: (name, SPIR-V, bitcode).
fn corpus() -> Vec<(String, Vec<u8>, Vec<u8>)> {
    let dir = kernels_dir();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("spirv/kernels")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "spv"))
        .map(|p| p.file_stem().unwrap_or_default().to_string_lossy().into_owned())
        // Kernels without bitcode (xtask's NO_BITCODE) are not in the corpus.
        .filter(|n| dir.join(format!("bench/corpus/{n}.bc")).exists())
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|n| {
            let spv = read(dir.join(format!("{n}.spv")));
            let bc = read(dir.join(format!("bench/corpus/{n}.bc")));
            (n, spv, bc)
        })
        .collect()
}



/// Alternates `ours` and `theirs` over `rounds` rounds; their medians.
fn interleave(rounds: usize, mut ours: impl FnMut() -> f64, mut theirs: impl FnMut() -> f64) -> (f64, f64) {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for r in 0..rounds {
        if r % 2 == 0 {
            a.push(ours());
            b.push(theirs());
        } else {
            b.push(theirs());
            a.push(ours());
        }
    }
    (median(&mut a), median(&mut b))
}

fn report(what: &str, unit: &str, ours: f64, theirs: Option<f64>, goal: &str) {
    println!("{what}:");
    println!("  zekit: {ours:10.3} {unit}");
    if let Some(theirs) = theirs {
        println!("  PoCL : {theirs:10.3} {unit}");
        println!("  zekit / PoCL: {:8.3}  (goal: {goal})", ours / theirs);
    }
}


fn main() {
    // Before PoCL is loaded: no program cache, so each build is cold.
    // (No other thread exists yet that could read the environment.)
    std::env::set_var("POCL_KERNEL_CACHE", "0");
    let rounds = env_usize("ZEKIT_BENCH_ROUNDS", 9).max(1);
    let trips = env_usize("ZEKIT_BENCH_TRIPS", 2000).max(1);
    let d = setup();
    let cores = zekit_driver_core::host::host().usable_cores;
    let cl = match opencl::Cl::open(opencl::Vendor::Pocl, 64) {
        Ok(cl) => Some(cl),
        Err(e) => {
            println!("PoCL not available ({e}): run `cargo xtask bench`, which installs it");
            None
        }
    };
    println!("SPIR-V kernels: zekit CPU driver ({cores} usable cores) / PoCL; medians of {rounds} interleaved rounds");

    // (1) Module build of the corpus, cold. Kernels PoCL cannot build are left out on both sides.
    let mut corpus = corpus();
    if let Some(cl) = &cl {
        corpus.retain(|(name, _, bc)| match cl.build(bc) {
            Ok(_) => true,
            Err(e) => {
                let e =
                    e.lines().find(|l| l.contains("Cannot")).or(e.lines().next()).unwrap_or_default().trim().to_owned();
                println!("(left out of (1): {name}, which PoCL does not build: {e})");
                false
            }
        });
    }
    // `zeModuleCreate` returns once the SPIR-V is parsed, validated and lowered; the machine
    // code is generated in the background. (1) times the calls returning (then, untimed, waits
    // for the code so that no round runs into the last one's); (1') times every module ready:
    // `zeModuleCreate` + `zeKernelCreate` of each of its kernels.
    let ours_build = || {
        let t = Instant::now();
        let modules: Vec<_> = corpus
            .iter()
            .map(|(name, spv, _)| d.module(spv).unwrap_or_else(|r| panic!("zeModuleCreate {name}: {r:?}")))
            .collect();
        let took = t.elapsed().as_secs_f64() * 1e3;
        for m in modules {
            create_every_kernel(m);
            destroy_module(m);
        }
        took
    };
    let ours_ready = || {
        let t = Instant::now();
        let modules: Vec<_> = corpus
            .iter()
            .map(|(name, spv, _)| d.module(spv).unwrap_or_else(|r| panic!("zeModuleCreate {name}: {r:?}")))
            .collect();
        for m in &modules {
            create_every_kernel(*m);
        }
        let took = t.elapsed().as_secs_f64() * 1e3;
        modules.into_iter().for_each(destroy_module);
        took
    };
    let what =
        format!("module build of the {} test kernels, cold (zeModuleCreate returning / clBuildProgram of bitcode)", corpus.len());
    let what_ready =
        "the same, every kernel's code ready (zeModuleCreate + zeKernelCreate of each kernel / clBuildProgram)";
    match &cl {
        Some(cl) => {
            let theirs_build = || {
                let t = Instant::now();
                for (name, _, bc) in &corpus {
                    let p = cl.build(bc).unwrap_or_else(|e| panic!("PoCL {name}: {e}"));
                    drop(p);
                }
                t.elapsed().as_secs_f64() * 1e3
            };
            let (ours, theirs) = interleave(rounds, ours_build, theirs_build);
            report(&what, "ms", ours, Some(theirs), "<= 0.1");
            let (ours, theirs) = interleave(rounds, ours_ready, theirs_build);
            report(what_ready, "ms", ours, Some(theirs), "none set");
        }
        None => {
            let mut v: Vec<f64> = (0..rounds).map(|_| ours_build()).collect();
            report(&what, "ms", median(&mut v), None, "");
            let mut v: Vec<f64> = (0..rounds).map(|_| ours_ready()).collect();
            report(what_ready, "ms", median(&mut v), None, "");
        }
    }

    let bench = kernels_dir().join("bench");
    let flops_spv = read(bench.join("flops.spv"));
    let copy_spv = read(bench.join("copy4.spv"));
    let empty_spv = read(bench.join("empty.spv"));
    let imm = d.immediate(ze_command_queue_mode_t::ASYNCHRONOUS);
    let sync = d.immediate(ze_command_queue_mode_t::SYNCHRONOUS);
    let cl_programs = cl.as_ref().map(|cl| {
        let load = |n: &str| cl.build(&read(bench.join(format!("{n}.bc")))).expect("PoCL bench kernel");
        (cl, load("empty"), load("flops"), load("copy4"))
    });

    // (1b) The empty kernel from its binary to its first result: PoCL generates a kernel's
    // work-group function at its first enqueue, which (1) does not count.
    let first_launch = || {
        let t = Instant::now();
        let m = d.module(&empty_spv).expect("empty.spv");
        let k = kernel(m, "empty", 1);
        launch_and_wait(imm, k, 1);
        // SAFETY: idle kernel of the module made above.
        ok("zeKernelDestroy", unsafe { ze::zeKernelDestroy(k) });
        destroy_module(m);
        t.elapsed().as_secs_f64() * 1e3
    };
    let what = "empty kernel, cold: module build + kernel + first launch and synchronize / the same on PoCL";
    match &cl {
        Some(cl) => {
            let bc = read(bench.join("empty.bc"));
            let cl_first = || {
                let t = Instant::now();
                let p = cl.build(&bc).expect("PoCL empty.bc");
                let k = p.kernel("empty").expect("empty");
                cl.launch_and_wait(&k, 1, 1);
                drop(k);
                drop(p);
                t.elapsed().as_secs_f64() * 1e3
            };
            let (ours, theirs) = interleave(rounds, first_launch, cl_first);
            report(what, "ms", ours, Some(theirs), "none set");
        }
        None => {
            let mut v: Vec<f64> = (0..rounds).map(|_| first_launch()).collect();
            report(what, "ms", median(&mut v), None, "");
        }
    }

    // (2) Empty kernel: launch + synchronize, one group of one work-item.
    let em = d.module(&empty_spv).expect("empty.spv");
    let ek = kernel(em, "empty", 1);
    // Median of single trips: robust to the machine's other load preempting a thread.
    let trip = |l: ze_command_list_handle_t| {
        let mut t: Vec<f64> = (0..trips).map(|_| launch_and_wait(l, ek, 1) * 1e6).collect();
        median(&mut t)
    };
    trip(imm);
    trip(sync);
    let what = "empty kernel, 1 work-item: append + zeCommandListHostSynchronize (asynchronous immediate list) / clEnqueueNDRangeKernel + clFinish";
    match &cl_programs {
        Some((cl, empty, _, _)) => {
            let k = empty.kernel("empty").expect("empty");
            let cl_trip = || {
                let mut t: Vec<f64> = (0..trips).map(|_| cl.launch_and_wait(&k, 1, 1) * 1e6).collect();
                median(&mut t)
            };
            cl_trip();
            let (ours, theirs) = interleave(rounds, || trip(imm), cl_trip);
            report(what, "us", ours, Some(theirs), "<= 0.1");
        }
        None => report(what, "us", trip(imm), None, ""),
    }
    let mut s: Vec<f64> = (0..rounds).map(|_| trip(sync)).collect();
    println!("  (zekit, synchronous immediate list: {:.3} us)", median(&mut s));

    // (3) FP32 multiply-add chains, GFLOPS.
    let fm = d.module(&flops_spv).expect("flops.spv");
    for (name, per_item) in [("mad_v1", FLOPS_V1), ("mad_v4", FLOPS_V4), ("fma_v1", FLOPS_V1), ("fma_v4", FLOPS_V4)] {
        let out = d.device_mem(MAX_GROUPS as usize * LOCAL as usize * 4);
        let k = kernel(fm, name, LOCAL);
        arg(k, 0, &out);
        arg(k, 1, &1.0001f32);
        let groups = support::calibrate(16, MAX_GROUPS, 0.1, |g| launch_and_wait(imm, k, g));
        let gflops = |g: u32, s: f64| g as f64 * LOCAL as f64 * per_item / s / 1e9;
        let ours_run = || gflops(groups, launch_and_wait(imm, k, groups));
        let what = format!("FP32 multiply-add chains `{name}` ({per_item} flops per work-item), GFLOPS");
        match &cl_programs {
            Some((cl, _, flops, _)) => {
                let buf = cl.buffer(MAX_GROUPS as usize * LOCAL as usize * 4).expect("buffer");
                let ck = flops.kernel(name).expect(name);
                ck.arg(0, &buf.mem);
                ck.arg(1, &1.0001f32);
                let local = LOCAL as usize;
                let cl_groups = support::calibrate(16, MAX_GROUPS, 0.1, |g| cl.launch_and_wait(&ck, g as usize * local, local));
                let theirs_run = || gflops(cl_groups, cl.launch_and_wait(&ck, cl_groups as usize * local, local));
                let (ours, theirs) = interleave(rounds, ours_run, theirs_run);
                report(&what, "GFLOPS", ours, Some(theirs), ">= 2");
                println!("  (global size: zekit {}, PoCL {}; groups of {LOCAL})", groups * LOCAL, cl_groups * LOCAL);
            }
            None => {
                let mut v: Vec<f64> = (0..rounds).map(|_| ours_run()).collect();
                report(&what, "GFLOPS", median(&mut v), None, "");
            }
        }
        // SAFETY: idle kernel and memory made above.
        unsafe {
            ok("zeKernelDestroy", ze::zeKernelDestroy(k));
            ok("zeMemFree", ze::zeMemFree(d.ctx, out));
        }
    }

    // (4) Global memory bandwidth: float4 copy over 256 MiB.
    let cm = d.module(&copy_spv).expect("copy4.spv");
    let ck = kernel(cm, "copy4", LOCAL);
    let (src, dst) = (d.device_mem(BIG), d.device_mem(BIG));
    // SAFETY: both buffers hold BIG bytes; touching them maps their pages before timing.
    unsafe {
        std::ptr::write_bytes(src.cast::<u8>(), 0x3c, BIG);
        std::ptr::write_bytes(dst.cast::<u8>(), 0, BIG);
    }
    arg(ck, 0, &src);
    arg(ck, 1, &dst);
    let items = BIG / 16;
    let groups = (items / LOCAL as usize) as u32;
    let gbs = |s: f64| 2.0 * BIG as f64 / s / 1e9;
    launch_and_wait(imm, ck, groups);
    let ours_run = || gbs(launch_and_wait(imm, ck, groups));
    let what = "global memory bandwidth: float4 copy of 256 MiB, GB/s (read + written)";
    match &cl_programs {
        Some((cl, _, _, copy)) => {
            let (a, b) = (cl.buffer(BIG).expect("buffer"), cl.buffer(BIG).expect("buffer"));
            let k = copy.kernel("copy4").expect("copy4");
            k.arg(0, &a.mem);
            k.arg(1, &b.mem);
            let local = LOCAL as usize;
            // The same contents as ours, written: an unwritten buffer reads the kernel's shared
            // zero page, which stays in cache (PoCL's reads then cost no memory traffic).
            cl.fill(&a, 0x3c, BIG);
            cl.fill(&b, 0, BIG);
            cl.launch_and_wait(&k, items, local);
            let theirs_run = || gbs(cl.launch_and_wait(&k, items, local));
            let (ours, theirs) = interleave(rounds, ours_run, theirs_run);
            let mut head = [0u8; 64];
            cl.read(&b, &mut head);
            assert_eq!(head, [0x3c; 64], "PoCL's copy4 copied");
            report(what, "GB/s", ours, Some(theirs), ">= 1");
        }
        None => {
            let mut v: Vec<f64> = (0..rounds).map(|_| ours_run()).collect();
            report(what, "GB/s", median(&mut v), None, "");
        }
    }
    // SAFETY: `dst` holds BIG bytes, and every launch writing it has finished.
    let first = unsafe { *dst.cast::<f32>() };
    assert_eq!(first.to_bits(), f32::from_ne_bytes([0x3c; 4]).to_bits(), "copy4 copied");

    // (5) Work-group barriers: `tree_reduce` in groups of 256 (8 barriers, each reached by
    // every work-item) over 16 Mi ints.
    let tree_spv = read(kernels_dir().join("tree_reduce.spv"));
    let tm = d.module(&tree_spv).expect("tree_reduce.spv");
    let tk = kernel(tm, "tree_reduce", LOCAL);
    let items = 16usize << 20;
    let groups = (items / LOCAL as usize) as u32;
    let (input, out) = (d.device_mem(items * 4), d.device_mem(groups as usize * 4));
    // Bytes of 1 on both sides: each int is 0x01010101, and a group sums 256 of them.
    let group_sum = 0x0101_0101i32.wrapping_mul(LOCAL as i32);
    // SAFETY: `input` holds `items` ints.
    unsafe { std::ptr::write_bytes(input.cast::<u8>(), 1, items * 4) };
    arg(tk, 0, &input);
    arg(tk, 1, &out);
    // SAFETY: a local argument takes its size and no value.
    ok("zeKernelSetArgumentValue", unsafe {
        ze::zeKernelSetArgumentValue(tk, 2, LOCAL as usize * 4, std::ptr::null())
    });
    let barriers = (LOCAL as f64).log2();
    let per_barrier = |s: f64| s * 1e9 / (items as f64 * barriers);
    launch_and_wait(imm, tk, groups);
    let ours_run = || per_barrier(launch_and_wait(imm, tk, groups));
    let what = "work-group barriers: tree_reduce, groups of 256 (8 barriers), 16 Mi ints, ns per work-item per barrier (time / PoCL's)";
    let cl_tree = cl.as_ref().map(|cl| (cl, cl.build(&read(kernels_dir().join("bench/corpus/tree_reduce.bc")))));
    match cl_tree {
        Some((cl, Ok(p))) => {
            let (a, b) = (cl.buffer(items * 4).expect("buffer"), cl.buffer(groups as usize * 4).expect("buffer"));
            let k = p.kernel("tree_reduce").expect("tree_reduce");
            k.arg(0, &a.mem);
            k.arg(1, &b.mem);
            k.local(2, LOCAL as usize * 4);
            cl.fill(&a, 1, items * 4);
            cl.launch_and_wait(&k, items, LOCAL as usize);
            let theirs_run = || per_barrier(cl.launch_and_wait(&k, items, LOCAL as usize));
            let (ours, theirs) = interleave(rounds, ours_run, theirs_run);
            report(what, "ns", ours, Some(theirs), "none set");
            let mut head = [0u8; 4];
            cl.read(&b, &mut head);
            assert_eq!(i32::from_ne_bytes(head), group_sum, "PoCL's tree_reduce");
        }
        _ => {
            let mut v: Vec<f64> = (0..rounds).map(|_| ours_run()).collect();
            report(what, "ns", median(&mut v), None, "");
        }
    }
    // SAFETY: `out` holds `groups` ints, written by the finished launches.
    let first = unsafe { *out.cast::<i32>() };
    assert_eq!(first, group_sum, "tree_reduce summed");
    #[cfg(target_arch = "x86_64")]
    {
        let mut v: Vec<f64> = (0..rounds).map(|_| fiber::switch_ns(LOCAL as usize, 4096)).collect();
        println!(
            "  (one fiber switch, a ring of {LOCAL} fibers on their own stacks: {:.3} ns, which fibers would add per work-item per barrier)",
            median(&mut v)
        );
    }

    drop(cl_programs);
    // SAFETY: idle handles made above.
    unsafe {
        ze::zeKernelDestroy(ck);
        ze::zeKernelDestroy(tk);
        ze::zeModuleDestroy(tm);
        ze::zeMemFree(d.ctx, input);
        ze::zeMemFree(d.ctx, out);
        ze::zeKernelDestroy(ek);
        ze::zeModuleDestroy(cm);
        ze::zeModuleDestroy(fm);
        ze::zeModuleDestroy(em);
        ze::zeCommandListDestroy(imm);
        ze::zeCommandListDestroy(sync);
        ze::zeMemFree(d.ctx, src);
        ze::zeMemFree(d.ctx, dst);
        ze::zeContextDestroy(d.ctx);
    }
}
