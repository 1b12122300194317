//! The CPU driver through the generated `Driver` trait, called directly (no loader, no C).

// The driver's library (`zekit-cpu`), which the ICD exports.
extern crate zekit_cpu as zekit_driver_core;

use std::ffi::{c_char, c_void, CStr};
use std::ptr::{null, null_mut};

use zekit_driver_core::alloc::{DEFAULT_ALIGNMENT, SUPPORTED_FREE_POLICIES};
use zekit_driver_core::host::host;
use zekit_driver_core::api::CpuDriver;
use zekit_icd_rt::last_error;
use zekit_driver_core::objects::{driver_uuid, EXTENSIONS};
use zekit_icd::kinds;
use zekit_icd::api::*;
use zekit_icd::{Handle, ZeError, ZeResult};
use zekit_sys::*;

/// What the entry layer does with a failed call (these tests call the trait methods directly):
/// log it once and record it as the thread's last error.
fn rec<T>(function: &str, r: ZeResult<T>) -> ZeResult<T> {
    if let Err(e) = &r {
        zekit_icd_rt::failed(function, e.clone(), "");
    }
    r
}

fn driver() -> &'static CpuDriver {
    Box::leak(Box::new(CpuDriver::new(host())))
}

/// A driver after `zeInit(0)`, its driver handle and its device.
fn ready() -> (
    &'static CpuDriver,
    Handle<kinds::Driver>,
    Handle<kinds::Device>,
) {
    let d = driver();
    d.ze_init(ze_init_flags_t::empty()).unwrap();
    let mut n = 1;
    let mut out = [None];
    d.ze_driver_get(&mut n, Some(&mut out)).unwrap();
    assert_eq!(n, 1);
    let drv = out[0].unwrap();
    let mut out = [None];
    d.ze_device_get(drv, &mut n, Some(&mut out)).unwrap();
    (d, drv, out[0].unwrap())
}

fn context(d: &CpuDriver, drv: Handle<kinds::Driver>) -> Handle<kinds::Context> {
    let mut ctx = None;
    d.ze_context_create(drv, &ze_context_desc_t::default(), &mut ctx)
        .unwrap();
    ctx.unwrap()
}

fn c_str(chars: &[c_char]) -> String {
    // SAFETY: the driver NUL-terminates every name it writes.
    unsafe { CStr::from_ptr(chars.as_ptr()) }
        .to_string_lossy()
        .into_owned()
}

// ---------------------------------------------------------------- init

#[test]
fn driver_get_needs_init() {
    let d = driver();
    let mut n = 0;
    assert_eq!(rec("zeDriverGet", d.ze_driver_get(&mut n, None)), Err(ZeError::UNINITIALIZED));
    assert!(last_error().contains("zeDriverGet: ZE_RESULT_ERROR_UNINITIALIZED"));
}

#[test]
fn init_flags() {
    let d = driver();
    // Types a CPU driver is not: UNINITIALIZED, and the driver stays uninitialized.
    for gpu_or_vpu in [
        ze_init_flags_t::GPU_ONLY,
        ze_init_flags_t::VPU_ONLY,
        ze_init_flags_t::GPU_ONLY | ze_init_flags_t::VPU_ONLY,
    ] {
        assert_eq!(d.ze_init(gpu_or_vpu), Err(ZeError::UNINITIALIZED), "{gpu_or_vpu:?}");
        let mut n = 7;
        assert_eq!(d.ze_driver_get(&mut n, None), Err(ZeError::UNINITIALIZED));
    }
    // Unknown bits are ignored (strict refuses them: loader.rs, `init_flags.c`): the loader keeps
    // the first zeInit's answer, so a refusal would fail every later zeInit. The known bits
    // decide: none is the default, which reports the driver.
    d.ze_init(ze_init_flags_t(0x4)).unwrap();
    let mut n = 0;
    d.ze_driver_get(&mut n, None).unwrap();
    assert_eq!(n, 1);
    d.ze_init(ze_init_flags_t::empty()).unwrap();
    d.ze_driver_get(&mut n, None).unwrap();
    assert_eq!(n, 1);
    // A later refused init does not uninitialize it, nor hide it.
    assert_eq!(d.ze_init(ze_init_flags_t::VPU_ONLY), Err(ZeError::UNINITIALIZED));
    assert_eq!(d.ze_init(ze_init_flags_t(0x4 | 0x2)), Err(ZeError::UNINITIALIZED));
    d.ze_driver_get(&mut n, None).unwrap();
    assert_eq!(n, 1);
    // Count semantics: asking for more gives what there is; the same handle every time.
    let mut n = 5;
    let mut out = [None; 5];
    d.ze_driver_get(&mut n, Some(&mut out)).unwrap();
    assert_eq!(n, 1);
    assert_eq!(out[0], Some(d.driver_handle()));
    assert_eq!(out[1], None);
}

#[test]
fn init_drivers_flags() {
    type T = ze_init_driver_type_flags_t;
    let d = driver();
    let desc = |flags| ze_init_driver_type_desc_t {
        flags,
        ..Default::default()
    };
    let mut n = 3;
    assert_eq!(
        d.ze_init_drivers(&mut n, None, &desc(ze_init_driver_type_flags_t(0x10))),
        Err(ZeError::INVALID_ENUMERATION)
    );
    // 0 ("init none") and types a CPU is not: UNINITIALIZED, no handles, nothing initialized.
    for f in [ze_init_driver_type_flags_t(0), T::GPU, T::NPU, T::GPU | T::NPU] {
        let mut n = 3;
        assert_eq!(d.ze_init_drivers(&mut n, None, &desc(f)), Err(ZeError::UNINITIALIZED), "{f:?}");
        assert_eq!(n, 0, "{f:?}");
        assert_eq!(d.ze_driver_get(&mut n, None), Err(ZeError::UNINITIALIZED), "{f:?}");
    }
    let mut n = 0;
    d.ze_init_drivers(&mut n, None, &desc(ze_init_driver_type_flags_t(u32::MAX)))
        .unwrap();
    assert_eq!(n, 1);
    let mut out = [None];
    d.ze_init_drivers(
        &mut n,
        Some(&mut out),
        &desc(ze_init_driver_type_flags_t(u32::MAX)),
    )
    .unwrap();
    assert_eq!(out[0], Some(d.driver_handle()));
    // zeDriverGet agrees.
    d.ze_driver_get(&mut n, None).unwrap();
    assert_eq!(n, 1);
    // Initialized drivers stay so; a call for other types returns none of them.
    let mut n = 3;
    assert_eq!(d.ze_init_drivers(&mut n, None, &desc(T::NPU)), Err(ZeError::UNINITIALIZED));
    assert_eq!(n, 0);
    d.ze_driver_get(&mut n, None).unwrap();
    assert_eq!(n, 1);
}

#[test]
fn gpu_device_type_for_gpu_only_software() {
    use zekit_driver_core::objects::DeviceKind;
    assert_eq!(DeviceKind::from_setting(None), Ok(DeviceKind::Cpu));
    assert_eq!(DeviceKind::from_setting(Some("")), Ok(DeviceKind::Cpu));
    assert_eq!(DeviceKind::from_setting(Some("CPU")), Ok(DeviceKind::Cpu));
    assert_eq!(DeviceKind::from_setting(Some(" gpu ")), Ok(DeviceKind::Gpu));
    assert!(DeviceKind::from_setting(Some("npu")).is_err());

    type T = ze_init_driver_type_flags_t;
    let desc = |flags| ze_init_driver_type_desc_t {
        flags,
        ..Default::default()
    };
    let gpu = || &*Box::leak(Box::new(CpuDriver::with_kind(host(), DeviceKind::Gpu)));
    // zeInit(GPU_ONLY) finds it; VPU_ONLY does not.
    let d = gpu();
    assert_eq!(d.ze_init(ze_init_flags_t::VPU_ONLY), Err(ZeError::UNINITIALIZED));
    let mut n = 7;
    assert_eq!(d.ze_driver_get(&mut n, None), Err(ZeError::UNINITIALIZED));
    d.ze_init(ze_init_flags_t::GPU_ONLY).unwrap();
    d.ze_driver_get(&mut n, None).unwrap();
    assert_eq!(n, 1);
    let mut drv = [None];
    d.ze_driver_get(&mut n, Some(&mut drv)).unwrap();
    let mut dev = [None];
    d.ze_device_get(drv[0].unwrap(), &mut n, Some(&mut dev)).unwrap();
    let mut p = ze_device_properties_t::default();
    d.ze_device_get_properties(dev[0].unwrap(), &mut p).unwrap();
    assert_eq!(p.r#type, ze_device_type_t::GPU);
    // zeInitDrivers(GPU) finds it, NPU alone does not.
    for (flags, expected) in [(T::NPU, 0), (T::GPU, 1), (T::GPU | T::NPU, 1)] {
        let d = gpu();
        let mut n = 5;
        let r = d.ze_init_drivers(&mut n, None, &desc(flags));
        assert_eq!(r, if expected == 1 { Ok(()) } else { Err(ZeError::UNINITIALIZED) }, "{flags:?}");
        assert_eq!(n, expected, "{flags:?}");
    }
    let d = gpu();
    assert_eq!(d.ze_init(ze_init_flags_t::GPU_ONLY | ze_init_flags_t::VPU_ONLY), Ok(()));
    // The default stays a CPU.
    let (d, _, dev) = ready();
    d.ze_device_get_properties(dev, &mut p).unwrap();
    assert_eq!(p.r#type, ze_device_type_t::CPU);
}

// ---------------------------------------------------------------- driver

#[test]
fn driver_properties_and_extensions() {
    let (d, drv, _) = ready();
    let mut v = ze_api_version_t(0);
    d.ze_driver_get_api_version(drv, &mut v).unwrap();
    assert_eq!(v, ze_api_version_t::CURRENT);

    let mut ddi = ze_driver_ddi_handles_ext_properties_t::default();
    let mut free = ze_driver_memory_free_ext_properties_t {
        pNext: (&raw mut ddi).cast(),
        ..Default::default()
    };
    let mut unknown = ze_base_properties_t {
        stype: ze_structure_type_t(0x7fff_0001),
        pNext: (&raw mut free).cast(),
    };
    let mut p = ze_driver_properties_t {
        pNext: (&raw mut unknown).cast(),
        ..Default::default()
    };
    d.ze_driver_get_properties(drv, &mut p).unwrap();
    assert_eq!(p.uuid.id, driver_uuid(host()));
    assert_ne!(p.uuid.id, host().uuid, "driver and device UUIDs differ");
    assert_eq!(p.driverVersion >> 24, 0);
    assert_eq!(
        ddi.flags,
        ze_driver_ddi_handle_ext_flags_t::DDI_HANDLE_EXT_SUPPORTED
    );
    assert_eq!(free.freePolicies, SUPPORTED_FREE_POLICIES);

    let mut ipc = ze_driver_ipc_properties_t {
        flags: ze_ipc_property_flags_t(3),
        ..Default::default()
    };
    d.ze_driver_get_ipc_properties(drv, &mut ipc).unwrap();
    assert_eq!(ipc.flags, ze_ipc_property_flags_t(3), "MEMORY | EVENT_POOL");

    let mut n = 0;
    d.ze_driver_get_extension_properties(drv, &mut n, None)
        .unwrap();
    assert_eq!(n as usize, EXTENSIONS.len());
    let mut out = vec![ze_driver_extension_properties_t::default(); n as usize];
    d.ze_driver_get_extension_properties(drv, &mut n, Some(&mut out))
        .unwrap();
    let names: Vec<(String, u32)> = out.iter().map(|e| (c_str(&e.name), e.version)).collect();
    assert!(names.contains(&(
        "ZE_extension_driver_ddi_handles".into(),
        ZE_MAKE_VERSION(1, 1)
    )));
    assert!(names.contains(&(
        "ZE_extension_memory_free_policies".into(),
        ZE_MAKE_VERSION(1, 0)
    )));
    // Fewer slots than extensions: only that many are written.
    let mut n = 1;
    let mut one = vec![ze_driver_extension_properties_t::default(); 1];
    d.ze_driver_get_extension_properties(drv, &mut n, Some(&mut one))
        .unwrap();
    assert_eq!((n, c_str(&one[0].name)), (1, names[0].0.clone()));
}

#[test]
fn extension_function_address() {
    let (d, drv, _) = ready();
    let mut f: *mut c_void = null_mut();
    let mut resolve = |name: &str| -> ZeResult<*mut c_void> {
        let c = std::ffi::CString::new(name).unwrap();
        d.ze_driver_get_extension_function_address(drv, &c, &mut f).map(|()| f)
    };
    // By name, the generated entry points themselves.
    let expected: [(&str, *mut c_void); 6] = [
        ("zeMemFreeExt", zekit_icd::entry::zeMemFreeExt as *mut c_void),
        ("zeCommandListHostSynchronize", zekit_icd::entry::zeCommandListHostSynchronize as *mut c_void),
        ("zeEventCounterBasedCreate", zekit_icd::entry::zeEventCounterBasedCreate as *mut c_void),
        ("zeCommandListImmediateAppendCommandListsExp", zekit_icd::entry::zeCommandListImmediateAppendCommandListsExp as *mut c_void),
        ("zeEventQueryKernelTimestampsExt", zekit_icd::entry::zeEventQueryKernelTimestampsExt as *mut c_void),
        ("zeCommandQueueGetOrdinal", zekit_icd::entry::zeCommandQueueGetOrdinal as *mut c_void),
    ];
    for (name, address) in expected {
        assert_eq!(resolve(name), Ok(address), "{name}");
    }
    // Every implemented function newer than API 1.4 resolves, each to its own address.
    let dispatch = zekit_driver_core::api::dispatch();
    let mut seen = std::collections::HashSet::new();
    let mut newer = 0;
    for e in zekit_sys::DDI_TABLES.iter().flat_map(|(_, t)| t.iter()).flat_map(|t| t.entries) {
        if e.since > (1, 4) && dispatch.implements_function(e.name) {
            let a = resolve(e.name).unwrap_or_else(|_| panic!("{} does not resolve", e.name));
            assert!(!a.is_null() && seen.insert(a), "{}", e.name);
            newer += 1;
        }
    }
    assert!(newer >= 30, "{newer}");
    // Not by name: functions of API 1.4 that Debian's loader exports, and unknown names.
    for name in ["zeInit", "zeCommandListCreate", "zeFooExt", "zeKernelCreate"] {
        assert_eq!(
            rec("zeDriverGetExtensionFunctionAddress", resolve(name)),
            Err(ZeError::INVALID_ARGUMENT),
            "{name}"
        );
    }
}

#[test]
fn last_error_is_per_thread() {
    let (d, drv, _) = ready();
    let ctx = context(d, drv);
    let mut p: *mut c_void = null_mut();
    assert_eq!(
        rec("zeMemAllocHost", d.ze_mem_alloc_host(ctx, &Default::default(), 64, 3, &mut p)),
        Err(ZeError::UNSUPPORTED_ALIGNMENT)
    );
    let mut s: *const c_char = null();
    d.ze_driver_get_last_error_description(drv, &mut s).unwrap();
    // SAFETY: the driver returns a NUL-terminated string valid until the next error here.
    let text = unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned();
    assert!(
        text.starts_with(
            "zeMemAllocHost: ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT: alignment 3 is not 0 or a power of two"
        ),
        "{text}"
    );
    // Successful calls leave it alone.
    d.ze_context_get_status(ctx).unwrap();
    assert_eq!(last_error(), text);
    // Another thread has its own.
    let other = std::thread::spawn(last_error).join().unwrap();
    assert_eq!(other, "");
    d.ze_context_destroy(ctx).unwrap();
}

// ---------------------------------------------------------------- device

#[test]
fn device_queries_match_properties_rs() {
    let (d, drv, dev) = ready();
    let h = host();

    let mut eu = ze_eu_count_ext_t::default();
    let mut usable = ze_device_usablemem_size_ext_properties_t {
        pNext: (&raw mut eu).cast(),
        ..Default::default()
    };
    let mut p = ze_device_properties_t {
        pNext: (&raw mut usable).cast(),
        ..Default::default()
    };
    d.ze_device_get_properties(dev, &mut p).unwrap();
    let mut expected = ze_device_properties_t::default();
    zekit_driver_core::properties::fill_device_properties(h, &mut expected);
    assert_eq!(p.r#type, ze_device_type_t::CPU);
    assert_eq!(p.name, expected.name);
    assert_eq!(p.maxMemAllocSize, h.total_memory);
    assert_eq!(eu.numTotalEUs, h.usable_cores);
    assert!(usable.currUsableMemSize > 0 && usable.currUsableMemSize <= h.total_memory);

    let mut c = ze_device_compute_properties_t::default();
    d.ze_device_get_compute_properties(dev, &mut c).unwrap();
    let sizes = zekit_spirv::ir::SUB_GROUP_SIZES;
    assert_eq!(c.numSubGroupSizes as usize, sizes.len());
    assert_eq!(c.subGroupSizes[..sizes.len()], sizes);
    let mut m = ze_device_module_properties_t::default();
    d.ze_device_get_module_properties(dev, &mut m).unwrap();
    assert_eq!(m.fp32flags, zekit_driver_core::properties::fp32_flags(h));

    let mut n = 0;
    d.ze_device_get_command_queue_group_properties(dev, &mut n, None)
        .unwrap();
    assert_eq!(n, 2, "a compute group and a copy group");
    d.ze_device_get_memory_properties(dev, &mut n, None)
        .unwrap();
    assert_eq!(n, 1);
    let mut mem = [ze_device_memory_properties_t::default()];
    d.ze_device_get_memory_properties(dev, &mut n, Some(&mut mem))
        .unwrap();
    assert_eq!(mem[0].totalSize, h.total_memory);

    let caches = zekit_driver_core::properties::cache_properties(h);
    let mut n = 0;
    d.ze_device_get_cache_properties(dev, &mut n, None).unwrap();
    assert_eq!(n as usize, caches.len());
    let mut lines = vec![ze_device_cache_line_size_ext_t::default(); caches.len()];
    let mut out: Vec<ze_device_cache_properties_t> = lines
        .iter_mut()
        .map(|l| ze_device_cache_properties_t {
            pNext: (l as *mut ze_device_cache_line_size_ext_t).cast(),
            ..Default::default()
        })
        .collect();
    d.ze_device_get_cache_properties(dev, &mut n, Some(&mut out))
        .unwrap();
    for (o, l) in out.iter().zip(&lines) {
        assert!(o.cacheSize > 0);
        assert_eq!(l.cacheLineSize, h.cache_line_size() as usize);
    }

    let mut a = ze_device_memory_access_properties_t::default();
    d.ze_device_get_memory_access_properties(dev, &mut a)
        .unwrap();
    assert_eq!(
        a.hostAllocCapabilities,
        zekit_driver_core::properties::memory_access_caps()
    );
    let mut i = ze_device_image_properties_t {
        maxSamplers: 3,
        ..Default::default()
    };
    d.ze_device_get_image_properties(dev, &mut i).unwrap();
    assert_eq!(i.maxSamplers, 16);
    let mut e = ze_device_external_memory_properties_t::default();
    d.ze_device_get_external_memory_properties(dev, &mut e)
        .unwrap();

    let mut p2p = ze_device_p2p_properties_t::default();
    d.ze_device_get_p2p_properties(dev, dev, &mut p2p).unwrap();
    assert_eq!(
        p2p.flags,
        ze_device_p2p_property_flags_t::ACCESS | ze_device_p2p_property_flags_t::ATOMICS
    );
    let mut can = 0;
    d.ze_device_can_access_peer(dev, dev, &mut can).unwrap();
    assert_eq!(can, 1);

    d.ze_device_get_status(dev).unwrap();
    d.ze_device_synchronize(dev).unwrap();
    let (mut h1, mut d1) = (0, 0);
    d.ze_device_get_global_timestamps(dev, &mut h1, &mut d1)
        .unwrap();
    let now = zekit_driver_core::host::now_ns();
    assert!(h1 > 0 && h1 <= now && d1 == h1);

    let mut n = 4;
    let mut subs = [None; 4];
    d.ze_device_get_sub_devices(dev, &mut n, Some(&mut subs))
        .unwrap();
    assert_eq!(n, 0);
    let mut root = Some(dev);
    d.ze_device_get_root_device(dev, &mut root).unwrap();
    assert_eq!(root, None);

    let mut v = 0;
    d.ze_device_get_aggregated_copy_offload_increment_value(dev, &mut v)
        .unwrap();
    assert_eq!(v, 1);
    let mut max = 0;
    d.ze_device_get_counter_based_event_max_value(dev, &mut max)
        .unwrap();
    assert_eq!(max, u64::MAX);

    // Same device handles every call.
    let mut n = 1;
    let mut again = [None];
    d.ze_device_get(drv, &mut n, Some(&mut again)).unwrap();
    assert_eq!(again[0], Some(dev));
}

#[test]
fn runtime_requirements() {
    let (d, _, dev) = ready();
    let mut key: *const c_char = null();
    d.ze_device_get_runtime_requirements_key(dev, &mut key)
        .unwrap();
    // SAFETY: a 'static C string.
    assert_eq!(unsafe { CStr::from_ptr(key) }, c"ZEKIT.L0.CPU");

    // Requirements of a module: only a live module handle of this driver is accepted. No module
    // can be created yet, so the test makes a module object itself.
    let module = Handle::<kinds::Module>::new(());
    let desc = ze_runtime_requirements_module_desc_t {
        requirementsSrc: module.raw().cast(),
        ..Default::default()
    };
    let text = zekit_driver_core::properties::runtime_requirements(host());
    let mut size = 0;
    d.ze_device_get_runtime_requirements(dev, (&raw const desc).cast(), &mut size, null_mut())
        .unwrap();
    assert_eq!(size, text.len() + 1, "with the NUL");
    let mut buf = vec![0x55 as c_char; size + 4];
    d.ze_device_get_runtime_requirements(
        dev,
        (&raw const desc).cast(),
        &mut size,
        buf.as_mut_ptr(),
    )
    .unwrap();
    // SAFETY: NUL-terminated by the driver.
    let written = unsafe { CStr::from_ptr(buf.as_ptr()) };
    assert_eq!(written.to_str().unwrap(), text);
    assert_eq!(buf[size], 0x55, "nothing written past the string");
    // Too small: size updated, nothing written.
    let mut small = 3;
    let mut tiny = [0x55 as c_char; 3];
    d.ze_device_get_runtime_requirements(
        dev,
        (&raw const desc).cast(),
        &mut small,
        tiny.as_mut_ptr(),
    )
    .unwrap();
    assert_eq!((small, tiny), (text.len() + 1, [0x55; 3]));

    // The requirements it wrote validate as met.
    let mut out = ze_validate_runtime_requirements_output_t::default();
    // SAFETY: NUL-terminated above.
    let req = unsafe { CStr::from_ptr(buf.as_ptr()) };
    d.ze_device_validate_runtime_requirements(dev, req, &mut out)
        .unwrap();
    assert_eq!(
        out.result,
        ze_validate_runtime_requirements_result_t::REQUIREMENTS_MET
    );

    // Wrong kinds and shapes.
    let graph_desc = ze_runtime_requirements_graph_desc_t {
        requirementsSrc: module.raw().cast(),
        ..Default::default()
    };
    assert_eq!(
        d.ze_device_get_runtime_requirements(
            dev,
            (&raw const graph_desc).cast(),
            &mut size,
            null_mut()
        ),
        Err(ZeError::INVALID_ARGUMENT),
        "a module is not a graph"
    );
    let other = ze_context_desc_t::default();
    assert_eq!(
        d.ze_device_get_runtime_requirements(dev, (&raw const other).cast(), &mut size, null_mut()),
        Err(ZeError::INVALID_ARGUMENT)
    );
    assert_eq!(
        d.ze_device_get_runtime_requirements(dev, null(), &mut size, null_mut()),
        Err(ZeError::INVALID_NULL_POINTER)
    );
    module.release().unwrap();
    assert_eq!(
        d.ze_device_get_runtime_requirements(dev, (&raw const desc).cast(), &mut size, null_mut()),
        Err(ZeError::INVALID_ARGUMENT),
        "destroyed module"
    );
}

#[test]
fn compiler_info() {
    let (d, _, dev) = ready();
    for p in [
        ze_device_compiler_info_t::SPIRV_CAPABILITIES,
        ze_device_compiler_info_t::SPIRV_EXTENSIONS,
        ze_device_compiler_info_t::COMPILER_OPTIONS,
        ze_device_compiler_info_t::DRIVER_OPTIONS,
    ] {
        let mut size = 17;
        let mut data = [0xEEu8; 4];
        d.ze_device_get_compiler_info(dev, p, null(), &mut size, data.as_mut_ptr().cast())
            .unwrap();
        assert_eq!((size, data), (0, [0xEE; 4]));
    }
    let mut size = 0;
    assert_eq!(
        d.ze_device_get_compiler_info(
            dev,
            ze_device_compiler_info_t(99),
            null(),
            &mut size,
            null_mut()
        ),
        Err(ZeError::INVALID_ENUMERATION)
    );
}

// ---------------------------------------------------------------- contexts

#[test]
fn contexts() {
    let (d, drv, dev) = ready();
    let desc = ze_context_desc_t::default();
    let mut a = None;
    d.ze_context_create_ex(drv, &desc, 1, &[dev], &mut a)
        .unwrap();
    let a = a.unwrap();
    let mut b = None;
    d.ze_context_create_ex(drv, &desc, 0, &[], &mut b).unwrap();
    let b = b.unwrap();
    d.ze_context_get_status(a).unwrap();
    let bad = ze_context_desc_t {
        flags: ze_context_flags_t(0x2),
        ..Default::default()
    };
    let mut c = None;
    assert_eq!(
        d.ze_context_create(drv, &bad, &mut c),
        Err(ZeError::INVALID_ENUMERATION)
    );
    assert_eq!(c, None);

    // Destroying a context frees its allocations; its handle is dead afterwards.
    let mut p: *mut c_void = null_mut();
    d.ze_mem_alloc_device(a, &Default::default(), 1 << 16, 0, dev, &mut p)
        .unwrap();
    d.ze_context_destroy(a).unwrap();
    a.release().unwrap(); // what the entry layer does after a `[release]` function succeeds
    assert_eq!(
        Handle::<kinds::Context>::from_raw(a.raw()),
        Err(ZeError::INVALID_ARGUMENT)
    );
    d.ze_context_destroy(b).unwrap();
}

#[test]
fn wrong_handle_values_are_rejected() {
    let (d, drv, dev) = ready();
    // A context handle whose object is not a context of this driver.
    let fake = Handle::<kinds::Context>::new(42u32);
    assert_eq!(
        rec("zeContextGetStatus", d.ze_context_get_status(fake)),
        Err(ZeError::INVALID_ARGUMENT)
    );
    assert!(last_error().contains("is not a ze_context_handle_t of this driver"), "{}", last_error());
    let mut p: *mut c_void = null_mut();
    assert_eq!(
        d.ze_mem_alloc_host(fake, &Default::default(), 8, 0, &mut p),
        Err(ZeError::INVALID_ARGUMENT)
    );
    fake.release().unwrap();
    let fake_dev = Handle::<kinds::Device>::new("not a device");
    let mut props = ze_device_properties_t::default();
    assert_eq!(
        d.ze_device_get_properties(fake_dev, &mut props),
        Err(ZeError::INVALID_ARGUMENT)
    );
    let mut can = 0;
    assert_eq!(
        d.ze_device_can_access_peer(dev, fake_dev, &mut can),
        Err(ZeError::INVALID_ARGUMENT)
    );
    fake_dev.release().unwrap();
    let fake_drv = Handle::<kinds::Driver>::new(());
    let mut n = 0;
    assert_eq!(
        d.ze_device_get(fake_drv, &mut n, None),
        Err(ZeError::INVALID_ARGUMENT)
    );
    fake_drv.release().unwrap();
    // The device handle is not a context handle.
    assert_eq!(
        Handle::<kinds::Context>::from_raw(dev.raw()),
        Err(ZeError::INVALID_ARGUMENT)
    );
    let _ = drv;
}

// ---------------------------------------------------------------- memory

#[test]
fn allocations() {
    let (d, drv, dev) = ready();
    let ctx = context(d, drv);
    let page = host().page_size;

    let mut ptrs = Vec::new();
    for (i, align) in [0usize, 1, 16, 64, 4096, 1 << 21].into_iter().enumerate() {
        let size = 100 + i * 1000;
        let mut h: *mut c_void = null_mut();
        d.ze_mem_alloc_host(ctx, &Default::default(), size, align, &mut h)
            .unwrap();
        let mut dv: *mut c_void = null_mut();
        d.ze_mem_alloc_device(ctx, &Default::default(), size, align, dev, &mut dv)
            .unwrap();
        let mut s: *mut c_void = null_mut();
        d.ze_mem_alloc_shared(
            ctx,
            &Default::default(),
            &Default::default(),
            size,
            align,
            Some(dev),
            &mut s,
        )
        .unwrap();
        for (p, ty) in [
            (h, ze_memory_type_t::HOST),
            (dv, ze_memory_type_t::DEVICE),
            (s, ze_memory_type_t::SHARED),
        ] {
            let align = if align == 0 { DEFAULT_ALIGNMENT } else { align };
            assert_eq!(p as usize % align, 0);
            let interior = p.cast::<u8>().wrapping_add(size - 1).cast::<c_void>();
            let mut props = ze_memory_allocation_properties_t::default();
            let mut owner = None;
            d.ze_mem_get_alloc_properties(ctx, interior, &mut props, Some(&mut owner))
                .unwrap();
            assert_eq!((props.r#type, props.pageSize), (ty, page));
            assert_eq!(owner.is_none(), ty == ze_memory_type_t::HOST);
            if let Some(o) = owner {
                assert_eq!(o.raw(), dev.raw());
            }
            let mut base: *mut c_void = null_mut();
            let mut len = 0;
            d.ze_mem_get_address_range(ctx, interior, Some(&mut base), Some(&mut len))
                .unwrap();
            assert_eq!((base, len), (p, size));
            ptrs.push(p);
        }
    }

    // Bad requests.
    let mut p: *mut c_void = null_mut();
    assert_eq!(
        d.ze_mem_alloc_host(ctx, &Default::default(), 8, 24, &mut p),
        Err(ZeError::UNSUPPORTED_ALIGNMENT)
    );
    assert_eq!(
        d.ze_mem_alloc_host(ctx, &Default::default(), 0, 0, &mut p),
        Err(ZeError::UNSUPPORTED_SIZE)
    );
    let max = host().total_memory as usize;
    assert_eq!(
        rec("zeMemAllocDevice", d.ze_mem_alloc_device(ctx, &Default::default(), max + 1, 0, dev, &mut p)),
        Err(ZeError::UNSUPPORTED_SIZE)
    );
    assert!(last_error().contains("ze_relaxed_allocation_limits_ext_desc_t"));
    let bad_host = ze_host_mem_alloc_desc_t {
        flags: ze_host_mem_alloc_flags_t(0x100),
        ..Default::default()
    };
    assert_eq!(
        d.ze_mem_alloc_host(ctx, &bad_host, 8, 0, &mut p),
        Err(ZeError::INVALID_ENUMERATION)
    );
    // A GPU-shaped memory ordinal is read as the one memory (compatible validation; strict
    // refuses it: tests/loader.rs, `leniency.c`).
    let gpu_ordinal = ze_device_mem_alloc_desc_t {
        ordinal: 1,
        ..Default::default()
    };
    d.ze_mem_alloc_device(ctx, &gpu_ordinal, 8, 0, dev, &mut p).unwrap();
    assert!(!p.is_null());
    d.ze_mem_free(ctx, p).unwrap();

    // Unknown pointers.
    let local = 0u64;
    let mut props = ze_memory_allocation_properties_t::default();
    d.ze_mem_get_alloc_properties(ctx, (&raw const local).cast(), &mut props, None)
        .unwrap();
    assert_eq!((props.r#type, props.id), (ze_memory_type_t::UNKNOWN, 0));
    assert_eq!(
        d.ze_mem_get_address_range(ctx, (&raw const local).cast(), None, None)
            .map_err(|e| e.code()),
        Err(ZE_RESULT_ERROR_ADDRESS_NOT_FOUND)
    );

    // Frees.
    assert_eq!(
        rec("zeMemFree", d.ze_mem_free(ctx, ptrs[0].cast::<u8>().wrapping_add(1).cast())),
        Err(ZeError::INVALID_ARGUMENT)
    );
    assert!(last_error().contains("free takes the base address"));
    type F = ze_driver_memory_free_policy_ext_flags_t;
    let policies = [F::empty(), F::BLOCKING_FREE, F::DEFER_FREE];
    for (i, p) in ptrs.iter().enumerate() {
        if i % 2 == 0 {
            d.ze_mem_free(ctx, *p).unwrap();
        } else {
            let desc = ze_memory_free_ext_desc_t {
                freePolicy: policies[i % 3],
                ..Default::default()
            };
            d.ze_mem_free_ext(ctx, &desc, *p).unwrap();
        }
    }
    assert_eq!(d.ze_mem_free(ctx, ptrs[0]), Err(ZeError::INVALID_ARGUMENT));
    let both = ze_memory_free_ext_desc_t {
        freePolicy: F::BLOCKING_FREE | F::DEFER_FREE,
        ..Default::default()
    };
    let mut q: *mut c_void = null_mut();
    d.ze_mem_alloc_host(ctx, &Default::default(), 8, 0, &mut q)
        .unwrap();
    assert_eq!(
        d.ze_mem_free_ext(ctx, &both, q),
        Err(ZeError::INVALID_ENUMERATION)
    );
    d.ze_mem_free(ctx, q).unwrap();
    d.ze_context_destroy(ctx).unwrap();
}

#[test]
fn allocations_belong_to_their_context() {
    let (d, drv, _) = ready();
    let a = context(d, drv);
    let b = context(d, drv);
    let mut p: *mut c_void = null_mut();
    d.ze_mem_alloc_host(a, &Default::default(), 32, 0, &mut p)
        .unwrap();
    let mut props = ze_memory_allocation_properties_t::default();
    d.ze_mem_get_alloc_properties(b, p, &mut props, None)
        .unwrap();
    assert_eq!(props.r#type, ze_memory_type_t::UNKNOWN);
    assert_eq!(d.ze_mem_free(b, p), Err(ZeError::INVALID_ARGUMENT));
    let mut q: *mut c_void = null_mut();
    d.ze_mem_alloc_host(b, &Default::default(), 32, 0, &mut q)
        .unwrap();
    let (mut ia, mut ib) = (props, props);
    d.ze_mem_get_alloc_properties(a, p, &mut ia, None)
        .unwrap();
    d.ze_mem_get_alloc_properties(b, q, &mut ib, None)
        .unwrap();
    assert_ne!(ia.id, ib.id, "ids are unique across contexts");
    d.ze_context_destroy(a).unwrap();
    d.ze_context_destroy(b).unwrap();
}

#[test]
fn relaxed_allocation_limits() {
    let (d, drv, dev) = ready();
    let ctx = context(d, drv);
    let mut p: *mut c_void = null_mut();
    // Unknown flag bits in either descriptor version.
    let bad = ze_relaxed_allocation_limits_exp_desc_t {
        flags: ze_relaxed_allocation_limits_exp_flags_t(0x6),
        ..Default::default()
    };
    let desc = ze_device_mem_alloc_desc_t {
        pNext: (&raw const bad).cast(),
        ..Default::default()
    };
    assert_eq!(
        d.ze_mem_alloc_device(ctx, &desc, 64, 0, dev, &mut p),
        Err(ZeError::INVALID_ENUMERATION)
    );
    // MAX_SIZE behind an unrelated structure in the host descriptor's chain: the size limit is
    // lifted (the system allocator may still refuse so much memory, but not with UNSUPPORTED_SIZE).
    let relaxed = ze_relaxed_allocation_limits_ext_desc_t {
        flags: ze_relaxed_allocation_limits_ext_flags_t::MAX_SIZE,
        ..Default::default()
    };
    let unrelated = ze_base_desc_t {
        stype: ze_structure_type_t::EU_COUNT_EXT,
        pNext: (&raw const relaxed).cast(),
    };
    let host_desc = ze_host_mem_alloc_desc_t {
        pNext: (&raw const unrelated).cast(),
        ..Default::default()
    };
    let over = host().total_memory as usize + 4096;
    match d.ze_mem_alloc_host(ctx, &host_desc, over, 0, &mut p) {
        Ok(()) => d.ze_mem_free(ctx, p).unwrap(),
        Err(e) => assert_eq!(e, ZeError::OUT_OF_HOST_MEMORY),
    }
    // A small relaxed allocation works as usual.
    d.ze_mem_alloc_shared(ctx, &Default::default(), &host_desc, 64, 0, None, &mut p)
        .unwrap();
    d.ze_mem_free(ctx, p).unwrap();
    d.ze_context_destroy(ctx).unwrap();
}

// ---------------------------------------------------------------- what the driver implements

#[test]
fn implemented_functions_exist_and_are_offered() {
    let d = zekit_driver_core::api::dispatch();
    let all: Vec<&str> = zekit_sys::DDI_TABLES
        .iter()
        .flat_map(|(_, tables)| tables.iter())
        .flat_map(|t| t.entries.iter().map(|e| e.name))
        .collect();
    let implemented: Vec<&str> =
        zekit_icd::FUNCTIONS.iter().filter(|f| d.implements(f.method)).map(|f| f.name).collect();
    assert_eq!(implemented.len(), 220);
    for f in &implemented {
        assert!(all.contains(f), "{f} is not a function of the API");
        assert!(d.implements_function(f));
    }
    for f in ["zeKernelCreate", "zeModuleCreate", "zeCommandListAppendLaunchKernel"] {
        assert!(d.implements_function(f), "{f}");
    }
    for f in ["zesInit", "zeDriverGetDefaultContext"] {
        assert!(!d.implements_function(f), "{f}");
    }
}
