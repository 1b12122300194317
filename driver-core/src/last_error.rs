//! Per-thread description of the last error the driver returned (`zeDriverGetLastErrorDescription`).
//!
//! Every failure of a driver method goes through [`fail`]: it logs one line with
//! [`zekit_rt::log_error`] and records `"<function>: <result>: <reason>"` for the calling thread.
//! Failures decided before the driver method runs (null or stale handles, parameter validation of
//! the generated entry points) are recorded by [`end_call`] from the `after_call` hook; the entry
//! point logs those itself.
//!
//! The string stays valid until the next error on the same thread replaces it. Successful calls
//! do not clear it; with no error yet it is empty.

use std::cell::{Cell, RefCell};
use std::ffi::{c_char, CString};
use std::fmt::Display;

use zekit_rt::ZeError;
use zekit_sys::ze_result_t;

thread_local! {
    static LAST: RefCell<CString> = RefCell::new(CString::default());
    /// Whether the current call already recorded its failure.
    static RECORDED: Cell<bool> = const { Cell::new(false) };
}

fn set(text: String) {
    // Interior NULs would cut the C string short; they cannot appear in our own messages, but
    // argument dumps come from application data.
    let text = text.replace('\0', "\\0");
    let c = CString::new(text).unwrap_or_default();
    LAST.with(|l| *l.borrow_mut() = c);
    RECORDED.with(|r| r.set(true));
}

/// Records and logs a failure of `function`; returns the error to hand back.
pub fn fail(function: &str, code: ZeError, reason: impl Display) -> ZeError {
    let reason = reason.to_string();
    zekit_rt::log_error(function, &format!("{}: {reason}", code.0));
    set(format!("{function}: {}: {reason}", code.0));
    code
}

/// Marks the start of an API call on this thread (`before_call` hook).
pub fn begin_call() {
    RECORDED.with(|r| r.set(false));
}

/// Ends an API call (`after_call` hook): a failure the driver did not record itself (handle
/// checks, parameter validation of the entry point) is recorded too.
pub fn end_call(function: &str, result: ze_result_t) {
    if result != ze_result_t::SUCCESS && !RECORDED.with(Cell::get) {
        set(format!(
            "{function}: {result}: rejected by the entry point's handle and parameter checks"
        ));
    }
}

/// The last error description of this thread (empty when none).
pub fn last_error() -> String {
    LAST.with(|l| l.borrow().to_string_lossy().into_owned())
}

/// C pointer to the last error description of this thread, valid until the next error recorded
/// on this thread.
pub fn last_error_ptr() -> *const c_char {
    LAST.with(|l| l.borrow().as_ptr())
}
