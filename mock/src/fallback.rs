//! What a function the mock has no behaviour for returns: the table
//! `ZEKIT_MOCK_FALLBACK_RESULTS` of the generated control header
//! (`generated/include/zekit/zekit_mock.h`, made by `codegen/src/emit_mock.rs` from the spec):
//! `ZE_RESULT_ERROR_UNSUPPORTED_FEATURE` for functions with `[out]`/`[in,out]` parameters or an
//! `hSignalEvent` (a success would be a lie: outputs nobody wrote, an event nobody signals),
//! `ZE_RESULT_SUCCESS` for the others (hints, residency, kernel arguments, destroys of objects
//! the mock never creates, ...).
//!
//! The header is the one table C programs and the mock share, so it is read here rather than
//! restated.

use std::collections::HashMap;
use std::sync::OnceLock;

use zekit_sys::ze_result_t;

/// The generated control header, as compiled in.
pub const HEADER: &str = include_str!("../../generated/include/zekit/zekit_mock.h");

/// Every `(function, fallback result)` of the header's table, in spec order.
pub fn table() -> &'static [(&'static str, ze_result_t)] {
    static T: OnceLock<Vec<(&'static str, ze_result_t)>> = OnceLock::new();
    T.get_or_init(|| {
        HEADER
            .lines()
            .filter_map(|l| {
                let inner = l.trim().strip_prefix("X(")?;
                let (args, _) = inner.split_once(')')?;
                let (name, code) = args.split_once(',')?;
                let code = crate::scenario::parse_result(code.trim()).ok()?;
                Some((name.trim(), code))
            })
            .collect()
    })
}

/// The fallback result of `function`; `UNSUPPORTED_FEATURE` for names the table lacks.
pub fn result(function: &str) -> ze_result_t {
    static MAP: OnceLock<HashMap<&'static str, ze_result_t>> = OnceLock::new();
    MAP.get_or_init(|| table().iter().copied().collect())
        .get(function)
        .copied()
        .unwrap_or(ze_result_t::ERROR_UNSUPPORTED_FEATURE)
}
