//! `EventPoolApi`: pools of host-visible events.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use zekit_icd::{kinds, EventPoolApi, Handle, ZeError, ZeResult};
use zekit_icd_rt::fail;
use zekit_sys::*;

use super::MockDriver;
use crate::objects::{PoolObj, PoolShared};

#[zekit_icd::implement]
impl EventPoolApi for MockDriver {
    fn ze_event_pool_create(
        &self,
        h_context: Handle<kinds::Context>,
        desc: &ze_event_pool_desc_t,
        _num_devices: u32,
        ph_devices: &[Handle<kinds::Device>],
        ph_event_pool: &mut Option<Handle<kinds::EventPool>>,
    ) -> ZeResult<()> {
        Self::context_id(h_context)?;
        for d in ph_devices {
            self.check_device(*d)?;
        }
        if desc.count == 0 {
            return Err(fail(ZeError::INVALID_SIZE, "desc->count is 0"));
        }
        *ph_event_pool = Some(Handle::new(PoolObj {
            context: h_context,
            shared: Arc::new(PoolShared {
                flags: desc.flags,
                count: desc.count,
                live: AtomicUsize::new(0),
            }),
        }));
        Ok(())
    }

    /// Refuses while events of the pool live; the generated layer releases the handle on
    /// success.
    fn ze_event_pool_destroy(&self, h: Handle<kinds::EventPool>) -> ZeResult<()> {
        let live = h.get::<PoolObj>()?.shared.live.load(Ordering::Acquire);
        if live > 0 {
            return Err(fail(
                ZeError::HANDLE_OBJECT_IN_USE,
                format_args!("{live} events of the pool are not destroyed"),
            ));
        }
        Ok(())
    }

    fn ze_event_pool_get_flags(
        &self,
        h: Handle<kinds::EventPool>,
        p_flags: &mut ze_event_pool_flags_t,
    ) -> ZeResult<()> {
        *p_flags = h.get::<PoolObj>()?.shared.flags;
        Ok(())
    }

    fn ze_event_pool_get_context_handle(
        &self,
        h: Handle<kinds::EventPool>,
        ph_context: &mut Option<Handle<kinds::Context>>,
    ) -> ZeResult<()> {
        *ph_context = Some(h.get::<PoolObj>()?.context);
        Ok(())
    }
}
