//! `VirtualMemApi` and `PhysicalMemApi`: reservations, physical memory and mappings.
//!
//! | topic | behaviour |
//! |---|---|
//! | page size | [`page_size`]: 64 KiB, 2 MiB for sizes from 2 MiB; never 0 |
//! | `zeVirtualMemReserve` | zeroed host memory aligned to the page size, registered as a device allocation of the context (so copies and `zeMemGetAllocProperties` know it); `pStart` is a hint the mock ignores; a size that is not a multiple of the page size: `UNSUPPORTED_SIZE` |
//! | `zePhysicalMemCreate` | an object of its size (a multiple of the page size); `zePhysicalMemGetProperties` gives its id and size |
//! | `zeVirtualMemMap` | checks the range (inside a reservation, page aligned) and the physical memory (`offset + size` inside it); the reservation's own bytes back the mapping, so two mappings of one physical memory do not share data |
//! | access attributes | set by `zeVirtualMemMap`/`…SetAccessAttribute`, read back by `…GetAccessAttribute` (with the size of the range that has it); unmapped memory: `NONE` |
//! | `zeVirtualMemUnmap`, `…Free` | forget the mappings in the range; `Free` releases the reservation |

use std::collections::BTreeMap;
use std::ffi::c_void;
use std::sync::{Mutex, OnceLock};

use zekit_icd::{kinds, Handle, PhysicalMemApi, VirtualMemApi, ZeError, ZeResult};
use zekit_icd_rt::fail;
use zekit_sys::*;

use super::MockDriver;
use crate::objects::{allocate, find, free, lock, next_id};

/// The page size of reservations smaller than [`LARGE_PAGE`].
pub const PAGE: usize = 64 << 10;
/// The page size of reservations of at least this size (and the size itself).
pub const LARGE_PAGE: usize = 2 << 20;

/// The page size `zeVirtualMemQueryPageSize` answers for `size`: 64 KiB, or 2 MiB for
/// reservations of 2 MiB and more (as current GPUs do). Never 0, always a power of two.
pub fn page_size(size: usize) -> usize {
    if size >= LARGE_PAGE {
        LARGE_PAGE
    } else {
        PAGE
    }
}

/// Physical memory: its size.
pub(crate) struct PhysicalMemObj {
    id: u64,
    size: usize,
}

/// Mapped ranges by start address: (size, access).
fn mappings() -> &'static Mutex<BTreeMap<usize, (usize, ze_memory_access_attribute_t)>> {
    static M: OnceLock<Mutex<BTreeMap<usize, (usize, ze_memory_access_attribute_t)>>> =
        OnceLock::new();
    M.get_or_init(Default::default)
}

/// Checks that `[ptr, ptr + size)` lies inside one reservation of context `ctx`, starts on a
/// page and has a whole number of pages.
fn reserved_range(ctx: u64, ptr: *const c_void, size: usize) -> ZeResult<()> {
    let p = ptr as usize;
    let Some((base, a)) = find(p).filter(|(_, a)| a.context == ctx) else {
        return Err(fail(
            ZeError::INVALID_ARGUMENT,
            format_args!("{ptr:p} is not in a reservation of this context"),
        ));
    };
    if p - base + size > a.size {
        return Err(fail(
            ZeError::INVALID_ARGUMENT,
            format_args!(
                "{ptr:p} + {size} runs past its reservation ({} bytes)",
                a.size
            ),
        ));
    }
    if !(p - base).is_multiple_of(a.align) || !size.is_multiple_of(a.align) || size == 0 {
        return Err(fail(
            ZeError::of(ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT),
            format_args!(
                "{ptr:p} + {size} is not a whole number of {}-byte pages",
                a.align
            ),
        ));
    }
    Ok(())
}

/// Removes the mappings that start inside `[p, p + size)`.
fn unmap(p: usize, size: usize) {
    let mut m = lock(mappings());
    let starts: Vec<usize> = m.range(p..p + size).map(|(s, _)| *s).collect();
    for s in starts {
        m.remove(&s);
    }
}

#[zekit_icd::implement]
impl VirtualMemApi for MockDriver {
    fn ze_virtual_mem_reserve(
        &self,
        h_context: Handle<kinds::Context>,
        _p_start: *const c_void,
        size: usize,
        pptr: &mut *mut c_void,
    ) -> ZeResult<()> {
        let ctx = Self::context_id(h_context)?;
        let page = page_size(size);
        if size == 0 || !size.is_multiple_of(page) {
            return Err(fail(
                ZeError::UNSUPPORTED_SIZE,
                format_args!("size {size} is not a multiple of the page size ({page})"),
            ));
        }
        *pptr = allocate(
            ctx,
            ZE_MEMORY_TYPE_DEVICE,
            size,
            page,
            Some(self.device_handle()),
        )?;
        Ok(())
    }

    fn ze_virtual_mem_free(
        &self,
        h_context: Handle<kinds::Context>,
        ptr: *const c_void,
        size: usize,
    ) -> ZeResult<()> {
        let ctx = Self::context_id(h_context)?;
        free(ctx, ptr as *mut c_void)?;
        unmap(ptr as usize, size);
        Ok(())
    }

    fn ze_virtual_mem_query_page_size(
        &self,
        h_context: Handle<kinds::Context>,
        h_device: Handle<kinds::Device>,
        size: usize,
        pagesize: &mut usize,
    ) -> ZeResult<()> {
        Self::context_id(h_context)?;
        self.check_device(h_device)?;
        *pagesize = page_size(size);
        Ok(())
    }

    fn ze_virtual_mem_map(
        &self,
        h_context: Handle<kinds::Context>,
        ptr: *const c_void,
        size: usize,
        h_physical_memory: Handle<kinds::PhysicalMem>,
        offset: usize,
        access: ze_memory_access_attribute_t,
    ) -> ZeResult<()> {
        let ctx = Self::context_id(h_context)?;
        let phys = h_physical_memory.get::<PhysicalMemObj>()?;
        reserved_range(ctx, ptr, size)?;
        if offset.checked_add(size).is_none_or(|end| end > phys.size) {
            return Err(fail(
                ZeError::INVALID_ARGUMENT,
                format_args!(
                    "offset {offset} + size {size} runs past the physical memory ({} bytes)",
                    phys.size
                ),
            ));
        }
        let p = ptr as usize;
        let m = lock(mappings());
        if let Some((s, (n, _))) = m.range(..p + size).next_back() {
            if s + n > p {
                return Err(fail(
                    ZeError::INVALID_ARGUMENT,
                    format_args!("{ptr:p} + {size} overlaps a mapping at {s:#x}"),
                ));
            }
        }
        drop(m);
        lock(mappings()).insert(p, (size, access));
        Ok(())
    }

    fn ze_virtual_mem_unmap(
        &self,
        h_context: Handle<kinds::Context>,
        ptr: *const c_void,
        size: usize,
    ) -> ZeResult<()> {
        let ctx = Self::context_id(h_context)?;
        reserved_range(ctx, ptr, size)?;
        unmap(ptr as usize, size);
        Ok(())
    }

    fn ze_virtual_mem_set_access_attribute(
        &self,
        h_context: Handle<kinds::Context>,
        ptr: *const c_void,
        size: usize,
        access: ze_memory_access_attribute_t,
    ) -> ZeResult<()> {
        let ctx = Self::context_id(h_context)?;
        reserved_range(ctx, ptr, size)?;
        let p = ptr as usize;
        let mut m = lock(mappings());
        let mut touched = false;
        for (s, (n, a)) in m.iter_mut() {
            if *s < p + size && s + *n > p {
                *a = access;
                touched = true;
            }
        }
        if !touched {
            return Err(fail(
                ZeError::INVALID_ARGUMENT,
                format_args!("{ptr:p} + {size} is not mapped"),
            ));
        }
        Ok(())
    }

    fn ze_virtual_mem_get_access_attribute(
        &self,
        h_context: Handle<kinds::Context>,
        ptr: *const c_void,
        size: usize,
        access: &mut ze_memory_access_attribute_t,
        out_size: &mut usize,
    ) -> ZeResult<()> {
        let ctx = Self::context_id(h_context)?;
        reserved_range(ctx, ptr, size)?;
        let p = ptr as usize;
        let m = lock(mappings());
        match m.range(..=p).next_back().filter(|(s, (n, _))| *s + *n > p) {
            Some((s, (n, a))) => {
                *access = *a;
                *out_size = (s + n - p).min(size);
            }
            None => {
                // Not mapped: no access, up to the next mapping.
                *access = ZE_MEMORY_ACCESS_ATTRIBUTE_NONE;
                let next = m.range(p..).next().map_or(p + size, |(s, _)| *s);
                *out_size = (next - p).min(size);
            }
        }
        Ok(())
    }
}

#[zekit_icd::implement]
impl PhysicalMemApi for MockDriver {
    fn ze_physical_mem_get_properties(
        &self,
        h_context: Handle<kinds::Context>,
        h_physical_mem: Handle<kinds::PhysicalMem>,
        p: &mut ze_physical_mem_properties_t,
    ) -> ZeResult<()> {
        Self::context_id(h_context)?;
        let m = h_physical_mem.get::<PhysicalMemObj>()?;
        p.id = m.id;
        p.size = m.size as u64;
        Ok(())
    }

    fn ze_physical_mem_create(
        &self,
        h_context: Handle<kinds::Context>,
        h_device: Option<Handle<kinds::Device>>,
        desc: &ze_physical_mem_desc_t,
        ph_physical_memory: &mut Option<Handle<kinds::PhysicalMem>>,
    ) -> ZeResult<()> {
        Self::context_id(h_context)?;
        // No device: physical host memory.
        if let Some(d) = h_device {
            self.check_device(d)?;
        }
        let size = desc.size;
        let page = page_size(size);
        if size == 0 || !size.is_multiple_of(page) {
            return Err(fail(
                ZeError::UNSUPPORTED_SIZE,
                format_args!("size {size} is not a multiple of the page size ({page})"),
            ));
        }
        *ph_physical_memory = Some(Handle::new(PhysicalMemObj {
            id: next_id(),
            size,
        }));
        Ok(())
    }

    fn ze_physical_mem_destroy(
        &self,
        h_context: Handle<kinds::Context>,
        h_physical_memory: Handle<kinds::PhysicalMem>,
    ) -> ZeResult<()> {
        Self::context_id(h_context)?;
        h_physical_memory.get::<PhysicalMemObj>().map(|_| ())
    }
}
