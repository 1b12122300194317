//! Images and samplers (see [`crate::image`]): an image value is the address of its
//! [`crate::image::ImageDesc`], a sampler value the address of its
//! [`crate::image::SamplerDesc`], a sampled image the pair. Reads, samples and writes become
//! [`Op::Image`] calls with the coordinates and the texel in 32 bytes of private memory;
//! queries load the descriptor's fields.

use super::{align_up, Builder, ConstVal, Frame, Global, Module, Val};
use crate::image::{field, flag, ImageType, SamplerDesc};
use crate::ir::{Op, Ty, Value};
use crate::spv::{op, op_name, Inst, Type};
use crate::Error;

/// `OpConstantSampler` at module scope: its descriptor in the program's data; the sampler's
/// value is that address.
pub(super) fn constant_sampler(m: &mut Module, data: &mut Vec<u8>, i: &Inst) -> Result<(), Error> {
    let (ty, id) = (i.w(0)?, i.w(1)?);
    let (addressing, normalized, filter) = (i.w(2)?, i.w(3)?, i.w(4)?);
    if m.ty(ty)? != &Type::Sampler {
        return Err(Error::invalid("OpConstantSampler whose type is not a sampler"));
    }
    if addressing > 4 || normalized > 1 || filter > 1 {
        return Err(Error::invalid(format!(
            "OpConstantSampler with addressing mode {addressing}, normalized {normalized}, filter mode {filter}"
        )));
    }
    let desc = SamplerDesc {
        addressing,
        normalized,
        filter,
        reserved: 0,
    };
    let off = align_up(data.len() as u64, 8) as usize;
    data.resize(off + 16, 0);
    data[off..off + 16].copy_from_slice(&desc.to_bytes());
    m.globals.insert(id, (ty, Global::Data(off as u32, false)));
    Ok(())
}

/// Image operand bits the compiler accepts: Lod (0 only), SignExtend, ZeroExtend.
const LOD: u32 = 0x2;
const EXTEND: u32 = 0x1000 | 0x2000;

impl Builder<'_> {
    /// An image, with its sampler when it is a sampled image.
    fn image_of(&mut self, fr: &Frame, id: u32) -> Result<(Value, Option<Value>, ImageType), Error> {
        let (v, ty) = self.get(fr, id)?;
        // Descriptor addresses are 64-bit (a malformed module could type anything an image).
        let addr = |b: &Self, v: &Value| b.k.ty(*v) == Ty::I64;
        match (v, self.m.ty(ty)?) {
            (Val::V(img), Type::Image(t)) if addr(self, &img) => Ok((img, None, *t)),
            (Val::Vec(p), Type::SampledImage(it)) if p.len() == 2 && p.iter().all(|v| addr(self, v)) => match self.m.ty(*it)? {
                Type::Image(t) => Ok((p[0], Some(p[1]), *t)),
                _ => Err(Error::invalid("a sampled image type of something not an image")),
            },
            _ => Err(Error::invalid(format!("%{id} is not an image"))),
        }
    }

    /// Checks the image operands from operand `at` on: `lod` says whether a Lod (of 0) is
    /// required.
    fn image_operands(&mut self, i: &Inst, at: usize, lod: bool) -> Result<(), Error> {
        let name = op_name(i.op);
        let mask = i.ops.get(at).copied().unwrap_or(0);
        if mask & !(LOD | EXTEND) != 0 {
            let what = if mask & 0x4 != 0 {
                "explicit gradients (mipmaps)"
            } else if mask & 0x40 != 0 {
                "a sample index (multisampled images)"
            } else if mask & (0x8 | 0x10 | 0x20) != 0 {
                "texel offsets"
            } else {
                "these image operands"
            };
            return Err(Error::unsupported(format!(
                "{name} with image operands {mask:#x}: {what}"
            )));
        }
        if mask & LOD != 0 {
            let l = i.w(at + 1)?;
            let zero = match self.m.consts.get(&l) {
                Some((_, ConstVal::Null)) => true,
                Some((_, ConstVal::Scalar(v))) => *v == 0 || *v == 0x8000_0000,
                _ => false,
            };
            if !zero {
                return Err(Error::unsupported(format!(
                    "{name} with a Lod other than a constant 0 (mipmaps)"
                )));
            }
        } else if lod {
            return Err(Error::invalid(format!("{name} without a Lod")));
        }
        Ok(())
    }

    /// 32 bytes of private memory: the coordinates, then the texel.
    fn image_scratch(&mut self) -> Result<(Value, Value), Error> {
        let off = align_up(u64::from(self.k.private_size), 16);
        if off + 32 > 1 << 20 {
            return Err(Error::unsupported("more than 1 MiB of private memory per work-item"));
        }
        self.k.private_size = (off + 32) as u32;
        let c = self.push(Ty::I64, Op::PrivateAddr(off as u32));
        let t = self.push(Ty::I64, Op::PrivateAddr(off as u32 + 16));
        Ok((c, t))
    }

    /// Stores the coordinates (as 32-bit values); returns the flag bit for float ones.
    fn store_coords(&mut self, fr: &Frame, id: u32, t: &ImageType, at: Value) -> Result<u32, Error> {
        let (cs, _) = self.elems(fr, id)?;
        if cs.len() < t.coords() {
            return Err(Error::invalid(format!(
                "{} image coordinates where {} are needed",
                cs.len(),
                t.coords()
            )));
        }
        let float = cs.iter().all(|c| self.k.ty(*c) == Ty::F32);
        let int = cs
            .iter()
            .all(|c| matches!(self.k.ty(*c), Ty::I8 | Ty::I16 | Ty::I32 | Ty::I64));
        if !float && !int {
            return Err(Error::unsupported("image coordinates other than 32-bit floats or integers"));
        }
        let vals: Vec<Value> = cs
            .into_iter()
            .take(4)
            .map(|c| if float { c } else { self.resize(c, Ty::I32) })
            .collect();
        self.store_elems(at, &vals)?;
        Ok(if float { flag::FLOAT_COORDS } else { 0 })
    }

    /// The texel's component type: (IR type, flag bits), from a vector type's element.
    fn texel_kind(&self, ty: u32) -> Result<(usize, Ty, u32), Error> {
        let (e, n) = self.m.vector(ty).unwrap_or((ty, 1));
        let (t, f) = match self.m.ty(e)? {
            Type::Float(32) => (Ty::F32, 0),
            Type::Float(16) => (Ty::F32, flag::HALF_TEXEL),
            Type::Int(32) => (Ty::I32, flag::INT_TEXEL),
            t => {
                return Err(Error::unsupported(format!(
                    "image texels of {t:?} (float, half or 32-bit integer components)"
                )))
            }
        };
        if n > 4 {
            return Err(Error::invalid("an image texel of more than 4 components"));
        }
        Ok((n as usize, t, f))
    }

    /// Lowers an image instruction (opcodes 86 to 107).
    pub(super) fn image_inst(&mut self, fr: &mut Frame, i: &Inst) -> Result<(), Error> {
        let name = op_name(i.op);
        match i.op {
            // OpSampledImage
            op::SAMPLED_IMAGE => {
                let (img, _, _) = self.image_of(fr, i.w(2)?)?;
                let (s, sty) = self.get(fr, i.w(3)?)?;
                let (Val::V(s), Type::Sampler) = (s, self.m.ty(sty)?) else {
                    return Err(Error::invalid("OpSampledImage of something not a sampler"));
                };
                if self.k.ty(s) != Ty::I64 {
                    return Err(Error::invalid("OpSampledImage of something not a sampler"));
                }
                fr.vals.insert(i.w(1)?, (Val::Vec(vec![img, s]), i.w(0)?));
            }
            // OpImage
            op::IMAGE => {
                let (img, _, _) = self.image_of(fr, i.w(2)?)?;
                fr.vals.insert(i.w(1)?, (Val::V(img), i.w(0)?));
            }
            // OpImageSampleExplicitLod, OpImageRead
            op::IMAGE_SAMPLE_EXPLICIT_LOD | op::IMAGE_READ => {
                let (rt, rid) = (i.w(0)?, i.w(1)?);
                let (img, smp, t) = self.image_of(fr, i.w(2)?)?;
                if i.op == op::IMAGE_SAMPLE_EXPLICIT_LOD && smp.is_none() {
                    return Err(Error::invalid("OpImageSampleExplicitLod of an image without a sampler"));
                }
                if t.access == 1 {
                    return Err(Error::invalid(format!("{name} of a write-only image")));
                }
                self.image_operands(i, 4, i.op == op::IMAGE_SAMPLE_EXPLICIT_LOD)?;
                let (n, et, tf) = self.texel_kind(rt)?;
                let (coords, texel) = self.image_scratch()?;
                let cf = self.store_coords(fr, i.w(3)?, &t, coords)?;
                let sampler = match smp {
                    Some(s) => s,
                    None => self.push(Ty::I64, Op::Const(0)),
                };
                self.effect(Op::Image {
                    flags: t.flags() | cf | tf,
                    image: img,
                    sampler,
                    coords,
                    texel,
                });
                let mut vals = Vec::new();
                for k in 0..n {
                    let a = self.add_const(texel, 4 * k as u64);
                    vals.push(self.push(et, Op::Load(a)));
                }
                let v = self.pack(rt, vals);
                fr.vals.insert(rid, (v, rt));
            }
            // OpImageWrite
            op::IMAGE_WRITE => {
                let (img, _, t) = self.image_of(fr, i.w(0)?)?;
                if t.access == 0 {
                    return Err(Error::invalid("OpImageWrite to a read-only image"));
                }
                self.image_operands(i, 3, false)?;
                let (vals, vty) = self.elems(fr, i.w(2)?)?;
                let (n, et, tf) = self.texel_kind(vty)?;
                if vals.len() != n || vals.iter().any(|v| self.k.ty(*v) != et) {
                    return Err(Error::invalid("OpImageWrite texel of the wrong type"));
                }
                let (coords, texel) = self.image_scratch()?;
                let cf = self.store_coords(fr, i.w(1)?, &t, coords)?;
                self.store_elems(texel, &vals)?;
                // A texel of fewer than 4 components (a depth image's one float): the rest
                // (0, 0, 1), not what the scratch held.
                let one = if tf & flag::INT_TEXEL != 0 { 1 } else { 0x3f80_0000 };
                for k in n..4 {
                    let v = self.push(Ty::I32, Op::Const(if k == 3 { one } else { 0 }));
                    let a = self.add_const(texel, 4 * k as u64);
                    self.effect(Op::Store { addr: a, value: v });
                }
                let sampler = self.push(Ty::I64, Op::Const(0));
                self.effect(Op::Image {
                    flags: t.flags() | cf | (tf & flag::INT_TEXEL) | flag::WRITE,
                    image: img,
                    sampler,
                    coords,
                    texel,
                });
            }
            // OpImageQueryFormat, OpImageQueryOrder
            op::IMAGE_QUERY_FORMAT | op::IMAGE_QUERY_ORDER => {
                let (rt, rid) = (i.w(0)?, i.w(1)?);
                let (img, _, _) = self.image_of(fr, i.w(2)?)?;
                let to = self.int_result(rt, name.as_str())?;
                let off = if i.op == op::IMAGE_QUERY_FORMAT {
                    field::DATA_TYPE
                } else {
                    field::ORDER
                };
                let a = self.add_const(img, off);
                let v = self.push(Ty::I32, Op::Load(a));
                let v = self.resize(v, to);
                fr.vals.insert(rid, (Val::V(v), rt));
            }
            // OpImageQuerySizeLod, OpImageQuerySize
            op::IMAGE_QUERY_SIZE_LOD | op::IMAGE_QUERY_SIZE => {
                let (rt, rid) = (i.w(0)?, i.w(1)?);
                let (img, _, t) = self.image_of(fr, i.w(2)?)?;
                let fields: &[u64] = match (t.dim, t.arrayed) {
                    (0, true) => &[field::WIDTH, field::LAYERS],
                    (1, false) => &[field::WIDTH, field::HEIGHT],
                    (1, true) => &[field::WIDTH, field::HEIGHT, field::LAYERS],
                    (2, _) => &[field::WIDTH, field::HEIGHT, field::DEPTH],
                    _ => &[field::WIDTH],
                };
                let (e, n) = self.m.vector(rt).unwrap_or((rt, 1));
                if n as usize != fields.len() {
                    return Err(Error::invalid(format!(
                        "{name} with {n} components for an image of {}",
                        fields.len()
                    )));
                }
                let to = self.int_result(e, name.as_str())?;
                let mut vals = Vec::new();
                for f in fields {
                    let a = self.add_const(img, *f);
                    let v = self.push(Ty::I64, Op::Load(a));
                    vals.push(self.resize(v, to));
                }
                let v = self.pack(rt, vals);
                fr.vals.insert(rid, (v, rt));
            }
            // OpImageQueryLevels: one level.
            op::IMAGE_QUERY_LEVELS => {
                let (rt, rid) = (i.w(0)?, i.w(1)?);
                self.image_of(fr, i.w(2)?)?;
                let to = self.int_result(rt, name.as_str())?;
                let v = self.push(to, Op::Const(1));
                fr.vals.insert(rid, (Val::V(v), rt));
            }
            _ => {
                let why = match i.op {
                    op::IMAGE_SAMPLE_IMPLICIT_LOD
                    | op::IMAGE_SAMPLE_DREF_IMPLICIT_LOD
                    | op::IMAGE_SAMPLE_DREF_EXPLICIT_LOD
                    | op::IMAGE_SAMPLE_PROJ_IMPLICIT_LOD
                    | op::IMAGE_SAMPLE_PROJ_EXPLICIT_LOD
                    | op::IMAGE_SAMPLE_PROJ_DREF_IMPLICIT_LOD
                    | op::IMAGE_SAMPLE_PROJ_DREF_EXPLICIT_LOD
                    | op::IMAGE_QUERY_LOD => " (implicit Lod, depth-comparison and projective sampling are for shaders)",
                    op::IMAGE_QUERY_SAMPLES => " (no multisampled images)",
                    _ => "",
                };
                return Err(Error::unsupported(format!("instruction {name}{why}")));
            }
        }
        Ok(())
    }

    /// The IR type of an integer result type.
    fn int_result(&self, ty: u32, name: &str) -> Result<Ty, Error> {
        match self.m.ty(ty)? {
            Type::Int(32) => Ok(Ty::I32),
            Type::Int(64) => Ok(Ty::I64),
            t => Err(Error::invalid(format!("{name} with a result of type {t:?}"))),
        }
    }
}
