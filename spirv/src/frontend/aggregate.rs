//! Structs and arrays as SSA values. Like a vector, an aggregate value is carried as the list
//! of its scalars, recursively flattened in member (or element) order; a vector member adds
//! one scalar per element. In memory the scalars sit at the natural layout's offsets (the same
//! layout access chains use).

use super::{Builder, ConstVal, Frame, Module, Val};
use crate::ir::{Op, Ty, Value};
use crate::spv::{op, Type};
use crate::Error;

/// Most scalars one aggregate value may be made of.
const MAX_FLAT: usize = 256;

impl Module {
    /// Whether `id` is a struct or array type.
    pub(super) fn is_aggregate(&self, id: u32) -> bool {
        matches!(
            self.types.get(&id),
            Some(Type::Struct(..) | Type::Array(..))
        )
    }

    /// The scalars of a value of type `id`: (SPIR-V scalar type, byte offset in memory).
    pub(super) fn flat(&self, id: u32) -> Result<Vec<(u32, u64)>, Error> {
        let mut out = Vec::new();
        self.flat_into(id, 0, &mut out, 0)?;
        Ok(out)
    }

    fn flat_into(
        &self,
        id: u32,
        base: u64,
        out: &mut Vec<(u32, u64)>,
        depth: u32,
    ) -> Result<(), Error> {
        if depth > 32 {
            return Err(Error::invalid("types nested too deeply"));
        }
        let too_many = || {
            Error::unsupported(format!(
                "struct or array values of more than {MAX_FLAT} scalars"
            ))
        };
        match self.ty(id)?.clone() {
            Type::Struct(members, packed) => {
                for (k, m) in members.iter().enumerate() {
                    let off = self.member_offset(&members, packed, k)?;
                    self.flat_into(*m, base + off, out, depth + 1)?;
                }
            }
            Type::Array(e, n) => {
                let (s, _) = self.layout(e)?;
                for k in 0..n {
                    if out.len() > MAX_FLAT {
                        return Err(too_many());
                    }
                    self.flat_into(e, base + k * s, out, depth + 1)?;
                }
            }
            Type::Vector(e, n) => {
                let (s, _) = self.layout(e)?;
                out.extend((0..u64::from(n)).map(|k| (e, base + k * s)));
            }
            _ => out.push((id, base)),
        }
        if out.len() > MAX_FLAT {
            return Err(too_many());
        }
        Ok(())
    }
}

impl Builder<'_> {
    /// The IR types of an aggregate value of type `ty`.
    pub(super) fn aggregate_types(&self, ty: u32) -> Result<Vec<Ty>, Error> {
        self.m
            .flat(ty)?
            .into_iter()
            .map(|(t, _)| self.m.ir_ty(t))
            .collect()
    }

    /// Checks that `vals` have the IR types of a value of SPIR-V type `ty`.
    pub(super) fn check_types(&self, ty: u32, vals: &[Value], what: &str) -> Result<(), Error> {
        let want = self.value_types(ty)?;
        if want.len() != vals.len() || want.iter().zip(vals).any(|(t, v)| self.k.ty(*v) != *t) {
            return Err(Error::invalid(format!("{what} of the wrong type")));
        }
        Ok(())
    }

    /// Aggregate constant `id` (OpConstantComposite, OpConstantNull, OpUndef) as its scalars.
    pub(super) fn const_aggregate(
        &mut self,
        fr: &Frame,
        id: u32,
        depth: u32,
    ) -> Result<Vec<Value>, Error> {
        if depth > 32 {
            return Err(Error::invalid("constants nested too deeply"));
        }
        let (ty, c) = self
            .m
            .consts
            .get(&id)
            .cloned()
            .ok_or_else(|| Error::invalid(format!("%{id} is not a constant")))?;
        let vals = match c {
            ConstVal::Composite(parts) => {
                let count = match self.m.ty(ty)? {
                    Type::Struct(members, _) => members.len() as u64,
                    Type::Array(_, n) => *n,
                    t => return Err(Error::invalid(format!("composite constant of type {t:?}"))),
                };
                if parts.len() as u64 != count {
                    return Err(Error::invalid(
                        "composite constant with the wrong number of parts",
                    ));
                }
                let mut vals = Vec::new();
                for p in parts {
                    let sub = self.m.consts.get(&p).map(|c| c.0);
                    if sub.is_some_and(|t| self.m.is_aggregate(t)) {
                        vals.extend(self.const_aggregate(fr, p, depth + 1)?);
                    } else {
                        vals.extend(self.elems(fr, p)?.0);
                    }
                }
                vals
            }
            ConstVal::Null | ConstVal::Scalar(_) => self
                .aggregate_types(ty)?
                .into_iter()
                .map(|t| self.push(t, Op::Const(0)))
                .collect(),
        };
        self.check_types(ty, &vals, "a composite constant")?;
        Ok(vals)
    }

    /// Offsets and IR types of the scalars of an aggregate of type `ty` loaded or stored whole.
    fn mem_flat(&self, ty: u32) -> Result<Vec<(Ty, u64)>, Error> {
        self.m
            .flat(ty)?
            .into_iter()
            .map(|(t, off)| {
                if self.m.is_half(t) {
                    return Err(Error::unsupported(
                        "struct or array values with `half` members loaded or stored whole",
                    ));
                }
                match self.m.ir_ty(t)? {
                    Ty::Bool => Err(Error::unsupported("loads and stores of booleans")),
                    it => Ok((it, off)),
                }
            })
            .collect()
    }

    /// Loads an aggregate of type `ty` from `addr`.
    pub(super) fn load_aggregate(&mut self, addr: Value, ty: u32) -> Result<Vec<Value>, Error> {
        let mut vs = Vec::new();
        for (t, off) in self.mem_flat(ty)? {
            let a = self.add_const(addr, off);
            vs.push(self.push(t, Op::Load(a)));
        }
        Ok(vs)
    }

    /// Stores aggregate `vals` of type `ty` at `addr`.
    pub(super) fn store_aggregate(
        &mut self,
        addr: Value,
        ty: u32,
        vals: &[Value],
    ) -> Result<(), Error> {
        self.check_types(ty, vals, "a stored value")?;
        for ((_, off), v) in self.mem_flat(ty)?.into_iter().zip(vals) {
            let a = self.add_const(addr, off);
            self.effect(Op::Store { addr: a, value: *v });
        }
        Ok(())
    }

    /// The scalars of the part of a value of type `ty` that the literal indices `idx` name:
    /// (first scalar, number of scalars, the part's type).
    pub(super) fn part(&self, mut ty: u32, idx: &[u32]) -> Result<(usize, usize, u32), Error> {
        let mut start = 0;
        let range = || Error::invalid("composite index out of range");
        for &k in idx {
            match self.m.ty(ty)?.clone() {
                Type::Struct(members, _) => {
                    let k = k as usize;
                    if k >= members.len() {
                        return Err(range());
                    }
                    for m in &members[..k] {
                        start += self.value_types(*m)?.len();
                    }
                    ty = members[k];
                }
                Type::Array(e, n) => {
                    if u64::from(k) >= n {
                        return Err(range());
                    }
                    start += k as usize * self.value_types(e)?.len();
                    ty = e;
                }
                Type::Vector(e, n) => {
                    if k >= n {
                        return Err(range());
                    }
                    start += k as usize;
                    ty = e;
                }
                t => return Err(Error::invalid(format!("composite index into {t:?}"))),
            }
        }
        Ok((start, self.value_types(ty)?.len(), ty))
    }

    /// OpCompositeExtract / OpCompositeInsert / OpCompositeConstruct / OpSelect with an
    /// aggregate operand or result; None when the instruction is not one of these.
    pub(super) fn aggregate_inst(
        &mut self,
        fr: &mut Frame,
        i: &crate::spv::Inst,
    ) -> Result<Option<()>, Error> {
        let m = self.m;
        let agg = |id: Option<&u32>| id.is_some_and(|t| m.is_aggregate(*t));
        let (rt, rid) = match (i.ops.first(), i.ops.get(1)) {
            (Some(t), Some(r)) => (*t, *r),
            _ => return Ok(None),
        };
        let v = match i.op {
            op::COMPOSITE_EXTRACT => {
                let (c, cty) = self.get(fr, i.w(2)?)?;
                if !m.is_aggregate(cty) {
                    return Ok(None);
                }
                let Val::Vec(all) = c else {
                    return Err(Error::invalid("OpCompositeExtract from a non-composite"));
                };
                let (start, n, _) = self.part(cty, &i.ops[3..])?;
                let vals = all
                    .get(start..start + n)
                    .ok_or_else(|| Error::invalid("OpCompositeExtract index out of range"))?
                    .to_vec();
                self.check_types(rt, &vals, "OpCompositeExtract result")?;
                self.pack(rt, vals)
            }
            op::COMPOSITE_INSERT if agg(Some(&rt)) => {
                let (x, _) = self.elems(fr, i.w(2)?)?;
                let (mut all, cty) = self.elems(fr, i.w(3)?)?;
                if cty != rt {
                    return Err(Error::invalid("OpCompositeInsert of the wrong type"));
                }
                let (start, n, pty) = self.part(cty, &i.ops[4..])?;
                self.check_types(pty, &x, "OpCompositeInsert object")?;
                if n != x.len() || start + n > all.len() {
                    return Err(Error::invalid("OpCompositeInsert index out of range"));
                }
                all.splice(start..start + n, x);
                Val::Vec(all)
            }
            op::COMPOSITE_CONSTRUCT if agg(Some(&rt)) => {
                let mut all = Vec::new();
                for p in &i.ops[2..] {
                    all.extend(self.elems(fr, *p)?.0);
                }
                self.check_types(rt, &all, "OpCompositeConstruct constituents")?;
                Val::Vec(all)
            }
            op::SELECT if agg(Some(&rt)) => {
                let c = self.val(fr, i.w(2)?)?;
                if self.k.ty(c) != Ty::Bool {
                    return Err(Error::invalid("OpSelect condition is not a boolean"));
                }
                let (a, _) = self.elems(fr, i.w(3)?)?;
                let (b, _) = self.elems(fr, i.w(4)?)?;
                self.check_types(rt, &a, "OpSelect operand")?;
                self.check_types(rt, &b, "OpSelect operand")?;
                let out = a
                    .iter()
                    .zip(&b)
                    .map(|(x, y)| self.push(self.k.ty(*x), Op::Select(c, *x, *y)))
                    .collect();
                Val::Vec(out)
            }
            _ => return Ok(None),
        };
        fr.vals.insert(rid, (v, rt));
        Ok(Some(()))
    }
}
