//! The programmable core of the mock driver: call log, programmed results, expectations.
//!
//! The generated C-ABI layer consults one [`Script`] on every call:
//!
//! ```text
//! let code = match script.before_call("zeMemAllocDevice", &render_args) {
//!     Some(code) => code,          // a programmed result applies: skip the default behaviour
//!     None => default_behaviour(),
//! };
//! script.after_call("zeMemAllocDevice", &render_args, code);   // always: appends the Call
//! ```
//!
//! ([`Script::invoke`] does exactly that.) Tests program it in the style of mockall:
//!
//! ```
//! use zekit_mock::script::Script;
//! use zekit_sys::*;
//!
//! let script = Script::new();
//! script.on("zeMemAllocDevice").nth(3).returns(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
//! script.expect("zeCommandListClose").times(1);
//! let s = script.sequence();
//! script.expect("zeCommandListCreate").in_sequence(&s);
//! script.expect("zeCommandListDestroy").in_sequence(&s);
//! ```
//!
//! Nothing here panics on bad input: mistakes (an unknown function name, `nth(0)`, a predicate
//! that panics) and expectation violations are recorded and reported by [`Script::verify`].
//!
//! Call numbers (`seq`, printed `#n`) start at 1, are unique for the life of the script (or until
//! [`Script::reset`]) and are taken when the call enters [`Script::before_call`], so a
//! violation message can name the call that caused it.

mod call;
mod expect;
mod hooks;
mod launches;
mod log;
mod rules;
mod state;

use std::collections::HashMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, RwLock};

use crate::kernels::{KernelCallback, KernelLaunch};
use crate::profile::Profile;
pub use call::{is_known_function, known_functions, parse_u64, Args, Call};
pub use expect::Expectation;
pub use rules::On;
pub use state::{Count, RuleId, Sequence};
use state::Inner;

/// A predicate on the rendered arguments of a call.
type Pred = Arc<dyn Fn(&Args) -> bool + Send + Sync>;

/// Renders the arguments of a call as `(name, value)` pairs; called lazily.
pub type RenderArgs<'a> = &'a dyn Fn() -> Vec<(String, String)>;

/// The programmable state of the mock: see the module docs.
pub struct Script {
    inner: Mutex<Inner>,
    /// Whether any rule or expectation exists (fast path for `before_call`).
    armed: AtomicBool,
    seq: AtomicU64,
    calls: Mutex<Vec<Call>>,
    profile: RwLock<Arc<Profile>>,
    log_path: Mutex<Option<PathBuf>>,
    /// Host callbacks by kernel name.
    kernels: Mutex<HashMap<String, KernelCallback>>,
    /// Launches that ran, in order.
    launches: Mutex<Vec<KernelLaunch>>,
}

impl Default for Script {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for Script {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inner = lock(&self.inner);
        f.debug_struct("Script")
            .field("calls", &lock(&self.calls).len())
            .field("functions_programmed", &inner.funcs.len())
            .field("expectations", &inner.exps.len())
            .field("violations", &inner.violations)
            .finish()
    }
}

/// Locks, ignoring poisoning (a panicking test thread must not wedge the mock).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The process-wide script the mock driver consults.
pub fn script() -> &'static Script {
    static GLOBAL: OnceLock<Script> = OnceLock::new();
    GLOBAL.get_or_init(Script::new)
}

impl Script {
    /// An empty script, independent of [`script()`].
    pub fn new() -> Self {
        Self {
            inner: Mutex::new(Inner::default()),
            armed: AtomicBool::new(false),
            seq: AtomicU64::new(0),
            calls: Mutex::new(Vec::new()),
            profile: RwLock::new(Arc::new(Profile::default())),
            log_path: Mutex::new(None),
            kernels: Mutex::new(HashMap::new()),
            launches: Mutex::new(Vec::new()),
        }
    }

    fn addr(&self) -> usize {
        self as *const Self as usize
    }

    fn rearm(&self, inner: &Inner) {
        self.armed.store(!inner.funcs.is_empty(), Ordering::Release);
    }

    /// The device profile the mock reports.
    pub fn profile(&self) -> Arc<Profile> {
        self.profile
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    pub fn set_profile(&self, profile: Profile) {
        *self.profile.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(profile);
    }

    /// Clears everything: programmed results, expectations, sequences, violations, the call log
    /// (numbers restart at 1), the log path, kernel callbacks and recorded launches; the
    /// profile returns to [`Profile::default`].
    pub fn reset(&self) {
        {
            let mut inner = lock(&self.inner);
            *inner = Inner::default();
            self.rearm(&inner);
        }
        lock(&self.calls).clear();
        self.seq.store(0, Ordering::Relaxed);
        *lock(&self.log_path) = None;
        lock(&self.kernels).clear();
        lock(&self.launches).clear();
        self.set_profile(Profile::default());
    }
}
