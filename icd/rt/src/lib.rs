//! Runtime shared by zekit's ICDs (the CPU driver and the mock).
//!
//! The generated crate `zekit-icd` holds the C entry points; they lean on this crate for
//! what is the same for every function: typed handle objects checked on every call
//! ([`handle`]), the error type ([`ZeError`]), the panic guard that keeps unwinding out
//! of C callers ([`guard`]), tracing ([`trace`]) and the switch for parameter validation.

pub mod conv;
pub mod error;
pub mod handle;
pub mod last_error;
pub mod trace;
pub mod validation;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU8, Ordering};

pub use error::{ZeError, ZeResult};
pub use handle::{Handle, HandleKind, Obj};
pub use last_error::{fail, failed, last_error, last_error_ptr};
pub use validation::{lenient, strict};
pub use zekit_sys as sys;
use zekit_sys::ze_result_t;

/// Runs one entry point's body; a panic becomes `ZE_RESULT_ERROR_UNKNOWN` and a log line.
pub fn guard(function: &'static str, body: impl FnOnce() -> ze_result_t) -> ze_result_t {
    last_error::enter();
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(r) => r,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "non-string panic payload".into());
            log_error(function, &format!("panic in driver: {msg}; returning ZE_RESULT_ERROR_UNKNOWN"));
            ze_result_t::ERROR_UNKNOWN
        }
    }
}

// 0 = not read yet, 1 = on, 2 = off, 3 = on with debug lines.
static LOG: AtomicU8 = AtomicU8::new(0);

fn log_level() -> u8 {
    match LOG.load(Ordering::Relaxed) {
        0 => {
            let l = match std::env::var("ZEKIT_LOG").as_deref() {
                Ok("0" | "off" | "false" | "no") => 2,
                Ok("debug") => 3,
                _ => 1,
            };
            LOG.store(l, Ordering::Relaxed);
            l
        }
        l => l,
    }
}

/// Whether entry points run the generated parameter validation (on unless `ZEKIT_VALIDATION=0`;
/// see [`validation`] for the levels).
#[inline]
pub fn validation_enabled() -> bool {
    validation::level() != validation::Level::Off
}

/// Turns the generated parameter validation on (at the compatible level) or off for this process.
pub fn set_validation(on: bool) {
    validation::set_level(if on { validation::Level::Compatible } else { validation::Level::Off });
}

/// Logs why a call failed, as one line on stderr (silenced by `ZEKIT_LOG=0`).
pub fn log_error(function: &str, msg: &str) {
    if log_level() != 2 {
        eprintln!("zekit: {function}: {msg}");
    }
}

/// True when debug lines are asked for (`ZEKIT_LOG=debug`).
pub fn debug_log() -> bool {
    log_level() == 3
}

/// Logs a debug line (only with `ZEKIT_LOG=debug`).
pub fn log_debug(msg: &str) {
    if debug_log() {
        eprintln!("zekit: debug: {msg}");
    }
}

/// Silences or restores error log lines for this process.
pub fn set_logging(on: bool) {
    LOG.store(if on { 1 } else { 2 }, Ordering::Relaxed);
}
