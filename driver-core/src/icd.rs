//! The CPU driver behind the generated [`Driver`] trait: a thin C-ABI layer that checks the few
//! raw pointers the trait hands over, walks `pNext` chains, and calls [`crate::objects`],
//! [`crate::properties`] and [`crate::alloc`]. Every failure is logged once and recorded for
//! `zeDriverGetLastErrorDescription` ([`crate::last_error`]).
//!
//! [`SUPPORTED`] lists every function implemented here; the DDI tables leave the others null.

use std::ffi::{c_char, c_void, CStr};
use std::sync::OnceLock;

use zekit_icd::kinds;
use zekit_icd::{Driver, Handle, ZeError, ZeResult};
use zekit_sys::*;

use crate::alloc::{AllocKind, SizeLimit, SUPPORTED_FREE_POLICIES};
use crate::host::{host, HostInfo};
use crate::last_error::{self, fail};
use crate::objects::*;
use crate::properties as props;

/// Every API function this driver implements (what `supports()` answers).
pub const SUPPORTED: &[&str] = &[
    // Global
    "zeInit",
    "zeInitDrivers",
    // Driver
    "zeDriverGet",
    "zeDriverGetApiVersion",
    "zeDriverGetProperties",
    "zeDriverGetIpcProperties",
    "zeDriverGetExtensionProperties",
    "zeDriverGetExtensionFunctionAddress",
    "zeDriverGetLastErrorDescription",
    // Device
    "zeDeviceGet",
    "zeDeviceGetSubDevices",
    "zeDeviceGetRootDevice",
    "zeDeviceGetProperties",
    "zeDeviceGetComputeProperties",
    "zeDeviceGetModuleProperties",
    "zeDeviceGetCommandQueueGroupProperties",
    "zeDeviceGetMemoryProperties",
    "zeDeviceGetMemoryAccessProperties",
    "zeDeviceGetCacheProperties",
    "zeDeviceGetImageProperties",
    "zeDeviceGetExternalMemoryProperties",
    "zeDeviceGetP2PProperties",
    "zeDeviceCanAccessPeer",
    "zeDeviceGetStatus",
    "zeDeviceGetGlobalTimestamps",
    "zeDeviceSynchronize",
    "zeDeviceGetAggregatedCopyOffloadIncrementValue",
    "zeDeviceGetRuntimeRequirements",
    "zeDeviceGetRuntimeRequirementsKey",
    "zeDeviceValidateRuntimeRequirements",
    "zeDeviceGetCounterBasedEventMaxValue",
    "zeDeviceGetCompilerInfo",
    // Context
    "zeContextCreate",
    "zeContextCreateEx",
    "zeContextDestroy",
    "zeContextGetStatus",
    // Memory
    "zeMemAllocHost",
    "zeMemAllocDevice",
    "zeMemAllocShared",
    "zeMemFree",
    "zeMemFreeExt",
    "zeMemGetAllocProperties",
    "zeMemGetAddressRange",
];

/// Longest `pNext` chain walked (guards against cycles).
pub const MAX_CHAIN: usize = 64;

/// The CPU driver: the host, the init state and its (lazily made) handles.
pub struct CpuDriver {
    host: &'static HostInfo,
    init: InitState,
    handles: OnceLock<Handles>,
}

struct Handles {
    driver: Handle<kinds::Driver>,
    devices: Vec<Handle<kinds::Device>>,
}

impl CpuDriver {
    /// A driver for `host`. Handles are made on first use, so that they carry the dispatch tables
    /// `zekit_icd::install` records.
    pub fn new(host: &'static HostInfo) -> CpuDriver {
        CpuDriver {
            host,
            init: InitState::new(),
            handles: OnceLock::new(),
        }
    }

    fn handles(&self) -> &Handles {
        self.handles.get_or_init(|| Handles {
            driver: Handle::new(DriverObject),
            devices: (0..NUM_DEVICES)
                .map(|ordinal| Handle::new(DeviceObject { ordinal }))
                .collect(),
        })
    }

    /// The driver handle.
    pub fn driver_handle(&self) -> Handle<kinds::Driver> {
        self.handles().driver
    }

    /// The handle of device `ordinal`.
    pub fn device_handle(&self, ordinal: usize) -> Option<Handle<kinds::Device>> {
        self.handles().devices.get(ordinal).copied()
    }

    /// The host this driver describes.
    pub fn host(&self) -> &'static HostInfo {
        self.host
    }
}

/// The process's CPU driver (what the exported tables dispatch to).
pub fn instance() -> &'static CpuDriver {
    static D: OnceLock<CpuDriver> = OnceLock::new();
    D.get_or_init(|| CpuDriver::new(host()))
}

zekit_icd::export_icd!((instance() as &'static dyn Driver, true));

// ---------------------------------------------------------------- helpers

fn failed(function: &str, f: Failure) -> ZeError {
    fail(function, ZeError(f.code), f.reason)
}

fn check<T>(function: &str, r: Outcome<T>) -> ZeResult<T> {
    r.map_err(|f| failed(function, f))
}

fn null_pointer(function: &str, what: &str) -> ZeError {
    fail(
        function,
        ZeError::INVALID_NULL_POINTER,
        format!("{what} is null"),
    )
}

fn check_driver(function: &str, h: Handle<kinds::Driver>) -> ZeResult<()> {
    h.get::<DriverObject>().map(|_| ()).map_err(|e| {
        fail(
            function,
            e,
            "hDriver is not a driver of the zekit CPU driver",
        )
    })
}

fn ordinal(function: &str, h: Handle<kinds::Device>) -> ZeResult<usize> {
    h.get::<DeviceObject>().map(|d| d.ordinal).map_err(|e| {
        fail(
            function,
            e,
            "hDevice is not a device of the zekit CPU driver",
        )
    })
}

fn context<'a>(function: &str, h: &'a Handle<kinds::Context>) -> ZeResult<&'a ContextObject> {
    h.get::<ContextObject>().map_err(|e| {
        fail(
            function,
            e,
            "hContext is not a context of the zekit CPU driver",
        )
    })
}

/// Visits every structure of a `pNext` chain (at most [`MAX_CHAIN`]).
///
/// # Safety
/// `p` must be null or start a chain of Level Zero structures (each beginning with `stype` and
/// `pNext`), as the API requires of applications.
unsafe fn walk_chain(
    mut p: *const c_void,
    mut visit: impl FnMut(ze_structure_type_t, *mut c_void),
) {
    for _ in 0..MAX_CHAIN {
        if p.is_null() {
            return;
        }
        let base = p.cast::<ze_base_desc_t>();
        // SAFETY: the caller promises a chain of structures with the base layout.
        let (stype, next) = unsafe { ((*base).stype, (*base).pNext) };
        visit(stype, p.cast_mut());
        p = next;
    }
}

/// The size limit asked for by relaxed-limits descriptors in any of `chains`.
///
/// # Safety
/// As [`walk_chain`], for every chain.
unsafe fn alloc_limit(function: &str, chains: &[*const c_void]) -> ZeResult<SizeLimit> {
    let mut limit: Outcome<SizeLimit> = Ok(SizeLimit::Strict);
    for &chain in chains {
        // SAFETY: forwarded from the caller.
        unsafe {
            walk_chain(chain, |stype, p| {
                let flags = match stype {
                    ze_structure_type_t::RELAXED_ALLOCATION_LIMITS_EXP_DESC => {
                        (*p.cast::<ze_relaxed_allocation_limits_exp_desc_t>())
                            .flags
                            .0
                    }
                    ze_structure_type_t::RELAXED_ALLOCATION_LIMITS_EXT_DESC => {
                        (*p.cast::<ze_relaxed_allocation_limits_ext_desc_t>())
                            .flags
                            .0
                    }
                    _ => return,
                };
                limit = match (&limit, relaxed_limit(flags)) {
                    (Err(_), _) => return,
                    (_, Err(e)) => Err(e),
                    (Ok(SizeLimit::Relaxed), _) | (_, Ok(SizeLimit::Relaxed)) => {
                        Ok(SizeLimit::Relaxed)
                    }
                    _ => Ok(SizeLimit::Strict),
                };
            })
        };
    }
    check(function, limit)
}

/// The application's output buffer of `size` bytes, viewed only as far as the `needed` bytes
/// the driver may write (`None` when null).
fn output_bytes<'a>(ptr: *mut u8, size: usize, needed: usize) -> Option<&'a mut [u8]> {
    if ptr.is_null() {
        return None;
    }
    // SAFETY: the application provides `size` writable bytes at `ptr`; the view covers at most
    // that many.
    Some(unsafe { std::slice::from_raw_parts_mut(ptr, size.min(needed)) })
}

fn fill_handles<K: zekit_rt::HandleKind>(
    items: &[Handle<K>],
    count: &mut u32,
    out: Option<&mut [Option<Handle<K>>]>,
) {
    props::fill_counted(items, count, out, |h, slot| *slot = Some(*h));
}

// ---------------------------------------------------------------- the trait

#[allow(clippy::too_many_arguments)]
impl Driver for CpuDriver {
    fn supports(&self, function: &str) -> bool {
        SUPPORTED.contains(&function)
    }

    fn before_call(
        &self,
        _function: &'static str,
        _args: &dyn Fn() -> Vec<(&'static str, String)>,
    ) -> Option<ze_result_t> {
        last_error::begin_call();
        None
    }

    fn after_call(
        &self,
        function: &'static str,
        _args: &dyn Fn() -> Vec<(&'static str, String)>,
        result: ze_result_t,
    ) {
        // The decoded arguments are not used: they read through application pointers the
        // driver may have rejected.
        last_error::end_call(function, result);
    }

    // ------------------------------------------------------------ global, driver

    fn ze_init(&self, flags: ze_init_flags_t) -> ZeResult<()> {
        check("zeInit", self.init.init(flags))
    }

    fn ze_init_drivers(
        &self,
        p_count: &mut u32,
        ph_drivers: Option<&mut [Option<Handle<kinds::Driver>>]>,
        desc: &ze_init_driver_type_desc_t,
    ) -> ZeResult<()> {
        let n = check("zeInitDrivers", self.init.init_drivers(desc.flags))?;
        let drivers = [self.driver_handle()];
        fill_handles(&drivers[..n as usize], p_count, ph_drivers);
        Ok(())
    }

    fn ze_driver_get(
        &self,
        p_count: &mut u32,
        ph_drivers: Option<&mut [Option<Handle<kinds::Driver>>]>,
    ) -> ZeResult<()> {
        let n = check("zeDriverGet", self.init.reported_drivers())?;
        let drivers = [self.driver_handle()];
        fill_handles(&drivers[..n as usize], p_count, ph_drivers);
        Ok(())
    }

    fn ze_driver_get_api_version(
        &self,
        h_driver: Handle<kinds::Driver>,
        version: &mut ze_api_version_t,
    ) -> ZeResult<()> {
        check_driver("zeDriverGetApiVersion", h_driver)?;
        *version = api_version();
        Ok(())
    }

    fn ze_driver_get_properties(
        &self,
        h_driver: Handle<kinds::Driver>,
        p: &mut ze_driver_properties_t,
    ) -> ZeResult<()> {
        check_driver("zeDriverGetProperties", h_driver)?;
        p.uuid = ze_driver_uuid_t {
            id: driver_uuid(self.host),
        };
        p.driverVersion = driver_version();
        // SAFETY: the application's pNext chain of output structures.
        unsafe {
            walk_chain(p.pNext, |stype, ext| match stype {
                ze_structure_type_t::DRIVER_DDI_HANDLES_EXT_PROPERTIES => {
                    (*ext.cast::<ze_driver_ddi_handles_ext_properties_t>()).flags =
                        ze_driver_ddi_handle_ext_flags_t::DDI_HANDLE_EXT_SUPPORTED;
                }
                ze_structure_type_t::DRIVER_MEMORY_FREE_EXT_PROPERTIES => {
                    (*ext.cast::<ze_driver_memory_free_ext_properties_t>()).freePolicies =
                        SUPPORTED_FREE_POLICIES;
                }
                _ => {}
            })
        };
        Ok(())
    }

    fn ze_driver_get_ipc_properties(
        &self,
        h_driver: Handle<kinds::Driver>,
        p: &mut ze_driver_ipc_properties_t,
    ) -> ZeResult<()> {
        check_driver("zeDriverGetIpcProperties", h_driver)?;
        p.flags = ze_ipc_property_flags_t::empty();
        Ok(())
    }

    fn ze_driver_get_extension_properties(
        &self,
        h_driver: Handle<kinds::Driver>,
        p_count: &mut u32,
        out: Option<&mut [ze_driver_extension_properties_t]>,
    ) -> ZeResult<()> {
        check_driver("zeDriverGetExtensionProperties", h_driver)?;
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
        const F: &str = "zeDriverGetExtensionFunctionAddress";
        check_driver(F, h_driver)?;
        let address = match name.to_bytes() {
            b"zeMemFreeExt" => {
                let f: ze_pfnMemFreeExt_t = Some(zekit_icd::entry::zeMemFreeExt);
                f.map(|f| f as *mut c_void)
            }
            _ => None,
        };
        let Some(address) = address else {
            return Err(fail(
                F,
                ZeError::INVALID_ARGUMENT,
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
        const F: &str = "zeDriverGetLastErrorDescription";
        check_driver(F, h_driver)?;
        *pp_string = last_error::last_error_ptr();
        Ok(())
    }

    // ------------------------------------------------------------ device

    fn ze_device_get(
        &self,
        h_driver: Handle<kinds::Driver>,
        p_count: &mut u32,
        ph_devices: Option<&mut [Option<Handle<kinds::Device>>]>,
    ) -> ZeResult<()> {
        check_driver("zeDeviceGet", h_driver)?;
        fill_handles(&self.handles().devices, p_count, ph_devices);
        Ok(())
    }

    fn ze_device_get_sub_devices(
        &self,
        h_device: Handle<kinds::Device>,
        p_count: &mut u32,
        ph_subdevices: Option<&mut [Option<Handle<kinds::Device>>]>,
    ) -> ZeResult<()> {
        ordinal("zeDeviceGetSubDevices", h_device)?;
        // props::sub_device_count() is 0: the host CPU is not partitioned.
        fill_handles::<kinds::Device>(&[], p_count, ph_subdevices);
        Ok(())
    }

    fn ze_device_get_root_device(
        &self,
        h_device: Handle<kinds::Device>,
        ph_root_device: &mut Option<Handle<kinds::Device>>,
    ) -> ZeResult<()> {
        ordinal("zeDeviceGetRootDevice", h_device)?;
        *ph_root_device = props::root_device().and_then(|o| self.device_handle(o));
        Ok(())
    }

    fn ze_device_get_properties(
        &self,
        h_device: Handle<kinds::Device>,
        p: &mut ze_device_properties_t,
    ) -> ZeResult<()> {
        ordinal("zeDeviceGetProperties", h_device)?;
        props::fill_device_properties(self.host, p);
        let eus = p
            .numSlices
            .saturating_mul(p.numSubslicesPerSlice)
            .saturating_mul(p.numEUsPerSubslice);
        // SAFETY: the application's pNext chain of output structures.
        unsafe {
            walk_chain(p.pNext, |stype, ext| match stype {
                ze_structure_type_t::EU_COUNT_EXT => {
                    (*ext.cast::<ze_eu_count_ext_t>()).numTotalEUs = eus;
                }
                ze_structure_type_t::DEVICE_USABLEMEM_SIZE_EXT_PROPERTIES => {
                    (*ext.cast::<ze_device_usablemem_size_ext_properties_t>()).currUsableMemSize =
                        self.host.current_available_memory();
                }
                _ => {}
            })
        };
        Ok(())
    }

    fn ze_device_get_compute_properties(
        &self,
        h_device: Handle<kinds::Device>,
        p: &mut ze_device_compute_properties_t,
    ) -> ZeResult<()> {
        ordinal("zeDeviceGetComputeProperties", h_device)?;
        props::fill_compute_properties(self.host, p);
        Ok(())
    }

    fn ze_device_get_module_properties(
        &self,
        h_device: Handle<kinds::Device>,
        p: &mut ze_device_module_properties_t,
    ) -> ZeResult<()> {
        ordinal("zeDeviceGetModuleProperties", h_device)?;
        props::fill_module_properties(self.host, p);
        Ok(())
    }

    fn ze_device_get_command_queue_group_properties(
        &self,
        h_device: Handle<kinds::Device>,
        p_count: &mut u32,
        out: Option<&mut [ze_command_queue_group_properties_t]>,
    ) -> ZeResult<()> {
        ordinal("zeDeviceGetCommandQueueGroupProperties", h_device)?;
        props::fill_command_queue_group_properties(self.host, p_count, out);
        Ok(())
    }

    fn ze_device_get_memory_properties(
        &self,
        h_device: Handle<kinds::Device>,
        p_count: &mut u32,
        out: Option<&mut [ze_device_memory_properties_t]>,
    ) -> ZeResult<()> {
        ordinal("zeDeviceGetMemoryProperties", h_device)?;
        props::fill_memory_properties(self.host, p_count, out);
        Ok(())
    }

    fn ze_device_get_memory_access_properties(
        &self,
        h_device: Handle<kinds::Device>,
        p: &mut ze_device_memory_access_properties_t,
    ) -> ZeResult<()> {
        ordinal("zeDeviceGetMemoryAccessProperties", h_device)?;
        props::fill_memory_access_properties(self.host, p);
        Ok(())
    }

    fn ze_device_get_cache_properties(
        &self,
        h_device: Handle<kinds::Device>,
        p_count: &mut u32,
        out: Option<&mut [ze_device_cache_properties_t]>,
    ) -> ZeResult<()> {
        ordinal("zeDeviceGetCacheProperties", h_device)?;
        let Some(out) = out else {
            props::fill_cache_properties(self.host, p_count, None);
            return Ok(());
        };
        props::fill_cache_properties(self.host, p_count, Some(&mut *out));
        let line = self.host.cache_line_size() as usize;
        let filled = (*p_count as usize).min(out.len());
        for entry in &out[..filled] {
            // SAFETY: the application's pNext chain of output structures.
            unsafe {
                walk_chain(entry.pNext, |stype, ext| {
                    if stype == ze_structure_type_t::DEVICE_CACHELINE_SIZE_EXT {
                        (*ext.cast::<ze_device_cache_line_size_ext_t>()).cacheLineSize = line;
                    }
                })
            };
        }
        Ok(())
    }

    fn ze_device_get_image_properties(
        &self,
        h_device: Handle<kinds::Device>,
        p: &mut ze_device_image_properties_t,
    ) -> ZeResult<()> {
        ordinal("zeDeviceGetImageProperties", h_device)?;
        props::fill_image_properties(self.host, p);
        Ok(())
    }

    fn ze_device_get_external_memory_properties(
        &self,
        h_device: Handle<kinds::Device>,
        p: &mut ze_device_external_memory_properties_t,
    ) -> ZeResult<()> {
        ordinal("zeDeviceGetExternalMemoryProperties", h_device)?;
        props::fill_external_memory_properties(self.host, p);
        Ok(())
    }

    fn ze_device_get_p2p_properties(
        &self,
        h_device: Handle<kinds::Device>,
        h_peer_device: Handle<kinds::Device>,
        p: &mut ze_device_p2p_properties_t,
    ) -> ZeResult<()> {
        let a = ordinal("zeDeviceGetP2PProperties", h_device)?;
        let b = ordinal("zeDeviceGetP2PProperties", h_peer_device)?;
        props::fill_p2p_properties(a == b, p);
        Ok(())
    }

    fn ze_device_can_access_peer(
        &self,
        h_device: Handle<kinds::Device>,
        h_peer_device: Handle<kinds::Device>,
        value: &mut ze_bool_t,
    ) -> ZeResult<()> {
        let a = ordinal("zeDeviceCanAccessPeer", h_device)?;
        let b = ordinal("zeDeviceCanAccessPeer", h_peer_device)?;
        *value = ze_bool_t::from(props::can_access_peer(a == b));
        Ok(())
    }

    fn ze_device_get_status(&self, h_device: Handle<kinds::Device>) -> ZeResult<()> {
        ordinal("zeDeviceGetStatus", h_device)?;
        match props::device_status() {
            ze_result_t::SUCCESS => Ok(()),
            code => Err(fail("zeDeviceGetStatus", ZeError(code), "device status")),
        }
    }

    fn ze_device_get_global_timestamps(
        &self,
        h_device: Handle<kinds::Device>,
        host_timestamp: &mut u64,
        device_timestamp: &mut u64,
    ) -> ZeResult<()> {
        ordinal("zeDeviceGetGlobalTimestamps", h_device)?;
        (*host_timestamp, *device_timestamp) = props::global_timestamps();
        Ok(())
    }

    fn ze_device_synchronize(&self, h_device: Handle<kinds::Device>) -> ZeResult<()> {
        ordinal("zeDeviceSynchronize", h_device)?;
        match props::synchronize_result() {
            ze_result_t::SUCCESS => Ok(()),
            code => Err(fail(
                "zeDeviceSynchronize",
                ZeError(code),
                "device execution failed",
            )),
        }
    }

    fn ze_device_get_aggregated_copy_offload_increment_value(
        &self,
        h_device: Handle<kinds::Device>,
        increment_value: &mut u32,
    ) -> ZeResult<()> {
        ordinal("zeDeviceGetAggregatedCopyOffloadIncrementValue", h_device)?;
        *increment_value = props::aggregated_copy_offload_increment_value();
        Ok(())
    }

    fn ze_device_get_counter_based_event_max_value(
        &self,
        h_device: Handle<kinds::Device>,
        max_value: &mut u64,
    ) -> ZeResult<()> {
        ordinal("zeDeviceGetCounterBasedEventMaxValue", h_device)?;
        *max_value = props::counter_based_event_max_value();
        Ok(())
    }

    fn ze_device_get_runtime_requirements(
        &self,
        h_device: Handle<kinds::Device>,
        p_obj_desc: *const c_void,
        p_size: &mut usize,
        p_requirements: *mut c_char,
    ) -> ZeResult<()> {
        const F: &str = "zeDeviceGetRuntimeRequirements";
        ordinal(F, h_device)?;
        if p_obj_desc.is_null() {
            return Err(null_pointer(F, "pObjDesc"));
        }
        // SAFETY: a non-null descriptor from the application starts with stype and pNext.
        let stype = unsafe { (*p_obj_desc.cast::<ze_base_desc_t>()).stype };
        let source = match check(F, requirements_source(stype))? {
            // SAFETY: the stype says which descriptor this is.
            RequirementsSource::Module => unsafe {
                let raw =
                    (*p_obj_desc.cast::<ze_runtime_requirements_module_desc_t>()).requirementsSrc;
                Handle::<kinds::Module>::from_raw(raw.cast()).map(|_| ())
            },
            // SAFETY: as above.
            RequirementsSource::Graph => unsafe {
                let raw =
                    (*p_obj_desc.cast::<ze_runtime_requirements_graph_desc_t>()).requirementsSrc;
                Handle::<kinds::Graph>::from_raw(raw.cast()).map(|_| ())
            },
        };
        source.map_err(|_| {
            fail(
                F,
                ZeError::INVALID_ARGUMENT,
                "requirementsSrc is not a live module or graph of this driver",
            )
        })?;
        let text = runtime_requirements_c(self.host);
        let out = output_bytes(p_requirements.cast(), *p_size, text.len());
        copy_sized(&text, p_size, out);
        Ok(())
    }

    fn ze_device_get_runtime_requirements_key(
        &self,
        h_device: Handle<kinds::Device>,
        p_key: &mut *const c_char,
    ) -> ZeResult<()> {
        const F: &str = "zeDeviceGetRuntimeRequirementsKey";
        ordinal(F, h_device)?;
        // The key is 'static.
        *p_key = props::runtime_requirements_key().as_ptr();
        Ok(())
    }

    fn ze_device_validate_runtime_requirements(
        &self,
        h_device: Handle<kinds::Device>,
        p_requirements: &CStr,
        p_out: &mut ze_validate_runtime_requirements_output_t,
    ) -> ZeResult<()> {
        ordinal("zeDeviceValidateRuntimeRequirements", h_device)?;
        p_out.result = props::validate_runtime_requirements(self.host, p_requirements.to_bytes());
        Ok(())
    }

    fn ze_device_get_compiler_info(
        &self,
        h_device: Handle<kinds::Device>,
        param_name: ze_device_compiler_info_t,
        _p_next: *const c_void,
        p_size: &mut usize,
        p_data: *mut c_void,
    ) -> ZeResult<()> {
        const F: &str = "zeDeviceGetCompilerInfo";
        ordinal(F, h_device)?;
        let Some(data) = props::compiler_info(param_name) else {
            return Err(fail(
                F,
                ZeError::INVALID_ENUMERATION,
                format!("unknown paramName {param_name:?}"),
            ));
        };
        let out = output_bytes(p_data.cast(), *p_size, data.len());
        copy_sized(data, p_size, out);
        Ok(())
    }

    // ------------------------------------------------------------ context

    fn ze_context_create(
        &self,
        h_driver: Handle<kinds::Driver>,
        desc: &ze_context_desc_t,
        ph_context: &mut Option<Handle<kinds::Context>>,
    ) -> ZeResult<()> {
        const F: &str = "zeContextCreate";
        check_driver(F, h_driver)?;
        check(F, check_context_flags(desc.flags))?;
        let ctx = check(F, ContextObject::new(self.host, &[]))?;
        *ph_context = Some(Handle::new(ctx));
        Ok(())
    }

    fn ze_context_create_ex(
        &self,
        h_driver: Handle<kinds::Driver>,
        desc: &ze_context_desc_t,
        _num_devices: u32,
        ph_devices: &[Handle<kinds::Device>],
        ph_context: &mut Option<Handle<kinds::Context>>,
    ) -> ZeResult<()> {
        const F: &str = "zeContextCreateEx";
        check_driver(F, h_driver)?;
        check(F, check_context_flags(desc.flags))?;
        let devices = ph_devices
            .iter()
            .map(|&h| ordinal(F, h))
            .collect::<ZeResult<Vec<usize>>>()?;
        let ctx = check(F, ContextObject::new(self.host, &devices))?;
        *ph_context = Some(Handle::new(ctx));
        Ok(())
    }

    fn ze_context_destroy(&self, h_context: Handle<kinds::Context>) -> ZeResult<()> {
        const F: &str = "zeContextDestroy";
        context(F, &h_context)?;
        // Dropping the context frees its remaining allocations.
        h_context
            .destroy()
            .map_err(|e| fail(F, e, "hContext was already destroyed"))
    }

    fn ze_context_get_status(&self, h_context: Handle<kinds::Context>) -> ZeResult<()> {
        context("zeContextGetStatus", &h_context)?;
        Ok(())
    }

    // ------------------------------------------------------------ memory

    fn ze_mem_alloc_host(
        &self,
        h_context: Handle<kinds::Context>,
        host_desc: &ze_host_mem_alloc_desc_t,
        size: usize,
        alignment: usize,
        pptr: &mut *mut c_void,
    ) -> ZeResult<()> {
        const F: &str = "zeMemAllocHost";
        let ctx = context(F, &h_context)?;
        check(F, check_host_alloc_flags(host_desc.flags))?;
        // SAFETY: the application's descriptor chain.
        let limit = unsafe { alloc_limit(F, &[host_desc.pNext])? };
        let req = AllocRequest {
            kind: AllocKind::Host,
            size,
            alignment,
            device: None,
            limit,
        };
        let p = check(F, ctx.alloc(&req))?;
        *pptr = p.cast();
        Ok(())
    }

    fn ze_mem_alloc_device(
        &self,
        h_context: Handle<kinds::Context>,
        device_desc: &ze_device_mem_alloc_desc_t,
        size: usize,
        alignment: usize,
        h_device: Handle<kinds::Device>,
        pptr: &mut *mut c_void,
    ) -> ZeResult<()> {
        const F: &str = "zeMemAllocDevice";
        let ctx = context(F, &h_context)?;
        let device = ordinal(F, h_device)?;
        check(
            F,
            check_device_alloc_desc(device_desc.flags, device_desc.ordinal),
        )?;
        // SAFETY: the application's descriptor chain.
        let limit = unsafe { alloc_limit(F, &[device_desc.pNext])? };
        let req = AllocRequest {
            kind: AllocKind::Device,
            size,
            alignment,
            device: Some(device),
            limit,
        };
        let p = check(F, ctx.alloc(&req))?;
        *pptr = p.cast();
        Ok(())
    }

    fn ze_mem_alloc_shared(
        &self,
        h_context: Handle<kinds::Context>,
        device_desc: &ze_device_mem_alloc_desc_t,
        host_desc: &ze_host_mem_alloc_desc_t,
        size: usize,
        alignment: usize,
        h_device: Option<Handle<kinds::Device>>,
        pptr: &mut *mut c_void,
    ) -> ZeResult<()> {
        const F: &str = "zeMemAllocShared";
        let ctx = context(F, &h_context)?;
        let device = h_device.map(|h| ordinal(F, h)).transpose()?;
        check(
            F,
            check_device_alloc_desc(device_desc.flags, device_desc.ordinal),
        )?;
        check(F, check_host_alloc_flags(host_desc.flags))?;
        // SAFETY: the application's descriptor chains.
        let limit = unsafe { alloc_limit(F, &[device_desc.pNext, host_desc.pNext])? };
        let req = AllocRequest {
            kind: AllocKind::Shared,
            size,
            alignment,
            device,
            limit,
        };
        let p = check(F, ctx.alloc(&req))?;
        *pptr = p.cast();
        Ok(())
    }

    fn ze_mem_free(&self, h_context: Handle<kinds::Context>, ptr: *mut c_void) -> ZeResult<()> {
        const F: &str = "zeMemFree";
        let ctx = context(F, &h_context)?;
        check(F, ctx.free(ptr.cast()))
    }

    fn ze_mem_free_ext(
        &self,
        h_context: Handle<kinds::Context>,
        p_mem_free_desc: &ze_memory_free_ext_desc_t,
        ptr: *mut c_void,
    ) -> ZeResult<()> {
        const F: &str = "zeMemFreeExt";
        let ctx = context(F, &h_context)?;
        check(F, ctx.free_ext(ptr.cast(), p_mem_free_desc.freePolicy))
    }

    fn ze_mem_get_alloc_properties(
        &self,
        h_context: Handle<kinds::Context>,
        ptr: *const c_void,
        p: &mut ze_memory_allocation_properties_t,
        ph_device: Option<&mut Option<Handle<kinds::Device>>>,
    ) -> ZeResult<()> {
        let ctx = context("zeMemGetAllocProperties", &h_context)?;
        let a = ctx.alloc_properties(ptr.cast(), self.host.page_size);
        p.r#type = a.memory_type;
        p.id = a.id;
        p.pageSize = a.page_size;
        let device = a.device.and_then(|d| self.device_handle(d));
        // phDevice is optional: None means the caller does not want it.
        if let Some(out) = ph_device {
            *out = device;
        }
        Ok(())
    }

    fn ze_mem_get_address_range(
        &self,
        h_context: Handle<kinds::Context>,
        ptr: *const c_void,
        p_base: Option<&mut *mut c_void>,
        p_size: Option<&mut usize>,
    ) -> ZeResult<()> {
        const F: &str = "zeMemGetAddressRange";
        let ctx = context(F, &h_context)?;
        let (base, size) = check(F, ctx.address_range(ptr.cast()))?;
        if let Some(b) = p_base {
            *b = base.cast();
        }
        if let Some(s) = p_size {
            *s = size;
        }
        Ok(())
    }
}
