//! CommandQueueApi: Command queues (see `crate::model::queue`).

use super::*;

#[zekit_icd::implement]
impl CommandQueueApi for CpuDriver {
    fn ze_command_queue_create(
        &self,
        h_context: Handle<kinds::Context>,
        h_device: Handle<kinds::Device>,
        desc: &ze_command_queue_desc_t,
        ph_command_queue: &mut Option<Handle<kinds::CommandQueue>>,
    ) -> ZeResult<()> {
        let ctx_id = context(h_context)?.id();
        let device = ordinal(h_device)?;
        let config = QueueConfig::new(
            self.host,
            desc.ordinal,
            desc.index,
            desc.flags,
            desc.mode,
            desc.priority,
        )?;
        let q = QueueObject::new(device, ctx_id, config, self.pool())?;
        *ph_command_queue = Some(Handle::new(q));
        Ok(())
    }

    fn ze_command_queue_destroy(&self, h_command_queue: Handle<kinds::CommandQueue>) -> ZeResult<()> {
        // `[release]`: the entry layer takes the handle out once this returns Ok.
        queue(h_command_queue)?.destroy()
    }

    fn ze_command_queue_execute_command_lists(
        &self,
        h_command_queue: Handle<kinds::CommandQueue>,
        _num_command_lists: u32,
        ph_command_lists: &[Handle<kinds::CommandList>],
        h_fence: Option<Handle<kinds::Fence>>,
    ) -> ZeResult<()> {
        let q = queue(h_command_queue)?;
        let ordinal = q.config().ordinal;
        let bodies = ph_command_lists
            .iter()
            .map(|&h| list(h)?.executable(ordinal))
            .collect::<ZeResult<Vec<_>>>()?;
        let fence = match h_fence {
            Some(h) => Some(fence(h)?.for_queue(q.id())?),
            None => None,
        };
        q.execute(bodies, fence);
        Ok(())
    }

    fn ze_command_queue_synchronize(
        &self,
        h_command_queue: Handle<kinds::CommandQueue>,
        timeout: u64,
    ) -> ZeResult<()> {
        queue(h_command_queue)?.synchronize(timeout)
    }

    fn ze_command_queue_get_ordinal(
        &self,
        h_command_queue: Handle<kinds::CommandQueue>,
        p_ordinal: &mut u32,
    ) -> ZeResult<()> {
        *p_ordinal = queue(h_command_queue)?.config().ordinal;
        Ok(())
    }

    fn ze_command_queue_get_index(
        &self,
        h_command_queue: Handle<kinds::CommandQueue>,
        p_index: &mut u32,
    ) -> ZeResult<()> {
        *p_index = queue(h_command_queue)?.config().index;
        Ok(())
    }

    fn ze_command_queue_get_flags(
        &self,
        h_cmd_queue: Handle<kinds::CommandQueue>,
        p_flags: &mut ze_command_queue_flags_t,
    ) -> ZeResult<()> {
        *p_flags = queue(h_cmd_queue)?.config().flags;
        Ok(())
    }

    fn ze_command_queue_get_mode(
        &self,
        h_cmd_queue: Handle<kinds::CommandQueue>,
        p_mode: &mut ze_command_queue_mode_t,
    ) -> ZeResult<()> {
        *p_mode = queue(h_cmd_queue)?.config().mode;
        Ok(())
    }

    fn ze_command_queue_get_priority(
        &self,
        h_cmd_queue: Handle<kinds::CommandQueue>,
        p_priority: &mut ze_command_queue_priority_t,
    ) -> ZeResult<()> {
        *p_priority = queue(h_cmd_queue)?.config().priority;
        Ok(())
    }
}
