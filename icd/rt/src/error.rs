//! The error every driver method returns: a Level Zero result code other than success.

use std::fmt;

use zekit_sys::ze_result_t;

/// A failed call's result code.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ZeError(pub ze_result_t);

pub type ZeResult<T> = Result<T, ZeError>;

impl ZeError {
    pub const UNINITIALIZED: ZeError = ZeError(ze_result_t::ERROR_UNINITIALIZED);
    pub const DEVICE_LOST: ZeError = ZeError(ze_result_t::ERROR_DEVICE_LOST);
    pub const OUT_OF_HOST_MEMORY: ZeError = ZeError(ze_result_t::ERROR_OUT_OF_HOST_MEMORY);
    pub const OUT_OF_DEVICE_MEMORY: ZeError = ZeError(ze_result_t::ERROR_OUT_OF_DEVICE_MEMORY);
    pub const UNSUPPORTED_VERSION: ZeError = ZeError(ze_result_t::ERROR_UNSUPPORTED_VERSION);
    pub const UNSUPPORTED_FEATURE: ZeError = ZeError(ze_result_t::ERROR_UNSUPPORTED_FEATURE);
    pub const INVALID_ARGUMENT: ZeError = ZeError(ze_result_t::ERROR_INVALID_ARGUMENT);
    pub const INVALID_NULL_HANDLE: ZeError = ZeError(ze_result_t::ERROR_INVALID_NULL_HANDLE);
    pub const HANDLE_OBJECT_IN_USE: ZeError = ZeError(ze_result_t::ERROR_HANDLE_OBJECT_IN_USE);
    pub const INVALID_NULL_POINTER: ZeError = ZeError(ze_result_t::ERROR_INVALID_NULL_POINTER);
    pub const INVALID_SIZE: ZeError = ZeError(ze_result_t::ERROR_INVALID_SIZE);
    pub const UNSUPPORTED_SIZE: ZeError = ZeError(ze_result_t::ERROR_UNSUPPORTED_SIZE);
    pub const UNSUPPORTED_ALIGNMENT: ZeError = ZeError(ze_result_t::ERROR_UNSUPPORTED_ALIGNMENT);
    pub const INVALID_ENUMERATION: ZeError = ZeError(ze_result_t::ERROR_INVALID_ENUMERATION);
    pub const UNSUPPORTED_ENUMERATION: ZeError = ZeError(ze_result_t::ERROR_UNSUPPORTED_ENUMERATION);
    pub const NOT_AVAILABLE: ZeError = ZeError(ze_result_t::ERROR_NOT_AVAILABLE);
    pub const UNKNOWN: ZeError = ZeError(ze_result_t::ERROR_UNKNOWN);

    /// The result code.
    pub fn code(self) -> ze_result_t {
        self.0
    }
}

impl From<ZeError> for ze_result_t {
    fn from(e: ZeError) -> ze_result_t {
        e.0
    }
}

impl fmt::Debug for ZeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

impl fmt::Display for ZeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl std::error::Error for ZeError {}
