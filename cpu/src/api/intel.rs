//! Functions of Intel's driver extensions that runtimes look up by name
//! (`zeDriverGetExtensionFunctionAddress`), with the semantics of compute-runtime's public
//! headers (`ze_intel_gpu.h`, `zex_driver.h`, `zex_event.h`). They are not in the Level Zero
//! spec, so the generated entry layer has no entry for them: each is a thin C entry point here
//! that checks its handles, catches panics and logs its failure like every other call.
//!
//! | function | behaviour |
//! |---|---|
//! | `zeIntelGetDriverVersionString(hDriver, str, *size)` | `*size == 0`: the length of the version string (no NUL) goes to `*size`; else up to `*size` bytes of it, NUL-terminated when there is room (`ZE_intel_get_driver_version_string`) |
//! | `zexCounterBasedEventCreate2(hContext, hDevice, desc, phEvent)` | `desc->stype` `ZEX_STRUCTURE_COUNTER_BASED_EVENT_DESC` (or 0, unless strict); `zeEventCounterBasedCreate` with the same flags (the `ZEX_COUNTER_BASED_EVENT_FLAG_*` bits are the spec's) and scopes; a `pNext` chain (external counter storage) is `UNSUPPORTED_FEATURE` |
//! | `zexDriverImportExternalPointer(hDriver, ptr, size)` | registers `[ptr, ptr + size)` (host memory is device memory here: nothing to pin); null, size 0 or a range overlapping an import: `INVALID_ARGUMENT` |
//! | `zexDriverReleaseImportedPointer(hDriver, ptr)` | forgets the import that starts at `ptr` (else `INVALID_ARGUMENT`) |
//! | `zexDriverGetHostPointerBaseAddress(hDriver, ptr, *base)` | the start of the import that holds `ptr` (else `INVALID_ARGUMENT`) |

use std::collections::BTreeMap;
use std::ffi::{c_char, c_void};
use std::sync::Mutex;

use zekit_icd::{kinds, Handle, ZeError, ZeResult};
use zekit_sys::*;

/// Structure type of `zex_counter_based_event_desc_t` (`ZEX_STRUCTURE_COUNTER_BASED_EVENT_DESC`).
pub const ZEX_STRUCTURE_COUNTER_BASED_EVENT_DESC: u32 = 0x0003_001C;

/// `zex_counter_based_event_desc_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ZexCounterBasedEventDesc {
    /// `ZEX_STRUCTURE_COUNTER_BASED_EVENT_DESC`.
    pub stype: u32,
    /// Extension structures.
    pub p_next: *const c_void,
    /// `ZEX_COUNTER_BASED_EVENT_FLAG_*`.
    pub flags: u32,
    /// Signal scope.
    pub signal_scope: ze_event_scope_flags_t,
    /// Wait scope.
    pub wait_scope: ze_event_scope_flags_t,
}

/// The version string: the crate's `major.minor.patch`, as `driverVersion` encodes it.
fn version_string() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// Runs `body` as the entry point `function`: panics caught, a failure logged once.
fn entry(function: &'static str, body: impl FnOnce() -> ZeResult<()>) -> ze_result_t {
    zekit_icd_rt::guard(function, || {
        match body() {
            Ok(()) => ze_result_t::SUCCESS,
            Err(e) => zekit_icd_rt::failed(function, e, ""),
        }
    })
}

fn driver(h: ze_driver_handle_t) -> ZeResult<()> {
    super::check_driver(Handle::<kinds::Driver>::from_raw(h.cast())?)
}

fn null(what: &str) -> ZeError {
    zekit_icd_rt::fail(ZeError::INVALID_NULL_POINTER, format_args!("{what} is null"))
}

/// `zeIntelGetDriverVersionString`.
///
/// # Safety
/// The pointers are the application's: `size` readable and writable, `out` (if not null)
/// writable for `*size` bytes.
unsafe extern "C" fn ze_intel_get_driver_version_string(h: ze_driver_handle_t, out: *mut c_char, size: *mut usize) -> ze_result_t {
    entry("zeIntelGetDriverVersionString", || {
        driver(h)?;
        // SAFETY: the caller's pointer, checked non-null.
        let size = unsafe { size.as_mut() }.ok_or_else(|| null("pVersionSize"))?;
        let v = version_string().as_bytes();
        if *size == 0 || out.is_null() {
            *size = v.len();
            return Ok(());
        }
        let n = (*size).min(v.len());
        // SAFETY: `out` holds `*size` bytes (the caller's promise); at most that many are written.
        unsafe {
            std::ptr::copy_nonoverlapping(v.as_ptr(), out.cast::<u8>(), n);
            if *size > n {
                *out.add(n) = 0;
            }
        }
        Ok(())
    })
}

/// `zexCounterBasedEventCreate2`.
///
/// # Safety
/// The pointers are the application's: `desc` readable, `event` writable.
unsafe extern "C" fn zex_counter_based_event_create2(
    context: ze_context_handle_t,
    device: ze_device_handle_t,
    desc: *const ZexCounterBasedEventDesc,
    event: *mut ze_event_handle_t,
) -> ze_result_t {
    // SAFETY: the caller's descriptor, read when not null.
    let Some(d) = (unsafe { desc.as_ref() }) else {
        return entry("zexCounterBasedEventCreate2", || Err(null("desc")));
    };
    if d.stype != ZEX_STRUCTURE_COUNTER_BASED_EVENT_DESC && (d.stype != 0 || zekit_icd_rt::strict()) {
        return entry("zexCounterBasedEventCreate2", || {
            Err(zekit_icd_rt::fail(ZeError::INVALID_ARGUMENT, "desc->stype is not ZEX_STRUCTURE_COUNTER_BASED_EVENT_DESC"))
        });
    }
    if !d.p_next.is_null() {
        return entry("zexCounterBasedEventCreate2", || {
            Err(zekit_icd_rt::fail(ZeError::UNSUPPORTED_FEATURE, "a pNext chain on zex_counter_based_event_desc_t (external counter storage)"))
        });
    }
    let ze = ze_event_counter_based_desc_t {
        flags: ze_event_counter_based_flags_t(d.flags),
        signal: d.signal_scope,
        wait: d.wait_scope,
        ..Default::default()
    };
    // SAFETY: forwarded to the spec's entry point, which checks every argument and logs.
    unsafe { zekit_icd::entry::zeEventCounterBasedCreate(context, device, &ze, event) }
}

/// Imported host ranges: start → size.
static IMPORTS: Mutex<BTreeMap<usize, usize>> = Mutex::new(BTreeMap::new());

fn imports() -> std::sync::MutexGuard<'static, BTreeMap<usize, usize>> {
    IMPORTS.lock().unwrap_or_else(|e| e.into_inner())
}

/// The import holding `p`, if any.
fn import_of(map: &BTreeMap<usize, usize>, p: usize) -> Option<(usize, usize)> {
    map.range(..=p).next_back().map(|(&b, &n)| (b, n)).filter(|&(b, n)| p < b + n)
}

unsafe extern "C" fn zex_driver_import_external_pointer(h: ze_driver_handle_t, ptr: *mut c_void, size: usize) -> ze_result_t {
    entry("zexDriverImportExternalPointer", || {
        driver(h)?;
        let (p, bad) = (ptr as usize, ZeError::INVALID_ARGUMENT);
        if p == 0 || size == 0 || p.checked_add(size).is_none() {
            return Err(zekit_icd_rt::fail(bad, format_args!("cannot import {size} bytes at {ptr:p}")));
        }
        let mut map = imports();
        let overlaps = import_of(&map, p).is_some() || map.range(p..p + size).next().is_some();
        if overlaps {
            return Err(zekit_icd_rt::fail(bad, format_args!("{size} bytes at {ptr:p} overlap an imported range")));
        }
        map.insert(p, size);
        Ok(())
    })
}

unsafe extern "C" fn zex_driver_release_imported_pointer(h: ze_driver_handle_t, ptr: *mut c_void) -> ze_result_t {
    entry("zexDriverReleaseImportedPointer", || {
        driver(h)?;
        match imports().remove(&(ptr as usize)) {
            Some(_) => Ok(()),
            None => Err(zekit_icd_rt::fail(ZeError::INVALID_ARGUMENT, format_args!("{ptr:p} is not the start of an imported range"))),
        }
    })
}

unsafe extern "C" fn zex_driver_get_host_pointer_base_address(h: ze_driver_handle_t, ptr: *mut c_void, base: *mut *mut c_void) -> ze_result_t {
    entry("zexDriverGetHostPointerBaseAddress", || {
        driver(h)?;
        // SAFETY: the caller's pointer, checked non-null.
        let base = unsafe { base.as_mut() }.ok_or_else(|| null("baseAddress"))?;
        let (b, _) = import_of(&imports(), ptr as usize)
            .ok_or_else(|| zekit_icd_rt::fail(ZeError::INVALID_ARGUMENT, format_args!("{ptr:p} is not in an imported range")))?;
        *base = b as *mut c_void;
        Ok(())
    })
}

/// The functions above by name, for `zeDriverGetExtensionFunctionAddress`.
pub(super) fn functions() -> [(&'static str, usize); 5] {
    [
        ("zeIntelGetDriverVersionString", ze_intel_get_driver_version_string as *const () as usize),
        ("zexCounterBasedEventCreate2", zex_counter_based_event_create2 as *const () as usize),
        ("zexDriverImportExternalPointer", zex_driver_import_external_pointer as *const () as usize),
        ("zexDriverReleaseImportedPointer", zex_driver_release_imported_pointer as *const () as usize),
        ("zexDriverGetHostPointerBaseAddress", zex_driver_get_host_pointer_base_address as *const () as usize),
    ]
}
