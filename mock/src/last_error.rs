//! `zeDriverGetLastErrorDescription`: the description of the last failed call on each thread.
//!
//! Behaviours set a specific description with [`fail`]; with hooks on, a call that fails
//! without one (a programmed result, a validation error) gets `function: RESULT`.

use std::cell::{Cell, RefCell};
use std::ffi::{c_char, CString};

use zekit_icd::ZeError;
use zekit_sys::ze_result_t;

thread_local! {
    static LAST: RefCell<CString> = RefCell::new(CString::default());
    /// Whether the current call set a description (reset by `begin_call`).
    static SET: Cell<bool> = const { Cell::new(false) };
    /// Whether the current call was answered by the script.
    static PROGRAMMED: Cell<bool> = const { Cell::new(false) };
}

fn store(msg: String) {
    let c = CString::new(msg.replace('\0', " ")).unwrap_or_default();
    let _ = LAST.try_with(|l| {
        if let Ok(mut l) = l.try_borrow_mut() {
            *l = c;
        }
    });
    let _ = SET.try_with(|s| s.set(true));
}

/// Records why the current call fails and returns `err` (`msg` is built only here).
pub(crate) fn fail(err: ZeError, msg: impl FnOnce() -> String) -> ZeError {
    store(format!("{} ({})", msg(), err.0));
    err
}

/// Start of a call (hooks on).
pub(crate) fn begin_call(programmed: bool) {
    let _ = SET.try_with(|s| s.set(false));
    let _ = PROGRAMMED.try_with(|p| p.set(programmed));
}

/// End of a call (hooks on): failures without a description get a generic one.
pub(crate) fn end_call(function: &str, result: ze_result_t) {
    if result == ze_result_t::SUCCESS || result == ze_result_t::NOT_READY {
        return;
    }
    if SET.try_with(Cell::get).unwrap_or(true) {
        return;
    }
    let programmed = PROGRAMMED.try_with(Cell::get).unwrap_or(false);
    store(if programmed {
        format!("{function}: {result} (programmed by the mock's script)")
    } else {
        format!("{function}: {result}")
    });
}

/// The description for this thread ("" before any failure); valid until the thread's next
/// failing call.
pub(crate) fn as_ptr() -> *const c_char {
    LAST.try_with(|l| l.try_borrow().map(|c| c.as_ptr()).unwrap_or(c"".as_ptr()))
        .unwrap_or(c"".as_ptr())
}

/// The description for this thread, as text.
pub fn last_error() -> String {
    LAST.try_with(|l| {
        l.try_borrow()
            .map(|c| c.to_string_lossy().into_owned())
            .unwrap_or_default()
    })
    .unwrap_or_default()
}
