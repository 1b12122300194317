//! `ZerGlobalApi`: the runtime functions (last error, device identifiers, default context).

use std::ffi::c_char;

use zekit_icd::{kinds, Handle, ZeError, ZeResult, ZerGlobalApi};
use zekit_icd_rt::fail;

use super::MockDriver;

#[zekit_icd::implement]
impl ZerGlobalApi for MockDriver {
    fn zer_get_last_error_description(&self, pp_string: &mut *const c_char) -> ZeResult<()> {
        *pp_string = zekit_icd_rt::last_error_ptr();
        Ok(())
    }

    fn zer_translate_device_handle_to_identifier(
        &self,
        h_device: Handle<kinds::Device>,
    ) -> ZeResult<u32> {
        // The only device is number 0.
        self.check_device(h_device).map(|()| 0)
    }

    fn zer_translate_identifier_to_device_handle(
        &self,
        identifier: u32,
    ) -> ZeResult<Handle<kinds::Device>> {
        if identifier == 0 {
            Ok(self.device_handle())
        } else {
            Err(fail(
                ZeError::INVALID_ARGUMENT,
                format_args!("no device {identifier} (the mock has device 0)"),
            ))
        }
    }

    fn zer_get_default_context(&self) -> ZeResult<Handle<kinds::Context>> {
        Ok(self.default_context())
    }
}
