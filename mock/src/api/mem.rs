//! `MemApi`: host, device and shared allocations backed by zeroed host memory
//! ([`crate::objects::allocate`]), their properties and address ranges, frees.

use std::ffi::c_void;

use zekit_icd::{kinds, Handle, MemApi, ZeError, ZeResult};
use zekit_icd_rt::fail;
use zekit_sys::*;

use super::MockDriver;
use crate::objects::{allocate, find, free};
use crate::script::script;

impl MockDriver {
    #[allow(clippy::too_many_arguments)]
    fn alloc_checked(
        &self,
        context: Handle<kinds::Context>,
        kind: ze_memory_type_t,
        ordinal: Option<u32>,
        size: usize,
        alignment: usize,
        device: Option<Handle<kinds::Device>>,
        pptr: &mut *mut c_void,
    ) -> ZeResult<()> {
        let ctx = Self::context_id(context)?;
        if let Some(d) = device {
            self.check_device(d)?;
        }
        if let Some(o) = ordinal {
            let n = script().profile().memory_count();
            if o >= n {
                return Err(fail(
                    ZeError::INVALID_ARGUMENT,
                    format_args!("memory ordinal {o} does not exist (the device has {n})"),
                ));
            }
        }
        *pptr = allocate(ctx, kind, size, alignment, device)?;
        Ok(())
    }
}

#[zekit_icd::implement]
impl MemApi for MockDriver {
    fn ze_mem_alloc_shared(
        &self,
        h_context: Handle<kinds::Context>,
        device_desc: &ze_device_mem_alloc_desc_t,
        _host_desc: &ze_host_mem_alloc_desc_t,
        size: usize,
        alignment: usize,
        h_device: Option<Handle<kinds::Device>>,
        pptr: &mut *mut c_void,
    ) -> ZeResult<()> {
        self.alloc_checked(
            h_context,
            ZE_MEMORY_TYPE_SHARED,
            Some(device_desc.ordinal),
            size,
            alignment,
            h_device,
            pptr,
        )
    }

    fn ze_mem_alloc_device(
        &self,
        h_context: Handle<kinds::Context>,
        device_desc: &ze_device_mem_alloc_desc_t,
        size: usize,
        alignment: usize,
        h_device: Handle<kinds::Device>,
        pptr: &mut *mut c_void,
    ) -> ZeResult<()> {
        self.alloc_checked(
            h_context,
            ZE_MEMORY_TYPE_DEVICE,
            Some(device_desc.ordinal),
            size,
            alignment,
            Some(h_device),
            pptr,
        )
    }

    fn ze_mem_alloc_host(
        &self,
        h_context: Handle<kinds::Context>,
        _host_desc: &ze_host_mem_alloc_desc_t,
        size: usize,
        alignment: usize,
        pptr: &mut *mut c_void,
    ) -> ZeResult<()> {
        self.alloc_checked(
            h_context,
            ZE_MEMORY_TYPE_HOST,
            None,
            size,
            alignment,
            None,
            pptr,
        )
    }

    fn ze_mem_free(&self, h_context: Handle<kinds::Context>, ptr: *mut c_void) -> ZeResult<()> {
        free(Self::context_id(h_context)?, ptr)
    }

    fn ze_mem_free_ext(
        &self,
        h_context: Handle<kinds::Context>,
        _desc: &ze_memory_free_ext_desc_t,
        ptr: *mut c_void,
    ) -> ZeResult<()> {
        // Both free policies behave alike: nothing keeps running after a host wait returns.
        free(Self::context_id(h_context)?, ptr)
    }

    fn ze_mem_get_alloc_properties(
        &self,
        h_context: Handle<kinds::Context>,
        ptr: *const c_void,
        p: &mut ze_memory_allocation_properties_t,
        ph_device: Option<&mut Option<Handle<kinds::Device>>>,
    ) -> ZeResult<()> {
        let ctx = Self::context_id(h_context)?;
        let found = find(ptr as usize).filter(|(_, a)| a.context == ctx);
        let device = match found {
            Some((_, a)) => {
                p.r#type = a.kind;
                p.id = a.id;
                p.pageSize = if a.kind == ZE_MEMORY_TYPE_HOST {
                    4096
                } else {
                    65536
                };
                a.device
            }
            None => {
                // Not USM of this context: the host's memory, in the host's pages (never a page
                // size of 0, which callers divide by).
                p.r#type = ZE_MEMORY_TYPE_UNKNOWN;
                p.id = 0;
                p.pageSize = 4096;
                None
            }
        };
        if let Some(out) = ph_device {
            *out = device;
        }
        Ok(())
    }

    fn ze_mem_get_address_range(
        &self,
        h_context: Handle<kinds::Context>,
        ptr: *const c_void,
        p_base: Option<&mut *mut c_void>,
        p_size: Option<&mut usize>,
    ) -> ZeResult<()> {
        let ctx = Self::context_id(h_context)?;
        let Some((base, a)) = find(ptr as usize).filter(|(_, a)| a.context == ctx) else {
            return Err(fail(
                ZeError::INVALID_ARGUMENT,
                format_args!("{ptr:p} is not in an allocation of this context"),
            ));
        };
        if let Some(b) = p_base {
            *b = base as *mut c_void;
        }
        if let Some(s) = p_size {
            *s = a.size;
        }
        Ok(())
    }
}
