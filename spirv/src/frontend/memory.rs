//! Memory: variables, loads, stores, memory copies and access chains.

use super::{align_up, Builder, Frame, Val};
use crate::ir::{BinOp, Op, Ty};
use crate::spv::{op, op_name, Inst, Type};
use crate::Error;

impl Builder<'_> {
    /// Variables, loads, stores, copies and access chains.
    pub(super) fn memory_inst(&mut self, fr: &mut Frame, i: &Inst) -> Result<bool, Error> {
        let m = self.m;
        let op = i.op;
        // Result type and id of value instructions.
        let rt = || i.w(0);
        let def = |fr: &mut Frame, v: Val, ty: u32| -> Result<(), Error> {
            fr.vals.insert(i.w(1)?, (v, ty));
            Ok(())
        };
        match op {
            op::VARIABLE => {
                let pty = rt()?;
                let pointee = match m.ty(pty)? {
                    Type::Pointer(_, p) => *p,
                    _ => return Err(Error::invalid("OpVariable whose type is not a pointer")),
                };
                let (size, align) = m.layout(pointee)?;
                let off = align_up(u64::from(self.k.private_size), align.max(1));
                if off + size > 1 << 20 {
                    return Err(Error::unsupported(
                        "more than 1 MiB of private memory per work-item",
                    ));
                }
                self.k.private_size = (off + size) as u32;
                let v = self.push(Ty::I64, Op::PrivateAddr(off as u32));
                if let Some(init) = i.ops.get(3) {
                    let (xs, ity) = self.elems(fr, *init)?;
                    if m.is_aggregate(ity) {
                        self.store_aggregate(v, ity, &xs)?;
                    } else {
                        self.store_elems(v, &xs)?;
                    }
                }
                def(fr, Val::V(v), pty)?;
            }
            op::LOAD => {
                let ty = rt()?;
                match self.get(fr, i.w(2)?)?.0 {
                    Val::BVar(b) => {
                        let v = match m.ty(ty)? {
                            Type::Vector(..) => Val::BVec(b),
                            _ => {
                                let x = self.push(Ty::I64, Op::Builtin(b, 0));
                                Val::V(self.builtin_resize(x, m.ir_ty(ty)?)?)
                            }
                        };
                        def(fr, v, ty)?;
                    }
                    Val::V(addr) if m.is_aggregate(ty) => {
                        self.pointer(addr, op)?;
                        let vs = self.load_aggregate(addr, ty)?;
                        def(fr, Val::Vec(vs), ty)?;
                    }
                    Val::V(addr) => {
                        self.pointer(addr, op)?;
                        let types = self.value_types(ty)?;
                        if types.contains(&Ty::Bool) {
                            return Err(Error::unsupported("loads of booleans"));
                        }
                        let mut vs = Vec::new();
                        for (k, t) in types.iter().enumerate() {
                            let a = self.add_const(addr, k as u64 * u64::from(t.bytes()));
                            vs.push(self.push(*t, Op::Load(a)));
                        }
                        let v = self.pack(ty, vs);
                        def(fr, v, ty)?;
                    }
                    Val::BPtr(b, off, size) => {
                        let v = self.builtin_ptr_load(b, off, size, ty)?;
                        def(fr, v, ty)?;
                    }
                    Val::BVec(_) | Val::Vec(_) => {
                        return Err(Error::invalid("OpLoad from a non-pointer"))
                    }
                }
            }
            op::STORE => {
                let addr = self.val(fr, i.w(0)?)?;
                self.pointer(addr, op)?;
                let (values, vty) = self.elems(fr, i.w(1)?)?;
                if m.is_aggregate(vty) {
                    self.store_aggregate(addr, vty, &values)?;
                } else {
                    self.store_elems(addr, &values)?;
                }
            }
            op::COPY_MEMORY | op::COPY_MEMORY_SIZED => {
                let dst = self.val(fr, i.w(0)?)?;
                let src = self.val(fr, i.w(1)?)?;
                self.pointer(dst, op)?;
                self.pointer(src, op)?;
                let size = if op == op::COPY_MEMORY_SIZED {
                    let s = self.val(fr, i.w(2)?)?;
                    if self.k.ty(s).is_float() || self.k.ty(s) == Ty::Bool {
                        return Err(Error::invalid(
                            "OpCopyMemorySized: the size is not an integer",
                        ));
                    }
                    self.resize(s, Ty::I64)
                } else {
                    let (_, dty) = self.get(fr, i.w(0)?)?;
                    let pointee = match m.ty(dty)? {
                        Type::Pointer(_, p) => *p,
                        _ => return Err(Error::invalid("OpCopyMemory to a non-pointer")),
                    };
                    let (s, _) = m.layout(pointee)?;
                    self.push(Ty::I64, Op::Const(s))
                };
                self.effect(Op::Copy { dst, src, size });
            }
            op::ACCESS_CHAIN
            | op::IN_BOUNDS_ACCESS_CHAIN
            | op::PTR_ACCESS_CHAIN
            | op::IN_BOUNDS_PTR_ACCESS_CHAIN => {
                let (base, bty) = self.get(fr, i.w(2)?)?;
                let Val::V(mut addr) = base else {
                    return self.builtin_chain(fr, i, base, bty).map(|()| false);
                };
                self.pointer(addr, op)?;
                let mut ty = match m.ty(bty)? {
                    Type::Pointer(_, p) => *p,
                    _ => {
                        return Err(Error::invalid(format!(
                            "{}: base is not a pointer",
                            op_name(op)
                        )))
                    }
                };
                let mut idx = 3;
                if op == op::PTR_ACCESS_CHAIN || op == op::IN_BOUNDS_PTR_ACCESS_CHAIN {
                    let (s, _) = m.layout(ty)?;
                    addr = self.offset(fr, addr, i.w(3)?, s)?;
                    idx = 4;
                }
                for &ix in &i.ops[idx.min(i.ops.len())..] {
                    match m.ty(ty)?.clone() {
                        Type::Struct(members, packed) => {
                            let n = m.const_scalar(ix)? as usize;
                            let off = m.member_offset(&members, packed, n)?;
                            let c = self.push(Ty::I64, Op::Const(off));
                            addr = self.push(Ty::I64, Op::Bin(BinOp::Add, addr, c));
                            ty = members[n];
                        }
                        Type::Array(e, _) | Type::Vector(e, _) => {
                            let (s, _) = m.layout(e)?;
                            addr = self.offset(fr, addr, ix, s)?;
                            ty = e;
                        }
                        t => {
                            return Err(Error::invalid(format!(
                                "{}: cannot index into {t:?}",
                                op_name(op)
                            )))
                        }
                    }
                }
                def(fr, Val::V(addr), rt()?)?;
            }
            _ => return Err(Error::unsupported(format!("instruction {}", op_name(op)))),
        }
        Ok(false)
    }

}
