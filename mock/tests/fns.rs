//! The mock in process behind `zekit_sys::fns::Fns::from_driver`: the function tables a
//! downstream crate calls, filled from the driver's own getters, with no loader and no
//! environment variables; the script steers what they answer.

use std::ptr::null_mut;

use zekit_sys::fns::Fns;
use zekit_sys::*;

#[test]
fn function_tables_from_the_mock_in_process() {
    zekit_mock::install();
    // SAFETY: the getters of the driver installed above.
    let fns = unsafe { Fns::from_driver(&zekit_icd::ddi::getters()) };
    // The mock offers every function.
    assert_eq!(fns.count(), zekit_icd::FUNCTIONS.len());
    let ze = fns.ze;
    // SAFETY: the mock's entry points, called as a C program would.
    unsafe {
        assert_eq!(ze.zeInit.unwrap()(ze_init_flags_t(0)), ZE_RESULT_SUCCESS);
        let mut n = 1u32;
        let mut drv: ze_driver_handle_t = null_mut();
        assert_eq!(ze.zeDriverGet.unwrap()(&mut n, &mut drv), ZE_RESULT_SUCCESS);
        let mut dev: ze_device_handle_t = null_mut();
        assert_eq!(ze.zeDeviceGet.unwrap()(drv, &mut n, &mut dev), ZE_RESULT_SUCCESS);
        let mut props = ze_device_properties_t::default();
        assert_eq!(ze.zeDeviceGetProperties.unwrap()(dev, &mut props), ZE_RESULT_SUCCESS);
        assert_eq!(props.r#type, ze_device_type_t::GPU, "the mock's default profile");

        // Fault injection reaches calls made through the tables.
        zekit_mock::script().on("zeContextCreate").nth(1).returns(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY);
        let mut ctx: ze_context_handle_t = null_mut();
        let desc = ze_context_desc_t::default();
        assert_eq!(ze.zeContextCreate.unwrap()(drv, &desc, &mut ctx), ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY);
        assert_eq!(ze.zeContextCreate.unwrap()(drv, &desc, &mut ctx), ZE_RESULT_SUCCESS);
        assert_eq!(ze.zeContextDestroy.unwrap()(ctx), ZE_RESULT_SUCCESS);
    }
    assert_eq!(zekit_mock::script().call_count("zeContextCreate"), 2);
}
