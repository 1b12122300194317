//! Kernel launches as a test sees them: [`KernelLaunch`], its [`KernelArg`]s, and the host
//! callbacks that emulate a kernel ([`Script::on_kernel`](crate::Script::on_kernel) in Rust,
//! `zekitMockOnKernel` in C, `kernels:` in a scenario file).
//!
//! A launch runs when its command runs (see [`crate::objects`]): in order with the copies,
//! barriers and events of its queue. It is then recorded ([`Script::launches`](crate::Script::launches))
//! and, when a callback is registered for the kernel's name, the callback is called with the
//! launch; without one the launch does nothing.
//!
//! A callback runs on the thread that made the launch run (the one that executed the list,
//! appended to an immediate list, or signaled the event it waited for), while the mock's
//! engine is locked: it may read and write memory and use [`crate::script()`], but must not
//! call the mock's queue, command list, event or fence functions. A panic in a callback is
//! caught: the call that ran the launch returns `ZE_RESULT_ERROR_UNKNOWN` with a log line, and
//! the panic is recorded as a violation that [`Script::verify`](crate::Script::verify) (and
//! `zekitMockVerify`) reports.

use std::ffi::{c_char, c_void, CString};
use std::fmt;
use std::sync::Arc;

/// One argument of a launch, as it was set with `zeKernelSetArgumentValue` when the launch was
/// appended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KernelArg {
    /// A pointer to global or constant memory (the 8 bytes the application set, as an
    /// address; 0 for a null pointer).
    Pointer(u64),
    /// A scalar or a struct passed by value: its bytes.
    Value(Vec<u8>),
    /// Local memory: its size in bytes (the mock allocates none).
    Local(usize),
    /// An image or a sampler: the handle the application set (the mock has no images, so
    /// the handle is only recorded).
    Handle(u64),
}

impl fmt::Display for KernelArg {
    /// How the call log shows an argument: `0x…` for pointers and image or sampler handles, the value as a little-endian
    /// unsigned integer for values of 1, 2, 4 or 8 bytes, `[01 02 …]` for other values,
    /// `local:<bytes>` for local memory.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KernelArg::Pointer(p) | KernelArg::Handle(p) => write!(f, "{p:#x}"),
            KernelArg::Value(b) if matches!(b.len(), 1 | 2 | 4 | 8) => {
                let mut w = [0u8; 8];
                w[..b.len()].copy_from_slice(b);
                write!(f, "{}", u64::from_le_bytes(w))
            }
            KernelArg::Value(b) => {
                f.write_str("[")?;
                for (i, x) in b.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" ")?;
                    }
                    write!(f, "{x:02x}")?;
                }
                f.write_str("]")
            }
            KernelArg::Local(n) => write!(f, "local:{n}"),
        }
    }
}

/// One kernel launch, as a callback receives it and [`Script::launches`](crate::Script::launches)
/// records it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelLaunch {
    /// The kernel's name.
    pub kernel: String,
    /// Work-groups in each dimension (for an indirect launch: as read from its buffer when the
    /// launch ran).
    pub group_count: [u32; 3],
    /// Work-items per group in each dimension (`zeKernelSetGroupSize`; the required size, else
    /// 1×1×1, when never set).
    pub group_size: [u32; 3],
    /// The global offset (`zeKernelSetGlobalOffsetExp`; 0 by default).
    pub global_offset: [u32; 3],
    /// The arguments, by index.
    pub args: Vec<KernelArg>,
    /// The function that appended the launch (`zeCommandListAppendLaunchKernel`, ...).
    pub function: &'static str,
}

impl KernelLaunch {
    /// Work-items in each dimension: `group_count * group_size`.
    pub fn global_size(&self) -> [u64; 3] {
        [0, 1, 2].map(|d| u64::from(self.group_count[d]) * u64::from(self.group_size[d]))
    }

    /// Total work-items of the launch.
    pub fn work_items(&self) -> u64 {
        self.global_size().iter().product()
    }

    /// Pointer argument `i` as a typed pointer.
    ///
    /// # Panics
    /// When argument `i` does not exist or is not a pointer (a mistake in the test's
    /// callback): the mock catches the panic, see the module docs.
    pub fn arg_ptr<T>(&self, i: usize) -> *mut T {
        match self.args.get(i) {
            Some(KernelArg::Pointer(p)) => *p as usize as *mut T,
            other => panic!(
                "kernel `{}`: argument {i} is not a pointer argument ({})",
                self.kernel,
                describe(other)
            ),
        }
    }

    /// By-value argument `i` as a `T`, or `None` when it does not exist, is not a value, or
    /// has not exactly `size_of::<T>()` bytes.
    pub fn try_arg<T: Copy>(&self, i: usize) -> Option<T> {
        match self.args.get(i) {
            Some(KernelArg::Value(b)) if b.len() == std::mem::size_of::<T>() => {
                // SAFETY: `b` holds exactly `size_of::<T>()` bytes; `read_unaligned` copies
                // them out without alignment requirements, and `T: Copy` is plain data the
                // application passed by value (the test names the type it set).
                Some(unsafe { (b.as_ptr() as *const T).read_unaligned() })
            }
            _ => None,
        }
    }

    /// By-value argument `i` as a `T`.
    ///
    /// # Panics
    /// When the argument does not exist, is not a value, or its size is not
    /// `size_of::<T>()` ([`try_arg`](Self::try_arg) returns `None` instead): the mock catches
    /// the panic, see the module docs.
    pub fn arg<T: Copy>(&self, i: usize) -> T {
        self.try_arg(i).unwrap_or_else(|| {
            panic!(
                "kernel `{}`: argument {i} is not a {}-byte value ({})",
                self.kernel,
                std::mem::size_of::<T>(),
                describe(self.args.get(i))
            )
        })
    }

    /// The size of local-memory argument `i`, if it is one.
    pub fn local_size(&self, i: usize) -> Option<usize> {
        match self.args.get(i) {
            Some(KernelArg::Local(n)) => Some(*n),
            _ => None,
        }
    }
}

fn describe(a: Option<&KernelArg>) -> String {
    match a {
        None => "no such argument".to_string(),
        Some(KernelArg::Pointer(_)) => "a pointer".to_string(),
        Some(KernelArg::Value(b)) => format!("a {}-byte value", b.len()),
        Some(KernelArg::Local(n)) => format!("local memory of {n} bytes"),
        Some(KernelArg::Handle(_)) => "an image or sampler handle".to_string(),
    }
}

/// A registered callback.
pub type KernelCallback = Arc<dyn Fn(&KernelLaunch) + Send + Sync + 'static>;

// ----- the C view --------------------------------------------------------------------------------

/// `ZEKIT_MOCK_KERNEL_ARG_POINTER`: a global or constant pointer (`value` points to its 8 bytes).
pub const ARG_POINTER: u32 = 0;
/// `ZEKIT_MOCK_KERNEL_ARG_VALUE`: bytes by value.
pub const ARG_VALUE: u32 = 1;
/// `ZEKIT_MOCK_KERNEL_ARG_LOCAL`: local memory of `size` bytes (`value` is NULL).
pub const ARG_LOCAL: u32 = 2;

/// `zekit_mock_kernel_arg_t` of `zekit_mock.h`.
#[repr(C)]
#[derive(Debug)]
pub struct CKernelArg {
    /// `ARG_POINTER`, `ARG_VALUE` or `ARG_LOCAL`.
    pub kind: u32,
    /// Bytes at `value` (8 for pointers); local memory: its size.
    pub size: usize,
    /// The argument's bytes (NULL for local memory).
    pub value: *const c_void,
}

/// `zekit_mock_kernel_launch_t` of `zekit_mock.h`.
#[repr(C)]
#[derive(Debug)]
pub struct CKernelLaunch {
    /// The kernel's name (NUL-terminated).
    pub kernel: *const c_char,
    pub group_count: [u32; 3],
    pub group_size: [u32; 3],
    pub global_offset: [u32; 3],
    pub num_args: u32,
    /// `num_args` arguments.
    pub args: *const CKernelArg,
}

/// `zekit_mock_kernel_callback_t`: a C callback and its user pointer.
pub type CCallbackFn = unsafe extern "C" fn(*const CKernelLaunch, *mut c_void);

/// A C function pointer with its user data, callable as a [`KernelCallback`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct CCallback {
    pub f: CCallbackFn,
    pub user: *mut c_void,
}

// SAFETY: the C caller registers the function and the user pointer for use from whichever
// thread runs the launch (documented in the header: the callback runs on the thread that made
// the launch run); the mock itself never dereferences `user`.
unsafe impl Send for CCallback {}
// SAFETY: as above; the mock only copies the pointer and passes it back.
unsafe impl Sync for CCallback {}

impl CCallback {
    /// Calls the C function with a C view of `launch`, valid for the call.
    pub fn call(&self, launch: &KernelLaunch) {
        let name = CString::new(launch.kernel.clone()).unwrap_or_default();
        let args: Vec<CKernelArg> = launch
            .args
            .iter()
            .map(|a| match a {
                KernelArg::Pointer(p) => CKernelArg {
                    kind: ARG_POINTER,
                    size: 8,
                    value: p as *const u64 as *const c_void,
                },
                // C callbacks see an image or sampler handle as its 8-byte value.
                KernelArg::Handle(h) => CKernelArg {
                    kind: ARG_VALUE,
                    size: 8,
                    value: h as *const u64 as *const c_void,
                },
                KernelArg::Value(b) => CKernelArg {
                    kind: ARG_VALUE,
                    size: b.len(),
                    value: b.as_ptr() as *const c_void,
                },
                KernelArg::Local(n) => CKernelArg {
                    kind: ARG_LOCAL,
                    size: *n,
                    value: std::ptr::null(),
                },
            })
            .collect();
        let c = CKernelLaunch {
            kernel: name.as_ptr(),
            group_count: launch.group_count,
            group_size: launch.group_size,
            global_offset: launch.global_offset,
            num_args: args.len() as u32,
            args: args.as_ptr(),
        };
        // SAFETY: the function was registered for this signature (the header's
        // `zekit_mock_kernel_callback_t`); `c`, `name` and `args` (and the bytes they point
        // to, owned by `launch`) outlive the call.
        unsafe { (self.f)(&c, self.user) };
    }
}

/// Looks `symbol` up in the process (`dlsym(RTLD_DEFAULT, symbol)`): the address of a C
/// kernel callback an executable exports (linked with `-rdynamic`), or `None`.
pub fn lookup_symbol(symbol: &str) -> Option<CCallbackFn> {
    extern "C" {
        fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    }
    let name = CString::new(symbol).ok()?;
    // SAFETY: RTLD_DEFAULT is the null handle on glibc; `name` is NUL-terminated.
    let p = unsafe { dlsym(std::ptr::null_mut(), name.as_ptr()) };
    if p.is_null() {
        return None;
    }
    // SAFETY: a non-null function address; the scenario promises it has the callback's
    // signature (documented), as a C program's cast after `dlsym` would.
    Some(unsafe { std::mem::transmute::<*mut c_void, CCallbackFn>(p) })
}

/// Runs a launch (the engine calls this when its command runs): records it, then calls the
/// kernel's callback, if one is registered. A panic in the callback gives its message, also
/// recorded as a violation of the script.
pub(crate) fn run(launch: KernelLaunch) -> Option<String> {
    let script = crate::script();
    script.record_launch(launch.clone());
    let callback = script.kernel_callback(&launch.kernel)?;
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| callback(&launch))) {
        Ok(()) => None,
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "non-string panic payload".into());
            let msg = format!(
                "the host callback of kernel `{}` panicked: {what}",
                launch.kernel
            );
            script.record_violation(msg.clone());
            Some(msg)
        }
    }
}
