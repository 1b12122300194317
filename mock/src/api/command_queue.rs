//! `CommandQueueApi`: queues of the profile's groups; executing closed command lists runs them
//! (see [`crate::objects`]); synchronize honours the wait limit.

use zekit_icd::{kinds, CommandQueueApi, Handle, ZeError, ZeResult};
use zekit_icd_rt::fail;
use zekit_sys::*;

use super::MockDriver;
use crate::objects::*;

#[zekit_icd::implement]
impl CommandQueueApi for MockDriver {
    fn ze_command_queue_create(
        &self,
        h_context: Handle<kinds::Context>,
        h_device: Handle<kinds::Device>,
        desc: &ze_command_queue_desc_t,
        ph_command_queue: &mut Option<Handle<kinds::CommandQueue>>,
    ) -> ZeResult<()> {
        Self::context_id(h_context)?;
        self.check_device(h_device)?;
        self.queue_group(desc.ordinal, Some(desc.index))?;
        *ph_command_queue = Some(Handle::new(QueueObj {
            id: next_id(),
            ordinal: desc.ordinal,
            index: desc.index,
            mode: desc.mode,
        }));
        Ok(())
    }

    /// The generated layer releases the handle on success; the queue's pending work is
    /// dropped with the object (`QueueObj`'s `Drop`).
    fn ze_command_queue_destroy(&self, h: Handle<kinds::CommandQueue>) -> ZeResult<()> {
        h.get::<QueueObj>().map(|_| ())
    }

    fn ze_command_queue_execute_command_lists(
        &self,
        h: Handle<kinds::CommandQueue>,
        _num_command_lists: u32,
        ph_command_lists: &[Handle<kinds::CommandList>],
        h_fence: Option<Handle<kinds::Fence>>,
    ) -> ZeResult<()> {
        const F: &str = "zeCommandQueueExecuteCommandLists";
        let q = h.get::<QueueObj>()?;
        if ph_command_lists.is_empty() {
            return Err(fail(ZeError::INVALID_SIZE, "numCommandLists is 0"));
        }
        let fence = match h_fence {
            Some(f) => {
                let f = f.get::<FenceObj>()?;
                if f.queue_id != q.id {
                    return Err(fail(
                        ZeError::of(ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT),
                        "the fence belongs to another command queue",
                    ));
                }
                Some(f.state.clone())
            }
            None => None,
        };
        let mut batches = Vec::with_capacity(ph_command_lists.len());
        for (i, lh) in ph_command_lists.iter().enumerate() {
            let l = lh.get::<ListObj>()?;
            if l.immediate.is_some() {
                return Err(fail(
                    ZeError::of(ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE),
                    format_args!("phCommandLists[{i}] is an immediate command list"),
                ));
            }
            if l.ordinal != q.ordinal {
                return Err(fail(
                    ZeError::of(ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE),
                    format_args!(
                        "phCommandLists[{i}] was created for queue group {}, the queue is of group {}",
                        l.ordinal, q.ordinal
                    ),
                ));
            }
            let st = lock(&l.state);
            match (&st.frozen, st.closed) {
                (Some(cmds), true) => batches.push(Batch {
                    cmds: cmds.clone(),
                    pos: 0,
                    fence: None,
                }),
                _ => {
                    return Err(fail(
                        ZeError::INVALID_ARGUMENT,
                        format_args!("phCommandLists[{i}] is not closed"),
                    ))
                }
            }
        }
        if let Some(last) = batches.last_mut() {
            last.fence = fence;
        }
        // A kernel callback that panicked: every command still ran; the call says so.
        let ran = engine().submit(q.id, batches);
        if q.mode == ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS {
            let id = q.id;
            engine().wait(F, u64::MAX, |s| s.idle(id))?;
        }
        ran
    }

    fn ze_command_queue_synchronize(
        &self,
        h: Handle<kinds::CommandQueue>,
        timeout: u64,
    ) -> ZeResult<()> {
        let id = h.get::<QueueObj>()?.id;
        engine().wait("zeCommandQueueSynchronize", timeout, |s| s.idle(id))
    }

    fn ze_command_queue_get_ordinal(
        &self,
        h: Handle<kinds::CommandQueue>,
        p_ordinal: &mut u32,
    ) -> ZeResult<()> {
        *p_ordinal = h.get::<QueueObj>()?.ordinal;
        Ok(())
    }

    fn ze_command_queue_get_index(
        &self,
        h: Handle<kinds::CommandQueue>,
        p_index: &mut u32,
    ) -> ZeResult<()> {
        *p_index = h.get::<QueueObj>()?.index;
        Ok(())
    }
}
