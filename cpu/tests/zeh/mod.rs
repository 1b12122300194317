//! Helpers of the in-process execution tests: the CPU driver installed behind the generated C
//! entry points (`zekit_icd::entry`), a driver/device/context, and small wrappers that assert
//! success. Every wrapper calls a C entry point with valid arguments.
#![allow(dead_code)]

use std::ffi::{c_char, c_void, CStr};
use std::ptr::{null, null_mut};

pub use zekit_icd::entry as ze;
pub use zekit_sys::*;

/// `assert_eq!(call, ZE_RESULT_SUCCESS)` with the call's text and the last error.
/// (Test crates using these macros allow `clippy::macro_metavars_in_unsafe`: they exist to
/// call the unsafe C entry points tersely.)
#[macro_export]
macro_rules! ok {
    ($call:expr) => {{
        // SAFETY: the tests pass valid pointers and live handles (or deliberately bad ones to
        // check the driver's answers).
        let r = unsafe { $call };
        assert_eq!(r, ZE_RESULT_SUCCESS, "{}: {}", stringify!($call), $crate::zeh::last_error());
    }};
}

/// `assert_eq!(call, expected)`.
#[macro_export]
macro_rules! check {
    ($call:expr, $expected:expr) => {{
        // SAFETY: as in `ok!`.
        let r = unsafe { $call };
        assert_eq!(r, $expected, "{}: {}", stringify!($call), $crate::zeh::last_error());
    }};
}

/// The thread's last error description.
pub fn last_error() -> String {
    zekit_icd_rt::last_error()
}

/// A small deterministic random number generator (xorshift64*).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo)
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

/// A seed from `ZEKIT_SEED` or the clock; printed so a failure can be replayed.
pub fn seed(test: &str) -> u64 {
    let seed = std::env::var("ZEKIT_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(1)
        });
    eprintln!("{test}: ZEKIT_SEED={seed}");
    seed
}

/// The driver, its device and a context.
pub struct Ze {
    pub drv: ze_driver_handle_t,
    pub dev: ze_device_handle_t,
    pub ctx: ze_context_handle_t,
}

// SAFETY: handles are addresses the driver checks on every call; the driver is thread-safe.
unsafe impl Send for Ze {}
// SAFETY: as above.
unsafe impl Sync for Ze {}

pub const FOREVER: u64 = u64::MAX;

pub fn queue_desc(ordinal: u32, mode: ze_command_queue_mode_t) -> ze_command_queue_desc_t {
    ze_command_queue_desc_t {
        ordinal,
        mode,
        ..Default::default()
    }
}

impl Ze {
    /// Installs the CPU driver (once per process), initializes, and makes a context.
    pub fn new() -> Ze {
        zekit_icd::install(zekit_cpu::api::dispatch());
        let mut z = Ze {
            drv: null_mut(),
            dev: null_mut(),
            ctx: null_mut(),
        };
        ok!(ze::zeInit(ze_init_flags_t(0)));
        let mut n = 1u32;
        ok!(ze::zeDriverGet(&mut n, &mut z.drv));
        n = 1;
        ok!(ze::zeDeviceGet(z.drv, &mut n, &mut z.dev));
        let desc = ze_context_desc_t::default();
        ok!(ze::zeContextCreate(z.drv, &desc, &mut z.ctx));
        z
    }

    pub fn queue(&self, ordinal: u32, mode: ze_command_queue_mode_t) -> ze_command_queue_handle_t {
        let mut q = null_mut();
        ok!(ze::zeCommandQueueCreate(self.ctx, self.dev, &queue_desc(ordinal, mode), &mut q));
        q
    }

    pub fn list(&self, ordinal: u32) -> ze_command_list_handle_t {
        let desc = ze_command_list_desc_t {
            commandQueueGroupOrdinal: ordinal,
            ..Default::default()
        };
        let mut l = null_mut();
        ok!(ze::zeCommandListCreate(self.ctx, self.dev, &desc, &mut l));
        l
    }

    pub fn immediate(&self, ordinal: u32, mode: ze_command_queue_mode_t) -> ze_command_list_handle_t {
        let mut l = null_mut();
        ok!(ze::zeCommandListCreateImmediate(self.ctx, self.dev, &queue_desc(ordinal, mode), &mut l));
        l
    }

    pub fn pool(&self, flags: ze_event_pool_flags_t, count: u32) -> ze_event_pool_handle_t {
        let desc = ze_event_pool_desc_t {
            flags,
            count,
            ..Default::default()
        };
        let mut p = null_mut();
        ok!(ze::zeEventPoolCreate(self.ctx, &desc, 0, null_mut(), &mut p));
        p
    }

    pub fn event(&self, pool: ze_event_pool_handle_t, index: u32) -> ze_event_handle_t {
        let desc = ze_event_desc_t {
            index,
            signal: ze_event_scope_flags_t::HOST,
            wait: ze_event_scope_flags_t::HOST,
            ..Default::default()
        };
        let mut e = null_mut();
        ok!(ze::zeEventCreate(pool, &desc, &mut e));
        e
    }

    pub fn counter_event(&self, flags: ze_event_counter_based_flags_t) -> ze_event_handle_t {
        let desc = ze_event_counter_based_desc_t {
            flags,
            ..Default::default()
        };
        let mut e = null_mut();
        ok!(ze::zeEventCounterBasedCreate(self.ctx, self.dev, &desc, &mut e));
        e
    }

    pub fn fence(&self, q: ze_command_queue_handle_t) -> ze_fence_handle_t {
        let desc = ze_fence_desc_t::default();
        let mut f = null_mut();
        ok!(ze::zeFenceCreate(q, &desc, &mut f));
        f
    }

    pub fn host(&self, size: usize) -> *mut u8 {
        let desc = ze_host_mem_alloc_desc_t::default();
        let mut p = null_mut();
        ok!(ze::zeMemAllocHost(self.ctx, &desc, size, 0, &mut p));
        p.cast()
    }

    pub fn device_mem(&self, size: usize) -> *mut u8 {
        let desc = ze_device_mem_alloc_desc_t::default();
        let mut p = null_mut();
        ok!(ze::zeMemAllocDevice(self.ctx, &desc, size, 0, self.dev, &mut p));
        p.cast()
    }

    pub fn shared(&self, size: usize) -> *mut u8 {
        let d = ze_device_mem_alloc_desc_t::default();
        let h = ze_host_mem_alloc_desc_t::default();
        let mut p = null_mut();
        ok!(ze::zeMemAllocShared(self.ctx, &d, &h, size, 0, self.dev, &mut p));
        p.cast()
    }

    pub fn free(&self, p: *mut u8) {
        ok!(ze::zeMemFree(self.ctx, p.cast()));
    }
}

impl Drop for Ze {
    fn drop(&mut self) {
        // SAFETY: the context made by `new`.
        unsafe { ze::zeContextDestroy(self.ctx) };
    }
}

/// Appends a copy.
pub fn copy(
    l: ze_command_list_handle_t,
    dst: *mut u8,
    src: *const u8,
    size: usize,
    signal: ze_event_handle_t,
    waits: &mut [ze_event_handle_t],
) {
    let (n, w) = wait_list(waits);
    ok!(ze::zeCommandListAppendMemoryCopy(l, dst.cast(), src.cast(), size, signal, n, w));
}

/// Appends a fill.
pub fn fill(
    l: ze_command_list_handle_t,
    dst: *mut u8,
    pattern: &[u8],
    size: usize,
    signal: ze_event_handle_t,
    waits: &mut [ze_event_handle_t],
) {
    let (n, w) = wait_list(waits);
    ok!(ze::zeCommandListAppendMemoryFill(
        l,
        dst.cast(),
        pattern.as_ptr().cast(),
        pattern.len(),
        size,
        signal,
        n,
        w
    ));
}

pub fn wait_list(waits: &mut [ze_event_handle_t]) -> (u32, *mut ze_event_handle_t) {
    if waits.is_empty() {
        (0, null_mut())
    } else {
        (waits.len() as u32, waits.as_mut_ptr())
    }
}

/// Closes, executes on `q` with a new fence, waits for the fence, destroys it.
pub fn run(z: &Ze, q: ze_command_queue_handle_t, l: ze_command_list_handle_t) {
    ok!(ze::zeCommandListClose(l));
    let f = z.fence(q);
    let mut lists = [l];
    ok!(ze::zeCommandQueueExecuteCommandLists(q, 1, lists.as_mut_ptr(), f));
    ok!(ze::zeFenceHostSynchronize(f, FOREVER));
    ok!(ze::zeFenceDestroy(f));
}

/// A byte view of driver memory.
///
/// # Safety
/// `p` must hold `n` bytes that nothing writes meanwhile.
pub unsafe fn bytes<'a>(p: *const u8, n: usize) -> &'a [u8] {
    // SAFETY: forwarded.
    unsafe { std::slice::from_raw_parts(p, n) }
}

/// Writes `data` at `p`.
///
/// # Safety
/// `p` must hold `data.len()` writable bytes.
pub unsafe fn write(p: *mut u8, data: &[u8]) {
    // SAFETY: forwarded.
    unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), p, data.len()) };
}

pub fn c_str(s: *const c_char) -> String {
    if s.is_null() {
        return String::new();
    }
    // SAFETY: the driver writes NUL-terminated strings.
    unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned()
}

pub fn null_event() -> ze_event_handle_t {
    null_mut()
}

pub fn no_fence() -> ze_fence_handle_t {
    null_mut()
}

pub const NO_DATA: *const c_void = null();

/// The committed SPIR-V of `spirv/kernels/<name>.spv` (`name` may name a subfolder).
pub fn spv(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/../spirv/kernels/{name}.spv",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

/// A module description of SPIR-V `bytes`.
pub fn module_desc(bytes: &[u8]) -> ze_module_desc_t {
    ze_module_desc_t {
        format: ze_module_format_t::IL_SPIRV,
        inputSize: bytes.len(),
        pInputModule: bytes.as_ptr(),
        ..Default::default()
    }
}

/// A module of `bytes` in `format` (SPIR-V or a native binary), which must build.
pub fn module_as(z: &Ze, bytes: &[u8], format: ze_module_format_t) -> ze_module_handle_t {
    let desc = ze_module_desc_t {
        format,
        ..module_desc(bytes)
    };
    let mut m = null_mut();
    ok!(ze::zeModuleCreate(z.ctx, z.dev, &desc, &mut m, null_mut()));
    m
}

/// A module of SPIR-V `bytes`, which must build.
pub fn module(z: &Ze, bytes: &[u8]) -> ze_module_handle_t {
    module_as(z, bytes, ze_module_format_t::IL_SPIRV)
}

/// Kernel `name` of `m`, which must exist.
pub fn kernel(m: ze_module_handle_t, name: &str) -> ze_kernel_handle_t {
    let name = std::ffi::CString::new(name).unwrap();
    let desc = ze_kernel_desc_t {
        pKernelName: name.as_ptr(),
        ..Default::default()
    };
    let mut k = null_mut();
    ok!(ze::zeKernelCreate(m, &desc, &mut k));
    k
}

/// Sets argument `i` of `k` to the bytes of `v`.
pub fn arg<T>(k: ze_kernel_handle_t, i: u32, v: &T) {
    ok!(ze::zeKernelSetArgumentValue(
        k,
        i,
        std::mem::size_of::<T>(),
        (v as *const T).cast()
    ));
}

/// Shared memory holding `init` (at least 8 bytes).
pub fn buffer<T: Copy>(z: &Ze, init: &[T]) -> *mut T {
    let p = z.shared(std::mem::size_of_val(init).max(8)).cast::<T>();
    // SAFETY: a fresh allocation of that many elements.
    unsafe { std::ptr::copy_nonoverlapping(init.as_ptr(), p, init.len()) };
    p
}

/// `n` elements of driver memory that finished launches wrote.
pub fn read<T: Copy>(p: *const T, n: usize) -> Vec<T> {
    // SAFETY: `p` holds `n` elements and no launch is running.
    unsafe { std::slice::from_raw_parts(p, n) }.to_vec()
}

/// Runs `append(list)` through the mode `via`: a queue (0), a synchronous immediate list (1)
/// or an asynchronous one (2); returns when the work is done.
pub fn submit(z: &Ze, via: usize, append: impl FnOnce(ze_command_list_handle_t)) {
    match via {
        0 => {
            let q = z.queue(0, ze_command_queue_mode_t::ASYNCHRONOUS);
            let l = z.list(0);
            append(l);
            run(z, q, l);
            ok!(ze::zeCommandListDestroy(l));
            ok!(ze::zeCommandQueueDestroy(q));
        }
        _ => {
            let mode = if via == 1 {
                ze_command_queue_mode_t::SYNCHRONOUS
            } else {
                ze_command_queue_mode_t::ASYNCHRONOUS
            };
            let l = z.immediate(0, mode);
            append(l);
            ok!(ze::zeCommandListHostSynchronize(l, FOREVER));
            ok!(ze::zeCommandListDestroy(l));
        }
    }
}

/// An image description: type, format, width, height, depth and array layers.
pub fn image_desc(
    ty: ze_image_type_t,
    format: ze_image_format_t,
    width: u64,
    height: u32,
    depth: u32,
    layers: u32,
) -> ze_image_desc_t {
    ze_image_desc_t {
        r#type: ty,
        format,
        width,
        height,
        depth,
        arraylevels: layers,
        ..Default::default()
    }
}

pub mod exec;
pub mod images;
pub mod kernels;
