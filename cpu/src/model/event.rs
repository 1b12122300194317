//! Event pools, events (from a pool or counter-based) and their rules.
//!
//! | topic | behaviour |
//! |---|---|
//! | pool flags | `HOST_VISIBLE` accepted (every event is host visible); `IPC`: the events' state lives in shared memory ([`crate::exec::ipc_events`]) and `zeEventPoolGetIpcHandle` exports it: a pool opened from the handle (in any process) sees the same events signaled and reset. `zeEventCreate` in the exporting pool resets the slot; in an opened pool it takes the slot as it is; `KERNEL_TIMESTAMP` and `KERNEL_MAPPED_TIMESTAMP`: its events record when the command that signals them starts and ends, on the device clock (`CLOCK_MONOTONIC_RAW` ns, the clock of `zeDeviceGetGlobalTimestamps`) |
//! | pool devices | any devices of the driver (0: all) |
//! | `zeEventCreate(desc)` | `index` below the pool's count and not held by a live event, else `INVALID_ARGUMENT`; signal and wait scopes accepted and reported back |
//! | counter-based events | `flags` must hold `IMMEDIATE` and/or `NON_IMMEDIATE`, else `INVALID_ARGUMENT`; `DEVICE_TIMESTAMP`/`HOST_TIMESTAMP` record timestamps. Each submitted command that signals one takes the next counter value; the event is complete when the counter reached the last value taken (a new event is complete). A wait waits for the value taken last before it was submitted. The host cannot signal or reset them, nor can `zeCommandListAppendSignalEvent`/`AppendEventReset` (`INVALID_SYNCHRONIZATION_OBJECT`); an immediate list needs `IMMEDIATE`, a regular list `NON_IMMEDIATE` (else `INVALID_SYNCHRONIZATION_OBJECT`); `IPC`: the counter lives in shared memory ([`crate::exec::ipc_events::SharedCounter`]), exported by `zeEventCounterBasedGetIpcHandle` and mapped by `zeEventCounterBasedOpenIpcHandle` in any process |
//! | `zeEventHostSynchronize`, `zeEventQueryStatus` | `NOT_READY` when not complete (after `timeout`) |
//! | kernel timestamps | of an event without timestamps: `INVALID_SYNCHRONIZATION_OBJECT`; not complete: `NOT_READY`; global and context timestamps are the same ticks (1 ns); one result per event (no sub-devices); the synchronized (host) timestamps of `zeEventQueryKernelTimestampsExt` equal them (one clock) |
//! | `zeEventDestroy` | `HANDLE_OBJECT_IN_USE` while submitted work waits for the event and it is not complete (that work could never run); otherwise destroyed, even if submitted work will still signal it |
//! | `zeEventPoolDestroy` | `HANDLE_OBJECT_IN_USE` when one of its events is so awaited; otherwise destroyed: its live events then fail every call but `zeEventDestroy` with `INVALID_ARGUMENT`, and appending them fails the same way |

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use zekit_icd::kinds;
use zekit_icd_rt::{Handle, Obj};
use zekit_sys::*;

use std::os::fd::AsRawFd;

use super::ipc;
use super::objects::{ZeError, ZeResult};
use crate::exec::ipc_events::{SharedCounter, SharedEvents};
use crate::exec::{EventState, Timeout};
use crate::host::now_ns;

/// Value of an event pool handle.
#[derive(Debug)]
pub struct EventPoolObject {
    context: Handle<kinds::Context>,
    flags: ze_event_pool_flags_t,
    /// The live event of each index.
    slots: Mutex<Vec<Option<Arc<EventState>>>>,
    alive: AtomicBool,
    /// IPC pools: the events' shared state.
    shared: Option<Arc<SharedEvents>>,
    /// Opened from an IPC handle (`zeEventPoolCloseIpcHandle` closes it).
    opened: bool,
}

impl EventPoolObject {
    /// A pool of `count` events in `context`.
    pub fn new(
        context: Handle<kinds::Context>,
        flags: ze_event_pool_flags_t,
        count: u32,
    ) -> ZeResult<EventPoolObject> {
        if flags.0 & !ze_event_pool_flags_t::all_known().0 != 0 {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ENUMERATION,
                format!("unknown event pool flags {:#x}", flags.0),
            ));
        }
        if count == 0 {
            return Err(ZeError::new(ZE_RESULT_ERROR_INVALID_SIZE, "desc->count is 0"));
        }
        let shared = if flags.intersects(ze_event_pool_flags_t::IPC) {
            let slots = SharedEvents::new(count as usize).map_err(|e| {
                ZeError::new(
                    ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY,
                    format!("shared memory for {count} IPC events: {e}"),
                )
            })?;
            Some(Arc::new(slots))
        } else {
            None
        };
        Ok(EventPoolObject {
            context,
            flags,
            slots: Mutex::new(vec![None; count as usize]),
            alive: AtomicBool::new(true),
            shared,
            opened: false,
        })
    }

    /// `zeEventPoolOpenIpcHandle`: the pool `handle` names, in `context`.
    pub fn open_ipc(
        context: Handle<kinds::Context>,
        handle: &ze_ipc_event_pool_handle_t,
    ) -> ZeResult<EventPoolObject> {
        let w = ipc::PoolWire::decode(handle)?;
        let fd = ipc::take_fd(&w.file)?;
        let slots = SharedEvents::open(fd, w.count as usize).map_err(|e| {
            ZeError::new(
                ZE_RESULT_ERROR_INVALID_ARGUMENT,
                format!("mapping the IPC event pool's {} events: {e}", w.count),
            )
        })?;
        Ok(EventPoolObject {
            context,
            flags: ze_event_pool_flags_t(w.flags),
            slots: Mutex::new(vec![None; w.count as usize]),
            alive: AtomicBool::new(true),
            shared: Some(Arc::new(slots)),
            opened: true,
        })
    }

    /// `zeEventPoolGetIpcHandle`: pools created with `IPC` only.
    pub fn ipc_handle(&self) -> ZeResult<ze_ipc_event_pool_handle_t> {
        let Some(slots) = &self.shared else {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ARGUMENT,
                "the pool was created without ZE_EVENT_POOL_FLAG_IPC",
            ));
        };
        let file = ipc::Remote::local(slots.fd().as_raw_fd())?;
        Ok(ipc::PoolWire {
            file,
            count: slots.count() as u32,
            flags: self.flags.0,
        }
        .encode())
    }

    /// `zeEventPoolCloseIpcHandle`: pools opened from a handle only; as a destroy otherwise.
    pub fn close_ipc(&self) -> ZeResult<()> {
        if !self.opened {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ARGUMENT,
                "the pool was not opened from an IPC handle: destroy it with zeEventPoolDestroy",
            ));
        }
        self.destroy()
    }

    /// `zeEventPoolGetContextHandle`.
    pub fn context(&self) -> Handle<kinds::Context> {
        self.context
    }

    /// `zeEventPoolGetFlags`.
    pub fn flags(&self) -> ze_event_pool_flags_t {
        self.flags
    }

    fn timestamps(&self) -> bool {
        self.flags.intersects(ze_event_pool_flags_t::KERNEL_TIMESTAMP)
            || self
                .flags
                .intersects(ze_event_pool_flags_t::KERNEL_MAPPED_TIMESTAMP)
    }

    fn slots(&self) -> std::sync::MutexGuard<'_, Vec<Option<Arc<EventState>>>> {
        self.slots.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn take(&self, index: u32) -> ZeResult<Arc<EventState>> {
        if !self.alive.load(Ordering::Acquire) {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ARGUMENT,
                "the event pool was destroyed",
            ));
        }
        let mut slots = self.slots();
        let n = slots.len();
        let Some(slot) = slots.get_mut(index as usize) else {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ARGUMENT,
                format!("desc->index {index}: the pool holds {n} events"),
            ));
        };
        if slot.is_some() {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ARGUMENT,
                format!("desc->index {index} is held by a live event of this pool; destroy it first"),
            ));
        }
        let state = match &self.shared {
            Some(shared) => {
                if !self.opened {
                    shared.reset(index as usize);
                }
                Arc::new(EventState::shared(shared.clone(), index as usize, self.timestamps()))
            }
            None => Arc::new(EventState::regular(self.timestamps())),
        };
        *slot = Some(state.clone());
        Ok(state)
    }

    fn free(&self, index: u32) {
        if let Some(slot) = self.slots().get_mut(index as usize) {
            *slot = None;
        }
    }

    /// `zeEventPoolDestroy`: see the module docs.
    pub fn destroy(&self) -> ZeResult<()> {
        let slots = self.slots();
        if let Some(i) = slots
            .iter()
            .position(|s| s.as_ref().is_some_and(|e| e.awaited()))
        {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE,
                format!("event {i} of the pool is awaited by submitted work and not signaled"),
            ));
        }
        self.alive.store(false, Ordering::Release);
        Ok(())
    }
}

/// Where an event comes from.
#[derive(Debug)]
enum Source {
    Pool {
        pool: Obj<EventPoolObject>,
        handle: Handle<kinds::EventPool>,
        index: u32,
    },
    Counter {
        flags: ze_event_counter_based_flags_t,
        /// `IPC` events: the shared counter (what `zeEventCounterBasedGetIpcHandle` exports).
        shared: Option<Arc<SharedCounter>>,
        /// Opened from an IPC handle (`zeEventCounterBasedCloseIpcHandle` closes it).
        opened: bool,
    },
}

/// Value of an event handle.
#[derive(Debug)]
pub struct EventObject {
    source: Source,
    signal_scope: ze_event_scope_flags_t,
    wait_scope: ze_event_scope_flags_t,
    state: Arc<EventState>,
    destroyed: AtomicBool,
}

/// The kind of list an event is appended to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListKind {
    /// A regular command list.
    Regular,
    /// An immediate command list.
    Immediate,
}

impl EventObject {
    /// `zeEventCreate`.
    pub fn from_pool(
        pool: Obj<EventPoolObject>,
        handle: Handle<kinds::EventPool>,
        desc: &ze_event_desc_t,
    ) -> ZeResult<EventObject> {
        check_scopes(desc.signal, desc.wait)?;
        let state = pool.take(desc.index)?;
        Ok(EventObject {
            source: Source::Pool {
                pool,
                handle,
                index: desc.index,
            },
            signal_scope: desc.signal,
            wait_scope: desc.wait,
            state,
            destroyed: AtomicBool::new(false),
        })
    }

    /// `zeEventCounterBasedCreate`.
    pub fn counter_based(desc: &ze_event_counter_based_desc_t) -> ZeResult<EventObject> {
        type F = ze_event_counter_based_flags_t;
        if desc.flags.0 & !F::all_known().0 != 0 {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ENUMERATION,
                format!("unknown counter-based event flags {:#x}", desc.flags.0),
            ));
        }
        if !desc.flags.intersects(F::IMMEDIATE) && !desc.flags.intersects(F::NON_IMMEDIATE) {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ARGUMENT,
                "desc->flags holds neither IMMEDIATE nor NON_IMMEDIATE: the event could not be used by any list",
            ));
        }
        check_scopes(desc.signal, desc.wait)?;
        let timestamps =
            desc.flags.intersects(F::DEVICE_TIMESTAMP) || desc.flags.intersects(F::HOST_TIMESTAMP);
        let external = desc.flags.intersects(F::GRAPH_EXTERNAL);
        let shared = if desc.flags.intersects(F::IPC) {
            Some(Arc::new(SharedCounter::new().map_err(|e| {
                ZeError::new(
                    ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY,
                    format!("shared memory for an IPC counter-based event: {e}"),
                )
            })?))
        } else {
            None
        };
        let state = match &shared {
            Some(c) => EventState::counter_based_shared(c.clone(), timestamps, external),
            None if external => EventState::counter_based_graph_external(timestamps),
            None => EventState::counter_based(timestamps),
        };
        Ok(EventObject {
            source: Source::Counter {
                flags: desc.flags,
                shared,
                opened: false,
            },
            signal_scope: desc.signal,
            wait_scope: desc.wait,
            state: Arc::new(state),
            destroyed: AtomicBool::new(false),
        })
    }

    /// `zeEventCounterBasedGetIpcHandle`: counter-based events created with `IPC` only.
    pub fn counter_ipc_handle(&self) -> ZeResult<ze_ipc_event_counter_based_handle_t> {
        let Source::Counter { flags, shared, .. } = &self.source else {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT,
                "an event of a pool has no counter-based IPC handle (share its pool with zeEventPoolGetIpcHandle)",
            ));
        };
        let Some(counter) = shared else {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ARGUMENT,
                "the counter-based event was created without ZE_EVENT_COUNTER_BASED_FLAG_IPC",
            ));
        };
        self.usable()?;
        let file = ipc::Remote::local(counter.fd().as_raw_fd())?;
        Ok(ipc::CounterWire {
            file,
            flags: flags.0,
        }
        .encode())
    }

    /// `zeEventCounterBasedOpenIpcHandle`: the event `handle` names (same flags; host scopes).
    pub fn counter_open_ipc(handle: &ze_ipc_event_counter_based_handle_t) -> ZeResult<EventObject> {
        type F = ze_event_counter_based_flags_t;
        let w = ipc::CounterWire::decode(handle)?;
        let fd = ipc::take_fd(&w.file)?;
        let counter = Arc::new(SharedCounter::open(fd).map_err(|e| {
            ZeError::new(
                ZE_RESULT_ERROR_INVALID_ARGUMENT,
                format!("mapping the IPC counter-based event: {e}"),
            )
        })?);
        let flags = F::from_bits_retain(w.flags);
        let timestamps = flags.intersects(F::DEVICE_TIMESTAMP) || flags.intersects(F::HOST_TIMESTAMP);
        let state = EventState::counter_based_shared(
            counter.clone(),
            timestamps,
            flags.intersects(F::GRAPH_EXTERNAL),
        );
        let host = ze_event_scope_flags_t::HOST;
        Ok(EventObject {
            source: Source::Counter {
                flags,
                shared: Some(counter),
                opened: true,
            },
            signal_scope: host,
            wait_scope: host,
            state: Arc::new(state),
            destroyed: AtomicBool::new(false),
        })
    }

    /// `zeEventCounterBasedCloseIpcHandle`: events opened from a handle only; as a destroy.
    pub fn counter_close_ipc(&self) -> ZeResult<()> {
        match &self.source {
            Source::Counter { opened: true, .. } => self.destroy(),
            _ => Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT,
                "the event was not opened from a counter-based IPC handle: destroy it with zeEventDestroy",
            )),
        }
    }

    /// Fails when the event's pool was destroyed.
    pub fn usable(&self) -> ZeResult<&Arc<EventState>> {
        if let Source::Pool { pool, .. } = &self.source {
            if !pool.alive.load(Ordering::Acquire) {
                return Err(ZeError::new(
                    ZE_RESULT_ERROR_INVALID_ARGUMENT,
                    "the event's pool was destroyed",
                ));
            }
        }
        Ok(&self.state)
    }

    fn regular(&self, what: &str) -> ZeResult<&Arc<EventState>> {
        let state = self.usable()?;
        if state.is_counter_based() {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT,
                format!("a counter-based event cannot be {what}"),
            ));
        }
        Ok(state)
    }

    /// The state a command of a `kind` list signals or waits on.
    pub fn for_list(&self, kind: ListKind) -> ZeResult<Arc<EventState>> {
        let state = self.usable()?;
        if let Source::Counter { flags, .. } = &self.source {
            type F = ze_event_counter_based_flags_t;
            let (needed, name) = match kind {
                ListKind::Immediate => (F::IMMEDIATE, "IMMEDIATE"),
                ListKind::Regular => (F::NON_IMMEDIATE, "NON_IMMEDIATE"),
            };
            if !flags.intersects(needed) {
                return Err(ZeError::new(
                    ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT,
                    format!("the counter-based event lacks the {name} flag this list needs"),
                ));
            }
        }
        Ok(state.clone())
    }

    /// The state `zeCommandListAppendSignalEvent` / `AppendEventReset` use (regular events).
    pub fn for_explicit(&self, kind: ListKind, what: &str) -> ZeResult<Arc<EventState>> {
        self.regular(what)?;
        self.for_list(kind)
    }

    /// `zeEventHostSignal`.
    pub fn host_signal(&self) -> ZeResult<()> {
        let t = now_ns();
        self.regular("signaled by the host")?.signal(t, t);
        Ok(())
    }

    /// `zeEventHostReset`.
    pub fn host_reset(&self) -> ZeResult<()> {
        self.regular("reset by the host")?.reset();
        Ok(())
    }

    /// `zeEventHostSynchronize`.
    pub fn host_synchronize(&self, timeout: u64) -> ZeResult<()> {
        super::graph::check_host_sync(self.usable()?)?;
        let state = self.usable()?;
        if state.host_wait(Timeout::from_ns(timeout)) {
            if state.is_lost() {
                return Err(super::objects::device_lost("the command that signals the event"));
            }
            Ok(())
        } else {
            Err(super::queue::not_ready("the event is", timeout))
        }
    }

    /// `zeEventQueryStatus`.
    pub fn query_status(&self) -> ZeResult<()> {
        super::graph::check_internal_use(self.usable()?, "zeEventQueryStatus")?;
        let state = self.usable()?;
        if state.is_complete() {
            if state.is_lost() {
                return Err(super::objects::device_lost("the command that signals the event"));
            }
            Ok(())
        } else {
            Err(ZeError::new(ZE_RESULT_NOT_READY, "the event is not signaled"))
        }
    }

    /// `(start, end)` of the command that completed it (kernel timestamp queries).
    pub fn kernel_timestamp(&self) -> ZeResult<(u64, u64)> {
        let state = self.usable()?;
        if !state.has_timestamps() {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT,
                "the event records no timestamps (pool without KERNEL_TIMESTAMP, or counter-based without a TIMESTAMP flag)",
            ));
        }
        state
            .timestamps()
            .ok_or_else(|| ZeError::new(ZE_RESULT_NOT_READY, "the event is not signaled"))
    }

    /// The state of an event whose timestamps a command will query.
    pub fn for_timestamp_query(&self) -> ZeResult<Arc<EventState>> {
        let state = self.usable()?;
        if !state.has_timestamps() {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT,
                "an event without timestamps cannot be queried for kernel timestamps",
            ));
        }
        Ok(state.clone())
    }

    /// `zeEventGetEventPool`: `None` for counter-based events.
    pub fn pool(&self) -> Option<Handle<kinds::EventPool>> {
        match &self.source {
            Source::Pool { handle, .. } => Some(*handle),
            Source::Counter { .. } => None,
        }
    }

    /// `zeEventGetSignalScope`.
    pub fn signal_scope(&self) -> ze_event_scope_flags_t {
        self.signal_scope
    }

    /// `zeEventGetWaitScope`.
    pub fn wait_scope(&self) -> ze_event_scope_flags_t {
        self.wait_scope
    }

    /// `zeEventGetCounterBasedFlags` (empty for events of a pool).
    pub fn counter_based_flags(&self) -> ze_event_counter_based_flags_t {
        match &self.source {
            Source::Counter { flags, .. } => *flags,
            Source::Pool { .. } => ze_event_counter_based_flags_t::empty(),
        }
    }

    /// `zeEventDestroy`: see the module docs. Frees the pool index.
    pub fn destroy(&self) -> ZeResult<()> {
        if self.state.awaited() {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE,
                "submitted work waits for this event and it is not signaled",
            ));
        }
        if self.destroyed.swap(true, Ordering::AcqRel) {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ARGUMENT,
                "the event was already destroyed",
            ));
        }
        if let Source::Pool { pool, index, .. } = &self.source {
            pool.free(*index);
        }
        Ok(())
    }
}

fn check_scopes(signal: ze_event_scope_flags_t, wait: ze_event_scope_flags_t) -> ZeResult<()> {
    for (what, s) in [("signal", signal), ("wait", wait)] {
        if s.0 & !ze_event_scope_flags_t::all_known().0 != 0 {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ENUMERATION,
                format!("unknown {what} scope flags {:#x}", s.0),
            ));
        }
    }
    Ok(())
}
