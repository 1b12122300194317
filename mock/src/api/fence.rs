//! `FenceApi`: fences signaled when the last command list of their execution has run.

use std::sync::Arc;

use zekit_icd::{kinds, FenceApi, Handle, ZeResult};
use zekit_sys::*;

use super::{not_ready, MockDriver};
use crate::objects::{engine, FenceObj, FenceState, QueueObj};

#[zekit_icd::implement]
impl FenceApi for MockDriver {
    fn ze_fence_create(
        &self,
        h_queue: Handle<kinds::CommandQueue>,
        desc: &ze_fence_desc_t,
        ph_fence: &mut Option<Handle<kinds::Fence>>,
    ) -> ZeResult<()> {
        let q = h_queue.get::<QueueObj>()?;
        let state = Arc::new(FenceState::default());
        if desc.flags.contains(ZE_FENCE_FLAG_SIGNALED) {
            engine().signal_fence(&state);
        }
        *ph_fence = Some(Handle::new(FenceObj {
            queue_id: q.id,
            state,
        }));
        Ok(())
    }

    /// The generated layer releases the handle on success.
    fn ze_fence_destroy(&self, h: Handle<kinds::Fence>) -> ZeResult<()> {
        h.get::<FenceObj>().map(|_| ())
    }

    fn ze_fence_host_synchronize(&self, h: Handle<kinds::Fence>, timeout: u64) -> ZeResult<()> {
        let f = h.get::<FenceObj>()?.state.clone();
        engine().wait("zeFenceHostSynchronize", timeout, |_| f.is_signaled())
    }

    fn ze_fence_query_status(&self, h: Handle<kinds::Fence>) -> ZeResult<()> {
        if h.get::<FenceObj>()?.state.is_signaled() {
            Ok(())
        } else {
            Err(not_ready())
        }
    }

    fn ze_fence_reset(&self, h: Handle<kinds::Fence>) -> ZeResult<()> {
        engine().reset_fence(&h.get::<FenceObj>()?.state);
        Ok(())
    }
}
