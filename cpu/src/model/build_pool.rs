//! Machine code generation in the background: `zeModuleCreate` returns once its SPIR-V is
//! parsed, validated and lowered ([`zekit_spirv::prepare_linked`]: every error but a code
//! generator failure is known then); the code of each kernel is then generated on worker
//! threads (one per usable core, shared by every module), kernels of a module in parallel:
//! split into as many pieces (consecutive kernels, each piece one JIT module) as there are
//! cores, so that a module of many small kernels does not pay a code generator's setup per
//! kernel.
//! What needs the code ([`Build::wait`]: `zeKernelCreate`, `zeModuleGetNativeBinary`,
//! `zeModuleGetFunctionPointer`, `zeModuleGetGlobalPointer`) waits for it, and meanwhile
//! generates the code of the kernels no worker has started itself.
//!
//! A code generator failure (a compiler bug) is kept and answered to every such call as
//! `MODULE_BUILD_FAILURE` naming the kernel. A module destroyed before its code is ready
//! cancels the kernels not started; the workers hold the build, so nothing they use goes away.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock, RwLock};

use zekit_spirv::{jit, Prepared, Program};

/// Why code could not be generated: the message for the consumer's log line.
pub type CodegenError = String;

struct Pieces {
    /// Each piece's code, once generated.
    code: Vec<Option<jit::Code>>,
    /// Pieces finished (generated, failed or skipped).
    finished: usize,
    /// The first failure.
    error: Option<CodegenError>,
    /// Set once every kernel is finished.
    result: Option<Result<Arc<Program>, CodegenError>>,
}

/// A module's code being generated (or ready).
pub struct Build {
    /// Read by code generation, taken when the program is made.
    prepared: RwLock<Option<Prepared>>,
    /// Kernel names, for error messages.
    names: Vec<String>,
    /// The pieces: ranges of kernels, in order, covering them all.
    ranges: Vec<std::ops::Range<usize>>,
    /// The next piece no thread has claimed.
    next: AtomicUsize,
    cancelled: AtomicBool,
    pieces: Mutex<Pieces>,
    ready: Condvar,
}

impl std::fmt::Debug for Build {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Build({} kernels)", self.names.len())
    }
}

/// Test hook: the code generation of kernels of this name fails as a compiler bug would.
#[doc(hidden)]
pub fn fail_codegen_of(name: &str) {
    failing().lock().unwrap_or_else(|e| e.into_inner()).push(name.to_string());
}

fn failing() -> &'static Mutex<Vec<String>> {
    static F: Mutex<Vec<String>> = Mutex::new(Vec::new());
    &F
}

impl Build {
    /// A program already built (native binaries, linked modules).
    pub fn ready(program: Arc<Program>) -> Arc<Build> {
        Arc::new(Build {
            prepared: RwLock::new(None),
            names: Vec::new(),
            ranges: Vec::new(),
            next: AtomicUsize::new(0),
            cancelled: AtomicBool::new(false),
            pieces: Mutex::new(Pieces {
                code: Vec::new(),
                finished: 0,
                error: None,
                result: Some(Ok(program)),
            }),
            ready: Condvar::new(),
        })
    }

    /// Starts generating the code of `prepared`'s kernels on the workers.
    pub fn start(prepared: Prepared) -> Arc<Build> {
        let names: Vec<String> = prepared.infos.iter().map(|k| k.name.clone()).collect();
        let cores = crate::host::host().usable_cores.max(1) as usize;
        let ranges = split(names.len(), cores);
        let n = ranges.len();
        let b = Arc::new(Build {
            prepared: RwLock::new(Some(prepared)),
            names,
            ranges,
            next: AtomicUsize::new(0),
            cancelled: AtomicBool::new(false),
            pieces: Mutex::new(Pieces {
                code: (0..n).map(|_| None).collect(),
                finished: 0,
                error: None,
                result: None,
            }),
            ready: Condvar::new(),
        });
        if n == 0 {
            b.complete(&mut b.lock());
        } else {
            workers().submit(&b, n);
        }
        b
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Pieces> {
        self.pieces.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Claims the next piece and generates its code; false when none was left to claim.
    fn run_one(&self) -> bool {
        let i = self.next.fetch_add(1, Ordering::SeqCst);
        let Some(range) = self.ranges.get(i).cloned() else {
            return false;
        };
        let injected = {
            let failing = failing().lock().unwrap_or_else(|e| e.into_inner());
            self.names[range.clone()].iter().find(|n| failing.contains(n)).cloned()
        };
        let code = if self.cancelled.load(Ordering::SeqCst) {
            Err("the module was destroyed".to_string())
        } else if let Some(name) = injected {
            Err(format!("kernel `{name}`: internal compiler error: failure injected by a test"))
        } else {
            let prepared = self.prepared.read().unwrap_or_else(|e| e.into_inner());
            match prepared.as_ref() {
                // The compiler's messages name the kernel.
                Some(p) => p.codegen(range.clone()).map_err(|e| {
                    let names = self.names[range].join("`, `");
                    format!("kernels `{names}`: {e}")
                }),
                None => Err("internal compiler error: the module's IR is gone".to_string()),
            }
        };
        let mut pieces = self.lock();
        match code {
            Ok(c) => pieces.code[i] = Some(c),
            Err(e) => {
                if pieces.error.is_none() {
                    pieces.error = Some(e);
                }
            }
        }
        pieces.finished += 1;
        if pieces.finished == self.ranges.len() {
            self.complete(&mut pieces);
        }
        true
    }

    /// Every kernel finished: makes the program (or keeps the failure) and wakes the waiters.
    fn complete(&self, pieces: &mut Pieces) {
        let prepared = self
            .prepared
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        let result = match (pieces.error.take(), prepared) {
            (Some(e), _) => Err(e),
            (None, None) => Err("internal compiler error: the module's IR is gone".to_string()),
            (None, Some(p)) => {
                let code = pieces.code.drain(..).flatten().collect();
                p.finish(code).map(Arc::new).map_err(|e| e.to_string())
            }
        };
        pieces.result = Some(result);
        self.ready.notify_all();
    }

    /// The program, once every kernel's code is generated; the calling thread generates the
    /// code of pieces no worker has started.
    pub fn wait(&self) -> Result<Arc<Program>, CodegenError> {
        while self.run_one() {}
        let mut pieces = self.lock();
        loop {
            if let Some(r) = &pieces.result {
                return r.clone();
            }
            pieces = self.ready.wait(pieces).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// The program if it is ready (without waiting).
    pub fn get(&self) -> Option<Result<Arc<Program>, CodegenError>> {
        self.lock().result.clone()
    }

    /// The module is destroyed: kernels not started are skipped.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::SeqCst);
    }
}

/// `n` kernels in at most `parts` ranges of consecutive kernels, sizes differing by one at most.
fn split(n: usize, parts: usize) -> Vec<std::ops::Range<usize>> {
    let parts = parts.min(n);
    let mut out = Vec::with_capacity(parts);
    let mut start = 0;
    for p in 0..parts {
        let len = n / parts + usize::from(p < n % parts);
        out.push(start..start + len);
        start += len;
    }
    out
}

/// The threads generating code for every module.
struct Workers {
    queue: Mutex<VecDeque<Arc<Build>>>,
    work: Condvar,
}

impl Workers {
    /// `n` pieces of `b` to generate.
    fn submit(&self, b: &Arc<Build>, n: usize) {
        let mut q = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        q.extend((0..n).map(|_| b.clone()));
        drop(q);
        if n == 1 {
            self.work.notify_one();
        } else {
            self.work.notify_all();
        }
    }

    fn run(&self) {
        crate::exec::pin_library();
        loop {
            let b = {
                let mut q = self.queue.lock().unwrap_or_else(|e| e.into_inner());
                loop {
                    if let Some(b) = q.pop_front() {
                        break b;
                    }
                    q = self.work.wait(q).unwrap_or_else(|e| e.into_inner());
                }
            };
            b.run_one();
        }
    }
}

fn workers() -> &'static Workers {
    static W: OnceLock<&'static Workers> = OnceLock::new();
    W.get_or_init(|| {
        let w: &'static Workers = Box::leak(Box::new(Workers {
            queue: Mutex::new(VecDeque::new()),
            work: Condvar::new(),
        }));
        let n = crate::host::host().usable_cores.max(1);
        for _ in 0..n {
            // A worker that cannot start leaves the work to the threads that wait for it.
            let _ = std::thread::Builder::new()
                .name("zekit-codegen".into())
                .spawn(move || w.run());
        }
        w
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn pieces_cover_every_kernel_once() {
        for n in 0..20 {
            for parts in 1..6 {
                let r = super::split(n, parts);
                assert_eq!(r.len(), parts.min(n));
                let flat: Vec<usize> = r.iter().flat_map(|r| r.clone()).collect();
                assert_eq!(flat, (0..n).collect::<Vec<_>>());
                assert!(r.iter().all(|r| r.len() >= n / parts && r.len() <= n.div_ceil(parts)));
            }
        }
    }
}
