//! The mock installed without hooks (as the benchmark uses it): the modeled functions behave
//! the same, nothing is logged or programmable, and functions without behaviour answer the
//! trait default, `ZE_RESULT_ERROR_UNSUPPORTED_FEATURE`.

use std::ptr::null_mut;

use zekit_icd::entry as ze;
use zekit_sys::*;

#[test]
fn without_hooks() {
    zekit_mock::install_without_hooks();
    let script = zekit_mock::script();
    script.on("zeInit").returns(ZE_RESULT_ERROR_DEVICE_LOST);
    // SAFETY: valid arguments throughout.
    unsafe {
        assert_eq!(
            ze::zeInit(ze_init_flags_t(0)),
            ZE_RESULT_SUCCESS,
            "no script"
        );
        let mut n = 1;
        let mut driver = null_mut();
        assert_eq!(ze::zeDriverGet(&mut n, &mut driver), ZE_RESULT_SUCCESS);
        let mut device = null_mut();
        assert_eq!(
            ze::zeDeviceGet(driver, &mut n, &mut device),
            ZE_RESULT_SUCCESS
        );
        let mut ctx = null_mut();
        assert_eq!(
            ze::zeContextCreate(driver, &ze_context_desc_t::default(), &mut ctx),
            ZE_RESULT_SUCCESS
        );
        let (mut a, mut b) = (null_mut(), null_mut());
        let hd = ze_host_mem_alloc_desc_t::default();
        assert_eq!(
            ze::zeMemAllocHost(ctx, &hd, 16, 0, &mut a),
            ZE_RESULT_SUCCESS
        );
        assert_eq!(
            ze::zeMemAllocHost(ctx, &hd, 16, 0, &mut b),
            ZE_RESULT_SUCCESS
        );
        (a as *mut u8).write_bytes(0x42, 16);
        let mut imm = null_mut();
        let qd = ze_command_queue_desc_t {
            mode: ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS,
            ..Default::default()
        };
        assert_eq!(
            ze::zeCommandListCreateImmediate(ctx, device, &qd, &mut imm),
            ZE_RESULT_SUCCESS
        );
        assert_eq!(
            ze::zeCommandListAppendMemoryCopy(imm, b, a, 16, null_mut(), 0, null_mut()),
            ZE_RESULT_SUCCESS
        );
        assert_eq!(*(b as *const u8).add(15), 0x42);
        assert_eq!(
            ze::zeContextMakeMemoryResident(ctx, device, a, 16),
            ZE_RESULT_ERROR_UNSUPPORTED_FEATURE
        );
    }
    assert!(script.calls().is_empty(), "nothing is logged without hooks");
}
