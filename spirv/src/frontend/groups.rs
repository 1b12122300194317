//! Barriers and collectives: work-group and sub-group barriers, asynchronous copies, group
//! reduces, scans and broadcasts, and sub-group shuffles.

use super::{dpcpp, nonuniform, scratch_offset, Builder, Frame, Val, GROUP_SCRATCH};
use crate::ir::{BinOp, Builtin, CmpOp, ConvOp, Op, Term, Ty, Value};
use crate::spv::{group_op, op, op_name, scope, storage, Inst, Type};
use crate::Error;

/// What a work-group or sub-group collective computes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Collective {
    Reduce,
    InclusiveScan,
    ExclusiveScan,
    Broadcast,
}

impl Builder<'_> {
    /// Barriers, asynchronous copies and group operations.
    pub(super) fn group_inst(&mut self, fr: &mut Frame, i: &Inst) -> Result<bool, Error> {
        let m = self.m;
        let op = i.op;
        match op {
            // Execution scope Subgroup: `sub_group_barrier`.
            op::CONTROL_BARRIER if matches!(m.const_scalar(i.w(0)?), Ok(3)) => self.effect(Op::SubgroupBarrier),
            op::CONTROL_BARRIER => self.effect(Op::Barrier),
            op::GROUP_ASYNC_COPY => self.async_copy(fr, i)?,
            // `wait_group_events`: every work-item's share of the copies is done once all of
            // them are past a barrier.
            op::GROUP_WAIT_EVENTS if matches!(m.const_scalar(i.w(0)?), Ok(2)) => self.effect(Op::Barrier),
            op::GROUP_WAIT_EVENTS => return Err(Error::unsupported("OpGroupWaitEvents outside Workgroup scope")),
            261..=271 | dpcpp::OP_GROUP_IMUL_KHR..=dpcpp::OP_GROUP_LOGICAL_XOR_KHR => {
                self.group_op(fr, i)?
            }
            op::SUBGROUP_SHUFFLE_INTEL
            | op::SUBGROUP_SHUFFLE_DOWN_INTEL
            | op::SUBGROUP_SHUFFLE_UP_INTEL
            | op::SUBGROUP_SHUFFLE_XOR_INTEL => self.shuffle_op(fr, i)?,
            333..=366 | nonuniform::ROTATE_KHR => self.nonuniform_op(fr, i)?,
            op::MEMORY_BARRIER => {}
            _ => return Err(Error::unsupported(format!("instruction {}", op_name(op)))),
        }
        Ok(false)
    }

    /// A 64-bit constant.
    pub(super) fn c64(&mut self, x: u64) -> Value {
        self.push(Ty::I64, Op::Const(x))
    }

    /// `base + index * 8`: a shuffle's slot.
    pub(super) fn slot(&mut self, base: Value, index: Value) -> Value {
        self.slot_widths.insert(8);
        let eight = self.c64(8);
        let o = self.push(Ty::I64, Op::Bin(BinOp::Mul, index, eight));
        self.push(Ty::I64, Op::Bin(BinOp::Add, base, o))
    }

    /// `base + index * size`: a collective's slot, as wide as its values (`size` bytes), so
    /// that the stores of consecutive work-items are consecutive; unless the kernel's
    /// collectives differ in width ([`Builder::uniform_slot_widths`]).
    fn slot_of(&mut self, base: Value, index: Value, size: u64) -> Value {
        self.slot_widths.insert(size);
        let size = self.c64(size);
        self.slot_width_consts.push(size);
        let o = self.push(Ty::I64, Op::Bin(BinOp::Mul, index, size));
        self.push(Ty::I64, Op::Bin(BinOp::Add, base, o))
    }

    /// Makes every collective's slot 8 bytes wide where the kernel's collectives use slots of
    /// different widths: a work-item going on to its next collective must overwrite only its
    /// own slot, which others may still read (see `group_op`).
    pub(super) fn uniform_slot_widths(&mut self) {
        if self.slot_widths.len() < 2 {
            return;
        }
        let consts: std::collections::HashSet<Value> = self.slot_width_consts.iter().copied().collect();
        for i in self.k.blocks.iter_mut().flat_map(|b| &mut b.insts) {
            if i.result.is_some_and(|r| consts.contains(&r)) {
                i.op = Op::Const(8);
            }
        }
    }

    /// The smaller of two unsigned 64-bit values.
    pub(super) fn umin64(&mut self, a: Value, b: Value) -> Value {
        let lt = self.push(Ty::Bool, Op::Cmp(CmpOp::ULt, a, b));
        self.push(Ty::I64, Op::Select(lt, a, b))
    }

    /// `a op b` for the group instruction `op` (All, Any and the logical ones on 0/1
    /// integers; a half sum or product rounded to half): the operation of its
    /// `OpGroupNonUniform*` twin.
    pub(super) fn group_combine(&mut self, op: u16, t: Ty, a: Value, b: Value, half: bool) -> Value {
        match op {
            op::GROUP_ALL => self.push(t, Op::Bin(BinOp::And, a, b)),
            op::GROUP_ANY => self.push(t, Op::Bin(BinOp::Or, a, b)),
            _ => self.nu_combine(dpcpp::group_twin(op), t, a, b, half),
        }
    }

    /// The identity of a group instruction's operation on `t` (what an exclusive scan gives
    /// the first work-item).
    pub(super) fn group_identity(op: u16, t: Ty) -> u64 {
        match op {
            op::GROUP_ALL => 1,
            op::GROUP_ANY => 0,
            _ => nonuniform::identity(dpcpp::group_twin(op), t),
        }
    }

    /// Work-group (`Workgroup` scope) and sub-group (`Subgroup` scope) collectives through
    /// scratch slots in local memory, one per work-item: every work-item stores its operand,
    /// then a barrier. Reduces and scans: the first work-item of the group (or of each
    /// sub-group) turns its slots into an inclusive (or exclusive) scan in linear order, or
    /// combines them into the last slot (a reduce: [`Self::reduce_slots`]), and each
    /// work-item reads its result: the last slot (a reduce) or its own. One barrier is
    /// enough because the work-items a barrier releases resume one at a time in linear order
    /// (see [`ir::Op::Barrier`]): the first one scans before any other reads, and a work-item
    /// that goes on to its next collective overwrites only its own slot, which no later
    /// work-item reads (the last slot is the last work-item's). A broadcast reads another
    /// work-item's slot, so a second barrier follows it before the slots are used again.
    /// Sub-group collectives use sub-group barriers: every work-item of the sub-group must
    /// reach them, other sub-groups need not.
    pub(super) fn group_op(&mut self, fr: &mut Frame, i: &Inst) -> Result<(), Error> {
        let op = i.op;
        let m = self.m;
        let sub = match m.const_scalar(i.w(2)?)? {
            scope::WORKGROUP => false,
            scope::SUBGROUP => true,
            s => return Err(Error::unsupported(format!("{} in scope {s}", op_name(op)))),
        };
        // Sub-group collectives wait for their sub-group only (see `ir::Op::SubgroupBarrier`).
        let barrier = if sub {
            Op::SubgroupBarrier
        } else {
            Op::Barrier
        };
        let rty = m.ir_ty(i.w(0)?)?;
        // Sums and products of halves are rounded to half after each step.
        let half = m.is_half(i.w(0)?);
        let (kind, x) = match op {
            op::GROUP_ALL | op::GROUP_ANY => (Collective::Reduce, self.val(fr, i.w(3)?)?),
            op::GROUP_BROADCAST => (Collective::Broadcast, self.val(fr, i.w(3)?)?),
            _ => {
                let kind = match i.w(3)? {
                    group_op::REDUCE => Collective::Reduce,
                    group_op::INCLUSIVE_SCAN => Collective::InclusiveScan,
                    group_op::EXCLUSIVE_SCAN => Collective::ExclusiveScan,
                    g => {
                        return Err(Error::unsupported(format!(
                            "{} with group operation {g}",
                            op_name(op)
                        )))
                    }
                };
                (kind, self.val(fr, i.w(4)?)?)
            }
        };
        let xt = self.k.ty(x);
        let float = dpcpp::group_float(op);
        let ok = match op {
            op::GROUP_ALL | op::GROUP_ANY => xt == Ty::Bool && rty == Ty::Bool,
            _ if dpcpp::group_logical(op) => xt == Ty::Bool && rty == Ty::Bool,
            op::GROUP_BROADCAST => xt == rty && xt != Ty::Bool,
            _ => xt == rty && xt != Ty::Bool && xt.is_float() == float,
        };
        if !ok {
            return Err(Error::invalid(format!(
                "{}: operands of the wrong type",
                op_name(op)
            )));
        }
        let (t, xv) = if xt == Ty::Bool {
            (Ty::I32, self.push(Ty::I32, Op::Conv(ConvOp::BoolToInt, x)))
        } else {
            (xt, x)
        };
        self.scratch = self.scratch.max(GROUP_SCRATCH);
        let base = self.push(Ty::I64, Op::LocalAddr(scratch_offset(self.root)));
        let (lid, ls, n) = self.group_geometry();
        // Slots as wide as the values: a work-item's store and the leader's loads are then
        // consecutive.
        let w = u64::from(t.bytes());
        let slot = self.slot_of(base, lid, w);
        self.effect(Op::Store {
            addr: slot,
            value: xv,
        });
        self.effect(barrier.clone());
        let (start, end) = if sub {
            let s = u64::from(self.k.sub_group_size);
            let mask = self.c64(!(s - 1));
            let start = self.push(Ty::I64, Op::Bin(BinOp::And, lid, mask));
            let s = self.c64(s);
            let e = self.push(Ty::I64, Op::Bin(BinOp::Add, start, s));
            (start, self.umin64(e, n))
        } else {
            (self.c64(0), n)
        };
        let one = self.c64(1);
        let last = self.push(Ty::I64, Op::Bin(BinOp::Sub, end, one));
        let result = if kind == Collective::Broadcast {
            let (ids, _) = self.elems(fr, i.w(4)?)?;
            if ids.is_empty() || ids.len() > 3 || (sub && ids.len() != 1) {
                return Err(Error::invalid(
                    "OpGroupBroadcast: a local id of the wrong size",
                ));
            }
            let mut target = self.c64(0);
            for (d, v) in ids.iter().enumerate().rev() {
                if self.k.ty(*v).is_float() || self.k.ty(*v) == Ty::Bool {
                    return Err(Error::invalid(
                        "OpGroupBroadcast: the local id is not an integer",
                    ));
                }
                let v = self.resize(*v, Ty::I64);
                let scaled = self.push(Ty::I64, Op::Bin(BinOp::Mul, target, ls[d.min(2)]));
                target = self.push(Ty::I64, Op::Bin(BinOp::Add, scaled, v));
            }
            let target = self.push(Ty::I64, Op::Bin(BinOp::Add, start, target));
            // Out of range (undefined in OpenCL): the last work-item's value.
            let target = self.umin64(target, last);
            let a = self.slot_of(base, target, w);
            self.push(t, Op::Load(a))
        } else if kind == Collective::Reduce {
            let leader = self.push(Ty::Bool, Op::Cmp(CmpOp::Eq, lid, start));
            let (lp, join) = (self.k.new_block(), self.k.new_block());
            self.set_term(Term::Branch(leader, (lp, vec![]), (join, vec![])));
            self.cur = lp;
            self.reduce_slots(op, t, half, (base, start, end), last);
            self.set_term(Term::Jump(join, vec![]));
            self.cur = join;
            let a = self.slot_of(base, last, w);
            self.push(t, Op::Load(a))
        } else {
            let leader = self.push(Ty::Bool, Op::Cmp(CmpOp::Eq, lid, start));
            let (lp, head, body, join) = (
                self.k.new_block(),
                self.k.new_block(),
                self.k.new_block(),
                self.k.new_block(),
            );
            self.set_term(Term::Branch(leader, (lp, vec![]), (join, vec![])));
            self.cur = lp;
            let first = self.push(t, Op::Load(slot));
            if kind == Collective::ExclusiveScan {
                let idn = self.push(t, Op::Const(Self::group_identity(op, t)));
                self.effect(Op::Store {
                    addr: slot,
                    value: idn,
                });
            }
            let j0 = self.push(Ty::I64, Op::Bin(BinOp::Add, start, one));
            self.set_term(Term::Jump(head, vec![j0, first]));
            let (j, acc) = (self.k.new_value(Ty::I64), self.k.new_value(t));
            self.k.blocks[head.0 as usize].params.extend([j, acc]);
            self.cur = head;
            let more = self.push(Ty::Bool, Op::Cmp(CmpOp::ULt, j, end));
            self.set_term(Term::Branch(more, (body, vec![]), (join, vec![])));
            self.cur = body;
            let a = self.slot_of(base, j, w);
            let v = self.push(t, Op::Load(a));
            let acc2 = self.group_combine(op, t, acc, v, half);
            // Inclusive: the prefix through j; exclusive: the one before it.
            self.effect(Op::Store {
                addr: a,
                value: if kind == Collective::ExclusiveScan { acc } else { acc2 },
            });
            let j1 = self.push(Ty::I64, Op::Bin(BinOp::Add, j, one));
            self.set_term(Term::Jump(head, vec![j1, acc2]));
            self.cur = join;
            let a = if kind == Collective::Reduce { self.slot_of(base, last, w) } else { slot };
            self.push(t, Op::Load(a))
        };
        if kind == Collective::Broadcast {
            self.effect(barrier.clone());
        }
        let result = if rty == Ty::Bool {
            let zero = self.push(t, Op::Const(0));
            self.push(Ty::Bool, Op::Cmp(CmpOp::Ne, result, zero))
        } else {
            result
        };
        fr.vals.insert(i.w(1)?, (Val::V(result), i.w(0)?));
        Ok(())
    }

    /// A reduce's leader (in the current block): combines slots `start..end` of `base` into the
    /// last one, `last`. Four partial results over every fourth slot, then the rest one by one:
    /// four independent chains instead of one (OpenCL and SPIR-V leave the order of a group
    /// reduction's operations unspecified, floating-point ones included).
    fn reduce_slots(&mut self, op: u16, t: Ty, half: bool, (base, start, end): (Value, Value, Value), last: Value) {
        const K: u64 = 4;
        let (one, k) = (self.c64(1), self.c64(K));
        let load = |me: &mut Self, at: Value, plus: u64| {
            let c = me.c64(plus);
            let i = me.push(Ty::I64, Op::Bin(BinOp::Add, at, c));
            let a = me.slot_of(base, i, u64::from(t.bytes()));
            me.push(t, Op::Load(a))
        };
        let first = load(self, start, 0);
        let (wide, whead, wbody, wexit) = (self.k.new_block(), self.k.new_block(), self.k.new_block(), self.k.new_block());
        let (thead, tbody, done) = (self.k.new_block(), self.k.new_block(), self.k.new_block());
        let after = self.push(Ty::I64, Op::Bin(BinOp::Add, start, k));
        let four = self.push(Ty::Bool, Op::Cmp(CmpOp::ULe, after, end));
        let next = self.push(Ty::I64, Op::Bin(BinOp::Add, start, one));
        self.set_term(Term::Branch(four, (wide, vec![]), (thead, vec![next, first])));
        // K partial results: slots start..start+K, then K at a time.
        self.cur = wide;
        let mut init = vec![after, first];
        for i in 1..K {
            init.push(load(self, start, i));
        }
        self.set_term(Term::Jump(whead, init));
        let j = self.k.new_value(Ty::I64);
        let parts: Vec<Value> = (0..K).map(|_| self.k.new_value(t)).collect();
        self.k.blocks[whead.0 as usize].params.push(j);
        self.k.blocks[whead.0 as usize].params.extend(parts.iter().copied());
        self.cur = whead;
        let jk = self.push(Ty::I64, Op::Bin(BinOp::Add, j, k));
        let more = self.push(Ty::Bool, Op::Cmp(CmpOp::ULe, jk, end));
        self.set_term(Term::Branch(more, (wbody, vec![]), (wexit, vec![])));
        self.cur = wbody;
        let mut step = vec![jk];
        for (i, p) in parts.iter().enumerate() {
            let v = load(self, j, i as u64);
            step.push(self.group_combine(op, t, *p, v, half));
        }
        self.set_term(Term::Jump(whead, step));
        self.cur = wexit;
        let lo = self.group_combine(op, t, parts[0], parts[1], half);
        let hi = self.group_combine(op, t, parts[2], parts[3], half);
        let acc = self.group_combine(op, t, lo, hi, half);
        self.set_term(Term::Jump(thead, vec![j, acc]));
        // The rest, one by one.
        let (tj, tacc) = (self.k.new_value(Ty::I64), self.k.new_value(t));
        self.k.blocks[thead.0 as usize].params.extend([tj, tacc]);
        self.cur = thead;
        let more = self.push(Ty::Bool, Op::Cmp(CmpOp::ULt, tj, end));
        self.set_term(Term::Branch(more, (tbody, vec![]), (done, vec![])));
        self.cur = tbody;
        let v = load(self, tj, 0);
        let acc2 = self.group_combine(op, t, tacc, v, half);
        let tj1 = self.push(Ty::I64, Op::Bin(BinOp::Add, tj, one));
        self.set_term(Term::Jump(thead, vec![tj1, acc2]));
        self.cur = done;
        let a = self.slot_of(base, last, u64::from(t.bytes()));
        self.effect(Op::Store { addr: a, value: tacc });
    }

    /// The work-item's local linear id, the group's size in each dimension, and its work-item
    /// count (all `I64`).
    pub(super) fn group_geometry(&mut self) -> (Value, Vec<Value>, Value) {
        let lid = self.push(Ty::I64, Op::Builtin(Builtin::LocalLinearId, 0));
        let ls: Vec<Value> = (0..3)
            .map(|d| self.push(Ty::I64, Op::Builtin(Builtin::LocalSize, d)))
            .collect();
        let n01 = self.push(Ty::I64, Op::Bin(BinOp::Mul, ls[0], ls[1]));
        let n = self.push(Ty::I64, Op::Bin(BinOp::Mul, n01, ls[2]));
        (lid, ls, n)
    }

    /// `async_work_group_copy` and `async_work_group_strided_copy` (OpGroupAsyncCopy), done at
    /// once and shared by the work-items of the group: work-item `l` copies elements `l`,
    /// `l + size`, ... The global side (the destination when the source is local memory) steps
    /// by `Stride` elements. The result is the event given: nothing is left pending, and
    /// `wait_group_events` is a barrier, after which every share is done.
    pub(super) fn async_copy(&mut self, fr: &mut Frame, i: &Inst) -> Result<(), Error> {
        let m = self.m;
        let scope = m.const_scalar(i.w(2)?)?;
        if scope != 2 {
            return Err(Error::unsupported(format!("OpGroupAsyncCopy in scope {scope}")));
        }
        if m.ty(i.w(0)?)? != &Type::Event {
            return Err(Error::invalid("OpGroupAsyncCopy: the result is not an event"));
        }
        let (dst, dty) = self.get(fr, i.w(3)?)?;
        let (src, sty) = self.get(fr, i.w(4)?)?;
        let (Val::V(dst), Val::V(src)) = (dst, src) else {
            return Err(Error::invalid("OpGroupAsyncCopy: operands are not pointers"));
        };
        let (Type::Pointer(_, de), Type::Pointer(ssc, se)) = (m.ty(dty)?, m.ty(sty)?) else {
            return Err(Error::invalid("OpGroupAsyncCopy: operands are not pointers"));
        };
        let (es, _) = m.layout(*de)?;
        if m.layout(*se)?.0 != es || self.k.ty(dst) != Ty::I64 || self.k.ty(src) != Ty::I64 {
            return Err(Error::invalid("OpGroupAsyncCopy: elements of different sizes"));
        }
        // Workgroup storage: the source is local, so the destination is the global side.
        let dst_strided = *ssc == storage::WORKGROUP;
        let (n, stride, event) = (
            self.val(fr, i.w(5)?)?,
            self.val(fr, i.w(6)?)?,
            self.val(fr, i.w(7)?)?,
        );
        for v in [n, stride] {
            if self.k.ty(v).is_float() || self.k.ty(v) == Ty::Bool {
                return Err(Error::invalid("OpGroupAsyncCopy: a count is not an integer"));
            }
        }
        let (n, stride) = (self.resize(n, Ty::I64), self.resize(stride, Ty::I64));
        let (lid, _, size) = self.group_geometry();
        let es = self.c64(es);
        let (head, body, join) = (self.k.new_block(), self.k.new_block(), self.k.new_block());
        self.set_term(Term::Jump(head, vec![lid]));
        let j = self.k.new_value(Ty::I64);
        self.k.blocks[head.0 as usize].params.push(j);
        self.cur = head;
        let more = self.push(Ty::Bool, Op::Cmp(CmpOp::ULt, j, n));
        self.set_term(Term::Branch(more, (body, vec![]), (join, vec![])));
        self.cur = body;
        let near = self.push(Ty::I64, Op::Bin(BinOp::Mul, j, es));
        let far = self.push(Ty::I64, Op::Bin(BinOp::Mul, near, stride));
        let (d_off, s_off) = if dst_strided { (far, near) } else { (near, far) };
        let d = self.push(Ty::I64, Op::Bin(BinOp::Add, dst, d_off));
        let s = self.push(Ty::I64, Op::Bin(BinOp::Add, src, s_off));
        self.effect(Op::Copy { dst: d, src: s, size: es });
        let j1 = self.push(Ty::I64, Op::Bin(BinOp::Add, j, size));
        self.set_term(Term::Jump(head, vec![j1]));
        self.cur = join;
        fr.vals.insert(i.w(1)?, (Val::V(event), i.w(0)?));
        Ok(())
    }

    /// `intel_sub_group_shuffle`, `_down`, `_up` and `_xor` (SPV_INTEL_subgroups) through the
    /// collectives' scratch: each work-item stores its operands (a second array for the
    /// `next`/`previous` operand), a sub-group barrier, each reads the slot of the work-item it names in
    /// its sub-group (out of range, which OpenCL leaves undefined: the sub-group's last), a
    /// sub-group barrier.
    pub(super) fn shuffle_op(&mut self, fr: &mut Frame, i: &Inst) -> Result<(), Error> {
        let op = i.op;
        let rty = self.m.ir_ty(i.w(0)?)?;
        let two = matches!(op, op::SUBGROUP_SHUFFLE_DOWN_INTEL | op::SUBGROUP_SHUFFLE_UP_INTEL);
        let a = self.val(fr, i.w(2)?)?;
        let b = if two {
            Some(self.val(fr, i.w(3)?)?)
        } else {
            None
        };
        let c = self.val(fr, i.w(if two { 4 } else { 3 })?)?;
        let ct = self.k.ty(c);
        if rty == Ty::Bool
            || self.k.ty(a) != rty
            || b.is_some_and(|b| self.k.ty(b) != rty)
            || ct.is_float()
            || ct == Ty::Bool
        {
            return Err(Error::invalid(format!(
                "{}: operands of the wrong type",
                op_name(op)
            )));
        }
        self.scratch = self.scratch.max(2 * GROUP_SCRATCH);
        let base = self.push(Ty::I64, Op::LocalAddr(scratch_offset(self.root)));
        let off = self.c64(u64::from(GROUP_SCRATCH));
        let base2 = self.push(Ty::I64, Op::Bin(BinOp::Add, base, off));
        let lid = self.push(Ty::I64, Op::Builtin(Builtin::LocalLinearId, 0));
        let slot = self.slot(base, lid);
        self.effect(Op::Store {
            addr: slot,
            value: a,
        });
        if let Some(b) = b {
            let slot2 = self.slot(base2, lid);
            self.effect(Op::Store {
                addr: slot2,
                value: b,
            });
        }
        self.effect(Op::SubgroupBarrier);
        let ls: Vec<Value> = (0..3)
            .map(|d| self.push(Ty::I64, Op::Builtin(Builtin::LocalSize, d)))
            .collect();
        let n01 = self.push(Ty::I64, Op::Bin(BinOp::Mul, ls[0], ls[1]));
        let n = self.push(Ty::I64, Op::Bin(BinOp::Mul, n01, ls[2]));
        let s = u64::from(self.k.sub_group_size);
        let mask = self.c64(!(s - 1));
        let start = self.push(Ty::I64, Op::Bin(BinOp::And, lid, mask));
        let sg = self.c64(s);
        let e = self.push(Ty::I64, Op::Bin(BinOp::Add, start, sg));
        let end = self.umin64(e, n);
        let one = self.c64(1);
        let last = self.push(Ty::I64, Op::Bin(BinOp::Sub, end, one));
        let max = self.umin64(n, sg);
        let sglid = self.push(Ty::I64, Op::Bin(BinOp::Sub, lid, start));
        let c = self.resize(c, Ty::I64);
        // (index in the sub-group, true when it reads the second operand's array)
        let (idx, second) = match op {
            op::SUBGROUP_SHUFFLE_INTEL => (c, None),
            op::SUBGROUP_SHUFFLE_XOR_INTEL => (self.push(Ty::I64, Op::Bin(BinOp::Xor, sglid, c)), None),
            op::SUBGROUP_SHUFFLE_DOWN_INTEL => {
                let t = self.push(Ty::I64, Op::Bin(BinOp::Add, sglid, c));
                let over = self.push(Ty::Bool, Op::Cmp(CmpOp::UGe, t, max));
                let wrapped = self.push(Ty::I64, Op::Bin(BinOp::Sub, t, max));
                (self.push(Ty::I64, Op::Select(over, wrapped, t)), Some(over))
            }
            _ => {
                // In range: `current` (the second operand) of sglid - delta; else `previous`
                // of max + sglid - delta.
                let within = self.push(Ty::Bool, Op::Cmp(CmpOp::ULe, c, sglid));
                let t = self.push(Ty::I64, Op::Bin(BinOp::Sub, sglid, c));
                let wrapped = self.push(Ty::I64, Op::Bin(BinOp::Add, t, max));
                (
                    self.push(Ty::I64, Op::Select(within, t, wrapped)),
                    Some(within),
                )
            }
        };
        let target = self.push(Ty::I64, Op::Bin(BinOp::Add, start, idx));
        let target = self.umin64(target, last);
        let from = match second {
            Some(sec) => self.push(Ty::I64, Op::Select(sec, base2, base)),
            None => base,
        };
        let addr = self.slot(from, target);
        let v = self.push(rty, Op::Load(addr));
        self.effect(Op::SubgroupBarrier);
        fr.vals.insert(i.w(1)?, (Val::V(v), i.w(0)?));
        Ok(())
    }

}
