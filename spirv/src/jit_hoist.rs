//! Values the same for every work-item of a group, computed once before the work-item loop
//! ([`Lower::hoist_uniform`]).

use std::collections::{HashMap, HashSet};

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
        let mut uni: HashSet<ir::Value> = HashSet::new();
        loop {
            let mut more = false;
            for (r, i) in &defs {
                if uni.contains(r) {
                    continue;
                }
                let t = ty(k.ty(*r));
                let ok = match &i.op {
                    Op::Const(_) | Op::ArgAddr(_) | Op::GlobalAddr(_) | Op::LocalAddr(_) => true,
                    Op::Builtin(b, _) => uniform_builtin(b),
                    Op::Load(a) => self.arg_words.contains_key(&(*a, t)),
                    Op::Bin(_, a, b) | Op::Cmp(_, a, b) => uni.contains(a) && uni.contains(b),
                    Op::Un(_, a) | Op::Conv(_, a) => uni.contains(a),
                    Op::Select(c, a, b) => uni.contains(c) && uni.contains(a) && uni.contains(b),
                    _ => false,
                };
                if ok {
                    uni.insert(*r);
                    more = true;
                }
            }
            if !more {
                break;
            }
        }
        // Operands first: in the order values were made (operands before their users, as a
        // rule), any operand not yet computed first.
        let mut order: Vec<ir::Value> = uni.iter().copied().collect();
        order.sort_by_key(|v| v.0);
        for v in order {
            self.hoist_one(v, &defs, &uni, 0)?;
        }
        Ok(())
    }

    fn hoist_one(
        &mut self,
        v: ir::Value,
        defs: &HashMap<ir::Value, &ir::Inst>,
        uni: &HashSet<ir::Value>,
        depth: u32,
    ) -> Result<(), Error> {
        if self.hoisted.contains_key(&v) {
            return Ok(());
        }
        if depth > 64 {
            return Err(Error::unsupported("uniform values nested more than 64 deep out of order"));
        }
        let i = defs[&v];
        for o in crate::regions::operands(&i.op) {
            if uni.contains(&o) {
                self.hoist_one(o, defs, uni, depth + 1)?;
            }
        }
        if let Some(c) = self.op(Some(self.k.ty(v)), &i.op)? {
            self.hoisted.insert(v, c);
        }
        Ok(())
    }
}
