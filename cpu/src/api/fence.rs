//! FenceApi: Fences (see `crate::model::fence`).

use super::*;

#[zekit_icd::implement]
impl FenceApi for CpuDriver {
    fn ze_fence_create(
        &self,
        h_command_queue: Handle<kinds::CommandQueue>,
        desc: &ze_fence_desc_t,
        ph_fence: &mut Option<Handle<kinds::Fence>>,
    ) -> ZeResult<()> {
        let q = queue(h_command_queue)?;
        *ph_fence = Some(Handle::new(FenceObject::new(q.id(), desc.flags, Some(q.helper()))?));
        Ok(())
    }

    fn ze_fence_destroy(&self, h_fence: Handle<kinds::Fence>) -> ZeResult<()> {
        // `[release]`: the entry layer takes the handle out once this returns Ok.
        fence(h_fence)?;
        Ok(())
    }

    fn ze_fence_host_synchronize(&self, h_fence: Handle<kinds::Fence>, timeout: u64) -> ZeResult<()> {
        fence(h_fence)?.host_synchronize(timeout)
    }

    fn ze_fence_query_status(&self, h_fence: Handle<kinds::Fence>) -> ZeResult<()> {
        fence(h_fence)?.query_status()
    }

    fn ze_fence_reset(&self, h_fence: Handle<kinds::Fence>) -> ZeResult<()> {
        fence(h_fence)?.reset();
        Ok(())
    }
}
