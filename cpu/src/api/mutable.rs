//! The mutable command list functions of CommandListApi (`ZE_experimental_mutable_command_list`,
//! see `crate::model::mutable`): the trait methods in `command_list.rs` call these (one impl
//! block per trait).

use super::*;
use crate::model::event::ListKind;
use crate::model::kernel::KernelObject;
use crate::model::mutable::Change;

/// The flags of a `ze_mutable_command_list_exp_desc_t` chained to a list description, if any.
pub(super) fn mutable_flags(desc: &ze_command_list_desc_t) -> Option<ze_mutable_command_list_exp_flags_t> {
    use chain::ZeCommandListDescNext as N;
    // SAFETY: the application's descriptor chain, read-only for this call.
    unsafe { chain::next_of_ze_command_list_desc_t(desc.pNext) }.find_map(|e| match e {
        N::MutableCommandListExpDesc(m) => Some(m.flags),
        N::Unknown(_) => None,
    })
}

pub(super) fn is_mutable(h: Handle<kinds::CommandList>, out: &mut ze_bool_t) -> ZeResult<()> {
    *out = ze_bool_t::from(list(h)?.is_mutable());
    Ok(())
}

pub(super) fn next_command_id(
    h: Handle<kinds::CommandList>,
    desc: &ze_mutable_command_id_exp_desc_t,
    kernels: &[Handle<kinds::Kernel>],
    out: &mut u64,
) -> ZeResult<()> {
    let objects = kernels
        .iter()
        .map(|&k| super::kernel::kernel(k))
        .collect::<ZeResult<Vec<Obj<KernelObject>>>>()?;
    let pairs: Vec<_> = kernels.iter().copied().zip(objects.iter().map(|o| &**o)).collect();
    *out = list(h)?.next_command_id(desc.flags, &pairs)?;
    Ok(())
}

/// `zeCommandListUpdateMutableCommandsExp`: the chain's changes, in order.
pub(super) fn update_commands(h: Handle<kinds::CommandList>, desc: &ze_mutable_commands_exp_desc_t) -> ZeResult<()> {
    let l = list(h)?;
    if desc.flags != 0 {
        return Err(zekit_icd_rt::fail(
            ZeError::INVALID_ENUMERATION,
            format!("ze_mutable_commands_exp_desc_t flags {:#x}: reserved, must be 0", desc.flags),
        ));
    }
    let mut changes = Vec::new();
    // SAFETY: the application's chain of structures, each starting with stype and pNext (the
    // generated validation walked it); read-only for this call.
    let mut links = unsafe { chain::Links::new(desc.pNext) };
    for link in links.by_ref() {
        let p = link.ptr.cast_const();
        changes.push(match ze_structure_type_t(link.stype) {
            ZE_STRUCTURE_TYPE_MUTABLE_KERNEL_ARGUMENT_EXP_DESC => {
                // SAFETY: a structure of the type its stype names.
                let a = unsafe { &*p.cast::<ze_mutable_kernel_argument_exp_desc_t>() };
                let value = (!a.pArgValue.is_null()).then(|| {
                    // SAFETY: the application gives `argSize` bytes at `pArgValue`.
                    unsafe { std::slice::from_raw_parts(a.pArgValue.cast::<u8>(), a.argSize) }.to_vec()
                });
                Change::Argument {
                    id: a.commandId,
                    index: a.argIndex,
                    size: a.argSize,
                    value,
                }
            }
            ZE_STRUCTURE_TYPE_MUTABLE_GROUP_COUNT_EXP_DESC => {
                // SAFETY: as above.
                let g = unsafe { &*p.cast::<ze_mutable_group_count_exp_desc_t>() };
                if g.pGroupCount.is_null() {
                    return Err(null_pointer(&format!("pGroupCount of the change to command {}", g.commandId)));
                }
                // SAFETY: a non-null pointer to the application's group count.
                let c = unsafe { &*g.pGroupCount };
                Change::GroupCount(g.commandId, [c.groupCountX, c.groupCountY, c.groupCountZ])
            }
            ZE_STRUCTURE_TYPE_MUTABLE_GROUP_SIZE_EXP_DESC => {
                // SAFETY: as above.
                let g = unsafe { &*p.cast::<ze_mutable_group_size_exp_desc_t>() };
                Change::GroupSize(g.commandId, [g.groupSizeX, g.groupSizeY, g.groupSizeZ])
            }
            ZE_STRUCTURE_TYPE_MUTABLE_GLOBAL_OFFSET_EXP_DESC => {
                // SAFETY: as above.
                let g = unsafe { &*p.cast::<ze_mutable_global_offset_exp_desc_t>() };
                Change::GlobalOffset(g.commandId, [g.offsetX, g.offsetY, g.offsetZ])
            }
            other => {
                return Err(zekit_icd_rt::fail(
                    ZeError::UNSUPPORTED_FEATURE,
                    format!(
                        "zeCommandListUpdateMutableCommandsExp changes kernel arguments, group counts, group sizes and global offsets, not structure type {:#x}",
                        other.0
                    ),
                ))
            }
        });
    }
    if links.truncated() {
        return Err(zekit_icd_rt::fail(ZeError::INVALID_ARGUMENT, "the pNext chain is longer than 64 structures (a cycle?)"));
    }
    l.update_commands(&changes)
}

pub(super) fn update_signal(
    h: Handle<kinds::CommandList>,
    id: u64,
    signal: Option<Handle<kinds::Event>>,
) -> ZeResult<()> {
    let l = list(h)?;
    let signal = match signal {
        Some(e) => Some(event(e)?.for_list(ListKind::Regular)?),
        None => None,
    };
    l.update_signal(id, signal)
}

pub(super) fn update_waits(h: Handle<kinds::CommandList>, id: u64, num: u32, waits: &[Handle<kinds::Event>]) -> ZeResult<()> {
    let l = list(h)?;
    if waits.len() != num as usize {
        return Err(null_pointer(&format!("phWaitEvents (with numWaitEvents {num})")));
    }
    let waits = waits
        .iter()
        .map(|&e| event(e)?.for_list(ListKind::Regular))
        .collect::<ZeResult<Vec<_>>>()?;
    l.update_waits(id, waits)
}

pub(super) fn update_kernels(
    h: Handle<kinds::CommandList>,
    ids: &[u64],
    kernels: &[Handle<kinds::Kernel>],
) -> ZeResult<()> {
    let l = list(h)?;
    let objects = kernels
        .iter()
        .map(|&k| super::kernel::kernel(k))
        .collect::<ZeResult<Vec<Obj<KernelObject>>>>()?;
    let switches: Vec<_> = ids
        .iter()
        .zip(kernels)
        .zip(&objects)
        .map(|((&id, &h), o)| (id, h, &**o))
        .collect();
    l.update_kernels(&switches)
}
