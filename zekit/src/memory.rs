//! Memory allocations as owned types: [`HostMem`], [`SharedMem`], [`DeviceMem`]. Each frees
//! itself on drop (`zeMemFree`) and keeps its context alive; command lists that record work on
//! one keep it alive in turn. The host-accessible kinds (host, shared) have slice views.

use std::any::Any;
use std::ffi::c_void;
use std::sync::Arc;

use zekit_sys::*;

use crate::object::KeepAlive;
use crate::{CommandList, Context, Device, Error, Event, Result};

/// One allocation: its address, size, and the context that frees it.
struct Alloc {
    ptr: *mut c_void,
    size: usize,
    context: ze_context_handle_t,
    free: ze_pfnMemFree_t,
    _context: KeepAlive,
}

// SAFETY: the allocation is plain memory owned by this value; host access goes through
// `&`/`&mut` of the owning wrapper, and the context handle is only used to free it.
unsafe impl Send for Alloc {}
// SAFETY: as above.
unsafe impl Sync for Alloc {}

impl Drop for Alloc {
    fn drop(&mut self) {
        if let Some(free) = self.free {
            // SAFETY: `ptr` was allocated in `context`, which is alive (`_context`), and
            // this is its only free.
            let _ = unsafe { free(self.context, self.ptr) };
        }
    }
}

/// An allocation work on the device can use: its address and size.
pub trait Memory {
    /// The allocation's address.
    fn as_ptr(&self) -> *mut c_void;
    /// Its size in bytes.
    fn size(&self) -> usize;
    /// A reference that keeps it allocated.
    #[doc(hidden)]
    fn keep_alive(&self) -> Arc<dyn Any + Send + Sync>;
}

macro_rules! mem_type {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        pub struct $name(Arc<Alloc>);

        impl Memory for $name {
            fn as_ptr(&self) -> *mut c_void {
                self.0.ptr
            }
            fn size(&self) -> usize {
                self.0.size
            }
            fn keep_alive(&self) -> Arc<dyn Any + Send + Sync> {
                self.0.clone()
            }
        }

        impl $name {
            /// The allocation's address.
            pub fn as_ptr(&self) -> *mut c_void {
                self.0.ptr
            }
            /// Its size in bytes.
            pub fn size(&self) -> usize {
                self.0.size
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}({:p}, {} bytes)", stringify!($name), self.0.ptr, self.0.size)
            }
        }
    };
}

macro_rules! host_view {
    ($name:ident) => {
        impl $name {
            /// The allocation as bytes. Work on the device that writes it must be finished
            /// (a synchronized queue, list or event) for what this shows to be meaningful.
            pub fn as_slice(&self) -> &[u8] {
                if self.0.size == 0 {
                    return &[];
                }
                // SAFETY: host-accessible memory of `size` bytes owned by `self`, zeroed by
                // `alloc` before it was handed out, alive while `self` is borrowed.
                unsafe { std::slice::from_raw_parts(self.0.ptr as *const u8, self.0.size) }
            }
            /// The allocation as mutable bytes.
            pub fn as_mut_slice(&mut self) -> &mut [u8] {
                if self.0.size == 0 {
                    return &mut [];
                }
                // SAFETY: as `as_slice`; `&mut self` makes this the only host view.
                unsafe { std::slice::from_raw_parts_mut(self.0.ptr as *mut u8, self.0.size) }
            }
        }
    };
}

mem_type!(
    /// Host memory (`zeMemAllocHost`): the host and every device of the context reach it.
    HostMem
);
mem_type!(
    /// Shared memory (`zeMemAllocShared`): migrates between the host and a device.
    SharedMem
);
mem_type!(
    /// Device memory (`zeMemAllocDevice`): the host cannot read it directly; copy it through
    /// a command list.
    DeviceMem
);
host_view!(HostMem);
host_view!(SharedMem);

impl Context {
    fn alloc(&self, function: &'static str, size: usize, ptr: *mut c_void, host: bool) -> Result<Arc<Alloc>> {
        if ptr.is_null() && size != 0 {
            return Err(Error::new(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, function, "the driver returned no address"));
        }
        if host && size != 0 {
            // SAFETY: a fresh host-accessible allocation of `size` bytes: zeroing it makes
            // the slice views read initialized bytes.
            unsafe { std::ptr::write_bytes(ptr as *mut u8, 0, size) };
        }
        Ok(Arc::new(Alloc { ptr, size, context: self.as_raw(), free: self.api().fns().ze.zeMemFree, _context: self.keep_alive() }))
    }

    /// Allocates `size` bytes of host memory aligned to `align` (0: the driver's choice),
    /// zero-filled.
    pub fn alloc_host(&self, size: usize, align: usize) -> Result<HostMem> {
        let f = self.api().fns().ze.zeMemAllocHost.ok_or_else(|| Error::missing("zeMemAllocHost"))?;
        let desc = ze_host_mem_alloc_desc_t::default();
        let mut p: *mut c_void = std::ptr::null_mut();
        // SAFETY: a default descriptor (no chain) and a local for the address.
        let r = unsafe { f(self.as_raw(), &desc, size, align, &mut p) };
        self.api().check(r, "zeMemAllocHost")?;
        Ok(HostMem(self.alloc("zeMemAllocHost", size, p, true)?))
    }

    /// Allocates `size` bytes of shared memory aligned to `align`, associated with `device`
    /// (or none), zero-filled.
    pub fn alloc_shared(&self, device: Option<&Device>, size: usize, align: usize) -> Result<SharedMem> {
        let f = self.api().fns().ze.zeMemAllocShared.ok_or_else(|| Error::missing("zeMemAllocShared"))?;
        let ddesc = ze_device_mem_alloc_desc_t::default();
        let hdesc = ze_host_mem_alloc_desc_t::default();
        let mut p: *mut c_void = std::ptr::null_mut();
        let dev = device.map_or(std::ptr::null_mut(), |d| d.as_raw());
        // SAFETY: default descriptors (no chain), a live or null device, a local for the address.
        let r = unsafe { f(self.as_raw(), &ddesc, &hdesc, size, align, dev, &mut p) };
        self.api().check(r, "zeMemAllocShared")?;
        Ok(SharedMem(self.alloc("zeMemAllocShared", size, p, true)?))
    }

    /// Allocates `size` bytes of memory on `device` aligned to `align`.
    pub fn alloc_device(&self, device: &Device, size: usize, align: usize) -> Result<DeviceMem> {
        let f = self.api().fns().ze.zeMemAllocDevice.ok_or_else(|| Error::missing("zeMemAllocDevice"))?;
        let desc = ze_device_mem_alloc_desc_t::default();
        let mut p: *mut c_void = std::ptr::null_mut();
        // SAFETY: a default descriptor (no chain), a live device, a local for the address.
        let r = unsafe { f(self.as_raw(), &desc, size, align, device.as_raw(), &mut p) };
        self.api().check(r, "zeMemAllocDevice")?;
        Ok(DeviceMem(self.alloc("zeMemAllocDevice", size, p, false)?))
    }

    /// The properties of the allocation `mem` (`zeMemGetAllocProperties` at `offset` into it).
    pub fn memory_alloc_properties(&self, mem: &impl Memory, offset: usize) -> Result<ze_memory_allocation_properties_t> {
        let f = self.api().fns().ze.zeMemGetAllocProperties.ok_or_else(|| Error::missing("zeMemGetAllocProperties"))?;
        let p = offset_ptr(mem, offset, "zeMemGetAllocProperties")?;
        let mut props = ze_memory_allocation_properties_t::default();
        // SAFETY: `p` lies inside a live allocation; `props` is a local; no device asked for.
        let r = unsafe { f(self.as_raw(), p, &mut props, std::ptr::null_mut()) };
        self.api().check(r, "zeMemGetAllocProperties")?;
        Ok(props)
    }

    /// The base address and size of the allocation holding `mem`'s byte at `offset`
    /// (`zeMemGetAddressRange`).
    pub fn memory_address_range(&self, mem: &impl Memory, offset: usize) -> Result<(*mut c_void, usize)> {
        let f = self.api().fns().ze.zeMemGetAddressRange.ok_or_else(|| Error::missing("zeMemGetAddressRange"))?;
        let p = offset_ptr(mem, offset, "zeMemGetAddressRange")?;
        let (mut base, mut size) = (std::ptr::null_mut(), 0usize);
        // SAFETY: `p` lies inside a live allocation; the outputs are locals.
        let r = unsafe { f(self.as_raw(), p, &mut base, &mut size) };
        self.api().check(r, "zeMemGetAddressRange")?;
        Ok((base, size))
    }
}

fn offset_ptr(mem: &impl Memory, offset: usize, function: &'static str) -> Result<*const c_void> {
    if offset >= mem.size() {
        return Err(Error::new(ZE_RESULT_ERROR_INVALID_ARGUMENT, function, format!("offset {offset} is outside the {} bytes", mem.size())));
    }
    Ok((mem.as_ptr() as *const u8).wrapping_add(offset) as *const c_void)
}

fn wait_list(list: &CommandList, wait: &[&Event]) -> Vec<ze_event_handle_t> {
    wait.iter()
        .map(|e| {
            list.keep(e);
            e.as_raw()
        })
        .collect()
}

impl CommandList {
    /// Records a copy of `size` bytes from `src` to `dst` (`zeCommandListAppendMemoryCopy`).
    /// The list keeps both allocations (and the events) alive. A size larger than either is
    /// `ZE_RESULT_ERROR_INVALID_SIZE`.
    pub fn append_memory_copy(&self, dst: &impl Memory, src: &impl Memory, size: usize, signal: Option<&Event>, wait: &[&Event]) -> Result<()> {
        const F: &str = "zeCommandListAppendMemoryCopy";
        let f = self.api().fns().ze.zeCommandListAppendMemoryCopy.ok_or_else(|| Error::missing(F))?;
        if size > dst.size() || size > src.size() {
            return Err(Error::new(ZE_RESULT_ERROR_INVALID_SIZE, F, format!("{size} bytes do not fit (dst {}, src {})", dst.size(), src.size())));
        }
        let n: u32 = crate::util::slice_len(wait.len(), F, "phWaitEvents")?;
        let waits = wait_list(self, wait);
        let sig = signal.map_or(std::ptr::null_mut(), |e| e.as_raw());
        let wp = if waits.is_empty() { std::ptr::null_mut() } else { waits.as_ptr() as *mut _ };
        // SAFETY: both ranges lie inside live allocations that the list keeps alive; the
        // events are live and kept too; `waits` holds `n` handles.
        let r = unsafe { f(self.as_raw(), dst.as_ptr(), src.as_ptr(), size, sig, n, wp) };
        self.api().check(r, F)?;
        self.keep_value(dst.keep_alive());
        self.keep_value(src.keep_alive());
        if let Some(e) = signal {
            self.keep(e);
        }
        Ok(())
    }

    /// Records filling `size` bytes of `dst` with `pattern` repeated
    /// (`zeCommandListAppendMemoryFill`); the list keeps a copy of the pattern.
    pub fn append_memory_fill(&self, dst: &impl Memory, pattern: &[u8], size: usize, signal: Option<&Event>, wait: &[&Event]) -> Result<()> {
        const F: &str = "zeCommandListAppendMemoryFill";
        let f = self.api().fns().ze.zeCommandListAppendMemoryFill.ok_or_else(|| Error::missing(F))?;
        if size > dst.size() {
            return Err(Error::new(ZE_RESULT_ERROR_INVALID_SIZE, F, format!("{size} bytes do not fit {}", dst.size())));
        }
        let n: u32 = crate::util::slice_len(wait.len(), F, "phWaitEvents")?;
        let waits = wait_list(self, wait);
        let pattern: Arc<Vec<u8>> = Arc::new(pattern.to_vec());
        let sig = signal.map_or(std::ptr::null_mut(), |e| e.as_raw());
        let wp = if waits.is_empty() { std::ptr::null_mut() } else { waits.as_ptr() as *mut _ };
        // SAFETY: the range lies inside a live allocation the list keeps alive, the pattern
        // copy is kept alive too, the events are live and kept; `waits` holds `n` handles.
        let r = unsafe { f(self.as_raw(), dst.as_ptr(), pattern.as_ptr() as *const c_void, pattern.len(), size, sig, n, wp) };
        self.api().check(r, F)?;
        self.keep_value(dst.keep_alive());
        self.keep_value(pattern);
        if let Some(e) = signal {
            self.keep(e);
        }
        Ok(())
    }
}
