//! The state of an event as the executor sees it: signaled or not (regular events) or a
//! counter (counter-based events), the timestamps of the command that signaled it, and the
//! waits on it that submitted work has not finished yet.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

use std::sync::Arc;

use super::ipc_events::{SharedCounter, SharedEvents};
use super::wait::{Flag, Timeout, Waiter};

/// How an event completes.
#[derive(Debug)]
enum Kind {
    /// Signaled and reset explicitly (`zeEventCreate` from a pool).
    Regular(Flag),
    /// Counter-based (`zeEventCounterBasedCreate`): each submitted command that signals it
    /// takes the next value (`target`); the event is complete when the commands have reached
    /// the last value taken.
    Counter {
        target: AtomicU64,
        reached: AtomicU64,
        waiter: Waiter,
    },
    /// An event of an IPC pool: its state is slot `index` of shared memory (signaled and
    /// timestamps), seen by every process that opened the pool.
    Shared {
        slots: Arc<SharedEvents>,
        index: usize,
    },
    /// An IPC counter-based event: the counter lives in shared memory, seen by every process
    /// that created or opened it.
    SharedCounter(Arc<SharedCounter>),
}

/// An event's state (shared by the event object and the commands that use it).
#[derive(Debug)]
pub struct EventState {
    kind: Kind,
    timestamps: bool,
    start: AtomicU64,
    end: AtomicU64,
    pending_waits: AtomicU32,
    /// Signaled by a command that faulted, or skipped after one (`super::fault`): waits on it
    /// end, and the host learns `DEVICE_LOST`. Cleared by a reset.
    lost: AtomicBool,
    /// Counter-based with `GRAPH_EXTERNAL`: it may be used outside a graph capture that
    /// signals it (the others are internal to it).
    graph_external: bool,
    /// The engine of the last appended command that signals it (an asynchronous immediate
    /// list's): a host waiting for the event may run that engine's queued work itself.
    signaler: std::sync::Mutex<Option<super::engine::Helper>>,
}

impl EventState {
    /// A regular event, unsignaled; `timestamps`: it records when the signaling command ran.
    pub fn regular(timestamps: bool) -> EventState {
        Self::with(Kind::Regular(Flag::new(false)), timestamps)
    }

    /// A counter-based event: complete until a command that signals it is submitted.
    pub fn counter_based(timestamps: bool) -> EventState {
        Self::with(
            Kind::Counter {
                target: AtomicU64::new(0),
                reached: AtomicU64::new(0),
                waiter: Waiter::new(),
            },
            timestamps,
        )
    }

    /// An IPC counter-based event over `counter` (`graph_external`: created with
    /// `GRAPH_EXTERNAL`).
    pub fn counter_based_shared(
        counter: Arc<SharedCounter>,
        timestamps: bool,
        graph_external: bool,
    ) -> EventState {
        EventState {
            graph_external,
            ..Self::with(Kind::SharedCounter(counter), timestamps)
        }
    }

    /// A counter-based event created with `ZE_EVENT_COUNTER_BASED_FLAG_GRAPH_EXTERNAL`.
    pub fn counter_based_graph_external(timestamps: bool) -> EventState {
        EventState {
            graph_external: true,
            ..Self::counter_based(timestamps)
        }
    }

    /// An event of an IPC pool, in slot `index` of `slots` (its state is left as it is: another
    /// process may have signaled it).
    pub fn shared(slots: Arc<SharedEvents>, index: usize, timestamps: bool) -> EventState {
        Self::with(Kind::Shared { slots, index }, timestamps)
    }

    fn with(kind: Kind, timestamps: bool) -> EventState {
        EventState {
            kind,
            timestamps,
            start: AtomicU64::new(0),
            end: AtomicU64::new(0),
            pending_waits: AtomicU32::new(0),
            lost: AtomicBool::new(false),
            graph_external: false,
            signaler: std::sync::Mutex::new(None),
        }
    }

    /// Records the engine a command signaling this event was submitted to.
    pub(crate) fn set_signaler(&self, h: super::engine::Helper) {
        *self.signaler.lock().unwrap_or_else(|e| e.into_inner()) = Some(h);
    }

    /// `zeEventHostSynchronize`: waits until the event is signaled (any counter value:
    /// `wait(None, ..)`); an unbounded wait first runs the queued work of the engine that
    /// signals it, on this thread, as far as that work cannot park ([`super::Engine::wait`]).
    pub fn host_wait(&self, timeout: Timeout) -> bool {
        if timeout == Timeout::Forever {
            self.help_signaler(None);
        }
        self.wait(None, timeout)
    }

    /// Runs the queued work of the engine that signals this event, on this thread, until the
    /// event reaches `value` (`None`: is complete) or that work could park
    /// ([`super::engine::Helper::help_until`]); from a host wait, or from a queue's thread
    /// before its command waits for the event (no thread switch per hand-off between two
    /// queues of one program).
    pub(crate) fn help_signaler(&self, value: Option<u64>) {
        let h = self.signaler.lock().unwrap_or_else(|e| e.into_inner()).clone();
        if let Some(h) = h {
            h.help_until(|| self.reached(value));
        }
    }

    /// A regular event of this process: waits until it is signaled or `also()` holds; true.
    /// Any other kind: false at once (nothing waited for).
    pub(crate) fn wait_signaled_or(&self, also: impl Fn() -> bool) -> bool {
        match &self.kind {
            Kind::Regular(f) => {
                f.wait_or(also);
                true
            }
            _ => false,
        }
    }

    /// Wakes the threads in [`EventState::wait_signaled_or`] (to re-check `also`).
    pub(crate) fn wake(&self) {
        if let Kind::Regular(f) = &self.kind {
            f.wake();
        }
    }

    /// An IPC counter-based event created with `GRAPH_EXTERNAL` (graphs cannot capture it:
    /// this driver has no `CB_EXTERNAL_IPC`).
    pub fn is_ipc_graph_external(&self) -> bool {
        matches!(self.kind, Kind::SharedCounter(_)) && self.graph_external
    }

    /// A counter-based event internal to the graph captures that signal it (created without
    /// `GRAPH_EXTERNAL`).
    pub fn is_graph_internal(&self) -> bool {
        self.is_counter_based() && !self.graph_external
    }

    /// Whether this is a regular event of this process (not counter-based, not IPC).
    pub fn is_regular(&self) -> bool {
        matches!(self.kind, Kind::Regular(_))
    }

    /// Whether this is a counter-based event.
    pub fn is_counter_based(&self) -> bool {
        matches!(self.kind, Kind::Counter { .. } | Kind::SharedCounter(_))
    }

    /// Whether it records kernel timestamps.
    pub fn has_timestamps(&self) -> bool {
        self.timestamps
    }

    /// Regular: signaled. Counter-based: every submitted signaling command has run.
    pub fn is_complete(&self) -> bool {
        match &self.kind {
            Kind::Regular(f) => f.is_set(),
            Kind::Counter {
                target, reached, ..
            } => reached.load(Ordering::Acquire) >= target.load(Ordering::Acquire),
            Kind::Shared { slots, index } => slots.is_signaled(*index),
            Kind::SharedCounter(c) => c.reached() >= c.target(),
        }
    }

    /// Whether a wait for `value` (counter-based) or for completion (`None`) is over.
    pub fn reached(&self, value: Option<u64>) -> bool {
        match (&self.kind, value) {
            (Kind::Counter { reached, .. }, Some(v)) => reached.load(Ordering::Acquire) >= v,
            (Kind::SharedCounter(c), Some(v)) => c.reached() >= v,
            _ => self.is_complete(),
        }
    }

    /// Waits until the event is complete (for a counter-based event with `value`: until the
    /// counter reached it); whether it did before `timeout`.
    pub fn wait(&self, value: Option<u64>, timeout: Timeout) -> bool {
        match &self.kind {
            Kind::Regular(f) => f.wait(timeout),
            Kind::Counter { waiter, .. } => waiter.wait_until(timeout, || self.reached(value)),
            Kind::Shared { slots, index } => slots.wait(*index, timeout),
            Kind::SharedCounter(c) => c.wait(timeout, || self.reached(value)),
        }
    }

    fn record(&self, start: u64, end: u64) {
        if self.timestamps {
            self.start.store(start, Ordering::Relaxed);
            self.end.store(end, Ordering::Relaxed);
        }
    }

    /// Signals a regular event (from the host, or from a command that ran from `start` to
    /// `end` on the device clock).
    pub fn signal(&self, start: u64, end: u64) {
        match &self.kind {
            Kind::Regular(f) => {
                self.record(start, end);
                f.set();
            }
            Kind::Shared { slots, index } => {
                slots.signal(*index, self.timestamps.then_some((start, end)));
            }
            Kind::Counter { .. } | Kind::SharedCounter(_) => self.record(start, end),
        }
    }

    /// Marks the event as completed by lost work (before it is signaled or reached).
    pub fn set_lost(&self) {
        self.lost.store(true, Ordering::Release);
    }

    /// Whether the work that completed the event faulted (or was skipped after a fault).
    pub fn is_lost(&self) -> bool {
        self.lost.load(Ordering::Acquire)
    }

    /// Resets a regular event to not signaled.
    pub fn reset(&self) {
        self.lost.store(false, Ordering::Release);
        match &self.kind {
            Kind::Regular(f) => {
                f.clear();
                self.record(0, 0);
            }
            Kind::Shared { slots, index } => slots.reset(*index),
            Kind::Counter { .. } | Kind::SharedCounter(_) => {}
        }
    }

    /// Counter-based: a command that signals the event is submitted; the value it will reach.
    pub fn arm(&self) -> u64 {
        match &self.kind {
            Kind::Counter { target, .. } => target.fetch_add(1, Ordering::AcqRel) + 1,
            Kind::SharedCounter(c) => c.arm(),
            Kind::Regular(_) | Kind::Shared { .. } => 0,
        }
    }

    /// Counter-based: the value the last submitted signaling command will reach (what a wait
    /// submitted now waits for).
    pub fn target(&self) -> u64 {
        match &self.kind {
            Kind::Counter { target, .. } => target.load(Ordering::Acquire),
            Kind::SharedCounter(c) => c.target(),
            Kind::Regular(_) | Kind::Shared { .. } => 0,
        }
    }

    /// Counter-based: the command that took `value` ran from `start` to `end`.
    pub fn reach(&self, value: u64, start: u64, end: u64) {
        match &self.kind {
            Kind::Counter {
                reached, waiter, ..
            } => {
                self.record(start, end);
                reached.fetch_max(value, Ordering::AcqRel);
                waiter.notify();
            }
            Kind::SharedCounter(c) => c.reach(value, self.timestamps.then_some((start, end))),
            Kind::Regular(_) | Kind::Shared { .. } => {}
        }
    }

    /// `(start, end)` of the command that completed the event, when it records timestamps and
    /// is complete.
    pub fn timestamps(&self) -> Option<(u64, u64)> {
        (self.timestamps && self.is_complete()).then(|| match &self.kind {
            Kind::Shared { slots, index } => slots.timestamps(*index),
            Kind::SharedCounter(c) => c.timestamps(),
            _ => (
                self.start.load(Ordering::Relaxed),
                self.end.load(Ordering::Relaxed),
            ),
        })
    }

    /// Submitted work will wait on this event.
    pub fn add_pending_wait(&self) {
        self.pending_waits.fetch_add(1, Ordering::AcqRel);
    }

    /// A submitted wait on this event is over.
    pub fn end_pending_wait(&self) {
        self.pending_waits.fetch_sub(1, Ordering::AcqRel);
    }

    /// Whether submitted work waits for this event and it is not complete: destroying it would
    /// leave that work waiting forever.
    pub fn awaited(&self) -> bool {
        self.pending_waits.load(Ordering::Acquire) > 0 && !self.is_complete()
    }
}
