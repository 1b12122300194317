//! The lockstep lowering of instructions: per-lane, affine, SIMD and record-group forms of
//! each operation, and vector loads and stores.

use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Type};

use super::{ty, vty, CValue, Lower, Lv, W};
use crate::ir::{self, Builtin, Op, Ty};
use crate::Error;

use crate::backend::module::runtime_fn;
#[cfg(target_arch = "x86_64")]
use crate::rt::lanes::stream_shims;

impl Lower<'_> {
    /// Lowers one instruction for all lanes.
    pub(in crate::backend) fn lockstep_op(&mut self, inst: &ir::Inst) -> Result<(), Error> {
        if self.record_access(inst) {
            return Ok(());
        }
        self.lockstep_inst(inst)
    }

    /// [`Self::lockstep_op`] of an instruction that is no record group's member.
    pub(super) fn lockstep_inst(&mut self, inst: &ir::Inst) -> Result<(), Error> {
        let rt = inst.result.map(|r| self.k.ty(r));
        let fl = MemFlagsData::new();
        match &inst.op {
            Op::Store { addr, value } => {
                let vt = self.k.ty(*value);
                let (la, lv) = (self.get(*addr), self.get(*value));
                match (la, lv) {
                    (Lv::U(a), Lv::U(v)) => {
                        let a = self.guard_uniform(a);
                        self.b.ins().store(fl, v, a, 0);
                    }
                    (Lv::A(a, s), _) if vty(vt).is_some() && s == i64::from(vt.bytes()) => {
                        let x = self.vector(*value);
                        let (addr, value) = (*addr, *value);
                        self.if_full(
                            &[],
                            |me| {
                                me.b.ins().store(fl, x, a, 0);
                                vec![]
                            },
                            |me| {
                                let _ = (addr, value);
                                let scratch = me.mask().scratch;
                                me.b.ins().store(fl, x, scratch, 0);
                                let alive = me.b.use_var(me.alive);
                                let alive = me.b.ins().uextend(types::I32, alive);
                                let f = runtime_fn("zekit_lanes_scatter");
                                me.call(
                                    f,
                                    &[types::I64, types::I32, types::I64],
                                    types::INVALID,
                                    &[a, alive, scratch],
                                );
                                vec![]
                            },
                        );
                    }
                    // Scattered: each lane on its own, inactive lanes to the scratch slot (no
                    // branch: a branch per access costs more to compile than it saves).
                    _ => self.store_lanes(*addr, *value, true),
                }
                return Ok(());
            }
            Op::Load(a) => {
                let r = inst.result.expect("a load has a result");
                let t = self.k.ty(r);
                let a = *a;
                if let Some(v) = self.arg_words.get(&(a, ty(t))) {
                    self.def_lv(r, Lv::U(*v));
                    return Ok(());
                }
                let l = match self.get(a) {
                    Lv::U(x) => {
                        let x = self.guard_uniform(x);
                        Lv::U(self.b.ins().load(ty(t), fl, x, 0))
                    }
                    Lv::A(x, s) if vty(t).is_some() && s == i64::from(t.bytes()) => {
                        let vt = vty(t).expect("checked");
                        let v = self.if_full(
                            &[vt],
                            |me| vec![me.b.ins().load(vt, fl, x, 0)],
                            |me| {
                                let _ = a;
                                let scratch = me.mask().scratch;
                                let alive = me.b.use_var(me.alive);
                                let alive = me.b.ins().uextend(types::I32, alive);
                                let f = runtime_fn("zekit_lanes_gather");
                                me.call(
                                    f,
                                    &[types::I64, types::I64, types::I32],
                                    types::INVALID,
                                    &[scratch, x, alive],
                                );
                                vec![me.b.ins().load(vt, fl, scratch, 0)]
                            },
                        );
                        Lv::V(v[0])
                    }
                    _ => Lv::S(self.load_lanes(a, t, true)),
                };
                self.def_lv(r, l);
                return Ok(());
            }
            Op::Atomic(_, a, _, _)
            | Op::AtomicCas(a, _, _, _)
            | Op::AtomicLoad(a)
            | Op::AtomicStore(a, _) => {
                let out = self.per_lane(rt, &inst.op, Some(*a))?;
                if let (Some(r), Some(out)) = (inst.result, out) {
                    self.def_lv(r, Lv::S(out));
                }
                return Ok(());
            }
            Op::Const(bits) => {
                if let Some(r) = inst.result {
                    self.consts.insert(r, *bits);
                }
            }
            _ => {}
        }
        let Some(r) = inst.result else {
            return Err(Error::internal("an operation without a result in lockstep"));
        };
        let t = self.k.ty(r);
        if !self.varying(r) {
            // The scalar lowering reads its operands from `vals`: this copy's, or (with
            // barriers) those of an earlier round.
            for o in crate::ir::operands(&inst.op) {
                let c = self.uni(o);
                self.vals.insert((self.segment, o), c);
            }
            let c = self
                .op(rt, &inst.op)?
                .ok_or_else(|| Error::internal("no value"))?;
            self.def_lv(r, Lv::U(c));
            return Ok(());
        }
        if let Op::Builtin(b, d) = &inst.op {
            let affine = matches!(
                (b, d),
                (Builtin::LocalId | Builtin::GlobalId, 0)
                    | (Builtin::LocalLinearId | Builtin::GlobalLinearId, _)
            );
            if affine {
                let c = self.builtin(*b, 0);
                self.def_lv(r, Lv::A(c, 1));
                return Ok(());
            }
        }
        if let Some(l) = self.affine(r, t, &inst.op) {
            self.def_lv(r, l);
            return Ok(());
        }
        if let Some(v) = self.simd(t, &inst.op) {
            self.def_lv(r, Lv::V(v));
            return Ok(());
        }
        let out = self
            .per_lane(rt, &inst.op, None)?
            .ok_or_else(|| Error::internal("no value"))?;
        self.def_lv(r, Lv::S(out));
        Ok(())
    }

    /// The lanes' record addresses (a 16-byte stride from `b`).
    pub(super) fn record_lanes(&mut self, b: CValue) -> Vec<CValue> {
        (0..W)
            .map(|i| {
                if i == 0 {
                    b
                } else {
                    self.b.ins().iadd_imm_s(b, 16 * i as i64)
                }
            })
            .collect()
    }

    /// Lowers a member of a record group as one 16-byte access per lane (loads: all four
    /// at the first member; stores: all four at the last). False when `inst` is not a member
    /// or its group's base is not affine with a 16-byte stride.
    pub(super) fn record_access(&mut self, inst: &ir::Inst) -> bool {
        let (bi, ii) = (self.at.0, self.at.1 - 1);
        let Some(m) = self
            .vplan
            .as_ref()
            .and_then(|p| p.groups.get(&(bi, ii)))
            .copied()
        else {
            return false;
        };
        let key = (self.segment, bi, m.first);
        if ii == m.first {
            match self.get(m.root) {
                Lv::A(b, 16) if self.k.ty(m.root) == Ty::I64 => {
                    self.records.insert(key, (b, None));
                }
                _ => return false,
            }
        }
        let Some((b, rows)) = self.records.get(&key).cloned() else {
            return false;
        };
        let fl = MemFlagsData::new();
        match (&inst.op, m.store) {
            (Op::Load(_), false) => {
                let r = inst.result.expect("a load has a result");
                let rows = match rows {
                    Some(rows) => rows,
                    None => {
                        let vt = vty(self.k.ty(r)).expect("a 32-bit member");
                        let a = self.record_lanes(b);
                        let load = |me: &mut Self, a: Vec<CValue>| -> Vec<CValue> {
                            a.into_iter()
                                .map(|a| me.b.ins().load(vt, fl, a, 0))
                                .collect()
                        };
                        let rows = self.if_full(
                            &[vt; W],
                            |me| load(me, a.clone()),
                            |me| {
                                let g = me.guard(a.clone());
                                load(me, g)
                            },
                        );
                        let rows: [CValue; W] = std::array::from_fn(|i| rows[i]);
                        let rows = std::rc::Rc::new(rows);
                        self.records.insert(key, (b, Some(rows.clone())));
                        rows
                    }
                };
                self.def_lv(r, Lv::R(rows, m.k));
            }
            (Op::Store { .. }, true) if ii == m.last => {
                // The four values, by element.
                let mut vals = [None; W];
                for j in m.first..=m.last {
                    if let (Some(o), Op::Store { value, .. }) = (
                        self.vplan
                            .as_ref()
                            .and_then(|p| p.groups.get(&(bi, j)))
                            .copied(),
                        &self.k.blocks[bi].insts[j].op,
                    ) {
                        if o.first == m.first {
                            vals[o.k as usize] = Some(*value);
                        }
                    }
                }
                let vals = vals.map(|v| v.expect("a complete group"));
                let ls: Vec<Lv> = vals.iter().map(|v| self.get(*v)).collect();
                // A record copied as it was loaded keeps its rows.
                let same = match &ls[0] {
                    Lv::R(rows, 0) => ls.iter().enumerate().all(|(k, l)| {
                        matches!(l, Lv::R(r, kk) if std::rc::Rc::ptr_eq(r, rows) && usize::from(*kk) == k)
                    }),
                    _ => false,
                };
                let rows: [CValue; W] = if same {
                    let Lv::R(rows, _) = &ls[0] else {
                        unreachable!()
                    };
                    **rows
                } else {
                    let vt = vty(self.k.ty(vals[0])).expect("a 32-bit member");
                    let lanes: Vec<Vec<CValue>> = vals.iter().map(|v| self.lanes(*v)).collect();
                    std::array::from_fn(|i| {
                        let mut row = self.b.ins().splat(vt, lanes[0][i]);
                        for (k, l) in lanes.iter().enumerate().skip(1) {
                            row = self.b.ins().insertlane(row, l[i], k as u8);
                        }
                        row
                    })
                };
                let a = self.record_lanes(b);
                let store = |me: &mut Self, a: Vec<CValue>| {
                    for (a, row) in a.into_iter().zip(rows) {
                        me.b.ins().store(fl, row, a, 0);
                    }
                    vec![]
                };
                let stream = self
                    .vplan
                    .as_ref()
                    .is_some_and(|p| p.streams.contains(&(bi, m.first)));
                self.if_full(
                    &[],
                    |me| match me.g().stream {
                        Some(flag) if stream => me.stream_rows(flag, a.clone(), rows, store),
                        _ => store(me, a.clone()),
                    },
                    |me| {
                        let g = me.guard(a.clone());
                        store(me, g)
                    },
                );
            }
            // Earlier stores of the group wait for the last.
            (Op::Store { .. }, true) => {}
            _ => return false,
        }
        true
    }

    /// A full turn's record store: through the non-temporal shim when the launch's `flag` asks
    /// for it, else by `store`.
    pub(super) fn stream_rows(
        &mut self,
        flag: CValue,
        a: Vec<CValue>,
        rows: [CValue; W],
        store: impl FnOnce(&mut Self, Vec<CValue>) -> Vec<CValue>,
    ) -> Vec<CValue> {
        #[cfg(target_arch = "x86_64")]
        {
            let t = self.b.func.dfg.value_type(rows[0]);
            // Rows are f32x4 or i32x4 (`vty`); anything else stores as usual.
            let Some((_, f, _)) = stream_shims().into_iter().find(|s| s.2 == t) else {
                return store(self, a);
            };
            let (sb, pb, jb) = (
                self.b.create_block(),
                self.b.create_block(),
                self.b.create_block(),
            );
            self.b.ins().brif(flag, sb, &[], pb, &[]);
            self.b.switch_to_block(sb);
            let mut args = vec![a[0]];
            args.extend(rows);
            let params: Vec<Type> = args.iter().map(|v| self.b.func.dfg.value_type(*v)).collect();
            self.call(f, &params, types::INVALID, &args);
            self.b.ins().jump(jb, &[]);
            self.b.switch_to_block(pb);
            store(self, a);
            self.b.ins().jump(jb, &[]);
            self.b.switch_to_block(jb);
            vec![]
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (flag, rows);
            store(self, a)
        }
    }

    /// Loads per lane (`guard`: inactive lanes read the scratch slot).
    pub(super) fn load_lanes(&mut self, addr: ir::Value, t: Ty, guard: bool) -> Vec<CValue> {
        let a = if guard {
            self.guarded(addr)
        } else {
            self.lanes(addr)
        };
        a.into_iter()
            .map(|a| self.b.ins().load(ty(t), MemFlagsData::new(), a, 0))
            .collect()
    }

    /// Stores per lane, in lane order (the last work-item's value stays where several write);
    /// `guard`: inactive lanes write to the scratch slot.
    pub(super) fn store_lanes(&mut self, addr: ir::Value, value: ir::Value, guard: bool) {
        let v = self.lanes(value);
        let a = if guard {
            self.guarded(addr)
        } else {
            self.lanes(addr)
        };
        for (a, v) in a.into_iter().zip(v) {
            self.b.ins().store(MemFlagsData::new(), v, a, 0);
        }
    }

}
