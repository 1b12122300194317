//! The mock's default behaviour, in process (hooks on): discovery and properties, memory,
//! command lists and queues, events, fences, timeouts, fallback results, the last error.

use std::ffi::{c_void, CStr};
use std::ptr::{null, null_mut};
use std::time::{Duration, Instant};

use zekit_icd::entry as ze;
use zekit_mock::profile::Profile;
use zekit_sys::*;

#[macro_use]
mod common;
use common::*;

impl Env {
    fn host(&self, size: usize) -> *mut c_void {
        let mut p = null_mut();
        ok!(ze::zeMemAllocHost(
            self.ctx,
            &ze_host_mem_alloc_desc_t::default(),
            size,
            0,
            &mut p
        ));
        p
    }
    fn device_mem(&self, size: usize) -> *mut c_void {
        let mut p = null_mut();
        ok!(ze::zeMemAllocDevice(
            self.ctx,
            &ze_device_mem_alloc_desc_t::default(),
            size,
            0,
            self.device,
            &mut p
        ));
        p
    }
    fn queue(&self, ordinal: u32) -> ze_command_queue_handle_t {
        let mut q = null_mut();
        let desc = ze_command_queue_desc_t {
            ordinal,
            ..Default::default()
        };
        ok!(ze::zeCommandQueueCreate(
            self.ctx,
            self.device,
            &desc,
            &mut q
        ));
        q
    }
    fn list(&self, ordinal: u32) -> ze_command_list_handle_t {
        let mut l = null_mut();
        let desc = ze_command_list_desc_t {
            commandQueueGroupOrdinal: ordinal,
            ..Default::default()
        };
        ok!(ze::zeCommandListCreate(
            self.ctx,
            self.device,
            &desc,
            &mut l
        ));
        l
    }
    fn pool(&self, count: u32) -> ze_event_pool_handle_t {
        let mut p = null_mut();
        let desc = ze_event_pool_desc_t {
            flags: ZE_EVENT_POOL_FLAG_HOST_VISIBLE.into(),
            count,
            ..Default::default()
        };
        ok!(ze::zeEventPoolCreate(
            self.ctx,
            &desc,
            0,
            null_mut(),
            &mut p
        ));
        p
    }
    fn event(&self, pool: ze_event_pool_handle_t, index: u32) -> ze_event_handle_t {
        let mut e = null_mut();
        let desc = ze_event_desc_t {
            index,
            ..Default::default()
        };
        ok!(ze::zeEventCreate(pool, &desc, &mut e));
        e
    }
}

fn bytes<'a>(p: *mut c_void, n: usize) -> &'a mut [u8] {
    // SAFETY: the tests only pass allocations of at least `n` bytes.
    unsafe { std::slice::from_raw_parts_mut(p as *mut u8, n) }
}

fn c_text(s: &[std::ffi::c_char]) -> String {
    let b: Vec<u8> = s.iter().map(|&c| c as u8).collect();
    CStr::from_bytes_until_nul(&b)
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

#[test]
fn driver_properties_extensions_and_ddi_handles() {
    let e = env();
    let mut version = ze_api_version_t(0);
    ok!(ze::zeDriverGetApiVersion(e.driver, &mut version));
    assert_eq!(version, ZE_API_VERSION_CURRENT);

    let mut ddi = ze_driver_ddi_handles_ext_properties_t::default();
    let mut props = ze_driver_properties_t {
        pNext: &mut ddi as *mut _ as *mut c_void,
        ..Default::default()
    };
    ok!(ze::zeDriverGetProperties(e.driver, &mut props));
    assert_eq!(
        ddi.flags,
        ZE_DRIVER_DDI_HANDLE_EXT_FLAG_DDI_HANDLE_EXT_SUPPORTED.into()
    );
    assert_eq!(&props.uuid.id[..10], b"zekit-mock");

    let mut n = 0;
    ok!(ze::zeDriverGetExtensionProperties(
        e.driver,
        &mut n,
        null_mut()
    ));
    assert_eq!(n, 1);
    let mut ext = [ze_driver_extension_properties_t::default(); 2];
    n = 2;
    ok!(ze::zeDriverGetExtensionProperties(
        e.driver,
        &mut n,
        ext.as_mut_ptr()
    ));
    assert_eq!(n, 1);
    assert_eq!(c_text(&ext[0].name), "ZE_extension_driver_ddi_handles");
    assert_eq!(ext[0].version, ZE_DRIVER_DDI_HANDLES_EXT_VERSION_1_1.0);

    let mut ipc = ze_driver_ipc_properties_t::default();
    ok!(ze::zeDriverGetIpcProperties(e.driver, &mut ipc));
    assert!(ipc.flags.is_empty());

    // zeInitDrivers reports the driver for GPU requests only (the profile's device is a GPU).
    let mut count = 0;
    let gpu = ze_init_driver_type_desc_t {
        flags: ZE_INIT_DRIVER_TYPE_FLAG_GPU.into(),
        ..Default::default()
    };
    ok!(ze::zeInitDrivers(
        &mut count,
        null_mut(),
        &gpu as *const _ as *mut _
    ));
    assert_eq!(count, 1);
    let npu = ze_init_driver_type_desc_t {
        flags: ZE_INIT_DRIVER_TYPE_FLAG_NPU.into(),
        ..Default::default()
    };
    ok!(ze::zeInitDrivers(
        &mut count,
        null_mut(),
        &npu as *const _ as *mut _
    ));
    assert_eq!(count, 0);
}

#[test]
fn device_properties_come_from_the_profile() {
    let e = env();
    let profile = Profile::from_yaml(
        "device: { name: scripted gpu, deviceId: 0xabcd, numSlices: 2 }\n\
         compute: { maxTotalGroupSize: 512 }\n\
         memory: [ { name: DDR, totalSize: 1 GiB }, { name: HBM, totalSize: 2 GiB } ]\n\
         caches: [ { cacheSize: 1 MiB }, { cacheSize: 32 MiB } ]\n\
         commandQueueGroups: [ { numQueues: 1 } ]\n\
         memoryAccess: { sharedSystemAllocCapabilities: [RW] }\n\
         module: { spirvVersionSupported: \"1.4\", maxArgumentsSize: 4 KiB }\n",
    )
    .unwrap();
    zekit_mock::script().set_profile(profile);

    let mut p = ze_device_properties_t::default();
    ok!(ze::zeDeviceGetProperties(e.device, &mut p));
    assert_eq!(c_text(&p.name), "scripted gpu");
    assert_eq!((p.vendorId, p.deviceId, p.numSlices), (0x8086, 0xabcd, 2));

    let mut c = ze_device_compute_properties_t::default();
    ok!(ze::zeDeviceGetComputeProperties(e.device, &mut c));
    assert_eq!(c.maxTotalGroupSize, 512);

    let mut n = 0;
    ok!(ze::zeDeviceGetMemoryProperties(
        e.device,
        &mut n,
        null_mut()
    ));
    assert_eq!(n, 2);
    let mut mem = [ze_device_memory_properties_t::default(); 2];
    ok!(ze::zeDeviceGetMemoryProperties(
        e.device,
        &mut n,
        mem.as_mut_ptr()
    ));
    assert_eq!(c_text(&mem[1].name), "HBM");
    assert_eq!(mem[1].totalSize, 2 << 30);

    n = 1; // fewer than available: only that many
    let mut caches = [ze_device_cache_properties_t::default(); 2];
    ok!(ze::zeDeviceGetCacheProperties(
        e.device,
        &mut n,
        caches.as_mut_ptr()
    ));
    assert_eq!(n, 1);
    assert_eq!(caches[0].cacheSize, 1 << 20);
    assert_eq!(caches[1].cacheSize, 0);

    n = 0;
    ok!(ze::zeDeviceGetCommandQueueGroupProperties(
        e.device,
        &mut n,
        null_mut()
    ));
    assert_eq!(n, 1);

    let mut ma = ze_device_memory_access_properties_t::default();
    ok!(ze::zeDeviceGetMemoryAccessProperties(e.device, &mut ma));
    assert_eq!(
        ma.sharedSystemAllocCapabilities,
        ZE_MEMORY_ACCESS_CAP_FLAG_RW.into()
    );
    assert!(ma
        .deviceAllocCapabilities
        .contains(ZE_MEMORY_ACCESS_CAP_FLAG_ATOMIC));

    let mut m = ze_device_module_properties_t::default();
    ok!(ze::zeDeviceGetModuleProperties(e.device, &mut m));
    assert_eq!(m.spirvVersionSupported, (1 << 16) | 4);
    assert_eq!(m.maxArgumentsSize, 4096);
    assert!(m.flags.contains(ZE_DEVICE_MODULE_FLAG_FP64));

    n = 5;
    ok!(ze::zeDeviceGetSubDevices(e.device, &mut n, null_mut()));
    assert_eq!(n, 0);
    let mut root: ze_device_handle_t = 1usize as ze_device_handle_t;
    ok!(ze::zeDeviceGetRootDevice(e.device, &mut root));
    assert!(root.is_null());
    let mut img = ze_device_image_properties_t::default();
    ok!(ze::zeDeviceGetImageProperties(e.device, &mut img));
    // Images are modeled (tests/defaults.rs): a GPU's limits.
    assert_eq!(img.maxImageDims2D, 16384);
    let (mut host_ts, mut dev_ts) = (0, 0);
    ok!(ze::zeDeviceGetGlobalTimestamps(
        e.device,
        &mut host_ts,
        &mut dev_ts
    ));
    assert!(host_ts > 0 && dev_ts >= host_ts);

    // The queue group count limits queues: ordinal 1 no longer exists.
    let mut q = null_mut();
    let desc = ze_command_queue_desc_t {
        ordinal: 1,
        ..Default::default()
    };
    assert_eq!(
        call!(ze::zeCommandQueueCreate(e.ctx, e.device, &desc, &mut q)),
        ZE_RESULT_ERROR_INVALID_ARGUMENT
    );
    zekit_mock::script().reset();
}

#[test]
fn allocations_are_real_aligned_and_tracked() {
    let e = env();
    let mut shared = null_mut();
    ok!(ze::zeMemAllocShared(
        e.ctx,
        &ze_device_mem_alloc_desc_t::default(),
        &ze_host_mem_alloc_desc_t::default(),
        1000,
        1 << 16,
        e.device,
        &mut shared
    ));
    assert_eq!(shared as usize % (1 << 16), 0);
    let b = bytes(shared, 1000);
    assert!(b.iter().all(|&x| x == 0), "zeroed");
    b[999] = 7;

    let host = e.host(100);
    let dev = e.device_mem(100);
    for (p, ty, has_dev) in [
        (host, ZE_MEMORY_TYPE_HOST, false),
        (dev, ZE_MEMORY_TYPE_DEVICE, true),
        (shared, ZE_MEMORY_TYPE_SHARED, true),
    ] {
        let mut props = ze_memory_allocation_properties_t::default();
        let mut d: ze_device_handle_t = null_mut();
        // An interior pointer finds its allocation too.
        let inner = (p as usize + 10) as *const c_void;
        ok!(ze::zeMemGetAllocProperties(
            e.ctx, inner, &mut props, &mut d
        ));
        assert_eq!(props.r#type, ty);
        assert!(props.id != 0);
        assert_eq!(!d.is_null(), has_dev);
        let mut base = null_mut();
        let mut size = 0;
        ok!(ze::zeMemGetAddressRange(e.ctx, inner, &mut base, &mut size));
        assert_eq!(base, p);
        assert_eq!(size, if p == shared { 1000 } else { 100 });
    }
    let stack = 0u64;
    let mut props = ze_memory_allocation_properties_t::default();
    ok!(ze::zeMemGetAllocProperties(
        e.ctx,
        &stack as *const u64 as *const c_void,
        &mut props,
        null_mut()
    ));
    assert_eq!(props.r#type, ZE_MEMORY_TYPE_UNKNOWN);

    // Errors: size 0, bad alignment, too big, double free, interior free.
    let mut p = null_mut();
    let hd = ze_host_mem_alloc_desc_t::default();
    assert_eq!(
        call!(ze::zeMemAllocHost(e.ctx, &hd, 0, 0, &mut p)),
        ZE_RESULT_ERROR_UNSUPPORTED_SIZE
    );
    assert_eq!(
        call!(ze::zeMemAllocHost(e.ctx, &hd, 64, 3, &mut p)),
        ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT
    );
    assert_eq!(
        call!(ze::zeMemAllocHost(e.ctx, &hd, 5 << 30, 0, &mut p)),
        ZE_RESULT_ERROR_UNSUPPORTED_SIZE
    );
    let mut desc = null();
    ok!(ze::zeDriverGetLastErrorDescription(e.driver, &mut desc));
    // SAFETY: NUL-terminated text from the mock.
    let text = unsafe { CStr::from_ptr(desc) }
        .to_string_lossy()
        .into_owned();
    assert!(text.contains("maxMemAllocSize"), "{text}");
    assert_eq!(
        call!(ze::zeMemFree(e.ctx, (host as usize + 1) as *mut c_void)),
        ZE_RESULT_ERROR_INVALID_ARGUMENT
    );
    ok!(ze::zeMemFree(e.ctx, host));
    assert_eq!(
        call!(ze::zeMemFree(e.ctx, host)),
        ZE_RESULT_ERROR_INVALID_ARGUMENT
    );
    ok!(ze::zeMemFreeExt(
        e.ctx,
        &ze_memory_free_ext_desc_t::default(),
        dev
    ));
    // The context takes its remaining allocations with it.
    ok!(ze::zeContextDestroy(e.ctx));
    let mut props = ze_memory_allocation_properties_t::default();
    let mut ctx2 = null_mut();
    ok!(ze::zeContextCreate(
        e.driver,
        &ze_context_desc_t::default(),
        &mut ctx2
    ));
    ok!(ze::zeMemGetAllocProperties(
        ctx2,
        shared,
        &mut props,
        null_mut()
    ));
    assert_eq!(props.r#type, ZE_MEMORY_TYPE_UNKNOWN);
    ok!(ze::zeContextDestroy(ctx2));
}

#[test]
fn fill_region_copy_timestamp_and_closed_lists() {
    let e = env();
    let buf = e.device_mem(256);
    let out = e.host(256);
    let ts = e.host(8);
    let q = e.queue(0);
    let l = e.list(0);
    let pattern = [0xA1u8, 0xB2, 0xC3, 0xD4];
    ok!(ze::zeCommandListAppendMemoryFill(
        l,
        buf,
        pattern.as_ptr() as *const c_void,
        4,
        256,
        null_mut(),
        0,
        null_mut()
    ));
    // A 4x4 region at (2, 1) of a 16-byte-pitch image into the top-left of `out`.
    let region = |x, y| ze_copy_region_t {
        originX: x,
        originY: y,
        originZ: 0,
        width: 4,
        height: 4,
        depth: 1,
    };
    ok!(ze::zeCommandListAppendMemoryCopyRegion(
        l,
        out,
        &region(0, 0),
        16,
        0,
        buf,
        &region(2, 1),
        16,
        0,
        null_mut(),
        0,
        null_mut()
    ));
    ok!(ze::zeCommandListAppendWriteGlobalTimestamp(
        l,
        ts as *mut u64,
        null_mut(),
        0,
        null_mut()
    ));
    // Bad fills: pattern not a power of two, too large for the group, size not a multiple.
    let big = [0u8; 256];
    let fill = |size: usize, psize: usize| {
        call!(ze::zeCommandListAppendMemoryFill(
            l,
            buf,
            big.as_ptr() as *const c_void,
            psize,
            size,
            null_mut(),
            0,
            null_mut()
        ))
    };
    assert_eq!(fill(12, 3), ZE_RESULT_ERROR_INVALID_SIZE);
    assert_eq!(fill(256, 256), ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
    assert_eq!(fill(10, 4), ZE_RESULT_ERROR_INVALID_SIZE);
    // Out of the allocation's bounds.
    assert_eq!(
        call!(ze::zeCommandListAppendMemoryCopy(
            l,
            out,
            buf,
            257,
            null_mut(),
            0,
            null_mut()
        )),
        ZE_RESULT_ERROR_INVALID_SIZE
    );

    // Executing an open list is an error; appending to a closed one too.
    let mut lh = l;
    assert_eq!(
        call!(ze::zeCommandQueueExecuteCommandLists(
            q,
            1,
            &mut lh,
            null_mut()
        )),
        ZE_RESULT_ERROR_INVALID_ARGUMENT
    );
    ok!(ze::zeCommandListClose(l));
    assert_eq!(
        call!(ze::zeCommandListAppendBarrier(l, null_mut(), 0, null_mut())),
        ZE_RESULT_ERROR_INVALID_ARGUMENT
    );
    // A list of the copy group does not run on a compute queue.
    let copy_list = e.list(1);
    ok!(ze::zeCommandListClose(copy_list));
    let mut cl = copy_list;
    assert_eq!(
        call!(ze::zeCommandQueueExecuteCommandLists(
            q,
            1,
            &mut cl,
            null_mut()
        )),
        ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE
    );

    ok!(ze::zeCommandQueueExecuteCommandLists(
        q,
        1,
        &mut lh,
        null_mut()
    ));
    ok!(ze::zeCommandQueueSynchronize(q, 0));
    let o = bytes(out, 256);
    for y in 0..4 {
        for x in 0..4 {
            // Source byte (2 + x, 1 + y) holds pattern[(16 * (1 + y) + 2 + x) % 4].
            assert_eq!(
                o[y * 16 + x],
                pattern[(16 * (1 + y) + 2 + x) % 4],
                "({x}, {y})"
            );
        }
    }
    assert_eq!(o[4], 0, "outside the region: untouched");
    assert!(bytes(buf, 256).chunks(4).all(|c| c == pattern));
    // SAFETY: 8 bytes of host memory.
    assert!(unsafe { (ts as *const u64).read() } > 0);

    // Reset re-opens the list; executing twice runs the commands twice.
    ok!(ze::zeCommandListReset(l));
    ok!(ze::zeCommandListAppendMemoryCopy(
        l,
        out,
        buf,
        4,
        null_mut(),
        0,
        null_mut()
    ));
    ok!(ze::zeCommandListClose(l));
    bytes(out, 4).fill(0);
    ok!(ze::zeCommandQueueExecuteCommandLists(
        q,
        1,
        &mut lh,
        null_mut()
    ));
    assert_eq!(&bytes(out, 4)[..], &pattern);
    ok!(ze::zeCommandListDestroy(l));
    ok!(ze::zeCommandListDestroy(copy_list));
    ok!(ze::zeCommandQueueDestroy(q));
    ok!(ze::zeContextDestroy(e.ctx));
}

#[test]
fn events_order_work_and_timeouts_expire() {
    let e = env();
    let pool = e.pool(4);
    let gate = e.event(pool, 0);
    let done = e.event(pool, 1);
    let src = e.host(64);
    let dst = e.device_mem(64);
    bytes(src, 64).fill(0x5A);

    // Unsignaled: query and zero-timeout sync say NOT_READY; a 20 ms sync waits ~20 ms.
    assert_eq!(call!(ze::zeEventQueryStatus(gate)), ZE_RESULT_NOT_READY);
    assert_eq!(
        call!(ze::zeEventHostSynchronize(gate, 0)),
        ZE_RESULT_NOT_READY
    );
    let t = Instant::now();
    assert_eq!(
        call!(ze::zeEventHostSynchronize(gate, 20_000_000)),
        ZE_RESULT_NOT_READY
    );
    let waited = t.elapsed();
    assert!(
        waited >= Duration::from_millis(19) && waited < Duration::from_secs(5),
        "{waited:?}"
    );

    // A copy that waits on `gate` and signals `done`: pending until the host signals `gate`.
    let q = e.queue(0);
    let l = e.list(0);
    let mut wait = [gate];
    ok!(ze::zeCommandListAppendMemoryCopy(
        l,
        dst,
        src,
        64,
        done,
        1,
        wait.as_mut_ptr()
    ));
    ok!(ze::zeCommandListClose(l));
    let mut fence = null_mut();
    ok!(ze::zeFenceCreate(
        q,
        &ze_fence_desc_t::default(),
        &mut fence
    ));
    let mut lh = l;
    ok!(ze::zeCommandQueueExecuteCommandLists(q, 1, &mut lh, fence));
    assert_eq!(
        call!(ze::zeCommandQueueSynchronize(q, 1_000_000)),
        ZE_RESULT_NOT_READY
    );
    assert_eq!(call!(ze::zeFenceQueryStatus(fence)), ZE_RESULT_NOT_READY);
    assert_eq!(call!(ze::zeEventQueryStatus(done)), ZE_RESULT_NOT_READY);
    assert!(bytes(dst, 64).iter().all(|&b| b == 0));

    // Another thread signals the gate while this one waits on the fence.
    let gate_addr = gate as usize;
    let signaler = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(10));
        // SAFETY: a live event handle.
        unsafe { ze::zeEventHostSignal(gate_addr as ze_event_handle_t) }
    });
    ok!(ze::zeFenceHostSynchronize(fence, u64::MAX));
    assert_eq!(signaler.join().unwrap(), ZE_RESULT_SUCCESS);
    ok!(ze::zeEventHostSynchronize(done, 0));
    ok!(ze::zeCommandQueueSynchronize(q, 0));
    assert!(bytes(dst, 64).iter().all(|&b| b == 0x5A));
    let mut kts = ze_kernel_timestamp_result_t::default();
    ok!(ze::zeEventQueryKernelTimestamp(done, &mut kts));
    assert!(kts.global.kernelStart > 0 && kts.global.kernelEnd >= kts.global.kernelStart);

    // Resets, from the host and from a command list.
    ok!(ze::zeEventHostReset(gate));
    assert_eq!(call!(ze::zeEventQueryStatus(gate)), ZE_RESULT_NOT_READY);
    ok!(ze::zeFenceReset(fence));
    assert_eq!(call!(ze::zeFenceQueryStatus(fence)), ZE_RESULT_NOT_READY);
    ok!(ze::zeCommandListReset(l));
    ok!(ze::zeCommandListAppendEventReset(l, done));
    ok!(ze::zeCommandListAppendSignalEvent(l, gate));
    ok!(ze::zeCommandListClose(l));
    ok!(ze::zeCommandQueueExecuteCommandLists(q, 1, &mut lh, fence));
    ok!(ze::zeFenceHostSynchronize(fence, 0));
    ok!(ze::zeEventQueryStatus(gate));
    assert_eq!(call!(ze::zeEventQueryStatus(done)), ZE_RESULT_NOT_READY);

    // A pool with live events cannot go; getters answer.
    assert_eq!(
        call!(ze::zeEventPoolDestroy(pool)),
        ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE
    );
    let mut got_pool = null_mut();
    ok!(ze::zeEventGetEventPool(gate, &mut got_pool));
    assert_eq!(got_pool, pool);
    let mut bad = null_mut();
    let desc = ze_event_desc_t {
        index: 4,
        ..Default::default()
    };
    assert_eq!(
        call!(ze::zeEventCreate(pool, &desc, &mut bad)),
        ZE_RESULT_ERROR_INVALID_ARGUMENT
    );
    ok!(ze::zeFenceDestroy(fence));
    ok!(ze::zeEventDestroy(gate));
    ok!(ze::zeEventDestroy(done));
    ok!(ze::zeEventPoolDestroy(pool));
    ok!(ze::zeCommandListDestroy(l));
    ok!(ze::zeCommandQueueDestroy(q));
    ok!(ze::zeContextDestroy(e.ctx));
}

#[test]
fn immediate_lists_run_at_once_or_when_their_events_allow() {
    let e = env();
    let src = e.host(32);
    let dst = e.host(32);
    bytes(src, 32).fill(9);
    let mut imm = null_mut();
    let desc = ze_command_queue_desc_t {
        mode: ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS,
        ..Default::default()
    };
    ok!(ze::zeCommandListCreateImmediate(
        e.ctx, e.device, &desc, &mut imm
    ));
    let mut is_imm = 0;
    ok!(ze::zeCommandListIsImmediate(imm, &mut is_imm));
    assert_eq!(is_imm, 1);
    ok!(ze::zeCommandListAppendMemoryCopy(
        imm,
        dst,
        src,
        32,
        null_mut(),
        0,
        null_mut()
    ));
    ok!(ze::zeCommandListHostSynchronize(imm, 0));
    assert!(bytes(dst, 32).iter().all(|&b| b == 9));

    let pool = e.pool(1);
    let gate = e.event(pool, 0);
    bytes(src, 32).fill(3);
    let mut w = [gate];
    ok!(ze::zeCommandListAppendMemoryCopy(
        imm,
        dst,
        src,
        32,
        null_mut(),
        1,
        w.as_mut_ptr()
    ));
    assert_eq!(
        call!(ze::zeCommandListHostSynchronize(imm, 1000)),
        ZE_RESULT_NOT_READY
    );
    assert!(bytes(dst, 32).iter().all(|&b| b == 9), "still waiting");
    ok!(ze::zeEventHostSignal(gate));
    ok!(ze::zeCommandListHostSynchronize(imm, 0));
    assert!(bytes(dst, 32).iter().all(|&b| b == 3));

    // Immediate lists are not executed through a queue.
    let q = e.queue(0);
    let mut lh = imm;
    assert_eq!(
        call!(ze::zeCommandQueueExecuteCommandLists(
            q,
            1,
            &mut lh,
            null_mut()
        )),
        ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE
    );
    ok!(ze::zeEventDestroy(gate));
    ok!(ze::zeEventPoolDestroy(pool));
    ok!(ze::zeCommandListDestroy(imm));
    ok!(ze::zeCommandQueueDestroy(q));
    ok!(ze::zeContextDestroy(e.ctx));
}

#[test]
fn functions_without_behaviour_answer_their_fallback() {
    let e = env();
    let script = zekit_mock::script();
    // An [out] handle: a success would be a lie.
    let mut vertex = 1usize as ze_fabric_vertex_handle_t;
    assert_eq!(
        call!(ze::zeDeviceGetFabricVertexExp(e.device, &mut vertex)),
        ZE_RESULT_ERROR_UNSUPPORTED_FEATURE
    );
    assert!(vertex.is_null());
    // Nothing to read back: success.
    let mut p = e.host(64);
    ok!(ze::zeContextMakeMemoryResident(e.ctx, e.device, p, 64));
    // Programmed results override the fallback too; the log has them all.
    script
        .on("zeContextMakeMemoryResident")
        .returns(ZE_RESULT_ERROR_DEVICE_LOST);
    assert_eq!(
        call!(ze::zeContextMakeMemoryResident(e.ctx, e.device, p, 64)),
        ZE_RESULT_ERROR_DEVICE_LOST
    );
    let calls = script.calls_to("zeContextMakeMemoryResident");
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[1].result, ZE_RESULT_ERROR_DEVICE_LOST);
    assert_eq!(
        script.calls_to("zeDeviceGetFabricVertexExp")[0].result,
        ZE_RESULT_ERROR_UNSUPPORTED_FEATURE
    );
    ok!(ze::zeMemFree(e.ctx, p));
    p = null_mut();
    let _ = p;
    ok!(ze::zeContextDestroy(e.ctx));
}

#[test]
fn the_fallback_table_covers_every_function_and_the_modeled_ones_exist() {
    let table = zekit_mock::fallback::table();
    let names: std::collections::BTreeSet<&str> = table.iter().map(|(n, _)| *n).collect();
    let ddi: std::collections::BTreeSet<&str> = zekit_sys::DDI_TABLES
        .iter()
        .flat_map(|(_, t)| t.iter())
        .flat_map(|t| t.entries.iter())
        .map(|e| e.name)
        .collect();
    assert_eq!(
        names, ddi,
        "the header's table lists exactly the DDI functions"
    );
    assert_eq!(
        zekit_mock::fallback::result("zeModuleCreate"),
        ZE_RESULT_ERROR_UNSUPPORTED_FEATURE
    );
    assert_eq!(
        zekit_mock::fallback::result("zeCommandListAppendLaunchKernel"),
        ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
        "signals an event"
    );
    assert_eq!(
        zekit_mock::fallback::result("zeKernelSetGroupSize"),
        ZE_RESULT_SUCCESS
    );
    for f in zekit_mock::modeled() {
        assert!(ddi.contains(f), "{f} is not an API function");
    }
}

#[test]
fn the_modeled_functions_are_the_methods_the_impl_blocks_define() {
    let _e = env();
    let modeled = zekit_mock::modeled();
    assert!(modeled.contains(&"zeMemAllocDevice") && modeled.contains(&"zerGetDefaultContext"));
    assert!(!zekit_mock::is_modeled("zeDeviceGetFabricVertexExp"));
    assert!(
        zekit_mock::is_modeled("zeImageCreate")
            && zekit_mock::is_modeled("zeVirtualMemQueryPageSize")
    );
    assert!(zekit_mock::is_modeled("zeModuleCreate") && zekit_mock::is_modeled("zeKernelCreate"));
    let installed = zekit_icd::dispatch().expect("installed");
    for f in zekit_icd::api::FUNCTIONS {
        assert_eq!(
            zekit_mock::is_modeled(f.name),
            installed.implements_function(f.name),
            "{}",
            f.name
        );
        assert!(
            installed.offers(f.method),
            "{} is offered (fill_all)",
            f.name
        );
    }
}

#[test]
fn default_context_and_runtime_functions() {
    let e = env();
    // SAFETY: valid handles.
    let (ctx, again, rt_ctx) = unsafe {
        (
            ze::zeDriverGetDefaultContext(e.driver),
            ze::zeDriverGetDefaultContext(e.driver),
            ze::zerGetDefaultContext(),
        )
    };
    assert!(!ctx.is_null());
    assert_eq!(ctx, again);
    assert_eq!(ctx, rt_ctx);
    let p = e.host(16);
    let mut q = null_mut();
    ok!(ze::zeMemAllocHost(
        ctx,
        &ze_host_mem_alloc_desc_t::default(),
        16,
        0,
        &mut q
    ));
    ok!(ze::zeMemFree(ctx, q));
    assert_eq!(
        call!(ze::zeContextDestroy(ctx)),
        ZE_RESULT_ERROR_INVALID_ARGUMENT
    );
    // SAFETY: valid handles.
    unsafe {
        assert_eq!(ze::zerTranslateDeviceHandleToIdentifier(e.device), 0);
        assert_eq!(ze::zerTranslateIdentifierToDeviceHandle(0), e.device);
        assert!(ze::zerTranslateIdentifierToDeviceHandle(1).is_null());
    }
    let mut text = null();
    ok!(ze::zerGetLastErrorDescription(&mut text));
    // SAFETY: NUL-terminated text from the mock.
    let text = unsafe { CStr::from_ptr(text) }
        .to_string_lossy()
        .into_owned();
    assert!(text.contains("no device 1"), "{text}");
    ok!(ze::zeMemFree(e.ctx, p));
    ok!(ze::zeContextDestroy(e.ctx));
}
