//! The plausibility sweep: with no scenario loaded, a program calls every modeled function
//! that hands something back, with valid arguments, and every output is checked for a value a
//! real driver could return.
//!
//! Two layers:
//!
//! * rules over the call log, driven by the spec's table of output parameters
//!   (`zekit_mock::generated::OUTPUTS`, emitted by `codegen/src/emit_mock.rs`): every modeled
//!   function with an output must have succeeded here at least once, and what each successful
//!   call wrote (the log renders outputs after the call) must pass the generic rules: pointers
//!   and strings handed out are non-null, no member named like a size, page size, alignment,
//!   clock, bus width, limit or count of queues or EUs is 0, alignments are powers of two,
//!   UUIDs are not all zeros;
//! * checks of meaning beside the calls: counts consistent with arrays, handles non-null and
//!   live (the log shows only the address a handle was written to, so the program destroys
//!   each handle it was given exactly once, or compares it with the one it must be),
//!   timestamps monotonic, kernel timestamps ordered.

use std::collections::BTreeSet;
use std::ffi::{c_char, c_void, CStr, CString};
use std::ptr::{null, null_mut};

use zekit_icd::entry as ze;
use zekit_sys::*;

macro_rules! ok {
    ($call:expr) => {{
        // SAFETY: valid arguments, as a correct C program would pass.
        let r = unsafe { $call };
        assert_eq!(r, ZE_RESULT_SUCCESS, "{}", stringify!($call));
    }};
}

/// Modeled functions with outputs that never succeed, and why that is what a driver does.
const NEVER_SUCCEED: &[(&str, &str)] = &[(
    "zeDriverGetExtensionFunctionAddress",
    "the mock has no extension functions: every name is INVALID_ARGUMENT",
)];

/// Output members a device may report as 0, and why; every other member named like a size,
/// limit or rate must not be 0.
const ZERO_ALLOWED: &[(&str, &str)] = &[
    (
        "zeKernelGetProperties.localMemSize",
        "a kernel without local memory",
    ),
    (
        "zeKernelGetProperties.privateMemSize",
        "a kernel without private arrays",
    ),
    ("zeKernelGetProperties.spillMemSize", "nothing spilled"),
    (
        "zeKernelGetProperties.requiredGroupSizeX",
        "no reqd_work_group_size",
    ),
    (
        "zeKernelGetProperties.requiredGroupSizeY",
        "no reqd_work_group_size",
    ),
    (
        "zeKernelGetProperties.requiredGroupSizeZ",
        "no reqd_work_group_size",
    ),
    (
        "zeKernelGetProperties.requiredSubgroupSize",
        "no required sub-group size",
    ),
    ("zeDeviceGetProperties.subdeviceId", "a root device"),
    (
        "zeDeviceGetProperties.maxCommandQueuePriority",
        "priorities are not supported",
    ),
];

/// Whether an output member called `name` is a size, limit, rate or count a device can't have
/// as 0.
fn must_be_nonzero(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    let words = [
        "size",
        "dims",
        "clock",
        "buswidth",
        "numqueues",
        "numeus",
        "simdwidth",
        "numthreads",
        "numslices",
        "numsubslices",
        "resolution",
        "validbits",
        "alignment",
        "maxgroup",
        "maxtotalgroup",
        "maxhardwarecontexts",
        "maxsamplers",
        "imageargs",
        "arrayslices",
        "sharedlocalmemory",
        "spirvversion",
        "apiversion",
        "driverversion",
        "vendorid",
    ];
    words.iter().any(|w| n.contains(w)) && !n.contains("flags")
}

/// `name: 123` pairs of a rendered struct (nested structs too), in order.
fn numeric_members(rendered: &str) -> Vec<(String, u128)> {
    let mut out = vec![];
    let b = rendered.as_bytes();
    let mut i = 0;
    while let Some(k) = rendered[i..].find(": ") {
        let colon = i + k;
        let start = rendered[..colon]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(0, |s| s + 1);
        let name = &rendered[start..colon];
        let mut end = colon + 2;
        while end < b.len() && b[end].is_ascii_digit() {
            end += 1;
        }
        let digits = &rendered[colon + 2..end];
        let terminated = end == b.len() || matches!(b[end], b',' | b' ' | b'}');
        if !name.is_empty() && !digits.is_empty() && terminated {
            if let Ok(v) = digits.parse() {
                out.push((name.to_string(), v));
            }
        }
        i = colon + 2;
    }
    out
}

/// The generic rules over one successful call's rendered output `value` of parameter `param`
/// (C type `ty`) of `function`, adding what is implausible to `bad`; false when the caller
/// passed no pointer (nothing was written).
fn check_output(function: &str, param: &str, ty: &str, value: &str, bad: &mut Vec<String>) -> bool {
    // Rendered as `0xADDR -> VALUE` when the caller gave a pointer; null: the caller passed
    // none (an optional output).
    let Some((_, v)) = value.split_once(" -> ") else {
        return false;
    };
    let v = v.trim();
    let t = ty.trim_end_matches('*').trim();
    let handle_out = t.ends_with("_handle_t") && ty.ends_with('*');
    let is_null = v == "0x0" || v == "None" || v == "null";
    if handle_out && is_null && function != "zeDeviceGetRootDevice" && !param.starts_with("pCount")
    {
        bad.push(format!("{function}: {param} is a null handle"));
    }
    if (ty.ends_with("void**") || ty.ends_with("char**")) && is_null {
        bad.push(format!("{function}: {param} is a null pointer"));
    }
    if ty == "size_t*" && param.to_ascii_lowercase().contains("size") && v == "0" {
        bad.push(format!("{function}: {param} is 0"));
    }
    for (name, n) in numeric_members(v) {
        let key = format!("{function}.{name}");
        if n == 0 && must_be_nonzero(&name) && !ZERO_ALLOWED.iter().any(|(k, _)| *k == key) {
            bad.push(format!("{key} is 0"));
        }
        if name.to_ascii_lowercase().contains("alignment") && n != 0 && !n.is_power_of_two() {
            bad.push(format!("{key} = {n} is not a power of two"));
        }
    }
    let mut rest = v;
    while let Some(at) = rest.find("uuid: ") {
        rest = &rest[at + 6..];
        let ids = rest
            .split_once('[')
            .and_then(|(_, r)| r.split_once(']'))
            .map(|(ids, _)| ids)
            .unwrap_or("");
        if !ids.is_empty() && ids.split(',').all(|x| x.trim() == "0") {
            bad.push(format!("{function}.{param}: a uuid of zeros"));
        }
    }
    true
}

fn c_str(p: *const c_char) -> String {
    assert!(!p.is_null());
    // SAFETY: a NUL-terminated string the mock handed out.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

fn spirv(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/../spirv/kernels/{name}.spv",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

/// Calls every modeled function that has outputs, with valid arguments, checking what the
/// outputs mean where one call is not enough to tell.
fn run_program() {
    ok!(ze::zeInit(ze_init_flags_t(0)));
    let mut n = 0;
    let mut desc = ze_init_driver_type_desc_t {
        flags: ZE_INIT_DRIVER_TYPE_FLAG_GPU.into(),
        ..Default::default()
    };
    ok!(ze::zeInitDrivers(&mut n, null_mut(), &mut desc));
    assert_eq!(n, 1);
    let mut driver = null_mut();
    ok!(ze::zeInitDrivers(&mut n, &mut driver, &mut desc));
    n = 0;
    ok!(ze::zeDriverGet(&mut n, null_mut()));
    assert_eq!(n, 1);
    ok!(ze::zeDriverGet(&mut n, &mut driver));
    let mut version = ze_api_version_t(0);
    ok!(ze::zeDriverGetApiVersion(driver, &mut version));
    assert!(version.0 >= ze_api_version_t::_1_0.0);
    let mut dp = ze_driver_properties_t::default();
    ok!(ze::zeDriverGetProperties(driver, &mut dp));
    let mut ipc = ze_driver_ipc_properties_t::default();
    ok!(ze::zeDriverGetIpcProperties(driver, &mut ipc));
    n = 0;
    ok!(ze::zeDriverGetExtensionProperties(
        driver,
        &mut n,
        null_mut()
    ));
    assert!(n >= 1);
    let mut ext = vec![ze_driver_extension_properties_t::default(); n as usize];
    ok!(ze::zeDriverGetExtensionProperties(
        driver,
        &mut n,
        ext.as_mut_ptr()
    ));
    assert_eq!(n as usize, ext.len());
    for e in &ext {
        assert!(!c_str(e.name.as_ptr()).is_empty() && e.version != 0);
    }
    let mut text = null();
    ok!(ze::zeDriverGetLastErrorDescription(driver, &mut text));
    c_str(text);
    ok!(ze::zerGetLastErrorDescription(&mut text));
    c_str(text);

    n = 0;
    ok!(ze::zeDeviceGet(driver, &mut n, null_mut()));
    assert_eq!(n, 1);
    let mut device = null_mut();
    ok!(ze::zeDeviceGet(driver, &mut n, &mut device));
    let mut root = null_mut();
    ok!(ze::zeDeviceGetRootDevice(device, &mut root));
    n = 7;
    ok!(ze::zeDeviceGetSubDevices(device, &mut n, null_mut()));
    assert_eq!(n, 0);
    let mut p = ze_device_properties_t::default();
    ok!(ze::zeDeviceGetProperties(device, &mut p));
    assert!(!c_str(p.name.as_ptr()).is_empty());
    assert!(p.timestampValidBits <= 64 && p.kernelTimestampValidBits <= 64);
    let mut c = ze_device_compute_properties_t::default();
    ok!(ze::zeDeviceGetComputeProperties(device, &mut c));
    assert!(c.numSubGroupSizes >= 1);
    assert!(c.subGroupSizes[..c.numSubGroupSizes as usize]
        .iter()
        .all(|&s| s > 0));
    assert!(c.maxTotalGroupSize >= c.maxGroupSizeX.min(c.maxTotalGroupSize));
    let mut m = ze_device_module_properties_t::default();
    ok!(ze::zeDeviceGetModuleProperties(device, &mut m));
    n = 0;
    ok!(ze::zeDeviceGetCommandQueueGroupProperties(
        device,
        &mut n,
        null_mut()
    ));
    assert!(n >= 1);
    let mut groups = vec![ze_command_queue_group_properties_t::default(); n as usize];
    ok!(ze::zeDeviceGetCommandQueueGroupProperties(
        device,
        &mut n,
        groups.as_mut_ptr()
    ));
    for g in &groups {
        assert!(g.numQueues > 0 && !g.flags.is_empty());
        assert!(g.maxMemoryFillPatternSize.is_power_of_two());
    }
    assert!(groups[0]
        .flags
        .contains(ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE));
    n = 0;
    ok!(ze::zeDeviceGetMemoryProperties(device, &mut n, null_mut()));
    assert!(n >= 1);
    let mut mem = vec![ze_device_memory_properties_t::default(); n as usize];
    ok!(ze::zeDeviceGetMemoryProperties(
        device,
        &mut n,
        mem.as_mut_ptr()
    ));
    assert!(mem
        .iter()
        .all(|m| m.totalSize >= p.maxMemAllocSize.min(m.totalSize) && m.totalSize > 0));
    let mut ma = ze_device_memory_access_properties_t::default();
    ok!(ze::zeDeviceGetMemoryAccessProperties(device, &mut ma));
    assert!(ma
        .hostAllocCapabilities
        .contains(ZE_MEMORY_ACCESS_CAP_FLAG_RW));
    assert!(ma
        .deviceAllocCapabilities
        .contains(ZE_MEMORY_ACCESS_CAP_FLAG_RW));
    n = 0;
    ok!(ze::zeDeviceGetCacheProperties(device, &mut n, null_mut()));
    let mut caches = vec![ze_device_cache_properties_t::default(); n as usize];
    ok!(ze::zeDeviceGetCacheProperties(
        device,
        &mut n,
        caches.as_mut_ptr()
    ));
    assert_eq!(n as usize, caches.len());
    let mut ip = ze_device_image_properties_t::default();
    ok!(ze::zeDeviceGetImageProperties(device, &mut ip));
    let mut xp = ze_device_external_memory_properties_t::default();
    ok!(ze::zeDeviceGetExternalMemoryProperties(device, &mut xp));
    let mut p2p = ze_device_p2p_properties_t::default();
    ok!(ze::zeDeviceGetP2PProperties(device, device, &mut p2p));
    let mut peer: ze_bool_t = 0;
    ok!(ze::zeDeviceCanAccessPeer(device, device, &mut peer));
    assert_eq!(peer, 1, "a device accesses its own memory");
    let (mut h0, mut d0, mut h1, mut d1) = (0, 0, 0, 0);
    ok!(ze::zeDeviceGetGlobalTimestamps(device, &mut h0, &mut d0));
    ok!(ze::zeDeviceGetGlobalTimestamps(device, &mut h1, &mut d1));
    assert!(
        h0 > 0 && d0 > 0 && h1 >= h0 && d1 >= d0,
        "timestamps are monotonic"
    );

    let mut ctx = null_mut();
    ok!(ze::zeContextCreate(
        driver,
        &ze_context_desc_t::default(),
        &mut ctx
    ));
    let mut ctx2 = null_mut();
    ok!(ze::zeContextCreateEx(
        driver,
        &ze_context_desc_t::default(),
        1,
        &mut device,
        &mut ctx2
    ));
    ok!(ze::zeContextGetStatus(ctx2));
    ok!(ze::zeContextDestroy(ctx2));

    let mut queue = null_mut();
    let qdesc = ze_command_queue_desc_t {
        index: 1,
        ..Default::default()
    };
    ok!(ze::zeCommandQueueCreate(ctx, device, &qdesc, &mut queue));
    let (mut ord, mut idx) = (9, 9);
    ok!(ze::zeCommandQueueGetOrdinal(queue, &mut ord));
    ok!(ze::zeCommandQueueGetIndex(queue, &mut idx));
    assert_eq!((ord, idx), (0, 1));
    let mut list = null_mut();
    ok!(ze::zeCommandListCreate(
        ctx,
        device,
        &ze_command_list_desc_t::default(),
        &mut list
    ));
    let idesc = ze_command_queue_desc_t {
        mode: ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS,
        ..Default::default()
    };
    let mut imm = null_mut();
    ok!(ze::zeCommandListCreateImmediate(
        ctx, device, &idesc, &mut imm
    ));
    let (mut dev, mut lctx) = (null_mut(), null_mut());
    ok!(ze::zeCommandListGetDeviceHandle(list, &mut dev));
    ok!(ze::zeCommandListGetContextHandle(list, &mut lctx));
    assert_eq!((dev, lctx), (device, ctx));
    ok!(ze::zeCommandListGetOrdinal(list, &mut ord));
    ok!(ze::zeCommandListImmediateGetIndex(imm, &mut idx));
    let mut is_imm: ze_bool_t = 0;
    ok!(ze::zeCommandListIsImmediate(imm, &mut is_imm));
    assert_eq!(is_imm, 1);

    let mut host = null_mut();
    ok!(ze::zeMemAllocHost(
        ctx,
        &ze_host_mem_alloc_desc_t::default(),
        4096,
        64,
        &mut host
    ));
    let mut dmem = null_mut();
    ok!(ze::zeMemAllocDevice(
        ctx,
        &ze_device_mem_alloc_desc_t::default(),
        4096,
        0,
        device,
        &mut dmem
    ));
    let mut shared = null_mut();
    ok!(ze::zeMemAllocShared(
        ctx,
        &ze_device_mem_alloc_desc_t::default(),
        &ze_host_mem_alloc_desc_t::default(),
        4096,
        0,
        device,
        &mut shared
    ));
    let mut ap = ze_memory_allocation_properties_t::default();
    let mut adev = null_mut();
    ok!(ze::zeMemGetAllocProperties(ctx, dmem, &mut ap, &mut adev));
    assert_eq!(ap.r#type, ZE_MEMORY_TYPE_DEVICE);
    assert!(ap.id != 0 && ap.pageSize.is_power_of_two());
    // Memory the mock did not allocate: UNKNOWN, in host pages.
    let stack = [0u8; 16];
    let mut up = ze_memory_allocation_properties_t::default();
    ok!(ze::zeMemGetAllocProperties(
        ctx,
        stack.as_ptr().cast(),
        &mut up,
        null_mut()
    ));
    assert_eq!(up.r#type, ZE_MEMORY_TYPE_UNKNOWN);
    assert!(up.pageSize.is_power_of_two());
    let (mut base, mut size) = (null_mut(), 0usize);
    // An interior pointer of the 4096-byte allocation.
    let interior = host.cast::<u8>().wrapping_add(100).cast::<c_void>();
    ok!(ze::zeMemGetAddressRange(
        ctx, interior, &mut base, &mut size
    ));
    assert_eq!((base, size), (host, 4096));

    // Timestamps written by the device are monotonic too.
    let ts = host.cast::<u64>();
    ok!(ze::zeCommandListAppendWriteGlobalTimestamp(
        imm,
        ts,
        null_mut(),
        0,
        null_mut()
    ));
    // The next u64 of the host allocation.
    ok!(ze::zeCommandListAppendWriteGlobalTimestamp(
        imm,
        ts.wrapping_add(1),
        null_mut(),
        0,
        null_mut()
    ));
    // SAFETY: written by the immediate (synchronous) list.
    let (t0, t1) = unsafe { (*ts, *ts.add(1)) };
    assert!(t0 > 0 && t1 >= t0);

    let pdesc = ze_event_pool_desc_t {
        flags: ZE_EVENT_POOL_FLAG_HOST_VISIBLE | ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP,
        count: 4,
        ..Default::default()
    };
    let mut pool = null_mut();
    ok!(ze::zeEventPoolCreate(
        ctx,
        &pdesc,
        1,
        &mut device,
        &mut pool
    ));
    let mut pflags = ze_event_pool_flags_t::empty();
    ok!(ze::zeEventPoolGetFlags(pool, &mut pflags));
    assert_eq!(pflags, pdesc.flags);
    let mut pctx = null_mut();
    ok!(ze::zeEventPoolGetContextHandle(pool, &mut pctx));
    assert_eq!(pctx, ctx);
    let edesc = ze_event_desc_t {
        index: 0,
        signal: ZE_EVENT_SCOPE_FLAG_HOST.into(),
        wait: ZE_EVENT_SCOPE_FLAG_HOST.into(),
        ..Default::default()
    };
    let mut event = null_mut();
    ok!(ze::zeEventCreate(pool, &edesc, &mut event));
    let mut epool = null_mut();
    ok!(ze::zeEventGetEventPool(event, &mut epool));
    assert_eq!(epool, pool);
    let (mut ss, mut ws) = (
        ze_event_scope_flags_t::empty(),
        ze_event_scope_flags_t::empty(),
    );
    ok!(ze::zeEventGetSignalScope(event, &mut ss));
    ok!(ze::zeEventGetWaitScope(event, &mut ws));
    assert_eq!((ss, ws), (edesc.signal, edesc.wait));
    let mut fence = null_mut();
    ok!(ze::zeFenceCreate(
        queue,
        &ze_fence_desc_t::default(),
        &mut fence
    ));

    // Images and samplers.
    let idesc = ze_image_desc_t {
        r#type: ZE_IMAGE_TYPE_2D,
        format: ze_image_format_t {
            layout: ZE_IMAGE_FORMAT_LAYOUT_32,
            r#type: ZE_IMAGE_FORMAT_TYPE_FLOAT,
            ..Default::default()
        },
        width: 8,
        height: 8,
        depth: 1,
        ..Default::default()
    };
    let mut iprops = ze_image_properties_t::default();
    ok!(ze::zeImageGetProperties(device, &idesc, &mut iprops));
    let mut image = null_mut();
    ok!(ze::zeImageCreate(ctx, device, &idesc, &mut image));
    let mut iap = ze_image_allocation_ext_properties_t::default();
    ok!(ze::zeImageGetAllocPropertiesExt(ctx, image, &mut iap));
    assert_ne!(iap.id, 0);
    let mut imp = ze_image_memory_properties_exp_t::default();
    ok!(ze::zeImageGetMemoryPropertiesExp(image, &mut imp));
    assert_eq!((imp.size, imp.rowPitch, imp.slicePitch), (256, 32, 256));
    let mut sampler = null_mut();
    ok!(ze::zeSamplerCreate(
        ctx,
        device,
        &ze_sampler_desc_t::default(),
        &mut sampler
    ));

    let mut page = 0usize;
    ok!(ze::zeVirtualMemQueryPageSize(
        ctx,
        device,
        1 << 20,
        &mut page
    ));
    // Virtual memory: a reservation of one page, backed by physical memory, mapped.
    let mut va = null_mut();
    ok!(ze::zeVirtualMemReserve(ctx, null(), page, &mut va));
    assert_eq!(va as usize % page, 0, "reservations start on a page");
    let mut pdesc = ze_physical_mem_desc_t {
        size: page,
        ..Default::default()
    };
    let mut phys = null_mut();
    ok!(ze::zePhysicalMemCreate(ctx, device, &mut pdesc, &mut phys));
    let mut pp = ze_physical_mem_properties_t::default();
    ok!(ze::zePhysicalMemGetProperties(ctx, phys, &mut pp));
    assert_eq!(pp.size, page as u64);
    ok!(ze::zeVirtualMemMap(
        ctx,
        va,
        page,
        phys,
        0,
        ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE
    ));
    let (mut access, mut asize) = (ZE_MEMORY_ACCESS_ATTRIBUTE_NONE, 0usize);
    ok!(ze::zeVirtualMemGetAccessAttribute(
        ctx,
        va,
        page,
        &mut access,
        &mut asize
    ));
    assert_eq!(
        (access, asize),
        (ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE, page)
    );
    ok!(ze::zeVirtualMemUnmap(ctx, va, page));
    ok!(ze::zePhysicalMemDestroy(ctx, phys));
    ok!(ze::zeVirtualMemFree(ctx, va, page));

    // Modules and kernels.
    let il = spirv("globals");
    let mdesc = ze_module_desc_t {
        format: ZE_MODULE_FORMAT_IL_SPIRV,
        inputSize: il.len(),
        pInputModule: il.as_ptr(),
        ..Default::default()
    };
    let (mut module, mut log) = (null_mut(), null_mut());
    ok!(ze::zeModuleCreate(
        ctx,
        device,
        &mdesc,
        &mut module,
        &mut log
    ));
    let mut lsize = 0usize;
    ok!(ze::zeModuleBuildLogGetString(log, &mut lsize, null_mut()));
    let mut ltext = vec![0 as c_char; lsize];
    ok!(ze::zeModuleBuildLogGetString(
        log,
        &mut lsize,
        ltext.as_mut_ptr()
    ));
    assert_eq!(c_str(ltext.as_ptr()).len() + 1, lsize);
    let gname = CString::new("table").unwrap();
    let (mut gsize, mut gptr) = (0usize, null_mut());
    ok!(ze::zeModuleGetGlobalPointer(
        module,
        gname.as_ptr(),
        &mut gsize,
        &mut gptr
    ));
    assert_eq!(gsize, 16);
    n = 0;
    ok!(ze::zeModuleGetKernelNames(module, &mut n, null_mut()));
    let mut names = vec![null(); n as usize];
    ok!(ze::zeModuleGetKernelNames(
        module,
        &mut n,
        names.as_mut_ptr()
    ));
    assert_eq!(
        names.iter().map(|&s| c_str(s)).collect::<Vec<_>>(),
        ["globals"]
    );
    let mut mp = ze_module_properties_t::default();
    ok!(ze::zeModuleGetProperties(module, &mut mp));
    let mut mdev = null_mut();
    ok!(ze::zeModuleGetDeviceHandle(module, &mut mdev));
    assert_eq!(mdev, device);
    let kdesc = ze_kernel_desc_t {
        pKernelName: names[0],
        ..Default::default()
    };
    let mut kernel = null_mut();
    ok!(ze::zeKernelCreate(module, &kdesc, &mut kernel));
    let (mut gx, mut gy, mut gz) = (0, 0, 0);
    ok!(ze::zeKernelSuggestGroupSize(
        kernel, 1000, 1, 1, &mut gx, &mut gy, &mut gz
    ));
    assert!(gx > 0 && gy > 0 && gz > 0 && 1000 % gx == 0);
    let mut coop = 0;
    ok!(ze::zeKernelSuggestMaxCooperativeGroupCount(
        kernel, &mut coop
    ));
    assert!(coop > 0, "a cooperative launch of at least one group");
    let mut ia = ze_kernel_indirect_access_flags_t::empty();
    ok!(ze::zeKernelGetIndirectAccess(kernel, &mut ia));
    let mut kp = ze_kernel_properties_t::default();
    ok!(ze::zeKernelGetProperties(kernel, &mut kp));
    assert_eq!(kp.numKernelArgs, 1);
    let mut ksize = 0usize;
    ok!(ze::zeKernelGetName(kernel, &mut ksize, null_mut()));
    let mut kname = vec![0 as c_char; ksize];
    ok!(ze::zeKernelGetName(kernel, &mut ksize, kname.as_mut_ptr()));
    assert_eq!(c_str(kname.as_ptr()), "globals");

    // A launch that signals a timestamp event: the kernel's start comes before its end.
    ok!(ze::zeKernelSetGroupSize(kernel, 4, 1, 1));
    ok!(ze::zeKernelSetArgumentValue(
        kernel,
        0,
        8,
        &shared as *const _ as *const c_void
    ));
    let g = ze_group_count_t {
        groupCountX: 1,
        groupCountY: 1,
        groupCountZ: 1,
    };
    ok!(ze::zeCommandListAppendLaunchKernel(
        imm,
        kernel,
        &g,
        event,
        0,
        null_mut()
    ));
    ok!(ze::zeEventHostSynchronize(event, u64::MAX));
    let mut kts = ze_kernel_timestamp_result_t::default();
    ok!(ze::zeEventQueryKernelTimestamp(event, &mut kts));
    assert!(kts.global.kernelStart > 0 && kts.global.kernelEnd >= kts.global.kernelStart);
    assert!(kts.context.kernelEnd >= kts.context.kernelStart);

    // Every handle handed out is live: each destroy succeeds once.
    ok!(ze::zeKernelDestroy(kernel));
    ok!(ze::zeModuleBuildLogDestroy(log));
    ok!(ze::zeModuleDestroy(module));
    ok!(ze::zeSamplerDestroy(sampler));
    ok!(ze::zeImageDestroy(image));
    ok!(ze::zeFenceDestroy(fence));
    ok!(ze::zeEventDestroy(event));
    ok!(ze::zeEventPoolDestroy(pool));
    for p in [host, dmem, shared] {
        ok!(ze::zeMemFree(ctx, p));
    }
    ok!(ze::zeCommandListDestroy(imm));
    ok!(ze::zeCommandListDestroy(list));
    ok!(ze::zeCommandQueueDestroy(queue));
    ok!(ze::zeContextDestroy(ctx));
}

#[test]
fn every_default_output_is_plausible() {
    zekit_mock::install();
    let script = zekit_mock::script();
    script.reset();
    run_program();
    let calls = script.calls();

    let succeeded: BTreeSet<&str> = calls
        .iter()
        .filter(|c| c.result == ZE_RESULT_SUCCESS)
        .map(|c| c.function)
        .collect();
    let missing: Vec<&str> = zekit_mock::generated::OUTPUTS
        .iter()
        .map(|(f, _)| *f)
        .filter(|f| zekit_mock::is_modeled(f))
        .filter(|f| !succeeded.contains(f) && !NEVER_SUCCEED.iter().any(|(n, _)| n == f))
        .collect();
    assert!(
        missing.is_empty(),
        "modeled functions with outputs the sweep never saw succeed: {missing:?}"
    );

    let (mut bad, mut checked) = (vec![], BTreeSet::new());
    for call in calls.iter().filter(|c| c.result == ZE_RESULT_SUCCESS) {
        let Some((_, outs)) = zekit_mock::generated::OUTPUTS
            .iter()
            .find(|(f, _)| *f == call.function)
        else {
            continue;
        };
        for (param, ty, _, _) in outs.iter() {
            if let Some((_, v)) = call.args.iter().find(|(n, _)| n == param) {
                if check_output(call.function, param, ty, v, &mut bad) {
                    checked.insert((call.function, *param));
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "implausible default outputs:\n{}",
        bad.join("\n")
    );
    // Every modeled function's outputs were seen written (not only called). The log renders
    // a handle output as the caller's address only: the program checks those handles itself
    // (each one created is destroyed exactly once, which a null or dead handle would fail;
    // each one queried is compared with the handle it must be).
    let handles_only = |f: &str| {
        zekit_mock::generated::OUTPUTS
            .iter()
            .find(|(o, _)| *o == f)
            .is_some_and(|(_, outs)| outs.iter().all(|(_, ty, _, _)| ty.ends_with("_handle_t*")))
    };
    let unseen: Vec<&str> = succeeded
        .iter()
        .filter(|f| zekit_mock::generated::OUTPUTS.iter().any(|(o, _)| o == *f))
        .filter(|f| !checked.iter().any(|(c, _)| c == *f) && !handles_only(f))
        .copied()
        .collect();
    assert!(unseen.is_empty(), "no output rendered for {unseen:?}");
    assert!(checked.len() >= 50, "{} outputs checked", checked.len());
}

#[test]
fn the_rules_catch_what_crashed_callers() {
    let mut bad = vec![];
    check_output(
        "zeVirtualMemQueryPageSize",
        "pagesize",
        "size_t*",
        "0x1000 -> 0",
        &mut bad,
    );
    check_output(
        "zeImageCreate",
        "phImage",
        "ze_image_handle_t*",
        "0x1000 -> 0x0",
        &mut bad,
    );
    check_output(
        "zeDeviceGetImageProperties",
        "pImageProperties",
        "ze_device_image_properties_t*",
        "0x1000 -> ze_device_image_properties_t { stype: X, pNext: 0x0, maxImageDims1D: 0, maxImageBufferSize: 0 }",
        &mut bad,
    );
    check_output(
        "zeDeviceGetProperties",
        "pDeviceProperties",
        "ze_device_properties_t*",
        "0x1000 -> ze_device_properties_t { uuid: ze_device_uuid_t { id: [0, 0, 0] }, maxMemAllocSize: 0 }",
        &mut bad,
    );
    check_output(
        "zeX",
        "p",
        "ze_x_t*",
        "0x1 -> ze_x_t { alignment: 24 }",
        &mut bad,
    );
    assert_eq!(bad.len(), 7, "{bad:#?}");
    let mut fine = vec![];
    check_output(
        "zeVirtualMemQueryPageSize",
        "pagesize",
        "size_t*",
        "0x1000 -> 65536",
        &mut fine,
    );
    check_output(
        "zeX",
        "p",
        "ze_x_t*",
        "0x1 -> ze_x_t { flags: 0, alignment: 64, numSubGroupSizes: 3 }",
        &mut fine,
    );
    check_output("zeX", "pOptional", "size_t*", "null", &mut fine);
    assert!(fine.is_empty(), "{fine:#?}");
}
