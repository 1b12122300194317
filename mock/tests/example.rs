//! The mock from Rust, without the loader: install it, call the generated C entry points
//! (`zekit_icd::entry::*`) as a C program would, and assert on `zekit_mock::script()`.
//!
//! init → driver → device → context → allocations → command list copy → verify bytes, then
//! fault injection and call-log assertions.

use std::ffi::c_void;
use std::ptr::{null, null_mut};

use zekit_icd::entry as ze;
use zekit_sys::*;

/// Asserts an entry point returned `ZE_RESULT_SUCCESS`.
macro_rules! ok {
    ($call:expr) => {{
        // SAFETY: the test passes valid arguments, as a correct C program would.
        let r = unsafe { $call };
        assert_eq!(r, ZE_RESULT_SUCCESS, "{}", stringify!($call));
    }};
}

#[test]
fn copy_through_a_command_list_then_inject_a_fault() {
    zekit_mock::install();
    let script = zekit_mock::script();
    script.reset();

    // Discovery.
    ok!(ze::zeInit(ZE_INIT_FLAG_GPU_ONLY.into()));
    let mut count = 0u32;
    ok!(ze::zeDriverGet(&mut count, null_mut()));
    assert_eq!(count, 1);
    let mut driver: ze_driver_handle_t = null_mut();
    ok!(ze::zeDriverGet(&mut count, &mut driver));
    let mut device: ze_device_handle_t = null_mut();
    ok!(ze::zeDeviceGet(driver, &mut count, &mut device));
    let mut props = ze_device_properties_t::default();
    ok!(ze::zeDeviceGetProperties(device, &mut props));
    assert_eq!(props.vendorId, 0x8086);

    // Context and memory.
    let mut ctx: ze_context_handle_t = null_mut();
    ok!(ze::zeContextCreate(
        driver,
        &ze_context_desc_t::default(),
        &mut ctx
    ));
    const N: usize = 4096;
    let (mut host, mut dev, mut back): (*mut c_void, *mut c_void, *mut c_void) =
        (null_mut(), null_mut(), null_mut());
    ok!(ze::zeMemAllocHost(
        ctx,
        &ze_host_mem_alloc_desc_t::default(),
        N,
        64,
        &mut host
    ));
    ok!(ze::zeMemAllocDevice(
        ctx,
        &ze_device_mem_alloc_desc_t::default(),
        N,
        4096,
        device,
        &mut dev
    ));
    ok!(ze::zeMemAllocHost(
        ctx,
        &ze_host_mem_alloc_desc_t::default(),
        N,
        64,
        &mut back
    ));
    assert_eq!(dev as usize % 4096, 0, "alignment honoured");
    // SAFETY: `host` is N bytes of host memory.
    let src = unsafe { std::slice::from_raw_parts_mut(host as *mut u8, N) };
    for (i, b) in src.iter_mut().enumerate() {
        *b = (i * 7 % 251) as u8;
    }

    // host → device → host through a command list and a queue.
    let mut queue: ze_command_queue_handle_t = null_mut();
    ok!(ze::zeCommandQueueCreate(
        ctx,
        device,
        &ze_command_queue_desc_t::default(),
        &mut queue
    ));
    let mut list: ze_command_list_handle_t = null_mut();
    ok!(ze::zeCommandListCreate(
        ctx,
        device,
        &ze_command_list_desc_t::default(),
        &mut list
    ));
    ok!(ze::zeCommandListAppendMemoryCopy(
        list,
        dev,
        host,
        N,
        null_mut(),
        0,
        null_mut()
    ));
    ok!(ze::zeCommandListAppendBarrier(
        list,
        null_mut(),
        0,
        null_mut()
    ));
    ok!(ze::zeCommandListAppendMemoryCopy(
        list,
        back,
        dev,
        N,
        null_mut(),
        0,
        null_mut()
    ));
    ok!(ze::zeCommandListClose(list));
    // SAFETY: `back` is N bytes of host memory.
    let out = unsafe { std::slice::from_raw_parts(back as *const u8, N) };
    assert!(out.iter().all(|&b| b == 0), "nothing runs before execution");
    ok!(ze::zeCommandQueueExecuteCommandLists(
        queue,
        1,
        &mut list,
        null_mut()
    ));
    ok!(ze::zeCommandQueueSynchronize(queue, u64::MAX));
    assert_eq!(out, &src[..], "the bytes made the round trip");

    // Fault injection: the 2nd zeMemAllocDevice from now on fails.
    script
        .on("zeMemAllocDevice")
        .nth(2)
        .returns(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
    let results: Vec<ze_result_t> = (0..3)
        .map(|_| {
            let mut p = null_mut();
            // SAFETY: valid context and device.
            unsafe {
                ze::zeMemAllocDevice(
                    ctx,
                    &ze_device_mem_alloc_desc_t::default(),
                    64,
                    0,
                    device,
                    &mut p,
                )
            }
        })
        .collect();
    assert_eq!(
        results,
        [
            ZE_RESULT_SUCCESS,
            ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY,
            ZE_RESULT_SUCCESS
        ]
    );

    // The call log saw everything, with arguments and results.
    assert_eq!(script.call_count("zeMemAllocDevice"), 4);
    let allocs = script.calls_to("zeMemAllocDevice");
    assert_eq!(allocs[2].result, ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
    assert_eq!(allocs[2].arg("size"), Some("64"));
    assert_eq!(allocs[0].arg("alignment"), Some("4096"));
    let names: Vec<&str> = script.calls().iter().map(|c| c.function).collect();
    let pos = |f: &str| names.iter().position(|n| *n == f).unwrap();
    assert!(pos("zeCommandListClose") < pos("zeCommandQueueExecuteCommandLists"));
    assert!(
        script.render_log().contains("zeMemAllocDevice(")
            && script
                .render_log()
                .contains("-> ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY")
    );
    let mut desc: *const std::ffi::c_char = null();
    ok!(ze::zeDriverGetLastErrorDescription(driver, &mut desc));
    // SAFETY: the mock returns a NUL-terminated string.
    let text = unsafe { std::ffi::CStr::from_ptr(desc) }.to_string_lossy();
    assert!(text.contains("programmed"), "{text}");

    // Expectations.
    script.expect("zeMemFree").times(3);
    for p in [host, dev, back] {
        ok!(ze::zeMemFree(ctx, p));
    }
    ok!(ze::zeCommandListDestroy(list));
    ok!(ze::zeCommandQueueDestroy(queue));
    ok!(ze::zeContextDestroy(ctx));
    assert_eq!(script.verify(), Ok(()));
}
