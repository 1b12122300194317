//! The programmable Level Zero mock driver, as a Rust library for in-process tests (the ICD
//! `libze_zekit_mock.so` for the official loader is the thin crate `mock/icd/`, built on this
//! one; load it with `ZE_ENABLE_ALT_DRIVERS=/path/to/libze_zekit_mock.so`):
//!
//! ```no_run
//! use zekit_icd::entry;
//! use zekit_sys::*;
//!
//! zekit_mock::install(); // the mock is now the process's driver, hooks on
//! zekit_mock::script()
//!     .on("zeMemAllocDevice")
//!     .nth(2)
//!     .returns(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
//! // SAFETY: a valid flags value, as a C program would pass.
//! assert_eq!(unsafe { entry::zeInit(ze_init_flags_t(0)) }, ZE_RESULT_SUCCESS);
//! assert_eq!(zekit_mock::script().call_count("zeInit"), 1);
//! ```
//!
//! - [`api`]: the default behaviour of a device, one `#[zekit_icd::implement]` block per class
//!   trait (`api/device.rs`, `api/mem.rs`, ...); the functions they define are the modeled ones.
//! - [`hooks`]: `impl zekit_icd::Hooks`: the script around every call, fallback results.
//! - [`objects`]: allocations, events, fences and the engine that runs command lists (copies,
//!   fills, kernel launches, ...).
//! - [`kernels`]: kernel launches as tests see them ([`KernelLaunch`]) and the host callbacks
//!   that emulate kernels ([`Script::on_kernel`]).
//! - [`script`](mod@script): call log, programmed results, expectations and sequences ([`script()`]).
//! - [`profile`]: the device the mock reports, YAML with a built-in default.
//! - [`scenario`]: YAML scenario files named by `ZEKIT_MOCK_SCENARIO`.
//! - [`fallback`]: what functions without behaviour return.
//! - [`capi`]: the C control API (`zekitMock*`, header `zekit/zekit_mock.h`); [`generated`]
//!   holds what `cargo xtask gen` emits for the mock (fallback table, exported control functions).

pub mod api;
pub mod capi;
pub mod fallback;
pub mod generated;
pub mod hooks;
pub mod kernels;
pub mod objects;
pub mod profile;
pub mod scenario;
pub mod script;

use std::sync::Once;

pub use api::{is_modeled, mock, modeled, MockDriver};
pub use kernels::{KernelArg, KernelLaunch};
pub use profile::Profile;
pub use scenario::Scenario;
pub use script::{script, Args, Call, Count, Script, Sequence};
/// The description of this thread's last failed call (`zeDriverGetLastErrorDescription`).
pub use zekit_icd_rt::last_error;

/// Installs the mock as this process's driver with hooks on: every call goes through
/// [`script()`] (logged, programmable). Applies `ZEKIT_MOCK_SCENARIO` (an invalid scenario is
/// reported on stderr and ignored). Only the first install of a process counts.
pub fn install() {
    zekit_icd::install(zekit_icd::dispatch!(MockDriver, for_icd()));
}

/// Installs the mock without hooks: no call log, no programmed results, no fallback results
/// (functions without behaviour answer `ZE_RESULT_ERROR_UNSUPPORTED_FEATURE`); the modeled
/// functions behave the same. For benchmarks.
pub fn install_without_hooks() {
    zekit_icd::install(zekit_icd::dispatch!(MockDriver, for_icd()).without_hooks());
}

/// The mock driver, with `ZEKIT_MOCK_SCENARIO` applied: what [`install`] and the ICD
/// (`zekit_icd::export_icd!(MockDriver, zekit_mock::for_icd())` in `mock/icd/`) install.
pub fn for_icd() -> &'static MockDriver {
    apply_scenario_from_env();
    mock()
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
