//! OpenCL.std functions beyond the first milestone: `vload`/`vstore` (`half` too), geometric
//! functions, `shuffle`/`shuffle2`, the functions with a pointer result (`fract`, `frexp`,
//! `lgamma_r`, `modf`, `remquo`, `sincos`), and the remaining math, common and integer
//! functions.

use super::{Builder, Frame, Module, Val};
use crate::ir::{BinOp, CmpOp, ConvOp, MathFn, Op, Round, Ty, UnOp, Value};
use crate::spv::{Inst, Type};
use crate::Error;

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
        1 => (MathFn::Acosh, 1),
        2 => (MathFn::Acospi, 1),
        4 => (MathFn::Asinh, 1),
        5 => (MathFn::Asinpi, 1),
        8 => (MathFn::Atanh, 1),
        9 => (MathFn::Atanpi, 1),
        10 => (MathFn::Atan2pi, 2),
        16 => (MathFn::Cospi, 1),
        17 => (MathFn::Erfc, 1),
        18 => (MathFn::Erf, 1),
        35 => (MathFn::Lgamma, 1),
        41 => (MathFn::Logb, 1),
        47 => (MathFn::Nextafter, 2),
        51 => (MathFn::Remainder, 2),
        60 => (MathFn::Sinpi, 1),
        64 => (MathFn::Tanpi, 1),
        65 => (MathFn::Tgamma, 1),
        // fmax_common, fmin_common
        97 => (MathFn::Fmax, 2),
        98 => (MathFn::Fmin, 2),
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
            61 if result_half(0) => {
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
            62 => {
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
            59 if i.ops.len() > 3 && m.half_pointee(i.w(0)?) => Err(Error::unsupported(
                "function-scope `half` variables with an initializer",
            )),
            // OpFConvert from double to half: one rounding, from the double.
            115 if result_half(0) => {
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
            124 if result_half(0) || self.type_of(fr, i.w(2)?).is_some_and(|t| m.is_half(t)) => {
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
            171..=181 => self.vload_store(fr, i, n)?,
            104..=110 => Some(self.geometric(fr, i, n)?),
            182 | 183 => Some(self.shuffle(fr, i, n)?),
            30 | 31 | 36 | 45 | 52 | 58 => Some(self.pointer_result(fr, i, n)?),
            184 => Some(self.printf(fr, i)?),
            // prefetch(p, count): a hint, nothing to do on a CPU whose caches fetch on use.
            185 => {
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

    /// `p + offset * bytes` for the `vload`/`vstore` operands.
    fn vaddr(
        &mut self,
        fr: &Frame,
        i: &Inst,
        offset: u32,
        p: u32,
        bytes: u64,
    ) -> Result<Value, Error> {
        let p = self.val(fr, p)?;
        self.pointer(p, i.op)?;
        self.offset(fr, p, offset, bytes)
    }

    /// vloadn, vstoren, vload_half(n), vstore_half(n)(_r), vloada_halfn, vstorea_halfn(_r).
    fn vload_store(&mut self, fr: &Frame, i: &Inst, n: u32) -> Result<Option<Val>, Error> {
        match n {
            // vloadn(offset, p, n), vload_halfn, vloada_halfn: a vector result.
            171 | 174 | 179 => {
                let a = operands(i, n, 3)?;
                let (e, count) = self
                    .m
                    .vector(i.w(0)?)
                    .ok_or_else(|| Error::invalid("vloadn whose result is not a vector"))?;
                let et = self.m.ir_ty(e)?;
                let half = n != 171 || self.m.is_half(e);
                if et == Ty::Bool || (half && !et.is_float()) {
                    return Err(Error::invalid(format!(
                        "OpenCL.std function {n} of the wrong type"
                    )));
                }
                let esize = if half { 2 } else { u64::from(et.bytes()) };
                let stride = if n == 179 && count == 3 { 4 } else { count };
                let base = self.vaddr(fr, i, a[0], a[1], u64::from(stride) * esize)?;
                let vs = (0..u64::from(count))
                    .map(|k| self.load_elem(base, k * esize, et, half))
                    .collect();
                Ok(Some(Val::Vec(vs)))
            }
            // vload_half(offset, p): one float.
            173 => {
                let a = operands(i, n, 2)?;
                let et = self.m.ir_ty(i.w(0)?)?;
                if !et.is_float() || self.m.vector(i.w(0)?).is_some() {
                    return Err(Error::invalid("vload_half of the wrong type"));
                }
                let base = self.vaddr(fr, i, a[0], a[1], 2)?;
                Ok(Some(Val::V(self.load_elem(base, 0, et, true))))
            }
            // vstoren(data, offset, p); vstore_half(n)(_r), vstorea_halfn(_r) (data, offset,
            // p[, rounding mode]).
            _ => {
                let rounded = matches!(n, 176 | 178 | 181);
                let a = operands(i, n, if rounded { 4 } else { 3 })?;
                let round = if rounded {
                    match a[3] {
                        0 => Round::Rte,
                        1 => Round::Rtz,
                        2 => Round::Rtp,
                        3 => Round::Rtn,
                        r => return Err(Error::invalid(format!("rounding mode {r}"))),
                    }
                } else {
                    Round::Rte
                };
                let (xs, dty) = self.elems(fr, a[0])?;
                let half = n != 172 || self.m.is_half(dty);
                let count = xs.len() as u64;
                let et = xs
                    .first()
                    .map(|x| self.k.ty(*x))
                    .ok_or_else(|| Error::invalid("vstore of nothing"))?;
                if xs.iter().any(|x| self.k.ty(*x) != et)
                    || et == Ty::Bool
                    || (half && !et.is_float())
                {
                    return Err(Error::invalid(format!(
                        "OpenCL.std function {n} of the wrong type"
                    )));
                }
                let esize = if half { 2 } else { u64::from(et.bytes()) };
                let stride = if matches!(n, 180 | 181) && count == 3 {
                    4
                } else {
                    count
                };
                let base = self.vaddr(fr, i, a[1], a[2], stride * esize)?;
                for (k, x) in xs.iter().enumerate() {
                    let addr = self.add_const(base, k as u64 * esize);
                    let value = if half {
                        self.push(Ty::I16, Op::Conv(ConvOp::FToF16(round), *x))
                    } else {
                        *x
                    };
                    self.effect(Op::Store { addr, value });
                }
                Ok(None)
            }
        }
    }

    /// Loads one element at `base + off`: of type `et`, or a half converted to `et`.
    fn load_elem(&mut self, base: Value, off: u64, et: Ty, half: bool) -> Value {
        let a = self.add_const(base, off);
        if half {
            let h = self.push(Ty::I16, Op::Load(a));
            self.push(et, Op::Conv(ConvOp::F16ToF, h))
        } else {
            self.push(et, Op::Load(a))
        }
    }

    /// The elements of a float operand (or of several, all of one type `ty`).
    fn float_elems(&mut self, fr: &Frame, id: u32, n: u32) -> Result<(Vec<Value>, Ty), Error> {
        let (xs, _) = self.elems(fr, id)?;
        let t = xs.first().map(|x| self.k.ty(*x)).unwrap_or(Ty::Bool);
        if !t.is_float() || xs.iter().any(|x| self.k.ty(*x) != t) {
            return Err(Error::invalid(format!(
                "OpenCL.std function {n} of the wrong type"
            )));
        }
        Ok((xs, t))
    }

    /// The Euclidean length, as a chain of `hypot` (no overflow or underflow in the squares).
    fn length(&mut self, xs: &[Value], t: Ty) -> Value {
        let mut acc = self.push(t, Op::Math(MathFn::Fabs, vec![xs[0]]));
        for x in &xs[1..] {
            acc = self.push(t, Op::Math(MathFn::Hypot, vec![acc, *x]));
        }
        acc
    }

    /// cross, distance, length, normalize and their `fast_` forms (computed the same way).
    fn geometric(&mut self, fr: &Frame, i: &Inst, n: u32) -> Result<Val, Error> {
        let rt = self
            .m
            .ir_ty(self.m.vector(i.w(0)?).map_or(i.w(0)?, |v| v.0))?;
        let two = matches!(n, 104 | 105 | 108);
        let a = operands(i, n, if two { 2 } else { 1 })?;
        let (xs, t) = self.float_elems(fr, a[0], n)?;
        let ys = if two {
            let (ys, t2) = self.float_elems(fr, a[1], n)?;
            if t2 != t || ys.len() != xs.len() {
                return Err(Error::invalid(format!(
                    "OpenCL.std function {n}: operands differ"
                )));
            }
            ys
        } else {
            vec![]
        };
        if t != rt || xs.len() > 4 {
            return Err(Error::invalid(format!(
                "OpenCL.std function {n} of the wrong type"
            )));
        }
        let bin = |s: &mut Self, o: BinOp, x: Value, y: Value| s.push(t, Op::Bin(o, x, y));
        Ok(match n {
            104 => {
                if xs.len() < 3 {
                    return Err(Error::invalid("cross of vectors of fewer than 3 elements"));
                }
                let mut out = Vec::new();
                for (p, q) in [(1, 2), (2, 0), (0, 1)] {
                    let l = bin(self, BinOp::FMul, xs[p], ys[q]);
                    let r = bin(self, BinOp::FMul, xs[q], ys[p]);
                    out.push(bin(self, BinOp::FSub, l, r));
                }
                if xs.len() == 4 {
                    out.push(self.push(t, Op::Const(0)));
                }
                Val::Vec(out)
            }
            105 | 108 => {
                let d: Vec<Value> = xs
                    .iter()
                    .zip(&ys)
                    .map(|(x, y)| bin(self, BinOp::FSub, *x, *y))
                    .collect();
                Val::V(self.length(&d, t))
            }
            106 | 109 => Val::V(self.length(&xs, t)),
            _ => {
                // normalize: x / length(x); a zero vector is returned as it is.
                let len = self.length(&xs, t);
                let zero = self.push(t, Op::Const(0));
                let is0 = self.push(Ty::Bool, Op::Cmp(CmpOp::FEq, len, zero));
                let out: Vec<Value> = xs
                    .iter()
                    .map(|x| {
                        let q = bin(self, BinOp::FDiv, *x, len);
                        self.push(t, Op::Select(is0, *x, q))
                    })
                    .collect();
                if xs.len() == 1 {
                    Val::V(out[0])
                } else {
                    Val::Vec(out)
                }
            }
        })
    }

    /// shuffle(x, mask), shuffle2(x, y, mask): each result element picked by its mask element
    /// (its low bits, as OpenCL says), as a chain of selects.
    fn shuffle(&mut self, fr: &Frame, i: &Inst, n: u32) -> Result<Val, Error> {
        let a = operands(i, n, if n == 182 { 2 } else { 3 })?;
        let (mut src, _) = self.elems(fr, a[0])?;
        if n == 183 {
            let (ys, _) = self.elems(fr, a[1])?;
            if ys.len() != src.len() {
                return Err(Error::invalid("shuffle2 of vectors of different sizes"));
            }
            src.extend(ys);
        }
        let (mask, _) = self.elems(fr, a[a.len() - 1])?;
        let et = self.k.ty(src[0]);
        let len = src.len() as u64;
        let mt = self.k.ty(mask[0]);
        if !len.is_power_of_two()
            || src.iter().any(|x| self.k.ty(*x) != et)
            || mt.is_float()
            || mt == Ty::Bool
            || mask.iter().any(|x| self.k.ty(*x) != mt)
        {
            return Err(Error::invalid(format!(
                "OpenCL.std function {n} of the wrong type"
            )));
        }
        let low = self.push(mt, Op::Const(len - 1));
        let mut out = Vec::new();
        for m in mask {
            let ix = self.push(mt, Op::Bin(BinOp::And, m, low));
            let mut acc = src[0];
            for (j, x) in src.iter().enumerate().skip(1) {
                let c = self.index_is(ix, j)?;
                acc = self.push(et, Op::Select(c, *x, acc));
            }
            out.push(acc);
        }
        Ok(Val::Vec(out))
    }

    /// fract, frexp, lgamma_r, modf, remquo, sincos: the result, and a second value stored
    /// through the last operand (a pointer to the same shape, floats or 32-bit integers).
    fn pointer_result(&mut self, fr: &Frame, i: &Inst, n: u32) -> Result<Val, Error> {
        let a = operands(i, n, if n == 52 { 3 } else { 2 })?;
        let (xs, t) = self.float_elems(fr, a[0], n)?;
        let ys = if n == 52 {
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
        let int_side = matches!(n, 31 | 36 | 52);
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
                30 => (
                    math(self, MathFn::Fract, vec![*x]),
                    math(self, MathFn::Floor, vec![*x]),
                ),
                31 => (
                    math(self, MathFn::FrexpMant, vec![*x]),
                    math(self, MathFn::FrexpExp, vec![*x]),
                ),
                36 => (
                    math(self, MathFn::Lgamma, vec![*x]),
                    math(self, MathFn::LgammaSign, vec![*x]),
                ),
                45 => (
                    math(self, MathFn::ModfFrac, vec![*x]),
                    math(self, MathFn::Trunc, vec![*x]),
                ),
                52 => (
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
    pub(super) fn std_scalar(
        &mut self,
        fr: &Frame,
        i: &Inst,
        n: u32,
    ) -> Result<Option<Value>, Error> {
        let arity = match n {
            _ if math_more(n).is_some() => math_more(n).map_or(0, |m| m.1),
            33 | 46 | 152 | 166 => 1,
            34 | 49 | 54 | 142 | 202 | 143 | 144 | 145..=148 | 162..=165 => 2,
            102 | 186 | 153 | 204 | 154 | 155 => 3,
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
            33 => {
                let xt = self.k.ty(a[0]);
                if ty != Ty::I32 || !xt.is_float() {
                    return Err(wrong());
                }
                let f = self.push(xt, Op::Math(MathFn::Ilogb, vec![a[0]]));
                self.push(Ty::I32, Op::Conv(ConvOp::FToS, f))
            }
            // ldexp(x, k), pown(x, n), rootn(x, n): the integer held in a float
            34 | 49 | 54 => {
                if !ty.is_float() || self.k.ty(a[0]) != ty || !is_int(self.k.ty(a[1])) {
                    return Err(wrong());
                }
                let k = self.push(ty, Op::Conv(ConvOp::SToF, a[1]));
                let f = match n {
                    34 => MathFn::Ldexp,
                    49 => MathFn::Pown,
                    _ => MathFn::Rootn,
                };
                self.push(ty, Op::Math(f, vec![a[0], k]))
            }
            // nan(code): a quiet NaN carrying the code's low bits
            46 => {
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
            102 => {
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
            186 => {
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
            164 | 165 => {
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
    fn int_fn(&mut self, n: u32, ty: Ty, a: &[Value]) -> Value {
        let bin = |s: &mut Self, o: BinOp, x: Value, y: Value| s.push(ty, Op::Bin(o, x, y));
        let cmp = |s: &mut Self, c: CmpOp, x: Value, y: Value| s.push(Ty::Bool, Op::Cmp(c, x, y));
        let sel = |s: &mut Self, c: Value, x: Value, y: Value| s.push(ty, Op::Select(c, x, y));
        let cnst = |s: &mut Self, v: u64| s.push(ty, Op::Const(v));
        let signed = matches!(n, 142 | 143 | 145 | 147 | 153 | 155 | 162);
        // The saturation value by the sign of `x` (signed): MIN below zero, else MAX.
        let sat_by_sign = |s: &mut Self, x: Value| {
            let zero = cnst(s, 0);
            let neg = cmp(s, CmpOp::SLt, x, zero);
            let max = cnst(s, int_max(ty, true));
            let min = cnst(s, int_max(ty, true) + 1);
            sel(s, neg, min, max)
        };
        match n {
            142 | 202 => {
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
            144 => {
                let s = bin(self, BinOp::Add, a[0], a[1]);
                let ov = cmp(self, CmpOp::ULt, s, a[0]);
                let max = cnst(self, int_max(ty, false));
                sel(self, ov, max, s)
            }
            163 => {
                let lt = cmp(self, CmpOp::ULt, a[0], a[1]);
                let d = bin(self, BinOp::Sub, a[0], a[1]);
                let zero = cnst(self, 0);
                sel(self, lt, zero, d)
            }
            143 | 162 => {
                // Overflow when the operands' signs make it possible and the result's differs.
                let (o, s) = if n == 143 {
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
            145..=148 => {
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
            152 => {
                // ctz: the ones below the lowest set bit (all of them for 0)
                let neg = self.push(ty, Op::Un(UnOp::Neg, a[0]));
                let lowest = bin(self, BinOp::And, a[0], neg);
                let one = cnst(self, 1);
                let below = bin(self, BinOp::Sub, lowest, one);
                self.push(ty, Op::Un(UnOp::Popcnt, below))
            }
            166 => self.push(ty, Op::Un(UnOp::Popcnt, a[0])),
            153 | 204 => {
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
            154 => {
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
