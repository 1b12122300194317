//! Kernels: a module's kernel with its group size and arguments, and the launches made of it.
//!
//! | topic | behaviour |
//! |---|---|
//! | `zeKernelCreate` | by name (`INVALID_KERNEL_NAME` when the module has none); group size: the required one (`reqd_work_group_size`), else 1×1×1 |
//! | `zeKernelSetGroupSize` | each size at least 1, each and their product at most 1024 (`maxTotalGroupSize`); a kernel with a required size takes only that one: else `INVALID_GROUP_SIZE_DIMENSION` (the shared rules, `zekit_rules::group`, as for the mock) |
//! | `zeKernelSuggestGroupSize` | the required size if any; else, per dimension, the largest divisor of the global size that keeps the product at most 256 (x first) |
//! | `zeKernelSetArgumentValue` (`zekit_rules::args`) | index beyond the arguments: `INVALID_KERNEL_ARGUMENT_INDEX`; buffers: 8 bytes (a null value pointer sets a null buffer); scalars and structs by value: exactly their size; local memory: the size in bytes with a null value (a value: `INVALID_ARGUMENT`), at most 64 KiB in all; other sizes: `INVALID_KERNEL_ARGUMENT_SIZE` |
//! | image and sampler arguments | the value is a `ze_image_handle_t` / `ze_sampler_handle_t` (8 bytes; other sizes `INVALID_KERNEL_ARGUMENT_SIZE`); a null handle `INVALID_NULL_HANDLE`; a handle of another kind or not live `INVALID_ARGUMENT`; the argument block receives the image's or sampler's descriptor ([`zekit_spirv::image`]), and each launch keeps the images' storage alive until it has run |
//! | `zeKernelGetProperties` chains | `ze_kernel_preferred_group_size_properties_t`: the kernel's sub-group size, 8 or 16 (sub-groups are that many consecutive work-items; lockstep kernels run 4 work-items of a row per turn); `ze_kernel_max_group_size_properties_ext_t`: the required size's product, else 1024, less when barriers make the group's private memory pass 64 MiB |
//! | `zeKernelGetSourceAttributes` | `reqd_work_group_size(x,y,z) work_group_size_hint(x,y,z) vec_type_hint(T)`, those the kernel has, in that order, space-separated; empty when none. A null `pString` or a null `*pString` asks the size (with the NUL); else at most `*pSize` bytes, always NUL-terminated. `vec_type_hint(uint)` reads back as `int` (SPIR-V keeps no signedness) |
//! | `zeKernelGetBinaryExp` | the kernel's own machine code, unrelocated (absolute addresses zero), the bytes a native binary saves for it; `*pSize == 0` asks the size; a smaller `*pSize`: `INVALID_SIZE`; a module whose code a native binary cannot hold: `UNSUPPORTED_FEATURE`, one log line |
//! | `zeKernelSchedulingHintExp` | OLDEST_FIRST, ROUND_ROBIN, STALL_BASED_ROUND_ROBIN (any combination) recorded and otherwise ignored: the CPU's threads have no arbitration to change, so `ze_scheduling_hint_exp_properties_t` reports none supported; other bits `INVALID_ENUMERATION`, one log line |
//! | `zeKernelGetAllocationPropertiesExp` | the allocations of the buffer arguments set to a pointer inside an allocation of the module's context (base, size, type, argument index), in argument order; none driver-internal (the program's data is not an allocation) |
//! | launches | each launch copies the arguments and group size as they are when it is appended; an argument never set: `INVALID_ARGUMENT` at the append; a kernel with barriers whose private memory times the group size exceeds 64 MiB, or more local memory than `maxSharedLocalMemory` (64 KiB, static variables included): `OUT_OF_DEVICE_MEMORY` |
//! | launches of mutable command lists | a [`Snapshot`] of the launch's state, changed by the rules above (`zeKernelSetArgumentValue`, `zeKernelSetGroupSize`) and checked as an append when rebuilt (see [`super::mutable`]); the kernel object itself is not changed |

use std::ffi::{c_void, CString};
use std::sync::{Arc, Mutex};

use zekit_icd::kinds;
use zekit_icd_rt::Handle;
use zekit_rules::args::{ArgValue, LocalBudget};
use zekit_spirv::{ArgKind, KernelInfo, Program};
use zekit_sys::*;

use super::image_objects::{ImageObject, SamplerObject, Storage};

use super::objects::{ZeError, ZeResult};
use super::properties::{LIMITS, MAX_GROUP_SIZE, MAX_SHARED_LOCAL_MEMORY};
use crate::exec::{Groups, Launch};

/// Value of a kernel handle.
#[derive(Debug)]
pub struct KernelObject {
    program: Arc<Program>,
    index: usize,
    /// Its name.
    pub name: CString,
    /// The context of its module (where its buffer arguments' allocations are looked up).
    pub context: Handle<kinds::Context>,
    state: Mutex<State>,
}

#[derive(Debug, Clone)]
struct State {
    group_size: [u32; 3],
    args: Vec<u64>,
    local_sizes: Vec<usize>,
    set: Vec<bool>,
    /// The storage of each image argument.
    images: Vec<Option<Arc<Storage>>>,
    offset: [u32; 3],
    indirect: ze_kernel_indirect_access_flags_t,
    /// The last `zeKernelSchedulingHintExp` flags (recorded only).
    hint: ze_scheduling_hint_exp_flags_t,
}

/// Most private memory (variables and values kept across barriers) one work-group may need;
/// each of the launch's pieces allocates that much.
pub const MAX_PRIVATE_PER_GROUP: u64 = 64 << 20;

impl KernelObject {
    /// Kernel `index` of `program`, of a module of `context`.
    pub fn new(
        program: Arc<Program>,
        index: usize,
        context: Handle<kinds::Context>,
    ) -> KernelObject {
        let info = &program.kernels[index].info;
        let n = info.args.len();
        let state = State {
            group_size: info.reqd_work_group_size.unwrap_or([1, 1, 1]),
            args: vec![0; (info.args_size as usize).div_ceil(8)],
            local_sizes: vec![0; n],
            set: vec![false; n],
            images: vec![None; n],
            offset: [0; 3],
            indirect: ze_kernel_indirect_access_flags_t::empty(),
            hint: ze_scheduling_hint_exp_flags_t::empty(),
        };
        KernelObject {
            name: CString::new(info.name.clone()).unwrap_or_default(),
            program,
            index,
            context,
            state: Mutex::new(state),
        }
    }

    /// What the compiler reports.
    pub fn info(&self) -> &KernelInfo {
        &self.program.kernels[self.index].info
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `zeKernelSetGroupSize`.
    pub fn set_group_size(&self, size: [u32; 3]) -> ZeResult<()> {
        self.check_group_size(size)?;
        self.state().group_size = size;
        Ok(())
    }

    fn check_group_size(&self, size: [u32; 3]) -> ZeResult<()> {
        check_group_size(self.info(), size)
    }

    /// `zeKernelSuggestGroupSize`.
    pub fn suggest_group_size(&self, global: [u32; 3]) -> [u32; 3] {
        zekit_rules::group::suggest(self.info().reqd_work_group_size, global, &LIMITS)
    }

    /// `zeKernelSetGlobalOffsetExp`.
    pub fn set_offset(&self, offset: [u32; 3]) {
        self.state().offset = offset;
    }

    /// `zeKernelSetIndirectAccess` (recorded: all memory is reachable anyway).
    pub fn set_indirect_access(&self, flags: ze_kernel_indirect_access_flags_t) {
        self.state().indirect = flags;
    }

    /// `zeKernelGetIndirectAccess`.
    pub fn indirect_access(&self) -> ze_kernel_indirect_access_flags_t {
        self.state().indirect
    }

    /// `zeKernelGetSourceAttributes`: the kernel's attributes as OpenCL C writes them,
    /// space-separated (`reqd_work_group_size(8,1,1) work_group_size_hint(16,1,1)
    /// vec_type_hint(float4)`), empty when it has none.
    pub fn source_attributes(&self) -> CString {
        let info = self.info();
        let size = |name: &str, s: [u32; 3]| format!("{name}({},{},{})", s[0], s[1], s[2]);
        let parts: Vec<String> = [
            info.reqd_work_group_size
                .map(|s| size("reqd_work_group_size", s)),
            info.work_group_size_hint
                .map(|s| size("work_group_size_hint", s)),
            info.vec_type_hint
                .as_ref()
                .map(|t| format!("vec_type_hint({t})")),
        ]
        .into_iter()
        .flatten()
        .collect();
        CString::new(parts.join(" ")).unwrap_or_default()
    }

    /// `ze_kernel_preferred_group_size_properties_t`: the kernel's sub-group size (8 unless
    /// it requires 16). Sub-groups are that many consecutive work-items, and lockstep kernels
    /// run four consecutive work-items of a row per turn, so groups of a multiple of it leave
    /// neither partial.
    pub fn preferred_multiple(&self) -> u32 {
        self.info().sub_group_size()
    }

    /// `ze_kernel_max_group_size_properties_ext_t`: the largest group this kernel launches
    /// with: its required size if any, else 1024, less for a kernel with barriers whose
    /// private memory per work-item would exceed [`MAX_PRIVATE_PER_GROUP`] per group.
    pub fn max_group_size(&self) -> u32 {
        let info = self.info();
        if let Some(r) = info.reqd_work_group_size {
            return r.iter().product();
        }
        if info.barriers && info.private_size > 0 {
            let fit = MAX_PRIVATE_PER_GROUP / u64::from(info.private_size);
            return fit.min(u64::from(MAX_GROUP_SIZE)) as u32;
        }
        MAX_GROUP_SIZE
    }

    /// `zeKernelGetBinaryExp`: the kernel's own machine code, as generated (before relocation:
    /// the absolute addresses it names are zero).
    pub fn binary(&self) -> ZeResult<&[u8]> {
        self.program.kernel_code(self.index).ok_or_else(|| {
            ZeError::new(
                ze_result_t::ERROR_UNSUPPORTED_FEATURE,
                format!(
                    "kernel `{}` has no binary of its own: its module's code refers to something a saved image cannot name",
                    self.info().name
                ),
            )
        })
    }

    /// The buffer arguments set to a non-null pointer: (argument index, pointer), in order.
    pub fn buffer_args(&self) -> Vec<(u32, u64)> {
        let st = self.state();
        self.info()
            .args
            .iter()
            .enumerate()
            .filter(|(i, a)| a.kind == ArgKind::Buffer && st.set[*i])
            .map(|(i, a)| (i as u32, st.args[a.offset as usize / 8]))
            .filter(|(_, p)| *p != 0)
            .collect()
    }

    /// `zeKernelSchedulingHintExp`: flags beyond OLDEST_FIRST, ROUND_ROBIN and
    /// STALL_BASED_ROUND_ROBIN are `INVALID_ENUMERATION`; valid ones are recorded (the CPU's
    /// threads have no arbitration policy to change).
    pub fn set_scheduling_hint(&self, flags: ze_scheduling_hint_exp_flags_t) -> ZeResult<()> {
        type F = ze_scheduling_hint_exp_flags_t;
        let known = F::OLDEST_FIRST.0 | F::ROUND_ROBIN.0 | F::STALL_BASED_ROUND_ROBIN.0;
        if flags.0 & !known != 0 {
            return Err(ZeError::new(
                ze_result_t::ERROR_INVALID_ENUMERATION,
                format!(
                    "scheduling hint flags {:#x}: only OLDEST_FIRST, ROUND_ROBIN and STALL_BASED_ROUND_ROBIN ({known:#x}) exist",
                    flags.0
                ),
            ));
        }
        self.state().hint = flags;
        Ok(())
    }

    /// The last scheduling hint set (`zeKernelSchedulingHintExp`).
    pub fn scheduling_hint(&self) -> ze_scheduling_hint_exp_flags_t {
        self.state().hint
    }

    /// `zeKernelSetArgumentValue`: `value` is the `size` bytes the application points to, or
    /// `None` for a null pointer.
    pub fn set_arg(&self, index: u32, size: usize, value: Option<&[u8]>) -> ZeResult<()> {
        let mut st = self.state();
        set_arg_in(self.info(), &mut st, index, size, value)
    }

    /// A launch of this kernel as it is now.
    pub fn launch(&self, groups: Groups) -> ZeResult<Launch> {
        let st = self.state();
        self.launch_of(&st, groups)
    }

    /// `zeCommandListAppendLaunchKernelWithArguments`: sets the group size and every argument
    /// (`values[i]`: the size and bytes `zeKernelSetArgumentValue` would take for argument
    /// `i`), then makes a launch. All or nothing: on a failure the kernel is unchanged.
    pub fn launch_with(
        &self,
        group_size: [u32; 3],
        values: &[(usize, Option<Vec<u8>>)],
        groups: Groups,
    ) -> ZeResult<Launch> {
        let info = self.info();
        if values.len() != info.args.len() {
            return Err(ZeError::new(
                ze_result_t::ERROR_INVALID_ARGUMENT,
                format!(
                    "kernel `{}` has {} arguments, {} were given",
                    info.name,
                    info.args.len(),
                    values.len()
                ),
            ));
        }
        self.check_group_size(group_size)?;
        let mut st = self.state();
        let mut next = State {
            group_size,
            args: st.args.clone(),
            local_sizes: st.local_sizes.clone(),
            set: st.set.clone(),
            images: st.images.clone(),
            offset: st.offset,
            indirect: st.indirect,
            hint: st.hint,
        };
        for (i, (size, value)) in values.iter().enumerate() {
            set_arg_in(info, &mut next, i as u32, *size, value.as_deref())?;
        }
        let launch = self.launch_of(&next, groups)?;
        *st = next;
        Ok(launch)
    }

    fn launch_of(&self, st: &State, groups: Groups) -> ZeResult<Launch> {
        launch_of(&self.program, self.index, st, groups)
    }
}

/// A kernel's state as a launch takes it (arguments, group size, offset), of a launch
/// recorded in a mutable command list (`super::mutable`): changed there by the rules of
/// `zeKernelSetArgumentValue` and `zeKernelSetGroupSize`, then made into a new launch.
#[derive(Debug, Clone)]
pub struct Snapshot {
    program: Arc<Program>,
    index: usize,
    st: State,
}

impl Snapshot {
    /// The state `launch` was made of (every argument set).
    pub fn of_launch(launch: &Launch) -> Snapshot {
        let n = launch.local_sizes.len();
        Snapshot {
            program: launch.program.clone(),
            index: launch.kernel,
            st: State {
                group_size: launch.group_size,
                args: launch.args.to_vec(),
                local_sizes: launch.local_sizes.to_vec(),
                set: vec![true; n],
                images: launch.images.to_vec(),
                offset: launch.offset,
                indirect: ze_kernel_indirect_access_flags_t::empty(),
                hint: ze_scheduling_hint_exp_flags_t::empty(),
            },
        }
    }

    /// What the compiler reports of the kernel.
    pub fn info(&self) -> &KernelInfo {
        &self.program.kernels[self.index].info
    }

    /// Whether this is a state of kernel `k` (the same kernel of the same module).
    pub fn is_of(&self, k: &KernelObject) -> bool {
        Arc::ptr_eq(&self.program, &k.program) && self.index == k.index
    }

    /// As `zeKernelSetArgumentValue`.
    pub fn set_arg(&mut self, index: u32, size: usize, value: Option<&[u8]>) -> ZeResult<()> {
        set_arg_in(&self.program.kernels[self.index].info, &mut self.st, index, size, value)
    }

    /// As `zeKernelSetGroupSize`.
    pub fn set_group_size(&mut self, size: [u32; 3]) -> ZeResult<()> {
        check_group_size(self.info(), size)?;
        self.st.group_size = size;
        Ok(())
    }

    /// As `zeKernelSetGlobalOffsetExp`.
    pub fn set_offset(&mut self, offset: [u32; 3]) {
        self.st.offset = offset;
    }

    /// The first argument never given a value, if any.
    pub fn unset(&self) -> Option<usize> {
        self.st.set.iter().position(|s| !s)
    }

    /// A launch of this state, with the checks of an append.
    pub fn launch(&self, groups: Groups) -> ZeResult<Launch> {
        launch_of(&self.program, self.index, &self.st, groups)
    }
}

impl KernelObject {
    /// The kernel's state now (what an append would launch).
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            program: self.program.clone(),
            index: self.index,
            st: self.state().clone(),
        }
    }
}

fn check_group_size(info: &KernelInfo, size: [u32; 3]) -> ZeResult<()> {
    zekit_rules::group::check(&info.name, info.reqd_work_group_size, size, &LIMITS)
}

fn set_arg_in(
    info: &KernelInfo,
    st: &mut State,
    index: u32,
    size: usize,
    value: Option<&[u8]>,
) -> ZeResult<()> {
    let name = &info.name;
    let i = index as usize;
    let others = st
        .local_sizes
        .iter()
        .enumerate()
        .filter(|(j, _)| *j != i)
        .map(|x| *x.1)
        .sum();
    let budget = LocalBudget {
        max: MAX_SHARED_LOCAL_MEMORY as usize,
        others,
        note: "",
    };
    let strict = zekit_icd_rt::strict();
    let checked = zekit_rules::args::check(info, index, size, value, budget, strict)?;
    let a = info.args[i];
    if size > a.size as usize && matches!(checked, ArgValue::Bytes(_) | ArgValue::Zero) {
        zekit_icd_rt::lenient(
            "zeKernelSetArgumentValue",
            &format!("argument {index} of kernel `{name}` set with {size} bytes, takes its first {}", a.size),
        );
    }
    let word = a.offset as usize / 8;
    match checked {
        ArgValue::Local(n) => st.local_sizes[i] = n,
        ArgValue::Pointer(p) => st.args[word] = p,
        ArgValue::Handle(raw) => {
            let image = a.kind == ArgKind::Image;
            let what = if image {
                "an image handle"
            } else {
                "a sampler handle"
            };
            let raw = raw as usize as *mut c_void;
            let refused = |e: ZeError| {
                let why = format!("argument {index} of kernel `{name}` takes {what}: {}", e.reason());
                e.because(why)
            };
            let desc: Vec<u8> = if image {
                let img = Handle::<kinds::Image>::from_raw(raw)
                    .and_then(|h| h.get::<ImageObject>())
                    .map_err(refused)?;
                st.images[i] = Some(img.storage());
                img.kernel_desc().to_bytes().to_vec()
            } else {
                let s = Handle::<kinds::Sampler>::from_raw(raw)
                    .and_then(|h| h.get::<SamplerObject>())
                    .map_err(refused)?;
                st.images[i] = None;
                s.kernel_desc().to_bytes().to_vec()
            };
            for (w, chunk) in st.args[word..].iter_mut().zip(desc.chunks(8)) {
                let mut b = [0u8; 8];
                b[..chunk.len()].copy_from_slice(chunk);
                *w = u64::from_le_bytes(b);
            }
        }
        ArgValue::Bytes(_) | ArgValue::Zero => {
            let zeros = vec![0u8; a.size as usize];
            let src = match checked {
                ArgValue::Bytes(v) => v,
                _ => &zeros,
            };
            // The block's words from this one on, as little-endian bytes.
            for (w, chunk) in st.args[word..].iter_mut().zip(src.chunks(8)) {
                let mut b = w.to_le_bytes();
                b[..chunk.len()].copy_from_slice(chunk);
                *w = u64::from_le_bytes(b);
            }
        }
    }
    st.set[index as usize] = true;
    Ok(())
}

fn launch_of(program: &Arc<Program>, index: usize, st: &State, groups: Groups) -> ZeResult<Launch> {
    let info = &program.kernels[index].info;
    let items: u64 = st.group_size.iter().map(|s| u64::from(*s)).product();
    let per_item = u64::from(info.private_size);
    let private = if info.barriers {
        per_item * items
    } else {
        per_item
    };
    let local = u64::from(info.local_static_size)
        + st.local_sizes.iter().map(|s| *s as u64).sum::<u64>();
    if local > u64::from(MAX_SHARED_LOCAL_MEMORY) {
        return Err(ZeError::new(
            ze_result_t::ERROR_OUT_OF_DEVICE_MEMORY,
            format!(
                "kernel `{}` needs {local} bytes of local memory, more than the device's {MAX_SHARED_LOCAL_MEMORY}",
                info.name
            ),
        ));
    }
    if private > MAX_PRIVATE_PER_GROUP {
        return Err(ZeError::new(
            ze_result_t::ERROR_OUT_OF_DEVICE_MEMORY,
            format!(
                "kernel `{}` needs {private} bytes of private memory per work-group ({per_item} per work-item), more than {MAX_PRIVATE_PER_GROUP}: use smaller groups",
                info.name
            ),
        ));
    }
    if let Some(i) = st.set.iter().position(|s| !s) {
        return Err(ZeError::new(
            ze_result_t::ERROR_INVALID_ARGUMENT,
            format!(
                "argument {i} of kernel `{}` was never set",
                info.name
            ),
        ));
    }
    Ok(Launch {
        program: program.clone(),
        kernel: index,
        args: st.args.clone().into_boxed_slice(),
        local_sizes: st.local_sizes.clone().into_boxed_slice(),
        group_size: st.group_size,
        groups,
        offset: st.offset,
        images: st.images.clone().into_boxed_slice(),
    })
}
