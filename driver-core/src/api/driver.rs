//! DriverApi: The driver: its handle, version, properties, extensions and last error.

use super::*;

#[zekit_icd::implement]
impl DriverApi for CpuDriver {
    fn ze_driver_get(
        &self,
        p_count: &mut u32,
        ph_drivers: Option<&mut [Option<Handle<kinds::Driver>>]>,
    ) -> ZeResult<()> {
        let n = self.init.reported_drivers()?;
        let drivers = [self.driver_handle()];
        fill_handles(&drivers[..n as usize], p_count, ph_drivers);
        Ok(())
    }

    fn ze_driver_get_api_version(
        &self,
        h_driver: Handle<kinds::Driver>,
        version: &mut ze_api_version_t,
    ) -> ZeResult<()> {
        check_driver(h_driver)?;
        *version = api_version();
        Ok(())
    }

    fn ze_driver_get_properties(
        &self,
        h_driver: Handle<kinds::Driver>,
        p: &mut ze_driver_properties_t,
    ) -> ZeResult<()> {
        check_driver(h_driver)?;
        p.uuid = ze_driver_uuid_t {
            id: driver_uuid(self.host),
        };
        p.driverVersion = driver_version();
        use chain::ZeDriverPropertiesNextMut as N;
        // SAFETY: the application's pNext chain of output structures, ours for this call.
        for ext in unsafe { chain::next_of_ze_driver_properties_t_mut(p.pNext) } {
            match ext {
                N::DriverDdiHandlesExtProperties(e) => {
                    e.flags = ze_driver_ddi_handle_ext_flags_t::DDI_HANDLE_EXT_SUPPORTED
                }
                N::DriverMemoryFreeExtProperties(e) => e.freePolicies = SUPPORTED_FREE_POLICIES,
                _ => {}
            }
        }
        Ok(())
    }

    fn ze_driver_get_ipc_properties(
        &self,
        h_driver: Handle<kinds::Driver>,
        p: &mut ze_driver_ipc_properties_t,
    ) -> ZeResult<()> {
        check_driver(h_driver)?;
        p.flags = ze_ipc_property_flags_t::empty();
        Ok(())
    }

    fn ze_driver_get_extension_properties(
        &self,
        h_driver: Handle<kinds::Driver>,
        p_count: &mut u32,
        out: Option<&mut [ze_driver_extension_properties_t]>,
    ) -> ZeResult<()> {
        check_driver(h_driver)?;
        props::fill_counted(EXTENSIONS, p_count, out, |e, d| {
            props::write_c_string(&mut d.name, e.name);
            d.version = e.version;
        });
        Ok(())
    }

    fn ze_driver_get_extension_function_address(
        &self,
        h_driver: Handle<kinds::Driver>,
        name: &CStr,
        pp_function_address: &mut *mut c_void,
    ) -> ZeResult<()> {
        check_driver(h_driver)?;
        let address = match name.to_bytes() {
            b"zeMemFreeExt" => {
                let f: ze_pfnMemFreeExt_t = Some(zekit_icd::entry::zeMemFreeExt);
                f.map(|f| f as *mut c_void)
            }
            _ => None,
        };
        let Some(address) = address else {
            return Err(zekit_rt::fail(ZeError::INVALID_ARGUMENT,
                format!(
                    "{name:?} is not an extension function of this driver (known: {})",
                    EXTENSION_FUNCTIONS.join(", ")
                ),
            ));
        };
        *pp_function_address = address;
        Ok(())
    }

    fn ze_driver_get_last_error_description(
        &self,
        h_driver: Handle<kinds::Driver>,
        pp_string: &mut *const c_char,
    ) -> ZeResult<()> {
        check_driver(h_driver)?;
        *pp_string = zekit_rt::last_error_ptr();
        Ok(())
    }
}
