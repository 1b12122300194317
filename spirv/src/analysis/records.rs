//! Record groups: four 32-bit accesses of one block at offsets 0 to 12 from one address, which
//! a lockstep turn makes one 16-byte access per lane ([`record_groups`]).

use crate::ir::{self, BinOp, Op, Ty};

/// A *record group*: four 32-bit loads (or stores) of one block at offsets 0, 4, 8 and 12 from
/// one address, with no store (or no memory access) between them. When that address is
/// affine with a 16-byte stride (a `float4` or a 4-field struct per work-item), the group is
/// one 16-byte access per lane, the same bytes each work-item accesses itself.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Member {
    /// The group's base address.
    pub(crate) root: ir::Value,
    /// This access's element (offset / 4).
    pub(crate) k: u8,
    /// The group's first and last instruction.
    pub(crate) first: usize,
    pub(crate) last: usize,
    pub(crate) store: bool,
}

/// The record groups of a block, by instruction index.
pub(crate) fn record_groups(
    k: &ir::Kernel,
    block: &ir::Block,
    defs: &std::collections::HashMap<ir::Value, &Op>,
    consts: &std::collections::HashMap<ir::Value, u64>,
) -> std::collections::HashMap<usize, Member> {
    use std::collections::HashMap;
    let split = |a: ir::Value| -> (ir::Value, i64) {
        if let Some(Op::Bin(BinOp::Add, r, c)) = defs.get(&a) {
            if let Some(c) = consts.get(c) {
                return (*r, *c as i64);
            }
        }
        (a, 0)
    };
    let word = |v: ir::Value| matches!(k.ty(v), Ty::F32 | Ty::I32);
    let mut out = HashMap::new();
    // Open candidates: root -> [(instruction, element)].
    let mut loads: HashMap<ir::Value, Vec<(usize, u8)>> = HashMap::new();
    let mut stores: HashMap<ir::Value, Vec<(usize, u8)>> = HashMap::new();
    // The type a member accesses.
    let access = |i: usize| match &block.insts[i].op {
        Op::Store { value, .. } => Some(k.ty(*value)),
        _ => block.insts[i].result.map(|r| k.ty(r)),
    };
    let close = |open: &mut Vec<(usize, u8)>, out: &mut HashMap<usize, Member>, root, store| {
        let mut ks: Vec<u8> = open.iter().map(|m| m.1).collect();
        ks.sort();
        let one_type = open.iter().all(|m| access(m.0) == access(open[0].0));
        if ks == [0, 1, 2, 3] && one_type {
            let first = open.iter().map(|m| m.0).min().unwrap_or(0);
            let last = open.iter().map(|m| m.0).max().unwrap_or(0);
            for (i, k) in open.iter() {
                out.insert(
                    *i,
                    Member {
                        root,
                        k: *k,
                        first,
                        last,
                        store,
                    },
                );
            }
        }
        open.clear();
    };
    for (i, inst) in block.insts.iter().enumerate() {
        match &inst.op {
            Op::Load(a) if inst.result.is_some_and(word) => {
                // A load ends the store candidates (it may read what they write).
                stores.clear();
                let (root, off) = split(*a);
                if !(0..16).contains(&off) || off % 4 != 0 {
                    continue;
                }
                let open = loads.entry(root).or_default();
                if open.iter().any(|m| m.1 == (off / 4) as u8) {
                    open.clear();
                }
                open.push((i, (off / 4) as u8));
                if open.len() == 4 {
                    close(open, &mut out, root, false);
                }
            }
            Op::Store { addr, value } if word(*value) => {
                loads.clear();
                let (root, off) = split(*addr);
                if !(0..16).contains(&off) || off % 4 != 0 {
                    stores.clear();
                    continue;
                }
                // Another store in between breaks the others' groups.
                stores.retain(|r, _| *r == root);
                let open = stores.entry(root).or_default();
                if open.iter().any(|m| m.1 == (off / 4) as u8) {
                    open.clear();
                }
                open.push((i, (off / 4) as u8));
                if open.len() == 4 {
                    close(open, &mut out, root, true);
                }
            }
            Op::Load(_) => stores.clear(),
            Op::Store { .. }
            | Op::Atomic(..)
            | Op::AtomicCas(..)
            | Op::AtomicLoad(_)
            | Op::AtomicStore(..) => {
                loads.clear();
                stores.clear();
            }
            _ => {}
        }
    }
    out
}
