//! The one error of zekit's drivers: a Level Zero result code other than success, with the
//! one-line reason the entry layer logs and records.
//!
//! Every layer returns it: the generated validation, the handle checks, the shared rules
//! (`zekit-rules`) and the drivers' own objects, on whichever thread the failure happens (a
//! module built by the build pool carries its reason back to the calling thread). Two errors
//! are equal when their codes are: the reason is commentary for people, not identity.

use std::fmt;

use zekit_sys::ze_result_t;

/// A failed call's result code and, where the failing layer said why, the reason.
#[derive(Clone)]
pub struct ZeError {
    code: ze_result_t,
    reason: Option<Box<str>>,
}

pub type ZeResult<T> = Result<T, ZeError>;

impl ZeError {
    pub const UNINITIALIZED: ZeError = ZeError::of(ze_result_t::ERROR_UNINITIALIZED);
    pub const DEVICE_LOST: ZeError = ZeError::of(ze_result_t::ERROR_DEVICE_LOST);
    pub const OUT_OF_HOST_MEMORY: ZeError = ZeError::of(ze_result_t::ERROR_OUT_OF_HOST_MEMORY);
    pub const OUT_OF_DEVICE_MEMORY: ZeError = ZeError::of(ze_result_t::ERROR_OUT_OF_DEVICE_MEMORY);
    pub const UNSUPPORTED_VERSION: ZeError = ZeError::of(ze_result_t::ERROR_UNSUPPORTED_VERSION);
    pub const UNSUPPORTED_FEATURE: ZeError = ZeError::of(ze_result_t::ERROR_UNSUPPORTED_FEATURE);
    pub const INVALID_ARGUMENT: ZeError = ZeError::of(ze_result_t::ERROR_INVALID_ARGUMENT);
    pub const INVALID_NULL_HANDLE: ZeError = ZeError::of(ze_result_t::ERROR_INVALID_NULL_HANDLE);
    pub const HANDLE_OBJECT_IN_USE: ZeError = ZeError::of(ze_result_t::ERROR_HANDLE_OBJECT_IN_USE);
    pub const INVALID_NULL_POINTER: ZeError = ZeError::of(ze_result_t::ERROR_INVALID_NULL_POINTER);
    pub const INVALID_SIZE: ZeError = ZeError::of(ze_result_t::ERROR_INVALID_SIZE);
    pub const UNSUPPORTED_SIZE: ZeError = ZeError::of(ze_result_t::ERROR_UNSUPPORTED_SIZE);
    pub const UNSUPPORTED_ALIGNMENT: ZeError = ZeError::of(ze_result_t::ERROR_UNSUPPORTED_ALIGNMENT);
    pub const INVALID_ENUMERATION: ZeError = ZeError::of(ze_result_t::ERROR_INVALID_ENUMERATION);
    pub const UNSUPPORTED_ENUMERATION: ZeError = ZeError::of(ze_result_t::ERROR_UNSUPPORTED_ENUMERATION);
    pub const NOT_AVAILABLE: ZeError = ZeError::of(ze_result_t::ERROR_NOT_AVAILABLE);
    pub const UNKNOWN: ZeError = ZeError::of(ze_result_t::ERROR_UNKNOWN);

    /// `code` without a reason (the entry layer then logs the code, or its own context).
    pub const fn of(code: ze_result_t) -> ZeError {
        ZeError { code, reason: None }
    }

    /// `code` because of `reason` (one line, no trailing period).
    pub fn new(code: ze_result_t, reason: impl fmt::Display) -> ZeError {
        ZeError::of(code).because(reason)
    }

    /// This error with `reason` instead of any it had.
    pub fn because(mut self, reason: impl fmt::Display) -> ZeError {
        let text = reason.to_string();
        self.reason = (!text.is_empty()).then(|| text.into_boxed_str());
        self
    }

    /// The result code.
    pub fn code(&self) -> ze_result_t {
        self.code
    }

    /// The reason, empty when none was given.
    pub fn reason(&self) -> &str {
        self.reason.as_deref().unwrap_or("")
    }

    /// Whether the code is `code`.
    pub fn is(&self, code: ze_result_t) -> bool {
        self.code == code
    }
}

impl From<ze_result_t> for ZeError {
    fn from(code: ze_result_t) -> ZeError {
        ZeError::of(code)
    }
}

impl From<ZeError> for ze_result_t {
    fn from(e: ZeError) -> ze_result_t {
        e.code
    }
}

impl PartialEq for ZeError {
    fn eq(&self, other: &ZeError) -> bool {
        self.code == other.code
    }
}

impl Eq for ZeError {}

impl std::hash::Hash for ZeError {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.code.hash(state)
    }
}

impl fmt::Debug for ZeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.reason {
            None => write!(f, "{:?}", self.code),
            Some(r) => write!(f, "{:?}: {r}", self.code),
        }
    }
}

impl fmt::Display for ZeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.reason {
            None => write!(f, "{}", self.code),
            Some(r) => write!(f, "{}: {r}", self.code),
        }
    }
}

impl std::error::Error for ZeError {}
