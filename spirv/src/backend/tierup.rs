//! Tiering up (`ZEKIT_TIER=auto`, the default where the LLVM tier is built in): every kernel
//! starts on Cranelift's code, so a module is ready as fast as that tier makes it; a kernel
//! that has run long enough is compiled again by LLVM on a background thread, and its launches
//! from then on call LLVM's code.
//!
//! - "Long enough": the launches' wall time added up reaches [`threshold`] (20 ms, or
//!   `ZEKIT_TIER_UP_MS`), about what LLVM takes to compile a kernel, so that a kernel pays at
//!   most about its own run time again for the compilation.
//! - One thread compiles, kernel after kernel, in the order they cross the threshold; it holds
//!   the program meanwhile, so a module destroyed during a compilation goes away after it. The
//!   process's first LLVM compilation runs on the launching thread instead (see `queue`).
//! - A launch picks its code once, when it starts ([`crate::Kernel::launch_entry`]): its
//!   groups all run the same code. Both codes live as long as the program, so a launch on the
//!   old code finishes on it.
//! - LLVM's code then runs for as long again, and stays unless it takes more than 1.1 times
//!   Cranelift's time per work-item (each code's first launch left out: it pays for first
//!   touches of memory); a kernel whose LLVM code is slower (a copy that Cranelift's code
//!   writes with non-temporal stores, say) goes back to Cranelift's code for good.
//! - A kernel LLVM cannot compile keeps Cranelift's code, with one log line.
//! - A process that exits while a kernel compiles waits for that compilation to end (see
//!   `at_exit`), and starts no other.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex, OnceLock};

use crate::analysis::regions::Regions;
use crate::ir;
use crate::Program;

use super::Code;

/// The IR a kernel is compiled from.
pub(crate) type Source = (ir::Kernel, Regions, u32);

/// One kernel's way to the optimizing tier.
pub(crate) struct TierUp {
    /// What LLVM compiles; taken by the compilation.
    source: Mutex<Option<Source>>,
    /// Per code, Cranelift's then LLVM's: launch time in all (what the threshold counts).
    spent: [AtomicU64; 2],
    /// Per code: launches, and the time and work-items of all of them but the first (which
    /// pays for first touches of memory and code), for the comparison.
    launches: [AtomicU64; 2],
    timed: [AtomicU64; 2],
    items: [AtomicU64; 2],
    requested: AtomicBool,
    /// LLVM's code, once made.
    code: OnceLock<Code>,
    /// Its entry while launches run it (0: they run Cranelift's).
    entry: AtomicUsize,
    /// Set once LLVM's code has been compared with Cranelift's, and kept or given up.
    decided: AtomicBool,
}

impl std::fmt::Debug for TierUp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TierUp(upgraded: {})", self.entry.load(Ordering::Relaxed) != 0)
    }
}

impl TierUp {
    pub(crate) fn new(source: Source) -> TierUp {
        TierUp {
            source: Mutex::new(Some(source)),
            spent: Default::default(),
            launches: Default::default(),
            timed: Default::default(),
            items: Default::default(),
            requested: AtomicBool::new(false),
            code: OnceLock::new(),
            entry: AtomicUsize::new(0),
            decided: AtomicBool::new(false),
        }
    }

    /// The entry of LLVM's code, while launches run it.
    pub(crate) fn entry(&self) -> Option<usize> {
        match self.entry.load(Ordering::Acquire) {
            0 => None,
            e => Some(e),
        }
    }

    /// LLVM's code, while launches run it.
    pub(crate) fn code(&self) -> Option<&Code> {
        self.entry().and(self.code.get())
    }

    /// Adds a launch of code `tier` (0: Cranelift's, 1: LLVM's); returns the time spent on
    /// that code now.
    fn add(&self, tier: usize, nanos: u64, items: u64) -> u64 {
        if self.launches[tier].fetch_add(1, Ordering::Relaxed) > 0 {
            self.timed[tier].fetch_add(nanos, Ordering::Relaxed);
            self.items[tier].fetch_add(items, Ordering::Relaxed);
        }
        self.spent[tier].fetch_add(nanos, Ordering::Relaxed).saturating_add(nanos)
    }

    /// Time per work-item on code `tier`, where measured.
    fn cost(&self, tier: usize) -> Option<f64> {
        let (t, n) = (self.timed[tier].load(Ordering::Relaxed), self.items[tier].load(Ordering::Relaxed));
        (n > 0).then(|| t as f64 / n as f64)
    }

    /// Once LLVM's code has run as long as Cranelift's had to: keeps it, unless it takes more
    /// than [`SLOWER`] times Cranelift's time per work-item, in which case launches go back to
    /// Cranelift's code for good.
    fn decide(&self) {
        if self.decided.swap(true, Ordering::Relaxed) {
            return;
        }
        if let (Some(llvm), Some(cranelift)) = (self.cost(1), self.cost(0)) {
            if llvm > cranelift * SLOWER {
                self.entry.store(0, Ordering::Release);
                GIVEN_UP.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}

/// How much slower per work-item LLVM's code may be before a kernel goes back to Cranelift's
/// (launch times vary by some percent from launch to launch).
const SLOWER: f64 = 1.1;

/// Not set yet (read from the environment at first use).
const UNSET: u64 = u64::MAX;
static THRESHOLD: AtomicU64 = AtomicU64::new(UNSET);

/// Launch time after which a kernel is compiled by LLVM (nanoseconds): what [`set_threshold`]
/// set, else `ZEKIT_TIER_UP_MS` milliseconds (`0`: after the first launch), 20 by default.
pub fn threshold() -> u64 {
    match THRESHOLD.load(Ordering::Relaxed) {
        UNSET => {
            let ms = std::env::var("ZEKIT_TIER_UP_MS").ok().and_then(|v| v.parse::<u64>().ok());
            let t = ms.unwrap_or(20).saturating_mul(1_000_000).min(UNSET - 1);
            THRESHOLD.store(t, Ordering::Relaxed);
            t
        }
        t => t,
    }
}

/// Sets the launch time after which a kernel tiers up, for the whole process.
pub fn set_threshold(nanos: u64) {
    THRESHOLD.store(nanos.min(UNSET - 1), Ordering::Relaxed);
}

/// Records that a launch of kernel `index` of `program` with `items` work-items ran the code
/// at `entry` ([`crate::Kernel::launch_entry`]) for `nanos`: past the threshold on Cranelift's
/// code, queues the kernel for LLVM; past it on LLVM's, compares the two (see
/// the module documentation). Cheap when the kernel does not tier up.
pub fn ran(program: &Arc<Program>, index: usize, entry: usize, nanos: u64, items: u64) {
    let Some(k) = program.kernels.get(index) else { return };
    let Some(up) = k.up.as_ref() else { return };
    if up.decided.load(Ordering::Relaxed) {
        return;
    }
    let llvm = entry != k.entry;
    let spent = up.add(usize::from(llvm), nanos, items);
    if llvm {
        if spent >= threshold() && up.launches[1].load(Ordering::Relaxed) >= 2 {
            up.decide();
        }
    } else if spent >= threshold() && !up.requested.swap(true, Ordering::Relaxed) {
        queue(Arc::clone(program), index);
    }
}

/// A kernel to compile: its program and its index there.
type Job = (Arc<Program>, usize);

fn queue(program: Arc<Program>, index: usize) {
    static WORKER: OnceLock<Option<Mutex<mpsc::Sender<Job>>>> = OnceLock::new();
    let first = WORKER.get().is_none();
    let tx = WORKER.get_or_init(|| {
        // The process's first LLVM compilation runs here, on the launching thread: LLVM makes
        // many of its objects when first used, and registers their destructors to run at exit
        // then, after any exit handler registered before. Once they exist, `at_exit` is
        // registered after them (and again after every compilation), so that it runs first.
        compile(&program, index);
        let (tx, rx) = mpsc::channel::<Job>();
        // LLVM's code generator recurses deeply (on wide vectors most): a main thread's stack,
        // not a spawned thread's default 2 MiB.
        let spawned = std::thread::Builder::new().name("zekit-tier-up".into()).stack_size(16 << 20).spawn(move || {
            for (p, i) in rx {
                compile(&p, i);
                drop(p);
                PENDING.fetch_sub(1, Ordering::Release);
            }
        });
        match spawned {
            Ok(_) => Some(Mutex::new(tx)),
            Err(e) => {
                eprintln!("zekit: no thread to compile kernels with LLVM ({e}); Cranelift's code stays");
                None
            }
        }
    });
    if first {
        return;
    }
    let Some(tx) = tx else { return };
    PENDING.fetch_add(1, Ordering::Relaxed);
    // A send fails only when the worker has stopped: the kernel keeps its code.
    if tx.lock().unwrap_or_else(|e| e.into_inner()).send((program, index)).is_err() {
        PENDING.fetch_sub(1, Ordering::Relaxed);
    }
}

/// [`upgrade`] unless the process is exiting, then `at_exit` registered again (see `queue`).
fn compile(program: &Program, index: usize) {
    let _compiling = COMPILING.lock().unwrap_or_else(|e| e.into_inner());
    if EXITING.load(Ordering::SeqCst) {
        return;
    }
    upgrade(program, index);
    // SAFETY: `at_exit` is an `extern "C" fn()` taking nothing; libc's `atexit` only stores
    // the pointer, and ties it to the object that registers it (glibc's `atexit` is
    // `__cxa_atexit` with the caller's `__dso_handle`), so it runs at exit or when this
    // library is unloaded, whichever comes first, while its code is mapped. Registering it
    // again is allowed; each run after the first finds `EXITING` set and returns at once.
    unsafe {
        atexit(at_exit);
    }
}

/// Compiles kernel `index` of `program` with LLVM and switches its launches to that code.
fn upgrade(program: &Program, index: usize) {
    let k = &program.kernels[index];
    let Some(up) = k.up.as_ref() else { return };
    let Some(source) = up.source.lock().unwrap_or_else(|e| e.into_inner()).take() else { return };
    let data = program.data_address();
    let made = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| super::llvm_piece(&source, data)));
    match made {
        Ok(Ok(code)) => {
            let entry = code.entries.first().copied().unwrap_or(0);
            if up.code.set(code).is_ok() && entry != 0 {
                UPGRADES.fetch_add(1, Ordering::Relaxed);
                up.entry.store(entry, Ordering::Release);
            }
        }
        Ok(Err(e)) => {
            if std::env::var("ZEKIT_LOG").as_deref() != Ok("0") {
                eprintln!("zekit: kernel `{}`: keeps Cranelift's code, LLVM's failed: {e}", k.info.name);
            }
        }
        Err(_) => eprintln!("zekit: kernel `{}`: keeps Cranelift's code, LLVM's compiler panicked", k.info.name),
    }
}

extern "C" {
    fn atexit(f: extern "C" fn()) -> std::ffi::c_int;
}

/// Held while the worker compiles.
static COMPILING: Mutex<()> = Mutex::new(());
/// Set when the process exits: the worker starts no compilation after that.
static EXITING: AtomicBool = AtomicBool::new(false);

/// Registered with `atexit` after every compilation, so that it runs before the exit-time
/// destructors of what LLVM has made (see `queue`): waits (up to 10 s) for a compilation in
/// flight to end, and lets no other start, so that the process does not tear LLVM down under
/// a running compilation.
extern "C" fn at_exit() {
    if EXITING.swap(true, Ordering::SeqCst) {
        return;
    }
    let t = std::time::Instant::now();
    while t.elapsed() < std::time::Duration::from_secs(10) {
        if !matches!(COMPILING.try_lock(), Err(std::sync::TryLockError::WouldBlock)) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

static UPGRADES: AtomicU64 = AtomicU64::new(0);
static GIVEN_UP: AtomicU64 = AtomicU64::new(0);
static PENDING: AtomicUsize = AtomicUsize::new(0);

/// How many kernels of this process went back to Cranelift's code, LLVM's being slower.
pub fn given_up() -> u64 {
    GIVEN_UP.load(Ordering::Relaxed)
}

/// True when kernel `index` of `program` has compared LLVM's code with Cranelift's (and runs
/// the faster one from now on).
pub fn decided(program: &Program, index: usize) -> bool {
    program.kernels.get(index).and_then(|k| k.up.as_ref()).is_some_and(|u| u.decided.load(Ordering::Relaxed))
}

/// How many kernels are queued for LLVM or being compiled now.
pub fn pending() -> usize {
    PENDING.load(Ordering::Acquire)
}

/// How many kernels of this process have tiered up to LLVM's code.
pub fn upgrades() -> u64 {
    UPGRADES.load(Ordering::Relaxed)
}
