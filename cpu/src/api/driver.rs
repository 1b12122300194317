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
        // Memory handles: every allocation and physical object is a memfd (`crate::model::ipc`);
        // event pools: the events of an IPC pool live in shared memory (`crate::exec::ipc_events`).
        p.flags = ze_ipc_property_flags_t(
            ze_ipc_property_flags_t::MEMORY.0 | ze_ipc_property_flags_t::EVENT_POOL.0,
        );
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
        let found = name
            .to_str()
            .ok()
            .and_then(|n| functions_by_name().get(n).copied());
        let Some(address) = found else {
            return Err(zekit_icd_rt::fail(
                ZeError::INVALID_ARGUMENT,
                format!(
                    "{name:?} is not a function this driver implements beyond API {}.{} nor one of its extension functions",
                    LOADER_API_VERSION.0, LOADER_API_VERSION.1
                ),
            ));
        };
        *pp_function_address = address as *mut c_void;
        Ok(())
    }

    fn ze_driver_get_last_error_description(
        &self,
        h_driver: Handle<kinds::Driver>,
        pp_string: &mut *const c_char,
    ) -> ZeResult<()> {
        check_driver(h_driver)?;
        *pp_string = zekit_icd_rt::last_error_ptr();
        Ok(())
    }
}

// The `*_dditable_driver_t` of each namespace is `{ version: u32, isValidFlag: u8, tables... }`
// with one table pointer per `DdiTableInfo` of `zekit_sys::DDI_TABLES`, in that order; and each
// table is one function pointer per `DdiEntry`, in slot order. Checked here, relied on below.
const _: () = {
    use std::mem::{offset_of, size_of};
    const P: usize = size_of::<*const c_void>();
    assert!(offset_of!(ze_dditable_driver_t, RTASBuilder) == 8);
    assert!(size_of::<ze_dditable_driver_t>() == 8 + P * ZE_DDI_TABLES.len());
    assert!(offset_of!(zet_dditable_driver_t, MetricProgrammableExp) == 8);
    assert!(size_of::<zet_dditable_driver_t>() == 8 + P * ZET_DDI_TABLES.len());
    assert!(offset_of!(zes_dditable_driver_t, Global) == 8);
    assert!(size_of::<zes_dditable_driver_t>() == 8 + P * ZES_DDI_TABLES.len());
    assert!(offset_of!(zer_dditable_driver_t, Global) == 8);
    assert!(size_of::<zer_dditable_driver_t>() == 8 + P * ZER_DDI_TABLES.len());
    assert!(DDI_TABLES.len() == 4);
};

/// Name → entry point of every function `zeDriverGetExtensionFunctionAddress` resolves
/// ([`resolves_by_name`] and implemented by this driver). The addresses are what the driver's
/// own `zeGet*ProcAddrTable`s hand out at the current API version (`zekit_icd::ddi`, called
/// once here), each slot named by `zekit_sys::DDI_TABLES`.
fn functions_by_name() -> &'static std::collections::HashMap<&'static str, usize> {
    static TABLE: OnceLock<std::collections::HashMap<&'static str, usize>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let implemented = own_dispatch();
        // [core, tools, sysman, runtime] `*_dditable_driver_t`, in `DDI_TABLES` order.
        let drivers = zekit_icd::ddi::handle_tables();
        let mut map = std::collections::HashMap::new();
        for (&driver, (_, tables)) in drivers.iter().zip(DDI_TABLES) {
            for (i, info) in tables.iter().enumerate() {
                if info.size != info.entries.len() * std::mem::size_of::<usize>() {
                    continue;
                }
                // SAFETY: the layout checked above: the table pointers start at byte 8.
                let table = unsafe { *driver.cast::<u8>().add(8).cast::<*const usize>().add(i) };
                if table.is_null() {
                    continue;
                }
                for e in info.entries {
                    if !resolves_by_name(e.name, e.since) || !implemented.implements_function(e.name) {
                        continue;
                    }
                    // SAFETY: the table holds one pointer-sized entry per slot.
                    let address = unsafe { *table.add(e.slot) };
                    if address != 0 {
                        map.insert(e.name, address);
                    }
                }
            }
        }
        // Intel's extension functions, which the spec (and so the tables) do not have.
        map.extend(super::intel::functions());
        map
    })
}

/// What this driver implements (also when no driver is installed in the process).
fn own_dispatch() -> &'static zekit_icd::Dispatch {
    static D: OnceLock<zekit_icd::Dispatch> = OnceLock::new();
    D.get_or_init(dispatch)
}
