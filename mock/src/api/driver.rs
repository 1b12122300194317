//! `DriverApi`: discovery, API version, properties, extensions, the last error, the default
//! context.

use std::ffi::{c_char, c_void, CStr};

use zekit_icd::{kinds, DriverApi, Handle, ZeError, ZeResult};
use zekit_icd_rt::conv::counted;
use zekit_icd_rt::fail;
use zekit_sys::*;

use super::{driver_version, MockDriver, DRIVER_UUID, EXTENSIONS};

#[zekit_icd::implement]
impl DriverApi for MockDriver {
    fn ze_driver_get(
        &self,
        p_count: &mut u32,
        ph_drivers: Option<&mut [Option<Handle<kinds::Driver>>]>,
    ) -> ZeResult<()> {
        counted(p_count, ph_drivers, 1, |out| {
            out[0] = Some(self.driver_handle());
            1
        });
        Ok(())
    }

    fn ze_driver_get_api_version(
        &self,
        h_driver: Handle<kinds::Driver>,
        version: &mut ze_api_version_t,
    ) -> ZeResult<()> {
        self.check_driver(h_driver)?;
        *version = ZE_API_VERSION_CURRENT;
        Ok(())
    }

    fn ze_driver_get_properties(
        &self,
        h_driver: Handle<kinds::Driver>,
        p: &mut ze_driver_properties_t,
    ) -> ZeResult<()> {
        self.check_driver(h_driver)?;
        p.uuid.id = DRIVER_UUID;
        p.driverVersion = driver_version();
        use zekit_sys::chain::{self, ZeDriverPropertiesNextMut as N};
        // SAFETY: the application's pNext chain of output structures, ours for this call.
        for ext in unsafe { chain::next_of_ze_driver_properties_t_mut(p.pNext) } {
            if let N::DriverDdiHandlesExtProperties(d) = ext {
                d.flags = ZE_DRIVER_DDI_HANDLE_EXT_FLAG_DDI_HANDLE_EXT_SUPPORTED.into();
            }
        }
        Ok(())
    }

    fn ze_driver_get_ipc_properties(
        &self,
        h_driver: Handle<kinds::Driver>,
        p: &mut ze_driver_ipc_properties_t,
    ) -> ZeResult<()> {
        self.check_driver(h_driver)?;
        // No IPC: allocations are process-local host memory.
        p.flags = ze_ipc_property_flags_t::empty();
        Ok(())
    }

    fn ze_driver_get_extension_properties(
        &self,
        h_driver: Handle<kinds::Driver>,
        p_count: &mut u32,
        out: Option<&mut [ze_driver_extension_properties_t]>,
    ) -> ZeResult<()> {
        self.check_driver(h_driver)?;
        counted(p_count, out, EXTENSIONS.len() as u32, |out| {
            for (o, (name, version)) in out.iter_mut().zip(EXTENSIONS) {
                crate::profile::write_c_str(&mut o.name, name);
                o.version = *version;
            }
            out.len() as u32
        });
        Ok(())
    }

    fn ze_driver_get_extension_function_address(
        &self,
        h_driver: Handle<kinds::Driver>,
        name: &CStr,
        _pp_function_address: &mut *mut c_void,
    ) -> ZeResult<()> {
        self.check_driver(h_driver)?;
        Err(fail(
            ZeError::INVALID_ARGUMENT,
            format_args!(
                "the mock has no extension function `{}`",
                name.to_string_lossy()
            ),
        ))
    }

    fn ze_driver_get_last_error_description(
        &self,
        h_driver: Handle<kinds::Driver>,
        pp_string: &mut *const c_char,
    ) -> ZeResult<()> {
        self.check_driver(h_driver)?;
        *pp_string = zekit_icd_rt::last_error_ptr();
        Ok(())
    }

    fn ze_driver_get_default_context(
        &self,
        h_driver: Handle<kinds::Driver>,
    ) -> ZeResult<Handle<kinds::Context>> {
        self.check_driver(h_driver)?;
        Ok(self.default_context())
    }
}
