//! One log line and one last-error record per failed call, written by the entry layer.
//!
//! A driver method that fails says why in the error it returns ([`ZeError::new`], or [`fail`]
//! on a code). When the call returns an error, the generated entry layer calls [`failed`]: it
//! logs one line (`zekit: zeMemFree: ZE_RESULT_ERROR_INVALID_ARGUMENT: why`, silenced by
//! `ZEKIT_LOG=0`) and records the same text as the thread's last error, which
//! `zeDriverGetLastErrorDescription` returns ([`last_error_ptr`]). Failures found before the
//! driver runs (null or stale handles, parameter validation) take the same path.
//!
//! `ZE_RESULT_NOT_READY`, `ZE_RESULT_QUERY_TRUE` and `ZE_RESULT_QUERY_FALSE` are answers, not
//! errors: they are neither logged nor recorded. An
//! `UNSUPPORTED_FEATURE` without a reason (a function the driver does not implement) is
//! recorded but not logged.

use std::cell::RefCell;
use std::ffi::{c_char, CString};
use std::fmt::Display;

use zekit_sys::ze_result_t;

use crate::ZeError;

thread_local! {
    static LAST: RefCell<CString> = RefCell::new(CString::default());
}

/// Makes sure this thread's record exists, so that a call made after it is gone (from an exit
/// handler, once the thread's locals are destroyed) can tell and stay quiet.
#[inline]
pub fn enter() {
    let _ = LAST.try_with(|_| ());
}

/// `code` because of `reason`: the error to hand back.
#[must_use = "the reason travels in the returned error"]
pub fn fail(code: ZeError, reason: impl Display) -> ZeError {
    code.because(reason)
}

/// Ends a failed call of `function`: logs one line and records the last error. `context`
/// is used when the error carries no reason. Returns the code.
pub fn failed(function: &str, e: ZeError, context: &str) -> ze_result_t {
    let code = e.code();
    if matches!(code, ze_result_t::NOT_READY | ze_result_t::QUERY_TRUE | ze_result_t::QUERY_FALSE) {
        return code;
    }
    if LAST.try_with(|_| ()).is_err() {
        // The process is exiting and this thread's records are gone: quiet.
        return code;
    }
    let reason = e.reason().to_string();
    let why = match (reason.is_empty(), context.is_empty()) {
        (false, true) => reason,
        (false, false) => format!("{context}: {reason}"),
        (true, false) => context.to_string(),
        (true, true) => String::new(),
    };
    let text = if why.is_empty() { format!("{code}") } else { format!("{code}: {why}") };
    if code != ze_result_t::ERROR_UNSUPPORTED_FEATURE || !why.is_empty() {
        crate::log_error(function, &text);
    }
    // Interior NULs would cut the C string short; reasons may quote application data.
    let c = CString::new(format!("{function}: {text}").replace('\0', "\\0")).unwrap_or_default();
    let _ = LAST.try_with(|l| {
        if let Ok(mut l) = l.try_borrow_mut() {
            *l = c;
        }
    });
    code
}

/// The last error description of this thread (empty when none).
pub fn last_error() -> String {
    LAST.try_with(|l| l.borrow().to_string_lossy().into_owned()).unwrap_or_default()
}

/// C pointer to the last error description of this thread, valid until the next failure on
/// this thread.
pub fn last_error_ptr() -> *const c_char {
    LAST.try_with(|l| l.borrow().as_ptr()).unwrap_or(c"".as_ptr())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_record_per_failure() {
        crate::set_logging(false);
        let e = fail(ZeError::INVALID_SIZE, "size 0");
        assert_eq!(e.reason(), "size 0");
        assert_eq!(failed("zeX", e, ""), ze_result_t::ERROR_INVALID_SIZE);
        assert_eq!(last_error(), "zeX: ZE_RESULT_ERROR_INVALID_SIZE: size 0");
        assert_eq!(failed("zeY", ZeError::INVALID_ARGUMENT, "invalid arguments"), ze_result_t::ERROR_INVALID_ARGUMENT);
        assert_eq!(last_error(), "zeY: ZE_RESULT_ERROR_INVALID_ARGUMENT: invalid arguments");
        failed("zeZ", ZeError::of(ze_result_t::NOT_READY), "");
        failed("zeQ", ZeError::of(ze_result_t::QUERY_FALSE), "");
        assert_eq!(last_error(), "zeY: ZE_RESULT_ERROR_INVALID_ARGUMENT: invalid arguments");
        failed("zeW", ZeError::UNKNOWN, "");
        assert_eq!(last_error(), "zeW: ZE_RESULT_ERROR_UNKNOWN");
        failed("zeV", ZeError::new(ze_result_t::ERROR_INVALID_SIZE, "size 3"), "width");
        assert_eq!(last_error(), "zeV: ZE_RESULT_ERROR_INVALID_SIZE: width: size 3");
    }

    #[test]
    fn equal_by_code_and_reasons_travel() {
        let e = ZeError::new(ze_result_t::ERROR_INVALID_ARGUMENT, "no such thing");
        assert_eq!(e, ZeError::INVALID_ARGUMENT);
        assert_ne!(e, ZeError::INVALID_SIZE);
        assert_eq!(format!("{e}"), "ZE_RESULT_ERROR_INVALID_ARGUMENT: no such thing");
        let moved = std::thread::spawn(move || e).join().unwrap();
        assert_eq!(moved.reason(), "no such thing");
        assert_eq!(ZeError::INVALID_ARGUMENT.because("").reason(), "");
    }
}
