//! Arithmetic, logic, comparisons, selects and conversions, and vectors lowered element by
//! element.

use super::{Builder, ConstVal, Frame, Val};
use crate::ir::{BinOp, CmpOp, ConvOp, MathFn, Op, Ty, UnOp, Value};
use crate::spv::{op_name, Inst};
use crate::Error;

pub(super) fn cmp_of(op: u16) -> Option<CmpOp> {
    Some(match op {
        164 | 170 => CmpOp::Eq,
        165 | 171 => CmpOp::Ne,
        172 => CmpOp::UGt,
        173 => CmpOp::SGt,
        174 => CmpOp::UGe,
        175 => CmpOp::SGe,
        176 => CmpOp::ULt,
        177 => CmpOp::SLt,
        178 => CmpOp::ULe,
        179 => CmpOp::SLe,
        180 => CmpOp::FEq,
        181 => CmpOp::FUnordEq,
        182 => CmpOp::FNe,
        183 => CmpOp::FUnordNe,
        184 => CmpOp::FLt,
        185 => CmpOp::FUnordLt,
        186 => CmpOp::FGt,
        187 => CmpOp::FUnordGt,
        188 => CmpOp::FLe,
        189 => CmpOp::FUnordLe,
        190 => CmpOp::FGe,
        191 => CmpOp::FUnordGe,
        162 => CmpOp::FOrd,
        163 => CmpOp::FUnord,
        _ => return None,
    })
}

pub(super) fn bin_of(op: u16) -> Option<BinOp> {
    Some(match op {
        128 => BinOp::Add,
        129 => BinOp::FAdd,
        130 => BinOp::Sub,
        131 => BinOp::FSub,
        132 => BinOp::Mul,
        133 => BinOp::FMul,
        134 => BinOp::UDiv,
        135 => BinOp::SDiv,
        136 => BinOp::FDiv,
        137 => BinOp::URem,
        138 => BinOp::SRem,
        139 => BinOp::SMod,
        140 => BinOp::FRem,
        194 => BinOp::LShr,
        195 => BinOp::AShr,
        196 => BinOp::Shl,
        197 | 166 => BinOp::Or,
        198 => BinOp::Xor,
        199 | 167 => BinOp::And,
        _ => return None,
    })
}

/// OpenCL.std s_max (156), u_max, s_min, u_min (159): the comparison that picks the first
/// operand.
pub(super) fn int_min_max(n: u32) -> Option<CmpOp> {
    Some(match n {
        156 => CmpOp::SGt,
        157 => CmpOp::UGt,
        158 => CmpOp::SLt,
        159 => CmpOp::ULt,
        _ => return None,
    })
}

/// Instructions computed element by element on vectors, and where their id operands start.
pub(super) fn elementwise(op: u16) -> Option<usize> {
    match op {
        109..=116 | 118 | 119 | 124 | 126..=141 | 156..=160 | 162..=205 => Some(2),
        12 => Some(4),
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
            83 | 121 | 122 | 123 => {
                let (v, _) = self.get(fr, i.w(2)?)?;
                def(fr, v, rt()?)?;
            }
            109..=115 | 117 | 120 | 124 => {
                let x = self.val(fr, i.w(2)?)?;
                let to = m.ir_ty(rt()?)?;
                let from = self.k.ty(x);
                let cop = match op {
                    109 => ConvOp::FToU,
                    110 => ConvOp::FToS,
                    111 => ConvOp::SToF,
                    112 => ConvOp::UToF,
                    113 | 117 | 120 => ConvOp::UResize,
                    114 => ConvOp::SResize,
                    115 => ConvOp::FResize,
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
            205 => {
                let x = self.val(fr, i.w(2)?)?;
                let ty = m.ir_ty(rt()?)?;
                if ty.is_float() || ty == Ty::Bool || self.k.ty(x) != ty {
                    return Err(Error::invalid("OpBitCount of a non-integer"));
                }
                let v = self.push(ty, Op::Un(UnOp::Popcnt, x));
                def(fr, Val::V(v), rt()?)?;
            }
            126 | 127 | 200 | 168 => {
                let x = self.val(fr, i.w(2)?)?;
                let ty = m.ir_ty(rt()?)?;
                let u = match op {
                    126 => UnOp::Neg,
                    127 => UnOp::FNeg,
                    _ => UnOp::Not,
                };
                self.check(ty, &[x], u == UnOp::FNeg, op)?;
                let v = self.push(ty, Op::Un(u, x));
                def(fr, Val::V(v), rt()?)?;
            }
            128..=140 | 166 | 167 | 194..=199 => {
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
            156 | 157 => {
                let x = self.val(fr, i.w(2)?)?;
                let t = self.k.ty(x);
                if !t.is_float() {
                    return Err(Error::invalid(format!("{} of a non-float", op_name(op))));
                }
                let v = if op == 156 {
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
            162..=165 | 170..=191 => {
                let c = cmp_of(op)
                    .ok_or_else(|| Error::unsupported(format!("instruction {}", op_name(op))))?;
                let a = self.val(fr, i.w(2)?)?;
                let b = self.val(fr, i.w(3)?)?;
                let t = self.k.ty(a);
                let float = op >= 180 || op == 162 || op == 163;
                self.check(t, &[a, b], float, op)?;
                if (op == 164 || op == 165) != (t == Ty::Bool) && t == Ty::Bool {
                    return Err(Error::invalid(format!("{} on booleans", op_name(op))));
                }
                let v = self.push(Ty::Bool, Op::Cmp(c, a, b));
                def(fr, Val::V(v), rt()?)?;
            }
            169 => {
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
