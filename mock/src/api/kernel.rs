//! `KernelApi`: kernels of modules, their group size and arguments, checked against the
//! argument layout `zekit-spirv` read; and the launches made of them ([`KernelCore::launch`],
//! appended by `api/command_list.rs`, run by the engine, see [`crate::kernels`]).
//!
//! | topic | behaviour |
//! |---|---|
//! | `zeKernelCreate` | by name (`INVALID_KERNEL_NAME` when the module has none); group size: the required one (`reqd_work_group_size`), else 1×1×1 |
//! | `zeKernelSetGroupSize` | each size 1 to the profile's `maxGroupSize{X,Y,Z}`, their product at most `maxTotalGroupSize`; a kernel with a required size takes only that one; else `INVALID_GROUP_SIZE_DIMENSION` |
//! | `zeKernelSuggestGroupSize` | the required size if any; else, per dimension, the largest divisor of the global size that keeps the product at most 256 (and `maxTotalGroupSize`), x first |
//! | `zeKernelSetArgumentValue` | index beyond the arguments: `INVALID_KERNEL_ARGUMENT_INDEX`; pointers: 8 bytes (a null value pointer sets a null pointer); values: exactly their size (null: `INVALID_NULL_POINTER`); local memory: its size with a null value (a value: `INVALID_ARGUMENT`), at most `maxSharedLocalMemory` in all; other sizes: `INVALID_KERNEL_ARGUMENT_SIZE` |
//! | indirect access, cache config, global offset | recorded (`zeKernelGetIndirectAccess` reads the flags back) |
//! | launches | each copies the arguments, group size and offset as they are when appended; an argument never set: `INVALID_ARGUMENT` at the append |

use std::collections::HashMap;
use std::ffi::{c_char, c_void, CString};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use zekit_icd::{kinds, Handle, KernelApi, ZeError, ZeResult};
use zekit_icd_rt::fail;
use zekit_rules::args::{ArgValue, LocalBudget};
use zekit_spirv::ArgKind;
use zekit_sys::*;

use super::MockDriver;
use crate::kernels::{KernelArg, KernelLaunch};
use crate::objects::*;
use crate::script::script;

/// Live kernels by handle address, for the call log (see [`launch_log_args`]): looked up
/// without touching the handle registry, so a bad handle records no reason there.
fn registry() -> &'static Mutex<HashMap<usize, Weak<KernelCore>>> {
    static R: OnceLock<Mutex<HashMap<usize, Weak<KernelCore>>>> = OnceLock::new();
    R.get_or_init(Default::default)
}

/// A kernel's uuid, never zeros: `kid` is "zekitknl" and the FNV-1a hash of its name, `mid`
/// "zekitmod" and the hash again (the mock does not tell modules apart by uuid).
fn kernel_uuid(name: &[u8]) -> ze_kernel_uuid_t {
    let hash = name.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    let mut kid = [0u8; 16];
    kid[..8].copy_from_slice(b"zekitknl");
    kid[8..].copy_from_slice(&hash.to_le_bytes());
    let mut mid = kid;
    mid[..8].copy_from_slice(b"zekitmod");
    ze_kernel_uuid_t { kid, mid }
}

fn kernel(h: Handle<kinds::Kernel>) -> ZeResult<Arc<KernelCore>> {
    h.get::<KernelObj>().map(|k| k.core.clone())
}

/// What the call log adds to a launch call whose `hKernel` renders as `handle`: `kernel`,
/// `groupSize`, `globalOffset` and `arg0`, `arg1`, ... (see [`KernelArg`]'s `Display`; `unset`
/// for an argument never set). Nothing for an unknown handle.
pub(crate) fn launch_log_args(handle: &str) -> Vec<(String, String)> {
    let Some(addr) = crate::script::parse_u64(handle) else {
        return Vec::new();
    };
    let core = lock(registry())
        .get(&(addr as usize))
        .and_then(Weak::upgrade);
    let Some(k) = core else {
        return Vec::new();
    };
    let st = lock(&k.state);
    let tri = |v: [u32; 3]| format!("[{}, {}, {}]", v[0], v[1], v[2]);
    let mut out = vec![
        ("kernel".to_string(), k.info.name.clone()),
        ("groupSize".to_string(), tri(st.group_size)),
        ("globalOffset".to_string(), tri(st.offset)),
    ];
    for (i, a) in st.args.iter().enumerate() {
        let v = a.as_ref().map_or("unset".to_string(), |a| a.to_string());
        out.push((format!("arg{i}"), v));
    }
    out
}

impl KernelCore {
    /// A launch of this kernel as it is now, appended by `function` with these group counts.
    pub(crate) fn launch(
        &self,
        function: &'static str,
        group_count: [u32; 3],
    ) -> ZeResult<KernelLaunch> {
        let st = lock(&self.state);
        if let Some(i) = st.args.iter().position(Option::is_none) {
            return Err(fail(
                ZeError::INVALID_ARGUMENT,
                format_args!("argument {i} of kernel `{}` was never set", self.info.name),
            ));
        }
        Ok(KernelLaunch {
            kernel: self.info.name.clone(),
            group_count,
            group_size: st.group_size,
            global_offset: st.offset,
            args: st.args.iter().flatten().cloned().collect(),
            function,
        })
    }
}

/// The kernel behind `h`, for the launch appends.
pub(crate) fn kernel_core(h: Handle<kinds::Kernel>) -> ZeResult<Arc<KernelCore>> {
    kernel(h)
}

#[zekit_icd::implement]
#[allow(clippy::too_many_arguments)]
impl KernelApi for MockDriver {
    fn ze_kernel_create(
        &self,
        h_module: Handle<kinds::Module>,
        desc: &ze_kernel_desc_t,
        ph_kernel: &mut Option<Handle<kinds::Kernel>>,
    ) -> ZeResult<()> {
        let m = h_module.get::<ModuleObj>()?;
        if desc.pKernelName.is_null() {
            return Err(fail(
                ZeError::INVALID_NULL_POINTER,
                "desc->pKernelName is null",
            ));
        }
        // SAFETY: a NUL-terminated string of the application.
        let name = unsafe { std::ffi::CStr::from_ptr(desc.pKernelName) }.to_string_lossy();
        let Some(info) = m.kernels.iter().find(|k| k.name == name) else {
            return Err(fail(
                ZeError::of(ZE_RESULT_ERROR_INVALID_KERNEL_NAME),
                format_args!("the module has no kernel `{name}`"),
            ));
        };
        let core = Arc::new(KernelCore {
            name: CString::new(info.name.clone()).unwrap_or_default(),
            info: info.clone(),
            state: Mutex::new(KernelState {
                group_size: info.reqd_work_group_size.unwrap_or([1, 1, 1]),
                offset: [0; 3],
                args: vec![None; info.args.len()],
                indirect: ze_kernel_indirect_access_flags_t::empty(),
                cache: ze_cache_config_flags_t::empty(),
            }),
        });
        let h = Handle::new(KernelObj { core: core.clone() });
        let mut r = lock(registry());
        r.retain(|_, k| k.strong_count() > 0);
        r.insert(h.raw() as usize, Arc::downgrade(&core));
        *ph_kernel = Some(h);
        Ok(())
    }

    /// Launches already appended keep their copy of the arguments.
    fn ze_kernel_destroy(&self, h_kernel: Handle<kinds::Kernel>) -> ZeResult<()> {
        kernel(h_kernel).map(|_| ())
    }

    fn ze_kernel_set_group_size(
        &self,
        h_kernel: Handle<kinds::Kernel>,
        group_size_x: u32,
        group_size_y: u32,
        group_size_z: u32,
    ) -> ZeResult<()> {
        let k = kernel(h_kernel)?;
        let size = [group_size_x, group_size_y, group_size_z];
        zekit_rules::group::check(&k.info.name, k.info.reqd_work_group_size, size, &limits())
            ?;
        lock(&k.state).group_size = size;
        Ok(())
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
        let k = kernel(h_kernel)?;
        let global = [global_size_x, global_size_y, global_size_z];
        let [x, y, z] = zekit_rules::group::suggest(k.info.reqd_work_group_size, global, &limits());
        (*group_size_x, *group_size_y, *group_size_z) = (x, y, z);
        Ok(())
    }

    fn ze_kernel_suggest_max_cooperative_group_count(
        &self,
        h_kernel: Handle<kinds::Kernel>,
        total_group_count: &mut u32,
    ) -> ZeResult<()> {
        kernel(h_kernel)?;
        // One group per EU of the profile's device.
        let d = script().profile().device.clone();
        *total_group_count =
            (d.num_slices * d.num_subslices_per_slice * d.num_eus_per_subslice).max(1);
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
        let info = &k.info;
        let name = &info.name;
        let i = arg_index as usize;
        let value = if p_arg_value.is_null() {
            None
        } else {
            // SAFETY: the application passes `arg_size` readable bytes at `p_arg_value`
            // (sizes are checked against the layout before this slice is read).
            Some(unsafe { std::slice::from_raw_parts(p_arg_value.cast::<u8>(), arg_size) })
        };
        let mut st = lock(&k.state);
        let others = st
            .args
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i)
            .map(|(_, a)| match a {
                Some(KernelArg::Local(n)) => *n,
                _ => 0,
            })
            .sum();
        let budget = LocalBudget {
            max: limits().max_shared_local_memory,
            others,
            note: " (maxSharedLocalMemory)",
        };
        let strict = zekit_icd_rt::strict();
        let checked = zekit_rules::args::check(info, arg_index, arg_size, value, budget, strict)
            ?;
        let arg = match checked {
            ArgValue::Local(n) => KernelArg::Local(n),
            ArgValue::Pointer(p) => KernelArg::Pointer(p),
            // A non-null handle is recorded as it is: launches do not read texels (image.rs).
            ArgValue::Handle(0) => {
                let what = if info.args[i].kind == ArgKind::Image {
                    "an image"
                } else {
                    "a sampler"
                };
                return Err(fail(
                    ZeError::of(ZE_RESULT_ERROR_INVALID_NULL_HANDLE),
                    format_args!(
                        "argument {arg_index} of kernel `{name}` takes {what} handle: it is null"
                    ),
                ));
            }
            ArgValue::Handle(h) => KernelArg::Handle(h),
            ArgValue::Bytes(v) => KernelArg::Value(v.to_vec()),
            ArgValue::Zero => KernelArg::Value(vec![0; info.args[i].size as usize]),
        };
        st.args[i] = Some(arg);
        Ok(())
    }

    fn ze_kernel_set_global_offset_exp(
        &self,
        h_kernel: Handle<kinds::Kernel>,
        offset_x: u32,
        offset_y: u32,
        offset_z: u32,
    ) -> ZeResult<()> {
        lock(&kernel(h_kernel)?.state).offset = [offset_x, offset_y, offset_z];
        Ok(())
    }

    fn ze_kernel_set_indirect_access(
        &self,
        h_kernel: Handle<kinds::Kernel>,
        flags: ze_kernel_indirect_access_flags_t,
    ) -> ZeResult<()> {
        lock(&kernel(h_kernel)?.state).indirect = flags;
        Ok(())
    }

    fn ze_kernel_get_indirect_access(
        &self,
        h_kernel: Handle<kinds::Kernel>,
        p_flags: &mut ze_kernel_indirect_access_flags_t,
    ) -> ZeResult<()> {
        *p_flags = lock(&kernel(h_kernel)?.state).indirect;
        Ok(())
    }

    fn ze_kernel_set_cache_config(
        &self,
        h_kernel: Handle<kinds::Kernel>,
        flags: ze_cache_config_flags_t,
    ) -> ZeResult<()> {
        lock(&kernel(h_kernel)?.state).cache = flags;
        Ok(())
    }

    fn ze_kernel_get_properties(
        &self,
        h_kernel: Handle<kinds::Kernel>,
        p: &mut ze_kernel_properties_t,
    ) -> ZeResult<()> {
        let k = kernel(h_kernel)?;
        let info = &k.info;
        let c = script().profile().compute.clone();
        let [x, y, z] = info.reqd_work_group_size.unwrap_or([0, 0, 0]);
        p.numKernelArgs = info.args.len() as u32;
        (
            p.requiredGroupSizeX,
            p.requiredGroupSizeY,
            p.requiredGroupSizeZ,
        ) = (x, y, z);
        p.requiredNumSubGroups = 0;
        p.requiredSubgroupSize = 0;
        p.maxSubgroupSize = c.sub_group_sizes.iter().copied().max().unwrap_or(1).max(1);
        p.maxNumSubgroups = c.max_total_group_size / p.maxSubgroupSize;
        p.localMemSize = info.local_static_size;
        p.privateMemSize = info.private_size;
        p.spillMemSize = 0;
        p.uuid = kernel_uuid(k.name.as_bytes());
        Ok(())
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
