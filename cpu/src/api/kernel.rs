//! KernelApi: kernels of modules (see `crate::model::kernel`).

use super::*;
use crate::model::kernel::KernelObject;
use crate::model::module::ModuleObject;

pub(super) fn kernel(h: Handle<kinds::Kernel>) -> ZeResult<Obj<KernelObject>> {
    h.get::<KernelObject>()
}

#[zekit_icd::implement]
impl KernelApi for CpuDriver {
    fn ze_kernel_create(
        &self,
        h_module: Handle<kinds::Module>,
        desc: &ze_kernel_desc_t,
        ph_kernel: &mut Option<Handle<kinds::Kernel>>,
    ) -> ZeResult<()> {
        let m = h_module.get::<ModuleObject>()?;
        if desc.pKernelName.is_null() {
            return Err(null_pointer("desc->pKernelName"));
        }
        // SAFETY: a NUL-terminated string of the application.
        let name = unsafe { CStr::from_ptr(desc.pKernelName) }.to_string_lossy();
        let index = m.kernel_index(&name)?;
        *ph_kernel = Some(Handle::new(KernelObject::new(m.program()?, index, m.context)));
        Ok(())
    }

    fn ze_kernel_destroy(&self, h_kernel: Handle<kinds::Kernel>) -> ZeResult<()> {
        // `[release]`: the entry layer takes the handle out; appended launches keep their copy.
        kernel(h_kernel).map(|_| ())
    }

    fn ze_kernel_set_group_size(
        &self,
        h_kernel: Handle<kinds::Kernel>,
        group_size_x: u32,
        group_size_y: u32,
        group_size_z: u32,
    ) -> ZeResult<()> {
        kernel(h_kernel)?.set_group_size([group_size_x, group_size_y, group_size_z])
    }

    fn ze_kernel_suggest_group_size(
        &self,
        h_kernel: Handle<kinds::Kernel>,
        global_size_x: u32,
        global_size_y: u32,
        global_size_z: u32,
        group_size_x: &mut u32,
        group_size_y: &mut u32,
        group_size_z: &mut u32,
    ) -> ZeResult<()> {
        let [x, y, z] =
            kernel(h_kernel)?.suggest_group_size([global_size_x, global_size_y, global_size_z]);
        (*group_size_x, *group_size_y, *group_size_z) = (x, y, z);
        Ok(())
    }

    fn ze_kernel_suggest_max_cooperative_group_count(
        &self,
        h_kernel: Handle<kinds::Kernel>,
        total_group_count: &mut u32,
    ) -> ZeResult<()> {
        kernel(h_kernel)?;
        // Groups run one after the other on each thread; this many run at the same time.
        *total_group_count = self.pool().threads() as u32 + 1;
        Ok(())
    }

    fn ze_kernel_set_argument_value(
        &self,
        h_kernel: Handle<kinds::Kernel>,
        arg_index: u32,
        arg_size: usize,
        p_arg_value: *const c_void,
    ) -> ZeResult<()> {
        let k = kernel(h_kernel)?;
        let value = if p_arg_value.is_null() {
            None
        } else {
            // SAFETY: the application passes `arg_size` readable bytes at `p_arg_value`.
            Some(unsafe { std::slice::from_raw_parts(p_arg_value.cast::<u8>(), arg_size) })
        };
        k.set_arg(arg_index, arg_size, value)
    }

    fn ze_kernel_set_global_offset_exp(
        &self,
        h_kernel: Handle<kinds::Kernel>,
        offset_x: u32,
        offset_y: u32,
        offset_z: u32,
    ) -> ZeResult<()> {
        kernel(h_kernel)?.set_offset([offset_x, offset_y, offset_z]);
        Ok(())
    }

    fn ze_kernel_set_indirect_access(
        &self,
        h_kernel: Handle<kinds::Kernel>,
        flags: ze_kernel_indirect_access_flags_t,
    ) -> ZeResult<()> {
        kernel(h_kernel)?.set_indirect_access(flags);
        Ok(())
    }

    fn ze_kernel_get_indirect_access(
        &self,
        h_kernel: Handle<kinds::Kernel>,
        p_flags: &mut ze_kernel_indirect_access_flags_t,
    ) -> ZeResult<()> {
        *p_flags = kernel(h_kernel)?.indirect_access();
        Ok(())
    }

    fn ze_kernel_set_cache_config(
        &self,
        h_kernel: Handle<kinds::Kernel>,
        _flags: ze_cache_config_flags_t,
    ) -> ZeResult<()> {
        // A hint; the CPU's caches are what they are.
        kernel(h_kernel).map(|_| ())
    }

    fn ze_kernel_get_properties(
        &self,
        h_kernel: Handle<kinds::Kernel>,
        p: &mut ze_kernel_properties_t,
    ) -> ZeResult<()> {
        let k = kernel(h_kernel)?;
        let info = k.info();
        let [x, y, z] = info.reqd_work_group_size.unwrap_or([0, 0, 0]);
        p.numKernelArgs = info.args.len() as u32;
        (
            p.requiredGroupSizeX,
            p.requiredGroupSizeY,
            p.requiredGroupSizeZ,
        ) = (x, y, z);
        p.requiredNumSubGroups = 0;
        p.requiredSubgroupSize = info.reqd_sub_group_size.unwrap_or(0);
        // Sub-groups are that many consecutive work-items of the group (zekit-spirv).
        p.maxSubgroupSize = info.sub_group_size();
        p.maxNumSubgroups = props::MAX_GROUP_SIZE.div_ceil(info.sub_group_size());
        p.localMemSize = info.local_static_size;
        p.privateMemSize = info.private_size;
        p.spillMemSize = 0;
        p.uuid = ze_kernel_uuid_t {
            kid: [0; 16],
            mid: [0; 16],
        };
        use chain::ZeKernelPropertiesNextMut as N;
        // SAFETY: the application's pNext chain of output structures, ours for this call.
        for ext in unsafe { chain::next_of_ze_kernel_properties_t_mut(p.pNext) } {
            match ext {
                N::KernelPreferredGroupSizeProperties(e) => {
                    e.preferredMultiple = k.preferred_multiple()
                }
                N::KernelMaxGroupSizePropertiesExt(e) => e.maxGroupSize = k.max_group_size(),
                N::Unknown(_) => {}
            }
        }
        Ok(())
    }

    fn ze_kernel_get_source_attributes(
        &self,
        h_kernel: Handle<kinds::Kernel>,
        p_size: &mut u32,
        p_string: Option<&mut *mut c_char>,
    ) -> ZeResult<()> {
        let text = kernel(h_kernel)?.source_attributes();
        // `char** pString`: the application's own buffer pointer, passed by address; a null
        // one (or a null `*pString`) only asks the size.
        let out = p_string.map_or(std::ptr::null_mut(), |p| *p);
        let mut size = *p_size as usize;
        // SAFETY: the application provides `*p_size` writable bytes at a non-null `*pString`.
        unsafe { zekit_icd_rt::conv::copy_c_string(&text, &mut size, out) };
        *p_size = size as u32;
        Ok(())
    }

    fn ze_kernel_get_binary_exp(
        &self,
        h_kernel: Handle<kinds::Kernel>,
        p_size: &mut usize,
        p_kernel_binary: Option<&mut [u8]>,
    ) -> ZeResult<()> {
        let k = kernel(h_kernel)?;
        let code = k.binary()?;
        // A null buffer or `*pSize == 0` asks the size.
        match p_kernel_binary {
            Some(out) if !out.is_empty() => {
                if out.len() < code.len() {
                    return Err(zekit_icd_rt::fail(
                        ZeError::INVALID_SIZE,
                        format_args!(
                            "*pSize is {}, the binary of kernel `{}` takes {} bytes",
                            out.len(),
                            k.info().name,
                            code.len()
                        ),
                    ));
                }
                out[..code.len()].copy_from_slice(code);
                *p_size = code.len();
            }
            _ => *p_size = code.len(),
        }
        Ok(())
    }

    fn ze_kernel_get_allocation_properties_exp(
        &self,
        h_kernel: Handle<kinds::Kernel>,
        p_count: &mut u32,
        p_allocation_properties: Option<&mut [ze_kernel_allocation_exp_properties_t]>,
    ) -> ZeResult<()> {
        let k = kernel(h_kernel)?;
        // The allocations of the buffer arguments (pointers outside every allocation of the
        // context are left out); no driver-internal ones: the program's data is not an
        // allocation.
        let mut found = Vec::new();
        if let Ok(ctx) = super::context(k.context) {
            for (index, ptr) in k.buffer_args() {
                let p = ptr as usize as *const u8;
                if let Ok((base, size)) = ctx.address_range(p) {
                    let ty = ctx.alloc_properties(p, self.host.page_size).memory_type;
                    found.push((index, base as u64, size, ty));
                }
            }
        }
        zekit_icd_rt::conv::fill_counted(&found, p_count, p_allocation_properties, |a, d| {
            (d.argIndex, d.base, d.size, d.r#type) = *a;
        });
        Ok(())
    }

    fn ze_kernel_scheduling_hint_exp(
        &self,
        h_kernel: Handle<kinds::Kernel>,
        p_hint: &ze_scheduling_hint_exp_desc_t,
    ) -> ZeResult<()> {
        kernel(h_kernel)?.set_scheduling_hint(p_hint.flags)
    }

    // The trait passes the application's output pointer as it is (the spec's contract).
    #[allow(clippy::not_unsafe_ptr_arg_deref)]
    fn ze_kernel_get_name(
        &self,
        h_kernel: Handle<kinds::Kernel>,
        p_size: &mut usize,
        p_name: *mut c_char,
    ) -> ZeResult<()> {
        let k = kernel(h_kernel)?;
        // SAFETY: the application provides `*p_size` writable bytes at a non-null `p_name`.
        unsafe { zekit_icd_rt::conv::copy_c_string(&k.name, p_size, p_name) };
        Ok(())
    }
}
