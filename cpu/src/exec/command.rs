//! Commands as the executor runs them, and how a submission is prepared and run.
//!
//! A [`Command`] waits for its events, runs its [`Op`], then signals its event with the time
//! the op started and ended on the device clock (`CLOCK_MONOTONIC_RAW`, the clock of
//! `zeDeviceGetGlobalTimestamps`).

use std::ffi::c_void;
use std::sync::atomic::{fence, Ordering};
use std::sync::Arc;

use super::event::EventState;
use super::fault::{guarded, Fault};
use super::memory::{self, Region};
use super::pool::WorkerPool;
use super::semaphore::ExternalSemaphore;
use super::wait::Timeout;
use crate::host::now_ns;

/// A host function (`zeCommandListAppendHostFunction`).
pub type HostFunction = unsafe extern "system" fn(*mut c_void);

/// What a command does between its waits and its signal.
#[derive(Debug, Clone)]
pub enum Op {
    /// Nothing: barriers (a queue runs its commands in order, one after the other), signal and
    /// wait commands, prefetch and memory advice (all memory is host memory).
    Nothing,
    /// A memory fence: memory ranges barriers, system barriers.
    MemoryFence,
    /// `size` bytes from `src` to `dst`.
    Copy {
        /// Destination address.
        dst: usize,
        /// Source address.
        src: usize,
        /// Bytes.
        size: usize,
    },
    /// A 3D region copy.
    CopyRegion(Region),
    /// A region copy to, from or between images, holding their storage until it has run.
    ImageCopy {
        /// The copy.
        region: Region,
        /// What the region's image addresses point into.
        keep: Vec<Arc<dyn std::any::Any + Send + Sync>>,
    },
    /// `size` bytes at `dst` filled with `pattern`.
    Fill {
        /// Destination address.
        dst: usize,
        /// Bytes (a multiple of the pattern's size).
        size: usize,
        /// The pattern, copied when the command was appended.
        pattern: Box<[u8]>,
    },
    /// The device clock written to a `u64` at `dst`.
    WriteTimestamp {
        /// Address of the `u64`.
        dst: usize,
    },
    /// `ze_kernel_timestamp_result_t` of each event written at `dst + offsets[i]` (packed when
    /// `offsets` is empty).
    QueryTimestamps {
        /// The events.
        events: Vec<Arc<EventState>>,
        /// Destination address.
        dst: usize,
        /// Byte offsets, one per event, or empty.
        offsets: Vec<usize>,
    },
    /// Resets a regular event.
    ResetEvent(Arc<EventState>),
    /// Calls an application function on the queue's thread.
    Host {
        /// The function.
        function: HostFunction,
        /// Its argument.
        data: usize,
    },
    /// Runs closed regular lists (an immediate list appending command lists, or an executable
    /// graph).
    Lists(Vec<Arc<ListBody>>),
    /// A kernel launch, its arguments as they were when it was appended.
    Launch(Box<super::launch::Launch>),
    /// Launches of several kernels, how many of them run read when the command runs.
    LaunchMany(Box<super::launch::LaunchMany>),
    /// Signals external semaphores, each with its value (ignored by binary ones).
    SignalSemaphores(Vec<(Arc<ExternalSemaphore>, u64)>),
    /// Waits for external semaphores, each for its value (ignored by binary ones): blocks the
    /// queue's thread only.
    WaitSemaphores(Vec<(Arc<ExternalSemaphore>, u64)>),
}

/// One command.
#[derive(Debug, Clone)]
pub struct Command {
    /// Events to wait for before the op.
    pub waits: Vec<Arc<EventState>>,
    /// The op.
    pub op: Op,
    /// Event to signal after it.
    pub signal: Option<Arc<EventState>>,
}

impl Command {
    /// `op` with its signal and waits.
    pub fn new(op: Op, signal: Option<Arc<EventState>>, waits: Vec<Arc<EventState>>) -> Command {
        Command { waits, op, signal }
    }

    fn uses_counters(&self) -> bool {
        self.waits.iter().any(|e| e.is_counter_based())
            || self.signal.as_ref().is_some_and(|e| e.is_counter_based())
            || matches!(&self.op, Op::Lists(l) if l.iter().any(|b| b.uses_counters))
    }
}

/// The commands of a closed regular list: what a submission runs (shared by every execution).
#[derive(Debug, Default)]
pub struct ListBody {
    /// The commands, in order.
    pub commands: Vec<Command>,
    uses_counters: bool,
}

impl ListBody {
    /// The commands of a list being closed.
    pub fn new(commands: Vec<Command>) -> ListBody {
        let uses_counters = commands.iter().any(Command::uses_counters);
        ListBody {
            commands,
            uses_counters,
        }
    }
}

/// What one submission runs.
#[derive(Debug)]
pub enum Work {
    /// Closed regular lists (`zeCommandQueueExecuteCommandLists`).
    Lists(Vec<Arc<ListBody>>),
    /// One command (an append to an immediate list).
    One(Command),
}

/// Called when a submission is queued, in queue order: counts the waits it will do and gives
/// counter-based events their values. Returns the values, in the order [`run_work`] uses them.
pub(crate) fn prepare(work: &Work) -> Vec<u64> {
    let mut values = Vec::new();
    match work {
        Work::Lists(lists) => lists.iter().for_each(|l| prepare_list(l, &mut values)),
        Work::One(c) => prepare_command(c, &mut values),
    }
    values
}

fn prepare_list(list: &ListBody, values: &mut Vec<u64>) {
    for c in &list.commands {
        prepare_command(c, values);
    }
}

fn prepare_command(c: &Command, values: &mut Vec<u64>) {
    for w in &c.waits {
        w.add_pending_wait();
        if w.is_counter_based() {
            values.push(w.target());
        }
    }
    if let Op::Lists(lists) = &c.op {
        lists.iter().for_each(|l| prepare_list(l, values));
    }
    if let Some(s) = &c.signal {
        if s.is_counter_based() {
            values.push(s.arm());
        }
    }
}

/// What a parked queue waits for.
#[derive(Debug, Clone)]
pub enum Awaited {
    /// An event, and the counter value it waits for (counter-based events).
    Event(Arc<EventState>, Option<u64>),
    /// An external semaphore, and the timeline value it waits for.
    Semaphore(Arc<ExternalSemaphore>, u64),
}

impl Awaited {
    /// Whether the wait can go on now (the queue is not stuck).
    pub fn ready(&self) -> bool {
        match self {
            Awaited::Event(e, v) => e.reached(*v),
            Awaited::Semaphore(s, v) => s.ready(*v),
        }
    }
}

/// What running commands needs from the queue.
pub(crate) struct Runner<'a> {
    /// The worker pool.
    pub pool: &'a WorkerPool,
    /// Called with the event (and counter value) before the queue parks on it, `None` after.
    pub on_block: &'a dyn Fn(Option<Awaited>),
}

impl Runner<'_> {
    /// Runs a prepared submission; `values` are what [`prepare`] returned. A command that
    /// faults ends the submission: its event and those of the commands after it (which do not
    /// run, nor wait) complete as lost ([`EventState::is_lost`]), and the first fault is
    /// returned.
    pub fn run_work(&self, work: &Work, values: &[u64]) -> Result<(), Fault> {
        let mut values = values.iter().copied();
        let mut lost = None;
        match work {
            Work::Lists(lists) => {
                for l in lists {
                    self.run_list(l, &mut values, &mut lost);
                }
            }
            Work::One(c) => self.run_command(c, &mut values, &mut lost),
        }
        lost.map_or(Ok(()), Err)
    }

    fn run_list(&self, list: &ListBody, values: &mut impl Iterator<Item = u64>, lost: &mut Option<Fault>) {
        for c in &list.commands {
            self.run_command(c, values, lost);
        }
    }

    fn wait(&self, e: &Arc<EventState>, value: Option<u64>) {
        if !e.wait(value, Timeout::Poll) {
            // The engine that signals it may have the signaling work queued and no core to run
            // it on: run it here (it cannot park), as a waiting host does.
            e.help_signaler(value);
        }
        if !e.wait(value, Timeout::Poll) {
            (self.on_block)(Some(Awaited::Event(e.clone(), value)));
            e.wait(value, Timeout::Forever);
            (self.on_block)(None);
        }
    }

    fn run_command(&self, c: &Command, values: &mut impl Iterator<Item = u64>, lost: &mut Option<Fault>) {
        for w in &c.waits {
            let value = if w.is_counter_based() { values.next() } else { None };
            // After a fault the rest of the submission is skipped: no waits either.
            if lost.is_none() {
                self.wait(w, value);
            }
            w.end_pending_wait();
        }
        let start = now_ns();
        if lost.is_none() {
            if let Err(f) = self.run_op(&c.op, values, lost) {
                *lost = Some(f);
            }
        } else if let Op::Lists(lists) = &c.op {
            // Their commands' events complete as lost too (and take their counter values).
            for l in lists {
                self.run_list(l, values, lost);
            }
        }
        let end = now_ns();
        if let Some(s) = &c.signal {
            if lost.is_some() {
                s.set_lost();
            }
            if s.is_counter_based() {
                if let Some(v) = values.next() {
                    s.reach(v, start, end);
                }
            } else {
                s.signal(start, end);
            }
        }
    }

    fn run_op(&self, op: &Op, values: &mut impl Iterator<Item = u64>, lost: &mut Option<Fault>) -> Result<(), Fault> {
        // The application promised, when it appended the command, that the memory it names is
        // valid while the command runs; where it was not, the access faults and ends the
        // command (`super::fault`).
        match op {
            Op::Nothing => {}
            Op::MemoryFence => fence(Ordering::SeqCst),
            // SAFETY: see above.
            Op::Copy { dst, src, size } => unsafe { memory::copy(self.pool, *dst, *src, *size) }?,
            // SAFETY: see above; `model::list` checked that the rows do not overlap.
            Op::CopyRegion(r) => unsafe { memory::copy_region(self.pool, r) }?,
            // SAFETY: image rows are inside the storage `keep` holds; memory rows were promised
            // by the application when it appended the command, as for any copy.
            Op::ImageCopy { region, .. } => unsafe { memory::copy_region(self.pool, region) }?,
            // SAFETY: see above.
            Op::Fill { dst, size, pattern } => unsafe {
                memory::fill(self.pool, *dst, *size, pattern)
            }?,
            // SAFETY: see above (the address need not be aligned).
            Op::WriteTimestamp { dst } => guarded(|| unsafe {
                std::ptr::write_unaligned(*dst as *mut u64, now_ns())
            })?,
            Op::QueryTimestamps {
                events,
                dst,
                offsets,
            } => {
                let size = std::mem::size_of::<zekit_sys::ze_kernel_timestamp_result_t>();
                for (i, e) in events.iter().enumerate() {
                    let (s, t) = e.timestamps().unwrap_or((0, 0));
                    let data = zekit_sys::ze_kernel_timestamp_data_t {
                        kernelStart: s,
                        kernelEnd: t,
                    };
                    let result = zekit_sys::ze_kernel_timestamp_result_t {
                        global: data,
                        context: data,
                    };
                    let at = dst + offsets.get(i).copied().unwrap_or(i * size);
                    // SAFETY: as above; offsets need not be aligned.
                    guarded(|| unsafe { std::ptr::write_unaligned(at as *mut _, result) })?;
                }
            }
            Op::ResetEvent(e) => e.reset(),
            // SAFETY: the application's function, called with its own argument as it asked.
            Op::Host { function, data } => unsafe { function(*data as *mut c_void) },
            Op::Lists(lists) => {
                for l in lists {
                    self.run_list(l, values, lost);
                }
                // A fault inside is the nested command's: this command completes as lost.
                if let Some(f) = lost {
                    return Err(*f);
                }
            }
            // SAFETY: see above (the buffers the arguments name).
            Op::Launch(l) => unsafe { l.run(self.pool) }?,
            // SAFETY: as above, and the count the application gave is readable.
            Op::LaunchMany(l) => unsafe { l.run(self.pool) }?,
            Op::SignalSemaphores(s) => s.iter().for_each(|(s, v)| s.signal(*v)),
            Op::WaitSemaphores(s) => {
                for (s, v) in s {
                    if !s.ready(*v) {
                        (self.on_block)(Some(Awaited::Semaphore(s.clone(), *v)));
                    }
                    s.wait(*v);
                    (self.on_block)(None);
                }
            }
        }
        Ok(())
    }
}
