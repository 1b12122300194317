//! Vectors and composites: construction, extraction and insertion, shuffles, dot products,
//! vector-times-scalar and `any`/`all`.

use super::{Builder, Frame, Val};
use crate::ir::{BinOp, Op, Ty, Value};
use crate::spv::{op, op_name, Inst};
use crate::Error;

impl Builder<'_> {
    /// Vector and composite instructions.
    pub(super) fn composite_inst(&mut self, fr: &mut Frame, i: &Inst) -> Result<bool, Error> {
        let m = self.m;
        let op = i.op;
        // Result type and id of value instructions.
        let rt = || i.w(0);
        let def = |fr: &mut Frame, v: Val, ty: u32| -> Result<(), Error> {
            fr.vals.insert(i.w(1)?, (v, ty));
            Ok(())
        };
        match op {
            op::COMPOSITE_EXTRACT => {
                let (c, _) = self.get(fr, i.w(2)?)?;
                match (c, i.ops.len()) {
                    (Val::BVec(b), 4) => {
                        let d = i.w(3)?;
                        if d > 2 {
                            return Err(Error::invalid("built-in vector index out of range"));
                        }
                        let x = self.push(Ty::I64, Op::Builtin(b, d as u8));
                        let v = self.builtin_resize(x, m.ir_ty(rt()?)?)?;
                        def(fr, Val::V(v), rt()?)?;
                    }
                    (Val::Vec(v), 4) => {
                        let x = *v.get(i.w(3)? as usize).ok_or_else(|| {
                            Error::invalid("OpCompositeExtract index out of range")
                        })?;
                        def(fr, Val::V(x), rt()?)?;
                    }
                    _ => {
                        return Err(Error::unsupported(
                            "instruction OpCompositeExtract on values other than vectors",
                        ))
                    }
                }
            }
            op::COMPOSITE_INSERT => {
                // object, composite, one index
                let x = self.val(fr, i.w(2)?)?;
                let (mut v, _) = self.elems(fr, i.w(3)?)?;
                if i.ops.len() != 5 || self.m.vector(rt()?).is_none() {
                    return Err(Error::unsupported(
                        "instruction OpCompositeInsert on values other than vectors",
                    ));
                }
                let slot = v
                    .get_mut(i.w(4)? as usize)
                    .ok_or_else(|| Error::invalid("OpCompositeInsert index out of range"))?;
                if self.k.ty(*slot) != self.k.ty(x) {
                    return Err(Error::invalid("OpCompositeInsert of the wrong type"));
                }
                *slot = x;
                def(fr, Val::Vec(v), rt()?)?;
            }
            op::COMPOSITE_CONSTRUCT | op::VECTOR_SHUFFLE => {
                // OpCompositeConstruct (constituents) or OpVectorShuffle (two vectors, then
                // component literals).
                let Some((_, n)) = self.m.vector(rt()?) else {
                    return Err(Error::unsupported(format!(
                        "instruction {} of values other than vectors",
                        op_name(op)
                    )));
                };
                let types = self.value_types(rt()?)?;
                let mut all = Vec::new();
                let parts = if op == op::COMPOSITE_CONSTRUCT {
                    &i.ops[2..]
                } else {
                    &i.ops[2..i.ops.len().min(4)]
                };
                for p in parts {
                    all.extend(self.elems(fr, *p)?.0);
                }
                let v: Vec<Value> = if op == op::COMPOSITE_CONSTRUCT {
                    all
                } else {
                    let mut out = Vec::new();
                    for c in i.ops.get(4..).unwrap_or(&[]) {
                        out.push(match all.get(*c as usize) {
                            Some(x) => *x,
                            None if *c == u32::MAX => self.push(types[0], Op::Const(0)),
                            None => {
                                return Err(Error::invalid(
                                    "OpVectorShuffle component out of range",
                                ))
                            }
                        });
                    }
                    out
                };
                if v.len() != n as usize || v.iter().any(|x| self.k.ty(*x) != types[0]) {
                    return Err(Error::invalid(format!(
                        "{}: wrong number or type of elements",
                        op_name(op)
                    )));
                }
                def(fr, Val::Vec(v), rt()?)?;
            }
            op::VECTOR_INSERT_DYNAMIC => {
                let (v, _) = self.elems(fr, i.w(2)?)?;
                let x = self.val(fr, i.w(3)?)?;
                let ix = self.val(fr, i.w(4)?)?;
                let mut out = Vec::new();
                for (k, e) in v.iter().enumerate() {
                    let c = self.index_is(ix, k)?;
                    if self.k.ty(*e) != self.k.ty(x) {
                        return Err(Error::invalid("OpVectorInsertDynamic of the wrong type"));
                    }
                    out.push(self.push(self.k.ty(*e), Op::Select(c, x, *e)));
                }
                def(fr, Val::Vec(out), rt()?)?;
            }
            op::DOT => {
                let (a, _) = self.elems(fr, i.w(2)?)?;
                let (b, _) = self.elems(fr, i.w(3)?)?;
                let ty = m.ir_ty(rt()?)?;
                if a.len() != b.len() || !ty.is_float() {
                    return Err(Error::invalid("OpDot of vectors of different sizes"));
                }
                self.check(ty, &a, true, op)?;
                self.check(ty, &b, true, op)?;
                let mut acc = self.push(ty, Op::Bin(BinOp::FMul, a[0], b[0]));
                for k in 1..a.len() {
                    let p = self.push(ty, Op::Bin(BinOp::FMul, a[k], b[k]));
                    acc = self.push(ty, Op::Bin(BinOp::FAdd, acc, p));
                }
                def(fr, Val::V(acc), rt()?)?;
            }
            op::VECTOR_TIMES_SCALAR => {
                let (v, _) = self.elems(fr, i.w(2)?)?;
                let x = self.val(fr, i.w(3)?)?;
                let ty = self.k.ty(x);
                self.check(ty, &v, true, op)?;
                let out = v
                    .iter()
                    .map(|e| self.push(ty, Op::Bin(BinOp::FMul, *e, x)))
                    .collect();
                def(fr, Val::Vec(out), rt()?)?;
            }
            op::ANY | op::ALL => {
                let (v, _) = self.elems(fr, i.w(2)?)?;
                self.check(Ty::Bool, &v, false, op)?;
                let bop = if op == op::ANY { BinOp::Or } else { BinOp::And };
                let mut acc = v[0];
                for e in &v[1..] {
                    acc = self.push(Ty::Bool, Op::Bin(bop, acc, *e));
                }
                def(fr, Val::V(acc), rt()?)?;
            }
            op::VECTOR_EXTRACT_DYNAMIC => {
                let (c, _) = self.get(fr, i.w(2)?)?;
                if let Val::Vec(v) = c {
                    let ix = self.val(fr, i.w(3)?)?;
                    let mut acc = v[0];
                    for (k, e) in v.iter().enumerate().skip(1) {
                        let c = self.index_is(ix, k)?;
                        acc = self.push(self.k.ty(*e), Op::Select(c, *e, acc));
                    }
                    def(fr, Val::V(acc), rt()?)?;
                    return Ok(false);
                }
                let Val::BVec(b) = c else {
                    return Err(Error::unsupported(
                        "instruction OpVectorExtractDynamic on values other than vectors",
                    ));
                };
                let d = self.val(fr, i.w(3)?)?;
                let x = self.push(Ty::I64, Op::BuiltinDyn(b, d));
                let v = self.builtin_resize(x, m.ir_ty(rt()?)?)?;
                def(fr, Val::V(v), rt()?)?;
            }
            _ => return Err(Error::unsupported(format!("instruction {}", op_name(op)))),
        }
        Ok(false)
    }

}
