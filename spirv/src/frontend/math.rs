//! OpenCL.std extended instructions: the math functions, and those made of other operations.

use super::{int_min_max, Builder, Frame, Val};
use crate::ir::{BinOp, CmpOp, MathFn, Op, Ty, UnOp, Value};
use crate::spv::{cl, op, op_name, Inst};
use crate::Error;

pub(super) fn math_of(n: u32) -> Option<(MathFn, usize)> {
    Some(match n {
        cl::SQRT => (MathFn::Sqrt, 1),
        cl::FABS => (MathFn::Fabs, 1),
        cl::FMIN => (MathFn::Fmin, 2),
        cl::FMAX => (MathFn::Fmax, 2),
        cl::MAD => (MathFn::Mad, 3),
        cl::FMA => (MathFn::Fma, 3),
        cl::EXP => (MathFn::Exp, 1),
        cl::LOG => (MathFn::Log, 1),
        cl::SIN => (MathFn::Sin, 1),
        cl::COS => (MathFn::Cos, 1),
        cl::FLOOR => (MathFn::Floor, 1),
        cl::CEIL => (MathFn::Ceil, 1),
        cl::TRUNC => (MathFn::Trunc, 1),
        cl::POW => (MathFn::Pow, 2),
        cl::FMOD => (MathFn::Fmod, 2),
        // Full precision, native_* and half_* alike.
        cl::TAN | cl::HALF_TAN | cl::NATIVE_TAN => (MathFn::Tan, 1),
        cl::HALF_COS | cl::NATIVE_COS => (MathFn::Cos, 1),
        cl::HALF_EXP | cl::NATIVE_EXP => (MathFn::Exp, 1),
        cl::HALF_EXP2 | cl::NATIVE_EXP2 => (MathFn::Exp2, 1),
        cl::EXP2 => (MathFn::Exp2, 1),
        cl::EXP10 | cl::HALF_EXP10 | cl::NATIVE_EXP10 => (MathFn::Exp10, 1),
        cl::HALF_LOG | cl::NATIVE_LOG => (MathFn::Log, 1),
        cl::LOG2 | cl::HALF_LOG2 | cl::NATIVE_LOG2 => (MathFn::Log2, 1),
        cl::LOG10 | cl::HALF_LOG10 | cl::NATIVE_LOG10 => (MathFn::Log10, 1),
        cl::POWR | cl::HALF_POWR | cl::NATIVE_POWR => (MathFn::Pow, 2),
        cl::HALF_SIN | cl::NATIVE_SIN => (MathFn::Sin, 1),
        cl::HALF_SQRT | cl::NATIVE_SQRT => (MathFn::Sqrt, 1),
        cl::ACOS => (MathFn::Acos, 1),
        cl::ASIN => (MathFn::Asin, 1),
        cl::ATAN => (MathFn::Atan, 1),
        cl::ATAN2 => (MathFn::Atan2, 2),
        cl::CBRT => (MathFn::Cbrt, 1),
        cl::COPYSIGN => (MathFn::Copysign, 2),
        cl::COSH => (MathFn::Cosh, 1),
        cl::EXPM1 => (MathFn::Expm1, 1),
        cl::FDIM => (MathFn::Fdim, 2),
        cl::HYPOT => (MathFn::Hypot, 2),
        cl::LOG1P => (MathFn::Log1p, 1),
        cl::MAXMAG => (MathFn::Maxmag, 2),
        cl::MINMAG => (MathFn::Minmag, 2),
        cl::RINT => (MathFn::Rint, 1),
        cl::ROUND => (MathFn::Round, 1),
        cl::SINH => (MathFn::Sinh, 1),
        cl::TANH => (MathFn::Tanh, 1),
        _ => return None,
    })
}

impl Builder<'_> {
    /// `OpExtInst` of OpenCL.std.
    pub(super) fn math_inst(&mut self, fr: &mut Frame, i: &Inst) -> Result<bool, Error> {
        let m = self.m;
        let op = i.op;
        // Result type and id of value instructions.
        let rt = || i.w(0);
        let def = |fr: &mut Frame, v: Val, ty: u32| -> Result<(), Error> {
            fr.vals.insert(i.w(1)?, (v, ty));
            Ok(())
        };
        match op {
            op::EXT_INST => {
                if !m.opencl_std.contains(&i.w(2)?) {
                    return Err(Error::unsupported(
                        "extended instructions of sets other than OpenCL.std",
                    ));
                }
                let n = i.w(3)?;
                if n == cl::SELECT {
                    // select(a, b, c): c ? b : a; for vector elements, c's sign bit.
                    let (Some(&a), Some(&b), Some(&c), 7) =
                        (i.ops.get(4), i.ops.get(5), i.ops.get(6), i.ops.len())
                    else {
                        return Err(Error::invalid("OpenCL.std select needs 3 operands"));
                    };
                    let ty = m.ir_ty(rt()?)?;
                    let (a, b, c) = (self.val(fr, a)?, self.val(fr, b)?, self.val(fr, c)?);
                    self.check(ty, &[a, b], ty.is_float(), op)?;
                    let ct = self.k.ty(c);
                    if ct.is_float() || ct == Ty::Bool {
                        return Err(Error::invalid(
                            "OpenCL.std select: the condition is not an integer",
                        ));
                    }
                    let zero = self.push(ct, Op::Const(0));
                    let cmp = if self.lane { CmpOp::SLt } else { CmpOp::Ne };
                    let cond = self.push(Ty::Bool, Op::Cmp(cmp, c, zero));
                    let v = self.push(ty, Op::Select(cond, b, a));
                    def(fr, Val::V(v), rt()?)?;
                    return Ok(false);
                }
                if let Some(v) = self.derived(fr, i, n)? {
                    def(fr, Val::V(v), rt()?)?;
                    return Ok(false);
                }
                if let Some(v) = self.std_scalar(fr, i, n)? {
                    def(fr, Val::V(v), rt()?)?;
                    return Ok(false);
                }
                if let Some(cmp) = int_min_max(n) {
                    // s_max, u_max, s_min, u_min: a comparison and a select.
                    let ty = m.ir_ty(rt()?)?;
                    let (Some(&x), Some(&y), 6) = (i.ops.get(4), i.ops.get(5), i.ops.len()) else {
                        return Err(Error::invalid(format!(
                            "OpenCL.std function {n} needs 2 operands"
                        )));
                    };
                    let (a, b) = (self.val(fr, x)?, self.val(fr, y)?);
                    self.check(ty, &[a, b], false, op)?;
                    if ty == Ty::Bool {
                        return Err(Error::invalid("integer min/max of booleans"));
                    }
                    let c = self.push(Ty::Bool, Op::Cmp(cmp, a, b));
                    let v = self.push(ty, Op::Select(c, a, b));
                    def(fr, Val::V(v), rt()?)?;
                    return Ok(false);
                }
                let (f, arity) = math_of(n)
                    .ok_or_else(|| Error::unsupported(format!("OpenCL.std function {n}")))?;
                let ty = m.ir_ty(rt()?)?;
                let args = i.ops[4..]
                    .iter()
                    .map(|a| self.val(fr, *a))
                    .collect::<Result<Vec<_>, _>>()?;
                if args.len() != arity {
                    return Err(Error::invalid(format!(
                        "OpenCL.std function {n} with {} operands",
                        args.len()
                    )));
                }
                self.check(ty, &args, true, op)?;
                let v = self.push(ty, Op::Math(f, args));
                def(fr, Val::V(v), rt()?)?;
            }
            _ => return Err(Error::unsupported(format!("instruction {}", op_name(op)))),
        }
        Ok(false)
    }

    /// OpenCL.std functions made of other operations: reciprocals and divisions, `rsqrt`,
    /// `fclamp`, `mix`, `step`, `degrees`, `radians`, `sign`, and the integer `abs`, `clamp`,
    /// `clz`, `mul_hi`, `rotate`, `mad24`, `mul24`. `None`: not one of them.
    pub(super) fn derived(&mut self, fr: &Frame, i: &Inst, n: u32) -> Result<Option<Value>, Error> {
        let arity = match n {
            cl::RSQRT
            | cl::HALF_RSQRT
            | cl::NATIVE_RSQRT
            | cl::HALF_RECIP
            | cl::NATIVE_RECIP
            | cl::DEGREES
            | cl::RADIANS
            | cl::SIGN
            | cl::S_ABS
            | cl::U_ABS
            | cl::CLZ => 1,
            cl::HALF_DIVIDE
            | cl::NATIVE_DIVIDE
            | cl::STEP
            | cl::S_MUL_HI
            | cl::U_MUL_HI
            | cl::ROTATE
            | cl::S_MUL24
            | cl::U_MUL24 => 2,
            cl::FCLAMP | cl::MIX | cl::S_CLAMP | cl::U_CLAMP | cl::S_MAD24 | cl::U_MAD24 => 3,
            _ => return Ok(None),
        };
        let ty = self.m.ir_ty(i.w(0)?)?;
        let ids = i.ops.get(4..).unwrap_or(&[]);
        if ids.len() != arity {
            return Err(Error::invalid(format!(
                "OpenCL.std function {n} needs {arity} operands"
            )));
        }
        let a: Vec<Value> = ids
            .iter()
            .map(|x| self.val(fr, *x))
            .collect::<Result<_, _>>()?;
        let float = ty.is_float();
        let int_fn = matches!(
            n,
            141 | 201 | 151 | 160 | 203 | 161 | 169 | 170 | 149 | 150 | 167 | 168
        );
        if float == int_fn || ty == Ty::Bool {
            return Err(Error::invalid(format!(
                "OpenCL.std function {n} of the wrong type"
            )));
        }
        self.check(ty, &a, float, i.op)?;
        let fconst = |b: &mut Self, x: f64| {
            let bits = if ty == Ty::F32 {
                u64::from((x as f32).to_bits())
            } else {
                x.to_bits()
            };
            b.push(ty, Op::Const(bits))
        };
        let bin = |b: &mut Self, o: BinOp, x: Value, y: Value| b.push(ty, Op::Bin(o, x, y));
        let v = match n {
            // rsqrt, half_rsqrt, native_rsqrt
            cl::RSQRT | cl::HALF_RSQRT | cl::NATIVE_RSQRT => {
                let one = fconst(self, 1.0);
                let r = self.push(ty, Op::Math(MathFn::Sqrt, vec![a[0]]));
                bin(self, BinOp::FDiv, one, r)
            }
            // half_recip, native_recip
            cl::HALF_RECIP | cl::NATIVE_RECIP => {
                let one = fconst(self, 1.0);
                bin(self, BinOp::FDiv, one, a[0])
            }
            // half_divide, native_divide
            cl::HALF_DIVIDE | cl::NATIVE_DIVIDE => bin(self, BinOp::FDiv, a[0], a[1]),
            cl::DEGREES | cl::RADIANS => {
                let f = if n == cl::DEGREES {
                    180.0 / std::f64::consts::PI
                } else {
                    std::f64::consts::PI / 180.0
                };
                let c = fconst(self, f);
                bin(self, BinOp::FMul, a[0], c)
            }
            cl::SIGN => {
                // sign: 1, -1, or x itself for ±0; 0 for NaN
                let (zero, one, minus) = (fconst(self, 0.0), fconst(self, 1.0), fconst(self, -1.0));
                let nan = self.push(Ty::Bool, Op::Cmp(CmpOp::FUnord, a[0], a[0]));
                let x = self.push(ty, Op::Select(nan, zero, a[0]));
                let neg = self.push(Ty::Bool, Op::Cmp(CmpOp::FLt, a[0], zero));
                let x = self.push(ty, Op::Select(neg, minus, x));
                let pos = self.push(Ty::Bool, Op::Cmp(CmpOp::FGt, a[0], zero));
                self.push(ty, Op::Select(pos, one, x))
            }
            cl::FCLAMP => {
                let lo = self.push(ty, Op::Math(MathFn::Fmax, vec![a[0], a[1]]));
                self.push(ty, Op::Math(MathFn::Fmin, vec![lo, a[2]]))
            }
            cl::MIX => {
                let d = bin(self, BinOp::FSub, a[1], a[0]);
                let m = bin(self, BinOp::FMul, d, a[2]);
                bin(self, BinOp::FAdd, a[0], m)
            }
            cl::STEP => {
                // step(edge, x): x < edge ? 0 : 1
                let (zero, one) = (fconst(self, 0.0), fconst(self, 1.0));
                let lt = self.push(Ty::Bool, Op::Cmp(CmpOp::FLt, a[1], a[0]));
                self.push(ty, Op::Select(lt, zero, one))
            }
            cl::S_ABS => {
                let zero = self.push(ty, Op::Const(0));
                let neg = self.push(Ty::Bool, Op::Cmp(CmpOp::SLt, a[0], zero));
                let m = self.push(ty, Op::Un(UnOp::Neg, a[0]));
                self.push(ty, Op::Select(neg, m, a[0]))
            }
            cl::U_ABS => a[0],
            cl::CLZ => self.push(ty, Op::Un(UnOp::Clz, a[0])),
            cl::S_MUL_HI => bin(self, BinOp::SMulHi, a[0], a[1]),
            cl::U_MUL_HI => bin(self, BinOp::UMulHi, a[0], a[1]),
            cl::ROTATE => bin(self, BinOp::Rotl, a[0], a[1]),
            cl::S_MUL24 | cl::U_MUL24 => bin(self, BinOp::Mul, a[0], a[1]),
            cl::S_MAD24 | cl::U_MAD24 => {
                let m = bin(self, BinOp::Mul, a[0], a[1]);
                bin(self, BinOp::Add, m, a[2])
            }
            _ => {
                // s_clamp, u_clamp: min(max(x, lo), hi)
                let (gt, lt) = if n == cl::S_CLAMP {
                    (CmpOp::SGt, CmpOp::SLt)
                } else {
                    (CmpOp::UGt, CmpOp::ULt)
                };
                let c = self.push(Ty::Bool, Op::Cmp(gt, a[0], a[1]));
                let x = self.push(ty, Op::Select(c, a[0], a[1]));
                let c = self.push(Ty::Bool, Op::Cmp(lt, x, a[2]));
                self.push(ty, Op::Select(c, x, a[2]))
            }
        };
        Ok(Some(v))
    }

}
