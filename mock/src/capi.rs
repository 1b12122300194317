//! The C control API of `libze_zekit_mock.so`: the implementations. The exported
//! `zekitMock*` functions themselves, like their declarations in the header
//! `generated/include/zekit/zekit_mock.h`, are generated from one list
//! (`codegen/src/emit_mock.rs`) into [`crate::generated`]; each calls the function here named
//! after it in snake case (`zekitMockSetResult` → [`set_result`]), with the same parameters.
//! Every function catches panics: nothing unwinds into C.

use std::ffi::{c_char, c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::Arc;

use zekit_sys::ze_result_t;

pub use crate::generated::CONTROL_FUNCTIONS;
use crate::kernels::{CCallback, CCallbackFn};
use crate::scenario::Scenario;
use crate::script::{is_known_function, script};

/// Runs `f`; a panic gives `on_panic` and a line on stderr.
fn guard<T>(name: &str, on_panic: T, f: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| {
        eprintln!("zekit-mock: {name}: internal error (panic); nothing was done");
        on_panic
    })
}

/// A C string argument, or `None` for NULL or invalid UTF-8.
///
/// # Safety
/// `p` is NULL or a NUL-terminated string.
unsafe fn text<'a>(p: *const c_char) -> Option<&'a str> {
    if p.is_null() {
        return None;
    }
    // SAFETY: non-null, NUL-terminated per the contract.
    unsafe { CStr::from_ptr(p) }.to_str().ok()
}

/// `zekitMockReset`: see the header.
pub fn reset() {
    guard("zekitMockReset", (), || script().reset());
}

/// `zekitMockSetResult`: see the header.
///
/// # Safety
/// `function` is NULL or a NUL-terminated string.
pub unsafe fn set_result(function: *const c_char, nth: u32, result: ze_result_t) -> ze_result_t {
    guard("zekitMockSetResult", ze_result_t::ERROR_UNKNOWN, || {
        if function.is_null() {
            return ze_result_t::ERROR_INVALID_NULL_POINTER;
        }
        // SAFETY: per the contract.
        let Some(name) = (unsafe { text(function) }).filter(|n| is_known_function(n)) else {
            eprintln!("zekit-mock: zekitMockSetResult: not a Level Zero function");
            return ze_result_t::ERROR_INVALID_ARGUMENT;
        };
        let on = script().on(name);
        let on = if nth == 0 {
            on.always()
        } else {
            on.nth(u64::from(nth))
        };
        on.returns(result);
        ze_result_t::SUCCESS
    })
}

/// `zekitMockCallCount`: see the header.
///
/// # Safety
/// `function` is NULL or a NUL-terminated string.
pub unsafe fn call_count(function: *const c_char) -> u32 {
    guard("zekitMockCallCount", 0, || {
        let n = if function.is_null() {
            script().calls().len()
        } else {
            // SAFETY: per the contract.
            match unsafe { text(function) } {
                Some(name) => script().call_count(name),
                None => 0,
            }
        };
        u32::try_from(n).unwrap_or(u32::MAX)
    })
}

/// `zekitMockWriteLog`: see the header.
///
/// # Safety
/// `path` is NULL or a NUL-terminated string.
pub unsafe fn write_log(path: *const c_char) -> ze_result_t {
    guard("zekitMockWriteLog", ze_result_t::ERROR_UNKNOWN, || {
        let res = if path.is_null() {
            match script().write_log() {
                Ok(true) => Ok(()),
                Ok(false) => return ze_result_t::ERROR_INVALID_NULL_POINTER,
                Err(e) => Err(e),
            }
        } else {
            // SAFETY: per the contract.
            match unsafe { text(path) } {
                Some(p) => script().write_log_to(Path::new(p)),
                None => Err("the path is not valid UTF-8".to_string()),
            }
        };
        match res {
            Ok(()) => ze_result_t::SUCCESS,
            Err(e) => {
                eprintln!("zekit-mock: zekitMockWriteLog: {e}");
                ze_result_t::ERROR_UNKNOWN
            }
        }
    })
}

/// `zekitMockLoadScenario`: see the header.
///
/// # Safety
/// `path` is NULL or a NUL-terminated string.
pub unsafe fn load_scenario(path: *const c_char) -> ze_result_t {
    guard("zekitMockLoadScenario", ze_result_t::ERROR_UNKNOWN, || {
        if path.is_null() {
            return ze_result_t::ERROR_INVALID_NULL_POINTER;
        }
        // SAFETY: per the contract.
        let Some(p) = (unsafe { text(path) }) else {
            eprintln!("zekit-mock: zekitMockLoadScenario: the path is not valid UTF-8");
            return ze_result_t::ERROR_INVALID_ARGUMENT;
        };
        match Scenario::from_file(Path::new(p)) {
            Ok(s) => {
                s.apply(script());
                ze_result_t::SUCCESS
            }
            Err(e) => {
                eprintln!("zekit-mock: zekitMockLoadScenario: {e}");
                ze_result_t::ERROR_INVALID_ARGUMENT
            }
        }
    })
}

/// `zekitMockVerify`: see the header.
///
/// # Safety
/// `buf` is NULL or points to `len` writable bytes.
pub unsafe fn verify(buf: *mut c_char, len: usize) -> i32 {
    guard("zekitMockVerify", -1, || {
        let (n, text) = match script().verify() {
            Ok(()) => (0, String::new()),
            Err(msgs) => (msgs.len(), msgs.join("\n")),
        };
        if !buf.is_null() && len > 0 {
            let k = text.len().min(len - 1);
            // SAFETY: `buf` has `len` writable bytes per the contract; `k + 1 <= len`.
            unsafe {
                std::ptr::copy_nonoverlapping(text.as_ptr(), buf as *mut u8, k);
                *buf.add(k) = 0;
            }
        }
        i32::try_from(n).unwrap_or(i32::MAX)
    })
}

/// `zekitMockOnKernel`: see the header.
///
/// # Safety
/// `kernel` is NULL or a NUL-terminated string; `callback` is NULL or a function of the
/// `zekit_mock_kernel_callback_t` signature, callable from any thread with `user`.
pub unsafe fn on_kernel(
    kernel: *const c_char,
    callback: Option<CCallbackFn>,
    user: *mut c_void,
) -> ze_result_t {
    guard("zekitMockOnKernel", ze_result_t::ERROR_UNKNOWN, || {
        if kernel.is_null() {
            return ze_result_t::ERROR_INVALID_NULL_POINTER;
        }
        // SAFETY: per the contract.
        let Some(name) = (unsafe { text(kernel) }) else {
            eprintln!("zekit-mock: zekitMockOnKernel: the kernel name is not valid UTF-8");
            return ze_result_t::ERROR_INVALID_ARGUMENT;
        };
        match callback {
            Some(f) => {
                let c = CCallback { f, user };
                script().set_kernel_callback(name, Arc::new(move |l| c.call(l)));
            }
            None => {
                script().remove_kernel_callback(name);
            }
        }
        ze_result_t::SUCCESS
    })
}
