//! OpenCL.std on vectors and memory: `vload`/`vstore` (`half` too), the geometric functions
//! and `shuffle`/`shuffle2`.

use super::{operands, Builder, Frame, Val};
use crate::ir::{BinOp, CmpOp, ConvOp, MathFn, Op, Round, Ty, Value};
use crate::spv::{cl, rounding, Inst};
use crate::Error;

impl Builder<'_> {
    /// `p + offset * bytes` for the `vload`/`vstore` operands.
    pub(super) fn vaddr(
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
    pub(super) fn vload_store(&mut self, fr: &Frame, i: &Inst, n: u32) -> Result<Option<Val>, Error> {
        match n {
            // vloadn(offset, p, n), vload_halfn, vloada_halfn: a vector result.
            cl::VLOADN | cl::VLOAD_HALFN | cl::VLOADA_HALFN => {
                let a = operands(i, n, 3)?;
                let (e, count) = self
                    .m
                    .vector(i.w(0)?)
                    .ok_or_else(|| Error::invalid("vloadn whose result is not a vector"))?;
                let et = self.m.ir_ty(e)?;
                let half = n != cl::VLOADN || self.m.is_half(e);
                if et == Ty::Bool || (half && !et.is_float()) {
                    return Err(Error::invalid(format!(
                        "OpenCL.std function {n} of the wrong type"
                    )));
                }
                let esize = if half { 2 } else { u64::from(et.bytes()) };
                let stride = if n == cl::VLOADA_HALFN && count == 3 { 4 } else { count };
                let base = self.vaddr(fr, i, a[0], a[1], u64::from(stride) * esize)?;
                let vs = (0..u64::from(count))
                    .map(|k| self.load_elem(base, k * esize, et, half))
                    .collect();
                Ok(Some(Val::Vec(vs)))
            }
            // vload_half(offset, p): one float.
            cl::VLOAD_HALF => {
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
                let rounded = matches!(
                    n,
                    cl::VSTORE_HALF_R | cl::VSTORE_HALFN_R | cl::VSTOREA_HALFN_R
                );
                let a = operands(i, n, if rounded { 4 } else { 3 })?;
                let round = if rounded {
                    match a[3] {
                        rounding::RTE => Round::Rte,
                        rounding::RTZ => Round::Rtz,
                        rounding::RTP => Round::Rtp,
                        rounding::RTN => Round::Rtn,
                        r => return Err(Error::invalid(format!("rounding mode {r}"))),
                    }
                } else {
                    Round::Rte
                };
                let (xs, dty) = self.elems(fr, a[0])?;
                let half = n != cl::VSTOREN || self.m.is_half(dty);
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
                let stride = if matches!(n, cl::VSTOREA_HALFN | cl::VSTOREA_HALFN_R) && count == 3 {
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
    pub(super) fn load_elem(&mut self, base: Value, off: u64, et: Ty, half: bool) -> Value {
        let a = self.add_const(base, off);
        if half {
            let h = self.push(Ty::I16, Op::Load(a));
            self.push(et, Op::Conv(ConvOp::F16ToF, h))
        } else {
            self.push(et, Op::Load(a))
        }
    }

    /// The elements of a float operand (or of several, all of one type `ty`).
    pub(super) fn float_elems(&mut self, fr: &Frame, id: u32, n: u32) -> Result<(Vec<Value>, Ty), Error> {
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
    pub(super) fn length(&mut self, xs: &[Value], t: Ty) -> Value {
        let mut acc = self.push(t, Op::Math(MathFn::Fabs, vec![xs[0]]));
        for x in &xs[1..] {
            acc = self.push(t, Op::Math(MathFn::Hypot, vec![acc, *x]));
        }
        acc
    }

    /// cross, distance, length, normalize and their `fast_` forms (computed the same way).
    pub(super) fn geometric(&mut self, fr: &Frame, i: &Inst, n: u32) -> Result<Val, Error> {
        let rt = self
            .m
            .ir_ty(self.m.vector(i.w(0)?).map_or(i.w(0)?, |v| v.0))?;
        let two = matches!(n, cl::CROSS | cl::DISTANCE | cl::FAST_DISTANCE);
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
            cl::CROSS => {
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
            cl::DISTANCE | cl::FAST_DISTANCE => {
                let d: Vec<Value> = xs
                    .iter()
                    .zip(&ys)
                    .map(|(x, y)| bin(self, BinOp::FSub, *x, *y))
                    .collect();
                Val::V(self.length(&d, t))
            }
            cl::LENGTH | cl::FAST_LENGTH => Val::V(self.length(&xs, t)),
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
    pub(super) fn shuffle(&mut self, fr: &Frame, i: &Inst, n: u32) -> Result<Val, Error> {
        let a = operands(i, n, if n == cl::SHUFFLE { 2 } else { 3 })?;
        let (mut src, _) = self.elems(fr, a[0])?;
        if n == cl::SHUFFLE2 {
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
}
