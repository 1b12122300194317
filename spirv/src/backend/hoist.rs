//! Values the same for every work-item of a group, computed once before the work-item loop
//! ([`Lower::hoist_uniform`]).

use std::collections::HashMap;

use super::{ty, Error, Lower};
use crate::ir::{self, Builtin, Op};

impl Lower<'_> {
    /// Computes, in the block before the work-item loop, every value that is the same for all
    /// work-items of the group and costs nothing to compute early: constants, the group's
    /// built-ins (group id, sizes, offsets), argument addresses and preloaded arguments, data
    /// addresses, and arithmetic, comparisons, selects and conversions of those (none traps:
    /// divisions by 0 or of MIN by -1 have defined results, float-to-int conversions
    /// saturate). DPC++ kernels compute their strides and offsets from the group id and the
    /// arguments (a 64-bit division among them) once per work-item otherwise, and once per
    /// round in kernels with barriers.
    pub(super) fn hoist_uniform(&mut self) -> Result<(), Error> {
        let k = self.k;
        let mut defs: HashMap<ir::Value, &ir::Inst> = HashMap::new();
        for i in k.blocks.iter().flat_map(|b| &b.insts) {
            if let Some(r) = i.result {
                defs.insert(r, i);
            }
        }
        let uniform_builtin = |b: &Builtin| {
            matches!(
                b,
                Builtin::GroupId
                    | Builtin::LocalSize
                    | Builtin::NumGroups
                    | Builtin::GlobalOffset
                    | Builtin::GlobalSize
                    | Builtin::WorkDim
                    | Builtin::SubgroupMaxSize
                    | Builtin::NumSubgroups
            )
        };
        // In the order values were made (operands before their users, as a rule), each value
        // whose operands are already computed here; one made before an operand of its own is
        // left where it is.
        let mut order: Vec<(&ir::Value, &&ir::Inst)> = defs.iter().collect();
        order.sort_by_key(|(v, _)| v.0);
        for (&r, i) in order {
            let t = ty(k.ty(r));
            let h = |v: &ir::Value| self.hoisted.contains_key(v);
            let ok = match &i.op {
                Op::Const(_) | Op::ArgAddr(_) | Op::GlobalAddr(_) | Op::LocalAddr(_) => true,
                Op::Builtin(b, _) => uniform_builtin(b),
                Op::Load(a) => self.arg_words.contains_key(&(*a, t)),
                Op::Bin(_, a, b) | Op::Cmp(_, a, b) => h(a) && h(b),
                Op::Un(_, a) | Op::Conv(_, a) => h(a),
                Op::Select(c, a, b) => h(c) && h(a) && h(b),
                _ => false,
            };
            if ok {
                if let Some(c) = self.op(Some(k.ty(r)), &i.op)? {
                    self.hoisted.insert(r, c);
                }
            }
        }
        Ok(())
    }
}
