//! Questions about a read module: its types and their IR types, sizes, alignments and member
//! offsets, its constants (and their bytes in program-scope data), names and decorations.

use super::{ConstVal, Module};
use crate::ir::{Builtin, Ty};
use crate::spv::{builtin, Type};
use crate::Error;

pub(super) fn align_up(x: u64, a: u64) -> u64 {
    x.div_ceil(a.max(1)) * a.max(1)
}

impl Module {
    pub(super) fn ty(&self, id: u32) -> Result<&Type, Error> {
        self.types
            .get(&id)
            .ok_or_else(|| Error::invalid(format!("%{id} is not a type")))
    }

    pub(super) fn name(&self, id: u32) -> String {
        self.names
            .get(&id)
            .cloned()
            .unwrap_or_else(|| format!("%{id}"))
    }

    pub(super) fn has_deco(&self, id: u32, deco: u32) -> Option<&[u32]> {
        self.decos
            .get(&id)?
            .iter()
            .find(|d| d.0 == deco)
            .map(|d| d.1.as_slice())
    }

    /// Size and alignment in bytes of a type in memory.
    pub(super) fn layout(&self, id: u32) -> Result<(u64, u64), Error> {
        self.layout_depth(id, 0)
    }

    pub(super) fn layout_depth(&self, id: u32, depth: u32) -> Result<(u64, u64), Error> {
        if depth > 32 {
            return Err(Error::invalid("types nested too deeply"));
        }
        let r = match self.ty(id)? {
            Type::Bool => (1, 1),
            Type::Int(b) | Type::Float(b) => (u64::from(*b / 8), u64::from(*b / 8)),
            Type::Pointer(..) | Type::Event => (8, 8),
            Type::Vector(e, n) => {
                let (s, _) = self.layout_depth(*e, depth + 1)?;
                let n = if *n == 3 { 4 } else { u64::from(*n) };
                (s * n, s * n)
            }
            Type::Array(e, len) => {
                let (s, a) = self.layout_depth(*e, depth + 1)?;
                let size = s
                    .checked_mul(*len)
                    .filter(|s| *s < 1 << 40)
                    .ok_or_else(|| Error::invalid("array type too large"))?;
                (size, a)
            }
            Type::Struct(members, packed) => {
                let (mut off, mut align) = (0u64, 1u64);
                for m in members {
                    let (s, a) = self.layout_depth(*m, depth + 1)?;
                    let a = if *packed { 1 } else { a };
                    off = align_up(off, a) + s;
                    align = align.max(a);
                    if off > 1 << 40 {
                        return Err(Error::invalid("struct type too large"));
                    }
                }
                (align_up(off, align), align)
            }
            t => {
                return Err(Error::unsupported(format!(
                    "a value of type {t:?} in memory"
                )))
            }
        };
        Ok(r)
    }

    pub(super) fn member_offset(&self, members: &[u32], packed: bool, index: usize) -> Result<u64, Error> {
        let mut off = 0;
        for (i, m) in members.iter().enumerate() {
            let (s, a) = self.layout(*m)?;
            off = align_up(off, if packed { 1 } else { a });
            if i == index {
                return Ok(off);
            }
            off += s;
        }
        Err(Error::invalid(format!(
            "struct member index {index} out of range"
        )))
    }

    /// Element type and count of a vector type.
    pub(super) fn vector(&self, id: u32) -> Option<(u32, u32)> {
        match self.types.get(&id) {
            Some(Type::Vector(e, n)) => Some((*e, *n)),
            _ => None,
        }
    }

    pub(super) fn ir_ty(&self, id: u32) -> Result<Ty, Error> {
        Ok(match self.ty(id)? {
            Type::Bool => Ty::Bool,
            Type::Int(8) => Ty::I8,
            Type::Int(16) => Ty::I16,
            Type::Int(32) => Ty::I32,
            Type::Int(64) => Ty::I64,
            Type::Float(32) => Ty::F32,
            Type::Float(64) => Ty::F64,
            // A half value is carried as the f32 of the same value (see `frontend/stdlib/`).
            Type::Float(16) => Ty::F32,
            // Images and samplers: their descriptors' addresses (`frontend/image.rs`).
            // Events: a copy's event (`async_copy`), never waited on for real.
            Type::Pointer(..) | Type::Image(_) | Type::Sampler | Type::Event => Ty::I64,
            t => return Err(Error::unsupported(format!("values of type {t:?}"))),
        })
    }

    pub(super) fn const_scalar(&self, id: u32) -> Result<u64, Error> {
        match self.consts.get(&id) {
            Some((_, ConstVal::Scalar(v))) => Ok(*v),
            Some((_, ConstVal::Null)) => Ok(0),
            _ => Err(Error::invalid(format!("%{id} is not a scalar constant"))),
        }
    }

    /// Writes constant `id` (of type `ty`) into `out`.
    pub(super) fn write_const(&self, id: u32, ty: u32, out: &mut [u8], depth: u32) -> Result<(), Error> {
        if depth > 32 {
            return Err(Error::invalid("constants nested too deeply"));
        }
        let (size, _) = self.layout(ty)?;
        if (out.len() as u64) < size {
            return Err(Error::invalid("constant larger than its variable"));
        }
        match self.consts.get(&id).map(|c| &c.1) {
            Some(ConstVal::Scalar(v)) => {
                let n = size.min(8) as usize;
                out[..n].copy_from_slice(&v.to_le_bytes()[..n]);
            }
            Some(ConstVal::Null) => out[..size as usize].fill(0),
            Some(ConstVal::Composite(parts)) => {
                let (elems, packed): (Vec<u32>, bool) = match self.ty(ty)? {
                    Type::Array(e, n) => (vec![*e; (*n).min(1 << 24) as usize], false),
                    Type::Vector(e, n) => (vec![*e; *n as usize], true),
                    Type::Struct(m, p) => (m.clone(), *p),
                    t => return Err(Error::invalid(format!("composite constant of type {t:?}"))),
                };
                if parts.len() != elems.len() {
                    return Err(Error::invalid(
                        "composite constant with the wrong number of parts",
                    ));
                }
                let mut off = 0u64;
                for (p, e) in parts.iter().zip(&elems) {
                    let (s, a) = self.layout(*e)?;
                    off = align_up(off, if packed { s } else { a });
                    let end = (off + s) as usize;
                    if end > out.len() {
                        return Err(Error::invalid("composite constant overflows its type"));
                    }
                    self.write_const(*p, *e, &mut out[off as usize..end], depth + 1)?;
                    off += s;
                }
            }
            None => {
                return Err(Error::invalid(format!(
                    "initializer %{id} is not a constant"
                )))
            }
        }
        Ok(())
    }
}

pub(super) fn builtin_of(n: u32) -> Result<Builtin, Error> {
    Ok(match n {
        builtin::NUM_WORKGROUPS => Builtin::NumGroups,
        builtin::WORKGROUP_SIZE | builtin::ENQUEUED_WORKGROUP_SIZE => Builtin::LocalSize,
        builtin::WORKGROUP_ID => Builtin::GroupId,
        builtin::LOCAL_INVOCATION_ID => Builtin::LocalId,
        builtin::GLOBAL_INVOCATION_ID => Builtin::GlobalId,
        builtin::LOCAL_INVOCATION_INDEX => Builtin::LocalLinearId,
        builtin::WORK_DIM => Builtin::WorkDim,
        builtin::GLOBAL_SIZE => Builtin::GlobalSize,
        builtin::GLOBAL_OFFSET => Builtin::GlobalOffset,
        builtin::GLOBAL_LINEAR_ID => Builtin::GlobalLinearId,
        builtin::SUBGROUP_SIZE => Builtin::SubgroupSize,
        builtin::SUBGROUP_MAX_SIZE => Builtin::SubgroupMaxSize,
        builtin::NUM_SUBGROUPS | builtin::NUM_ENQUEUED_SUBGROUPS => Builtin::NumSubgroups,
        builtin::SUBGROUP_ID => Builtin::SubgroupId,
        builtin::SUBGROUP_LOCAL_INVOCATION_ID => Builtin::SubgroupLocalId,
        _ => return Err(Error::unsupported(format!("built-in variable BuiltIn {n}"))),
    })
}
