//! VirtualMemApi and PhysicalMemApi: reservations, physical memory, mappings (see
//! `crate::model::vm`).

use super::*;
use crate::model::vm::{PhysicalMemHandle, PhysicalMemObject, VirtualSpace};

fn physical(h: Handle<kinds::PhysicalMem>) -> ZeResult<Obj<PhysicalMemHandle>> {
    h.get::<PhysicalMemHandle>()
}

#[zekit_icd::implement]
impl VirtualMemApi for CpuDriver {
    fn ze_virtual_mem_reserve(
        &self,
        h_context: Handle<kinds::Context>,
        p_start: *const c_void,
        size: usize,
        pptr: &mut *mut c_void,
    ) -> ZeResult<()> {
        let ctx = context(h_context)?;
        *pptr = ctx.vm().reserve(p_start as usize, size)? as *mut c_void;
        Ok(())
    }

    fn ze_virtual_mem_free(
        &self,
        h_context: Handle<kinds::Context>,
        ptr: *const c_void,
        size: usize,
    ) -> ZeResult<()> {
        context(h_context)?.vm().free(ptr as usize, size)
    }

    fn ze_virtual_mem_query_page_size(
        &self,
        h_context: Handle<kinds::Context>,
        h_device: Handle<kinds::Device>,
        _size: usize,
        pagesize: &mut usize,
    ) -> ZeResult<()> {
        context(h_context)?;
        ordinal(h_device)?;
        *pagesize = VirtualSpace::query_page_size();
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
        let ctx = context(h_context)?;
        let phys = physical(h_physical_memory)?;
        ctx.vm().map(ptr as usize, size, &phys.0, offset, access)
    }

    fn ze_virtual_mem_unmap(
        &self,
        h_context: Handle<kinds::Context>,
        ptr: *const c_void,
        size: usize,
    ) -> ZeResult<()> {
        context(h_context)?.vm().unmap(ptr as usize, size)
    }

    fn ze_virtual_mem_set_access_attribute(
        &self,
        h_context: Handle<kinds::Context>,
        ptr: *const c_void,
        size: usize,
        access: ze_memory_access_attribute_t,
    ) -> ZeResult<()> {
        context(h_context)?
            .vm()
            .set_access(ptr as usize, size, access)
    }

    fn ze_virtual_mem_get_access_attribute(
        &self,
        h_context: Handle<kinds::Context>,
        ptr: *const c_void,
        size: usize,
        access: &mut ze_memory_access_attribute_t,
        out_size: &mut usize,
    ) -> ZeResult<()> {
        let (a, n) = context(h_context)?.vm().get_access(ptr as usize, size)?;
        *access = a;
        *out_size = n;
        Ok(())
    }
}

#[zekit_icd::implement]
impl PhysicalMemApi for CpuDriver {
    fn ze_physical_mem_create(
        &self,
        h_context: Handle<kinds::Context>,
        h_device: Option<Handle<kinds::Device>>,
        desc: &ze_physical_mem_desc_t,
        ph_physical_memory: &mut Option<Handle<kinds::PhysicalMem>>,
    ) -> ZeResult<()> {
        context(h_context)?;
        // No device: physical host memory, which on this device is the same memory.
        h_device.map(ordinal).transpose()?;
        let mem = PhysicalMemObject::new(desc.flags, desc.size)?;
        *ph_physical_memory = Some(Handle::new(PhysicalMemHandle(Arc::new(mem))));
        Ok(())
    }

    fn ze_physical_mem_destroy(
        &self,
        h_context: Handle<kinds::Context>,
        h_physical_memory: Handle<kinds::PhysicalMem>,
    ) -> ZeResult<()> {
        // `[release]`: the entry layer takes the handle out once this returns Ok.
        context(h_context)?;
        physical(h_physical_memory)?.0.check_destroy()
    }

    fn ze_physical_mem_get_properties(
        &self,
        h_context: Handle<kinds::Context>,
        h_physical_mem: Handle<kinds::PhysicalMem>,
        p: &mut ze_physical_mem_properties_t,
    ) -> ZeResult<()> {
        context(h_context)?;
        let phys = physical(h_physical_mem)?;
        p.id = phys.0.id();
        p.size = phys.0.size() as u64;
        Ok(())
    }
}
