//! OpenCL.std functions beyond the first milestone: `vload`/`vstore` (`half` too), geometric
//! functions, `shuffle`/`shuffle2`, the functions with a pointer result (`fract`, `frexp`,
//! `lgamma_r`, `modf`, `remquo`, `sincos`), and the remaining math, common and integer
//! functions. Here: `half` values, `printf` and the dispatch of the functions lowered whole;
//! `vector` has `vload`/`vstore`, the geometric functions and shuffles, `scalar` the functions
//! with a pointer result and the remaining scalar ones.

use super::{Builder, Frame, Module, Val};
use crate::ir::{ConvOp, MathFn, Op, Round, Ty, Value};
use crate::spv::{cl, op, Inst, Type};
use crate::Error;

mod scalar;
mod vector;

/// The id operands of an OpenCL.std instruction, exactly `count` of them.
fn operands(i: &Inst, n: u32, count: usize) -> Result<&[u32], Error> {
    match i.ops.get(4..) {
        Some(a) if a.len() == count => Ok(a),
        _ => Err(Error::invalid(format!(
            "OpenCL.std function {n} needs {count} operands"
        ))),
    }
}

/// One-argument and two-argument float functions that map to one [`MathFn`].
fn math_more(n: u32) -> Option<(MathFn, usize)> {
    Some(match n {
        cl::ACOSH => (MathFn::Acosh, 1),
        cl::ACOSPI => (MathFn::Acospi, 1),
        cl::ASINH => (MathFn::Asinh, 1),
        cl::ASINPI => (MathFn::Asinpi, 1),
        cl::ATANH => (MathFn::Atanh, 1),
        cl::ATANPI => (MathFn::Atanpi, 1),
        cl::ATAN2PI => (MathFn::Atan2pi, 2),
        cl::COSPI => (MathFn::Cospi, 1),
        cl::ERFC => (MathFn::Erfc, 1),
        cl::ERF => (MathFn::Erf, 1),
        cl::LGAMMA => (MathFn::Lgamma, 1),
        cl::LOGB => (MathFn::Logb, 1),
        cl::NEXTAFTER => (MathFn::Nextafter, 2),
        cl::REMAINDER => (MathFn::Remainder, 2),
        cl::SINPI => (MathFn::Sinpi, 1),
        cl::TANPI => (MathFn::Tanpi, 1),
        cl::TGAMMA => (MathFn::Tgamma, 1),
        // fmax_common, fmin_common
        cl::FMAX_COMMON => (MathFn::Fmax, 2),
        cl::FMIN_COMMON => (MathFn::Fmin, 2),
        _ => return None,
    })
}

/// The f32 bits of the value of a half's bits (exact).
pub(super) fn half_to_f32_bits(h: u64) -> u64 {
    let h = h as u32 & 0xffff;
    let sign = (h & 0x8000) << 16;
    let em = h & 0x7fff;
    let bits = if em >= 0x7c00 {
        0x7f80_0000 | ((em & 0x3ff) << 13)
    } else {
        // The exponent and mantissa moved into an f32's, scaled by 2^112 (subnormals too).
        (f32::from_bits(em << 13) * f32::from_bits(0x7780_0000)).to_bits()
    };
    u64::from(sign | bits)
}

impl Module {
    /// A `half` or a vector of `half`s.
    pub(super) fn is_half(&self, ty: u32) -> bool {
        let e = self.vector(ty).map_or(ty, |v| v.0);
        matches!(self.types.get(&e), Some(Type::Float(16)))
    }

    /// The pointee of a pointer type, if it is `half` or a vector of them.
    fn half_pointee(&self, ptr_ty: u32) -> bool {
        match self.types.get(&ptr_ty) {
            Some(Type::Pointer(_, p)) => self.is_half(*p),
            _ => false,
        }
    }
}

fn int_max(ty: Ty, signed: bool) -> u64 {
    let bits = ty.bytes() * 8;
    let all = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    if signed {
        all >> 1
    } else {
        all
    }
}

impl Builder<'_> {
    /// `half` values, carried as f32 values that a half represents exactly: loads and stores of
    /// halves (2 bytes each), conversions and bitcasts to and from half, and the rounding to
    /// half of every arithmetic result of half type (computed in f32: for +, -, *, / this
    /// double rounding is exact, f32 having more than 2 × 11 + 2 bits). `None`: nothing of
    /// half here.
    pub(super) fn half_inst(
        &mut self,
        fr: &mut Frame,
        label: u32,
        i: &Inst,
    ) -> Result<Option<bool>, Error> {
        if self.in_half {
            return Ok(None);
        }
        let m = self.m;
        let result_half = |k: usize| i.ops.get(k).is_some_and(|t| m.is_half(*t));
        match i.op {
            // OpLoad through a pointer to half(s)
            op::LOAD if result_half(0) => {
                let (p, _) = self.get(fr, i.w(2)?)?;
                let Val::V(p) = p else {
                    return Err(Error::invalid("OpLoad from a non-pointer"));
                };
                self.pointer(p, i.op)?;
                let count = m.vector(i.w(0)?).map_or(1, |v| v.1);
                let vs = (0..u64::from(count))
                    .map(|k| self.load_elem(p, 2 * k, Ty::F32, true))
                    .collect();
                let v = self.pack(i.w(0)?, vs);
                fr.vals.insert(i.w(1)?, (v, i.w(0)?));
                Ok(Some(false))
            }
            // OpStore through a pointer to half(s)
            op::STORE => {
                if !self.type_of(fr, i.w(0)?).is_some_and(|t| m.half_pointee(t)) {
                    return Ok(None);
                }
                let (p, _) = self.get(fr, i.w(0)?)?;
                let Val::V(p) = p else {
                    return Err(Error::invalid("OpStore to a non-pointer"));
                };
                self.pointer(p, i.op)?;
                let (xs, _) = self.elems(fr, i.w(1)?)?;
                for (k, x) in xs.iter().enumerate() {
                    if self.k.ty(*x) != Ty::F32 {
                        return Err(Error::invalid("OpStore of a non-half to a half"));
                    }
                    let addr = self.add_const(p, 2 * k as u64);
                    let value = self.push(Ty::I16, Op::Conv(ConvOp::FToF16(Round::Rte), *x));
                    self.effect(Op::Store { addr, value });
                }
                Ok(Some(false))
            }
            op::VARIABLE if i.ops.len() > 3 && m.half_pointee(i.w(0)?) => Err(Error::unsupported(
                "function-scope `half` variables with an initializer",
            )),
            // OpFConvert from double to half: one rounding, from the double.
            op::F_CONVERT if result_half(0) => {
                let (xs, _) = self.elems(fr, i.w(2)?)?;
                if xs.iter().any(|x| self.k.ty(*x) != Ty::F64) {
                    return self.rounded(fr, label, i);
                }
                let vs: Vec<Value> = xs
                    .iter()
                    .map(|x| {
                        let h = self.push(Ty::I16, Op::Conv(ConvOp::FToF16(Round::Rte), *x));
                        self.push(Ty::F32, Op::Conv(ConvOp::F16ToF, h))
                    })
                    .collect();
                if m.vector(i.w(0)?).map_or(1, |v| v.1) as usize != vs.len() {
                    return Err(Error::invalid("OpFConvert: vectors of different sizes"));
                }
                let v = self.pack(i.w(0)?, vs);
                fr.vals.insert(i.w(1)?, (v, i.w(0)?));
                Ok(Some(false))
            }
            // OpBitcast between a half and a 16-bit integer
            op::BITCAST if result_half(0) || self.type_of(fr, i.w(2)?).is_some_and(|t| m.is_half(t)) => {
                let (x, xty) = self.get(fr, i.w(2)?)?;
                // Vectors: `Builder::vector_bitcast` (`frontend/dpcpp.rs`).
                let (Val::V(x), false, false) =
                    (x, m.vector(xty).is_some(), m.vector(i.w(0)?).is_some())
                else {
                    return Ok(None);
                };
                let to = m.ir_ty(i.w(0)?)?;
                let v = if m.is_half(i.w(0)?) && self.k.ty(x) == Ty::I16 {
                    self.push(Ty::F32, Op::Conv(ConvOp::F16ToF, x))
                } else if m.is_half(xty) && to == Ty::I16 && self.k.ty(x) == Ty::F32 {
                    self.push(Ty::I16, Op::Conv(ConvOp::FToF16(Round::Rte), x))
                } else if m.is_half(xty) && m.is_half(i.w(0)?) {
                    x
                } else {
                    return Err(Error::invalid("OpBitcast between types of different sizes"));
                };
                fr.vals.insert(i.w(1)?, (Val::V(v), i.w(0)?));
                Ok(Some(false))
            }
            // Arithmetic, int-to-float conversions, f32-to-half conversions, OpenCL.std
            // functions: computed in f32, then rounded.
            12 | 111 | 112 | 115 | 129 | 131 | 133 | 136 | 140 | 141 | 142 | 148
                if result_half(0) =>
            {
                self.rounded(fr, label, i)
            }
            _ => Ok(None),
        }
    }

    /// The SPIR-V type of a value, without lowering anything.
    pub(super) fn type_of(&self, fr: &Frame, id: u32) -> Option<u32> {
        fr.vals
            .get(&id)
            .map(|v| v.1)
            .or_else(|| self.m.consts.get(&id).map(|c| c.0))
            .or_else(|| self.m.globals.get(&id).map(|g| g.0))
    }

    /// Lowers `i` as f32 and rounds its result (a half or halves) to half.
    fn rounded(&mut self, fr: &mut Frame, label: u32, i: &Inst) -> Result<Option<bool>, Error> {
        self.in_half = true;
        let r = self.inst(fr, label, i);
        self.in_half = false;
        let ended = r?;
        let rid = i.w(1)?;
        let Some((v, ty)) = fr.vals.remove(&rid) else {
            return Err(Error::internal("a half instruction made no value"));
        };
        let round = |s: &mut Self, x: Value| {
            let h = s.push(Ty::I16, Op::Conv(ConvOp::FToF16(Round::Rte), x));
            s.push(Ty::F32, Op::Conv(ConvOp::F16ToF, h))
        };
        let v = match v {
            Val::V(x) if self.k.ty(x) == Ty::F32 => Val::V(round(self, x)),
            Val::Vec(xs) if xs.iter().all(|x| self.k.ty(*x) == Ty::F32) => {
                Val::Vec(xs.into_iter().map(|x| round(self, x)).collect())
            }
            _ => return Err(Error::invalid("a half result that is not a float")),
        };
        fr.vals.insert(rid, (v, ty));
        Ok(Some(ended))
    }

    /// OpenCL.std functions lowered whole, vectors included, rather than element by element:
    /// `Some(false)` when `i` was one of them (it never ends a block).
    pub(super) fn std_whole(&mut self, fr: &mut Frame, i: &Inst) -> Result<Option<bool>, Error> {
        if !self.m.opencl_std.contains(&i.w(2)?) {
            return Ok(None);
        }
        let n = i.w(3)?;
        let v = match n {
            cl::VLOADN
            | cl::VSTOREN
            | cl::VLOAD_HALF
            | cl::VLOAD_HALFN
            | cl::VSTORE_HALF
            | cl::VSTORE_HALF_R
            | cl::VSTORE_HALFN
            | cl::VSTORE_HALFN_R
            | cl::VLOADA_HALFN
            | cl::VSTOREA_HALFN
            | cl::VSTOREA_HALFN_R => self.vload_store(fr, i, n)?,
            cl::CROSS
            | cl::DISTANCE
            | cl::LENGTH
            | cl::NORMALIZE
            | cl::FAST_DISTANCE
            | cl::FAST_LENGTH
            | cl::FAST_NORMALIZE => Some(self.geometric(fr, i, n)?),
            cl::SHUFFLE | cl::SHUFFLE2 => Some(self.shuffle(fr, i, n)?),
            cl::FRACT
            | cl::FREXP
            | cl::LGAMMA_R
            | cl::MODF
            | cl::REMQUO
            | cl::SINCOS => Some(self.pointer_result(fr, i, n)?),
            cl::PRINTF => Some(self.printf(fr, i)?),
            // prefetch(p, count): a hint, nothing to do on a CPU whose caches fetch on use.
            cl::PREFETCH => {
                let a = operands(i, n, 2)?;
                let p = self.val(fr, a[0])?;
                self.pointer(p, i.op)?;
                None
            }
            _ => return Ok(None),
        };
        if let Some(v) = v {
            fr.vals.insert(i.w(1)?, (v, i.w(0)?));
        }
        Ok(Some(false))
    }

    /// printf(format, args...): the arguments (vectors element by element) stored in 8-byte
    /// slots of private memory with a type code each (`crate::printf`), then the call.
    fn printf(&mut self, fr: &Frame, i: &Inst) -> Result<Val, Error> {
        let a = i.ops.get(4..).unwrap_or(&[]);
        let Some((&f, rest)) = a.split_first() else {
            return Err(Error::invalid("printf without a format"));
        };
        if self.m.ir_ty(i.w(0)?)? != Ty::I32 {
            return Err(Error::invalid("printf whose result is not an int"));
        }
        let fmt = self.val(fr, f)?;
        self.pointer(fmt, i.op)?;
        let mut vals = Vec::new();
        for id in rest {
            vals.extend(self.elems(fr, *id)?.0);
        }
        if vals.len() > 1024 {
            return Err(Error::unsupported("printf with more than 1024 arguments"));
        }
        let count = vals.len() as u64;
        let off = super::align_up(u64::from(self.k.private_size), 8);
        if off + 9 * count > 1 << 20 {
            return Err(Error::unsupported(
                "more than 1 MiB of private memory per work-item",
            ));
        }
        self.k.private_size = (off + 9 * count) as u32;
        let base = self.push(Ty::I64, Op::PrivateAddr(off as u32));
        for (k, v) in vals.iter().enumerate() {
            let code = match self.k.ty(*v) {
                Ty::I8 => 1,
                Ty::I16 => 2,
                Ty::I32 => 3,
                Ty::I64 => 4,
                Ty::F32 => 5,
                Ty::F64 => 6,
                Ty::Bool => return Err(Error::invalid("printf of a boolean")),
            };
            let addr = self.add_const(base, 8 * k as u64);
            self.effect(Op::Store { addr, value: *v });
            let c = self.push(Ty::I8, Op::Const(code));
            let addr = self.add_const(base, 8 * count + k as u64);
            self.effect(Op::Store { addr, value: c });
        }
        let r = self.push(
            Ty::I32,
            Op::Printf {
                fmt,
                args: base,
                count: count as u32,
            },
        );
        Ok(Val::V(r))
    }
}
