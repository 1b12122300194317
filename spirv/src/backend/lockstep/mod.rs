//! Work-items in lockstep: the work-group function of a kernel runs [`W`]
//! consecutive work-items of a row (along x) per turn of its work-item loop, one instruction for
//! all of them, so their independent chains overlap in the CPU and `float`/`int` arithmetic uses
//! SIMD lanes.
//!
//! - A uniformity analysis ([`plan`]) marks every value that may differ between the work-items
//!   of a turn (it depends on the x id, the linear ids, a sub-group id, an atomic's result, or
//!   meets at the join of a divergent branch); the others are computed once per turn.
//! - Each varying value has one of four shapes ([`Lv`]): *affine* (`base + lane * stride`, for
//!   integers: ids and the addresses made from them), a *vector* (`f32x4` / `i32x4`), a lane's
//!   element of a 16-byte *record* ([`record_groups`]), or *lanes* (one scalar per work-item,
//!   computed by the scalar lowering once per lane). A load or store at an affine address whose
//!   stride is the element's size is one vector access.
//! - Divergent branches ([`Div`]) run both sides one after the other under a lane mask (the
//!   `alive` bits) up to where they meet; a side that only returns retires its lanes.
//! - Inactive lanes (past the end of the row, masked, retired) compute harmlessly (no operation
//!   traps) while their memory accesses go to a scratch slot. The blocks are lowered twice: a
//!   [`FULL`] copy for turns that start with every lane active, with no mask checks outside
//!   divergent code, and a [`GENERAL`] copy for the others, with masked accesses only.
//! - A divergent region with a loop runs lane by lane ([`Div::Serial`]): each active lane
//!   runs it with the scalar lowering, and the lanes meet again at its join.
//! - Barriers: each segment has its two copies, and the rounds run turns; a turn stops at a
//!   barrier as one (its state is its first lane's), and values of earlier rounds are computed
//!   again or come from each lane's spill slot ([`Lower::lockstep_dispatch`], `earlier`).
//! - A kernel runs in lockstep when it has no private arrays, `printf`, memory copies, switches
//!   inside divergent regions, sub-group barriers, or barriers that some lane of a turn may not
//!   reach, and (by default) when it pays for its code (`profitable`); otherwise one work-item
//!   after the other, as before.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, BlockArg, InstBuilder, StackSlotData, StackSlotKind, Type};

use super::{ty, CValue, Lower};
use crate::ir::{self, BinOp, ConvOp, Op, Ty};
use crate::ir::operands;
use crate::Error;

mod control;
mod inst;

pub(super) use crate::analysis::lockstep::{plan, Plan, Tile, W};
use crate::analysis::divergence::{exit_like, Div};

/// A value of the work-items of one iteration.
#[derive(Clone, Debug)]
pub(super) enum Lv {
    /// The same for every work-item.
    U(CValue),
    /// Lane `i` is `base + i * stride` (integers, wrapping).
    A(CValue, i64),
    /// A SIMD vector, lane `i` for work-item `i` (`F32` and `I32` values).
    V(CValue),
    /// One scalar per work-item.
    S(Vec<CValue>),
    /// Element `k` of each lane's 16-byte record (`rows[i]`, `f32x4` or `i32x4`).
    R(std::rc::Rc<[CValue; W]>, u8),
}

/// A record group being lowered: its base's lane-0 address, and the rows once loaded.
pub(super) type Record = (CValue, Option<std::rc::Rc<[CValue; W]>>);

/// The two copies of a lockstep kernel's blocks (the `segment` they are lowered as): one for
/// turns with some lane inactive (past the end of the row), one for turns with all four. With
/// barriers, each segment has the two ([`copy`]).
pub(super) const GENERAL: u32 = 0;
/// See [`GENERAL`].
pub(super) const FULL: u32 = 1;

/// The first key of the lanes' own copies of serialized regions ([`Div::Serial`]), above every
/// segment's copies.
pub(super) const SERIAL: u32 = 1 << 30;

/// The copy of segment `seg`'s blocks for full turns (`full`) or the others.
pub(super) fn copy(seg: u32, full: bool) -> u32 {
    seg * 2 + if full { FULL } else { GENERAL }
}

/// Per-iteration values.
#[derive(Clone, Copy)]
pub(super) struct Mask {
    /// The address of a 16-byte scratch slot, where inactive lanes' accesses go.
    scratch: CValue,
}

/// Every lane active, as bits of the `alive` mask.
const ALL: i64 = (1 << W) - 1;

/// The SIMD type of `W` values of type `t`, for the types that have one.
fn vty(t: Ty) -> Option<Type> {
    match t {
        Ty::F32 => Some(types::F32X4),
        Ty::I32 => Some(types::I32X4),
        _ => None,
    }
}

impl Lower<'_> {
    /// True when the kernel runs in lockstep.
    pub(super) fn lockstep(&self) -> bool {
        self.vplan.is_some()
    }

    /// What the plan knows of `v` as a function of the x id's low bits.
    fn tile(&self, v: ir::Value) -> Option<Tile> {
        self.vplan.as_ref().and_then(|p| p.tiles.get(&v).copied())
    }

    fn varying(&self, v: ir::Value) -> bool {
        self.vplan.as_ref().is_some_and(|p| p.varying[v.0 as usize])
    }

    /// The native parameters of block parameter `p` of `cb`.
    pub(super) fn lockstep_param(&mut self, cb: cranelift_codegen::ir::Block, p: ir::Value) {
        let t = self.k.ty(p);
        let lv = if !self.varying(p) {
            let c = self.b.append_block_param(cb, ty(t));
            self.vals.insert((self.segment, p), c);
            Lv::U(c)
        } else if let Some(vt) = vty(t) {
            Lv::V(self.b.append_block_param(cb, vt))
        } else {
            Lv::S(
                (0..W)
                    .map(|_| self.b.append_block_param(cb, ty(t)))
                    .collect(),
            )
        };
        self.lv.insert((self.segment, p), lv);
    }

    /// The work-item loop's latch: the next [`W`] work-items of the row, else the next row.
    pub(super) fn lockstep_latch(
        &mut self,
        header: cranelift_codegen::ir::Block,
        dispatch: cranelift_codegen::ir::Block,
        zero: CValue,
    ) {
        let lsz = self.g().lsz;
        let [x, y, z] = self.lid.map(|l| self.b.use_var(l));
        let nx = self.b.ins().iadd_imm_s(x, W as i64);
        // Within the row: the next four work-items at once.
        let (next, wrap) = (self.b.create_block(), self.b.create_block());
        let more = self.b.ins().icmp(IntCC::UnsignedLessThan, nx, lsz[0]);
        self.b.ins().brif(more, next, &[], wrap, &[]);
        self.b.switch_to_block(next);
        let wi = self.b.use_var(self.wi);
        let wi = self.b.ins().iadd_imm_s(wi, W as i64);
        self.b.def_var(self.wi, wi);
        self.b.def_var(self.lid[0], nx);
        // Four more work-items in the row: straight into the full copy.
        let end = self.b.ins().iadd_imm_s(nx, W as i64);
        let all = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, end, lsz[0]);
        let full = self.full_entry.expect("made with the blocks");
        let every = self.b.ins().iconst(types::I8, ALL);
        self.b.def_var(self.alive, every);
        self.b.ins().brif(all, full, &[], dispatch, &[]);
        // Past the row: the first work-items of the next.
        self.b.switch_to_block(wrap);
        let x = zero;
        let wrapped = self.b.ins().iconst(types::I8, 1);
        let (y, z) = self.carry(wrapped, y, z, zero);
        // The linear id of the row's first lane.
        let row = self.b.ins().imul(z, lsz[1]);
        let row = self.b.ins().iadd(row, y);
        let wi = self.b.ins().imul(row, lsz[0]);
        let wi = self.b.ins().iadd(wi, x);
        self.b.def_var(self.wi, wi);
        for (l, v) in self.lid.into_iter().zip([x, y, z]) {
            self.b.def_var(l, v);
        }
        self.b.ins().jump(header, &[]);
    }

    /// Computes the turn's lane mask (lanes past the end of the row are inactive) and goes on
    /// at the entry of the full copy when all four are active, else of the general copy.
    pub(super) fn lockstep_mask(
        &mut self,
        full_entry: cranelift_codegen::ir::Block,
        general_entry: cranelift_codegen::ir::Block,
    ) {
        let lsz = self.g().lsz[0];
        let x = self.b.use_var(self.lid[0]);
        let left = self.b.ins().isub(lsz, x);
        let w = self.b.ins().iconst(types::I64, W as i64);
        let n = self.b.ins().umin(left, w);
        let one = self.b.ins().iconst(types::I64, 1);
        let bits = self.b.ins().ishl(one, n);
        let bits = self.b.ins().iadd_imm_s(bits, -1);
        let bits = self.b.ins().ireduce(types::I8, bits);
        self.b.def_var(self.alive, bits);
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            16,
            4,
        ));
        let scratch = self.b.ins().stack_addr(types::I64, slot, 0);
        self.vmask = Some(Mask { scratch });
        let all = self.b.ins().icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, left, W as i64);
        self.full_entry = Some(full_entry);
        self.b.ins().brif(all, full_entry, &[], general_entry, &[]);
    }

    /// Whether every lane is active, when known while lowering: the full copy outside
    /// divergent regions and before any lane may have retired; the general copy is only run
    /// for turns with some lane inactive (and then only the slow paths are needed).
    fn known_full(&self) -> Option<bool> {
        if self.segment % 2 == GENERAL {
            return Some(false);
        }
        let partial = self
            .vplan
            .as_ref()
            .is_some_and(|p| p.partial.contains(&self.at.0));
        (self.predicated == 0 && !partial).then_some(true)
    }

    /// True (an `I8`) when every lane is active.
    fn full(&mut self) -> CValue {
        let alive = self.b.use_var(self.alive);
        self.b.ins().icmp_imm_s(IntCC::Equal, alive, ALL)
    }

    /// True (an `I8`) when lane `i` is active.
    fn active(&mut self, i: usize) -> CValue {
        let alive = self.b.use_var(self.alive);
        // Reused only in the block that computed them (they must dominate their uses).
        let here = self.b.current_block();
        if let Some((a, blk, act)) = self.vactive {
            if a == alive && Some(blk) == here {
                return act[i];
            }
        }
        let act: [CValue; W] = std::array::from_fn(|i| {
            let bit = self.b.ins().band_imm_s(alive, 1 << i);
            self.b.ins().icmp_imm_s(IntCC::NotEqual, bit, 0)
        });
        if let Some(blk) = here {
            self.vactive = Some((alive, blk, act));
        }
        act[i]
    }

    fn mask(&self) -> Mask {
        self.vmask
            .expect("the mask is computed at the start of the iteration")
    }

    fn get(&mut self, v: ir::Value) -> Lv {
        let seg = (self.segment / 2) as usize;
        if self.r.barriers() && !self.r.direct(seg, v, self.at.0, self.at.1) {
            return self.earlier(v);
        }
        match self.lv.get(&(self.segment, v)) {
            Some(l) => l.clone(),
            None => Lv::U(self.missing(v)),
        }
    }

    /// A value of an earlier round (with barriers): computed again where [`Regions::remat`]
    /// says it is cheap (its instruction lowered again here, for this turn's lanes), else
    /// loaded from each lane's spill slot (one slot for a uniform value: the turn's first
    /// lane's); once per native block.
    ///
    /// [`Regions::remat`]: crate::analysis::regions::Regions::remat
    fn earlier(&mut self, v: ir::Value) -> Lv {
        let here = self.b.current_block();
        if let Some(l) = self.spilled.get(&(here, v)) {
            return l.clone();
        }
        let t = self.k.ty(v);
        let k = self.k;
        let def = self
            .r
            .def_of(v)
            .and_then(|(b, pos)| k.blocks[b].insts.get(pos.checked_sub(1)?));
        let l = match def {
            Some(inst) if self.r.remat.contains(&v) => {
                // Lowered as if here, then forgotten: the copy's own definition stays for the
                // uses it dominates.
                let key = (self.segment, v);
                let (lv, val) = (self.lv.remove(&key), self.vals.remove(&key));
                let made = self.lockstep_inst(inst).ok().and_then(|()| self.lv.remove(&key));
                self.vals.remove(&key);
                if let Some(l) = lv {
                    self.lv.insert(key, l);
                }
                if let Some(c) = val {
                    self.vals.insert(key, c);
                }
                made.unwrap_or_else(|| Lv::U(self.missing(v)))
            }
            _ => match self.r.spills.get(&v).copied() {
                Some(slot) => {
                    let fl = cranelift_codegen::ir::MemFlagsData::trusted();
                    if self.varying(v) {
                        let a = self.lane_slots(slot);
                        Lv::S(a.into_iter().map(|a| self.b.ins().load(ty(t), fl, a, 0)).collect())
                    } else {
                        let a = self.spill_addr(slot);
                        Lv::U(self.b.ins().load(ty(t), fl, a, 0))
                    }
                }
                None => Lv::U(self.missing(v)),
            },
        };
        // Where the lowering ended up (it may have added blocks).
        let at = self.b.current_block();
        self.spilled.insert((at, v), l.clone());
        l
    }

    /// The addresses of spill slot `slot` of each lane's work-item, inactive lanes' redirected
    /// to the scratch slot.
    fn lane_slots(&mut self, slot: u32) -> Vec<CValue> {
        let a0 = self.spill_addr(slot);
        let stride = i64::from(self.stride);
        let a = (0..W)
            .map(|i| if i == 0 { a0 } else { self.b.ins().iadd_imm_s(a0, stride * i as i64) })
            .collect();
        self.guard(a)
    }

    /// Stores `l`, the value of `v`, to its spill slots when a later round uses it.
    pub(super) fn spill_lv(&mut self, v: ir::Value, l: &Lv) {
        let Some(slot) = self.r.spills.get(&v).copied() else {
            return;
        };
        if !self.r.barriers() {
            return;
        }
        let fl = cranelift_codegen::ir::MemFlagsData::trusted();
        // (A varying value may have one value for all lanes; each lane's slot is read back.)
        if let (Lv::U(c), false) = (l, self.varying(v)) {
            let a = self.spill_addr(slot);
            self.b.ins().store(fl, *c, a, 0);
            return;
        }
        let lanes = self.lanes_of(l.clone());
        let a = self.lane_slots(slot);
        for (x, a) in lanes.into_iter().zip(a) {
            self.b.ins().store(fl, x, a, 0);
        }
    }

    /// A uniform value's native value.
    fn uni(&mut self, v: ir::Value) -> CValue {
        match self.get(v) {
            Lv::U(c) => c,
            other => {
                // The plan guarantees uniform operands where this is called.
                self.broken = true;
                self.lanes_of(other)[0]
            }
        }
    }

    /// One native scalar per lane of a value of shape `l`.
    fn lanes_of(&mut self, l: Lv) -> Vec<CValue> {
        match l {
            Lv::U(c) => vec![c; W],
            Lv::A(b, s) => (0..W)
                .map(|i| {
                    if i == 0 {
                        b
                    } else {
                        self.b.ins().iadd_imm_s(b, s.wrapping_mul(i as i64))
                    }
                })
                .collect(),
            Lv::V(x) => (0..W)
                .map(|i| self.b.ins().extractlane(x, i as u8))
                .collect(),
            Lv::S(l) => l,
            Lv::R(rows, k) => rows
                .iter()
                .map(|r| self.b.ins().extractlane(*r, k))
                .collect(),
        }
    }

    /// One native scalar per lane.
    fn lanes(&mut self, v: ir::Value) -> Vec<CValue> {
        let l = self.get(v);
        self.lanes_of(l)
    }

    /// A SIMD vector (for `F32` and `I32` values).
    fn vector(&mut self, v: ir::Value) -> CValue {
        let vt = vty(self.k.ty(v)).expect("vector of a 32-bit type");
        match self.get(v) {
            Lv::U(c) => self.b.ins().splat(vt, c),
            Lv::V(x) => x,
            l => {
                let lanes = self.lanes_of(l);
                let mut x = self.b.ins().splat(vt, lanes[0]);
                for (i, c) in lanes.iter().enumerate().skip(1) {
                    x = self.b.ins().insertlane(x, *c, i as u8);
                }
                x
            }
        }
    }

    /// Lane addresses, inactive lanes' redirected to the scratch slot.
    fn guarded(&mut self, addr: ir::Value) -> Vec<CValue> {
        let a = self.lanes(addr);
        self.guard(a)
    }

    fn guard(&mut self, mut a: Vec<CValue>) -> Vec<CValue> {
        if self.known_full() == Some(true) {
            return a;
        }
        let scratch = self.mask().scratch;
        for (i, x) in a.iter_mut().enumerate() {
            let act = self.active(i);
            *x = self.b.ins().select(act, *x, scratch);
        }
        a
    }

    /// A uniform address, redirected to the scratch slot when no lane is active (inside a
    /// divergent region).
    fn guard_uniform(&mut self, a: CValue) -> CValue {
        if self.predicated == 0 {
            return a;
        }
        let scratch = self.mask().scratch;
        let alive = self.b.use_var(self.alive);
        let any = self.b.ins().icmp_imm_s(IntCC::NotEqual, alive, 0);
        self.b.ins().select(any, a, scratch)
    }

    fn def_lv(&mut self, v: ir::Value, l: Lv) {
        if let Lv::U(c) = l {
            self.vals.insert((self.segment, v), c);
        }
        self.spill_lv(v, &l);
        self.lv.insert((self.segment, v), l);
    }

    /// Runs `fast` when every lane is active, else `slow`; both give values of types `rts`.
    fn if_full(
        &mut self,
        rts: &[Type],
        fast: impl FnOnce(&mut Self) -> Vec<CValue>,
        slow: impl FnOnce(&mut Self) -> Vec<CValue>,
    ) -> Vec<CValue> {
        match self.known_full() {
            Some(true) => return fast(self),
            Some(false) => return slow(self),
            None => {}
        }
        let full = self.full();
        let (fb, sb, mb) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let res: Vec<CValue> = rts
            .iter()
            .map(|t| self.b.append_block_param(mb, *t))
            .collect();
        self.b.ins().brif(full, fb, &[], sb, &[]);
        self.b.switch_to_block(fb);
        let r = fast(self);
        let args: Vec<BlockArg> = r.into_iter().map(BlockArg::Value).collect();
        self.b.ins().jump(mb, &args);
        self.b.switch_to_block(sb);
        let r = slow(self);
        let args: Vec<BlockArg> = r.into_iter().map(BlockArg::Value).collect();
        self.b.ins().jump(mb, &args);
        self.b.switch_to_block(mb);
        res
    }

    /// Runs the scalar lowering of `op` once per lane (lane `i`'s operands and, for built-ins,
    /// ids), `guard`'s lanes redirected to scratch for the extra lanes.
    fn per_lane(
        &mut self,
        rt: Option<Ty>,
        op: &Op,
        guard: Option<ir::Value>,
    ) -> Result<Option<Vec<CValue>>, Error> {
        let ops = operands(op);
        let mut lanes = Vec::with_capacity(ops.len());
        for o in &ops {
            lanes.push(if Some(*o) == guard {
                self.guarded(*o)
            } else {
                self.lanes(*o)
            });
        }
        let builtin = matches!(op, Op::Builtin(..) | Op::BuiltinDyn(..));
        let mut out = Vec::with_capacity(W);
        for i in 0..W {
            for (o, l) in ops.iter().zip(&lanes) {
                self.vals.insert((self.segment, *o), l[i]);
            }
            let r = if builtin && i > 0 {
                let (x, wi) = (self.b.use_var(self.lid[0]), self.b.use_var(self.wi));
                let xi = self.b.ins().iadd_imm_s(x, i as i64);
                let wii = self.b.ins().iadd_imm_s(wi, i as i64);
                self.b.def_var(self.lid[0], xi);
                self.b.def_var(self.wi, wii);
                let r = self.op(rt, op);
                self.b.def_var(self.lid[0], x);
                self.b.def_var(self.wi, wi);
                r?
            } else {
                self.op(rt, op)?
            };
            if let Some(r) = r {
                out.push(r);
            }
        }
        // Operands that are uniform keep their native value for the scalar lowering.
        for o in &ops {
            if let Some(Lv::U(c)) = self.lv.get(&(self.segment, *o)) {
                self.vals.insert((self.segment, *o), *c);
            }
        }
        Ok((out.len() == W).then_some(out))
    }

    /// A constant operand's bits, if it is one.
    fn constant(&self, v: ir::Value) -> Option<i64> {
        self.consts.get(&v).map(|b| *b as i64)
    }

    /// The affine shape of an integer operation's result `r`, when it has one.
    fn affine(&mut self, r: ir::Value, rt: Ty, op: &Op) -> Option<Lv> {
        if !matches!(rt, Ty::I32 | Ty::I64) {
            return None;
        }
        let bits = rt.bytes() * 8;
        let wrap = |s: i64| if bits == 64 { s } else { (s as i32) as i64 };
        match op {
            Op::Bin(o, a, b) => {
                let (la, lb) = (self.get(*a), self.get(*b));
                let l = match (o, la, lb) {
                    (BinOp::Add, Lv::A(x, s), Lv::U(u)) | (BinOp::Add, Lv::U(u), Lv::A(x, s)) => {
                        Lv::A(self.b.ins().iadd(x, u), s)
                    }
                    (BinOp::Add, Lv::A(x, s), Lv::A(y, t)) => {
                        Lv::A(self.b.ins().iadd(x, y), wrap(s.wrapping_add(t)))
                    }
                    (BinOp::Sub, Lv::A(x, s), Lv::U(u)) => Lv::A(self.b.ins().isub(x, u), s),
                    (BinOp::Sub, Lv::U(u), Lv::A(x, s)) => {
                        Lv::A(self.b.ins().isub(u, x), wrap(s.wrapping_neg()))
                    }
                    (BinOp::Sub, Lv::A(x, s), Lv::A(y, t)) => {
                        Lv::A(self.b.ins().isub(x, y), wrap(s.wrapping_sub(t)))
                    }
                    (BinOp::Mul, Lv::A(x, s), Lv::U(u)) => {
                        let c = self.constant(*b)?;
                        Lv::A(self.b.ins().imul(x, u), wrap(s.wrapping_mul(c)))
                    }
                    (BinOp::Mul, Lv::U(u), Lv::A(x, s)) => {
                        let c = self.constant(*a)?;
                        Lv::A(self.b.ins().imul(u, x), wrap(s.wrapping_mul(c)))
                    }
                    // Lanes `base + i`, `base` a multiple of W (the plan's tiles): the mask
                    // keeps the shape, the shift leaves the same value in every lane.
                    (BinOp::And, Lv::A(x, 1), Lv::U(u)) if self.tile(r) == Some(Tile::Aligned) => {
                        Lv::A(self.b.ins().band(x, u), 1)
                    }
                    (BinOp::LShr, Lv::A(x, 1), Lv::U(u)) if self.tile(r) == Some(Tile::Row) => {
                        Lv::U(self.b.ins().ushr(x, u))
                    }
                    (BinOp::AShr, Lv::A(x, 1), Lv::U(u)) if self.tile(r) == Some(Tile::Row) => {
                        Lv::U(self.b.ins().sshr(x, u))
                    }
                    (BinOp::Shl, Lv::A(x, s), Lv::U(_)) => {
                        let k = self.constant(*b)?;
                        if !(0..i64::from(bits)).contains(&k) {
                            return None;
                        }
                        let u = self.b.ins().iconst(ty(rt), k);
                        Lv::A(self.b.ins().ishl(x, u), wrap(s.wrapping_shl(k as u32)))
                    }
                    _ => return None,
                };
                Some(match l {
                    Lv::A(x, 0) => Lv::U(x),
                    l => l,
                })
            }
            // Truncation keeps the shape (modular arithmetic). Widening keeps it when the
            // lanes do not wrap around in the narrow type; the shape assumes so, as OpenCL C's
            // signed overflow is undefined and an index past 2^31 (2^32 unsigned) elements
            // would address the wrong element either way: `int i = get_global_id(0)`.
            Op::Conv(c @ (ConvOp::UResize | ConvOp::SResize), a) => match self.get(*a) {
                Lv::A(x, s) => {
                    let from = self.k.ty(*a);
                    let x = if from == rt {
                        x
                    } else if from.bytes() > rt.bytes() {
                        self.b.ins().ireduce(ty(rt), x)
                    } else if *c == ConvOp::SResize {
                        self.b.ins().sextend(ty(rt), x)
                    } else {
                        self.b.ins().uextend(ty(rt), x)
                    };
                    Some(Lv::A(x, wrap(s)))
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// The SIMD form of an operation on `F32` / `I32` values, when it has one
    /// ([`super::ops::lanes_have`]): the scalar lowering's own emitters on vectors.
    fn simd(&mut self, rt: Ty, op: &Op) -> Option<CValue> {
        let vt = vty(rt)?;
        if !super::ops::lanes_have(op, rt == Ty::F32, self.fma) {
            return None;
        }
        Some(match op {
            Op::Bin(o, a, b) => {
                let (x, y) = (self.vector(*a), self.vector(*b));
                self.bin(*o, vt, x, y)
            }
            Op::Un(o, a) => {
                let x = self.vector(*a);
                self.un(*o, false, x)
            }
            Op::Math(f, args) => {
                let a: Vec<CValue> = args.iter().map(|a| self.vector(*a)).collect();
                self.inline_math(*f, &a)?
            }
            _ => return None,
        })
    }

}
