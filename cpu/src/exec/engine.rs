//! An engine: what runs the submissions of one command queue (or immediate command list), in
//! order.
//!
//! - [`Mode::Threaded`] (asynchronous and default queues): a thread of its own takes the
//!   submissions from a FIFO. A wait on an event parks only that thread.
//! - [`Mode::Inline`] (synchronous queues): the submitting thread runs its submission before it
//!   returns (under a lock that keeps submissions of several threads in order).
//!
//! Submissions are numbered when queued (tickets); `completed` counts the finished ones, so
//! "ticket `t` is done" is `completed >= t`.
//!
//! Hand-offs without thread switches: a thread that waits for an engine's work (a host, or
//! another engine's thread whose command waits for an event this engine signals) runs the
//! queued submissions itself while they cannot park (`Shared::help_until`); and an engine's
//! thread whose next submission starts with a wait for an unsignaled regular event waits for
//! it before taking the submission, so that such a helper can run it once the event is
//! signaled (see `engine_thread`).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

use super::command::{prepare, Awaited, Command, Op, Runner, Work};
use super::pool::WorkerPool;
use super::wait::{Flag, Timeout, Waiter};

/// How an engine runs its submissions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// On a thread of its own, asynchronously.
    Threaded,
    /// On the submitting thread, before the submission call returns.
    Inline,
}

struct Submission {
    work: Work,
    values: Vec<u64>,
    fence: Option<Arc<Flag>>,
}

struct Shared {
    device: usize,
    /// Id of the context of the queue (or immediate list).
    context: u64,
    mode: Mode,
    pool: Arc<WorkerPool>,
    fifo: Mutex<VecDeque<Submission>>,
    /// Threaded mode: held by whoever takes a submission from the FIFO and runs it (the
    /// engine's thread, or a host thread waiting for it: [`Engine::wait`]), so submissions run
    /// one at a time, in order.
    exec: Mutex<()>,
    /// Inline mode: held while a submission runs.
    inline: Mutex<()>,
    submitted: AtomicU64,
    completed: AtomicU64,
    /// The event (and counter value) the engine is parked on.
    blocked: Mutex<Option<Awaited>>,
    shutdown: AtomicBool,
    /// Set once a command of this engine faulted (`super::fault`): the queue (or immediate
    /// list) and the fences of its submissions then answer `DEVICE_LOST`, as a GPU's do after
    /// a page fault. Later submissions still run.
    lost: AtomicBool,
    /// The engine thread parks here for work.
    work: Waiter,
    /// Host threads park here for completions (and for `blocked`).
    done: Waiter,
}

impl Shared {
    /// Runs a submission; a panic inside it (a bug of the driver) is logged and the submission
    /// counts as done, so that nothing waits for it forever.
    fn run(&self, s: &Submission) {
        let run = std::panic::AssertUnwindSafe(|| self.run_unguarded(s));
        match std::panic::catch_unwind(run) {
            Ok(Ok(())) => {}
            Ok(Err(fault)) => {
                self.lost.store(true, Ordering::SeqCst);
                zekit_icd_rt::log_error(
                    "command queue",
                    &format!("a command faulted ({fault}): ZE_RESULT_ERROR_DEVICE_LOST; the rest of its submission was skipped"),
                );
            }
            Err(_) => {
                *self.blocked() = None;
                zekit_icd_rt::log_error("command queue", "a command panicked; the rest of its submission was skipped");
            }
        }
        if let Some(f) = &s.fence {
            f.set();
        }
    }

    fn run_unguarded(&self, s: &Submission) -> Result<(), super::fault::Fault> {
        let on_block = |b: Option<Awaited>| {
            *self.blocked() = b;
            self.done.notify();
        };
        let runner = Runner {
            pool: &self.pool,
            on_block: &on_block,
        };
        runner.run_work(&s.work, &s.values)
    }

    fn finish_one(&self) {
        self.completed.fetch_add(1, Ordering::SeqCst);
        self.done.notify();
    }

    fn blocked(&self) -> std::sync::MutexGuard<'_, Option<Awaited>> {
        self.blocked.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Parked on an event that is not signaled (nothing the engine does can change that).
    fn stuck(&self) -> bool {
        self.blocked()
            .as_ref()
            .is_some_and(|a| !a.ready())
    }

    fn idle(&self) -> bool {
        self.completed.load(Ordering::SeqCst) >= self.submitted.load(Ordering::SeqCst)
    }

    /// A host thread waiting until `done()` runs queued submissions itself, while the next one
    /// has not started and can run to its end without parking (see [`stealable`]): no
    /// hand-off to the engine's thread, which may have no core to run on. Stops at the first
    /// submission the engine's thread already runs or that may park. Not from the engine's
    /// own thread or host functions.
    fn help_until(&self, done: impl Fn() -> bool) {
        if self.mode != Mode::Threaded || running(self) {
            return;
        }
        while !done() {
            let Ok(_exec) = self.exec.try_lock() else { return };
            let sub = {
                let mut fifo = self.fifo.lock().unwrap_or_else(|e| e.into_inner());
                match fifo.front() {
                    Some(sub) if stealable(sub) => fifo.pop_front(),
                    _ => None,
                }
            };
            let Some(sub) = sub else { return };
            let _running = Running::enter(self);
            self.run(&sub);
            drop(sub);
            self.finish_one();
            // The engine's thread may wait for the event of the submission just run before
            // taking it (`engine_thread`): it must look at the next one.
            if let Some(Awaited::Event(e, _)) = self.blocked().clone() {
                e.wake();
            }
        }
    }
}

/// Whether a host thread may run `sub` in place of the engine's thread: a single command (an
/// append to an immediate list) or closed lists, with no host function (those run on the
/// queue's thread), no wait for an external semaphore, no counter-based event, and only waits
/// for events already signaled: so it runs to its end without parking.
fn stealable(sub: &Submission) -> bool {
    fn command(c: &Command) -> bool {
        c.waits.iter().all(|w| !w.is_counter_based() && w.reached(None))
            && !c.signal.as_ref().is_some_and(|e| e.is_counter_based())
            && match &c.op {
                Op::Host { .. } | Op::WaitSemaphores(_) => false,
                Op::Lists(lists) => lists.iter().all(|l| l.commands.iter().all(command)),
                _ => true,
            }
    }
    match &sub.work {
        Work::One(c) => command(c),
        Work::Lists(lists) => lists.iter().all(|l| l.commands.iter().all(command)),
    }
}

thread_local! {
    /// The engine whose submission this thread is running (its own thread, or the caller of an
    /// inline engine), if any: a host function that waits for that engine would wait for itself.
    static RUNNING: std::cell::Cell<*const Shared> = const { std::cell::Cell::new(std::ptr::null()) };
}

/// Marks the calling thread as running `s`'s submissions until dropped.
struct Running(*const Shared);

impl Running {
    fn enter(s: &Shared) -> Running {
        Running(RUNNING.with(|r| r.replace(s as *const Shared)))
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        RUNNING.with(|r| r.set(self.0));
    }
}

fn running(s: &Shared) -> bool {
    RUNNING.with(|r| std::ptr::eq(r.get(), s))
}

/// Every engine of the process, for `zeDeviceSynchronize`.
fn registry() -> &'static Mutex<Vec<Weak<Shared>>> {
    static R: Mutex<Vec<Weak<Shared>>> = Mutex::new(Vec::new());
    &R
}

/// Runs the submissions of one queue.
pub struct Engine {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Engine({:?}, {} of {} done)",
            self.shared.mode,
            self.shared.completed.load(Ordering::Relaxed),
            self.shared.submitted.load(Ordering::Relaxed)
        )
    }
}

/// What lets a host thread that waits for an engine's work (a fence, an event) run that work
/// itself ([`Engine::helper`]); does not keep the engine alive.
#[derive(Clone)]
pub struct Helper(Weak<Shared>);

impl std::fmt::Debug for Helper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Helper")
    }
}

impl Helper {
    /// Runs the engine's queued work on this thread until `done()`, as far as the work cannot
    /// park (see [`Engine::wait`]); the caller then waits as usual.
    pub fn help_until(&self, done: impl Fn() -> bool) {
        if let Some(s) = self.0.upgrade() {
            s.help_until(done);
        }
    }

    /// Whether a command of the engine faulted ([`Engine::is_lost`]).
    pub fn is_lost(&self) -> bool {
        self.0.upgrade().is_some_and(|s| s.lost.load(Ordering::SeqCst))
    }
}

/// Why an engine cannot be destroyed now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Blocked;

impl Engine {
    /// An engine of device `device` running on `pool`. `Threaded` starts its thread now.
    pub fn new(
        device: usize,
        context: u64,
        mode: Mode,
        pool: Arc<WorkerPool>,
    ) -> std::io::Result<Engine> {
        let shared = Arc::new(Shared {
            device,
            context,
            mode,
            pool,
            fifo: Mutex::new(VecDeque::new()),
            exec: Mutex::new(()),
            inline: Mutex::new(()),
            submitted: AtomicU64::new(0),
            completed: AtomicU64::new(0),
            blocked: Mutex::new(None),
            shutdown: AtomicBool::new(false),
            lost: AtomicBool::new(false),
            work: Waiter::new(),
            done: Waiter::new(),
        });
        if mode == Mode::Threaded {
            let s = shared.clone();
            std::thread::Builder::new()
                .name("zekit-queue".into())
                .spawn(move || engine_thread(&s))?;
        }
        let mut all = registry().lock().unwrap_or_else(|e| e.into_inner());
        all.retain(|w| w.strong_count() > 0);
        all.push(Arc::downgrade(&shared));
        Ok(Engine { shared })
    }

    /// What lets a host waiting for this engine's work run it ([`Helper`]).
    pub fn helper(&self) -> Helper {
        Helper(Arc::downgrade(&self.shared))
    }

    /// Whether a command of this engine faulted: its queue (or immediate list) is lost, as a
    /// GPU's is after a page fault.
    pub fn is_lost(&self) -> bool {
        self.shared.lost.load(Ordering::SeqCst)
    }

    /// The engine's mode.
    pub fn mode(&self) -> Mode {
        self.shared.mode
    }

    /// Queues `work` (and sets `fence` once it is done; the fence is cleared now); returns its
    /// ticket. Inline engines run it before returning.
    pub fn submit(&self, work: Work, fence: Option<Arc<Flag>>) -> u64 {
        if let Some(f) = &fence {
            f.clear();
        }
        let s = &*self.shared;
        match s.mode {
            Mode::Threaded => {
                if let Work::One(Command { signal: Some(e), .. }) = &work {
                    e.set_signaler(self.helper());
                }
                let mut fifo = s.fifo.lock().unwrap_or_else(|e| e.into_inner());
                let values = prepare(&work);
                fifo.push_back(Submission {
                    work,
                    values,
                    fence,
                });
                let ticket = s.submitted.fetch_add(1, Ordering::SeqCst) + 1;
                drop(fifo);
                s.work.notify();
                ticket
            }
            Mode::Inline => {
                let _exclusive = s.inline.lock().unwrap_or_else(|e| e.into_inner());
                let _running = Running::enter(s);
                let values = prepare(&work);
                let ticket = s.submitted.fetch_add(1, Ordering::SeqCst) + 1;
                s.run(&Submission {
                    work,
                    values,
                    fence,
                });
                s.finish_one();
                ticket
            }
        }
    }

    /// Waits until submission `ticket` is done; whether it was before `timeout`.
    /// From a host function of this engine's own submission, a wait for work not done yet
    /// answers `false` at once (the work cannot finish while the host function runs).
    pub fn wait(&self, ticket: u64, timeout: Timeout) -> bool {
        let s = &*self.shared;
        let timeout = if running(s) { Timeout::Poll } else { timeout };
        // Only an unbounded wait runs work itself: a submission may take longer than a
        // timeout.
        if timeout == Timeout::Forever {
            s.help_until(|| s.completed.load(Ordering::SeqCst) >= ticket);
        }
        s.done
            .wait_until(timeout, || s.completed.load(Ordering::SeqCst) >= ticket)
    }

    /// Waits until everything submitted so far is done; whether it was before `timeout`.
    pub fn synchronize(&self, timeout: Timeout) -> bool {
        self.wait(self.shared.submitted.load(Ordering::SeqCst), timeout)
    }

    /// Whether every submission is done.
    pub fn is_idle(&self) -> bool {
        self.shared.idle()
    }

    /// Before destruction: waits until the engine is idle, unless (or until) it is parked on
    /// an event that is not signaled — then the remaining work could wait forever, and the
    /// engine cannot be destroyed ([`Blocked`]). Parked on an event that is signaled, it is
    /// about to go on: that is waited for.
    /// From a host function of this engine's own submission it is [`Blocked`] at once.
    pub fn drain(&self) -> Result<(), Blocked> {
        let s = &*self.shared;
        if running(s) {
            return if s.idle() { Ok(()) } else { Err(Blocked) };
        }
        s.done
            .wait_until(Timeout::Forever, || s.idle() || s.stuck());
        if s.idle() {
            Ok(())
        } else {
            Err(Blocked)
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        // The thread ends by itself once its FIFO is empty (it may still run work that was
        // submitted while the engine was being destroyed).
        self.shared.shutdown.store(true, Ordering::SeqCst);
        self.shared.work.notify();
    }
}

fn engine_thread(s: &Shared) {
    super::pin_library();
    let _running = Running::enter(s);
    loop {
        let exec = s.exec.lock().unwrap_or_else(|e| e.into_inner());
        let completed = s.completed.load(Ordering::SeqCst);
        let next = {
            let mut fifo = s.fifo.lock().unwrap_or_else(|e| e.into_inner());
            match fifo.front().and_then(gate) {
                Some(e) => Err(e),
                None => Ok(fifo.pop_front()),
            }
        };
        let sub = match next {
            Ok(Some(sub)) => sub,
            Ok(None) => {
                drop(exec);
                if s.shutdown.load(Ordering::SeqCst) {
                    return;
                }
                s.work.wait_until(Timeout::Forever, || {
                    s.shutdown.load(Ordering::SeqCst)
                        || s.submitted.load(Ordering::SeqCst) > s.completed.load(Ordering::SeqCst)
                });
                continue;
            }
            Err(e) => {
                // The next submission starts with a wait for an event that is not signaled:
                // wait for it before taking the submission, holding no lock. Then the thread
                // that signals the event may run the submission itself right after
                // (`Shared::help_until`, from its own wait for an event this engine signals):
                // two queues handing work to each other through events need no thread switch
                // per hand-off, which costs ~10 us on a 2-core machine with other load.
                // Until the event is signaled or a helper ran that submission (it wakes this
                // wait: `help_until`), the next one then being another.
                drop(exec);
                *s.blocked() = Some(Awaited::Event(e.clone(), None));
                s.done.notify();
                e.wait_signaled_or(|| s.completed.load(Ordering::SeqCst) != completed);
                *s.blocked() = None;
                continue;
            }
        };
        s.run(&sub);
        drop(sub);
        s.finish_one();
        drop(exec);
    }
}

/// The first regular event of this process that the first command of `sub` waits for and that
/// is not signaled, if any (counter-based and IPC events are waited for inside the run).
fn gate(sub: &Submission) -> Option<Arc<super::event::EventState>> {
    let first = match &sub.work {
        Work::One(c) => c,
        Work::Lists(lists) => lists.iter().find_map(|l| l.commands.first())?,
    };
    first
        .waits
        .iter()
        .find(|w| w.is_regular() && !w.reached(None))
        .cloned()
}

/// Waits for every engine of device `device` (`zeDeviceSynchronize`): everything submitted to
/// any of its queues before the call is done when it returns — but for the engine whose host
/// function calls it, which cannot finish meanwhile.
pub fn synchronize_device(device: usize) {
    let engines: Vec<Arc<Shared>> = registry()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .filter_map(Weak::upgrade)
        .filter(|s| s.device == device && !running(s))
        .collect();
    for s in engines {
        let ticket = s.submitted.load(Ordering::SeqCst);
        s.done
            .wait_until(Timeout::Forever, || s.completed.load(Ordering::SeqCst) >= ticket);
    }
}

/// What every engine of a context had been given at one moment (but the engine of the calling
/// host function, which cannot finish meanwhile): the free policies of `zeMemFreeExt` wait for
/// it (blocking) or release memory once it is done (deferred).
pub struct Drain {
    tickets: Vec<(Arc<Shared>, u64)>,
}

impl std::fmt::Debug for Drain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Drain({} engines, done: {})", self.tickets.len(), self.is_done())
    }
}

impl Drain {
    /// The submissions queued so far to every engine of context `context` (its id).
    pub fn now(context: u64) -> Drain {
        let tickets = registry()
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .filter_map(Weak::upgrade)
            .filter(|s| s.context == context && !running(s))
            .map(|s| {
                let t = s.submitted.load(Ordering::SeqCst);
                (s, t)
            })
            .filter(|(s, t)| s.completed.load(Ordering::SeqCst) < *t)
            .collect();
        Drain { tickets }
    }

    /// Whether all of it has run.
    pub fn is_done(&self) -> bool {
        self.tickets
            .iter()
            .all(|(s, t)| s.completed.load(Ordering::SeqCst) >= *t)
    }

    /// Waits until all of it has run.
    pub fn wait(&self) {
        for (s, t) in &self.tickets {
            s.done
                .wait_until(Timeout::Forever, || s.completed.load(Ordering::SeqCst) >= *t);
        }
    }
}
