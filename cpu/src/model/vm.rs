//! Virtual memory of the CPU driver: reservations (`zeVirtualMemReserve`), physical memory
//! objects (`zePhysicalMemCreate`) and the mappings between them (`zeVirtualMemMap`).
//!
//! Physical memory is real shared memory: a `memfd_create` file of the requested size. A mapping
//! is an `mmap(MAP_SHARED | MAP_FIXED)` of that file over reserved address space, so one physical
//! object mapped at two virtual addresses aliases (a write through one is read through the
//! other), and the file descriptor is what IPC exports. A reservation is `mmap(PROT_NONE)`
//! anonymous memory; unmapping puts `PROT_NONE` anonymous memory back. Access attributes are
//! `mprotect`: `READONLY` pages fault on write, `NONE` pages on any access.
//!
//! The page size is the host's (`sysconf(_SC_PAGESIZE)`, 4 KiB on x86-64).
//!
//! | input | result |
//! |---|---|
//! | reserve / free / map / unmap / set / get access with size 0 | `UNSUPPORTED_SIZE` |
//! | size not a multiple of the page size | `UNSUPPORTED_SIZE` |
//! | pointer or physical offset not page aligned | `UNSUPPORTED_ALIGNMENT` |
//! | reserve hint (`pStart`) taken: the kernel places the reservation there if free, elsewhere otherwise | — |
//! | free of a range that is not exactly one reservation | `INVALID_ARGUMENT` |
//! | map / unmap / access of a range not inside one reservation | `INVALID_ARGUMENT` |
//! | map over a range any page of which is already mapped | `INVALID_ARGUMENT` |
//! | map beyond the end of the physical object (`offset + size > physical size`) | `INVALID_ARGUMENT` |
//! | unmap or set access on a range with unmapped pages | `INVALID_ARGUMENT` |
//! | `zePhysicalMemDestroy` while mapped | `HANDLE_OBJECT_IN_USE` |
//! | physical memory flags: `ALLOCATE_ON_DEVICE` (also 0) and `ALLOCATE_ON_HOST` both give host memory; unknown bits | `INVALID_ENUMERATION` |
//! | `zeVirtualMemFree` of a reservation with mappings | allowed: the mappings go with it |
//!
//! `zeVirtualMemGetAccessAttribute` answers the access of the page at `ptr` and, in `outSize`,
//! how many bytes from `ptr` (at most `size`) share it; unmapped reserved pages are `NONE`.

use std::collections::BTreeMap;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use zekit_sys::*;

use crate::model::objects::{ZeError, ZeResult};

/// The host page size: the granularity of reservations, mappings and physical objects.
pub fn page_size() -> usize {
    // SAFETY: sysconf has no memory effects.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(p).ok().filter(|p| p.is_power_of_two()).unwrap_or(4096)
}

static NEXT_PHYS_ID: AtomicU64 = AtomicU64::new(1);

/// A `memfd_create` file of `size` bytes (zero-filled), close-on-exec.
pub fn memfd(name: &str, size: usize) -> std::io::Result<OwnedFd> {
    let cname = std::ffi::CString::new(name).unwrap_or_default();
    // SAFETY: `cname` is a valid NUL-terminated string for the duration of the call.
    let fd = unsafe { libc::memfd_create(cname.as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `fd` was just returned by memfd_create and is owned by nobody else.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let len = libc::off_t::try_from(size)
        .map_err(|_| std::io::Error::from_raw_os_error(libc::EFBIG))?;
    // SAFETY: ftruncate on a file descriptor we own.
    if unsafe { libc::ftruncate(fd.as_raw_fd(), len) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(fd)
}

/// Value of a physical memory handle (the object is shared with the mappings that use it).
#[derive(Debug)]
pub struct PhysicalMemHandle(pub Arc<PhysicalMemObject>);

/// A physical memory object: a memfd of `size` bytes.
#[derive(Debug)]
pub struct PhysicalMemObject {
    fd: OwnedFd,
    size: usize,
    id: u64,
    flags: ze_physical_mem_flags_t,
    /// Mapped segments using this object.
    mapped: AtomicUsize,
}

impl PhysicalMemObject {
    /// `zePhysicalMemCreate`: `size` bytes, a multiple of the page size.
    pub fn new(flags: ze_physical_mem_flags_t, size: usize) -> ZeResult<PhysicalMemObject> {
        let known = ze_physical_mem_flags_t::ALLOCATE_ON_DEVICE.0
            | ze_physical_mem_flags_t::ALLOCATE_ON_HOST.0;
        if flags.0 & !known != 0 {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ENUMERATION,
                format!("unknown physical memory flags {:#x}", flags.0),
            ));
        }
        check_size(size)?;
        let fd = memfd("zekit-physical", size).map_err(|e| {
            ZeError::new(
                ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY,
                format!("memfd of {size} bytes: {e}"),
            )
        })?;
        Ok(PhysicalMemObject {
            fd,
            size,
            id: NEXT_PHYS_ID.fetch_add(1, Ordering::Relaxed),
            flags,
            mapped: AtomicUsize::new(0),
        })
    }

    /// Size in bytes.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Unique id in the process.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Flags it was created with.
    pub fn flags(&self) -> ze_physical_mem_flags_t {
        self.flags
    }

    /// The memfd (what IPC exports).
    pub fn fd(&self) -> &OwnedFd {
        &self.fd
    }

    /// Whether some virtual range maps it.
    pub fn is_mapped(&self) -> bool {
        self.mapped.load(Ordering::Acquire) > 0
    }

    /// `zePhysicalMemDestroy` check.
    pub fn check_destroy(&self) -> ZeResult<()> {
        if self.is_mapped() {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE,
                "the physical memory is still mapped: zeVirtualMemUnmap it first",
            ));
        }
        Ok(())
    }
}

fn check_size(size: usize) -> ZeResult<()> {
    if size == 0 {
        return Err(ZeError::new(ZE_RESULT_ERROR_UNSUPPORTED_SIZE, "size is 0"));
    }
    if !size.is_multiple_of(page_size()) {
        return Err(ZeError::new(
            ZE_RESULT_ERROR_UNSUPPORTED_SIZE,
            format!("size {size} is not a multiple of the page size {}", page_size()),
        ));
    }
    Ok(())
}

fn check_aligned(what: &str, v: usize) -> ZeResult<()> {
    if !v.is_multiple_of(page_size()) {
        return Err(ZeError::new(
            ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT,
            format!("{what} {v:#x} is not aligned to the page size {}", page_size()),
        ));
    }
    Ok(())
}

fn prot(access: ze_memory_access_attribute_t) -> ZeResult<libc::c_int> {
    match access {
        ze_memory_access_attribute_t::NONE => Ok(libc::PROT_NONE),
        ze_memory_access_attribute_t::READWRITE => Ok(libc::PROT_READ | libc::PROT_WRITE),
        ze_memory_access_attribute_t::READONLY => Ok(libc::PROT_READ),
        other => Err(ZeError::new(
            ZE_RESULT_ERROR_INVALID_ENUMERATION,
            format!("unknown memory access attribute {}", other.0),
        )),
    }
}

fn os_failure(what: &str) -> ZeError {
    ZeError::new(
        ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY,
        format!("{what}: {}", std::io::Error::last_os_error()),
    )
}

/// One mapped segment: `len` bytes of `phys` from `offset`.
#[derive(Debug)]
struct Segment {
    len: usize,
    phys: Arc<PhysicalMemObject>,
    offset: usize,
    access: ze_memory_access_attribute_t,
}

impl Segment {
    fn new(
        len: usize,
        phys: Arc<PhysicalMemObject>,
        offset: usize,
        access: ze_memory_access_attribute_t,
    ) -> Segment {
        phys.mapped.fetch_add(1, Ordering::AcqRel);
        Segment {
            len,
            phys,
            offset,
            access,
        }
    }
}

impl Drop for Segment {
    fn drop(&mut self) {
        self.phys.mapped.fetch_sub(1, Ordering::AcqRel);
    }
}

/// What one mapped piece of a virtual range is: the physical object, its offset, its length.
#[derive(Clone, Debug)]
pub struct MappedPiece {
    /// The physical memory.
    pub phys: Arc<PhysicalMemObject>,
    /// Offset into it of the piece's first byte.
    pub offset: usize,
    /// Length in bytes.
    pub len: usize,
}

#[derive(Debug, Default)]
struct Inner {
    /// base → length.
    reservations: BTreeMap<usize, usize>,
    /// start → segment (never overlapping, each inside one reservation).
    segments: BTreeMap<usize, Segment>,
}

impl Inner {
    /// The reservation holding all of `[ptr, ptr + size)`.
    fn reservation_of(&self, ptr: usize, size: usize) -> ZeResult<(usize, usize)> {
        let end = ptr.checked_add(size).ok_or_else(|| {
            ZeError::new(ZE_RESULT_ERROR_INVALID_ARGUMENT, "ptr + size overflows")
        })?;
        match self.reservations.range(..=ptr).next_back() {
            Some((&b, &l)) if end <= b + l => Ok((b, l)),
            _ => Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ARGUMENT,
                format!("[{ptr:#x}, {end:#x}) is not inside one reservation of this context"),
            )),
        }
    }

    /// Splits the segment containing `at` (if any) so that a segment starts at `at`.
    fn split_at(&mut self, at: usize) {
        let Some((&start, seg)) = self.segments.range(..at).next_back() else {
            return;
        };
        if at >= start + seg.len {
            return;
        }
        let head = at - start;
        let tail = Segment::new(seg.len - head, seg.phys.clone(), seg.offset + head, seg.access);
        if let Some(s) = self.segments.get_mut(&start) {
            s.len = head;
        }
        self.segments.insert(at, tail);
    }

    /// Starts of the segments inside `[ptr, end)`, after splitting at both ends; error if a page
    /// of the range is not mapped.
    fn covering(&mut self, ptr: usize, end: usize) -> ZeResult<Vec<usize>> {
        let mut at = ptr;
        for (&s, seg) in self.segments.range(..end) {
            if s + seg.len <= ptr {
                continue;
            }
            if s > at {
                break;
            }
            at = s + seg.len;
        }
        if at < end {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ARGUMENT,
                format!("[{ptr:#x}, {end:#x}) is not fully mapped: {at:#x} is not"),
            ));
        }
        self.split_at(ptr);
        self.split_at(end);
        Ok(self.segments.range(ptr..end).map(|(&s, _)| s).collect())
    }
}

/// The virtual address space of one context: its reservations and mappings. Thread-safe.
#[derive(Debug, Default)]
pub struct VirtualSpace {
    inner: Mutex<Inner>,
}

/// Replaces `[addr, addr + len)` with inaccessible anonymous memory (the reservation's state).
///
/// # Safety
/// The range must be part of a reservation of this space.
unsafe fn reset_range(addr: usize, len: usize) -> ZeResult<()> {
    // SAFETY: the caller guarantees the range belongs to one of our reservations; MAP_FIXED
    // replaces only those pages.
    let p = unsafe {
        libc::mmap(
            addr as *mut libc::c_void,
            len,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_FIXED,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return Err(os_failure("mmap(PROT_NONE) over an unmapped range"));
    }
    Ok(())
}

impl VirtualSpace {
    /// An empty space.
    pub fn new() -> VirtualSpace {
        VirtualSpace::default()
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `zeVirtualMemQueryPageSize`: the page size, for any planned size (size 0 is refused by
    /// the spec's condition in the generated validation, at the strict level only:
    /// compute-runtime answers it too).
    pub fn query_page_size() -> usize {
        page_size()
    }

    /// `zeVirtualMemReserve`: `size` bytes of inaccessible address space, at `hint` if free.
    pub fn reserve(&self, hint: usize, size: usize) -> ZeResult<usize> {
        check_size(size)?;
        check_aligned("pStart", hint)?;
        // SAFETY: a new anonymous mapping; the hint is only a hint (no MAP_FIXED), so no
        // existing mapping is touched.
        let p = unsafe {
            libc::mmap(
                hint as *mut libc::c_void,
                size,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY,
                format!(
                    "reserving {size} bytes: {}",
                    std::io::Error::last_os_error()
                ),
            ));
        }
        self.lock().reservations.insert(p as usize, size);
        Ok(p as usize)
    }

    /// `zeVirtualMemFree`: the whole reservation at `ptr` (its mappings go with it).
    pub fn free(&self, ptr: usize, size: usize) -> ZeResult<()> {
        check_size(size)?;
        check_aligned("ptr", ptr)?;
        let mut inner = self.lock();
        if inner.reservations.get(&ptr) != Some(&size) {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ARGUMENT,
                format!("[{ptr:#x}, +{size:#x}) is not a reservation of this context"),
            ));
        }
        let starts: Vec<usize> = inner.segments.range(ptr..ptr + size).map(|(&s, _)| s).collect();
        for s in starts {
            inner.segments.remove(&s);
        }
        inner.reservations.remove(&ptr);
        // SAFETY: the range was our reservation (now forgotten); nothing else maps it.
        unsafe { libc::munmap(ptr as *mut libc::c_void, size) };
        Ok(())
    }

    /// `zeVirtualMemMap`: `[ptr, ptr + size)` to `phys` from `offset`.
    pub fn map(
        &self,
        ptr: usize,
        size: usize,
        phys: &Arc<PhysicalMemObject>,
        offset: usize,
        access: ze_memory_access_attribute_t,
    ) -> ZeResult<()> {
        check_size(size)?;
        check_aligned("ptr", ptr)?;
        check_aligned("offset", offset)?;
        let prot = prot(access)?;
        if offset.checked_add(size).is_none_or(|e| e > phys.size) {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ARGUMENT,
                format!(
                    "offset {offset:#x} + size {size:#x} exceeds the physical memory's {:#x} bytes",
                    phys.size
                ),
            ));
        }
        let mut inner = self.lock();
        inner.reservation_of(ptr, size)?;
        let end = ptr + size;
        let overlap = inner
            .segments
            .range(..end)
            .next_back()
            .filter(|(&s, seg)| s + seg.len > ptr)
            .map(|(&s, _)| s);
        if let Some(s) = overlap {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ARGUMENT,
                format!("[{ptr:#x}, {end:#x}) is already mapped (from {s:#x}): unmap it first"),
            ));
        }
        let off = libc::off_t::try_from(offset).map_err(|_| {
            ZeError::new(ZE_RESULT_ERROR_INVALID_ARGUMENT, "offset too large")
        })?;
        // SAFETY: the range lies inside our reservation and nothing is mapped there; MAP_FIXED
        // replaces only reserved PROT_NONE pages. The fd lives as long as the segment (Arc).
        let p = unsafe {
            libc::mmap(
                ptr as *mut libc::c_void,
                size,
                prot,
                libc::MAP_SHARED | libc::MAP_FIXED,
                phys.fd.as_raw_fd(),
                off,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(os_failure("mmap of physical memory"));
        }
        inner
            .segments
            .insert(ptr, Segment::new(size, phys.clone(), offset, access));
        Ok(())
    }

    /// `zeVirtualMemUnmap`: every page of `[ptr, ptr + size)` must be mapped.
    pub fn unmap(&self, ptr: usize, size: usize) -> ZeResult<()> {
        check_size(size)?;
        check_aligned("ptr", ptr)?;
        let mut inner = self.lock();
        inner.reservation_of(ptr, size)?;
        let starts = inner.covering(ptr, ptr + size)?;
        // SAFETY: the range is inside our reservation.
        unsafe { reset_range(ptr, size)? };
        for s in starts {
            inner.segments.remove(&s);
        }
        Ok(())
    }

    /// `zeVirtualMemSetAccessAttribute`: every page of the range must be mapped.
    pub fn set_access(
        &self,
        ptr: usize,
        size: usize,
        access: ze_memory_access_attribute_t,
    ) -> ZeResult<()> {
        check_size(size)?;
        check_aligned("ptr", ptr)?;
        let prot = prot(access)?;
        let mut inner = self.lock();
        inner.reservation_of(ptr, size)?;
        let starts = inner.covering(ptr, ptr + size)?;
        // SAFETY: the range is mapped memory of our reservation.
        if unsafe { libc::mprotect(ptr as *mut libc::c_void, size, prot) } != 0 {
            return Err(os_failure("mprotect"));
        }
        for s in starts {
            if let Some(seg) = inner.segments.get_mut(&s) {
                seg.access = access;
            }
        }
        Ok(())
    }

    /// `zeVirtualMemGetAccessAttribute`: the access at `ptr` and how many bytes share it.
    pub fn get_access(
        &self,
        ptr: usize,
        size: usize,
    ) -> ZeResult<(ze_memory_access_attribute_t, usize)> {
        check_size(size)?;
        check_aligned("ptr", ptr)?;
        let inner = self.lock();
        inner.reservation_of(ptr, size)?;
        let end = ptr + size;
        let access_at = |a: usize| -> (ze_memory_access_attribute_t, usize) {
            match inner.segments.range(..=a).next_back() {
                Some((&s, seg)) if a < s + seg.len => (seg.access, s + seg.len),
                _ => {
                    let next = inner.segments.range(a..).next().map_or(end, |(&s, _)| s);
                    (ze_memory_access_attribute_t::NONE, next)
                }
            }
        };
        let (first, mut at) = access_at(ptr);
        while at < end {
            let (a, next) = access_at(at);
            if a != first {
                break;
            }
            at = next;
        }
        Ok((first, at.min(end) - ptr))
    }

    /// The physical pieces mapped along `[ptr, ptr + size)`, in address order; `None` when some
    /// page is not mapped, `Err` when the range is not inside one reservation.
    pub fn pieces(&self, ptr: usize, size: usize) -> Option<Vec<MappedPiece>> {
        let inner = self.lock();
        let end = ptr.checked_add(size)?;
        let mut at = ptr;
        let mut out = Vec::new();
        let first = inner.segments.range(..=ptr).next_back().map_or(ptr, |(&s, _)| s);
        for (&s, seg) in inner.segments.range(first..end) {
            if s + seg.len <= at {
                continue;
            }
            if s > at {
                return None;
            }
            let skip = at - s;
            let len = (s + seg.len).min(end) - at;
            out.push(MappedPiece {
                phys: seg.phys.clone(),
                offset: seg.offset + skip,
                len,
            });
            at += len;
        }
        (at >= end && size > 0).then_some(out)
    }

    /// The mapped run around `ptr`: the longest stretch of pages containing it that maps one
    /// physical object at contiguous offsets (what one `zeVirtualMemMap` made, whatever later
    /// access changes split it into); its start and length. `None` when `ptr` is not mapped.
    pub fn mapped_run(&self, ptr: usize) -> Option<(usize, usize)> {
        let inner = self.lock();
        let (&s, seg) = inner.segments.range(..=ptr).next_back()?;
        if ptr >= s + seg.len {
            return None;
        }
        let (mut start, mut end) = (s, s + seg.len);
        let (phys, mut first_offset) = (&seg.phys, seg.offset);
        for (&b, prev) in inner.segments.range(..s).rev() {
            let joins = b + prev.len == start
                && Arc::ptr_eq(&prev.phys, phys)
                && prev.offset + prev.len == first_offset;
            if !joins {
                break;
            }
            start = b;
            first_offset = prev.offset;
        }
        let mut next_offset = seg.offset + seg.len;
        for (&b, next) in inner.segments.range(end..) {
            if b != end || !Arc::ptr_eq(&next.phys, phys) || next.offset != next_offset {
                break;
            }
            end += next.len;
            next_offset += next.len;
        }
        Some((start, end - start))
    }

    /// Whether `ptr` lies in a reservation of this space.
    pub fn is_reserved(&self, ptr: usize) -> bool {
        self.lock().reservation_of(ptr, 1).is_ok()
    }

    /// The reservation containing `ptr`: base and size.
    pub fn reservation_range(&self, ptr: usize) -> Option<(usize, usize)> {
        self.lock().reservation_of(ptr, 1).ok()
    }
}

impl Drop for VirtualSpace {
    fn drop(&mut self) {
        let inner = self.inner.get_mut().unwrap_or_else(|e| e.into_inner());
        inner.segments.clear();
        for (&b, &l) in &inner.reservations {
            // SAFETY: our reservation, released once with the context.
            unsafe { libc::munmap(b as *mut libc::c_void, l) };
        }
        inner.reservations.clear();
    }
}
