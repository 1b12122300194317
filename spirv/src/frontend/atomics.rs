//! Atomics: the integer read-modify-write operations, and the flag, float, load and store ones.

use super::{Builder, Frame, Val};
use crate::ir::{AtomicOp, BinOp, CmpOp, ConvOp, MathFn, Op, Reach, Term, Ty, Value};
use crate::spv::{op, op_name, storage, Inst, Type};
use crate::Error;

pub(super) fn atomic_of(op: u16) -> Option<AtomicOp> {
    Some(match op {
        op::ATOMIC_EXCHANGE => AtomicOp::Xchg,
        op::ATOMIC_I_INCREMENT | op::ATOMIC_I_ADD => AtomicOp::Add,
        op::ATOMIC_I_DECREMENT | op::ATOMIC_I_SUB => AtomicOp::Sub,
        op::ATOMIC_S_MIN => AtomicOp::SMin,
        op::ATOMIC_U_MIN => AtomicOp::UMin,
        op::ATOMIC_S_MAX => AtomicOp::SMax,
        op::ATOMIC_U_MAX => AtomicOp::UMax,
        op::ATOMIC_AND => AtomicOp::And,
        op::ATOMIC_OR => AtomicOp::Or,
        op::ATOMIC_XOR => AtomicOp::Xor,
        _ => return None,
    })
}

impl Builder<'_> {
    /// Who can reach the memory the pointer `id` points to: only the work-group when it is
    /// local (`Workgroup` storage), any thread otherwise (generic pointers included).
    fn reach(&self, fr: &Frame, id: u32) -> Reach {
        let ty = fr.vals.get(&id).map(|(_, t)| *t).or_else(|| self.m.globals.get(&id).map(|(t, _)| *t));
        let local = ty
            .and_then(|t| self.m.ty(t).ok())
            .is_some_and(|t| matches!(t, Type::Pointer(sc, _) if *sc == storage::WORKGROUP));
        if local {
            Reach::Group
        } else {
            Reach::Device
        }
    }

    /// Atomic instructions.
    pub(super) fn atomic_inst(&mut self, fr: &mut Frame, i: &Inst) -> Result<bool, Error> {
        let m = self.m;
        let op = i.op;
        // Result type and id of value instructions.
        let rt = || i.w(0);
        let def = |fr: &mut Frame, v: Val, ty: u32| -> Result<(), Error> {
            fr.vals.insert(i.w(1)?, (v, ty));
            Ok(())
        };
        match op {
            op::ATOMIC_LOAD
            | op::ATOMIC_STORE
            | op::ATOMIC_EXCHANGE
            | op::ATOMIC_FLAG_TEST_AND_SET
            | op::ATOMIC_FLAG_CLEAR
            | op::ATOMIC_F_MIN_EXT
            | op::ATOMIC_F_MAX_EXT
            | op::ATOMIC_F_ADD_EXT if self.atomic_ext(fr, i)? => {}
            op::ATOMIC_LOAD
            | op::ATOMIC_STORE
            | op::ATOMIC_EXCHANGE
            | op::ATOMIC_COMPARE_EXCHANGE
            | op::ATOMIC_COMPARE_EXCHANGE_WEAK
            | op::ATOMIC_I_INCREMENT
            | op::ATOMIC_I_DECREMENT
            | op::ATOMIC_I_ADD
            | op::ATOMIC_I_SUB
            | op::ATOMIC_S_MIN
            | op::ATOMIC_U_MIN
            | op::ATOMIC_S_MAX
            | op::ATOMIC_U_MAX
            | op::ATOMIC_AND
            | op::ATOMIC_OR
            | op::ATOMIC_XOR => {
                let (addr_id, value_ix) = match op {
                    op::ATOMIC_STORE => (i.w(0)?, 3),
                    _ => (i.w(2)?, 5),
                };
                let addr = self.val(fr, addr_id)?;
                self.pointer(addr, op)?;
                let reach = self.reach(fr, addr_id);
                if op == op::ATOMIC_STORE {
                    let v = self.val(fr, i.w(value_ix)?)?;
                    self.int_check(v, op)?;
                    self.effect(Op::AtomicStore(addr, v));
                    return Ok(false);
                }
                let ty = m.ir_ty(rt()?)?;
                if !matches!(ty, Ty::I32 | Ty::I64) {
                    return Err(Error::unsupported(format!("{} on {ty:?}", op_name(op))));
                }
                let v = match op {
                    op::ATOMIC_LOAD => self.push(ty, Op::AtomicLoad(addr)),
                    op::ATOMIC_COMPARE_EXCHANGE | op::ATOMIC_COMPARE_EXCHANGE_WEAK => {
                        let value = self.val(fr, i.w(6)?)?;
                        let cmp = self.val(fr, i.w(7)?)?;
                        self.check(ty, &[value, cmp], false, op)?;
                        self.push(ty, Op::AtomicCas(addr, cmp, value, reach))
                    }
                    op::ATOMIC_I_INCREMENT | op::ATOMIC_I_DECREMENT => {
                        let one = self.push(ty, Op::Const(1));
                        self.push(ty, Op::Atomic(atomic_of(op).expect("known"), addr, one, reach))
                    }
                    _ => {
                        let a = atomic_of(op).ok_or_else(|| {
                            Error::unsupported(format!("instruction {}", op_name(op)))
                        })?;
                        let value = self.val(fr, i.w(5)?)?;
                        self.check(ty, &[value], false, op)?;
                        self.push(ty, Op::Atomic(a, addr, value, reach))
                    }
                };
                def(fr, Val::V(v), rt()?)?;
            }
            _ => return Err(Error::unsupported(format!("instruction {}", op_name(op)))),
        }
        Ok(false)
    }

    /// Atomics the integer path does not take: the flag instructions, and loads, stores,
    /// exchanges, additions, minima and maxima of floats (through their bit patterns; the
    /// arithmetic ones as a compare-exchange loop). False when `i` is an integer atomic.
    pub(super) fn atomic_ext(&mut self, fr: &mut Frame, i: &Inst) -> Result<bool, Error> {
        let op = i.op;
        let float_of = |b: &Self, v: Value| -> Result<Option<Ty>, Error> {
            match b.k.ty(v) {
                t @ (Ty::F32 | Ty::F64) => Ok(Some(t)),
                _ => Ok(None),
            }
        };
        let bits_of = |t: Ty| if t == Ty::F32 { Ty::I32 } else { Ty::I64 };
        match op {
            op::ATOMIC_FLAG_TEST_AND_SET => {
                let addr = self.val(fr, i.w(2)?)?;
                self.pointer(addr, op)?;
                let reach = self.reach(fr, i.w(2)?);
                let one = self.push(Ty::I32, Op::Const(1));
                let old = self.push(Ty::I32, Op::Atomic(AtomicOp::Xchg, addr, one, reach));
                let zero = self.push(Ty::I32, Op::Const(0));
                let set = self.push(Ty::Bool, Op::Cmp(CmpOp::Ne, old, zero));
                fr.vals.insert(i.w(1)?, (Val::V(set), i.w(0)?));
                return Ok(true);
            }
            op::ATOMIC_FLAG_CLEAR => {
                let addr = self.val(fr, i.w(0)?)?;
                self.pointer(addr, op)?;
                let zero = self.push(Ty::I32, Op::Const(0));
                self.effect(Op::AtomicStore(addr, zero));
                return Ok(true);
            }
            op::ATOMIC_STORE => {
                let addr = self.val(fr, i.w(0)?)?;
                self.pointer(addr, op)?;
                let v = self.val(fr, i.w(3)?)?;
                let Some(t) = float_of(self, v)? else {
                    return Ok(false);
                };
                let bits = self.push(bits_of(t), Op::Conv(ConvOp::Bitcast, v));
                self.effect(Op::AtomicStore(addr, bits));
                return Ok(true);
            }
            _ => {}
        }
        let ty = self.m.ir_ty(i.w(0)?)?;
        if !ty.is_float() {
            if matches!(op, op::ATOMIC_LOAD | op::ATOMIC_STORE | op::ATOMIC_EXCHANGE) {
                return Ok(false);
            }
            return Err(Error::unsupported(format!("{} on {ty:?}", op_name(op))));
        }
        let it = bits_of(ty);
        let addr = self.val(fr, i.w(2)?)?;
        self.pointer(addr, op)?;
        let reach = self.reach(fr, i.w(2)?);
        let result = match op {
            op::ATOMIC_LOAD => {
                let bits = self.push(it, Op::AtomicLoad(addr));
                self.push(ty, Op::Conv(ConvOp::Bitcast, bits))
            }
            op::ATOMIC_EXCHANGE => {
                let v = self.val(fr, i.w(5)?)?;
                self.check(ty, &[v], true, op)?;
                let bits = self.push(it, Op::Conv(ConvOp::Bitcast, v));
                let old = self.push(it, Op::Atomic(AtomicOp::Xchg, addr, bits, reach));
                self.push(ty, Op::Conv(ConvOp::Bitcast, old))
            }
            _ => {
                let x = self.val(fr, i.w(5)?)?;
                self.check(ty, &[x], true, op)?;
                let first = self.push(it, Op::AtomicLoad(addr));
                let head = self.k.new_block();
                let seen = self.k.new_value(it);
                self.k.blocks[head.0 as usize].params.push(seen);
                self.set_term(Term::Jump(head, vec![first]));
                self.cur = head;
                let old = self.push(ty, Op::Conv(ConvOp::Bitcast, seen));
                let new = match op {
                    op::ATOMIC_F_ADD_EXT => self.push(ty, Op::Bin(BinOp::FAdd, old, x)),
                    op::ATOMIC_F_MIN_EXT => self.push(ty, Op::Math(MathFn::Fmin, vec![old, x])),
                    _ => self.push(ty, Op::Math(MathFn::Fmax, vec![old, x])),
                };
                let new = self.push(it, Op::Conv(ConvOp::Bitcast, new));
                let got = self.push(it, Op::AtomicCas(addr, seen, new, reach));
                let same = self.push(Ty::Bool, Op::Cmp(CmpOp::Eq, got, seen));
                let exit = self.k.new_block();
                self.set_term(Term::Branch(same, (exit, vec![]), (head, vec![got])));
                self.cur = exit;
                old
            }
        };
        fr.vals.insert(i.w(1)?, (Val::V(result), i.w(0)?));
        Ok(true)
    }

}
