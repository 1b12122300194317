//! A panicking driver method becomes `ZE_RESULT_ERROR_UNKNOWN`, not an abort. This file is its
//! own test binary (its own process), so it can install a tiny panicking driver.

use zekit_icd::{DriverApi, GlobalApi, ZeResult};
use zekit_sys::*;

struct Panicky;

#[zekit_icd::implement]
impl GlobalApi for Panicky {
    fn ze_init(&self, _flags: ze_init_flags_t) -> ZeResult<()> {
        panic!("deliberate panic in a test driver");
    }
}

#[zekit_icd::implement]
impl DriverApi for Panicky {
    fn ze_driver_get(
        &self,
        p_count: &mut u32,
        _ph_drivers: Option<&mut [Option<zekit_icd::Handle<zekit_icd::kinds::Driver>>]>,
    ) -> ZeResult<()> {
        *p_count = 0;
        Ok(())
    }
}

static PANICKY: Panicky = Panicky;

#[test]
fn panic_becomes_error_unknown() {
    zekit_icd::install(zekit_icd::dispatch!(Panicky, &PANICKY));
    for _ in 0..2 {
        // SAFETY: zeInit takes flags by value.
        let r = unsafe { zekit_icd::entry::zeInit(ze_init_flags_t(0)) };
        assert_eq!(r, ZE_RESULT_ERROR_UNKNOWN);
    }
    // The process (and the driver) keep working.
    let mut n = 5u32;
    // SAFETY: valid count pointer, no array.
    let r = unsafe { zekit_icd::entry::zeDriverGet(&mut n, std::ptr::null_mut()) };
    assert_eq!((r, n), (ZE_RESULT_SUCCESS, 0));
}
