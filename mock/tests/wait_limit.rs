//! Infinite host waits give up after `ZEKIT_MOCK_WAIT_LIMIT_MS`: the mock never hangs.

use std::ptr::null_mut;
use std::time::{Duration, Instant};

use zekit_icd::entry as ze;
use zekit_sys::*;

#[test]
fn an_infinite_wait_on_an_event_nobody_signals_returns_not_ready() {
    // Read once, on the first wait: set before anything waits.
    std::env::set_var("ZEKIT_MOCK_WAIT_LIMIT_MS", "100");
    zekit_mock::install();
    // SAFETY: valid arguments throughout.
    unsafe {
        let mut n = 1;
        let mut driver = null_mut();
        assert_eq!(ze::zeDriverGet(&mut n, &mut driver), ZE_RESULT_SUCCESS);
        let mut ctx = null_mut();
        assert_eq!(
            ze::zeContextCreate(driver, &ze_context_desc_t::default(), &mut ctx),
            ZE_RESULT_SUCCESS
        );
        let mut pool = null_mut();
        let pd = ze_event_pool_desc_t {
            count: 1,
            ..Default::default()
        };
        assert_eq!(
            ze::zeEventPoolCreate(ctx, &pd, 0, null_mut(), &mut pool),
            ZE_RESULT_SUCCESS
        );
        let mut ev = null_mut();
        assert_eq!(
            ze::zeEventCreate(pool, &ze_event_desc_t::default(), &mut ev),
            ZE_RESULT_SUCCESS
        );
        let t = Instant::now();
        assert_eq!(
            ze::zeEventHostSynchronize(ev, u64::MAX),
            ZE_RESULT_NOT_READY
        );
        let waited = t.elapsed();
        assert!(
            waited >= Duration::from_millis(95) && waited < Duration::from_secs(5),
            "{waited:?}"
        );
        // Long finite timeouts are capped as well.
        let t = Instant::now();
        assert_eq!(
            ze::zeEventHostSynchronize(ev, 3_600_000_000_000),
            ZE_RESULT_NOT_READY
        );
        assert!(t.elapsed() < Duration::from_secs(5));
    }
}
