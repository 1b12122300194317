//! Unified shared memory (USM) of the CPU driver: host, device and shared allocations, all backed
//! by host memory (zero-filled) with the requested alignment.
//!
//! Each allocation is its own `memfd_create` file mapped `MAP_SHARED` (its size rounded up to
//! the page), so that it can be exported to another process (`zeMemGetIpcHandle`): the file
//! descriptor stays open for the allocation's lifetime. Alignments above the page size map the
//! file at an aligned address inside a larger reservation. At most half the process's file
//! descriptor limit (soft `RLIMIT_NOFILE`) of allocations hold a memfd at a time, leaving the
//! rest to the application; past that, or when the kernel refuses, the allocation comes from
//! `std::alloc` instead and works the same, but cannot be exported. External memory
//! ([`Source`]): an allocation to be exported always gets a memfd (past the budget too), and an
//! imported file is mapped the same way (the allocation owns a duplicate of its descriptor).
//! A freed memfd mapping of 1 MiB to 256 MiB whose descriptor never left the process is kept
//! for the next allocation of its length, zero-filled again ([`alloc_cache`]).
//!
//! Rules (Level Zero `zeMemAlloc{Host,Device,Shared}`):
//!
//! | input | result |
//! |---|---|
//! | size 0 | [`AllocError::UnsupportedSize`] |
//! | size > max allocation size (without relaxed limits) | [`AllocError::UnsupportedSize`] |
//! | alignment not 0 and not a power of two, or above [`MAX_ALIGNMENT`] | [`AllocError::UnsupportedAlignment`] |
//! | alignment 0 | [`DEFAULT_ALIGNMENT`] (64) |
//! | device allocation without a device, device ordinal out of range | [`AllocError::InvalidArgument`] |
//! | the system allocator fails | [`AllocError::OutOfHostMemory`] (host) / [`AllocError::OutOfDeviceMemory`] |
//!
//! Lookups ([`AllocManager::properties`], [`AllocManager::address_range`]) accept any address
//! inside an allocation. Frees take the base address only. All methods are thread-safe.

use std::alloc::Layout;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::collections::BTreeMap;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

use zekit_sys::*;

use crate::model::alloc_cache;
use crate::host::HostInfo;

pub use zekit_rules::memory::{SizeLimit, DEFAULT_ALIGNMENT};

/// Largest alignment accepted: 1 GiB (the largest huge page on x86-64).
pub const MAX_ALIGNMENT: usize = 1 << 30;
/// Free policies `zeMemFreeExt` supports (both; see `zeMemFreeExt` in `api/mem.rs`).
pub const SUPPORTED_FREE_POLICIES: ze_driver_memory_free_policy_ext_flags_t =
    ze_driver_memory_free_policy_ext_flags_t(
        ze_driver_memory_free_policy_ext_flags_t::BLOCKING_FREE.0
            | ze_driver_memory_free_policy_ext_flags_t::DEFER_FREE.0,
    );

/// Kind of a USM allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AllocKind {
    /// `zeMemAllocHost`
    Host,
    /// `zeMemAllocDevice`
    Device,
    /// `zeMemAllocShared`
    Shared,
}

impl AllocKind {
    /// The `ze_memory_type_t` of `zeMemGetAllocProperties`.
    pub const fn memory_type(self) -> ze_memory_type_t {
        match self {
            AllocKind::Host => ze_memory_type_t::HOST,
            AllocKind::Device => ze_memory_type_t::DEVICE,
            AllocKind::Shared => ze_memory_type_t::SHARED,
        }
    }
}

/// Why an allocation call failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AllocError {
    /// Size 0, above the maximum allocation size, or too large for the address space.
    UnsupportedSize,
    /// Alignment neither 0 nor a power of two, or above [`MAX_ALIGNMENT`].
    UnsupportedAlignment,
    /// Unknown pointer, interior pointer passed to free, missing or bad device.
    InvalidArgument,
    /// Null pointer passed to free.
    NullPointer,
    /// Free policy with unknown bits or with more than one policy.
    InvalidEnumeration,
    /// The system allocator failed for a host allocation.
    OutOfHostMemory,
    /// The system allocator failed for a device or shared allocation.
    OutOfDeviceMemory,
    /// An exportable allocation could not get a memfd (the kernel refused one).
    NoMemfd,
    /// An imported file could not be mapped `MAP_SHARED` read-write (the `errno`).
    ImportMap(i32),
}

impl AllocError {
    /// The Level Zero result for this error.
    pub const fn to_ze_result(self) -> ze_result_t {
        match self {
            AllocError::UnsupportedSize => ZE_RESULT_ERROR_UNSUPPORTED_SIZE,
            AllocError::UnsupportedAlignment => ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT,
            AllocError::InvalidArgument => ZE_RESULT_ERROR_INVALID_ARGUMENT,
            AllocError::NullPointer => ZE_RESULT_ERROR_INVALID_NULL_POINTER,
            AllocError::InvalidEnumeration => ZE_RESULT_ERROR_INVALID_ENUMERATION,
            AllocError::OutOfHostMemory => ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY,
            AllocError::OutOfDeviceMemory => ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY,
            AllocError::NoMemfd => ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY,
            AllocError::ImportMap(_) => ZE_RESULT_ERROR_INVALID_ARGUMENT,
        }
    }
}

impl From<AllocError> for ze_result_t {
    fn from(e: AllocError) -> ze_result_t {
        e.to_ze_result()
    }
}

impl std::fmt::Display for AllocError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.to_ze_result(), f)
    }
}

impl std::error::Error for AllocError {}

/// Free policy of `zeMemFreeExt`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FreePolicy {
    /// 0: free immediately.
    Immediate,
    /// `ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_BLOCKING_FREE`: wait for device work using the
    /// memory, then free.
    Blocking,
    /// `ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_DEFER_FREE`: free once device work using the memory
    /// is done, without waiting.
    Defer,
}

impl FreePolicy {
    /// Decodes `ze_memory_free_ext_desc_t::freePolicy`: 0 or exactly one supported flag.
    pub fn from_flags(
        flags: ze_driver_memory_free_policy_ext_flags_t,
    ) -> Result<FreePolicy, AllocError> {
        match flags {
            f if f.is_empty() => Ok(FreePolicy::Immediate),
            ze_driver_memory_free_policy_ext_flags_t::BLOCKING_FREE => Ok(FreePolicy::Blocking),
            ze_driver_memory_free_policy_ext_flags_t::DEFER_FREE => Ok(FreePolicy::Defer),
            _ => Err(AllocError::InvalidEnumeration),
        }
    }
}

/// What the manager knows of one allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AllocInfo {
    /// Host, device or shared.
    pub kind: AllocKind,
    /// Unique id within the process (increasing from 1, never reused, shared by all managers).
    pub id: u64,
    /// Base address.
    pub base: *mut u8,
    /// Size in bytes as requested.
    pub size: usize,
    /// Alignment actually used.
    pub alignment: usize,
    /// Device ordinal (`None` for host allocations and shared ones without a device).
    pub device: Option<usize>,
    /// External memory types it was made exportable as (`ze_external_memory_export_desc_t`).
    pub export_types: ze_external_memory_type_flags_t,
}

/// Where the memory of a new allocation comes from ([`AllocManager::alloc_from`]).
#[derive(Debug, Default)]
pub enum Source {
    /// A fresh memfd while the `memfd_budget` allows, else `std::alloc`.
    #[default]
    Any,
    /// A fresh memfd, whatever the budget ([`AllocError::NoMemfd`] when the kernel refuses):
    /// the allocation is to be exported.
    Memfd,
    /// As [`Source::Memfd`], the memfd sealed against shrinking: to be exported as `DMA_BUF`
    /// ([`crate::model::udmabuf`]).
    DmaBuf,
    /// This file (an imported descriptor, already duplicated: the allocation owns it), mapped
    /// `MAP_SHARED` from offset 0; the caller checked that it holds at least `size` bytes.
    Import(OwnedFd),
}

/// Where an allocation's memory comes from.
#[derive(Debug)]
enum Backing {
    /// A memfd mapped `MAP_SHARED` at `ptr` over `map_len` bytes.
    Shared { fd: OwnedFd, map_len: usize },
    /// `std::alloc` with this layout (not exportable).
    Heap(Layout),
}

struct Allocation {
    ptr: NonNull<u8>,
    backing: Backing,
    /// A memfd of our own that may go to [`alloc_cache`] when freed: made for no external
    /// export, and its descriptor never handed out (set by [`AllocManager::export`] and
    /// [`AllocManager::with_memfd`]).
    reusable: std::sync::atomic::AtomicBool,
    size: usize,
    alignment: usize,
    kind: AllocKind,
    id: u64,
    device: Option<usize>,
    export_types: ze_external_memory_type_flags_t,
}

impl Allocation {
    fn info(&self) -> AllocInfo {
        AllocInfo {
            kind: self.kind,
            id: self.id,
            base: self.ptr.as_ptr(),
            size: self.size,
            alignment: self.alignment,
            device: self.device,
            export_types: self.export_types,
        }
    }

    /// The memfd behind the allocation, if it is exportable.
    fn fd(&self) -> Option<&OwnedFd> {
        match &self.backing {
            Backing::Shared { fd, .. } => Some(fd),
            Backing::Heap(_) => None,
        }
    }

    /// Releases the memory.
    ///
    /// # Safety
    /// Called once, on an allocation taken out of the manager.
    unsafe fn release(self) {
        match self.backing {
            Backing::Shared { fd, map_len } => {
                let m = alloc_cache::Kept { ptr: self.ptr, fd, map_len };
                let gone = if self.reusable.into_inner() && alloc_cache::keepable(map_len) {
                    alloc_cache::CACHE.keep(m)
                } else {
                    vec![m]
                };
                for m in gone {
                    // SAFETY: our own MAP_SHARED mapping of `map_len` bytes at `ptr`, which no
                    // allocation uses any more (freed once, or pushed out of the cache); the fd
                    // closes when `m` drops.
                    unsafe { libc::munmap(m.ptr.as_ptr().cast(), m.map_len) };
                    LIVE_MEMFDS.fetch_sub(1, Ordering::AcqRel);
                }
            }
            // SAFETY: `ptr` came from `alloc_zeroed(layout)` (caller: released once).
            Backing::Heap(layout) => unsafe { std::alloc::dealloc(self.ptr.as_ptr(), layout) },
        }
    }
}

/// Live memfd-backed allocations of the process.
static LIVE_MEMFDS: AtomicUsize = AtomicUsize::new(0);

/// How many allocations may hold a memfd: half the process's file descriptor limit (soft
/// `RLIMIT_NOFILE`), so that the application keeps the other half for itself.
fn memfd_budget() -> usize {
    static BUDGET: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *BUDGET.get_or_init(|| {
        let mut r = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: `r` is a valid out-pointer.
        let ok = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut r) } == 0;
        if !ok || r.rlim_cur == libc::RLIM_INFINITY {
            return 1 << 20;
        }
        usize::try_from(r.rlim_cur / 2).unwrap_or(1 << 20)
    })
}

/// Maps a new zero-filled memfd of `size` bytes at an `align`-aligned address; `None` (the
/// caller falls back to `std::alloc`) past the [`memfd_budget`] or when the kernel refuses.
fn shared_memory(size: usize, align: usize) -> Option<(NonNull<u8>, Backing)> {
    if LIVE_MEMFDS.fetch_add(1, Ordering::AcqRel) >= memfd_budget() {
        LIVE_MEMFDS.fetch_sub(1, Ordering::AcqRel);
        return None;
    }
    let m = map_shared_memory(size, align);
    if m.is_none() {
        LIVE_MEMFDS.fetch_sub(1, Ordering::AcqRel);
    }
    m
}

/// A kept mapping for `size` bytes at `align` ([`alloc_cache`]), zero-filled again; it is still
/// counted in [`LIVE_MEMFDS`].
fn reused(size: usize, align: usize) -> Option<(NonNull<u8>, Backing)> {
    let page = crate::model::vm::page_size();
    let map_len = size.checked_add(page - 1)? & !(page - 1);
    let m = alloc_cache::CACHE.take(map_len, align)?;
    // SAFETY: a read-write mapping of `map_len` bytes that no allocation uses (it was freed).
    unsafe { std::ptr::write_bytes(m.ptr.as_ptr(), 0, map_len) };
    Some((m.ptr, Backing::Shared { fd: m.fd, map_len }))
}

/// A fresh memfd of `size` bytes (rounded up to the page), mapped; counted in [`LIVE_MEMFDS`]
/// but not limited by the budget.
fn exportable_memory(size: usize, align: usize, sealed: bool) -> Option<(NonNull<u8>, Backing)> {
    LIVE_MEMFDS.fetch_add(1, Ordering::AcqRel);
    let m = if sealed {
        sealed_shared_memory(size, align)
    } else {
        map_shared_memory(size, align)
    };
    if m.is_none() {
        LIVE_MEMFDS.fetch_sub(1, Ordering::AcqRel);
    }
    m
}

fn map_shared_memory(size: usize, align: usize) -> Option<(NonNull<u8>, Backing)> {
    let page = crate::model::vm::page_size();
    let map_len = size.checked_add(page - 1)? & !(page - 1);
    let fd = crate::model::vm::memfd("zekit-usm", map_len).ok()?;
    map_fd(fd, map_len, align).ok()
}

fn sealed_shared_memory(size: usize, align: usize) -> Option<(NonNull<u8>, Backing)> {
    let page = crate::model::vm::page_size();
    let map_len = size.checked_add(page - 1)? & !(page - 1);
    let fd = crate::model::udmabuf::sealed_memfd("zekit-usm-dmabuf", map_len).ok()?;
    map_fd(fd, map_len, align).ok()
}

/// Maps `map_len` bytes (a page multiple) of `fd` from offset 0, `MAP_SHARED` read-write, at an
/// `align`-aligned address; the `errno` when the kernel refuses.
fn map_fd(fd: OwnedFd, map_len: usize, align: usize) -> Result<(NonNull<u8>, Backing), i32> {
    let page = crate::model::vm::page_size();
    let extra = if align > page { align } else { 0 };
    let span = map_len.checked_add(extra).ok_or(libc::ENOMEM)?;
    // SAFETY: a fresh mapping chosen by the kernel (no MAP_FIXED).
    let base = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            span,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    if base == libc::MAP_FAILED {
        return Err(std::io::Error::last_os_error().raw_os_error().unwrap_or(libc::ENOMEM));
    }
    let start = (base as usize).checked_add(align - 1).ok_or(libc::ENOMEM)? & !(align - 1);
    let start = if extra == 0 { base as usize } else { start };
    // SAFETY: `[start, start + map_len)` lies inside the reservation just made.
    let p = unsafe {
        libc::mmap(
            start as *mut libc::c_void,
            map_len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED | libc::MAP_FIXED,
            fd.as_raw_fd(),
            0,
        )
    };
    if p == libc::MAP_FAILED {
        let errno = std::io::Error::last_os_error().raw_os_error().unwrap_or(libc::ENOMEM);
        // SAFETY: the reservation made above, unused.
        unsafe { libc::munmap(base, span) };
        return Err(errno);
    }
    let head = start - base as usize;
    let tail = span - head - map_len;
    // SAFETY: the parts of our reservation before and after the mapping.
    unsafe {
        if head > 0 {
            libc::munmap(base, head);
        }
        if tail > 0 {
            libc::munmap((start + map_len) as *mut libc::c_void, tail);
        }
    }
    let ptr = NonNull::new(p.cast()).ok_or(libc::ENOMEM)?;
    Ok((ptr, Backing::Shared { fd, map_len }))
}

// SAFETY: an `Allocation` exclusively owns the memory its pointer names (a mapping or
// `std::alloc` memory, released only by the manager), so moving it between threads is sound.
unsafe impl Send for Allocation {}

struct Inner {
    /// Keyed by base address.
    allocs: BTreeMap<usize, Allocation>,
}

/// An allocation taken out of its manager (freed, but maybe still used by queued work); its
/// memory is released when this is dropped.
pub struct Detached(Option<Allocation>);

impl std::fmt::Debug for Detached {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Detached(allocation {:?})", self.0.as_ref().map(|a| a.id))
    }
}

impl Drop for Detached {
    fn drop(&mut self) {
        if let Some(a) = self.0.take() {
            // SAFETY: the allocation left the manager in `detach`; this is its only release.
            unsafe { a.release() };
        }
    }
}

/// Source of allocation ids: one counter for the whole process, so an id names one allocation
/// across every context (and manager) and is never reused.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// Thread-safe registry of the USM allocations of one context.
pub struct AllocManager {
    inner: Mutex<Inner>,
    max_alloc_size: u64,
    num_devices: usize,
}

impl std::fmt::Debug for AllocManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AllocManager")
            .field("max_alloc_size", &self.max_alloc_size)
            .field("num_devices", &self.num_devices)
            .field("live", &self.len())
            .finish()
    }
}

impl AllocManager {
    /// A manager whose allocations may not exceed `max_alloc_size` bytes (unless relaxed), for
    /// devices with ordinals `0..num_devices`.
    pub fn new(max_alloc_size: u64, num_devices: usize) -> AllocManager {
        AllocManager {
            inner: Mutex::new(Inner {
                allocs: BTreeMap::new(),
            }),
            max_alloc_size,
            num_devices,
        }
    }

    /// A manager for the CPU device of `host`: one device, `maxMemAllocSize` = total memory.
    pub fn for_host(host: &HostInfo) -> AllocManager {
        AllocManager::new(host.total_memory, 1)
    }

    /// Maximum size of one allocation under [`SizeLimit::Strict`].
    pub fn max_alloc_size(&self) -> u64 {
        self.max_alloc_size
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding the lock cannot leave the map inconsistent (every mutation is a
        // single insert or remove), so a poisoned lock is still usable.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Allocates with [`SizeLimit::Strict`]. See the module docs for the rules.
    pub fn alloc(
        &self,
        kind: AllocKind,
        size: usize,
        alignment: usize,
        device: Option<usize>,
    ) -> Result<*mut u8, AllocError> {
        self.alloc_with(kind, size, alignment, device, SizeLimit::Strict)
    }

    /// Allocates `size` zeroed bytes aligned to `alignment` (0: [`DEFAULT_ALIGNMENT`]).
    pub fn alloc_with(
        &self,
        kind: AllocKind,
        size: usize,
        alignment: usize,
        device: Option<usize>,
        limit: SizeLimit,
    ) -> Result<*mut u8, AllocError> {
        let none = ze_external_memory_type_flags_t::empty();
        self.alloc_from(kind, size, alignment, device, limit, Source::Any, none)
    }

    /// Allocates `size` bytes aligned to `alignment` (0: [`DEFAULT_ALIGNMENT`]) from `source`
    /// (zeroed, unless imported), recording `export_types` for [`AllocManager::export`].
    #[allow(clippy::too_many_arguments)]
    pub fn alloc_from(
        &self,
        kind: AllocKind,
        size: usize,
        alignment: usize,
        device: Option<usize>,
        limit: SizeLimit,
        source: Source,
        export_types: ze_external_memory_type_flags_t,
    ) -> Result<*mut u8, AllocError> {
        let limits = zekit_rules::Limits {
            max_mem_alloc_size: self.max_alloc_size,
            max_alignment: MAX_ALIGNMENT,
            ..crate::model::properties::LIMITS
        };
        let align = zekit_rules::memory::allocation(size, alignment, limit, &limits).map_err(|b| {
            if b.code() == ze_result_t::ERROR_UNSUPPORTED_ALIGNMENT {
                AllocError::UnsupportedAlignment
            } else {
                AllocError::UnsupportedSize
            }
        })?;
        let device = match (kind, device) {
            (AllocKind::Host, _) => None,
            (AllocKind::Device, None) => return Err(AllocError::InvalidArgument),
            (_, Some(d)) if d >= self.num_devices => return Err(AllocError::InvalidArgument),
            (_, d) => d,
        };
        let layout =
            Layout::from_size_align(size, align).map_err(|_| AllocError::UnsupportedSize)?;
        let page = crate::model::vm::page_size();
        let reusable = matches!(source, Source::Any) && export_types.is_empty();
        let from_memfd = match source {
            Source::Any => reused(size, align).or_else(|| shared_memory(size, align)),
            Source::Memfd => Some(exportable_memory(size, align, false).ok_or(AllocError::NoMemfd)?),
            Source::DmaBuf => Some(exportable_memory(size, align, true).ok_or(AllocError::NoMemfd)?),
            Source::Import(fd) => {
                let map_len = size.checked_add(page - 1).ok_or(AllocError::UnsupportedSize)?
                    & !(page - 1);
                LIVE_MEMFDS.fetch_add(1, Ordering::AcqRel);
                match map_fd(fd, map_len, align) {
                    Ok(m) => Some(m),
                    Err(errno) => {
                        LIVE_MEMFDS.fetch_sub(1, Ordering::AcqRel);
                        return Err(AllocError::ImportMap(errno));
                    }
                }
            }
        };
        let (ptr, backing) = match from_memfd {
            Some(m) => m,
            None => {
                // SAFETY: `layout` has a non-zero size (checked above) and a valid power-of-two
                // alignment.
                let raw = unsafe { std::alloc::alloc_zeroed(layout) };
                let Some(ptr) = NonNull::new(raw) else {
                    return Err(match kind {
                        AllocKind::Host => AllocError::OutOfHostMemory,
                        _ => AllocError::OutOfDeviceMemory,
                    });
                };
                (ptr, Backing::Heap(layout))
            }
        };
        let mut inner = self.lock();
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        inner.allocs.insert(
            ptr.as_ptr() as usize,
            Allocation {
                reusable: std::sync::atomic::AtomicBool::new(
                    reusable && matches!(backing, Backing::Shared { .. }),
                ),
                ptr,
                backing,
                size,
                alignment: align,
                kind,
                id,
                device,
                export_types,
            },
        );
        Ok(ptr.as_ptr())
    }

    /// Frees the allocation whose base address is `ptr` (`zeMemFree`). Null gives
    /// [`AllocError::NullPointer`]; any other address that is not a live allocation's base
    /// (already freed, interior, foreign) gives [`AllocError::InvalidArgument`].
    pub fn free(&self, ptr: *mut u8) -> Result<(), AllocError> {
        if ptr.is_null() {
            return Err(AllocError::NullPointer);
        }
        let removed = self.lock().allocs.remove(&(ptr as usize));
        let a = removed.ok_or(AllocError::InvalidArgument)?;
        // SAFETY: just removed from the map, so released exactly once.
        unsafe { a.release() };
        Ok(())
    }

    /// Takes the allocation whose base is `ptr` out of the manager without releasing it (the
    /// free policies of `zeMemFreeExt`: its memory goes when the [`Detached`] is dropped). Errors
    /// as [`AllocManager::free`].
    pub fn detach(&self, ptr: *mut u8) -> Result<Detached, AllocError> {
        if ptr.is_null() {
            return Err(AllocError::NullPointer);
        }
        let removed = self.lock().allocs.remove(&(ptr as usize));
        removed
            .map(|a| Detached(Some(a)))
            .ok_or(AllocError::InvalidArgument)
    }

    /// The allocation containing `ptr` (any address in `base..base + size`).
    pub fn properties(&self, ptr: *const u8) -> Option<AllocInfo> {
        let addr = ptr as usize;
        let inner = self.lock();
        let (&base, a) = inner.allocs.range(..=addr).next_back()?;
        (addr - base < a.size).then(|| a.info())
    }

    /// `zeMemGetAddressRange`: base and size of the allocation containing `ptr`.
    pub fn address_range(&self, ptr: *const u8) -> Option<(*mut u8, usize)> {
        self.properties(ptr).map(|i| (i.base, i.size))
    }

    /// `zeMemGetAllocProperties`: type, id and page size for `ptr`; a pointer outside every
    /// allocation gets `ZE_MEMORY_TYPE_UNKNOWN` and id 0. `stype`/`pNext` are left untouched.
    /// Returns the allocation's device ordinal, if any, for the `phDevice` output.
    pub fn fill_allocation_properties(
        &self,
        ptr: *const u8,
        page_size: u64,
        p: &mut ze_memory_allocation_properties_t,
    ) -> Option<usize> {
        match self.properties(ptr) {
            Some(i) => {
                p.r#type = i.kind.memory_type();
                p.id = i.id;
                p.pageSize = page_size;
                i.device
            }
            None => {
                p.r#type = ze_memory_type_t::UNKNOWN;
                p.id = 0;
                p.pageSize = 0;
                None
            }
        }
    }

    /// What IPC exports of the allocation containing `ptr`: its info and its memfd's number,
    /// open for as long as the allocation lives (`None` when it is not exportable: it came from
    /// `std::alloc`).
    pub fn export(&self, ptr: *const u8) -> Option<(AllocInfo, Option<RawFd>)> {
        let addr = ptr as usize;
        let inner = self.lock();
        let (&base, a) = inner.allocs.range(..=addr).next_back()?;
        if addr - base >= a.size {
            return None;
        }
        let fd = a.fd().map(AsRawFd::as_raw_fd);
        // Another process may map it from now on: never reused.
        a.reusable.store(false, Ordering::Relaxed);
        Some((a.info(), fd))
    }

    /// Runs `f` on the allocation containing `ptr` and its memfd (`None`: not exportable) while
    /// the manager's lock keeps the allocation, and so its descriptor, alive; `None` when no
    /// allocation contains `ptr`.
    pub fn with_memfd<R>(
        &self,
        ptr: *const u8,
        f: impl FnOnce(&AllocInfo, Option<std::os::fd::BorrowedFd<'_>>) -> R,
    ) -> Option<R> {
        use std::os::fd::AsFd;
        let addr = ptr as usize;
        let inner = self.lock();
        let (&base, a) = inner.allocs.range(..=addr).next_back()?;
        if addr - base >= a.size {
            return None;
        }
        a.reusable.store(false, Ordering::Relaxed);
        Some(f(&a.info(), a.fd().map(|fd| fd.as_fd())))
    }

    /// Live allocations.
    pub fn len(&self) -> usize {
        self.lock().allocs.len()
    }

    /// No live allocation.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Frees every live allocation (context destruction); returns how many were freed.
    pub fn free_all(&self) -> usize {
        let allocs = std::mem::take(&mut self.lock().allocs);
        let n = allocs.len();
        for a in allocs.into_values() {
            // SAFETY: taken out of the map, so released exactly once.
            unsafe { a.release() };
        }
        n
    }
}

impl Drop for AllocManager {
    fn drop(&mut self) {
        self.free_all();
    }
}
