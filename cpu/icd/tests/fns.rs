//! `zekit_sys::fns::Loaded`: the official loader (Debian's, API 1.4) opened at run time, every
//! function it exports looked up by name, the newer ones reached through
//! `zeDriverGetExtensionFunctionAddress`; the CPU driver behind it. This file is its own
//! process, so it can name the ICD in `ZE_ENABLE_ALT_DRIVERS` before the loader reads it.

mod common;

use std::ffi::c_void;
use std::ptr::null_mut;

use zekit_sys::fns::Loaded;
use zekit_sys::*;

#[test]
fn function_tables_through_the_loader() {
    zekit_testkit::require_loader();
    let icd = common::cpu_icd();
    // The loader reads these at zeInit; this test is the process's only thread touching them.
    std::env::set_var("ZE_ENABLE_ALT_DRIVERS", &icd);
    std::env::set_var("ZEKIT_LOG", "0");
    let dir = zekit_testkit::loader_lib_dir().expect("the loader's folder");
    let mut l = Loaded::load_from(dir.join("libze_loader.so.1")).expect("open the loader");
    let exported = l.count();
    assert!(exported > 100, "the loader exports its API: {exported}");
    // Debian's loader (API 1.4) does not export zeCommandListHostSynchronize (API 1.6).
    let newer_exported = l.ze.zeCommandListHostSynchronize.is_some();
    // SAFETY: the loader's entry points, called as a C program would.
    unsafe {
        let ze = l.ze;
        assert_eq!(ze.zeInit.unwrap()(ze_init_flags_t(0)), ZE_RESULT_SUCCESS);
        let mut n = 1u32;
        let mut drv: ze_driver_handle_t = null_mut();
        assert_eq!(ze.zeDriverGet.unwrap()(&mut n, &mut drv), ZE_RESULT_SUCCESS);
        l.load_extensions(drv);
        assert!(l.count() > exported || newer_exported, "extensions filled nothing");
        let ze = l.ze;
        let mut dev: ze_device_handle_t = null_mut();
        assert_eq!(ze.zeDeviceGet.unwrap()(drv, &mut n, &mut dev), ZE_RESULT_SUCCESS);
        let mut props = ze_device_properties_t::default();
        assert_eq!(ze.zeDeviceGetProperties.unwrap()(dev, &mut props), ZE_RESULT_SUCCESS);
        assert_eq!(props.r#type, ze_device_type_t::CPU);

        // A copy on an immediate list, synchronized with the API 1.6 function.
        let mut ctx: ze_context_handle_t = null_mut();
        assert_eq!(ze.zeContextCreate.unwrap()(drv, &ze_context_desc_t::default(), &mut ctx), ZE_RESULT_SUCCESS);
        let mut list: ze_command_list_handle_t = null_mut();
        let qd = ze_command_queue_desc_t::default();
        assert_eq!(ze.zeCommandListCreateImmediate.unwrap()(ctx, dev, &qd, &mut list), ZE_RESULT_SUCCESS);
        let (mut a, mut b): (*mut c_void, *mut c_void) = (null_mut(), null_mut());
        let hd = ze_host_mem_alloc_desc_t::default();
        assert_eq!(ze.zeMemAllocHost.unwrap()(ctx, &hd, 64, 0, &mut a), ZE_RESULT_SUCCESS);
        assert_eq!(ze.zeMemAllocHost.unwrap()(ctx, &hd, 64, 0, &mut b), ZE_RESULT_SUCCESS);
        a.cast::<u8>().write_bytes(7, 64);
        let copy = ze.zeCommandListAppendMemoryCopy.unwrap();
        assert_eq!(copy(list, b, a, 64, null_mut(), 0, null_mut()), ZE_RESULT_SUCCESS);
        let sync = ze.zeCommandListHostSynchronize.expect("reached through zeDriverGetExtensionFunctionAddress");
        assert_eq!(sync(list, u64::MAX), ZE_RESULT_SUCCESS);
        assert_eq!(std::slice::from_raw_parts(b.cast::<u8>(), 64), &[7u8; 64][..]);
        assert_eq!(ze.zeCommandListDestroy.unwrap()(list), ZE_RESULT_SUCCESS);
        assert_eq!(ze.zeMemFree.unwrap()(ctx, a), ZE_RESULT_SUCCESS);
        assert_eq!(ze.zeMemFree.unwrap()(ctx, b), ZE_RESULT_SUCCESS);
        assert_eq!(ze.zeContextDestroy.unwrap()(ctx), ZE_RESULT_SUCCESS);
    }
}
