//! One workload of `workloads.rs` on every side: its kernel, arguments and buffers, the same
//! inputs everywhere, launches timed in alternating rounds, and the outputs compared.
#![allow(dead_code)]

use std::ffi::c_void;
use std::time::Instant;

use zekit_icd::entry as ze;
use zekit_sys::*;

use crate::opencl::{self, Cl, Vendor};
use crate::support::{self, create_every_kernel, destroy_module, kernels_dir, launch_and_wait, median, ok, read, Device};

/// A kernel argument.
#[derive(Clone, Copy)]
pub enum Arg {
    /// The workload's buffer of this index.
    Buf(usize),
    U32(u32),
    I32(i32),
    F32(f32),
    /// A local-memory argument of this many bytes.
    Local(usize),
}

/// What a buffer holds before the first launch (the same bytes on every side).
#[derive(Clone, Copy)]
pub enum Init {
    Zero,
    /// Floats drawn evenly from [0, 1).
    Unit,
    /// Random 32-bit words.
    Bits,
}

/// How outputs of two sides must agree.
#[derive(Clone, Copy)]
pub enum Check {
    Exact,
    /// As floats, within this relative difference.
    Close(f32),
}

/// What one launch does, for its rate.
#[derive(Clone, Copy)]
pub enum Work {
    /// Nothing but the launch: its time is printed.
    Launch,
    Flops(f64),
    /// Bytes of memory traffic.
    Bytes(f64),
}

/// Which of the machine's limits a workload is printed against.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    None,
    /// The FMA loop at the widest vectors the CPU has.
    Fma,
    /// `memcpy`.
    Copy,
}

/// One row of the table.
pub struct Workload {
    pub name: &'static str,
    pub kernel: &'static str,
    /// `spirv/kernels/bench/<module>.spv` (`.bc` for PoCL).
    pub module: &'static str,
    /// Work-items per group (1D).
    pub local: u32,
    /// Work-items in all.
    pub items: usize,
    pub args: Vec<Arg>,
    /// Bytes and contents of each buffer.
    pub bufs: Vec<(usize, Init)>,
    /// The buffer compared between the sides, and how.
    pub out: Option<(usize, Check)>,
    pub work: Work,
    /// Launches per round, each waited for; the round's figure is their median.
    pub reps: usize,
    pub limit: Limit,
}

impl Work {
    /// The rate of one launch taking `t` seconds (GFLOPS, GB/s; microseconds for a launch).
    pub fn rate(self, t: f64) -> f64 {
        match self {
            Work::Launch => t * 1e6,
            Work::Flops(f) | Work::Bytes(f) => f / t / 1e9,
        }
    }

    pub fn unit(self) -> &'static str {
        match self {
            Work::Launch => "µs",
            Work::Flops(_) => "GFLOPS",
            Work::Bytes(_) => "GB/s",
        }
    }

    pub fn show(self, t: f64) -> String {
        let r = self.rate(t);
        if r >= 100.0 {
            format!("{r:.0}")
        } else if r >= 10.0 {
            format!("{r:.1}")
        } else {
            format!("{r:.2}")
        }
    }
}

/// A runtime that runs the workloads, with its modules built.
pub enum Side<'a> {
    Zekit { d: &'a Device, list: ze_command_list_handle_t, modules: Vec<(&'static str, ze_module_handle_t)> },
    OpenCl { cl: &'a Cl, programs: Vec<(&'static str, opencl::Program<'a>)> },
}

/// A workload made ready on one side.
enum Ready<'a> {
    Zekit { k: ze_kernel_handle_t, bufs: Vec<*mut c_void>, groups: u32 },
    OpenCl { k: opencl::Kernel<'a>, bufs: Vec<opencl::Buffer<'a>> },
}

impl<'a> Side<'a> {
    /// zekit, with `zeModuleCreate` of each module's SPIR-V.
    pub fn zekit(d: &'a Device, spirv: &[(&'static str, Vec<u8>)]) -> Side<'a> {
        let modules = spirv
            .iter()
            .map(|(name, spv)| (*name, d.module(spv).unwrap_or_else(|r| panic!("zeModuleCreate {name}: {r:?}"))))
            .collect();
        Side::Zekit { d, list: d.immediate(ze_command_queue_mode_t::ASYNCHRONOUS), modules }
    }

    /// An OpenCL platform, with each module built from `code` (SPIR-V for Intel, bitcode for
    /// PoCL); a module it does not build is named, and its workloads are left out on this side.
    pub fn opencl(cl: &'a Cl, code: &[(&'static str, Vec<u8>)]) -> Side<'a> {
        let programs = code
            .iter()
            .filter_map(|(name, c)| {
                let p = if cl.vendor == Vendor::Intel { cl.build_il(c) } else { cl.build(c) };
                match p {
                    Ok(p) => Some((*name, p)),
                    Err(e) => {
                        let e = e.lines().find(|l| l.contains("Cannot")).or(e.lines().next()).unwrap_or_default();
                        println!("({} does not build `{name}`: {})", cl.vendor.name(), e.trim());
                        None
                    }
                }
            })
            .collect();
        Side::OpenCl { cl, programs }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Side::Zekit { .. } => "zekit",
            Side::OpenCl { cl, .. } => cl.vendor.name(),
        }
    }

    fn ready(&self, w: &Workload, inputs: &[Vec<u8>]) -> Result<Ready<'_>, String> {
        match self {
            Side::Zekit { d, modules, .. } => {
                let m = modules.iter().find(|(n, _)| *n == w.module).ok_or("no such module")?.1;
                let k = support::kernel(m, w.kernel, w.local);
                let bufs: Vec<*mut c_void> = inputs
                    .iter()
                    .map(|bytes| {
                        let p = d.device_mem(bytes.len());
                        // SAFETY: `p` holds `bytes.len()` bytes of host-accessible memory.
                        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), p.cast::<u8>(), bytes.len()) };
                        p
                    })
                    .collect();
                for (i, a) in w.args.iter().enumerate() {
                    let i = i as u32;
                    match *a {
                        Arg::Buf(b) => support::arg(k, i, &bufs[b]),
                        Arg::U32(v) => support::arg(k, i, &v),
                        Arg::I32(v) => support::arg(k, i, &v),
                        Arg::F32(v) => support::arg(k, i, &v),
                        // SAFETY: a local argument takes its size and no value.
                        Arg::Local(n) => ok("zeKernelSetArgumentValue", unsafe {
                            ze::zeKernelSetArgumentValue(k, i, n, std::ptr::null())
                        }),
                    }
                }
                Ok(Ready::Zekit { k, bufs, groups: (w.items / w.local as usize) as u32 })
            }
            Side::OpenCl { cl, programs } => {
                let p = &programs.iter().find(|(n, _)| *n == w.module).ok_or("no such program")?.1;
                let k = p.kernel(w.kernel)?;
                let bufs = inputs
                    .iter()
                    .map(|bytes| {
                        let b = cl.buffer(bytes.len())?;
                        cl.write(&b, bytes);
                        Ok(b)
                    })
                    .collect::<Result<Vec<_>, String>>()?;
                for (i, a) in w.args.iter().enumerate() {
                    let i = i as u32;
                    match *a {
                        Arg::Buf(b) => k.arg(i, &bufs[b].mem),
                        Arg::U32(v) => k.arg(i, &v),
                        Arg::I32(v) => k.arg(i, &v),
                        Arg::F32(v) => k.arg(i, &v),
                        Arg::Local(n) => k.local(i, n),
                    }
                }
                Ok(Ready::OpenCl { k, bufs })
            }
        }
    }

    /// One launch of `r`, waited for; seconds.
    fn run(&self, w: &Workload, r: &Ready<'_>) -> f64 {
        match (self, r) {
            (Side::Zekit { list, .. }, Ready::Zekit { k, groups, .. }) => launch_and_wait(*list, *k, *groups),
            (Side::OpenCl { cl, .. }, Ready::OpenCl { k, .. }) => cl.launch_and_wait(k, w.items, w.local as usize),
            _ => unreachable!("a workload made ready on another side"),
        }
    }

    /// The bytes of buffer `b` of `r` after the launches.
    fn output(&self, r: &Ready<'_>, b: usize, len: usize) -> Vec<u8> {
        let mut out = vec![0u8; len];
        match (self, r) {
            // SAFETY: the buffer holds `len` bytes, and every launch writing it has finished.
            (Side::Zekit { .. }, Ready::Zekit { bufs, .. }) => unsafe {
                std::ptr::copy_nonoverlapping(bufs[b].cast::<u8>(), out.as_mut_ptr(), len)
            },
            (Side::OpenCl { cl, .. }, Ready::OpenCl { bufs, .. }) => cl.read(&bufs[b], &mut out),
            _ => unreachable!("a workload made ready on another side"),
        }
        out
    }

    fn release(&self, r: Ready<'_>) {
        if let (Side::Zekit { d, .. }, Ready::Zekit { k, bufs, .. }) = (self, r) {
            // SAFETY: an idle kernel made by `ready`.
            ok("zeKernelDestroy", unsafe { ze::zeKernelDestroy(k) });
            bufs.into_iter().for_each(|p| d.free(p));
        }
    }
}

impl Drop for Side<'_> {
    fn drop(&mut self) {
        if let Side::Zekit { list, modules, .. } = self {
            // SAFETY: an idle list and modules without kernels, made by `Side::zekit`.
            ok("zeCommandListDestroy", unsafe { ze::zeCommandListDestroy(*list) });
            modules.drain(..).for_each(|(_, m)| destroy_module(m));
        }
    }
}

/// The inputs of `w`'s buffers (a fixed seed: the same every run).
fn inputs(w: &Workload) -> Vec<Vec<u8>> {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 32) as u32
    };
    w.bufs
        .iter()
        .map(|&(len, init)| match init {
            Init::Zero => vec![0; len],
            Init::Unit => (0..len / 4).flat_map(|_| ((next() >> 8) as f32 / (1 << 24) as f32).to_ne_bytes()).collect(),
            Init::Bits => (0..len / 4).flat_map(|_| next().to_ne_bytes()).collect(),
        })
        .collect()
}

/// Where `theirs` differs from `ours` beyond `check`: the first such element.
fn differs(ours: &[u8], theirs: &[u8], check: Check) -> Option<String> {
    match check {
        Check::Exact => ours
            .chunks(4)
            .zip(theirs.chunks(4))
            .position(|(a, b)| a != b)
            .map(|i| format!("word {i}: {:02x?} against {:02x?}", &ours[i * 4..i * 4 + 4], &theirs[i * 4..i * 4 + 4])),
        Check::Close(tol) => {
            let f = |c: &[u8]| f32::from_ne_bytes([c[0], c[1], c[2], c[3]]);
            ours.chunks(4).zip(theirs.chunks(4)).enumerate().find_map(|(i, (a, b))| {
                let (a, b) = (f(a), f(b));
                let close = (a - b).abs() <= tol * a.abs().max(b.abs()).max(1.0);
                (!close).then(|| format!("element {i}: {a} against {b}"))
            })
        }
    }
}

/// Where kernels tier up (`ZEKIT_TIER=auto` with the LLVM tier built in): runs `launch` for
/// twice the threshold, so that the kernel has run long enough, waits for the background
/// compilations, and runs it as long again, so that the two codes are compared and the rounds
/// measure the code a kernel in use runs. Returns how many launches it made.
fn tier_up(mut launch: impl FnMut()) -> usize {
    use zekit_spirv::jit::{tiers_up, tierup};
    if !tiers_up() {
        return 0;
    }
    let long = std::time::Duration::from_nanos(tierup::threshold().saturating_mul(2));
    let t = std::time::Instant::now();
    let mut launches = 0;
    while t.elapsed() < long {
        launch();
        launches += 1;
    }
    let t = std::time::Instant::now();
    while tierup::pending() > 0 && t.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    // And as long again on LLVM's code, which is then kept or given up (the faster stays).
    let t = std::time::Instant::now();
    let mut after = 0;
    while t.elapsed() < long || after < 2 {
        launch();
        after += 1;
    }
    launches + after
}

/// Median seconds per launch of `w` on each side (`None` where it could not run), from
/// `rounds` rounds in turn, each side first in turn; prints where an output differs from
/// zekit's.
pub fn measure(w: &Workload, sides: &mut [Side<'_>], rounds: usize) -> Vec<Option<f64>> {
    let inputs = inputs(w);
    let ready: Vec<Option<Ready<'_>>> = sides
        .iter()
        .map(|s| match s.ready(w, &inputs) {
            Ok(r) => Some(r),
            Err(e) => {
                println!("({} cannot run `{}`: {e})", s.name(), w.kernel);
                None
            }
        })
        .collect();
    let n = sides.len();
    let mut times = vec![vec![]; n];
    for (s, r) in sides.iter().zip(&ready) {
        if let Some(r) = r {
            s.run(w, r);
        }
    }
    if let Some(r) = &ready[0] {
        let extra = tier_up(|| {
            sides[0].run(w, r);
        });
        // The others launch as often, so that outputs that add up (the histograms) compare.
        for (s, r) in sides.iter().zip(&ready).skip(1) {
            if let Some(r) = r {
                (0..extra).for_each(|_| {
                    s.run(w, r);
                });
            }
        }
    }
    for round in 0..rounds {
        for i in 0..n {
            let j = (i + round) % n;
            if let Some(r) = &ready[j] {
                let mut one: Vec<f64> = (0..w.reps).map(|_| sides[j].run(w, r)).collect();
                times[j].push(median(&mut one));
            }
        }
    }
    let mut result: Vec<Option<f64>> = times.iter_mut().map(|t| (!t.is_empty()).then(|| median(t))).collect();
    if let (Some((b, check)), Some(ours)) = (w.out, &ready[0]) {
        let len = w.bufs[b].0;
        let reference = sides[0].output(ours, b, len);
        for i in 1..n {
            if let Some(r) = &ready[i] {
                if let Some(at) = differs(&reference, &sides[i].output(r, b, len), check) {
                    println!("({}'s output of `{}` differs from zekit's at {at}: its figure is left out)", sides[i].name(), w.kernel);
                    result[i] = None;
                }
            }
        }
    }
    for (s, r) in sides.iter().zip(ready) {
        if let Some(r) = r {
            s.release(r);
        }
    }
    result
}

/// The cold build of every test module (`spirv/kernels/*.spv`), every kernel ready:
/// `zeModuleCreate` + `zeKernelCreate` of each kernel against `clCreateProgramWithIL` +
/// `clBuildProgram` on Intel's runtime. Modules Intel does not build are left out on both sides,
/// and named. The table's row.
pub fn module_build(d: &Device, sides: &[Side<'_>], rounds: usize) -> String {
    let dir = kernels_dir();
    let mut corpus: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .expect("spirv/kernels")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "spv"))
        .map(|p| (p.file_stem().unwrap_or_default().to_string_lossy().into_owned(), read(p)))
        .collect();
    corpus.sort();
    let intel = sides.iter().find_map(|s| match s {
        Side::OpenCl { cl, .. } if cl.vendor == Vendor::Intel => Some(*cl),
        _ => None,
    });
    if let Some(cl) = intel {
        corpus.retain(|(name, spv)| match cl.build_il(spv) {
            Ok(_) => true,
            Err(e) => {
                println!("(left out of the module build: {name}, which Intel's runtime does not build: {})", e.lines().next().unwrap_or_default());
                false
            }
        });
    }
    let ours = || {
        let t = Instant::now();
        let modules: Vec<_> =
            corpus.iter().map(|(n, spv)| d.module(spv).unwrap_or_else(|r| panic!("zeModuleCreate {n}: {r:?}"))).collect();
        modules.iter().for_each(|m| create_every_kernel(*m));
        let took = t.elapsed().as_secs_f64();
        modules.into_iter().for_each(destroy_module);
        took
    };
    let theirs = |cl: &Cl| {
        let t = Instant::now();
        for (n, spv) in &corpus {
            drop(cl.build_il(spv).unwrap_or_else(|e| panic!("Intel {n}: {e}")));
        }
        t.elapsed().as_secs_f64()
    };
    let (mut a, mut b) = (vec![], vec![]);
    for r in 0..rounds {
        if r % 2 == 1 {
            b.extend(intel.map(theirs));
        }
        a.push(ours());
        if r % 2 == 0 {
            b.extend(intel.map(theirs));
        }
    }
    let ours = median(&mut a) * 1e3;
    let (intel, ratio) = if b.is_empty() {
        ("—".into(), "—".into())
    } else {
        let t = median(&mut b) * 1e3;
        (format!("{t:.1}"), format!("{:.1}×", t / ours))
    };
    let others = sides.len().saturating_sub(2);
    format!(
        "| cold build of {} test modules, every kernel ready (ms) | {ours:.1} | {intel} | {}{ratio} | |",
        corpus.len(),
        "— | ".repeat(others)
    )
}

