//! EventPoolApi: Event pools (see `crate::model::event`).

use super::*;

#[zekit_icd::implement]
impl EventPoolApi for CpuDriver {
    fn ze_event_pool_create(
        &self,
        h_context: Handle<kinds::Context>,
        desc: &ze_event_pool_desc_t,
        _num_devices: u32,
        ph_devices: &[Handle<kinds::Device>],
        ph_event_pool: &mut Option<Handle<kinds::EventPool>>,
    ) -> ZeResult<()> {
        context(h_context)?;
        for &d in ph_devices {
            ordinal(d)?;
        }
        let pool = EventPoolObject::new(h_context, desc.flags, desc.count)?;
        *ph_event_pool = Some(Handle::new(pool));
        Ok(())
    }

    fn ze_event_pool_destroy(&self, h_event_pool: Handle<kinds::EventPool>) -> ZeResult<()> {
        // `[release]`: the entry layer takes the handle out once this returns Ok.
        event_pool(h_event_pool)?.destroy()
    }

    fn ze_event_pool_get_context_handle(
        &self,
        h_event_pool: Handle<kinds::EventPool>,
        ph_context: &mut Option<Handle<kinds::Context>>,
    ) -> ZeResult<()> {
        *ph_context = Some(event_pool(h_event_pool)?.context());
        Ok(())
    }

    fn ze_event_pool_get_flags(
        &self,
        h_event_pool: Handle<kinds::EventPool>,
        p_flags: &mut ze_event_pool_flags_t,
    ) -> ZeResult<()> {
        *p_flags = event_pool(h_event_pool)?.flags();
        Ok(())
    }

    fn ze_event_pool_get_ipc_handle(
        &self,
        h_event_pool: Handle<kinds::EventPool>,
        ph_ipc: &mut ze_ipc_event_pool_handle_t,
    ) -> ZeResult<()> {
        *ph_ipc = event_pool(h_event_pool)?.ipc_handle()?;
        Ok(())
    }

    fn ze_event_pool_put_ipc_handle(
        &self,
        h_context: Handle<kinds::Context>,
        h_ipc: ze_ipc_event_pool_handle_t,
    ) -> ZeResult<()> {
        // The handle owns nothing (the pool's shared memory lives with the pool): only checked.
        context(h_context)?;
        crate::model::ipc::PoolWire::decode(&h_ipc)?;
        Ok(())
    }

    fn ze_event_pool_open_ipc_handle(
        &self,
        h_context: Handle<kinds::Context>,
        h_ipc: ze_ipc_event_pool_handle_t,
        ph_event_pool: &mut Option<Handle<kinds::EventPool>>,
    ) -> ZeResult<()> {
        context(h_context)?;
        let pool = EventPoolObject::open_ipc(h_context, &h_ipc)?;
        *ph_event_pool = Some(Handle::new(pool));
        Ok(())
    }

    fn ze_event_pool_close_ipc_handle(
        &self,
        h_event_pool: Handle<kinds::EventPool>,
    ) -> ZeResult<()> {
        // `[release]`: the entry layer takes the handle out once this returns Ok.
        event_pool(h_event_pool)?.close_ipc()
    }
}
