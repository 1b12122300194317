//! OpenCL.std functions with a pointer result (`fract`, `frexp`, `lgamma_r`, `modf`, `remquo`,
//! `sincos`), and the remaining scalar math, common and integer functions.

use super::{int_max, math_more, operands, Builder, Frame, Val};
use crate::ir::{BinOp, CmpOp, ConvOp, MathFn, Op, Ty, UnOp, Value};
use crate::spv::{cl, Inst, Type};
use crate::Error;

impl Builder<'_> {
    /// fract, frexp, lgamma_r, modf, remquo, sincos: the result, and a second value stored
    /// through the last operand (a pointer to the same shape, floats or 32-bit integers).
    pub(super) fn pointer_result(&mut self, fr: &Frame, i: &Inst, n: u32) -> Result<Val, Error> {
        let a = operands(i, n, if n == cl::REMQUO { 3 } else { 2 })?;
        let (xs, t) = self.float_elems(fr, a[0], n)?;
        let ys = if n == cl::REMQUO {
            let (ys, t2) = self.float_elems(fr, a[1], n)?;
            if t2 != t || ys.len() != xs.len() {
                return Err(Error::invalid("remquo: operands differ"));
            }
            ys
        } else {
            vec![]
        };
        let pid = a[a.len() - 1];
        let (p, pty) = self.get(fr, pid)?;
        let Val::V(p) = p else {
            return Err(Error::invalid(format!(
                "OpenCL.std function {n}: not a pointer"
            )));
        };
        self.pointer(p, i.op)?;
        let pointee = match self.m.ty(pty)? {
            Type::Pointer(_, e) => *e,
            _ => {
                return Err(Error::invalid(format!(
                    "OpenCL.std function {n}: not a pointer"
                )))
            }
        };
        let pe = self.m.vector(pointee).map_or(pointee, |v| v.0);
        let int_side = matches!(n, cl::FREXP | cl::LGAMMA_R | cl::REMQUO);
        let want = if int_side { Ty::I32 } else { t };
        if self.m.ir_ty(pe)? != want
            || self
                .m
                .ir_ty(self.m.vector(i.w(0)?).map_or(i.w(0)?, |v| v.0))?
                != t
        {
            return Err(Error::invalid(format!(
                "OpenCL.std function {n} of the wrong type"
            )));
        }
        let (mut rs, mut side) = (Vec::new(), Vec::new());
        for (k, x) in xs.iter().enumerate() {
            let math = |s: &mut Self, f: MathFn, args: Vec<Value>| s.push(t, Op::Math(f, args));
            let (r, s) = match n {
                cl::FRACT => (
                    math(self, MathFn::Fract, vec![*x]),
                    math(self, MathFn::Floor, vec![*x]),
                ),
                cl::FREXP => (
                    math(self, MathFn::FrexpMant, vec![*x]),
                    math(self, MathFn::FrexpExp, vec![*x]),
                ),
                cl::LGAMMA_R => (
                    math(self, MathFn::Lgamma, vec![*x]),
                    math(self, MathFn::LgammaSign, vec![*x]),
                ),
                cl::MODF => (
                    math(self, MathFn::ModfFrac, vec![*x]),
                    math(self, MathFn::Trunc, vec![*x]),
                ),
                cl::REMQUO => (
                    math(self, MathFn::Remainder, vec![*x, ys[k]]),
                    math(self, MathFn::RemquoQ, vec![*x, ys[k]]),
                ),
                _ => (
                    math(self, MathFn::Sin, vec![*x]),
                    math(self, MathFn::Cos, vec![*x]),
                ),
            };
            let s = if int_side {
                self.push(Ty::I32, Op::Conv(ConvOp::FToS, s))
            } else {
                s
            };
            rs.push(r);
            side.push(s);
        }
        self.store_elems(p, &side)?;
        Ok(self.pack(i.w(0)?, rs))
    }

    /// Scalar OpenCL.std functions (vectors come here element by element): the remaining
    /// math functions, `smoothstep`, `bitselect`, and the remaining integer functions. `None`:
    /// not one of them.
    pub(in crate::frontend) fn std_scalar(
        &mut self,
        fr: &Frame,
        i: &Inst,
        n: u32,
    ) -> Result<Option<Value>, Error> {
        let arity = match n {
            _ if math_more(n).is_some() => math_more(n).map_or(0, |m| m.1),
            cl::ILOGB | cl::NAN | cl::CTZ | cl::POPCOUNT => 1,
            cl::LDEXP
            | cl::POWN
            | cl::ROOTN
            | cl::S_ABS_DIFF
            | cl::U_ABS_DIFF
            | cl::S_ADD_SAT
            | cl::U_ADD_SAT
            | cl::S_HADD
            | cl::U_HADD
            | cl::S_RHADD
            | cl::U_RHADD
            | cl::S_SUB_SAT
            | cl::U_SUB_SAT
            | cl::U_UPSAMPLE
            | cl::S_UPSAMPLE => 2,
            cl::SMOOTHSTEP
            | cl::BITSELECT
            | cl::S_MAD_HI
            | cl::U_MAD_HI
            | cl::U_MAD_SAT
            | cl::S_MAD_SAT => 3,
            _ => return Ok(None),
        };
        let ty = self.m.ir_ty(i.w(0)?)?;
        let ids = operands(i, n, arity)?;
        let a: Vec<Value> = ids
            .iter()
            .map(|x| self.val(fr, *x))
            .collect::<Result<_, _>>()?;
        let wrong = || Error::invalid(format!("OpenCL.std function {n} of the wrong type"));
        let is_int = |t: Ty| !t.is_float() && t != Ty::Bool;
        if let Some((f, _)) = math_more(n) {
            self.check(ty, &a, true, i.op)?;
            return Ok(Some(self.push(ty, Op::Math(f, a))));
        }
        let bin = |s: &mut Self, o: BinOp, x: Value, y: Value| s.push(ty, Op::Bin(o, x, y));
        let cnst = |s: &mut Self, v: u64| s.push(ty, Op::Const(v));
        let v = match n {
            // ilogb(x): an int
            cl::ILOGB => {
                let xt = self.k.ty(a[0]);
                if ty != Ty::I32 || !xt.is_float() {
                    return Err(wrong());
                }
                let f = self.push(xt, Op::Math(MathFn::Ilogb, vec![a[0]]));
                self.push(Ty::I32, Op::Conv(ConvOp::FToS, f))
            }
            // ldexp(x, k), pown(x, n), rootn(x, n): the integer held in a float
            cl::LDEXP | cl::POWN | cl::ROOTN => {
                if !ty.is_float() || self.k.ty(a[0]) != ty || !is_int(self.k.ty(a[1])) {
                    return Err(wrong());
                }
                let k = self.push(ty, Op::Conv(ConvOp::SToF, a[1]));
                let f = match n {
                    cl::LDEXP => MathFn::Ldexp,
                    cl::POWN => MathFn::Pown,
                    _ => MathFn::Rootn,
                };
                self.push(ty, Op::Math(f, vec![a[0], k]))
            }
            // nan(code): a quiet NaN carrying the code's low bits
            cl::NAN => {
                let ct = self.k.ty(a[0]);
                let (it, quiet, mask) = match ty {
                    Ty::F32 => (Ty::I32, 0x7fc0_0000u64, 0x3f_ffffu64),
                    Ty::F64 => (Ty::I64, 0x7ff8_0000_0000_0000, (1 << 51) - 1),
                    _ => return Err(wrong()),
                };
                if ct != it {
                    return Err(wrong());
                }
                let m = self.push(it, Op::Const(mask));
                let q = self.push(it, Op::Const(quiet));
                let c = self.push(it, Op::Bin(BinOp::And, a[0], m));
                let bits = self.push(it, Op::Bin(BinOp::Or, c, q));
                self.push(ty, Op::Conv(ConvOp::Bitcast, bits))
            }
            // smoothstep(e0, e1, x)
            cl::SMOOTHSTEP => {
                self.check(ty, &a, true, i.op)?;
                let d = bin(self, BinOp::FSub, a[2], a[0]);
                let w = bin(self, BinOp::FSub, a[1], a[0]);
                let q = bin(self, BinOp::FDiv, d, w);
                let bits = |x: f64| {
                    if ty == Ty::F32 {
                        u64::from((x as f32).to_bits())
                    } else {
                        x.to_bits()
                    }
                };
                let (zero, one) = (cnst(self, bits(0.0)), cnst(self, bits(1.0)));
                let (two, three) = (cnst(self, bits(2.0)), cnst(self, bits(3.0)));
                let q = self.push(ty, Op::Math(MathFn::Fmax, vec![q, zero]));
                let t = self.push(ty, Op::Math(MathFn::Fmin, vec![q, one]));
                let tt = bin(self, BinOp::FMul, t, t);
                let t2 = bin(self, BinOp::FMul, two, t);
                let s = bin(self, BinOp::FSub, three, t2);
                bin(self, BinOp::FMul, tt, s)
            }
            // bitselect(a, b, c): (a & ~c) | (b & c), floats through their bits
            cl::BITSELECT => {
                self.check(ty, &a, ty.is_float(), i.op)?;
                if ty == Ty::Bool {
                    return Err(wrong());
                }
                let it = match ty {
                    Ty::F32 => Ty::I32,
                    Ty::F64 => Ty::I64,
                    t => t,
                };
                let b: Vec<Value> = a
                    .iter()
                    .map(|x| {
                        if it == ty {
                            *x
                        } else {
                            self.push(it, Op::Conv(ConvOp::Bitcast, *x))
                        }
                    })
                    .collect();
                let nc = self.push(it, Op::Un(UnOp::Not, b[2]));
                let l = self.push(it, Op::Bin(BinOp::And, b[0], nc));
                let r = self.push(it, Op::Bin(BinOp::And, b[1], b[2]));
                let v = self.push(it, Op::Bin(BinOp::Or, l, r));
                if it == ty {
                    v
                } else {
                    self.push(ty, Op::Conv(ConvOp::Bitcast, v))
                }
            }
            // upsample(hi, lo): hi << width | lo, the result twice as wide
            cl::U_UPSAMPLE | cl::S_UPSAMPLE => {
                let ht = self.k.ty(a[0]);
                if !is_int(ht)
                    || self.k.ty(a[1]) != ht
                    || ht == Ty::I64
                    || ty.bytes() != 2 * ht.bytes()
                {
                    return Err(wrong());
                }
                let h = self.resize(a[0], ty);
                let l = self.resize(a[1], ty);
                let w = cnst(self, u64::from(ht.bytes() * 8));
                let h = bin(self, BinOp::Shl, h, w);
                bin(self, BinOp::Or, h, l)
            }
            _ => {
                self.check(ty, &a, false, i.op)?;
                if ty == Ty::Bool {
                    return Err(wrong());
                }
                self.int_fn(n, ty, &a)
            }
        };
        Ok(Some(v))
    }

    /// abs_diff, add_sat, sub_sat, hadd, rhadd, ctz, mad_hi, mad_sat, popcount.
    pub(super) fn int_fn(&mut self, n: u32, ty: Ty, a: &[Value]) -> Value {
        let bin = |s: &mut Self, o: BinOp, x: Value, y: Value| s.push(ty, Op::Bin(o, x, y));
        let cmp = |s: &mut Self, c: CmpOp, x: Value, y: Value| s.push(Ty::Bool, Op::Cmp(c, x, y));
        let sel = |s: &mut Self, c: Value, x: Value, y: Value| s.push(ty, Op::Select(c, x, y));
        let cnst = |s: &mut Self, v: u64| s.push(ty, Op::Const(v));
        let signed = matches!(
            n,
            cl::S_ABS_DIFF
                | cl::S_ADD_SAT
                | cl::S_HADD
                | cl::S_RHADD
                | cl::S_MAD_HI
                | cl::S_MAD_SAT
                | cl::S_SUB_SAT
        );
        // The saturation value by the sign of `x` (signed): MIN below zero, else MAX.
        let sat_by_sign = |s: &mut Self, x: Value| {
            let zero = cnst(s, 0);
            let neg = cmp(s, CmpOp::SLt, x, zero);
            let max = cnst(s, int_max(ty, true));
            let min = cnst(s, int_max(ty, true) + 1);
            sel(s, neg, min, max)
        };
        match n {
            cl::S_ABS_DIFF | cl::U_ABS_DIFF => {
                let c = cmp(
                    self,
                    if signed { CmpOp::SGt } else { CmpOp::UGt },
                    a[0],
                    a[1],
                );
                let hi = sel(self, c, a[0], a[1]);
                let lo = sel(self, c, a[1], a[0]);
                bin(self, BinOp::Sub, hi, lo)
            }
            cl::U_ADD_SAT => {
                let s = bin(self, BinOp::Add, a[0], a[1]);
                let ov = cmp(self, CmpOp::ULt, s, a[0]);
                let max = cnst(self, int_max(ty, false));
                sel(self, ov, max, s)
            }
            cl::U_SUB_SAT => {
                let lt = cmp(self, CmpOp::ULt, a[0], a[1]);
                let d = bin(self, BinOp::Sub, a[0], a[1]);
                let zero = cnst(self, 0);
                sel(self, lt, zero, d)
            }
            cl::S_ADD_SAT | cl::S_SUB_SAT => {
                // Overflow when the operands' signs make it possible and the result's differs.
                let (o, s) = if n == cl::S_ADD_SAT {
                    let s = bin(self, BinOp::Add, a[0], a[1]);
                    let x = bin(self, BinOp::Xor, a[0], s);
                    let y = bin(self, BinOp::Xor, a[1], s);
                    (bin(self, BinOp::And, x, y), s)
                } else {
                    let s = bin(self, BinOp::Sub, a[0], a[1]);
                    let x = bin(self, BinOp::Xor, a[0], a[1]);
                    let y = bin(self, BinOp::Xor, a[0], s);
                    (bin(self, BinOp::And, x, y), s)
                };
                let zero = cnst(self, 0);
                let ov = cmp(self, CmpOp::SLt, o, zero);
                let sat = sat_by_sign(self, a[0]);
                sel(self, ov, sat, s)
            }
            cl::S_HADD | cl::U_HADD | cl::S_RHADD | cl::U_RHADD => {
                let one = cnst(self, 1);
                let sh = if signed { BinOp::AShr } else { BinOp::LShr };
                let x = bin(self, sh, a[0], one);
                let y = bin(self, sh, a[1], one);
                let sum = bin(self, BinOp::Add, x, y);
                let low = bin(
                    self,
                    if n >= 147 { BinOp::Or } else { BinOp::And },
                    a[0],
                    a[1],
                );
                let low = bin(self, BinOp::And, low, one);
                bin(self, BinOp::Add, sum, low)
            }
            cl::CTZ => {
                // ctz: the ones below the lowest set bit (all of them for 0)
                let neg = self.push(ty, Op::Un(UnOp::Neg, a[0]));
                let lowest = bin(self, BinOp::And, a[0], neg);
                let one = cnst(self, 1);
                let below = bin(self, BinOp::Sub, lowest, one);
                self.push(ty, Op::Un(UnOp::Popcnt, below))
            }
            cl::POPCOUNT => self.push(ty, Op::Un(UnOp::Popcnt, a[0])),
            cl::S_MAD_HI | cl::U_MAD_HI => {
                let h = bin(
                    self,
                    if signed { BinOp::SMulHi } else { BinOp::UMulHi },
                    a[0],
                    a[1],
                );
                bin(self, BinOp::Add, h, a[2])
            }
            _ if ty != Ty::I64 => {
                // mad_sat below 64 bits: exactly in 64 bits, then clamped.
                let conv = if signed {
                    ConvOp::SResize
                } else {
                    ConvOp::UResize
                };
                let w: Vec<Value> = a
                    .iter()
                    .map(|x| self.push(Ty::I64, Op::Conv(conv, *x)))
                    .collect();
                let p = self.push(Ty::I64, Op::Bin(BinOp::Mul, w[0], w[1]));
                let s = self.push(Ty::I64, Op::Bin(BinOp::Add, p, w[2]));
                let max = self.push(Ty::I64, Op::Const(int_max(ty, signed)));
                let (gt, lt) = if signed {
                    (CmpOp::SGt, CmpOp::SLt)
                } else {
                    (CmpOp::UGt, CmpOp::ULt)
                };
                let c = self.push(Ty::Bool, Op::Cmp(gt, s, max));
                let s = self.push(Ty::I64, Op::Select(c, max, s));
                let s = if signed {
                    let min = self.push(Ty::I64, Op::Const((int_max(ty, true) + 1).wrapping_neg()));
                    let c = self.push(Ty::Bool, Op::Cmp(lt, s, min));
                    self.push(Ty::I64, Op::Select(c, min, s))
                } else {
                    s
                };
                self.push(ty, Op::Conv(ConvOp::UResize, s))
            }
            cl::U_MAD_SAT => {
                // u_mad_sat on 64 bits: overflow when the product's high half is not 0 or the
                // addition carries.
                let hi = bin(self, BinOp::UMulHi, a[0], a[1]);
                let lo = bin(self, BinOp::Mul, a[0], a[1]);
                let s = bin(self, BinOp::Add, lo, a[2]);
                let carry = cmp(self, CmpOp::ULt, s, lo);
                let zero = cnst(self, 0);
                let big = cmp(self, CmpOp::Ne, hi, zero);
                let ov = self.push(Ty::Bool, Op::Bin(BinOp::Or, carry, big));
                let max = cnst(self, u64::MAX);
                sel(self, ov, max, s)
            }
            _ => {
                // s_mad_sat on 64 bits: the 128-bit sum hi:lo + c fits when its high half is
                // the sign of its low half; otherwise the sign of the high half saturates.
                let hi = bin(self, BinOp::SMulHi, a[0], a[1]);
                let lo = bin(self, BinOp::Mul, a[0], a[1]);
                let s = bin(self, BinOp::Add, lo, a[2]);
                let carry = cmp(self, CmpOp::ULt, s, lo);
                let carry = self.push(ty, Op::Conv(ConvOp::BoolToInt, carry));
                let s63 = cnst(self, 63);
                let c_hi = bin(self, BinOp::AShr, a[2], s63);
                let hi = bin(self, BinOp::Add, hi, c_hi);
                let hi = bin(self, BinOp::Add, hi, carry);
                let sign = bin(self, BinOp::AShr, s, s63);
                let fits = cmp(self, CmpOp::Eq, hi, sign);
                let sat = sat_by_sign(self, hi);
                sel(self, fits, s, sat)
            }
        }
    }
}
