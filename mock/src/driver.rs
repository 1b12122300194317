//! The mock driver: `impl zekit_icd::Driver for MockDriver`, a well-behaved device.
//!
//! One driver with one root device (no sub-devices) whose properties come from the script's
//! [`Profile`](crate::Profile); contexts; host, device and shared allocations backed by real,
//! zeroed host memory (alignment honoured); command queues and command lists (regular and
//! immediate) whose memory copies, region copies, fills, barriers, timestamps and event
//! signals/waits/resets really run when executed (see [`crate::objects`] for the execution
//! model); event pools and events; fences. Host waits honour their timeout and never hang
//! (`ZEKIT_MOCK_WAIT_LIMIT_MS`).
//!
//! Every function is offered in the DDI tables ([`Driver::supports`] is always true). With
//! hooks on (the way the mock is normally installed), every call goes through the global
//! [`Script`](crate::Script) first: it is logged, and a programmed result answers it. A
//! function without behaviour here ([`is_modeled`] is false) then answers its fallback result
//! ([`crate::fallback`]): `ZE_RESULT_SUCCESS` when the caller reads nothing back,
//! `ZE_RESULT_ERROR_UNSUPPORTED_FEATURE` when a success would be a lie. Without hooks such
//! functions answer `UNSUPPORTED_FEATURE` (the trait default); the modeled ones work the same.

use std::collections::HashSet;
use std::ffi::{c_char, c_void, CStr};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use zekit_icd::{kinds, Driver, Handle, ZeError, ZeResult};
use zekit_rt::conv::counted;
use zekit_sys::*;

use crate::last_error::{self, fail};
use crate::objects::*;
use crate::script::script;

/// The functions with behaviour of their own (the methods implemented below).
pub const MODELED: &[&str] = &[
    // driver
    "zeInit",
    "zeInitDrivers",
    "zeDriverGet",
    "zeDriverGetApiVersion",
    "zeDriverGetProperties",
    "zeDriverGetIpcProperties",
    "zeDriverGetExtensionProperties",
    "zeDriverGetExtensionFunctionAddress",
    "zeDriverGetLastErrorDescription",
    "zeDriverGetDefaultContext",
    // device
    "zeDeviceGet",
    "zeDeviceGetRootDevice",
    "zeDeviceGetSubDevices",
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
    // context
    "zeContextCreate",
    "zeContextCreateEx",
    "zeContextDestroy",
    "zeContextGetStatus",
    // command queue
    "zeCommandQueueCreate",
    "zeCommandQueueDestroy",
    "zeCommandQueueExecuteCommandLists",
    "zeCommandQueueSynchronize",
    "zeCommandQueueGetOrdinal",
    "zeCommandQueueGetIndex",
    // command list
    "zeCommandListCreate",
    "zeCommandListCreateImmediate",
    "zeCommandListDestroy",
    "zeCommandListClose",
    "zeCommandListReset",
    "zeCommandListHostSynchronize",
    "zeCommandListGetDeviceHandle",
    "zeCommandListGetContextHandle",
    "zeCommandListGetOrdinal",
    "zeCommandListImmediateGetIndex",
    "zeCommandListIsImmediate",
    "zeCommandListAppendBarrier",
    "zeCommandListAppendMemoryRangesBarrier",
    "zeCommandListAppendMemoryCopy",
    "zeCommandListAppendMemoryCopyWithParameters",
    "zeCommandListAppendMemoryFill",
    "zeCommandListAppendMemoryFillWithParameters",
    "zeCommandListAppendMemoryCopyRegion",
    "zeCommandListAppendWriteGlobalTimestamp",
    "zeCommandListAppendSignalEvent",
    "zeCommandListAppendWaitOnEvents",
    "zeCommandListAppendEventReset",
    // events
    "zeEventPoolCreate",
    "zeEventPoolDestroy",
    "zeEventPoolGetFlags",
    "zeEventPoolGetContextHandle",
    "zeEventCreate",
    "zeEventDestroy",
    "zeEventHostSignal",
    "zeEventHostSynchronize",
    "zeEventQueryStatus",
    "zeEventHostReset",
    "zeEventQueryKernelTimestamp",
    "zeEventGetEventPool",
    "zeEventGetSignalScope",
    "zeEventGetWaitScope",
    // fences
    "zeFenceCreate",
    "zeFenceDestroy",
    "zeFenceHostSynchronize",
    "zeFenceQueryStatus",
    "zeFenceReset",
    // memory
    "zeMemAllocShared",
    "zeMemAllocDevice",
    "zeMemAllocHost",
    "zeMemFree",
    "zeMemFreeExt",
    "zeMemGetAllocProperties",
    "zeMemGetAddressRange",
    // runtime
    "zerGetLastErrorDescription",
    "zerTranslateDeviceHandleToIdentifier",
    "zerTranslateIdentifierToDeviceHandle",
    "zerGetDefaultContext",
];

/// Whether the mock has behaviour of its own for `function` (see [`MODELED`]).
pub fn is_modeled(function: &str) -> bool {
    static SET: OnceLock<HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| MODELED.iter().copied().collect())
        .contains(function)
}

/// The extensions `zeDriverGetExtensionProperties` reports.
pub const EXTENSIONS: &[(&str, u32)] = &[(
    ZE_DRIVER_DDI_HANDLES_EXT_NAME,
    ze_driver_ddi_handles_ext_version_t::_1_1.0,
)];

/// The mock's driver uuid: "zekit mock drv" and a version byte pair.
pub const DRIVER_UUID: [u8; 16] = *b"zekit-mock-drv\0\x01";

/// `driverVersion`: the crate version as `major << 24 | minor << 16 | patch`.
pub fn driver_version() -> u32 {
    let p = |s: &str| s.parse::<u32>().unwrap_or(0);
    (p(env!("CARGO_PKG_VERSION_MAJOR")) << 24)
        | (p(env!("CARGO_PKG_VERSION_MINOR")) << 16)
        | p(env!("CARGO_PKG_VERSION_PATCH"))
}

/// The mock driver (one per process: [`mock`]).
pub struct MockDriver {
    driver: OnceLock<Handle<kinds::Driver>>,
    device: OnceLock<Handle<kinds::Device>>,
    default_context: OnceLock<Handle<kinds::Context>>,
    initialized: AtomicBool,
}

/// The process's mock driver.
pub fn mock() -> &'static MockDriver {
    static M: OnceLock<MockDriver> = OnceLock::new();
    M.get_or_init(|| MockDriver {
        driver: OnceLock::new(),
        device: OnceLock::new(),
        default_context: OnceLock::new(),
        initialized: AtomicBool::new(false),
    })
}

fn owned(args: Vec<(&'static str, String)>) -> Vec<(String, String)> {
    args.into_iter().map(|(n, v)| (n.to_string(), v)).collect()
}


fn events(list: &[Handle<kinds::Event>]) -> ZeResult<Box<[Arc<EventState>]>> {
    list.iter()
        .map(|h| h.get::<EventObj>().map(|e| e.state.clone()))
        .collect()
}

fn event(h: Option<Handle<kinds::Event>>) -> ZeResult<Option<Arc<EventState>>> {
    h.map(|h| h.get::<EventObj>().map(|e| e.state.clone()))
        .transpose()
}

fn not_ready() -> ZeError {
    ZeError(ZE_RESULT_NOT_READY)
}

impl MockDriver {
    /// The driver handle (made on first use, after the ICD is installed).
    pub fn driver_handle(&self) -> Handle<kinds::Driver> {
        *self.driver.get_or_init(|| Handle::new(DriverObj))
    }

    /// The device handle.
    pub fn device_handle(&self) -> Handle<kinds::Device> {
        *self.device.get_or_init(|| Handle::new(DeviceObj))
    }

    /// The driver's default context (`zeDriverGetDefaultContext`, `zerGetDefaultContext`),
    /// made on first use; the application cannot destroy it.
    pub fn default_context(&self) -> Handle<kinds::Context> {
        *self
            .default_context
            .get_or_init(|| Handle::new(ContextObj { id: next_id() }))
    }

    /// Whether `zeInit` or `zeInitDrivers` ran.
    pub fn initialized(&self) -> bool {
        self.initialized.load(Ordering::Relaxed)
    }

    fn check_device(&self, h: Handle<kinds::Device>) -> ZeResult<()> {
        h.get::<DeviceObj>().map(|_| ())
    }

    fn queue_group(&self, function: &str, ordinal: u32, index: Option<u32>) -> ZeResult<()> {
        let profile = script().profile();
        let Some(g) = profile.command_queue_groups.get(ordinal as usize) else {
            return Err(fail(ZeError::INVALID_ARGUMENT, || {
                format!(
                    "{function}: queue group ordinal {ordinal} does not exist (the device has {})",
                    profile.command_queue_groups.len()
                )
            }));
        };
        if let Some(i) = index {
            if i >= g.num_queues {
                return Err(fail(ZeError::INVALID_ARGUMENT, || {
                    format!(
                        "{function}: queue index {i} is out of range (group {ordinal} has {} queues)",
                        g.num_queues
                    )
                }));
            }
        }
        Ok(())
    }

    /// Appends `cmd` to a regular list, or runs it on an immediate list's queue.
    fn append(&self, function: &str, list: Handle<kinds::CommandList>, cmd: Cmd) -> ZeResult<()> {
        let l = list.get::<ListObj>()?;
        if let Some(imm) = &l.immediate {
            engine().submit(
                imm.id,
                [Batch {
                    cmds: Arc::from([cmd]),
                    pos: 0,
                    fence: None,
                }],
            );
            if imm.mode == ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS {
                let id = imm.id;
                engine().wait(function, u64::MAX, |s| s.idle(id))?;
            }
            return Ok(());
        }
        let mut st = lock(&l.state);
        if st.closed {
            return Err(fail(ZeError::INVALID_ARGUMENT, || {
                format!("{function}: the command list is closed (reset it to append again)")
            }));
        }
        st.cmds.push(cmd);
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn append_copy(
        &self,
        function: &str,
        list: Handle<kinds::CommandList>,
        dst: *mut c_void,
        src: *const c_void,
        size: usize,
        signal: Option<Handle<kinds::Event>>,
        waits: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        check_range(function, "dstptr", dst as usize, size)?;
        check_range(function, "srcptr", src as usize, size)?;
        let cmd = Cmd {
            waits: events(waits)?,
            op: Op::Copy {
                dst: dst as usize,
                src: src as usize,
                size,
            },
            signal: event(signal)?,
        };
        self.append(function, list, cmd)
    }

    #[allow(clippy::too_many_arguments)]
    fn append_fill(
        &self,
        function: &str,
        list: Handle<kinds::CommandList>,
        ptr: *mut c_void,
        pattern: *const c_void,
        pattern_size: usize,
        size: usize,
        signal: Option<Handle<kinds::Event>>,
        waits: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        let l = list.get::<ListObj>()?;
        let max = script()
            .profile()
            .max_fill_pattern_size(l.ordinal)
            .unwrap_or(0);
        if pattern.is_null() {
            return Err(fail(ZeError::INVALID_NULL_POINTER, || {
                format!("{function}: pattern is null")
            }));
        }
        if pattern_size == 0 || !pattern_size.is_power_of_two() {
            return Err(fail(ZeError::INVALID_SIZE, || {
                format!("{function}: pattern_size {pattern_size} is not a power of two")
            }));
        }
        if pattern_size as u64 > max {
            return Err(fail(ZeError::UNSUPPORTED_SIZE, || {
                format!(
                    "{function}: pattern_size {pattern_size} exceeds maxMemoryFillPatternSize ({max}) \
                     of queue group {}",
                    l.ordinal
                )
            }));
        }
        // `pattern_size` is a power of two: a multiple has none of its lower bits.
        if size & (pattern_size - 1) != 0 {
            return Err(fail(ZeError::INVALID_SIZE, || {
                format!("{function}: size {size} is not a multiple of pattern_size {pattern_size}")
            }));
        }
        check_range(function, "ptr", ptr as usize, size)?;
        // SAFETY: `pattern` is non-null and the caller promises `pattern_size` readable bytes.
        let bytes = unsafe { std::slice::from_raw_parts(pattern as *const u8, pattern_size) };
        let cmd = Cmd {
            waits: events(waits)?,
            op: Op::Fill {
                dst: ptr as usize,
                pattern: bytes.into(),
                size,
            },
            signal: event(signal)?,
        };
        self.append(function, list, cmd)
    }

    fn context_id(h: Handle<kinds::Context>) -> ZeResult<u64> {
        h.get::<ContextObj>().map(|c| c.id)
    }

    #[allow(clippy::too_many_arguments)]
    fn alloc_checked(
        &self,
        function: &str,
        context: Handle<kinds::Context>,
        kind: ze_memory_type_t,
        ordinal: Option<u32>,
        size: usize,
        alignment: usize,
        device: Option<Handle<kinds::Device>>,
        pptr: &mut *mut c_void,
    ) -> ZeResult<()> {
        let ctx = Self::context_id(context)?;
        if let Some(d) = device {
            self.check_device(d)?;
        }
        if let Some(o) = ordinal {
            let n = script().profile().memory_count();
            if o >= n {
                return Err(fail(ZeError::INVALID_ARGUMENT, || {
                    format!("{function}: memory ordinal {o} does not exist (the device has {n})")
                }));
            }
        }
        *pptr = allocate(function, ctx, kind, size, alignment, device)?;
        Ok(())
    }
}

/// Walks a `pNext` chain of output structures (at most 64 links).
///
/// # Safety
/// Every link must be null or point to a writable structure starting with `stype`/`pNext`.
unsafe fn for_each_ext(mut p: *mut c_void, mut f: impl FnMut(*mut ze_base_properties_t)) {
    let mut n = 0;
    while !p.is_null() && n < 64 {
        let base = p as *mut ze_base_properties_t;
        f(base);
        // SAFETY: per the contract, `base` points to a base-properties header.
        p = unsafe { (*base).pNext };
        n += 1;
    }
}

#[allow(clippy::too_many_arguments)]
impl Driver for MockDriver {
    fn supports(&self, _function: &str) -> bool {
        true
    }

    fn before_call(
        &self,
        function: &'static str,
        args: &dyn Fn() -> Vec<(&'static str, String)>,
    ) -> Option<ze_result_t> {
        last_error::begin_call(false);
        let render = || owned(args());
        if let Some(code) = script().before_call(function, &render) {
            last_error::begin_call(true);
            return Some(code);
        }
        if is_modeled(function) {
            None
        } else {
            Some(crate::fallback::result(function))
        }
    }

    fn after_call(
        &self,
        function: &'static str,
        args: &dyn Fn() -> Vec<(&'static str, String)>,
        result: ze_result_t,
    ) {
        let render = || owned(args());
        script().after_call(function, &render, result);
        last_error::end_call(function, result);
    }

    // ----- driver ---------------------------------------------------------------------------

    fn ze_init(&self, _flags: ze_init_flags_t) -> ZeResult<()> {
        self.initialized.store(true, Ordering::Relaxed);
        Ok(())
    }

    fn ze_init_drivers(
        &self,
        p_count: &mut u32,
        ph_drivers: Option<&mut [Option<Handle<kinds::Driver>>]>,
        desc: &ze_init_driver_type_desc_t,
    ) -> ZeResult<()> {
        self.initialized.store(true, Ordering::Relaxed);
        let ty = script().profile().device.device_type;
        let wanted = if ty == ZE_DEVICE_TYPE_VPU {
            desc.flags.contains(ZE_INIT_DRIVER_TYPE_FLAG_NPU)
        } else {
            desc.flags.contains(ZE_INIT_DRIVER_TYPE_FLAG_GPU)
        };
        let n = u32::from(wanted);
        counted(p_count, ph_drivers, n, |out| {
            out[0] = Some(self.driver_handle());
            1
        });
        Ok(())
    }

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
        h_driver.get::<DriverObj>()?;
        *version = ZE_API_VERSION_CURRENT;
        Ok(())
    }

    fn ze_driver_get_properties(
        &self,
        h_driver: Handle<kinds::Driver>,
        p: &mut ze_driver_properties_t,
    ) -> ZeResult<()> {
        h_driver.get::<DriverObj>()?;
        p.uuid.id = DRIVER_UUID;
        p.driverVersion = driver_version();
        // SAFETY: the application passes a valid chain of output structures.
        unsafe {
            for_each_ext(p.pNext, |ext| {
                if (*ext).stype == ZE_STRUCTURE_TYPE_DRIVER_DDI_HANDLES_EXT_PROPERTIES {
                    let d = ext as *mut ze_driver_ddi_handles_ext_properties_t;
                    (*d).flags = ZE_DRIVER_DDI_HANDLE_EXT_FLAG_DDI_HANDLE_EXT_SUPPORTED.into();
                }
            });
        }
        Ok(())
    }

    fn ze_driver_get_ipc_properties(
        &self,
        h_driver: Handle<kinds::Driver>,
        p: &mut ze_driver_ipc_properties_t,
    ) -> ZeResult<()> {
        h_driver.get::<DriverObj>()?;
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
        h_driver.get::<DriverObj>()?;
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
        h_driver.get::<DriverObj>()?;
        Err(fail(ZeError::INVALID_ARGUMENT, || {
            format!(
                "zeDriverGetExtensionFunctionAddress: the mock has no extension function `{}`",
                name.to_string_lossy()
            )
        }))
    }

    fn ze_driver_get_last_error_description(
        &self,
        h_driver: Handle<kinds::Driver>,
        pp_string: &mut *const c_char,
    ) -> ZeResult<()> {
        h_driver.get::<DriverObj>()?;
        *pp_string = last_error::as_ptr();
        Ok(())
    }

    fn ze_driver_get_default_context(
        &self,
        h_driver: Handle<kinds::Driver>,
    ) -> ZeResult<Handle<kinds::Context>> {
        h_driver.get::<DriverObj>()?;
        Ok(self.default_context())
    }

    // ----- device ---------------------------------------------------------------------------

    fn ze_device_get(
        &self,
        h_driver: Handle<kinds::Driver>,
        p_count: &mut u32,
        ph_devices: Option<&mut [Option<Handle<kinds::Device>>]>,
    ) -> ZeResult<()> {
        h_driver.get::<DriverObj>()?;
        counted(p_count, ph_devices, 1, |out| {
            out[0] = Some(self.device_handle());
            1
        });
        Ok(())
    }

    fn ze_device_get_root_device(
        &self,
        h_device: Handle<kinds::Device>,
        ph_root_device: &mut Option<Handle<kinds::Device>>,
    ) -> ZeResult<()> {
        self.check_device(h_device)?;
        // The device is a root device: it has none above it.
        *ph_root_device = None;
        Ok(())
    }

    fn ze_device_get_sub_devices(
        &self,
        h_device: Handle<kinds::Device>,
        p_count: &mut u32,
        _ph_subdevices: Option<&mut [Option<Handle<kinds::Device>>]>,
    ) -> ZeResult<()> {
        self.check_device(h_device)?;
        *p_count = 0;
        Ok(())
    }

    fn ze_device_get_properties(
        &self,
        h_device: Handle<kinds::Device>,
        p: &mut ze_device_properties_t,
    ) -> ZeResult<()> {
        self.check_device(h_device)?;
        script().profile().fill_device_properties(p);
        Ok(())
    }

    fn ze_device_get_compute_properties(
        &self,
        h_device: Handle<kinds::Device>,
        p: &mut ze_device_compute_properties_t,
    ) -> ZeResult<()> {
        self.check_device(h_device)?;
        script().profile().fill_compute_properties(p);
        Ok(())
    }

    fn ze_device_get_module_properties(
        &self,
        h_device: Handle<kinds::Device>,
        p: &mut ze_device_module_properties_t,
    ) -> ZeResult<()> {
        self.check_device(h_device)?;
        script().profile().fill_module_properties(p);
        Ok(())
    }

    fn ze_device_get_command_queue_group_properties(
        &self,
        h_device: Handle<kinds::Device>,
        p_count: &mut u32,
        out: Option<&mut [ze_command_queue_group_properties_t]>,
    ) -> ZeResult<()> {
        self.check_device(h_device)?;
        let profile = script().profile();
        counted(p_count, out, profile.command_queue_group_count(), |out| {
            profile.fill_command_queue_group_properties(out)
        });
        Ok(())
    }

    fn ze_device_get_memory_properties(
        &self,
        h_device: Handle<kinds::Device>,
        p_count: &mut u32,
        out: Option<&mut [ze_device_memory_properties_t]>,
    ) -> ZeResult<()> {
        self.check_device(h_device)?;
        let profile = script().profile();
        counted(p_count, out, profile.memory_count(), |out| {
            profile.fill_memory_properties(out)
        });
        Ok(())
    }

    fn ze_device_get_memory_access_properties(
        &self,
        h_device: Handle<kinds::Device>,
        p: &mut ze_device_memory_access_properties_t,
    ) -> ZeResult<()> {
        self.check_device(h_device)?;
        script().profile().fill_memory_access_properties(p);
        Ok(())
    }

    fn ze_device_get_cache_properties(
        &self,
        h_device: Handle<kinds::Device>,
        p_count: &mut u32,
        out: Option<&mut [ze_device_cache_properties_t]>,
    ) -> ZeResult<()> {
        self.check_device(h_device)?;
        let profile = script().profile();
        counted(p_count, out, profile.cache_count(), |out| {
            profile.fill_cache_properties(out)
        });
        Ok(())
    }

    fn ze_device_get_image_properties(
        &self,
        h_device: Handle<kinds::Device>,
        p: &mut ze_device_image_properties_t,
    ) -> ZeResult<()> {
        self.check_device(h_device)?;
        // No image support: every limit is 0.
        *p = ze_device_image_properties_t {
            stype: p.stype,
            pNext: p.pNext,
            ..Default::default()
        };
        Ok(())
    }

    fn ze_device_get_external_memory_properties(
        &self,
        h_device: Handle<kinds::Device>,
        p: &mut ze_device_external_memory_properties_t,
    ) -> ZeResult<()> {
        self.check_device(h_device)?;
        // No import or export of external memory.
        *p = ze_device_external_memory_properties_t {
            stype: p.stype,
            pNext: p.pNext,
            ..Default::default()
        };
        Ok(())
    }

    fn ze_device_get_p2p_properties(
        &self,
        h_device: Handle<kinds::Device>,
        h_peer_device: Handle<kinds::Device>,
        p: &mut ze_device_p2p_properties_t,
    ) -> ZeResult<()> {
        self.check_device(h_device)?;
        self.check_device(h_peer_device)?;
        p.flags = ze_device_p2p_property_flags_t::empty();
        Ok(())
    }

    fn ze_device_can_access_peer(
        &self,
        h_device: Handle<kinds::Device>,
        h_peer_device: Handle<kinds::Device>,
        value: &mut ze_bool_t,
    ) -> ZeResult<()> {
        self.check_device(h_device)?;
        self.check_device(h_peer_device)?;
        // One device: it can access its own memory.
        *value = ze_bool_t::from(h_device == h_peer_device);
        Ok(())
    }

    fn ze_device_get_status(&self, h_device: Handle<kinds::Device>) -> ZeResult<()> {
        self.check_device(h_device)
    }

    fn ze_device_get_global_timestamps(
        &self,
        h_device: Handle<kinds::Device>,
        host_timestamp: &mut u64,
        device_timestamp: &mut u64,
    ) -> ZeResult<()> {
        self.check_device(h_device)?;
        let t = now_ns();
        *host_timestamp = t;
        *device_timestamp = t;
        Ok(())
    }

    // ----- context --------------------------------------------------------------------------

    fn ze_context_create(
        &self,
        h_driver: Handle<kinds::Driver>,
        _desc: &ze_context_desc_t,
        ph_context: &mut Option<Handle<kinds::Context>>,
    ) -> ZeResult<()> {
        h_driver.get::<DriverObj>()?;
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
        h_driver.get::<DriverObj>()?;
        for d in ph_devices {
            self.check_device(*d)?;
        }
        *ph_context = Some(Handle::new(ContextObj { id: next_id() }));
        Ok(())
    }

    fn ze_context_destroy(&self, h_context: Handle<kinds::Context>) -> ZeResult<()> {
        let id = Self::context_id(h_context)?;
        if self.default_context.get() == Some(&h_context) {
            return Err(fail(ZeError::INVALID_ARGUMENT, || {
                "zeContextDestroy: the driver's default context is not destroyed by the application"
                    .to_string()
            }));
        }
        h_context.destroy()?;
        // The context's allocations go with it.
        free_context(id);
        Ok(())
    }

    fn ze_context_get_status(&self, h_context: Handle<kinds::Context>) -> ZeResult<()> {
        Self::context_id(h_context).map(|_| ())
    }

    // ----- command queue --------------------------------------------------------------------

    fn ze_command_queue_create(
        &self,
        h_context: Handle<kinds::Context>,
        h_device: Handle<kinds::Device>,
        desc: &ze_command_queue_desc_t,
        ph_command_queue: &mut Option<Handle<kinds::CommandQueue>>,
    ) -> ZeResult<()> {
        Self::context_id(h_context)?;
        self.check_device(h_device)?;
        self.queue_group("zeCommandQueueCreate", desc.ordinal, Some(desc.index))?;
        *ph_command_queue = Some(Handle::new(QueueObj {
            id: next_id(),
            ordinal: desc.ordinal,
            index: desc.index,
            mode: desc.mode,
        }));
        Ok(())
    }

    fn ze_command_queue_destroy(&self, h: Handle<kinds::CommandQueue>) -> ZeResult<()> {
        let id = h.get::<QueueObj>()?.id;
        h.destroy()?;
        engine().discard(id);
        Ok(())
    }

    fn ze_command_queue_execute_command_lists(
        &self,
        h: Handle<kinds::CommandQueue>,
        _num_command_lists: u32,
        ph_command_lists: &[Handle<kinds::CommandList>],
        h_fence: Option<Handle<kinds::Fence>>,
    ) -> ZeResult<()> {
        const F: &str = "zeCommandQueueExecuteCommandLists";
        let q = h.get::<QueueObj>()?;
        if ph_command_lists.is_empty() {
            return Err(fail(ZeError::INVALID_SIZE, || {
                format!("{F}: numCommandLists is 0")
            }));
        }
        let fence = match h_fence {
            Some(f) => {
                let f = f.get::<FenceObj>()?;
                if f.queue_id != q.id {
                    return Err(fail(
                        ZeError(ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT),
                        || format!("{F}: the fence belongs to another command queue"),
                    ));
                }
                Some(f.state.clone())
            }
            None => None,
        };
        let mut batches = Vec::with_capacity(ph_command_lists.len());
        for (i, lh) in ph_command_lists.iter().enumerate() {
            let l = lh.get::<ListObj>()?;
            if l.immediate.is_some() {
                return Err(fail(
                    ZeError(ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE),
                    || format!("{F}: phCommandLists[{i}] is an immediate command list"),
                ));
            }
            if l.ordinal != q.ordinal {
                return Err(fail(
                    ZeError(ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE),
                    || {
                        format!(
                        "{F}: phCommandLists[{i}] was created for queue group {}, the queue is of group {}",
                        l.ordinal, q.ordinal
                    )
                    },
                ));
            }
            let st = lock(&l.state);
            match (&st.frozen, st.closed) {
                (Some(cmds), true) => batches.push(Batch {
                    cmds: cmds.clone(),
                    pos: 0,
                    fence: None,
                }),
                _ => {
                    return Err(fail(ZeError::INVALID_ARGUMENT, || {
                        format!("{F}: phCommandLists[{i}] is not closed")
                    }))
                }
            }
        }
        if let Some(last) = batches.last_mut() {
            last.fence = fence;
        }
        engine().submit(q.id, batches);
        if q.mode == ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS {
            let id = q.id;
            engine().wait(F, u64::MAX, |s| s.idle(id))?;
        }
        Ok(())
    }

    fn ze_command_queue_synchronize(
        &self,
        h: Handle<kinds::CommandQueue>,
        timeout: u64,
    ) -> ZeResult<()> {
        let id = h.get::<QueueObj>()?.id;
        engine().wait("zeCommandQueueSynchronize", timeout, |s| s.idle(id))
    }

    fn ze_command_queue_get_ordinal(
        &self,
        h: Handle<kinds::CommandQueue>,
        p_ordinal: &mut u32,
    ) -> ZeResult<()> {
        *p_ordinal = h.get::<QueueObj>()?.ordinal;
        Ok(())
    }

    fn ze_command_queue_get_index(
        &self,
        h: Handle<kinds::CommandQueue>,
        p_index: &mut u32,
    ) -> ZeResult<()> {
        *p_index = h.get::<QueueObj>()?.index;
        Ok(())
    }

    // ----- command list ---------------------------------------------------------------------

    fn ze_command_list_create(
        &self,
        h_context: Handle<kinds::Context>,
        h_device: Handle<kinds::Device>,
        desc: &ze_command_list_desc_t,
        ph_command_list: &mut Option<Handle<kinds::CommandList>>,
    ) -> ZeResult<()> {
        Self::context_id(h_context)?;
        self.check_device(h_device)?;
        self.queue_group("zeCommandListCreate", desc.commandQueueGroupOrdinal, None)?;
        *ph_command_list = Some(Handle::new(ListObj {
            context: h_context,
            device: h_device,
            ordinal: desc.commandQueueGroupOrdinal,
            immediate: None,
            state: Mutex::new(ListState::default()),
        }));
        Ok(())
    }

    fn ze_command_list_create_immediate(
        &self,
        h_context: Handle<kinds::Context>,
        h_device: Handle<kinds::Device>,
        altdesc: &ze_command_queue_desc_t,
        ph_command_list: &mut Option<Handle<kinds::CommandList>>,
    ) -> ZeResult<()> {
        Self::context_id(h_context)?;
        self.check_device(h_device)?;
        self.queue_group(
            "zeCommandListCreateImmediate",
            altdesc.ordinal,
            Some(altdesc.index),
        )?;
        *ph_command_list = Some(Handle::new(ListObj {
            context: h_context,
            device: h_device,
            ordinal: altdesc.ordinal,
            immediate: Some(ImmediateQueue {
                id: next_id(),
                index: altdesc.index,
                mode: altdesc.mode,
            }),
            state: Mutex::new(ListState::default()),
        }));
        Ok(())
    }

    fn ze_command_list_destroy(&self, h: Handle<kinds::CommandList>) -> ZeResult<()> {
        let imm = h.get::<ListObj>()?.immediate.as_ref().map(|i| i.id);
        h.destroy()?;
        if let Some(id) = imm {
            engine().discard(id);
        }
        Ok(())
    }

    fn ze_command_list_close(&self, h: Handle<kinds::CommandList>) -> ZeResult<()> {
        let l = h.get::<ListObj>()?;
        if l.immediate.is_some() {
            // Nothing to close: immediate lists run what is appended.
            return Ok(());
        }
        let mut st = lock(&l.state);
        if !st.closed {
            let cmds = std::mem::take(&mut st.cmds);
            st.frozen = Some(Arc::from(cmds));
            st.closed = true;
        }
        Ok(())
    }

    fn ze_command_list_reset(&self, h: Handle<kinds::CommandList>) -> ZeResult<()> {
        let l = h.get::<ListObj>()?;
        let mut st = lock(&l.state);
        st.cmds.clear();
        st.frozen = None;
        st.closed = false;
        Ok(())
    }

    fn ze_command_list_host_synchronize(
        &self,
        h: Handle<kinds::CommandList>,
        timeout: u64,
    ) -> ZeResult<()> {
        const F: &str = "zeCommandListHostSynchronize";
        let l = h.get::<ListObj>()?;
        let Some(imm) = &l.immediate else {
            return Err(fail(ZeError::INVALID_ARGUMENT, || {
                format!("{F}: not an immediate command list")
            }));
        };
        let id = imm.id;
        engine().wait(F, timeout, |s| s.idle(id))
    }

    fn ze_command_list_get_device_handle(
        &self,
        h: Handle<kinds::CommandList>,
        ph_device: &mut Option<Handle<kinds::Device>>,
    ) -> ZeResult<()> {
        *ph_device = Some(h.get::<ListObj>()?.device);
        Ok(())
    }

    fn ze_command_list_get_context_handle(
        &self,
        h: Handle<kinds::CommandList>,
        ph_context: &mut Option<Handle<kinds::Context>>,
    ) -> ZeResult<()> {
        *ph_context = Some(h.get::<ListObj>()?.context);
        Ok(())
    }

    fn ze_command_list_get_ordinal(
        &self,
        h: Handle<kinds::CommandList>,
        p_ordinal: &mut u32,
    ) -> ZeResult<()> {
        *p_ordinal = h.get::<ListObj>()?.ordinal;
        Ok(())
    }

    fn ze_command_list_immediate_get_index(
        &self,
        h: Handle<kinds::CommandList>,
        p_index: &mut u32,
    ) -> ZeResult<()> {
        match &h.get::<ListObj>()?.immediate {
            Some(i) => {
                *p_index = i.index;
                Ok(())
            }
            None => Err(fail(ZeError::INVALID_ARGUMENT, || {
                "zeCommandListImmediateGetIndex: not an immediate command list".to_string()
            })),
        }
    }

    fn ze_command_list_is_immediate(
        &self,
        h: Handle<kinds::CommandList>,
        p_is_immediate: &mut ze_bool_t,
    ) -> ZeResult<()> {
        *p_is_immediate = ze_bool_t::from(h.get::<ListObj>()?.immediate.is_some());
        Ok(())
    }

    fn ze_command_list_append_barrier(
        &self,
        h: Handle<kinds::CommandList>,
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        let cmd = Cmd {
            waits: events(ph_wait_events)?,
            op: Op::Nop,
            signal: event(h_signal_event)?,
        };
        self.append("zeCommandListAppendBarrier", h, cmd)
    }

    fn ze_command_list_append_memory_ranges_barrier(
        &self,
        h: Handle<kinds::CommandList>,
        _num_ranges: u32,
        _p_range_sizes: &[usize],
        _p_ranges: &[*const c_void],
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        let cmd = Cmd {
            waits: events(ph_wait_events)?,
            op: Op::Nop,
            signal: event(h_signal_event)?,
        };
        self.append("zeCommandListAppendMemoryRangesBarrier", h, cmd)
    }

    fn ze_command_list_append_memory_copy(
        &self,
        h: Handle<kinds::CommandList>,
        dstptr: *mut c_void,
        srcptr: *const c_void,
        size: usize,
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        self.append_copy(
            "zeCommandListAppendMemoryCopy",
            h,
            dstptr,
            srcptr,
            size,
            h_signal_event,
            ph_wait_events,
        )
    }

    fn ze_command_list_append_memory_copy_with_parameters(
        &self,
        h: Handle<kinds::CommandList>,
        dstptr: *mut c_void,
        srcptr: *const c_void,
        size: usize,
        _p_next: *const c_void,
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        self.append_copy(
            "zeCommandListAppendMemoryCopyWithParameters",
            h,
            dstptr,
            srcptr,
            size,
            h_signal_event,
            ph_wait_events,
        )
    }

    fn ze_command_list_append_memory_fill(
        &self,
        h: Handle<kinds::CommandList>,
        ptr: *mut c_void,
        pattern: *const c_void,
        pattern_size: usize,
        size: usize,
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        self.append_fill(
            "zeCommandListAppendMemoryFill",
            h,
            ptr,
            pattern,
            pattern_size,
            size,
            h_signal_event,
            ph_wait_events,
        )
    }

    fn ze_command_list_append_memory_fill_with_parameters(
        &self,
        h: Handle<kinds::CommandList>,
        ptr: *mut c_void,
        pattern: *const c_void,
        pattern_size: usize,
        size: usize,
        _p_next: *const c_void,
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        self.append_fill(
            "zeCommandListAppendMemoryFillWithParameters",
            h,
            ptr,
            pattern,
            pattern_size,
            size,
            h_signal_event,
            ph_wait_events,
        )
    }

    fn ze_command_list_append_memory_copy_region(
        &self,
        h: Handle<kinds::CommandList>,
        dstptr: *mut c_void,
        dst_region: &ze_copy_region_t,
        dst_pitch: u32,
        dst_slice_pitch: u32,
        srcptr: *const c_void,
        src_region: &ze_copy_region_t,
        src_pitch: u32,
        src_slice_pitch: u32,
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        const F: &str = "zeCommandListAppendMemoryCopyRegion";
        let (d, s) = (dst_region, src_region);
        if (d.width, d.height, d.depth) != (s.width, s.height, s.depth) {
            return Err(fail(ZeError::INVALID_ARGUMENT, || {
                format!(
                    "{F}: the regions differ in size ({}x{}x{} vs {}x{}x{})",
                    d.width, d.height, d.depth, s.width, s.height, s.depth
                )
            }));
        }
        // Byte extent of a region: [first byte, one past the last byte).
        let extent =
            |base: usize, r: &ze_copy_region_t, pitch: u32, slice: u32| -> Option<(usize, usize)> {
                let (pitch, slice) = (pitch as usize, slice as usize);
                let start = base
                    .checked_add(r.originZ as usize * slice)?
                    .checked_add(r.originY as usize * pitch)?
                    .checked_add(r.originX as usize)?;
                if r.width == 0 || r.height == 0 || r.depth == 0 {
                    return Some((start, start));
                }
                let last = start
                    .checked_add((r.depth as usize - 1) * slice)?
                    .checked_add((r.height as usize - 1) * pitch)?
                    .checked_add(r.width as usize)?;
                Some((start, last))
            };
        let too_big = || {
            fail(ZeError::INVALID_SIZE, || {
                format!("{F}: a region's extent overflows the address space")
            })
        };
        let (ds, de) =
            extent(dstptr as usize, d, dst_pitch, dst_slice_pitch).ok_or_else(too_big)?;
        let (ss, se) =
            extent(srcptr as usize, s, src_pitch, src_slice_pitch).ok_or_else(too_big)?;
        check_range(F, "dstptr region", ds, de - ds)?;
        check_range(F, "srcptr region", ss, se - ss)?;
        if ds < se && ss < de {
            return Err(fail(ZeError(ZE_RESULT_ERROR_OVERLAPPING_REGIONS), || {
                format!("{F}: the source and destination regions overlap")
            }));
        }
        let cmd = Cmd {
            waits: events(ph_wait_events)?,
            op: Op::CopyRegion(Box::new(Region {
                dst: ds,
                dst_pitch: dst_pitch as usize,
                dst_slice_pitch: dst_slice_pitch as usize,
                src: ss,
                src_pitch: src_pitch as usize,
                src_slice_pitch: src_slice_pitch as usize,
                width: d.width as usize,
                height: d.height as usize,
                depth: d.depth as usize,
            })),
            signal: event(h_signal_event)?,
        };
        self.append(F, h, cmd)
    }

    fn ze_command_list_append_write_global_timestamp(
        &self,
        h: Handle<kinds::CommandList>,
        dstptr: &mut u64,
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        const F: &str = "zeCommandListAppendWriteGlobalTimestamp";
        let dst = dstptr as *mut u64 as usize;
        check_range(F, "dstptr", dst, 8)?;
        let cmd = Cmd {
            waits: events(ph_wait_events)?,
            op: Op::Timestamp { dst },
            signal: event(h_signal_event)?,
        };
        self.append(F, h, cmd)
    }

    fn ze_command_list_append_signal_event(
        &self,
        h: Handle<kinds::CommandList>,
        h_event: Handle<kinds::Event>,
    ) -> ZeResult<()> {
        let e = h_event.get::<EventObj>()?.state.clone();
        let cmd = Cmd {
            waits: Box::new([]),
            op: Op::Signal(e),
            signal: None,
        };
        self.append("zeCommandListAppendSignalEvent", h, cmd)
    }

    fn ze_command_list_append_wait_on_events(
        &self,
        h: Handle<kinds::CommandList>,
        _num_events: u32,
        ph_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        let cmd = Cmd {
            waits: events(ph_events)?,
            op: Op::Nop,
            signal: None,
        };
        self.append("zeCommandListAppendWaitOnEvents", h, cmd)
    }

    fn ze_command_list_append_event_reset(
        &self,
        h: Handle<kinds::CommandList>,
        h_event: Handle<kinds::Event>,
    ) -> ZeResult<()> {
        let e = h_event.get::<EventObj>()?.state.clone();
        let cmd = Cmd {
            waits: Box::new([]),
            op: Op::Reset(e),
            signal: None,
        };
        self.append("zeCommandListAppendEventReset", h, cmd)
    }

    // ----- events ---------------------------------------------------------------------------

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
            return Err(fail(ZeError::INVALID_SIZE, || {
                "zeEventPoolCreate: desc->count is 0".to_string()
            }));
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

    fn ze_event_pool_destroy(&self, h: Handle<kinds::EventPool>) -> ZeResult<()> {
        let live = h.get::<PoolObj>()?.shared.live.load(Ordering::Acquire);
        if live > 0 {
            return Err(fail(ZeError::HANDLE_OBJECT_IN_USE, || {
                format!("zeEventPoolDestroy: {live} events of the pool are not destroyed")
            }));
        }
        h.destroy()
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

    fn ze_event_create(
        &self,
        h_pool: Handle<kinds::EventPool>,
        desc: &ze_event_desc_t,
        ph_event: &mut Option<Handle<kinds::Event>>,
    ) -> ZeResult<()> {
        let pool = h_pool.get::<PoolObj>()?;
        if desc.index >= pool.shared.count {
            return Err(fail(ZeError::INVALID_ARGUMENT, || {
                format!(
                    "zeEventCreate: index {} is out of range (the pool has {} events)",
                    desc.index, pool.shared.count
                )
            }));
        }
        pool.shared.live.fetch_add(1, Ordering::AcqRel);
        *ph_event = Some(Handle::new(EventObj {
            pool: h_pool,
            pool_shared: pool.shared.clone(),
            state: Arc::new(EventState::default()),
            signal_scope: desc.signal,
            wait_scope: desc.wait,
        }));
        Ok(())
    }

    fn ze_event_destroy(&self, h: Handle<kinds::Event>) -> ZeResult<()> {
        let shared = h.get::<EventObj>()?.pool_shared.clone();
        h.destroy()?;
        shared.live.fetch_sub(1, Ordering::AcqRel);
        Ok(())
    }

    fn ze_event_host_signal(&self, h: Handle<kinds::Event>) -> ZeResult<()> {
        engine().signal_event(&h.get::<EventObj>()?.state);
        Ok(())
    }

    fn ze_event_host_synchronize(&self, h: Handle<kinds::Event>, timeout: u64) -> ZeResult<()> {
        let e = h.get::<EventObj>()?.state.clone();
        engine().wait("zeEventHostSynchronize", timeout, |_| e.is_signaled())
    }

    fn ze_event_query_status(&self, h: Handle<kinds::Event>) -> ZeResult<()> {
        if h.get::<EventObj>()?.state.is_signaled() {
            Ok(())
        } else {
            Err(not_ready())
        }
    }

    fn ze_event_host_reset(&self, h: Handle<kinds::Event>) -> ZeResult<()> {
        engine().reset_event(&h.get::<EventObj>()?.state);
        Ok(())
    }

    fn ze_event_query_kernel_timestamp(
        &self,
        h: Handle<kinds::Event>,
        dstptr: &mut ze_kernel_timestamp_result_t,
    ) -> ZeResult<()> {
        let e = &h.get::<EventObj>()?.state;
        if !e.is_signaled() {
            return Err(not_ready());
        }
        // Commands take no time on the mock: start = end = when the event was signaled.
        let t = e.timestamp();
        let data = ze_kernel_timestamp_data_t {
            kernelStart: t,
            kernelEnd: t,
        };
        dstptr.global = data;
        dstptr.context = data;
        Ok(())
    }

    fn ze_event_get_event_pool(
        &self,
        h: Handle<kinds::Event>,
        ph_event_pool: &mut Option<Handle<kinds::EventPool>>,
    ) -> ZeResult<()> {
        *ph_event_pool = Some(h.get::<EventObj>()?.pool);
        Ok(())
    }

    fn ze_event_get_signal_scope(
        &self,
        h: Handle<kinds::Event>,
        p_signal_scope: &mut ze_event_scope_flags_t,
    ) -> ZeResult<()> {
        *p_signal_scope = h.get::<EventObj>()?.signal_scope;
        Ok(())
    }

    fn ze_event_get_wait_scope(
        &self,
        h: Handle<kinds::Event>,
        p_wait_scope: &mut ze_event_scope_flags_t,
    ) -> ZeResult<()> {
        *p_wait_scope = h.get::<EventObj>()?.wait_scope;
        Ok(())
    }

    // ----- fences ---------------------------------------------------------------------------

    fn ze_fence_create(
        &self,
        h_queue: Handle<kinds::CommandQueue>,
        desc: &ze_fence_desc_t,
        ph_fence: &mut Option<Handle<kinds::Fence>>,
    ) -> ZeResult<()> {
        let q = h_queue.get::<QueueObj>()?;
        let state = Arc::new(FenceState::default());
        if desc.flags.contains(ZE_FENCE_FLAG_SIGNALED) {
            engine().signal_fence(&state);
        }
        *ph_fence = Some(Handle::new(FenceObj {
            queue_id: q.id,
            state,
        }));
        Ok(())
    }

    fn ze_fence_destroy(&self, h: Handle<kinds::Fence>) -> ZeResult<()> {
        h.get::<FenceObj>()?;
        h.destroy()
    }

    fn ze_fence_host_synchronize(&self, h: Handle<kinds::Fence>, timeout: u64) -> ZeResult<()> {
        let f = h.get::<FenceObj>()?.state.clone();
        engine().wait("zeFenceHostSynchronize", timeout, |_| f.is_signaled())
    }

    fn ze_fence_query_status(&self, h: Handle<kinds::Fence>) -> ZeResult<()> {
        if h.get::<FenceObj>()?.state.is_signaled() {
            Ok(())
        } else {
            Err(not_ready())
        }
    }

    fn ze_fence_reset(&self, h: Handle<kinds::Fence>) -> ZeResult<()> {
        engine().reset_fence(&h.get::<FenceObj>()?.state);
        Ok(())
    }

    // ----- memory ---------------------------------------------------------------------------

    fn ze_mem_alloc_shared(
        &self,
        h_context: Handle<kinds::Context>,
        device_desc: &ze_device_mem_alloc_desc_t,
        _host_desc: &ze_host_mem_alloc_desc_t,
        size: usize,
        alignment: usize,
        h_device: Option<Handle<kinds::Device>>,
        pptr: &mut *mut c_void,
    ) -> ZeResult<()> {
        self.alloc_checked(
            "zeMemAllocShared",
            h_context,
            ZE_MEMORY_TYPE_SHARED,
            Some(device_desc.ordinal),
            size,
            alignment,
            h_device,
            pptr,
        )
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
        self.alloc_checked(
            "zeMemAllocDevice",
            h_context,
            ZE_MEMORY_TYPE_DEVICE,
            Some(device_desc.ordinal),
            size,
            alignment,
            Some(h_device),
            pptr,
        )
    }

    fn ze_mem_alloc_host(
        &self,
        h_context: Handle<kinds::Context>,
        _host_desc: &ze_host_mem_alloc_desc_t,
        size: usize,
        alignment: usize,
        pptr: &mut *mut c_void,
    ) -> ZeResult<()> {
        self.alloc_checked(
            "zeMemAllocHost",
            h_context,
            ZE_MEMORY_TYPE_HOST,
            None,
            size,
            alignment,
            None,
            pptr,
        )
    }

    fn ze_mem_free(&self, h_context: Handle<kinds::Context>, ptr: *mut c_void) -> ZeResult<()> {
        free("zeMemFree", Self::context_id(h_context)?, ptr)
    }

    fn ze_mem_free_ext(
        &self,
        h_context: Handle<kinds::Context>,
        _desc: &ze_memory_free_ext_desc_t,
        ptr: *mut c_void,
    ) -> ZeResult<()> {
        // Both free policies behave alike: nothing keeps running after a host wait returns.
        free("zeMemFreeExt", Self::context_id(h_context)?, ptr)
    }

    fn ze_mem_get_alloc_properties(
        &self,
        h_context: Handle<kinds::Context>,
        ptr: *const c_void,
        p: &mut ze_memory_allocation_properties_t,
        ph_device: Option<&mut Option<Handle<kinds::Device>>>,
    ) -> ZeResult<()> {
        let ctx = Self::context_id(h_context)?;
        let found = find(ptr as usize).filter(|(_, a)| a.context == ctx);
        let device = match found {
            Some((_, a)) => {
                p.r#type = a.kind;
                p.id = a.id;
                p.pageSize = if a.kind == ZE_MEMORY_TYPE_HOST {
                    4096
                } else {
                    65536
                };
                a.device
            }
            None => {
                p.r#type = ZE_MEMORY_TYPE_UNKNOWN;
                p.id = 0;
                p.pageSize = 0;
                None
            }
        };
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
        let ctx = Self::context_id(h_context)?;
        let Some((base, a)) = find(ptr as usize).filter(|(_, a)| a.context == ctx) else {
            return Err(fail(ZeError::INVALID_ARGUMENT, || {
                format!("zeMemGetAddressRange: {ptr:p} is not in an allocation of this context")
            }));
        };
        if let Some(b) = p_base {
            *b = base as *mut c_void;
        }
        if let Some(s) = p_size {
            *s = a.size;
        }
        Ok(())
    }

    // ----- runtime (zer) --------------------------------------------------------------------

    fn zer_get_last_error_description(&self, pp_string: &mut *const c_char) -> ZeResult<()> {
        *pp_string = last_error::as_ptr();
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
            Err(fail(ZeError::INVALID_ARGUMENT, || {
                format!("zerTranslateIdentifierToDeviceHandle: no device {identifier} (the mock has device 0)")
            }))
        }
    }

    fn zer_get_default_context(&self) -> ZeResult<Handle<kinds::Context>> {
        Ok(self.default_context())
    }
}
