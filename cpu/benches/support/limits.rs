//! The machine's own limits, measured in the same run as the workloads they frame: FP32 FMA
//! loops in C (`limits.c`) at 512, 256 and 128 bits, libc's `memcpy`, and a copy with
//! non-temporal stores, each on every usable core at once. The C file is compiled with the
//! system's C compiler (`cc`, or `CC`) when the bench starts, into Cargo's scratch folder for
//! benches, and loaded with `libloading`.
#![allow(dead_code)]

use std::ffi::c_void;
use std::path::PathBuf;
use std::time::Instant;

use libloading::Library;

type Fma = unsafe extern "C" fn(i64, f32, f32, f32) -> f32;
type CopyNt = unsafe extern "C" fn(*mut f32, *const f32, usize);

/// FMAs per iteration of each loop of `limits.c`: 12 accumulators.
const ACCUMULATORS: f64 = 12.0;

/// The compiled loops.
pub struct Limits {
    _lib: Library,
    fma: [(u32, Option<Fma>); 3],
    copy_nt: CopyNt,
    threads: usize,
}

fn compile() -> Result<PathBuf, String> {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let src = dir.join("zekit-limits.c");
    let lib = dir.join(format!("libzekit-limits-{}.so", std::process::id()));
    std::fs::write(&src, include_str!("limits.c")).map_err(|e| format!("{}: {e}", src.display()))?;
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let out = std::process::Command::new(&cc)
        .args(["-O2", "-shared", "-fPIC", "-o"])
        .arg(&lib)
        .arg(&src)
        .output()
        .map_err(|e| format!("{cc}: {e}"))?;
    if !out.status.success() {
        return Err(format!("{cc} limits.c: {}", String::from_utf8_lossy(&out.stderr)));
    }
    Ok(lib)
}

impl Limits {
    /// Compiles and loads `limits.c`; its loops will run on `threads` threads at once.
    pub fn open(threads: usize) -> Result<Limits, String> {
        let path = compile()?;
        // SAFETY: a library of plain functions that this bench just compiled; no initializers.
        let lib = unsafe { Library::new(&path) }.map_err(|e| format!("{}: {e}", path.display()))?;
        std::fs::remove_file(&path).ok();
        let have = [
            std::arch::is_x86_feature_detected!("avx512f"),
            std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma"),
            std::arch::is_x86_feature_detected!("fma"),
        ];
        // SAFETY: each symbol is looked up with the signature `limits.c` defines; a loop is
        // kept only where the CPU has the instructions its target attribute allows.
        unsafe {
            let fma = |name: &[u8], ok: bool| -> Result<Option<Fma>, String> {
                let f = *lib.get::<Fma>(name).map_err(|e| e.to_string())?;
                Ok(ok.then_some(f))
            };
            let fma = [
                (512, fma(b"zekit_fma512\0", have[0])?),
                (256, fma(b"zekit_fma256\0", have[1])?),
                (128, fma(b"zekit_fma128\0", have[2])?),
            ];
            let copy_nt = *lib.get::<CopyNt>(b"zekit_copy_nt\0").map_err(|e| e.to_string())?;
            Ok(Limits { _lib: lib, fma, copy_nt, threads: threads.max(1) })
        }
    }

    /// Runs `work(thread)` on every thread at once; the seconds from start to the last end.
    fn on_every_core(&self, work: impl Fn(usize) + Sync) -> f64 {
        let barrier = std::sync::Barrier::new(self.threads + 1);
        std::thread::scope(|s| {
            for t in 0..self.threads {
                let (barrier, work) = (&barrier, &work);
                s.spawn(move || {
                    barrier.wait();
                    work(t);
                    barrier.wait();
                });
            }
            barrier.wait();
            let t = Instant::now();
            barrier.wait();
            t.elapsed().as_secs_f64()
        })
    }

    /// FP32 GFLOPS of the FMA loop at `bits` on every core (about `seconds` long), or `None`
    /// where the CPU lacks it.
    pub fn fma_gflops(&self, bits: u32, seconds: f64) -> Option<f64> {
        let f = self.fma.iter().find(|(b, _)| *b == bits)?.1?;
        let flops = |iters: i64| iters as f64 * ACCUMULATORS * 2.0 * (bits / 32) as f64 * self.threads as f64;
        // SAFETY: `f` runs only on a CPU with its instructions (see `open`); it takes values.
        let run = |iters: i64| self.on_every_core(|t| unsafe { std::hint::black_box(f(iters, t as f32, 0.999, 0.01)); });
        let probe = 1 << 20;
        run(probe);
        let iters = ((probe as f64 * seconds / run(probe)) as i64).max(probe);
        Some(flops(iters) / run(iters) / 1e9)
    }

    /// GB/s (bytes read + written) of copying `size` bytes, split between the cores: libc's
    /// `memcpy` when `!nt`, else the non-temporal copy.
    pub fn copy_gbs(&self, dst: *mut c_void, src: *const c_void, size: usize, nt: bool) -> f64 {
        let part = size / self.threads / 64 * 64;
        let (dst, src) = (dst as usize, src as usize);
        let copy_nt = self.copy_nt;
        let run = || {
            // SAFETY: each thread copies its own `part` bytes of two `size`-byte buffers that
            // do not overlap (the caller's); 16-byte aligned as `copy_nt` needs (page-aligned
            // buffers).
            self.on_every_core(|t| unsafe {
                let (d, s) = ((dst + t * part) as *mut c_void, (src + t * part) as *const c_void);
                if nt {
                    copy_nt(d.cast(), s.cast(), part);
                } else {
                    std::ptr::copy_nonoverlapping(s.cast::<u8>(), d.cast::<u8>(), part);
                }
            })
        };
        run();
        2.0 * (part * self.threads) as f64 / run() / 1e9
    }
}
