//! A safe Rust API for oneAPI Level Zero, generated from the zekit spec's annotations where they
//! decide and hand-written where judgment is needed.
//!
//! ```no_run
//! # fn main() -> zekit::Result<()> {
//! let api = zekit::Api::load()?; // the official loader; `Api::mock()` in unit tests
//! api.init(zekit::sys::ze_init_flags_t(0))?;
//! for driver in api.drivers()? {
//!     for device in driver.devices()? {
//!         let props = device.properties()?;
//!         println!("{}", zekit::util::string_from_chars(&props.name));
//!     }
//! }
//! # Ok(()) }
//! ```
//!
//! # Where calls go
//! An [`Api`] is a set of function tables ([`zekit_sys::fns::Fns`]) and what they were filled
//! from: the official loader ([`Api::load`], cargo feature `load`, on by default), the zekit
//! mock in process (`Api::mock`, cargo feature `mock`), or any driver in process
//! ([`Api::from_driver`]). Code written against `zekit` runs unchanged on each: a crate's
//! binary calls `Api::load()`, its unit tests `Api::mock()` and steer the mock with
//! `zekit_mock::script()`.
//!
//! # Handles
//! Every handle kind has an owned wrapper, [`Object<H>`] under a name (`Driver`, `Device`,
//! `Context`, `CommandList`, `ZesFreq`, ...). A wrapper keeps the object it came from alive (an
//! `Arc`), so no lifetimes reach the user: a command list may outlive the variable holding its
//! context. Handles a creating function returns (`Create`, `Open`, `Attach`, `Import` in the
//! name) are released on `Drop` through the spec's `[release]` function; handles a query returns
//! (devices, sub-devices) are never released. Command lists and queues also keep alive the
//! handles and memory their recorded work uses.
//!
//! # Methods and their names
//! Every function of the spec is a method of the wrapper of its first handle parameter
//! (functions without one are methods of [`Api`]). The name is the C name without its
//! namespace prefix, in snake case:
//! * when the function's class is the wrapper's, without the class and a leading `Get`:
//!   `zeDeviceGetProperties` → `device.properties()`;
//! * else verb first: `zeCommandListCreate` on a context → `context.create_command_list(..)`
//!   (`Create` or `Open` anywhere is the verb: `zeImageViewCreateExt` →
//!   `create_image_view_ext`); `Get` is dropped (`zeMemGetPitchFor2dImage` →
//!   `mem_pitch_for2d_image`), and a bare `Get` is a plural: `zeDeviceGet` → `driver.devices()`;
//! * functions of another namespace than the wrapper's carry it as a prefix:
//!   `zesDeviceGetProperties` → `device.zes_properties()`;
//! * a name taken twice on one wrapper falls back to the whole function name in snake case.
//!
//! Parameters follow the spec's annotations: input handles are `&Wrapper` (`Option` when
//! optional), values are passed as is, `const T*` structs as `&T`, outputs are returned (a tuple
//! when there are several), the count protocol (`pCount` + `[range(0, *pCount)]`) returns a
//! `Vec`, `[range(0, n)]` inputs are slices (`n` is their length), `const char*` is `&str`.
//! Structures passed in with a non-null `pNext` are refused with
//! `ZE_RESULT_ERROR_INVALID_ARGUMENT`: chains go through the `_with` forms, which take a typed
//! [`Chain`] (`device.properties_with(&mut chain)`), checked at compile time against the spec's
//! `extends` data.
//!
//! Recorded work (`append_*`) reads its inputs when it runs, not when it is recorded: the list
//! keeps copies of the structures, slices and strings it was given, and the handles and memory
//! it uses. Outputs that recorded work writes later have no safe shape.
//!
//! Where no safe shape exists (raw memory, callbacks, structures holding pointers, outputs of
//! recorded work, functions that free what a pointer points to or destroy a handle the spec
//! does not mark `[release]`) the method is `unsafe`, takes the raw C parameters and ends in
//! `_raw`; its `# Safety` section says what the caller promises. [`REACH`] lists every
//! function of the spec and how it is reached (safe method, `unsafe` method, or `Drop`).
//!
//! # Errors
//! Every call returns [`Result`]: any result but `ZE_RESULT_SUCCESS` is an [`Error`] with the
//! code, the function, and the driver's last-error text when it has one. A function the
//! tables lack is `ZE_RESULT_ERROR_UNSUPPORTED_FEATURE`; misuse Rust cannot rule out (a string
//! with a NUL inside, slices of different lengths sharing one count, a smuggled `pNext`) is
//! `ZE_RESULT_ERROR_INVALID_ARGUMENT`. Nothing panics or aborts.
//!
//! # Threads
//! Every wrapper is `Send`. It is also `Sync` (and `Clone`) only where the spec lets one handle
//! be used from several threads at once; see [`object`] for the list and the reasons.
//!
//! # Memory
//! [`HostMem`], [`SharedMem`] and [`DeviceMem`] are owned allocations
//! (`context.alloc_host(size, align)`, `alloc_shared(..)`, `alloc_device(..)`), freed on drop,
//! with `as_ptr()`, and slice views on the host-accessible kinds (host, shared). Memory copies
//! and fills take them ([`Memory`]).
//!
//! # Modules and kernels
//! `context.create_module_spirv(&device, &spirv, "")` (the build log in the error on failure),
//! `module.create_kernel("name")`, `kernel.set_arg_memory(i, &mem)` /
//! `set_arg_value(i, 2.0f32)`, then `list.append_launch_kernel(&kernel, &group_count, ..)`.

pub mod chain;
mod generated;
pub mod memory;
pub mod module;
pub mod object;
pub mod util;

use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::{Arc, OnceLock};

pub use chain::{Chain, Extends};
pub use generated::*;
pub use memory::{DeviceMem, HostMem, Memory, SharedMem};
pub use module::KernelValue;
pub use object::{Object, RawHandle};
/// The raw FFI types (`zekit-sys`).
pub use zekit_sys as sys;

use zekit_sys::fns::{DriverGetters, Fns};
use zekit_sys::*;

/// `Result<T, zekit::Error>`.
pub type Result<T> = std::result::Result<T, Error>;

/// How [`REACH`] says a function is reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// A safe method.
    Safe,
    /// An `unsafe` method with raw parameters (`_raw`).
    Unsafe,
    /// The release step of owned handles: `Drop`.
    Drop,
}

/// A failed call: the Level Zero result code, the function, and the driver's description of
/// the failure when it gave one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    code: ze_result_t,
    function: &'static str,
    detail: Option<String>,
}

impl Error {
    /// An error of `function` with `code` and an explanation.
    pub fn new(code: ze_result_t, function: &'static str, detail: impl Into<String>) -> Error {
        Error { code, function, detail: Some(detail.into()) }
    }

    pub(crate) fn missing(function: &'static str) -> Error {
        Error::new(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE, function, "the function tables lack it (not exported by the loader, not offered by the driver)")
    }

    /// The result code.
    pub fn code(&self) -> ze_result_t {
        self.code
    }

    /// The C function that failed.
    pub fn function(&self) -> &'static str {
        self.function
    }

    /// The driver's description of the failure (`zeDriverGetLastErrorDescription`), or
    /// zekit's own for misuse it catches before the call.
    pub fn detail(&self) -> Option<&str> {
        self.detail.as_deref()
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = self.code.name().unwrap_or("unknown result");
        write!(f, "{}: {name} ({:#x})", self.function, self.code.0)?;
        if let Some(d) = &self.detail {
            write!(f, ": {d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

/// Where an [`Api`]'s function tables come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The official loader, opened from this path.
    Loader(std::ffi::OsString),
    /// A driver in process, through its `zeGet*ProcAddrTable` functions.
    Driver,
    /// The zekit mock in process.
    Mock,
}

struct Inner {
    base: Fns,
    /// `base` filled through `zeDriverGetExtensionFunctionAddress` once a driver exists.
    extended: OnceLock<Fns>,
    /// The first driver seen, for the last-error text.
    driver: AtomicPtr<_ze_driver_handle_t>,
    source: Source,
    #[cfg(feature = "load")]
    _loaded: Option<zekit_sys::fns::Loaded>,
}

/// The Level Zero API: function tables and what they were filled from. Cheap to clone.
#[derive(Clone)]
pub struct Api {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Api {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Api").field("source", &self.inner.source).field("functions", &self.fns().count()).finish()
    }
}

impl Api {
    fn new(base: Fns, source: Source, #[cfg(feature = "load")] loaded: Option<zekit_sys::fns::Loaded>) -> Api {
        Api {
            inner: Arc::new(Inner {
                base,
                extended: OnceLock::new(),
                driver: AtomicPtr::new(std::ptr::null_mut()),
                source,
                #[cfg(feature = "load")]
                _loaded: loaded,
            }),
        }
    }

    /// Opens the official loader (`libze_loader.so.1`, through the dynamic linker's search path).
    /// Functions it does not export are looked up through the first driver (see
    /// [`Api::drivers`]).
    #[cfg(feature = "load")]
    pub fn load() -> Result<Api> {
        Api::load_from(zekit_sys::fns::Loaded::LOADER)
    }

    /// Opens the loader (or any library exporting the API) at `path`.
    #[cfg(feature = "load")]
    pub fn load_from(path: impl AsRef<std::ffi::OsStr>) -> Result<Api> {
        let path = path.as_ref().to_os_string();
        let loaded = zekit_sys::fns::Loaded::load_from(&path)
            .map_err(|e| Error::new(ZE_RESULT_ERROR_UNINITIALIZED, "dlopen", format!("cannot open {}: {e}", path.to_string_lossy())))?;
        let base = loaded.fns;
        Ok(Api::new(base, Source::Loader(path), Some(loaded)))
    }

    /// The zekit mock in process (installed on first use): no loader, no environment
    /// variables. Steer it with `zekit_mock::script()`.
    #[cfg(feature = "mock")]
    pub fn mock() -> Api {
        zekit_mock::install();
        // SAFETY: the getters are the mock ICD's own `zeGet*ProcAddrTable` functions.
        let fns = unsafe { Fns::from_driver(&zekit_icd::ddi::getters()) };
        Api::new(
            fns,
            Source::Mock,
            #[cfg(feature = "load")]
            None,
        )
    }

    /// The tables of a driver in process, read through its getters.
    ///
    /// # Safety
    /// Each getter is null or a `zeGet*ProcAddrTable` function of its table's type, and the
    /// functions it returns behave as the spec says.
    pub unsafe fn from_driver(getters: &DriverGetters) -> Api {
        // SAFETY: the caller's promise.
        let fns = unsafe { Fns::from_driver(getters) };
        Api::new(
            fns,
            Source::Driver,
            #[cfg(feature = "load")]
            None,
        )
    }

    /// An `Api` from tables filled elsewhere.
    ///
    /// # Safety
    /// Every filled entry is the C function of its name, behaving as the spec says.
    pub unsafe fn from_fns(fns: Fns, source: Source) -> Api {
        Api::new(
            fns,
            source,
            #[cfg(feature = "load")]
            None,
        )
    }

    /// Where the tables come from.
    pub fn source(&self) -> &Source {
        &self.inner.source
    }

    /// The function tables every call goes through.
    pub fn fns(&self) -> &Fns {
        self.inner.extended.get().unwrap_or(&self.inner.base)
    }

    /// `r` as a `Result`: the driver's last-error text is read for failures.
    pub(crate) fn check(&self, r: ze_result_t, function: &'static str) -> Result<()> {
        if r == ZE_RESULT_SUCCESS {
            return Ok(());
        }
        Err(Error { code: r, function, detail: self.last_error() })
    }

    fn last_error(&self) -> Option<String> {
        let driver = self.inner.driver.load(Ordering::Acquire);
        let get = self.fns().ze.zeDriverGetLastErrorDescription?;
        if driver.is_null() {
            return None;
        }
        let mut s: *const std::ffi::c_char = std::ptr::null();
        // SAFETY: `driver` is a driver handle this API returned; `s` is a local.
        if unsafe { get(driver, &mut s) } != ZE_RESULT_SUCCESS {
            return None;
        }
        // SAFETY: the driver wrote null or a NUL-terminated string it owns.
        let text = unsafe { util::copy_c_str(s) };
        (!text.is_empty()).then_some(text)
    }

    /// Remembers a driver handle the API returned: the first one gives the last-error text,
    /// and fills what the loader does not export.
    pub(crate) fn note_driver(&self, driver: ze_driver_handle_t) {
        if driver.is_null() {
            return;
        }
        let _ = self.inner.driver.compare_exchange(std::ptr::null_mut(), driver, Ordering::AcqRel, Ordering::Acquire);
        if matches!(self.inner.source, Source::Loader(_)) {
            self.inner.extended.get_or_init(|| {
                let mut fns = self.inner.base;
                // SAFETY: `driver` is a live driver handle the loader just returned.
                unsafe { fns.load_extensions(driver) };
                fns
            });
        }
    }

    /// `zeInit(0)`, then every driver (`zeDriverGet`): the usual start.
    pub fn init_drivers_default(&self) -> Result<Vec<Driver>> {
        self.init(ze_init_flags_t(0))?;
        self.drivers()
    }
}
