//! One entry point lowered to an [`ir::Kernel`]: its arguments, the call tree inlined from the
//! kernel's function, and the order blocks are lowered in.

use std::collections::HashMap;

use super::{align_up, Builder, Modes, Module, Val};
use crate::ir::{self, BlockId, ConvOp, Op, Term, Ty};
use crate::spv::{deco, op, param_attr, storage, Inst, Type};
use crate::{AddressSpace, ArgInfo, ArgKind, Error, KernelInfo};

pub(super) fn lower_kernel(
    m: &Module,
    libs: &[Module],
    fid: u32,
    name: &str,
    modes: &Modes,
) -> Result<(ir::Kernel, KernelInfo), Error> {
    let f = m
        .funcs
        .get(&fid)
        .ok_or_else(|| Error::invalid("the entry point is not a defined function"))?;
    if m.ty(f.ret)? != &Type::Void {
        return Err(Error::invalid("a kernel must return void"));
    }
    let mut b = Builder {
        m,
        root: m,
        libs,
        k: ir::Kernel {
            name: name.to_string(),
            blocks: Vec::new(),
            types: Vec::new(),
            private_size: 0,
            sub_group_size: modes.sub_group.unwrap_or(ir::SUB_GROUP_SIZE),
        },
        cur: BlockId(0),
        stack: Vec::new(),
        lane: false,
        scratch: 0,
        in_half: false,
        nu_tags: 0,
        slot_widths: Default::default(),
        slot_width_consts: Vec::new(),
    };
    b.cur = b.k.new_block();
    let mut args = Vec::new();
    let mut infos = Vec::new();
    let mut offset = 0u32;
    for (pid, pty) in &f.params {
        let byval = m.decos.get(pid).is_some_and(|d| {
            d.iter()
                .any(|d| d.0 == deco::FUNC_PARAM_ATTR && d.1.first() == Some(&param_attr::BY_VAL))
        });
        let (kind, size, space, align) = match m.ty(*pty)? {
            Type::Int(_) | Type::Float(_) | Type::Vector(..) => {
                let (s, a) = m.layout(*pty)?;
                (
                    ArgKind::Scalar,
                    s as u32,
                    AddressSpace::Private,
                    a.max(8) as u32,
                )
            }
            Type::Pointer(7, p) if byval => {
                let (s, a) = m.layout(*p)?;
                if s > 1 << 16 {
                    return Err(Error::unsupported("by-value arguments larger than 64 KiB"));
                }
                (
                    ArgKind::ByValue,
                    s as u32,
                    AddressSpace::Private,
                    a.max(8) as u32,
                )
            }
            Type::Pointer(4, _) => (ArgKind::Local, 8, AddressSpace::Local, 8),
            Type::Image(_) => (
                ArgKind::Image,
                crate::image::IMAGE_DESC_SIZE,
                AddressSpace::Global,
                8,
            ),
            Type::Sampler => (
                ArgKind::Sampler,
                crate::image::SAMPLER_DESC_SIZE,
                AddressSpace::Private,
                8,
            ),
            Type::Pointer(
                sc @ (storage::UNIFORM_CONSTANT | storage::CROSS_WORKGROUP | storage::GENERIC),
                _,
            ) => {
                let space = match *sc {
                    storage::UNIFORM_CONSTANT => AddressSpace::Constant,
                    storage::CROSS_WORKGROUP => AddressSpace::Global,
                    _ => AddressSpace::Generic,
                };
                (ArgKind::Buffer, 8, space, 8)
            }
            t => {
                return Err(Error::unsupported(format!(
                    "a kernel argument of type {t:?}"
                )))
            }
        };
        offset = align_up(u64::from(offset), u64::from(align)) as u32;
        let addr = b.push(Ty::I64, Op::ArgAddr(offset));
        let v = match kind {
            // Images and samplers: their descriptors' addresses.
            ArgKind::ByValue | ArgKind::Image | ArgKind::Sampler => Val::V(addr),
            _ => {
                // Scalars, pointers and vectors (element after element); a `half` is 2 bytes,
                // carried as the f32 of its value.
                let half = m.is_half(*pty);
                let mut vs = Vec::new();
                for (k, t) in b.value_types(*pty)?.into_iter().enumerate() {
                    let size = if half { 2 } else { t.bytes() };
                    let a = b.add_const(addr, k as u64 * u64::from(size));
                    vs.push(if half {
                        let h = b.push(Ty::I16, Op::Load(a));
                        b.push(t, Op::Conv(ConvOp::F16ToF, h))
                    } else {
                        b.push(t, Op::Load(a))
                    });
                }
                b.pack(*pty, vs)
            }
        };
        args.push((v, *pty));
        infos.push(ArgInfo {
            kind,
            size,
            offset,
            space,
        });
        offset += size;
    }
    let entry = b.inline(fid, args, None)?;
    if b.nu_tags > 0 {
        b.cur = BlockId(0);
        b.nu_clear_tag();
    }
    b.k.blocks[0].term = Term::Jump(entry, vec![]);
    b.uniform_slot_widths();
    let info = KernelInfo {
        name: name.to_string(),
        args: infos,
        args_size: align_up(u64::from(offset), 16) as u32,
        reqd_work_group_size: modes.reqd,
        work_group_size_hint: modes.hint,
        vec_type_hint: modes.vec_type_hint.clone(),
        reqd_sub_group_size: modes.sub_group,
        local_static_size: if b.scratch > 0 {
            scratch_offset(m) + b.scratch
        } else {
            m.local_size
        },
        private_size: b.k.private_size,
        barriers: false,
        effects: true,
    };
    Ok((b.k, info))
}

/// Bytes of local memory the collectives use: one 8-byte slot per work-item of the largest
/// group the driver launches (1024).
pub(super) const GROUP_SCRATCH: u32 = 8 * 1024;

/// Where the collectives' slots start in local memory.
pub(super) fn scratch_offset(m: &Module) -> u32 {
    align_up(u64::from(m.local_size), 8) as u32
}

/// The order in which to lower a function's blocks: reverse postorder of the control-flow graph
/// from the entry (so every block comes after the blocks that dominate it, and a value is lowered
/// before its uses even when the layout does not respect dominance, as llvm-spirv's loops exits
/// do), then the unreachable blocks in layout order.
pub(super) fn dominance_order(blocks: &[(u32, Vec<Inst>)]) -> Vec<usize> {
    let index: HashMap<u32, usize> = blocks
        .iter()
        .enumerate()
        .map(|(i, (l, _))| (*l, i))
        .collect();
    let succs = |b: usize| -> Vec<usize> {
        let Some(t) = blocks[b].1.last() else {
            return vec![];
        };
        let labels: Vec<u32> = match t.op {
            op::BRANCH => t.ops.iter().take(1).copied().collect(),
            op::BRANCH_CONDITIONAL => t.ops.iter().skip(1).take(2).copied().collect(),
            op::SWITCH => {
                // selector, default, then (literal words, label) pairs of 2 or 3 words.
                let rest = t.ops.get(2..).unwrap_or(&[]);
                let stride = if rest.len() % 2 == 0
                    && rest
                        .iter()
                        .skip(1)
                        .step_by(2)
                        .all(|l| index.contains_key(l))
                {
                    2
                } else {
                    3
                };
                t.ops
                    .iter()
                    .skip(1)
                    .take(1)
                    .chain(rest.iter().skip(stride - 1).step_by(stride))
                    .copied()
                    .collect()
            }
            _ => vec![],
        };
        labels
            .iter()
            .filter_map(|l| index.get(l).copied())
            .collect()
    };
    let mut seen = vec![false; blocks.len()];
    let mut post = Vec::with_capacity(blocks.len());
    if !blocks.is_empty() {
        // Iterative depth-first search: (block, its successors, next successor to visit).
        let mut stack = vec![(0usize, succs(0), 0usize)];
        seen[0] = true;
        while let Some((b, ss, next)) = stack.last_mut() {
            if let Some(&s) = ss.get(*next) {
                *next += 1;
                if !seen[s] {
                    seen[s] = true;
                    stack.push((s, succs(s), 0));
                }
            } else {
                post.push(*b);
                stack.pop();
            }
        }
    }
    post.reverse();
    post.extend((0..blocks.len()).filter(|&i| !seen[i]));
    post
}
