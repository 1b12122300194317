//! MemApi: Host, device and shared allocations (see `crate::model::alloc`).

use super::*;

#[zekit_icd::implement]
impl MemApi for CpuDriver {
    // ------------------------------------------------------------ memory

    fn ze_mem_alloc_host(
        &self,
        h_context: Handle<kinds::Context>,
        host_desc: &ze_host_mem_alloc_desc_t,
        size: usize,
        alignment: usize,
        pptr: &mut *mut c_void,
    ) -> ZeResult<()> {
        let ctx = context(h_context)?;
        check_host_alloc_flags(host_desc.flags)?;
        let limit = alloc_limit(host_desc_limits(host_desc))?;
        let ext = External::default().host(host_desc)?;
        let req = AllocRequest {
            kind: AllocKind::Host,
            size,
            alignment,
            device: None,
            limit,
            export_types: ext.export_types,
            import_fd: ext.import_fd,
        };
        let p = ctx.alloc(&req)?;
        *pptr = p.cast();
        Ok(())
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
        let ctx = context(h_context)?;
        let device = ordinal(h_device)?;
        check_device_alloc_desc(device_desc.flags, device_desc.ordinal)?;
        let limit = alloc_limit(device_desc_limits(device_desc))?;
        let ext = External::default().device(device_desc)?;
        let req = AllocRequest {
            kind: AllocKind::Device,
            size,
            alignment,
            device: Some(device),
            limit,
            export_types: ext.export_types,
            import_fd: ext.import_fd,
        };
        let p = ctx.alloc(&req)?;
        *pptr = p.cast();
        Ok(())
    }

    fn ze_mem_alloc_shared(
        &self,
        h_context: Handle<kinds::Context>,
        device_desc: &ze_device_mem_alloc_desc_t,
        host_desc: &ze_host_mem_alloc_desc_t,
        size: usize,
        alignment: usize,
        h_device: Option<Handle<kinds::Device>>,
        pptr: &mut *mut c_void,
    ) -> ZeResult<()> {
        let ctx = context(h_context)?;
        let device = h_device.map(ordinal).transpose()?;
        check_device_alloc_desc(device_desc.flags, device_desc.ordinal)?;
        check_host_alloc_flags(host_desc.flags)?;
        let limit = alloc_limit(device_desc_limits(device_desc).chain(host_desc_limits(host_desc)))?;
        let ext = External::default().device(device_desc)?.host(host_desc)?;
        let req = AllocRequest {
            kind: AllocKind::Shared,
            size,
            alignment,
            device,
            limit,
            export_types: ext.export_types,
            import_fd: ext.import_fd,
        };
        let p = ctx.alloc(&req)?;
        *pptr = p.cast();
        Ok(())
    }

    fn ze_mem_free(&self, h_context: Handle<kinds::Context>, ptr: *mut c_void) -> ZeResult<()> {
        let ctx = context(h_context)?;
        ctx.free(ptr.cast())
    }

    fn ze_mem_set_atomic_access_attribute_exp(
        &self,
        h_context: Handle<kinds::Context>,
        h_device: Handle<kinds::Device>,
        ptr: *const c_void,
        size: usize,
        attr: ze_memory_atomic_attr_exp_flags_t,
    ) -> ZeResult<()> {
        let ctx = context(h_context)?;
        ordinal(h_device)?;
        ctx.set_atomic_attr(ptr.cast(), size, attr)
    }

    fn ze_mem_get_atomic_access_attribute_exp(
        &self,
        h_context: Handle<kinds::Context>,
        h_device: Handle<kinds::Device>,
        ptr: *const c_void,
        size: usize,
        p_attr: &mut ze_memory_atomic_attr_exp_flags_t,
    ) -> ZeResult<()> {
        let ctx = context(h_context)?;
        ordinal(h_device)?;
        *p_attr = ctx.atomic_attr(ptr.cast(), size)?;
        Ok(())
    }

    fn ze_mem_free_ext(
        &self,
        h_context: Handle<kinds::Context>,
        p_mem_free_desc: &ze_memory_free_ext_desc_t,
        ptr: *mut c_void,
    ) -> ZeResult<()> {
        let ctx = context(h_context)?;
        ctx.free_ext(ptr.cast(), p_mem_free_desc.freePolicy)
    }

    fn ze_mem_get_alloc_properties(
        &self,
        h_context: Handle<kinds::Context>,
        ptr: *const c_void,
        p: &mut ze_memory_allocation_properties_t,
        ph_device: Option<&mut Option<Handle<kinds::Device>>>,
    ) -> ZeResult<()> {
        use chain::ZeMemoryAllocationPropertiesNextMut as N;
        let ctx = context(h_context)?;
        // SAFETY: the application's chain of output structures, ours for this call.
        for ext in unsafe { chain::next_of_ze_memory_allocation_properties_t_mut(p.pNext) } {
            match ext {
                N::ExternalMemoryExportFd(out) => out.fd = ctx.export_fd(ptr.cast(), out.flags)?,
                N::ExternalMemoryExportWin32Handle(_) => {
                    return Err(zekit_icd_rt::fail(
                        ZeError::UNSUPPORTED_FEATURE,
                        "Win32 handles do not exist on Linux: export as OPAQUE_FD",
                    ))
                }
                _ => {}
            }
        }
        let a = ctx.alloc_properties(ptr.cast(), self.host.page_size);
        p.r#type = a.memory_type;
        p.id = a.id;
        p.pageSize = a.page_size;
        let device = a.device.and_then(|d| self.device_handle(d));
        // phDevice is optional: None means the caller does not want it.
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
        let ctx = context(h_context)?;
        let (base, size) = ctx.address_range(ptr.cast())?;
        if let Some(b) = p_base {
            *b = base.cast();
        }
        if let Some(s) = p_size {
            *s = size;
        }
        Ok(())
    }

    // ------------------------------------------------------------ IPC (see `crate::model::ipc`)

    fn ze_mem_get_ipc_handle(
        &self,
        h_context: Handle<kinds::Context>,
        ptr: *const c_void,
        p_ipc_handle: &mut ze_ipc_mem_handle_t,
    ) -> ZeResult<()> {
        let ctx = context(h_context)?;
        *p_ipc_handle = ctx.ipc_handle(ptr.cast())?;
        Ok(())
    }

    fn ze_mem_get_ipc_handle_with_properties(
        &self,
        h_context: Handle<kinds::Context>,
        ptr: *const c_void,
        p_next: *mut c_void,
        p_ipc_handle: &mut ze_ipc_mem_handle_t,
    ) -> ZeResult<()> {
        let ctx = context(h_context)?;
        let range = ipc_range_size(p_next.cast_const());
        *p_ipc_handle = match range {
            Some(size) => ctx.ipc_range_handle(ptr.cast(), size)?,
            None => ctx.ipc_handle(ptr.cast())?,
        };
        Ok(())
    }

    fn ze_mem_get_ipc_handle_from_file_descriptor_exp(
        &self,
        h_context: Handle<kinds::Context>,
        handle: u64,
        p_ipc_handle: &mut ze_ipc_mem_handle_t,
    ) -> ZeResult<()> {
        context(h_context)?;
        *p_ipc_handle = crate::model::ipc::from_fd(handle)?.encode();
        Ok(())
    }

    fn ze_mem_get_file_descriptor_from_ipc_handle_exp(
        &self,
        h_context: Handle<kinds::Context>,
        ipc_handle: ze_ipc_mem_handle_t,
        p_handle: &mut u64,
    ) -> ZeResult<()> {
        context(h_context)?;
        match crate::model::ipc::decode_mem(&ipc_handle)? {
            crate::model::ipc::MemHandle::Single(w) => {
                *p_handle = w.fd as u64;
                Ok(())
            }
            crate::model::ipc::MemHandle::Range(_) => Err(zekit_icd_rt::fail(
                ZeError::INVALID_ARGUMENT,
                "a range handle over several physical memory objects holds no single file descriptor",
            )),
        }
    }

    fn ze_mem_put_ipc_handle(
        &self,
        h_context: Handle<kinds::Context>,
        handle: ze_ipc_mem_handle_t,
    ) -> ZeResult<()> {
        // A handle of one file owns nothing (the memory's fd lives with the memory): only
        // checked; a multi-object range handle releases its manifest.
        context(h_context)?.ipc_put(&handle)
    }

    fn ze_mem_open_ipc_handle(
        &self,
        h_context: Handle<kinds::Context>,
        h_device: Handle<kinds::Device>,
        handle: ze_ipc_mem_handle_t,
        _flags: ze_ipc_memory_flags_t,
        pptr: &mut *mut c_void,
    ) -> ZeResult<()> {
        // The cache biases are hints: host memory is cached either way.
        let ctx = context(h_context)?;
        ordinal(h_device)?;
        *pptr = ctx.ipc_open(&handle)?.cast();
        Ok(())
    }

    fn ze_mem_close_ipc_handle(
        &self,
        h_context: Handle<kinds::Context>,
        ptr: *const c_void,
    ) -> ZeResult<()> {
        context(h_context)?.ipc_close(ptr.cast())
    }
}

/// The size of the `ze_ipc_phys_mem_handle_range_ext_desc_t` in the function's `pNext` chain.
fn ipc_range_size(p_next: *const c_void) -> Option<usize> {
    use chain::ZeMemGetIpcHandleWithPropertiesNext as N;
    // SAFETY: the application's chain of extension structures (validated by the entry layer),
    // read-only for this call.
    let links = unsafe { chain::next_of_zeMemGetIpcHandleWithProperties(p_next.cast_mut()) };
    let mut range = None;
    for ext in links {
        if let N::IpcPhysMemHandleRangeExtDesc(r) = ext {
            range = Some(r.size);
        }
    }
    range
}

/// External memory requested in the `pNext` chains of an allocation's descriptors.
#[derive(Default)]
struct External {
    export_types: ze_external_memory_type_flags_t,
    import_fd: Option<(ze_external_memory_type_flags_t, i32)>,
}

impl External {
    fn add_export(&mut self, flags: ze_external_memory_type_flags_t) {
        self.export_types = ze_external_memory_type_flags_t(self.export_types.0 | flags.0);
    }

    fn add_import(&mut self, flags: ze_external_memory_type_flags_t, fd: i32) {
        self.import_fd.get_or_insert((flags, fd));
    }

    fn win32() -> ZeError {
        zekit_icd_rt::fail(
            ZeError::UNSUPPORTED_ENUMERATION,
            "Win32 handles do not exist on Linux: import an OPAQUE_FD",
        )
    }

    /// Adds what a device allocation descriptor's chain asks for.
    fn device(mut self, d: &ze_device_mem_alloc_desc_t) -> ZeResult<External> {
        use chain::ZeDeviceMemAllocDescNext as N;
        // SAFETY: the application's descriptor chain, read-only for this call.
        for e in unsafe { chain::next_of_ze_device_mem_alloc_desc_t(d.pNext) } {
            match e {
                N::ExternalMemoryExportDesc(x) => self.add_export(x.flags),
                N::ExternalMemoryImportFd(x) => self.add_import(x.flags, x.fd),
                N::ExternalMemoryImportWin32Handle(_) => return Err(Self::win32()),
                _ => {}
            }
        }
        Ok(self)
    }

    /// Adds what a host allocation descriptor's chain asks for.
    fn host(mut self, d: &ze_host_mem_alloc_desc_t) -> ZeResult<External> {
        use chain::ZeHostMemAllocDescNext as N;
        // SAFETY: the application's descriptor chain, read-only for this call.
        for e in unsafe { chain::next_of_ze_host_mem_alloc_desc_t(d.pNext) } {
            match e {
                N::ExternalMemoryExportDesc(x) => self.add_export(x.flags),
                N::ExternalMemoryImportFd(x) => self.add_import(x.flags, x.fd),
                N::ExternalMemoryImportWin32Handle(_) => return Err(Self::win32()),
                _ => {}
            }
        }
        Ok(self)
    }
}
