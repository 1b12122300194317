//! `OpGroupNonUniform*` (SPIR-V 1.3; OpenCL's `cl_khr_subgroup_non_uniform_vote`, `_ballot`,
//! `_non_uniform_arithmetic`, `cl_khr_subgroup_shuffle`, `_shuffle_relative` and
//! `_clustered_reduce`) at Subgroup scope, where only the sub-group's *active* work-items — those
//! that reach the instruction together — take part.
//!
//! Work-items run one after the other, so an exchange goes through the collectives' scratch in
//! local memory around two sub-group barriers ([`ir::Op::SubgroupBarrier`]): each arriving
//! work-item stores its operand in its 8-byte slot and an *arrival tag* (a number naming this
//! instruction in the kernel) in its tag slot; a sub-group barrier; each work-item reads the
//! tags and operands of the (at most 8) work-items of its sub-group and computes its own result
//! from those whose tag is this instruction's; a sub-group barrier; it clears its tag. In each
//! round only the work-items at the earliest sub-group barrier of each sub-group (in reverse
//! postorder: see `analysis/regions.rs` and `backend/scalar.rs`) go on, the others wait, so
//! those carrying the tag when they read are exactly the ones that reached the instruction
//! together, and work-items that diverged meet again at the next operation they share.
//! The tags start cleared: each work-item clears its own at the kernel's entry.
//!
//! The ballot instructions that only read a ballot value (`InverseBallot`, `BallotBitExtract`,
//! `BallotBitCount`, `BallotFindLSB`/`MSB`) are computed by each work-item alone.
//!
//! At Workgroup scope the instructions that have an `OpGroup*` twin (`All`, `Any`,
//! `Broadcast`, `IAdd`, `FAdd`, `SMin`, `UMin`, `FMin`, `SMax`, `UMax`, `FMax` with Reduce and
//! the scans) are lowered as that twin: every work-item of the group must reach them.

use super::{scratch_offset, Builder, Frame, Val, GROUP_SCRATCH};
use crate::ir::{BinOp, Builtin, CmpOp, ConvOp, MathFn, Op, Round, Ty, UnOp, Value};
use crate::spv::{group_op, op, op_name, scope, Inst};
use crate::Error;

/// Offset of the arrival tags (a `u32` per work-item) in the collectives' scratch: after the
/// operand slots and the shuffles' second array.
const TAGS: u32 = 2 * GROUP_SCRATCH;
/// Bytes of scratch a kernel with non-uniform exchanges uses.
const SCRATCH: u32 = TAGS + 4 * 1024;

/// `OpGroupNonUniformRotateKHR` (SPV_KHR_subgroup_rotate): scope, value, delta and an optional
/// cluster size.
pub(super) const ROTATE_KHR: u16 = op::GROUP_NON_UNIFORM_ROTATE_KHR;

/// Where a work-item's sub-group's exchange reads from (after the first barrier).
struct Peers {
    /// The operand slots (8 bytes per work-item, by local linear id).
    slots: Value,
    /// The sub-group's first work-item's linear id.
    start: Value,
    /// This work-item's index in its sub-group.
    me: Value,
    /// The sub-group's size minus one.
    last: Value,
    /// Which of the sub-group's 8 possible work-items reached this instruction.
    active: Vec<Value>,
}

impl Builder<'_> {
    /// Work-items per sub-group of the kernel being built.
    fn sg(&self) -> u64 {
        u64::from(self.k.sub_group_size)
    }

    /// Lowers an `OpGroupNonUniform*` instruction (opcodes 333–366).
    pub(super) fn nonuniform_op(&mut self, fr: &mut Frame, i: &Inst) -> Result<(), Error> {
        let op = i.op;
        let name = op_name(op);
        match self.m.const_scalar(i.w(2)?)? {
            scope::SUBGROUP => {}
            scope::WORKGROUP => return self.nonuniform_workgroup(fr, i),
            s => return Err(Error::unsupported(format!("{name} in scope {s}"))),
        }
        let rt = i.w(0)?;
        let rid = i.w(1)?;
        let bad = || Error::invalid(format!("{name}: operands of the wrong type"));
        let result: Val = match op {
            op::GROUP_NON_UNIFORM_ELECT => {
                let p = self.nu_arrive(None)?;
                let first = self.nu_first(&p);
                let v = self.push(Ty::Bool, Op::Cmp(CmpOp::Eq, p.me, first));
                self.nu_leave();
                Val::V(v)
            }
            op::GROUP_NON_UNIFORM_ALL | op::GROUP_NON_UNIFORM_ANY => {
                let x = self.val(fr, i.w(3)?)?;
                if self.k.ty(x) != Ty::Bool || self.m.ir_ty(rt)? != Ty::Bool {
                    return Err(bad());
                }
                let r = self.nu_vote(x, op == op::GROUP_NON_UNIFORM_ALL)?;
                Val::V(r)
            }
            op::GROUP_NON_UNIFORM_ALL_EQUAL => {
                let (xs, _) = self.elems(fr, i.w(3)?)?;
                if self.m.ir_ty(rt)? != Ty::Bool {
                    return Err(bad());
                }
                let mut all = None;
                for x in xs {
                    let e = self.nu_all_equal(x)?;
                    all = Some(match all {
                        None => e,
                        Some(a) => self.push(Ty::Bool, Op::Bin(BinOp::And, a, e)),
                    });
                }
                Val::V(all.ok_or_else(bad)?)
            }
            337 | 338 | 345..=348 | ROTATE_KHR => {
                let (xs, xt) = self.elems(fr, i.w(3)?)?;
                // A rotation within clusters of a constant power-of-two size (0: none).
                let cluster = match (op, i.ops.get(5)) {
                    (ROTATE_KHR, Some(c)) => match self.m.const_scalar(*c)? {
                        c if c.is_power_of_two() && c <= self.sg() => c,
                        c => {
                            return Err(Error::invalid(format!(
                                "{name} with a cluster size of {c}"
                            )))
                        }
                    },
                    _ => 0,
                };
                if xt != rt {
                    return Err(bad());
                }
                let index = if op == op::GROUP_NON_UNIFORM_BROADCAST_FIRST {
                    None
                } else {
                    let c = self.val(fr, i.w(4)?)?;
                    let ct = self.k.ty(c);
                    if ct.is_float() || ct == Ty::Bool {
                        return Err(bad());
                    }
                    Some(self.resize(c, Ty::I64))
                };
                let mut out = Vec::new();
                for x in xs {
                    out.push(self.nu_read_one(op, x, index, cluster)?);
                }
                self.pack(rt, out)
            }
            op::GROUP_NON_UNIFORM_BALLOT => {
                let x = self.val(fr, i.w(3)?)?;
                if self.k.ty(x) != Ty::Bool || self.value_types(rt)? != [Ty::I32; 4] {
                    return Err(bad());
                }
                let xi = self.push(Ty::I32, Op::Conv(ConvOp::BoolToInt, x));
                let p = self.nu_arrive(Some(xi))?;
                let mut mask = self.push(Ty::I32, Op::Const(0));
                for k in 0..self.sg() as usize {
                    let v = self.nu_peer(&p, k, Ty::I32);
                    let zero = self.push(Ty::I32, Op::Const(0));
                    let set = self.push(Ty::Bool, Op::Cmp(CmpOp::Ne, v, zero));
                    let set = self.push(Ty::Bool, Op::Bin(BinOp::And, set, p.active[k]));
                    let bit = self.push(Ty::I32, Op::Const(1 << k));
                    let with = self.push(Ty::I32, Op::Bin(BinOp::Or, mask, bit));
                    mask = self.push(Ty::I32, Op::Select(set, with, mask));
                }
                self.nu_leave();
                let zero = self.push(Ty::I32, Op::Const(0));
                Val::Vec(vec![mask, zero, zero, zero])
            }
            op::GROUP_NON_UNIFORM_INVERSE_BALLOT
            | op::GROUP_NON_UNIFORM_BALLOT_BIT_EXTRACT
            | op::GROUP_NON_UNIFORM_BALLOT_BIT_COUNT
            | op::GROUP_NON_UNIFORM_BALLOT_FIND_LSB
            | op::GROUP_NON_UNIFORM_BALLOT_FIND_MSB => {
                let (at, g) = if op == op::GROUP_NON_UNIFORM_BALLOT_BIT_COUNT { (4, i.w(3)?) } else { (3, 0) };
                let (vs, _) = self.elems(fr, i.w(at)?)?;
                if vs.len() != 4 || vs.iter().any(|v| self.k.ty(*v) != Ty::I32) {
                    return Err(bad());
                }
                let want = if matches!(
                    op,
                    op::GROUP_NON_UNIFORM_INVERSE_BALLOT | op::GROUP_NON_UNIFORM_BALLOT_BIT_EXTRACT
                ) {
                    Ty::Bool
                } else {
                    Ty::I32
                };
                if self.m.ir_ty(rt)? != want {
                    return Err(bad());
                }
                let extra = if op == op::GROUP_NON_UNIFORM_BALLOT_BIT_EXTRACT {
                    Some(self.val(fr, i.w(4)?)?)
                } else {
                    None
                };
                Val::V(self.nu_ballot_read(op, g, &vs, extra)?)
            }
            op::GROUP_NON_UNIFORM_I_ADD
            | op::GROUP_NON_UNIFORM_F_ADD
            | op::GROUP_NON_UNIFORM_I_MUL
            | op::GROUP_NON_UNIFORM_F_MUL
            | op::GROUP_NON_UNIFORM_S_MIN
            | op::GROUP_NON_UNIFORM_U_MIN
            | op::GROUP_NON_UNIFORM_F_MIN
            | op::GROUP_NON_UNIFORM_S_MAX
            | op::GROUP_NON_UNIFORM_U_MAX
            | op::GROUP_NON_UNIFORM_F_MAX
            | op::GROUP_NON_UNIFORM_BITWISE_AND
            | op::GROUP_NON_UNIFORM_BITWISE_OR
            | op::GROUP_NON_UNIFORM_BITWISE_XOR
            | op::GROUP_NON_UNIFORM_LOGICAL_AND
            | op::GROUP_NON_UNIFORM_LOGICAL_OR
            | op::GROUP_NON_UNIFORM_LOGICAL_XOR => {
                let g = i.w(3)?;
                let (xs, xt) = self.elems(fr, i.w(4)?)?;
                if xt != rt {
                    return Err(bad());
                }
                let cluster = if g == 3 {
                    let c = self.m.const_scalar(i.w(5)?)?;
                    if c == 0 || !c.is_power_of_two() {
                        return Err(Error::invalid(format!(
                            "{name}: a cluster size of {c}, not a power of two"
                        )));
                    }
                    c
                } else if g > 3 {
                    return Err(Error::unsupported(format!(
                        "{name} with group operation {g}"
                    )));
                } else {
                    0
                };
                let half = self.m.is_half(rt);
                let mut out = Vec::new();
                for x in xs {
                    out.push(self.nu_arith(op, g, cluster, x, half)?);
                }
                self.pack(rt, out)
            }
            _ => return Err(Error::unsupported(format!("instruction {name}"))),
        };
        fr.vals.insert(rid, (result, rt));
        Ok(())
    }

    /// At Workgroup scope: the `OpGroup*` twin (or the KHR uniform group instruction, for
    /// `IMul`, `FMul` and the bitwise and logical ones), if there is one.
    fn nonuniform_workgroup(&mut self, fr: &mut Frame, i: &Inst) -> Result<(), Error> {
        let twin = match i.op {
            op::GROUP_NON_UNIFORM_ALL => 261,
            op::GROUP_NON_UNIFORM_ANY => 262,
            op::GROUP_NON_UNIFORM_BROADCAST => 263,
            op::GROUP_NON_UNIFORM_I_ADD => 264,
            op::GROUP_NON_UNIFORM_F_ADD => 265,
            op::GROUP_NON_UNIFORM_F_MIN => 266,
            op::GROUP_NON_UNIFORM_U_MIN => 267,
            op::GROUP_NON_UNIFORM_S_MIN => 268,
            op::GROUP_NON_UNIFORM_F_MAX => 269,
            op::GROUP_NON_UNIFORM_U_MAX => 270,
            op::GROUP_NON_UNIFORM_S_MAX => 271,
            op::GROUP_NON_UNIFORM_I_MUL => super::dpcpp::OP_GROUP_IMUL_KHR,
            op::GROUP_NON_UNIFORM_F_MUL => super::dpcpp::OP_GROUP_FMUL_KHR,
            op::GROUP_NON_UNIFORM_BITWISE_AND
            | op::GROUP_NON_UNIFORM_BITWISE_OR
            | op::GROUP_NON_UNIFORM_BITWISE_XOR
            | op::GROUP_NON_UNIFORM_LOGICAL_AND
            | op::GROUP_NON_UNIFORM_LOGICAL_OR
            | op::GROUP_NON_UNIFORM_LOGICAL_XOR => {
                super::dpcpp::OP_GROUP_BITWISE_AND_KHR + (i.op - 359)
            }
            op => {
                return Err(Error::unsupported(format!(
                    "{} in Workgroup scope",
                    op_name(op)
                )))
            }
        };
        if self.m.vector(i.w(0)?).is_some() {
            return Err(Error::unsupported(format!(
                "{} on vectors in Workgroup scope",
                op_name(i.op)
            )));
        }
        let twin = Inst {
            op: twin,
            ops: i.ops.clone(),
        };
        self.group_op(fr, &twin)
    }

    /// `base + index * size`.
    fn nu_index(&mut self, base: Value, index: Value, size: u64) -> Value {
        if size == 8 {
            // The slots share the collectives' scratch (the tags, 4 bytes, lie after it).
            self.slot_widths.insert(8);
        }
        let s = self.c64(size);
        let o = self.push(Ty::I64, Op::Bin(BinOp::Mul, index, s));
        self.push(Ty::I64, Op::Bin(BinOp::Add, base, o))
    }

    /// The address of this work-item's tag.
    fn nu_tag_addr(&mut self) -> Value {
        let base = self.push(Ty::I64, Op::LocalAddr(scratch_offset(self.root) + TAGS));
        let lid = self.push(Ty::I64, Op::Builtin(Builtin::LocalLinearId, 0));
        self.nu_index(base, lid, 4)
    }

    /// Clears this work-item's arrival tag (at the kernel's entry).
    pub(super) fn nu_clear_tag(&mut self) {
        let a = self.nu_tag_addr();
        let zero = self.push(Ty::I32, Op::Const(0));
        self.effect(Op::Store {
            addr: a,
            value: zero,
        });
    }

    /// This instruction's tag (1, 2, ... in the order they are lowered).
    fn nu_tag(&self) -> u64 {
        u64::from(self.nu_tags)
    }

    /// Arrival: stores the operand (if any) and this instruction's tag, a sub-group barrier,
    /// then reads which work-items of the sub-group arrived.
    fn nu_arrive(&mut self, x: Option<Value>) -> Result<Peers, Error> {
        self.nu_tags = self
            .nu_tags
            .checked_add(1)
            .ok_or_else(|| Error::unsupported("too many sub-group instructions"))?;
        self.scratch = self.scratch.max(SCRATCH);
        let off = scratch_offset(self.root);
        if let Some(x) = x {
            let slots = self.push(Ty::I64, Op::LocalAddr(off));
            let lid = self.push(Ty::I64, Op::Builtin(Builtin::LocalLinearId, 0));
            let slot = self.nu_index(slots, lid, 8);
            self.effect(Op::Store {
                addr: slot,
                value: x,
            });
        }
        let ta = self.nu_tag_addr();
        let tag = self.push(Ty::I32, Op::Const(self.nu_tag()));
        self.effect(Op::Store {
            addr: ta,
            value: tag,
        });
        self.effect(Op::SubgroupBarrier);
        // After the barrier: the sub-group's geometry, and who is here.
        let slots = self.push(Ty::I64, Op::LocalAddr(off));
        let tags = self.push(Ty::I64, Op::LocalAddr(off + TAGS));
        let lid = self.push(Ty::I64, Op::Builtin(Builtin::LocalLinearId, 0));
        let mask = self.c64(!(self.sg() - 1));
        let start = self.push(Ty::I64, Op::Bin(BinOp::And, lid, mask));
        let me = self.push(Ty::I64, Op::Bin(BinOp::Sub, lid, start));
        let size = self.push(Ty::I64, Op::Builtin(Builtin::SubgroupSize, 0));
        let one = self.c64(1);
        let last = self.push(Ty::I64, Op::Bin(BinOp::Sub, size, one));
        let tag = self.push(Ty::I32, Op::Const(self.nu_tag()));
        let mut active = Vec::new();
        for k in 0..self.sg() {
            // Slots past the group's end hold stale tags: only `k < size` counts.
            let kk = self.c64(k);
            let j = self.push(Ty::I64, Op::Bin(BinOp::Add, start, kk));
            let a = self.nu_index(tags, j, 4);
            let t = self.push(Ty::I32, Op::Load(a));
            let here = self.push(Ty::Bool, Op::Cmp(CmpOp::Eq, t, tag));
            let inside = self.push(Ty::Bool, Op::Cmp(CmpOp::ULt, kk, size));
            active.push(self.push(Ty::Bool, Op::Bin(BinOp::And, here, inside)));
        }
        Ok(Peers {
            slots,
            start,
            me,
            last,
            active,
        })
    }

    /// The end of an exchange: a sub-group barrier (every reader is done with the slots), then
    /// the work-item's tag is cleared.
    fn nu_leave(&mut self) {
        self.effect(Op::SubgroupBarrier);
        self.nu_clear_tag();
    }

    /// The operand of the sub-group's `k`th work-item (meaningful when it is active).
    fn nu_peer(&mut self, p: &Peers, k: usize, t: Ty) -> Value {
        let kk = self.c64(k as u64);
        let j = self.push(Ty::I64, Op::Bin(BinOp::Add, p.start, kk));
        let a = self.nu_index(p.slots, j, 8);
        self.push(t, Op::Load(a))
    }

    /// The operand of the work-item at index `k` of the sub-group (out of range, which is
    /// undefined: the sub-group's last work-item's).
    fn nu_peer_at(&mut self, p: &Peers, k: Value, t: Ty) -> Value {
        let lt = self.push(Ty::Bool, Op::Cmp(CmpOp::ULt, k, p.last));
        let k = self.push(Ty::I64, Op::Select(lt, k, p.last));
        let j = self.push(Ty::I64, Op::Bin(BinOp::Add, p.start, k));
        let a = self.nu_index(p.slots, j, 8);
        self.push(t, Op::Load(a))
    }

    /// The index of the first active work-item.
    fn nu_first(&mut self, p: &Peers) -> Value {
        let mut f = self.c64(self.sg());
        for k in (0..self.sg() as usize).rev() {
            let kk = self.c64(k as u64);
            f = self.push(Ty::I64, Op::Select(p.active[k], kk, f));
        }
        f
    }

    /// A boolean operand as a storable integer, other values as they are.
    fn nu_storable(&mut self, x: Value) -> (Value, Ty) {
        match self.k.ty(x) {
            Ty::Bool => (self.push(Ty::I32, Op::Conv(ConvOp::BoolToInt, x)), Ty::I32),
            t => (x, t),
        }
    }

    /// `All` (`all`) or `Any` of a predicate over the active work-items.
    fn nu_vote(&mut self, x: Value, all: bool) -> Result<Value, Error> {
        let (xi, t) = self.nu_storable(x);
        let p = self.nu_arrive(Some(xi))?;
        let mut acc = self.push(Ty::Bool, Op::Const(u64::from(all)));
        for k in 0..self.sg() as usize {
            let v = self.nu_peer(&p, k, t);
            let zero = self.push(t, Op::Const(0));
            let set = self.push(Ty::Bool, Op::Cmp(CmpOp::Ne, v, zero));
            let with = if all {
                self.push(Ty::Bool, Op::Bin(BinOp::And, acc, set))
            } else {
                self.push(Ty::Bool, Op::Bin(BinOp::Or, acc, set))
            };
            acc = self.push(Ty::Bool, Op::Select(p.active[k], with, acc));
        }
        self.nu_leave();
        Ok(acc)
    }

    /// `AllEqual` of one scalar: every active work-item's value equals the first one's (floats
    /// compared as numbers: a NaN is equal to nothing).
    fn nu_all_equal(&mut self, x: Value) -> Result<Value, Error> {
        let (xi, t) = self.nu_storable(x);
        let p = self.nu_arrive(Some(xi))?;
        let eq = if t.is_float() { CmpOp::FEq } else { CmpOp::Eq };
        let mut acc = self.push(Ty::Bool, Op::Const(1));
        for k in 0..self.sg() as usize {
            let v = self.nu_peer(&p, k, t);
            let same = self.push(Ty::Bool, Op::Cmp(eq, v, xi));
            let with = self.push(Ty::Bool, Op::Bin(BinOp::And, acc, same));
            acc = self.push(Ty::Bool, Op::Select(p.active[k], with, acc));
        }
        self.nu_leave();
        Ok(acc)
    }

    /// `Broadcast`, `BroadcastFirst` and the shuffles of one scalar: the value of the
    /// work-item the operation names.
    /// `cluster`: a rotation's cluster size (0: the whole sub-group).
    fn nu_read_one(
        &mut self,
        op: u16,
        x: Value,
        index: Option<Value>,
        cluster: u64,
    ) -> Result<Value, Error> {
        let (xi, t) = self.nu_storable(x);
        let p = self.nu_arrive(Some(xi))?;
        let k = match (op, index) {
            (ROTATE_KHR, Some(c)) if cluster > 0 => {
                // (me + delta) mod cluster, in my cluster.
                let low = self.c64(cluster - 1);
                let high = self.c64(!(cluster - 1));
                let base = self.push(Ty::I64, Op::Bin(BinOp::And, p.me, high));
                let r = self.push(Ty::I64, Op::Bin(BinOp::Add, p.me, c));
                let r = self.push(Ty::I64, Op::Bin(BinOp::And, r, low));
                self.push(Ty::I64, Op::Bin(BinOp::Add, base, r))
            }
            (ROTATE_KHR, Some(c)) => {
                // (me + delta) mod the sub-group's size.
                let one = self.c64(1);
                let size = self.push(Ty::I64, Op::Bin(BinOp::Add, p.last, one));
                let r = self.push(Ty::I64, Op::Bin(BinOp::Add, p.me, c));
                self.push(Ty::I64, Op::Bin(BinOp::URem, r, size))
            }
            (346, Some(c)) => self.push(Ty::I64, Op::Bin(BinOp::Xor, p.me, c)),
            (347, Some(c)) => self.push(Ty::I64, Op::Bin(BinOp::Sub, p.me, c)),
            (348, Some(c)) => self.push(Ty::I64, Op::Bin(BinOp::Add, p.me, c)),
            (_, Some(c)) => c,
            (_, None) => self.nu_first(&p),
        };
        let v = self.nu_peer_at(&p, k, t);
        self.nu_leave();
        Ok(self.nu_from_storable(v, self.k.ty(x)))
    }

    fn nu_from_storable(&mut self, v: Value, t: Ty) -> Value {
        if t == Ty::Bool {
            let zero = self.push(Ty::I32, Op::Const(0));
            self.push(Ty::Bool, Op::Cmp(CmpOp::Ne, v, zero))
        } else {
            v
        }
    }

    /// The ballot instructions that read a ballot value `vs` (4 words; only the sub-group's
    /// bits, the low ones of the first word, count): `InverseBallot`, `BallotBitExtract`
    /// (`index`), `BallotBitCount` (group operation `g`), `BallotFindLSB`/`MSB` (no bit set,
    /// which is undefined: 32 / -1).
    fn nu_ballot_read(
        &mut self,
        op: u16,
        g: u32,
        vs: &[Value],
        index: Option<Value>,
    ) -> Result<Value, Error> {
        let lid = self.push(Ty::I64, Op::Builtin(Builtin::SubgroupLocalId, 0));
        let me = self.resize(lid, Ty::I32);
        let one = self.push(Ty::I32, Op::Const(1));
        let zero = self.push(Ty::I32, Op::Const(0));
        let bit_of = |s: &mut Self, w: Value, b: Value| {
            let sh = s.push(Ty::I32, Op::Bin(BinOp::LShr, w, b));
            let b = s.push(Ty::I32, Op::Bin(BinOp::And, sh, one));
            s.push(Ty::Bool, Op::Cmp(CmpOp::Ne, b, zero))
        };
        // The low `n` bits set (n <= 8).
        let low_bits = |s: &mut Self, n: Value| {
            let m = s.push(Ty::I32, Op::Bin(BinOp::Shl, one, n));
            s.push(Ty::I32, Op::Bin(BinOp::Sub, m, one))
        };
        let size = self.push(Ty::I64, Op::Builtin(Builtin::SubgroupSize, 0));
        let size = self.resize(size, Ty::I32);
        let in_group = low_bits(self, size);
        let w = self.push(Ty::I32, Op::Bin(BinOp::And, vs[0], in_group));
        Ok(match op {
            op::GROUP_NON_UNIFORM_INVERSE_BALLOT => bit_of(self, vs[0], me),
            op::GROUP_NON_UNIFORM_BALLOT_BIT_EXTRACT => {
                let Some(ix) = index else {
                    return Err(Error::invalid(
                        "OpGroupNonUniformBallotBitExtract: no index",
                    ));
                };
                let t = self.k.ty(ix);
                if t.is_float() || t == Ty::Bool {
                    return Err(Error::invalid(
                        "OpGroupNonUniformBallotBitExtract: the index is not an integer",
                    ));
                }
                // Bits past 127 (undefined) wrap around.
                let ix = self.resize(ix, Ty::I32);
                let c31 = self.push(Ty::I32, Op::Const(31));
                let b = self.push(Ty::I32, Op::Bin(BinOp::And, ix, c31));
                let c5 = self.push(Ty::I32, Op::Const(5));
                let word = self.push(Ty::I32, Op::Bin(BinOp::LShr, ix, c5));
                let c3 = self.push(Ty::I32, Op::Const(3));
                let word = self.push(Ty::I32, Op::Bin(BinOp::And, word, c3));
                let mut sel = vs[3];
                for (k, v) in vs.iter().enumerate().take(3).rev() {
                    let kk = self.push(Ty::I32, Op::Const(k as u64));
                    let is = self.push(Ty::Bool, Op::Cmp(CmpOp::Eq, word, kk));
                    sel = self.push(Ty::I32, Op::Select(is, *v, sel));
                }
                bit_of(self, sel, b)
            }
            op::GROUP_NON_UNIFORM_BALLOT_BIT_COUNT => {
                let w = match g {
                    group_op::REDUCE => w,
                    group_op::INCLUSIVE_SCAN | group_op::EXCLUSIVE_SCAN => {
                        let n = if g == 1 {
                            self.push(Ty::I32, Op::Bin(BinOp::Add, me, one))
                        } else {
                            me
                        };
                        let m = low_bits(self, n);
                        self.push(Ty::I32, Op::Bin(BinOp::And, w, m))
                    }
                    _ => {
                        return Err(Error::unsupported(format!(
                            "OpGroupNonUniformBallotBitCount with group operation {g}"
                        )))
                    }
                };
                self.push(Ty::I32, Op::Un(UnOp::Popcnt, w))
            }
            op::GROUP_NON_UNIFORM_BALLOT_FIND_LSB => {
                // Trailing zeros: the bits below the lowest set one.
                let wm1 = self.push(Ty::I32, Op::Bin(BinOp::Sub, w, one));
                let nw = self.push(Ty::I32, Op::Un(UnOp::Not, w));
                let below = self.push(Ty::I32, Op::Bin(BinOp::And, nw, wm1));
                self.push(Ty::I32, Op::Un(UnOp::Popcnt, below))
            }
            _ => {
                let lz = self.push(Ty::I32, Op::Un(UnOp::Clz, w));
                let c31 = self.push(Ty::I32, Op::Const(31));
                self.push(Ty::I32, Op::Bin(BinOp::Sub, c31, lz))
            }
        })
    }

    /// The arithmetic instructions (349–364) on one scalar, group operation `g` (0 reduce,
    /// 1 inclusive scan, 2 exclusive scan, 3 clustered reduce over clusters of `cluster`),
    /// combining the active work-items' values in sub-group order.
    fn nu_arith(
        &mut self,
        op: u16,
        g: u32,
        cluster: u64,
        x: Value,
        half: bool,
    ) -> Result<Value, Error> {
        let xt = self.k.ty(x);
        let ok = match op {
            op::GROUP_NON_UNIFORM_F_ADD
            | op::GROUP_NON_UNIFORM_F_MUL
            | op::GROUP_NON_UNIFORM_F_MIN
            | op::GROUP_NON_UNIFORM_F_MAX => xt.is_float(),
            op::GROUP_NON_UNIFORM_LOGICAL_AND
            | op::GROUP_NON_UNIFORM_LOGICAL_OR
            | op::GROUP_NON_UNIFORM_LOGICAL_XOR => xt == Ty::Bool,
            _ => !xt.is_float() && xt != Ty::Bool,
        };
        if !ok {
            return Err(Error::invalid(format!(
                "{}: operands of the wrong type",
                op_name(op)
            )));
        }
        if half
            && matches!(
                op,
                op::GROUP_NON_UNIFORM_F_ADD | op::GROUP_NON_UNIFORM_F_MUL
            )
            && xt != Ty::F32
        {
            return Err(Error::invalid(format!(
                "{}: a half not carried as float",
                op_name(op)
            )));
        }
        let (xi, t) = self.nu_storable(x);
        let p = self.nu_arrive(Some(xi))?;
        let mut acc = self.push(t, Op::Const(identity(op, t)));
        let mut have = self.push(Ty::Bool, Op::Const(0));
        let group = if g == 3 {
            let c = self.c64(!(cluster.min(self.sg()) - 1));
            Some(self.push(Ty::I64, Op::Bin(BinOp::And, p.me, c)))
        } else {
            None
        };
        for k in 0..self.sg() as usize {
            let kk = self.c64(k as u64);
            let take = match g {
                group_op::REDUCE => None,
                group_op::INCLUSIVE_SCAN => {
                    Some(self.push(Ty::Bool, Op::Cmp(CmpOp::ULe, kk, p.me)))
                }
                group_op::EXCLUSIVE_SCAN => {
                    Some(self.push(Ty::Bool, Op::Cmp(CmpOp::ULt, kk, p.me)))
                }
                _ => {
                    // Same cluster: the same index with the low bits cleared.
                    let kc = self.c64(k as u64 & !(cluster.min(self.sg()) - 1));
                    let grp = group.unwrap_or(kc);
                    Some(self.push(Ty::Bool, Op::Cmp(CmpOp::Eq, kc, grp)))
                }
            };
            let take = match take {
                Some(t) => self.push(Ty::Bool, Op::Bin(BinOp::And, t, p.active[k])),
                None => p.active[k],
            };
            let v = self.nu_peer(&p, k, t);
            let c = self.nu_combine(op, t, acc, v, half);
            let next = self.push(t, Op::Select(have, c, v));
            acc = self.push(t, Op::Select(take, next, acc));
            have = self.push(Ty::Bool, Op::Bin(BinOp::Or, have, take));
        }
        self.nu_leave();
        Ok(self.nu_from_storable(acc, xt))
    }

    /// `a op b` (booleans as 0/1 integers; a half sum or product rounded to half).
    pub(super) fn nu_combine(&mut self, op: u16, t: Ty, a: Value, b: Value, half: bool) -> Value {
        let pick = |s: &mut Self, c: CmpOp| {
            let k = s.push(Ty::Bool, Op::Cmp(c, a, b));
            s.push(t, Op::Select(k, a, b))
        };
        let r = match op {
            op::GROUP_NON_UNIFORM_I_ADD => self.push(t, Op::Bin(BinOp::Add, a, b)),
            op::GROUP_NON_UNIFORM_F_ADD => self.push(t, Op::Bin(BinOp::FAdd, a, b)),
            op::GROUP_NON_UNIFORM_I_MUL => self.push(t, Op::Bin(BinOp::Mul, a, b)),
            op::GROUP_NON_UNIFORM_F_MUL => self.push(t, Op::Bin(BinOp::FMul, a, b)),
            op::GROUP_NON_UNIFORM_S_MIN => pick(self, CmpOp::SLt),
            op::GROUP_NON_UNIFORM_U_MIN => pick(self, CmpOp::ULt),
            op::GROUP_NON_UNIFORM_F_MIN => self.push(t, Op::Math(MathFn::Fmin, vec![a, b])),
            op::GROUP_NON_UNIFORM_S_MAX => pick(self, CmpOp::SGt),
            op::GROUP_NON_UNIFORM_U_MAX => pick(self, CmpOp::UGt),
            op::GROUP_NON_UNIFORM_F_MAX => self.push(t, Op::Math(MathFn::Fmax, vec![a, b])),
            op::GROUP_NON_UNIFORM_BITWISE_AND | op::GROUP_NON_UNIFORM_LOGICAL_AND => {
                self.push(t, Op::Bin(BinOp::And, a, b))
            }
            op::GROUP_NON_UNIFORM_BITWISE_OR | op::GROUP_NON_UNIFORM_LOGICAL_OR => {
                self.push(t, Op::Bin(BinOp::Or, a, b))
            }
            _ => self.push(t, Op::Bin(BinOp::Xor, a, b)),
        };
        if half
            && matches!(
                op,
                op::GROUP_NON_UNIFORM_F_ADD | op::GROUP_NON_UNIFORM_F_MUL
            )
        {
            let h = self.push(Ty::I16, Op::Conv(ConvOp::FToF16(Round::Rte), r));
            self.push(t, Op::Conv(ConvOp::F16ToF, h))
        } else {
            r
        }
    }
}

/// The identity of an arithmetic instruction's operation on `t` (an exclusive scan's result
/// for the first active work-item), as bits.
pub(super) fn identity(op: u16, t: Ty) -> u64 {
    let bits = t.bytes() * 8;
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let f = |x: f64| {
        if t == Ty::F32 {
            u64::from((x as f32).to_bits())
        } else {
            x.to_bits()
        }
    };
    match op {
        op::GROUP_NON_UNIFORM_I_MUL | op::GROUP_NON_UNIFORM_LOGICAL_AND => 1,
        op::GROUP_NON_UNIFORM_F_MUL => f(1.0),
        op::GROUP_NON_UNIFORM_S_MIN => mask >> 1,
        op::GROUP_NON_UNIFORM_U_MIN | op::GROUP_NON_UNIFORM_BITWISE_AND => mask,
        op::GROUP_NON_UNIFORM_F_MIN => f(f64::INFINITY),
        op::GROUP_NON_UNIFORM_S_MAX => 1 << (bits - 1),
        op::GROUP_NON_UNIFORM_F_MAX => f(f64::NEG_INFINITY),
        _ => 0,
    }
}
