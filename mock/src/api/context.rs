//! `ContextApi`: create, create-ex, destroy (the context's allocations go with it), status.

use zekit_icd::{kinds, ContextApi, Handle, ZeError, ZeResult};
use zekit_icd_rt::fail;
use zekit_sys::*;

use super::MockDriver;
use crate::objects::{next_id, ContextObj};

#[zekit_icd::implement]
impl ContextApi for MockDriver {
    fn ze_context_create(
        &self,
        h_driver: Handle<kinds::Driver>,
        _desc: &ze_context_desc_t,
        ph_context: &mut Option<Handle<kinds::Context>>,
    ) -> ZeResult<()> {
        self.check_driver(h_driver)?;
        *ph_context = Some(Handle::new(ContextObj { id: next_id() }));
        Ok(())
    }

    fn ze_context_create_ex(
        &self,
        h_driver: Handle<kinds::Driver>,
        _desc: &ze_context_desc_t,
        _num_devices: u32,
        ph_devices: &[Handle<kinds::Device>],
        ph_context: &mut Option<Handle<kinds::Context>>,
    ) -> ZeResult<()> {
        self.check_driver(h_driver)?;
        for d in ph_devices {
            self.check_device(*d)?;
        }
        *ph_context = Some(Handle::new(ContextObj { id: next_id() }));
        Ok(())
    }

    /// The generated layer releases the handle on success; the context's allocations are
    /// freed when the object drops (`ContextObj`'s `Drop`).
    fn ze_context_destroy(&self, h_context: Handle<kinds::Context>) -> ZeResult<()> {
        Self::context_id(h_context)?;
        if self.default_context.get() == Some(&h_context) {
            return Err(fail(
                ZeError::INVALID_ARGUMENT,
                "the driver's default context is not destroyed by the application",
            ));
        }
        Ok(())
    }

    fn ze_context_get_status(&self, h_context: Handle<kinds::Context>) -> ZeResult<()> {
        Self::context_id(h_context).map(|_| ())
    }
}
