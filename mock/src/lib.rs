//! The programmable Level Zero mock driver.
//!
//! Built as `libze_zekit_mock.so` (load it through the official loader with
//! `ZE_ENABLE_ALT_DRIVERS=/path/to/libze_zekit_mock.so`) and as a Rust library named
//! `ze_zekit_mock` for in-process tests (`extern crate ze_zekit_mock as zekit_mock;` gives the
//! shorter name):
//!
//! ```no_run
//! # extern crate ze_zekit_mock as zekit_mock;
//! use zekit_icd::entry;
//! use zekit_sys::*;
//!
//! zekit_mock::install(); // the mock is now the process's driver, hooks on
//! zekit_mock::script()
//!     .on("zeMemAllocDevice")
//!     .nth(2)
//!     .returns(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
//! assert_eq!(unsafe { entry::zeInit(ze_init_flags_t(0)) }, ZE_RESULT_SUCCESS);
//! assert_eq!(zekit_mock::script().call_count("zeInit"), 1);
//! ```
//!
//! - [`driver`]: the `zekit_icd::Driver` implementation (the default behaviour of a device).
//! - [`objects`]: allocations, events, fences and the engine that runs command lists.
//! - [`script`]: call log, programmed results, expectations and sequences ([`script()`]).
//! - [`profile`]: the device the mock reports, YAML with a built-in default.
//! - [`scenario`]: YAML scenario files named by `ZEKIT_MOCK_SCENARIO`.
//! - [`fallback`]: what functions without behaviour return.
//! - [`capi`]: the exported C control API (`zekitMock*`, header `zekit/zekit_mock.h`).

pub mod capi;
pub mod driver;
pub mod fallback;
mod last_error;
pub mod objects;
pub mod profile;
pub mod scenario;
pub mod script;

use std::sync::Once;

pub use driver::{mock, MockDriver};
pub use last_error::last_error;
pub use profile::Profile;
pub use scenario::Scenario;
pub use script::{script, Args, Call, Count, Script, Sequence};

/// Installs the mock as this process's driver with hooks on: every call goes through
/// [`script()`] (logged, programmable). Applies `ZEKIT_MOCK_SCENARIO` (an invalid scenario is
/// reported on stderr and ignored). Only the first install of a process counts.
pub fn install() {
    install_with(true);
}

/// Installs the mock without hooks: no call log, no programmed results, no fallback results
/// (functions without behaviour answer `ZE_RESULT_ERROR_UNSUPPORTED_FEATURE`); the modeled
/// functions behave the same. For benchmarks.
pub fn install_without_hooks() {
    install_with(false);
}

fn install_with(hooks: bool) {
    apply_scenario_from_env();
    zekit_icd::install(driver::mock(), hooks);
}

/// Applies the `ZEKIT_MOCK_SCENARIO` scenario to [`script()`], once per process. An unreadable
/// or invalid scenario is reported on stderr and the mock runs without it.
pub fn apply_scenario_from_env() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        if let Err(e) = Scenario::apply_from_env(script()) {
            eprintln!("zekit-mock: error: {e}; continuing without the scenario");
        }
    });
}

/// The instance the exported `*GetProcAddrTable` functions install (hooks on).
fn icd_instance() -> (&'static dyn zekit_icd::Driver, bool) {
    apply_scenario_from_env();
    (driver::mock(), true)
}

zekit_icd::export_icd!(icd_instance());
