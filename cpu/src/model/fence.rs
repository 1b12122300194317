//! Fences: created on a queue, set when a submission that names them has run.
//!
//! | topic | behaviour |
//! |---|---|
//! | `zeFenceCreate(desc)` | `ZE_FENCE_FLAG_SIGNALED` creates it signaled; unknown flags `INVALID_ENUMERATION` |
//! | `zeCommandQueueExecuteCommandLists(.., hFence)` | a fence of another queue: `INVALID_SYNCHRONIZATION_OBJECT`; the fence is cleared at submission and set once the lists have run |
//! | `zeFenceHostSynchronize(timeout)`, `zeFenceQueryStatus` | `NOT_READY` while not signaled (after `timeout`); `DEVICE_LOST` once signaled if a command of the queue faulted |
//! | `zeFenceReset` | back to not signaled |
//! | `zeFenceDestroy` | always allowed: a submission still running keeps what it signals alive |

use std::sync::Arc;

use zekit_sys::*;

use super::objects::{device_lost, ZeError, ZeResult};
use crate::exec::{Flag, Helper, Timeout};

/// Value of a fence handle.
#[derive(Debug)]
pub struct FenceObject {
    queue: u64,
    state: Arc<Flag>,
    /// Lets an unbounded `zeFenceHostSynchronize` run the queue's queued work itself.
    helper: Option<Helper>,
}

impl FenceObject {
    /// A fence of queue `queue` (its id); `helper`: its engine's ([`crate::exec::Engine::helper`]).
    pub fn new(queue: u64, flags: ze_fence_flags_t, helper: Option<Helper>) -> ZeResult<FenceObject> {
        if flags.0 & !ze_fence_flags_t::all_known().0 != 0 {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ENUMERATION,
                format!("unknown fence flags {:#x}", flags.0),
            ));
        }
        Ok(FenceObject {
            queue,
            state: Arc::new(Flag::new(flags.intersects(ze_fence_flags_t::SIGNALED))),
            helper,
        })
    }

    /// The state a submission to queue `queue` sets, if the fence belongs to that queue.
    pub fn for_queue(&self, queue: u64) -> ZeResult<Arc<Flag>> {
        if self.queue != queue {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT,
                "hFence was created on another command queue",
            ));
        }
        Ok(self.state.clone())
    }

    /// `zeFenceHostSynchronize`.
    pub fn host_synchronize(&self, timeout: u64) -> ZeResult<()> {
        if let (Timeout::Forever, Some(h)) = (Timeout::from_ns(timeout), &self.helper) {
            h.help_until(|| self.state.is_set());
        }
        if self.state.wait(Timeout::from_ns(timeout)) {
            self.lost()
        } else {
            Err(super::queue::not_ready("the fence's submission is", timeout))
        }
    }

    fn lost(&self) -> ZeResult<()> {
        match &self.helper {
            Some(h) if h.is_lost() => Err(device_lost("a command of the fence's queue")),
            _ => Ok(()),
        }
    }

    /// `zeFenceQueryStatus`.
    pub fn query_status(&self) -> ZeResult<()> {
        if self.state.is_set() {
            self.lost()
        } else {
            Err(ZeError::new(ZE_RESULT_NOT_READY, "the fence is not signaled"))
        }
    }

    /// `zeFenceReset`.
    pub fn reset(&self) {
        self.state.clear();
    }
}
