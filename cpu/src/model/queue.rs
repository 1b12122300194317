//! Command queues: which descriptors are accepted, and the rules of executing command lists,
//! synchronizing and destroying.
//!
//! | topic | behaviour |
//! |---|---|
//! | `desc->ordinal` | a group of `zeDeviceGetCommandQueueGroupProperties` (0 compute, 1 copy), else `INVALID_ARGUMENT` |
//! | `desc->index` | below the group's `numQueues`, else `INVALID_ARGUMENT`; several queues may share an ordinal and index, each still gets a thread of its own |
//! | `desc->mode` | `DEFAULT` and `ASYNCHRONOUS`: submissions run on the queue's thread, `zeCommandQueueExecuteCommandLists` returns at once; `SYNCHRONOUS`: they run on the calling thread before it returns |
//! | `desc->priority`, `desc->flags` | every value accepted and reported back (`zeCommandQueueGetPriority`, `...GetFlags`); they change nothing: queues are in order and share the cores fairly |
//! | `zeCommandQueueExecuteCommandLists` | each list must be a closed regular list (an immediate list or an open list: `INVALID_ARGUMENT`) of the queue's ordinal (else `INVALID_COMMAND_LIST_TYPE`); a fence must be of this queue (else `INVALID_SYNCHRONIZATION_OBJECT`). Nothing is submitted unless every list is valid. The fence is cleared at submission and signaled when the lists have run |
//! | `zeCommandQueueSynchronize(timeout)` | waits for everything submitted before the call; `NOT_READY` when `timeout` expires first |
//! | `zeCommandQueueDestroy` | waits for the queue's work; when that work waits for an event that is not signaled (it could wait forever), the queue is not destroyed: `HANDLE_OBJECT_IN_USE` |

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use zekit_sys::*;

use super::objects::{ZeError, ZeResult};
use super::properties::command_queue_groups;
use crate::exec::{Engine, Flag, ListBody, Mode, Timeout, Work, WorkerPool};
use crate::host::HostInfo;

/// What a command queue descriptor asks for (also an immediate list's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueConfig {
    /// Queue group ordinal.
    pub ordinal: u32,
    /// Queue index in the group.
    pub index: u32,
    /// Flags, as given.
    pub flags: ze_command_queue_flags_t,
    /// Mode, as given.
    pub mode: ze_command_queue_mode_t,
    /// Priority, as given.
    pub priority: ze_command_queue_priority_t,
}

impl QueueConfig {
    /// Checks a queue descriptor against the device's queue groups.
    pub fn new(
        host: &HostInfo,
        ordinal: u32,
        index: u32,
        flags: ze_command_queue_flags_t,
        mode: ze_command_queue_mode_t,
        priority: ze_command_queue_priority_t,
    ) -> ZeResult<QueueConfig> {
        check_ordinal(host, ordinal)?;
        let groups = command_queue_groups(host);
        let group = &groups[ordinal as usize];
        if index >= group.num_queues {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ARGUMENT,
                format!(
                    "queue index {index}: command queue group {ordinal} has {} queue(s)",
                    group.num_queues
                ),
            ));
        }
        if flags.0 & !ze_command_queue_flags_t::all_known().0 != 0 {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ENUMERATION,
                format!("unknown command queue flags {:#x}", flags.0),
            ));
        }
        if mode.0 > ze_command_queue_mode_t::ASYNCHRONOUS.0 {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ENUMERATION,
                format!("unknown command queue mode {}", mode.0),
            ));
        }
        if priority.0 > ze_command_queue_priority_t::PRIORITY_HIGH.0 {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ENUMERATION,
                format!("unknown command queue priority {}", priority.0),
            ));
        }
        Ok(QueueConfig {
            ordinal,
            index,
            flags,
            mode,
            priority,
        })
    }

    /// How its engine runs submissions.
    pub fn engine_mode(&self) -> Mode {
        if self.mode == ze_command_queue_mode_t::SYNCHRONOUS {
            Mode::Inline
        } else {
            Mode::Threaded
        }
    }
}

/// A command queue group ordinal must name a group of the device.
pub fn check_ordinal(host: &HostInfo, ordinal: u32) -> ZeResult<()> {
    let n = command_queue_groups(host).len();
    if ordinal as usize >= n {
        return Err(ZeError::new(
            ZE_RESULT_ERROR_INVALID_ARGUMENT,
            format!("command queue group ordinal {ordinal}: the device has {n} groups"),
        ));
    }
    Ok(())
}

/// A new engine, its thread started (`OUT_OF_HOST_MEMORY` when no thread can be made).
pub fn new_engine(
    device: usize,
    context: u64,
    config: &QueueConfig,
    pool: Arc<WorkerPool>,
) -> ZeResult<Engine> {
    Engine::new(device, context, config.engine_mode(), pool).map_err(|e| {
        ZeError::new(
            ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY,
            format!("cannot start the queue's thread: {e}"),
        )
    })
}

/// `NOT_READY` after a wait of `timeout` ns.
pub fn not_ready(what: &str, timeout: u64) -> ZeError {
    ZeError::new(
        ZE_RESULT_NOT_READY,
        format!("{what} not done within the timeout ({timeout} ns)"),
    )
}

/// Destroying something whose engine is parked on an event.
pub fn in_use(what: &str) -> ZeError {
    ZeError::new(
        ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE,
        format!("{what} still has work that waits for an event that is not signaled; signal it or synchronize first"),
    )
}

static NEXT_QUEUE_ID: AtomicU64 = AtomicU64::new(1);

/// Value of a command queue handle.
#[derive(Debug)]
pub struct QueueObject {
    id: u64,
    device: usize,
    config: QueueConfig,
    engine: Engine,
}

impl QueueObject {
    /// A queue of device `device` (ordinal) in context `context` (its id), its thread started.
    pub fn new(
        device: usize,
        context: u64,
        config: QueueConfig,
        pool: Arc<WorkerPool>,
    ) -> ZeResult<QueueObject> {
        Ok(QueueObject {
            id: NEXT_QUEUE_ID.fetch_add(1, Ordering::Relaxed),
            device,
            engine: new_engine(device, context, &config, pool)?,
            config,
        })
    }

    /// What lets a host waiting for its work run it (its fences').
    pub fn helper(&self) -> crate::exec::Helper {
        self.engine.helper()
    }

    /// Unique in the process (what fences name).
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Device ordinal.
    pub fn device(&self) -> usize {
        self.device
    }

    /// What it was created with.
    pub fn config(&self) -> &QueueConfig {
        &self.config
    }

    /// `zeCommandQueueExecuteCommandLists` once the lists and fence are checked
    /// ([`super::list::ListObject::executable`], [`super::fence::FenceObject::for_queue`]).
    pub fn execute(&self, lists: Vec<Arc<ListBody>>, fence: Option<Arc<Flag>>) {
        self.engine.submit(Work::Lists(lists), fence);
    }

    /// `zeCommandQueueSynchronize`.
    pub fn synchronize(&self, timeout: u64) -> ZeResult<()> {
        if self.engine.synchronize(Timeout::from_ns(timeout)) {
            if self.engine.is_lost() {
                return Err(super::objects::device_lost("a command of the queue"));
            }
            Ok(())
        } else {
            Err(not_ready("the command queue's work is", timeout))
        }
    }

    /// `zeCommandQueueDestroy`: see the module docs.
    pub fn destroy(&self) -> ZeResult<()> {
        self.engine.drain().map_err(|_| in_use("the command queue"))
    }
}
