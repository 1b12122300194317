//! Arithmetic, logic, comparisons, selects and conversions, and vectors lowered element by
//! element.

use super::{Builder, ConstVal, Frame, Val};
use crate::ir::{BinOp, CmpOp, ConvOp, MathFn, Op, Ty, UnOp, Value};
use crate::spv::{cl, op, op_name, Inst};
use crate::Error;

pub(super) fn cmp_of(op: u16) -> Option<CmpOp> {
    Some(match op {
        op::LOGICAL_EQUAL | op::I_EQUAL => CmpOp::Eq,
        op::LOGICAL_NOT_EQUAL | op::I_NOT_EQUAL => CmpOp::Ne,
        op::U_GREATER_THAN => CmpOp::UGt,
        op::S_GREATER_THAN => CmpOp::SGt,
        op::U_GREATER_THAN_EQUAL => CmpOp::UGe,
        op::S_GREATER_THAN_EQUAL => CmpOp::SGe,
        op::U_LESS_THAN => CmpOp::ULt,
        op::S_LESS_THAN => CmpOp::SLt,
        op::U_LESS_THAN_EQUAL => CmpOp::ULe,
        op::S_LESS_THAN_EQUAL => CmpOp::SLe,
        op::F_ORD_EQUAL => CmpOp::FEq,
        op::F_UNORD_EQUAL => CmpOp::FUnordEq,
        op::F_ORD_NOT_EQUAL => CmpOp::FNe,
        op::F_UNORD_NOT_EQUAL => CmpOp::FUnordNe,
        op::F_ORD_LESS_THAN => CmpOp::FLt,
        op::F_UNORD_LESS_THAN => CmpOp::FUnordLt,
        op::F_ORD_GREATER_THAN => CmpOp::FGt,
        op::F_UNORD_GREATER_THAN => CmpOp::FUnordGt,
        op::F_ORD_LESS_THAN_EQUAL => CmpOp::FLe,
        op::F_UNORD_LESS_THAN_EQUAL => CmpOp::FUnordLe,
        op::F_ORD_GREATER_THAN_EQUAL => CmpOp::FGe,
        op::F_UNORD_GREATER_THAN_EQUAL => CmpOp::FUnordGe,
        op::ORDERED => CmpOp::FOrd,
        op::UNORDERED => CmpOp::FUnord,
        _ => return None,
    })
}

pub(super) fn bin_of(op: u16) -> Option<BinOp> {
    Some(match op {
        op::I_ADD => BinOp::Add,
        op::F_ADD => BinOp::FAdd,
        op::I_SUB => BinOp::Sub,
        op::F_SUB => BinOp::FSub,
        op::I_MUL => BinOp::Mul,
        op::F_MUL => BinOp::FMul,
        op::U_DIV => BinOp::UDiv,
        op::S_DIV => BinOp::SDiv,
        op::F_DIV => BinOp::FDiv,
        op::U_MOD => BinOp::URem,
        op::S_REM => BinOp::SRem,
        op::S_MOD => BinOp::SMod,
        op::F_REM => BinOp::FRem,
        op::SHIFT_RIGHT_LOGICAL => BinOp::LShr,
        op::SHIFT_RIGHT_ARITHMETIC => BinOp::AShr,
        op::SHIFT_LEFT_LOGICAL => BinOp::Shl,
        op::BITWISE_OR | op::LOGICAL_OR => BinOp::Or,
        op::BITWISE_XOR => BinOp::Xor,
        op::BITWISE_AND | op::LOGICAL_AND => BinOp::And,
        _ => return None,
    })
}

/// OpenCL.std s_max (156), u_max, s_min, u_min (159): the comparison that picks the first
/// operand.
pub(super) fn int_min_max(n: u32) -> Option<CmpOp> {
    Some(match n {
        cl::S_MAX => CmpOp::SGt,
        cl::U_MAX => CmpOp::UGt,
        cl::S_MIN => CmpOp::SLt,
        cl::U_MIN => CmpOp::ULt,
        _ => return None,
    })
}

/// Instructions computed element by element on vectors, and where their id operands start.
pub(super) fn elementwise(op: u16) -> Option<usize> {
    match op {
        op::CONVERT_F_TO_U
        | op::CONVERT_F_TO_S
        | op::CONVERT_S_TO_F
        | op::CONVERT_U_TO_F
        | op::U_CONVERT
        | op::S_CONVERT
        | op::F_CONVERT
        | op::QUANTIZE_TO_F16
        | op::SAT_CONVERT_S_TO_U
        | op::SAT_CONVERT_U_TO_S
        | op::BITCAST
        | op::S_NEGATE
        | op::F_NEGATE
        | op::I_ADD
        | op::F_ADD
        | op::I_SUB
        | op::F_SUB
        | op::I_MUL
        | op::F_MUL
        | op::U_DIV
        | op::S_DIV
        | op::F_DIV
        | op::U_MOD
        | op::S_REM
        | op::S_MOD
        | op::F_REM
        | op::F_MOD
        | op::IS_NAN
        | op::IS_INF
        | op::IS_FINITE
        | op::IS_NORMAL
        | op::SIGN_BIT_SET
        | op::ORDERED..=op::BIT_COUNT => Some(2),
        op::EXT_INST => Some(4),
        _ => None,
    }
}

impl Builder<'_> {
    /// Conversions, casts, arithmetic, logic, comparisons and selects.
    pub(super) fn arith_inst(&mut self, fr: &mut Frame, i: &Inst) -> Result<bool, Error> {
        let m = self.m;
        let op = i.op;
        // Result type and id of value instructions.
        let rt = || i.w(0);
        let def = |fr: &mut Frame, v: Val, ty: u32| -> Result<(), Error> {
            fr.vals.insert(i.w(1)?, (v, ty));
            Ok(())
        };
        match op {
            op::COPY_OBJECT
            | op::PTR_CAST_TO_GENERIC
            | op::GENERIC_CAST_TO_PTR
            | op::GENERIC_CAST_TO_PTR_EXPLICIT => {
                let (v, _) = self.get(fr, i.w(2)?)?;
                def(fr, v, rt()?)?;
            }
            op::CONVERT_F_TO_U
            | op::CONVERT_F_TO_S
            | op::CONVERT_S_TO_F
            | op::CONVERT_U_TO_F
            | op::U_CONVERT
            | op::S_CONVERT
            | op::F_CONVERT
            | op::CONVERT_PTR_TO_U
            | op::CONVERT_U_TO_PTR
            | op::BITCAST => {
                let x = self.val(fr, i.w(2)?)?;
                let to = m.ir_ty(rt()?)?;
                let from = self.k.ty(x);
                let cop = match op {
                    op::CONVERT_F_TO_U => ConvOp::FToU,
                    op::CONVERT_F_TO_S => ConvOp::FToS,
                    op::CONVERT_S_TO_F => ConvOp::SToF,
                    op::CONVERT_U_TO_F => ConvOp::UToF,
                    op::U_CONVERT | op::CONVERT_PTR_TO_U | op::CONVERT_U_TO_PTR => ConvOp::UResize,
                    op::S_CONVERT => ConvOp::SResize,
                    op::F_CONVERT => ConvOp::FResize,
                    _ => {
                        if from.bytes() != to.bytes() || from == Ty::Bool {
                            return Err(Error::invalid(
                                "OpBitcast between types of different sizes",
                            ));
                        }
                        ConvOp::Bitcast
                    }
                };
                let ok = match cop {
                    ConvOp::FToU | ConvOp::FToS => {
                        from.is_float() && !to.is_float() && to != Ty::Bool
                    }
                    ConvOp::SToF | ConvOp::UToF => {
                        !from.is_float() && from != Ty::Bool && to.is_float()
                    }
                    ConvOp::FResize => from.is_float() && to.is_float(),
                    ConvOp::UResize | ConvOp::SResize => {
                        !from.is_float() && !to.is_float() && from != Ty::Bool && to != Ty::Bool
                    }
                    _ => true,
                };
                if !ok {
                    return Err(Error::invalid(format!(
                        "{}: operand of the wrong type",
                        op_name(op)
                    )));
                }
                let v = if from == to && cop != ConvOp::Bitcast {
                    x
                } else {
                    self.push(to, Op::Conv(cop, x))
                };
                def(fr, Val::V(v), rt()?)?;
            }
            op::BIT_COUNT => {
                let x = self.val(fr, i.w(2)?)?;
                let ty = m.ir_ty(rt()?)?;
                if ty.is_float() || ty == Ty::Bool || self.k.ty(x) != ty {
                    return Err(Error::invalid("OpBitCount of a non-integer"));
                }
                let v = self.push(ty, Op::Un(UnOp::Popcnt, x));
                def(fr, Val::V(v), rt()?)?;
            }
            op::S_NEGATE | op::F_NEGATE | op::NOT | op::LOGICAL_NOT => {
                let x = self.val(fr, i.w(2)?)?;
                let ty = m.ir_ty(rt()?)?;
                let u = match op {
                    op::S_NEGATE => UnOp::Neg,
                    op::F_NEGATE => UnOp::FNeg,
                    _ => UnOp::Not,
                };
                self.check(ty, &[x], u == UnOp::FNeg, op)?;
                let v = self.push(ty, Op::Un(u, x));
                def(fr, Val::V(v), rt()?)?;
            }
            op::I_ADD
            | op::F_ADD
            | op::I_SUB
            | op::F_SUB
            | op::I_MUL
            | op::F_MUL
            | op::U_DIV
            | op::S_DIV
            | op::F_DIV
            | op::U_MOD
            | op::S_REM
            | op::S_MOD
            | op::F_REM
            | op::LOGICAL_OR
            | op::LOGICAL_AND
            | op::SHIFT_RIGHT_LOGICAL
            | op::SHIFT_RIGHT_ARITHMETIC
            | op::SHIFT_LEFT_LOGICAL
            | op::BITWISE_OR
            | op::BITWISE_XOR
            | op::BITWISE_AND => {
                let bop = bin_of(op)
                    .ok_or_else(|| Error::unsupported(format!("instruction {}", op_name(op))))?;
                let a = self.val(fr, i.w(2)?)?;
                let b = self.val(fr, i.w(3)?)?;
                let ty = m.ir_ty(rt()?)?;
                let float = matches!(
                    bop,
                    BinOp::FAdd | BinOp::FSub | BinOp::FMul | BinOp::FDiv | BinOp::FRem
                );
                let shift = matches!(bop, BinOp::Shl | BinOp::LShr | BinOp::AShr);
                if shift {
                    self.check(ty, &[a], false, op)?;
                    if self.k.ty(b).is_float() || self.k.ty(b) == Ty::Bool {
                        return Err(Error::invalid(format!(
                            "{}: shift amount is not an integer",
                            op_name(op)
                        )));
                    }
                } else {
                    self.check(ty, &[a, b], float, op)?;
                }
                if ty == Ty::Bool && !matches!(bop, BinOp::And | BinOp::Or | BinOp::Xor) {
                    return Err(Error::invalid(format!("{} on booleans", op_name(op))));
                }
                let v = self.push(ty, Op::Bin(bop, a, b));
                def(fr, Val::V(v), rt()?)?;
            }
            op::IS_NAN | op::IS_INF => {
                let x = self.val(fr, i.w(2)?)?;
                let t = self.k.ty(x);
                if !t.is_float() {
                    return Err(Error::invalid(format!("{} of a non-float", op_name(op))));
                }
                let v = if op == op::IS_NAN {
                    self.push(Ty::Bool, Op::Cmp(CmpOp::FUnord, x, x))
                } else {
                    let a = self.push(t, Op::Math(MathFn::Fabs, vec![x]));
                    let inf = if t == Ty::F32 {
                        u64::from(f32::INFINITY.to_bits())
                    } else {
                        f64::INFINITY.to_bits()
                    };
                    let c = self.push(t, Op::Const(inf));
                    self.push(Ty::Bool, Op::Cmp(CmpOp::FEq, a, c))
                };
                def(fr, Val::V(v), rt()?)?;
            }
            op::ORDERED
            | op::UNORDERED
            | op::LOGICAL_EQUAL
            | op::LOGICAL_NOT_EQUAL
            | op::I_EQUAL
            | op::I_NOT_EQUAL
            | op::U_GREATER_THAN
            | op::S_GREATER_THAN
            | op::U_GREATER_THAN_EQUAL
            | op::S_GREATER_THAN_EQUAL
            | op::U_LESS_THAN
            | op::S_LESS_THAN
            | op::U_LESS_THAN_EQUAL
            | op::S_LESS_THAN_EQUAL
            | op::F_ORD_EQUAL
            | op::F_UNORD_EQUAL
            | op::F_ORD_NOT_EQUAL
            | op::F_UNORD_NOT_EQUAL
            | op::F_ORD_LESS_THAN
            | op::F_UNORD_LESS_THAN
            | op::F_ORD_GREATER_THAN
            | op::F_UNORD_GREATER_THAN
            | op::F_ORD_LESS_THAN_EQUAL
            | op::F_UNORD_LESS_THAN_EQUAL
            | op::F_ORD_GREATER_THAN_EQUAL
            | op::F_UNORD_GREATER_THAN_EQUAL => {
                let c = cmp_of(op)
                    .ok_or_else(|| Error::unsupported(format!("instruction {}", op_name(op))))?;
                let a = self.val(fr, i.w(2)?)?;
                let b = self.val(fr, i.w(3)?)?;
                let t = self.k.ty(a);
                let float = op >= op::F_ORD_EQUAL || op == op::ORDERED || op == op::UNORDERED;
                self.check(t, &[a, b], float, op)?;
                if (op == op::LOGICAL_EQUAL || op == op::LOGICAL_NOT_EQUAL) != (t == Ty::Bool)
                    && t == Ty::Bool
                {
                    return Err(Error::invalid(format!("{} on booleans", op_name(op))));
                }
                let v = self.push(Ty::Bool, Op::Cmp(c, a, b));
                def(fr, Val::V(v), rt()?)?;
            }
            op::SELECT => {
                let c = self.val(fr, i.w(2)?)?;
                let a = self.val(fr, i.w(3)?)?;
                let b = self.val(fr, i.w(4)?)?;
                let ty = m.ir_ty(rt()?)?;
                if self.k.ty(c) != Ty::Bool {
                    return Err(Error::invalid("OpSelect condition is not a boolean"));
                }
                if self.k.ty(a) != ty || self.k.ty(b) != ty {
                    return Err(Error::invalid("OpSelect operands of the wrong type"));
                }
                // DPC++ selects with a constant condition around every id (`OpSelect %true
                // %id 0`): the chosen value itself, so that what follows sees it (the
                // lockstep plan's stride analysis among them).
                let v = match m.consts.get(&i.w(2)?) {
                    Some((_, ConstVal::Scalar(k))) => {
                        if *k != 0 {
                            a
                        } else {
                            b
                        }
                    }
                    _ => self.push(ty, Op::Select(c, a, b)),
                };
                def(fr, Val::V(v), rt()?)?;
            }
            _ => return Err(Error::unsupported(format!("instruction {}", op_name(op)))),
        }
        Ok(false)
    }

    /// Lowers a vector instruction as one scalar instruction per element: each vector operand
    /// is replaced by its element (under a temporary id), the scalar path lowers it, and the
    /// results make the vector.
    pub(super) fn per_element(
        &mut self,
        fr: &mut Frame,
        label: u32,
        i: &Inst,
        first: usize,
        elem: u32,
        n: u32,
    ) -> Result<bool, Error> {
        const LANE: u32 = 0xF000_0000;
        if self.m.vector(elem).is_some() || self.lane {
            return Err(Error::invalid("a vector of vectors"));
        }
        let mut operands = Vec::new();
        for &id in i.ops.get(first..).unwrap_or(&[]) {
            match self.get(fr, id)? {
                (Val::Vec(v), ty) => {
                    let (e, m) = self
                        .m
                        .vector(ty)
                        .ok_or_else(|| Error::invalid("a vector value of a non-vector type"))?;
                    if m != n || v.len() != n as usize {
                        return Err(Error::invalid(format!(
                            "{}: vectors of different sizes",
                            op_name(i.op)
                        )));
                    }
                    operands.push(Some((v, e)));
                }
                _ => operands.push(None),
            }
        }
        let mut out = Vec::new();
        for k in 0..n as usize {
            let mut ops = i.ops.clone();
            ops[0] = elem;
            ops[1] = LANE;
            for (j, o) in operands.iter().enumerate() {
                if let Some((v, e)) = o {
                    let id = LANE + 1 + j as u32;
                    fr.vals.insert(id, (Val::V(v[k]), *e));
                    ops[first + j] = id;
                }
            }
            self.lane = true;
            let r = self.inst(fr, label, &Inst { op: i.op, ops });
            self.lane = false;
            for j in 0..operands.len() {
                fr.vals.remove(&(LANE + 1 + j as u32));
            }
            r?;
            match fr.vals.remove(&LANE) {
                Some((Val::V(x), _)) => out.push(x),
                _ => return Err(Error::internal("an element-wise instruction made no value")),
            }
        }
        fr.vals.insert(i.w(1)?, (Val::Vec(out), i.w(0)?));
        Ok(false)
    }

    pub(super) fn check(&self, ty: Ty, vals: &[Value], float: bool, op: u16) -> Result<(), Error> {
        if ty.is_float() != float || vals.iter().any(|v| self.k.ty(*v) != ty) {
            return Err(Error::invalid(format!(
                "{}: operands of the wrong type",
                op_name(op)
            )));
        }
        Ok(())
    }

}
