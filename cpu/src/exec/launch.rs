//! Kernel launches: the work-groups of a launch spread over the worker pool.
//!
//! A launch is split into at most `4 × (threads + 1)` pieces of consecutive groups; the pool's
//! threads and the queue's own thread take pieces. Each piece has its own local memory, private
//! memory and copy of the argument block (local arguments point into its local memory), and
//! calls the kernel's work-group function once per group, the work-items running inside it.
//!
//! A launch whose work-items × 16 bytes reach `stream_threshold()` (the largest cache) asks its
//! kernel for non-temporal stores ([`GroupCtx::stream`]): a record each work-item writes at an
//! address made from its global id then bypasses the caches, which it would only pass through,
//! and saves reading the destination's lines first. Each piece ends with a store fence.
//!
//! A kernel that faults ends its piece ([`super::fault`]); the launch returns the fault once
//! every piece is done.

use std::sync::Arc;

use zekit_spirv::{ArgKind, GroupCtx, Program};

use super::fault::{guarded, Fault};
use super::pool::WorkerPool;

/// How many groups a launch has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Groups {
    /// Given when appended.
    Direct([u32; 3]),
    /// A `ze_group_count_t` at this address, read when the launch runs.
    Indirect(usize),
}

/// A launch: a snapshot of the kernel's state when it was appended.
#[derive(Debug, Clone)]
pub struct Launch {
    /// The module's code (kept alive by the launch).
    pub program: Arc<Program>,
    /// Index of the kernel in the program.
    pub kernel: usize,
    /// The argument block (8-byte words).
    pub args: Box<[u64]>,
    /// Bytes of each local argument, by argument index (0 for the others).
    pub local_sizes: Box<[usize]>,
    /// Work-items per group.
    pub group_size: [u32; 3],
    /// Group count.
    pub groups: Groups,
    /// Global offset.
    pub offset: [u32; 3],
    /// The storage of each image argument (by argument index), alive until the launch is
    /// dropped.
    pub images: Box<[Option<Arc<crate::model::image_objects::Storage>>]>,
}

const ALIGN: usize = 16;

fn align(x: usize) -> usize {
    x.div_ceil(ALIGN) * ALIGN
}

impl Launch {
    /// Runs every work-group.
    ///
    /// # Safety
    /// The buffers the arguments name must be valid for what the kernel does with them (the
    /// application's promise when it appended the launch), and for an indirect launch the
    /// group count must be readable.
    pub unsafe fn run(&self, pool: &WorkerPool) -> Result<(), Fault> {
        let [gx, gy, gz] = match self.groups {
            Groups::Direct(g) => g,
            Groups::Indirect(addr) => {
                let mut g = zekit_sys::ze_group_count_t::default();
                // SAFETY: the application's `ze_group_count_t`, readable now (see above); a
                // fault ends the launch.
                guarded(|| g = unsafe { std::ptr::read_unaligned(addr as *const zekit_sys::ze_group_count_t) })?;
                [g.groupCountX, g.groupCountY, g.groupCountZ]
            }
        };
        let (gx, gy, gz) = (u64::from(gx), u64::from(gy), u64::from(gz));
        // Saturating: three counts of up to 2^32 - 1 may pass 2^64 (such a launch never ends,
        // as asked, but must not overflow).
        let total = gx.saturating_mul(gy).saturating_mul(gz);
        let kernel = &self.program.kernels[self.kernel];
        let info = &kernel.info;
        // Nothing to run: no group, or nothing a work-item does can be seen.
        if total == 0 || !info.effects {
            return Ok(());
        }
        let [lx, ly, lz] = self.group_size.map(u64::from);
        let items = (lx * ly * lz) as usize;
        // Local memory: static variables, then each local argument, 16-byte aligned.
        let mut local_total = align(info.local_static_size as usize);
        let mut local_args = Vec::new();
        for (i, a) in info.args.iter().enumerate() {
            if a.kind == ArgKind::Local {
                local_args.push((a.offset as usize / 8, local_total));
                local_total += align(self.local_sizes[i].max(1));
            }
        }
        let private = info.private_size as usize * if info.barriers { items } else { 1 };
        let work_dim = if gz > 1 || lz > 1 {
            3
        } else if gy > 1 || ly > 1 {
            2
        } else {
            1
        };
        let stream = total.saturating_mul(items as u64).saturating_mul(16) >= stream_threshold();
        // One code for the whole launch: LLVM's where the kernel has tiered up.
        let entry = kernel.launch_entry();
        let started = std::time::Instant::now();
        let pieces = total.min(4 * (pool.threads() as u64 + 1)) as usize;
        let fault = std::sync::Mutex::new(None);
        let body = |p: usize| {
            let share = |p: usize| (u128::from(total) * p as u128 / pieces as u128) as u64;
            let (start, end) = (share(p), share(p + 1));
            let mut args = self.args.to_vec();
            let mut local = vec![0u128; local_total.div_ceil(ALIGN)];
            let mut private = vec![0u128; private.div_ceil(ALIGN).max(1)];
            let local_base = local.as_mut_ptr() as usize;
            for (word, off) in &local_args {
                args[*word] = (local_base + off) as u64;
            }
            let mut ctx = GroupCtx {
                group_id: [0; 3],
                local_size: [lx, ly, lz],
                num_groups: [gx, gy, gz],
                global_offset: self.offset.map(u64::from),
                work_dim,
                args: args.as_ptr() as usize,
                local_mem: local_base,
                private_mem: private.as_mut_ptr() as usize,
                stream: u64::from(stream),
            };
            // Group ids counted up (x fastest) instead of divided out of `g` for each group.
            let mut id = [start % gx, (start / gx) % gy, start / (gx * gy)];
            // The recovery point of this piece's groups: a fault jumps over this loop and the
            // kernel's code only, which own nothing (the vectors above are dropped as usual).
            let groups = guarded(|| {
                for _ in start..end {
                    ctx.group_id = id;
                    // SAFETY: the argument block has the kernel's layout (model::kernel built
                    // it), local and private memory have the sizes the kernel reports, the
                    // program is alive (`self.program`), `entry` is its `launch_entry`; the
                    // buffers are the application's promise (above).
                    unsafe { kernel.run_group_with(entry, &mut ctx) };
                    id[0] += 1;
                    if id[0] == gx {
                        id[0] = 0;
                        id[1] += 1;
                        if id[1] == gy {
                            id[1] = 0;
                            id[2] += 1;
                        }
                    }
                }
            });
            if stream {
                zekit_spirv::store_fence();
            }
            if let Err(f) = groups {
                *fault.lock().unwrap_or_else(|e| e.into_inner()) = Some(f);
            }
        };
        pool.run(pieces, &body)?;
        let nanos = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
        let work_items = total.saturating_mul(items as u64);
        zekit_spirv::jit::tierup::ran(&self.program, self.kernel, entry, nanos, work_items);
        fault.into_inner().unwrap_or_else(|e| e.into_inner()).map_or(Ok(()), Err)
    }
}

/// Bytes a launch writes (16 per work-item) from which its kernel may store non-temporally:
/// the largest data or unified cache of the host (32 MiB when it says none).
/// `ZEKIT_STREAM_STORES=0` never, `=1` always.
fn stream_threshold() -> u64 {
    static AT: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *AT.get_or_init(|| match std::env::var("ZEKIT_STREAM_STORES").as_deref() {
        Ok("0") => u64::MAX,
        Ok("1") => 0,
        _ => crate::host::host()
            .caches
            .iter()
            .filter(|c| c.kind != crate::host::CacheKind::Instruction)
            .map(|c| c.size)
            .max()
            .unwrap_or(32 << 20),
    })
}

/// `zeCommandListAppendLaunchMultipleKernelsIndirect`: launches of several kernels, each a
/// snapshot taken at the append with its group count read when it runs
/// ([`Groups::Indirect`]), of which the first `*count` run, in order.
#[derive(Debug, Clone)]
pub struct LaunchMany {
    /// Address of the `uint32_t` count, read when the command runs.
    pub count: usize,
    /// One launch per kernel given.
    pub launches: Vec<Launch>,
}

impl LaunchMany {
    /// Runs the first `*count` launches (at most as many as were given), one after the other.
    ///
    /// # Safety
    /// As [`Launch::run`], and the count must be readable.
    pub unsafe fn run(&self, pool: &WorkerPool) -> Result<(), Fault> {
        let mut n = 0u32;
        // SAFETY: the application's count, readable now (see above); a fault ends the command.
        guarded(|| n = unsafe { std::ptr::read_unaligned(self.count as *const u32) })?;
        for l in self.launches.iter().take(n as usize) {
            // SAFETY: the caller's promise, for each launch.
            unsafe { l.run(pool) }?;
        }
        Ok(())
    }
}
