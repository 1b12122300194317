//! The mock's objects and its "device": memory allocations backed by host memory, events,
//! fences, and the engine that runs submitted command lists.
//!
//! Objects behind handles own what they hold: the generated layer releases a handle when its
//! `[release]` function (a destroy) succeeds, and the object drops when the last call using it
//! ends. Dropping a context frees its allocations, a queue or an immediate command list drops
//! its pending work, an event stops counting in its pool.
//!
//! Execution is synchronous and in order: a batch (one executed command list, or one command
//! appended to an immediate list) runs when it is submitted, command by command, until a
//! command waits on an event that is not signaled; the rest of the batch, and every later
//! batch of that queue, stays pending until a host signal (or a command of another queue)
//! signals the event. Nothing runs on a thread of its own, so nothing races the application,
//! and host waits only ever wait for another application thread.

use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, RwLock};
use std::time::{Duration, Instant};

use zekit_icd::{kinds, Handle, ZeError, ZeResult};
use zekit_sys::*;

use zekit_icd_rt::fail;

use crate::kernels::KernelLaunch;

/// Locks, ignoring poisoning.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Nanoseconds on the mock's clock (host and device timestamps share it).
pub(crate) fn now_ns() -> u64 {
    static BASE: OnceLock<Instant> = OnceLock::new();
    // Start at 1 s so that a timestamp is never 0.
    1_000_000_000 + BASE.get_or_init(Instant::now).elapsed().as_nanos() as u64
}

/// New ids for queues, allocations, objects.
pub(crate) fn next_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

// ----- objects behind handles -------------------------------------------------------------

pub(crate) struct DriverObj;
pub(crate) struct DeviceObj;

pub(crate) struct ContextObj {
    pub id: u64,
}

impl Drop for ContextObj {
    fn drop(&mut self) {
        // The context's allocations go with it.
        free_context(self.id);
    }
}

pub(crate) struct QueueObj {
    pub id: u64,
    pub ordinal: u32,
    pub index: u32,
    pub mode: ze_command_queue_mode_t,
}

impl Drop for QueueObj {
    fn drop(&mut self) {
        engine().discard(self.id);
    }
}

/// An immediate command list's implicit queue.
pub(crate) struct ImmediateQueue {
    pub id: u64,
    pub index: u32,
    pub mode: ze_command_queue_mode_t,
}

pub(crate) struct ListObj {
    pub context: Handle<kinds::Context>,
    pub device: Handle<kinds::Device>,
    pub ordinal: u32,
    pub immediate: Option<ImmediateQueue>,
    pub state: Mutex<ListState>,
}

impl Drop for ListObj {
    fn drop(&mut self) {
        if let Some(imm) = &self.immediate {
            engine().discard(imm.id);
        }
    }
}

#[derive(Default)]
pub(crate) struct ListState {
    pub cmds: Vec<Cmd>,
    pub closed: bool,
    /// The commands as executed, from `zeCommandListClose` until the next reset.
    pub frozen: Option<Arc<[Cmd]>>,
}

pub(crate) struct PoolShared {
    pub flags: ze_event_pool_flags_t,
    pub count: u32,
    /// Events of the pool not yet destroyed.
    pub live: AtomicUsize,
}

pub(crate) struct PoolObj {
    pub context: Handle<kinds::Context>,
    pub shared: Arc<PoolShared>,
}

pub(crate) struct EventObj {
    pub pool: Handle<kinds::EventPool>,
    pub pool_shared: Arc<PoolShared>,
    pub state: Arc<EventState>,
    pub signal_scope: ze_event_scope_flags_t,
    pub wait_scope: ze_event_scope_flags_t,
}

impl Drop for EventObj {
    fn drop(&mut self) {
        self.pool_shared.live.fetch_sub(1, Ordering::AcqRel);
    }
}

pub(crate) struct FenceObj {
    pub queue_id: u64,
    pub state: Arc<FenceState>,
}

/// A module: what `zekit-spirv` read from its SPIR-V (no code is generated).
pub(crate) struct ModuleObj {
    pub device: Handle<kinds::Device>,
    pub kernels: Vec<Arc<zekit_spirv::KernelInfo>>,
    /// Kernel names, NUL-terminated, in entry point order (`zeModuleGetKernelNames` hands out
    /// pointers into them).
    pub names: Vec<std::ffi::CString>,
    /// The program-scope variables' bytes (8-byte words, so any scalar is aligned; atomics,
    /// because the application writes them through `zeModuleGetGlobalPointer`'s pointer).
    pub data: Box<[AtomicU64]>,
    /// Exported variables: name, offset in `data`, size.
    pub globals: Vec<(String, usize, usize)>,
}

pub(crate) struct BuildLogObj {
    pub text: std::ffi::CString,
}

/// A kernel: its module's description of it and what the application set.
pub(crate) struct KernelObj {
    pub core: Arc<KernelCore>,
}

pub(crate) struct KernelCore {
    pub name: std::ffi::CString,
    pub info: Arc<zekit_spirv::KernelInfo>,
    pub state: Mutex<KernelState>,
}

pub(crate) struct KernelState {
    pub group_size: [u32; 3],
    pub offset: [u32; 3],
    /// By index; `None` until set.
    pub args: Vec<Option<crate::kernels::KernelArg>>,
    pub indirect: ze_kernel_indirect_access_flags_t,
    pub cache: ze_cache_config_flags_t,
}

// ----- events, fences, commands ---------------------------------------------------------------

/// An event's state; changed only with the engine locked (see [`Engine`]).
#[derive(Default)]
pub(crate) struct EventState {
    signaled: AtomicBool,
    /// When the event was last signaled (mock clock), 0 if never.
    timestamp: AtomicU64,
}

impl EventState {
    pub fn is_signaled(&self) -> bool {
        self.signaled.load(Ordering::Acquire)
    }
    pub fn timestamp(&self) -> u64 {
        self.timestamp.load(Ordering::Relaxed)
    }
    fn set(&self, on: bool) {
        if on {
            self.timestamp.store(now_ns(), Ordering::Relaxed);
        }
        self.signaled.store(on, Ordering::Release);
    }
}

/// A fence's state; changed only with the engine locked.
#[derive(Default)]
pub(crate) struct FenceState {
    signaled: AtomicBool,
}

impl FenceState {
    pub fn is_signaled(&self) -> bool {
        self.signaled.load(Ordering::Acquire)
    }
}

/// What one appended command does.
pub(crate) enum Op {
    /// Barriers and waits: only the wait list and the signal event matter.
    Nop,
    Copy {
        dst: usize,
        src: usize,
        size: usize,
    },
    CopyRegion(Box<Region>),
    Fill {
        dst: usize,
        pattern: Box<[u8]>,
        size: usize,
    },
    Signal(Arc<EventState>),
    Reset(Arc<EventState>),
    /// Writes the mock clock (u64) to `dst`.
    Timestamp {
        dst: usize,
    },
    /// A kernel launch as appended (see [`crate::kernels`]).
    Launch {
        launch: Box<KernelLaunch>,
        /// An indirect launch: where its `ze_group_count_t` is read when it runs.
        counts: Option<usize>,
    },
    /// `zeCommandListAppendLaunchMultipleKernelsIndirect`: the first `*count` (u32, read when
    /// it runs, at most `launches.len()`) launches, launch i with the `ze_group_count_t` at
    /// `counts + i * 12`.
    LaunchMultiple {
        launches: Vec<KernelLaunch>,
        count: usize,
        counts: usize,
    },
}

/// A 3D copy: `depth` slices of `height` rows of `width` bytes.
pub(crate) struct Region {
    pub dst: usize,
    pub dst_pitch: usize,
    pub dst_slice_pitch: usize,
    pub src: usize,
    pub src_pitch: usize,
    pub src_slice_pitch: usize,
    pub width: usize,
    pub height: usize,
    pub depth: usize,
    /// Objects whose memory the copy touches (images), kept alive until it has run (held, never read).
    pub _keep: Vec<Box<dyn std::any::Any + Send + Sync>>,
}

/// One appended command: wait for `waits`, run `op`, signal `signal`.
pub(crate) struct Cmd {
    pub waits: Box<[Arc<EventState>]>,
    pub op: Op,
    pub signal: Option<Arc<EventState>>,
}

impl Cmd {
    fn ready(&self) -> bool {
        self.waits.iter().all(|e| e.is_signaled())
    }

    /// Runs the command; a kernel callback that panicked gives its message.
    ///
    /// # Safety
    /// The pointers of `op` must be valid for the accesses (checked when appended, as far as
    /// the mock knows them; the application owns the rest, as with a real device).
    unsafe fn run(&self) -> Option<String> {
        let mut fault = None;
        match &self.op {
            Op::Nop => {}
            // SAFETY: the ranges were checked against the USM allocations they touch
            // when appended, and the caller of `run` vouches for the rest (see above).
            Op::Copy { dst, src, size } => unsafe {
                std::ptr::copy(*src as *const u8, *dst as *mut u8, *size);
            },
            // SAFETY: as above; the region's extent was checked when appended.
            Op::CopyRegion(r) => unsafe {
                for z in 0..r.depth {
                    for y in 0..r.height {
                        let s = r.src + z * r.src_slice_pitch + y * r.src_pitch;
                        let d = r.dst + z * r.dst_slice_pitch + y * r.dst_pitch;
                        std::ptr::copy(s as *const u8, d as *mut u8, r.width);
                    }
                }
            },
            // SAFETY: as above; `off + n <= size`, the checked length.
            Op::Fill { dst, pattern, size } => unsafe {
                let d = *dst as *mut u8;
                let mut off = 0;
                while off < *size {
                    let n = pattern.len().min(size - off);
                    std::ptr::copy_nonoverlapping(pattern.as_ptr(), d.add(off), n);
                    off += n;
                }
            },
            Op::Signal(e) => e.set(true),
            Op::Reset(e) => e.set(false),
            // SAFETY: `dst` came from a `&mut u64` of the append, checked for 8 bytes.
            Op::Timestamp { dst } => unsafe { (*dst as *mut u64).write_unaligned(now_ns()) },
            Op::Launch { launch, counts } => {
                let mut l = (**launch).clone();
                if let Some(p) = counts {
                    // SAFETY: checked when appended: non-null, and inside its allocation when
                    // it points into one (the application owns the rest, see above).
                    let g = unsafe { (*p as *const ze_group_count_t).read_unaligned() };
                    l.group_count = [g.groupCountX, g.groupCountY, g.groupCountZ];
                }
                fault = crate::kernels::run(l);
            }
            Op::LaunchMultiple {
                launches,
                count,
                counts,
            } => {
                // SAFETY: checked when appended (non-null, inside its allocation when in one).
                let n = unsafe { (*count as *const u32).read_unaligned() } as usize;
                let mut faults = Vec::new();
                for (i, l) in launches.iter().take(n).enumerate() {
                    let p = *counts + i * std::mem::size_of::<ze_group_count_t>();
                    // SAFETY: as above: `launches.len()` group counts were checked at `counts`.
                    let g = unsafe { (p as *const ze_group_count_t).read_unaligned() };
                    let mut l = l.clone();
                    l.group_count = [g.groupCountX, g.groupCountY, g.groupCountZ];
                    faults.extend(crate::kernels::run(l));
                }
                if !faults.is_empty() {
                    fault = Some(faults.join("; "));
                }
            }
        }
        if let Some(e) = &self.signal {
            e.set(true);
        }
        fault
    }
}

// ----- the engine ---------------------------------------------------------------------------

/// Work submitted to a queue: commands from `pos` on, then the fence.
pub(crate) struct Batch {
    pub cmds: Arc<[Cmd]>,
    pub pos: usize,
    pub fence: Option<Arc<FenceState>>,
}

#[derive(Default)]
pub(crate) struct EngineState {
    /// Pending batches per queue id (queues with nothing pending have no entry).
    queues: HashMap<u64, VecDeque<Batch>>,
    /// Messages of kernel callbacks that panicked since the call that runs commands began.
    faults: Vec<String>,
}

impl EngineState {
    pub fn idle(&self, queue: u64) -> bool {
        !self.queues.contains_key(&queue)
    }

    /// `Err(UNKNOWN)` naming the kernel callbacks that panicked, if any did.
    fn take_faults(&mut self) -> ZeResult<()> {
        if self.faults.is_empty() {
            return Ok(());
        }
        let msg = std::mem::take(&mut self.faults).join("; ");
        Err(fail(ZeError::UNKNOWN, msg))
    }

    /// Runs every command whose waits are satisfied, until nothing moves.
    fn pump(&mut self) {
        loop {
            let mut progress = false;
            for q in self.queues.values_mut() {
                while let Some(b) = q.front_mut() {
                    while let Some(c) = b.cmds.get(b.pos) {
                        if !c.ready() {
                            break;
                        }
                        // SAFETY: see `Cmd::run`.
                        if let Some(f) = unsafe { c.run() } {
                            self.faults.push(f);
                        }
                        b.pos += 1;
                        progress = true;
                    }
                    if b.pos < b.cmds.len() {
                        break;
                    }
                    if let Some(f) = &b.fence {
                        f.signaled.store(true, Ordering::Release);
                    }
                    q.pop_front();
                    progress = true;
                }
            }
            self.queues.retain(|_, q| !q.is_empty());
            if !progress {
                break;
            }
        }
    }
}

/// The device: one lock over all pending work and every event and fence change, and a
/// condition variable host waits sleep on.
pub(crate) struct Engine {
    state: Mutex<EngineState>,
    cv: Condvar,
}

pub(crate) fn engine() -> &'static Engine {
    static E: OnceLock<Engine> = OnceLock::new();
    E.get_or_init(|| Engine {
        state: Mutex::new(EngineState::default()),
        cv: Condvar::new(),
    })
}

/// The longest a host wait really waits (`ZEKIT_MOCK_WAIT_LIMIT_MS`, default 10 s): the mock
/// never hangs, even on `UINT64_MAX`.
pub fn wait_limit() -> Duration {
    static LIMIT: OnceLock<Duration> = OnceLock::new();
    *LIMIT.get_or_init(|| {
        let ms = std::env::var("ZEKIT_MOCK_WAIT_LIMIT_MS")
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .unwrap_or(10_000);
        Duration::from_millis(ms)
    })
}

impl Engine {
    fn with<R>(&self, f: impl FnOnce(&mut EngineState) -> R) -> R {
        let r = f(&mut lock(&self.state));
        self.cv.notify_all();
        r
    }

    /// Queues `batches` on `queue` and runs what can run. `Err(UNKNOWN)` when a kernel
    /// callback panicked meanwhile (every command still ran).
    pub fn submit(&self, queue: u64, batches: impl IntoIterator<Item = Batch>) -> ZeResult<()> {
        self.with(|s| {
            s.queues.entry(queue).or_default().extend(batches);
            s.pump();
            s.take_faults()
        })
    }

    /// Drops the pending work of a destroyed queue.
    pub fn discard(&self, queue: u64) {
        self.with(|s| {
            s.queues.remove(&queue);
        });
    }

    /// Signals `e` and runs what it releases; `Err(UNKNOWN)` as [`submit`](Self::submit).
    pub fn signal_event(&self, e: &EventState) -> ZeResult<()> {
        self.with(|s| {
            e.set(true);
            s.pump();
            s.take_faults()
        })
    }

    pub fn reset_event(&self, e: &EventState) {
        self.with(|_| e.set(false));
    }

    pub fn reset_fence(&self, f: &FenceState) {
        self.with(|_| f.signaled.store(false, Ordering::Release));
    }

    pub fn signal_fence(&self, f: &FenceState) {
        self.with(|_| f.signaled.store(true, Ordering::Release));
    }

    /// Waits until `done` holds: `timeout` nanoseconds at most (0: just check), and never
    /// longer than [`wait_limit`]. `Err(NOT_READY)` when time runs out.
    pub fn wait(
        &self,
        function: &str,
        timeout: u64,
        done: impl Fn(&EngineState) -> bool,
    ) -> ZeResult<()> {
        let limit = wait_limit();
        let asked = Duration::from_nanos(timeout);
        let capped = timeout == u64::MAX || asked > limit;
        let deadline = Instant::now() + if capped { limit } else { asked };
        let mut s = lock(&self.state);
        loop {
            if done(&s) {
                return Ok(());
            }
            let now = Instant::now();
            if now >= deadline {
                drop(s);
                if capped {
                    zekit_icd_rt::log_error(
                        function,
                        &format!(
                            "gave up after {} ms (ZEKIT_MOCK_WAIT_LIMIT_MS) instead of waiting \
                             {}; returning ZE_RESULT_NOT_READY",
                            limit.as_millis(),
                            if timeout == u64::MAX {
                                "forever".to_string()
                            } else {
                                format!("{timeout} ns")
                            }
                        ),
                    );
                }
                return Err(ZeError::of(ZE_RESULT_NOT_READY));
            }
            s = match self.cv.wait_timeout(s, deadline - now) {
                Ok((g, _)) => g,
                Err(e) => e.into_inner().0,
            };
        }
    }
}

// ----- memory -------------------------------------------------------------------------------

/// One USM allocation.
#[derive(Clone, Copy)]
pub(crate) struct Alloc {
    pub id: u64,
    pub size: usize,
    pub align: usize,
    pub kind: ze_memory_type_t,
    pub context: u64,
    pub device: Option<Handle<kinds::Device>>,
}

#[derive(Default)]
struct Allocs {
    /// By base address.
    map: BTreeMap<usize, Alloc>,
    /// Bytes of device and shared allocations.
    device_bytes: u64,
}

fn allocs() -> &'static RwLock<Allocs> {
    static A: OnceLock<RwLock<Allocs>> = OnceLock::new();
    A.get_or_init(Default::default)
}

/// The limits of the profile's device, for the shared Level Zero rules ([`zekit_rules`]).
pub(crate) fn limits() -> zekit_rules::Limits {
    let p = crate::script().profile();
    let c = &p.compute;
    zekit_rules::Limits {
        max_group_size: [c.max_group_size_x, c.max_group_size_y, c.max_group_size_z],
        max_total_group_size: c.max_total_group_size,
        max_shared_local_memory: c.max_shared_local_memory as usize,
        max_mem_alloc_size: p.device.max_mem_alloc_size,
        max_alignment: usize::MAX,
    }
}

/// Allocates zeroed host memory for a USM allocation of `kind`.
pub(crate) fn allocate(
    context: u64,
    kind: ze_memory_type_t,
    size: usize,
    alignment: usize,
    device: Option<Handle<kinds::Device>>,
) -> ZeResult<*mut c_void> {
    let profile = crate::script().profile();
    let strict = zekit_rules::memory::SizeLimit::Strict;
    let align = zekit_rules::memory::allocation(size, alignment, strict, &limits())?;
    let on_device = kind != ZE_MEMORY_TYPE_HOST;
    let oom = if on_device {
        ZeError::OUT_OF_DEVICE_MEMORY
    } else {
        ZeError::OUT_OF_HOST_MEMORY
    };
    let layout = Layout::from_size_align(size, align).map_err(|_| {
        fail(
            ZeError::UNSUPPORTED_SIZE,
            format_args!("size {size} with alignment {align} is too large"),
        )
    })?;
    let mut a = allocs().write().unwrap_or_else(|e| e.into_inner());
    if on_device {
        let total: u64 = profile.memory.iter().map(|m| m.total_size).sum();
        if a.device_bytes.saturating_add(size as u64) > total {
            return Err(fail(
                oom,
                format_args!(
                    "{size} bytes more would exceed the device's {total} bytes ({} in use)",
                    a.device_bytes
                ),
            ));
        }
    }
    // SAFETY: the layout has a non-zero size.
    let ptr = unsafe { alloc_zeroed(layout) };
    if ptr.is_null() {
        return Err(fail(
            oom,
            format_args!("the host has no {size} bytes to give"),
        ));
    }
    if on_device {
        a.device_bytes += size as u64;
    }
    a.map.insert(
        ptr as usize,
        Alloc {
            id: next_id(),
            size,
            align,
            kind,
            context,
            device,
        },
    );
    Ok(ptr as *mut c_void)
}

/// Frees the allocation whose base is `ptr`, made in `context`.
pub(crate) fn free(context: u64, ptr: *mut c_void) -> ZeResult<()> {
    let mut a = allocs().write().unwrap_or_else(|e| e.into_inner());
    let base = ptr as usize;
    match a.map.get(&base) {
        Some(x) if x.context == context => {}
        Some(_) => {
            return Err(fail(
                ZeError::INVALID_ARGUMENT,
                format_args!("{ptr:p} was allocated in another context"),
            ))
        }
        None => {
            return Err(fail(
                ZeError::INVALID_ARGUMENT,
                format_args!("{ptr:p} is not the start of an allocation of this driver"),
            ))
        }
    }
    if let Some(x) = a.map.remove(&base) {
        release(&mut a, base, x);
    }
    Ok(())
}

fn release(a: &mut Allocs, base: usize, x: Alloc) {
    if x.kind != ZE_MEMORY_TYPE_HOST {
        a.device_bytes = a.device_bytes.saturating_sub(x.size as u64);
    }
    // SAFETY: `base` came from `alloc_zeroed` with exactly this layout, and left the map.
    unsafe {
        dealloc(
            base as *mut u8,
            Layout::from_size_align_unchecked(x.size, x.align),
        )
    };
}

/// Frees every allocation of a destroyed context.
pub(crate) fn free_context(context: u64) {
    let mut a = allocs().write().unwrap_or_else(|e| e.into_inner());
    let bases: Vec<usize> = a
        .map
        .iter()
        .filter(|(_, x)| x.context == context)
        .map(|(b, _)| *b)
        .collect();
    for b in bases {
        if let Some(x) = a.map.remove(&b) {
            release(&mut a, b, x);
        }
    }
}

/// The allocation containing `ptr`: (base, allocation).
pub(crate) fn find(ptr: usize) -> Option<(usize, Alloc)> {
    let a = allocs().read().unwrap_or_else(|e| e.into_inner());
    let (base, x) = a.map.range(..=ptr).next_back()?;
    (ptr < base + x.size).then_some((*base, *x))
}

/// Checks that `[ptr, ptr + len)` stays inside the allocation `ptr` points into, when it points
/// into one (other host memory is the application's business).
pub(crate) fn check_range(what: &str, ptr: usize, len: usize) -> ZeResult<()> {
    if ptr == 0 {
        return Err(fail(
            ZeError::INVALID_NULL_POINTER,
            format_args!("{what} is null"),
        ));
    }
    let Some(end) = ptr.checked_add(len) else {
        return Err(fail(
            ZeError::INVALID_SIZE,
            format_args!("{what} + {len} overflows"),
        ));
    };
    match find(ptr) {
        Some((base, x)) if end > base + x.size => Err(fail(
            ZeError::INVALID_SIZE,
            format_args!(
                "{what} {ptr:#x} + {len} bytes runs past the end of its allocation \
                 ({base:#x}, {} bytes)",
                x.size
            ),
        )),
        _ => Ok(()),
    }
}
