//! Small conversions the generated methods use: strings, lengths, and the `pNext` rule.

use std::ffi::{c_char, c_void, CStr, CString};

use zekit_sys::*;

use crate::{Error, Result};

/// `s` as a C string; an interior NUL is `ZE_RESULT_ERROR_INVALID_ARGUMENT`.
pub(crate) fn c_string(s: &str, function: &'static str, param: &str) -> Result<CString> {
    CString::new(s).map_err(|_| Error::new(ZE_RESULT_ERROR_INVALID_ARGUMENT, function, format!("`{param}` holds a NUL byte")))
}

/// A copy of the C string at `p` (empty for null; invalid UTF-8 replaced).
///
/// # Safety
/// `p` is null or points to a NUL-terminated string.
pub(crate) unsafe fn copy_c_str(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: the caller's promise.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// The text of a fixed-size C character array (a name member, a build log): up to the first
/// NUL, invalid UTF-8 replaced.
pub fn string_from_chars(chars: &[c_char]) -> String {
    let bytes: Vec<u8> = chars.iter().take_while(|c| **c != 0).map(|c| *c as u8).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// A structure passed in by reference must not carry a chain: raw chains are not safe to
/// build in user code (the `_with` methods take a typed [`crate::Chain`]).
pub(crate) fn no_chain(next: *const c_void, function: &'static str, param: &str) -> Result<()> {
    if next.is_null() {
        Ok(())
    } else {
        Err(Error::new(
            ZE_RESULT_ERROR_INVALID_ARGUMENT,
            function,
            format!("`{param}.pNext` is not null: pass extensions through a typed `Chain` (the `_with` method)"),
        ))
    }
}

/// A slice length as the C count type; too long is `ZE_RESULT_ERROR_INVALID_SIZE`.
pub(crate) fn slice_len<T: TryFrom<usize>>(len: usize, function: &'static str, param: &str) -> Result<T> {
    T::try_from(len).map_err(|_| Error::new(ZE_RESULT_ERROR_INVALID_SIZE, function, format!("`{param}` does not fit {len}")))
}

/// Two slices sharing one count must have the same length.
pub(crate) fn same_len(a: usize, b: usize, function: &'static str) -> Result<()> {
    if a == b {
        Ok(())
    } else {
        Err(Error::new(ZE_RESULT_ERROR_INVALID_ARGUMENT, function, format!("slices sharing one count differ in length ({a} and {b})")))
    }
}

/// A copy that recorded work reads when it runs: kept alive by the command list, at a
/// stable address.
pub(crate) struct Kept<T>(std::sync::Arc<T>);

// SAFETY: the copy is only read (by the driver, through the address the list recorded) and
// dropped; nothing in Rust reaches it after the call that recorded it.
unsafe impl<T> Send for Kept<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for Kept<T> {}

impl<T: 'static> Kept<T> {
    pub(crate) fn new(v: T) -> Self {
        Kept(std::sync::Arc::new(v))
    }

    pub(crate) fn get(&self) -> &T {
        &self.0
    }

    /// The copy as a keep-alive reference.
    pub(crate) fn into_keep(self) -> crate::object::KeepAlive {
        std::sync::Arc::new(self)
    }
}
