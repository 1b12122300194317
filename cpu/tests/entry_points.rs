//! The CPU driver installed in this process behind the generated C entry points
//! (`zekit_icd::entry`), with its hooks on: handle checks, parameter validation, the last-error
//! description of failures the driver never sees, and the `ze_handle_t` header of its handles.

// The driver's library (`zekit-cpu`), which the ICD exports.
extern crate zekit_cpu as zekit_driver_core;

use std::ffi::{c_char, c_void, CStr};
use std::ptr::{null, null_mut};

use zekit_icd::entry;
use zekit_sys::*;

fn last_error(drv: ze_driver_handle_t) -> String {
    let mut s: *const c_char = null();
    // SAFETY: valid driver handle and output pointer.
    let r = unsafe { entry::zeDriverGetLastErrorDescription(drv, &mut s) };
    assert_eq!(r, ZE_RESULT_SUCCESS);
    // SAFETY: NUL-terminated, valid until the next error on this thread.
    unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned()
}

#[test]
fn entry_points_with_hooks() {
    zekit_icd::install(zekit_driver_core::api::dispatch());
    // SAFETY: every pointer below is valid for the call, or deliberately null/stale to test
    // the checks.
    unsafe {
        let mut n = 0u32;
        assert_eq!(
            entry::zeDriverGet(&mut n, null_mut()),
            ZE_RESULT_ERROR_UNINITIALIZED
        );
        assert_eq!(entry::zeInit(ze_init_flags_t(0)), ZE_RESULT_SUCCESS);
        assert_eq!(entry::zeDriverGet(&mut n, null_mut()), ZE_RESULT_SUCCESS);
        assert_eq!(n, 1);
        let mut drv: ze_driver_handle_t = null_mut();
        assert_eq!(entry::zeDriverGet(&mut n, &mut drv), ZE_RESULT_SUCCESS);
        assert!(last_error(drv).starts_with("zeDriverGet: ZE_RESULT_ERROR_UNINITIALIZED"));

        // Handles carry the driver's dispatch tables (ZE_extension_driver_ddi_handles).
        let header = &*drv.cast::<ze_handle_t>();
        assert!(!header.pCore.is_null());
        let core = &*header.pCore;
        assert_eq!(core.isValidFlag, 1);
        assert!((*core.Driver).pfnGetProperties.is_some());
        assert!((*core.Context).pfnCreate.is_some());
        assert!((*core.CommandList).pfnCreate.is_some());
        assert!((*core.Module).pfnCreate.is_some());
        assert!((*core.Kernel).pfnGetSourceAttributes.is_some());
        assert!(
            (*core.Device).pfnReserveCacheExt.is_none(),
            "not implemented: null"
        );

        let mut dev: ze_device_handle_t = null_mut();
        n = 1;
        assert_eq!(entry::zeDeviceGet(drv, &mut n, &mut dev), ZE_RESULT_SUCCESS);
        let mut props = ze_device_properties_t::default();
        assert_eq!(
            entry::zeDeviceGetProperties(dev, &mut props),
            ZE_RESULT_SUCCESS
        );
        assert_eq!(props.r#type, ze_device_type_t::CPU);

        let desc = ze_context_desc_t::default();
        let mut ctx: ze_context_handle_t = null_mut();
        assert_eq!(
            entry::zeContextCreate(drv, &desc, &mut ctx),
            ZE_RESULT_SUCCESS
        );
        let mut p: *mut c_void = null_mut();
        let host_desc = ze_host_mem_alloc_desc_t::default();
        assert_eq!(
            entry::zeMemAllocHost(ctx, &host_desc, 64, 64, &mut p),
            ZE_RESULT_SUCCESS
        );
        // Validation in the entry point: a null descriptor.
        assert_eq!(
            entry::zeMemAllocHost(ctx, null(), 64, 0, &mut p),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER
        );
        assert_eq!(
            last_error(drv),
            "zeMemAllocHost: ZE_RESULT_ERROR_INVALID_NULL_POINTER: invalid arguments: host_desc is null"
        );
        // A failure decided by the driver carries its reason.
        assert_eq!(
            entry::zeMemAllocHost(ctx, &host_desc, 64, 1 << 31, &mut p),
            ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT
        );
        assert!(
            last_error(drv).contains("alignment 2147483648 exceeds"),
            "{}",
            last_error(drv)
        );

        // Destroy twice: the second is an error, not a crash.
        assert_eq!(entry::zeContextDestroy(ctx), ZE_RESULT_SUCCESS);
        assert_eq!(
            entry::zeContextDestroy(ctx),
            ZE_RESULT_ERROR_INVALID_ARGUMENT
        );
        assert!(last_error(drv).starts_with("zeContextDestroy: ZE_RESULT_ERROR_INVALID_ARGUMENT"));
        assert_eq!(entry::zeMemFree(ctx, p), ZE_RESULT_ERROR_INVALID_ARGUMENT);
        // Wrong handle kind.
        assert_eq!(
            entry::zeContextGetStatus(dev.cast()),
            ZE_RESULT_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            entry::zeContextGetStatus(null_mut()),
            ZE_RESULT_ERROR_INVALID_NULL_HANDLE
        );
    }
}
