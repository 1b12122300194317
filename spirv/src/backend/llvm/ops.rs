//! The IR's operations in LLVM IR: arithmetic with the IR's defined results (no poison: shift
//! amounts wrap, divisions by zero give 0), conversions, memory (addresses as pointers where
//! the IR adds offsets to a pointer), atomics, math and the runtime's functions, called by the
//! names `backend/module.rs` gives them.

use inkwell::module::Linkage;
use inkwell::types::{BasicMetadataTypeEnum, BasicType, BasicTypeEnum};
use inkwell::values::{BasicMetadataValueEnum, BasicValue, BasicValueEnum, FloatValue, IntValue, PointerValue};
use inkwell::{AtomicOrdering, AtomicRMWBinOp, FloatPredicate, IntPredicate};

use crate::ir::{AtomicOp, BinOp, Builtin, CmpOp, ConvOp, MathFn, Op, Reach, Ty, UnOp};
use crate::rt::math::{math_shim, shim_table};
use crate::Error;

use super::lower::Lower;

/// Deepest chain of additions followed back to a pointer.
const PTR_DEPTH: u32 = 8;

impl<'ctx> Lower<'_, 'ctx> {
    /// Calls the runtime function `name` (declared on first use).
    fn call(
        &mut self,
        name: &str,
        params: &[BasicTypeEnum<'ctx>],
        ret: Option<BasicTypeEnum<'ctx>>,
        args: &[BasicValueEnum<'ctx>],
    ) -> Result<Option<BasicValueEnum<'ctx>>, Error> {
        let f = match self.m.get_function(name) {
            Some(f) => f,
            None => {
                let ps: Vec<BasicMetadataTypeEnum> = params.iter().map(|t| (*t).into()).collect();
                let fty = match ret {
                    Some(r) => r.fn_type(&ps, false),
                    None => self.cx.void_type().fn_type(&ps, false),
                };
                self.m.add_function(name, fty, Some(Linkage::External))
            }
        };
        let a: Vec<BasicMetadataValueEnum> = args.iter().map(|x| (*x).into()).collect();
        let c = self.b.build_call(f, &a, "")?;
        Ok(c.try_as_basic_value().basic())
    }

    fn intrinsic(
        &mut self,
        name: &str,
        types: &[BasicTypeEnum<'ctx>],
        args: &[BasicValueEnum<'ctx>],
    ) -> Result<BasicValueEnum<'ctx>, Error> {
        let i = inkwell::intrinsics::Intrinsic::find(name)
            .ok_or_else(|| Error::internal(format!("llvm: no intrinsic {name}")))?;
        let f = i
            .get_declaration(self.m, types)
            .ok_or_else(|| Error::internal(format!("llvm: intrinsic {name}")))?;
        let a: Vec<BasicMetadataValueEnum> = args.iter().map(|x| (*x).into()).collect();
        let c = self.b.build_call(f, &a, "")?;
        c.try_as_basic_value()
            .basic()
            .ok_or_else(|| Error::internal(format!("llvm: {name} has no result")))
    }

    /// True when `v` is an address made from a pointer: an address of memory the kernel
    /// names, a loaded 64-bit value, or such a value plus an offset.
    fn pointer_like(&self, v: crate::ir::Value, depth: u32) -> bool {
        match self.defs.get(&v) {
            Some(Op::ArgAddr(_) | Op::LocalAddr(_) | Op::PrivateAddr(_) | Op::GlobalAddr(_)) => true,
            Some(Op::Load(_)) => self.k.ty(v) == Ty::I64,
            Some(Op::Bin(BinOp::Add, a, b)) if depth > 0 => {
                self.pointer_like(*a, depth - 1) || self.pointer_like(*b, depth - 1)
            }
            _ => false,
        }
    }

    /// The address `v` as a pointer: where `v` adds an offset to a pointer, that pointer's
    /// `getelementptr` (so that LLVM sees what it points into, and its strides).
    pub(super) fn ptr(&mut self, v: crate::ir::Value, depth: u32) -> Result<PointerValue<'ctx>, Error> {
        // Only a value this segment computes (or any round can compute again) is taken apart:
        // its operands are then at hand too.
        let here = self.r.direct(self.segment as usize, v, self.at.0, self.at.1);
        if !here && !self.r.remat.contains(&v) {
            let x = self.iv(v)?;
            return self.ptr_at(x);
        }
        match self.defs.get(&v).copied() {
            Some(Op::PrivateAddr(o)) if self.private_slot.is_some() => {
                let p = self.private_slot.expect("checked");
                return self.gep(p, self.i64c(u64::from(*o)));
            }
            Some(Op::Bin(BinOp::Add, a, b)) if depth > 0 => {
                let (a, b) = (*a, *b);
                let (base, off) = if self.pointer_like(a, PTR_DEPTH) {
                    (a, b)
                } else if self.pointer_like(b, PTR_DEPTH) {
                    (b, a)
                } else {
                    let x = self.iv(v)?;
                    return self.ptr_at(x);
                };
                let p = self.ptr(base, depth - 1)?;
                let off = self.iv(off)?;
                return self.gep(p, off);
            }
            _ => {}
        }
        let x = self.iv(v)?;
        self.ptr_at(x)
    }

    fn gep(&self, p: PointerValue<'ctx>, off: IntValue<'ctx>) -> Result<PointerValue<'ctx>, Error> {
        // SAFETY: a byte offset of an address the kernel computed; whether it is valid memory
        // is the kernel's concern at run time (as for any access it makes), and the offset is
        // not claimed to stay in bounds (no `inbounds`).
        Ok(unsafe { self.b.build_gep(self.cx.i8_type(), p, &[off], "") }?)
    }

    /// A load of type `t` from address `a` (a `Bool` is a byte, nonzero for true).
    pub(super) fn load(&self, t: Ty, a: IntValue<'ctx>) -> Result<BasicValueEnum<'ctx>, Error> {
        let p = self.ptr_at(a)?;
        self.load_ptr(t, p)
    }

    fn load_ptr(&self, t: Ty, p: PointerValue<'ctx>) -> Result<BasicValueEnum<'ctx>, Error> {
        let lt = if t == Ty::Bool { self.cx.i8_type().into() } else { self.lt(t) };
        let v = self.b.build_load(lt, p, "")?;
        set_align(v, 1)?;
        self.scope(v.as_instruction_value())?;
        if t == Ty::Bool {
            let z = self.cx.i8_type().const_zero();
            return Ok(self
                .b
                .build_int_compare(IntPredicate::NE, v.into_int_value(), z, "")?
                .into());
        }
        Ok(v)
    }

    pub(super) fn store(&self, t: Ty, a: IntValue<'ctx>, v: BasicValueEnum<'ctx>) -> Result<(), Error> {
        let p = self.ptr_at(a)?;
        self.store_ptr(t, p, v)
    }

    fn store_ptr(&self, t: Ty, p: PointerValue<'ctx>, v: BasicValueEnum<'ctx>) -> Result<(), Error> {
        let v = if t == Ty::Bool {
            self.b
                .build_int_z_extend(v.into_int_value(), self.cx.i8_type(), "")?
                .into()
        } else {
            v
        };
        let s = self.b.build_store(p, v)?;
        s.set_alignment(1).map_err(|e| Error::internal(format!("llvm: {e}")))?;
        self.scope(Some(s))
    }

    /// Tells LLVM that the work-group function's own accesses and the kernel's do not alias.
    fn scope(&self, i: Option<inkwell::values::InstructionValue<'ctx>>) -> Result<(), Error> {
        if let (Some((scope, noalias, list)), Some(i)) = (self.scopes, i) {
            let kind = if self.own_access.get() { scope } else { noalias };
            i.set_metadata(list, kind).map_err(|e| Error::internal(format!("llvm: {e}")))?;
        }
        Ok(())
    }

    pub(super) fn op(&mut self, rt: Option<Ty>, op: &Op) -> Result<Option<BasicValueEnum<'ctx>>, Error> {
        let v: BasicValueEnum<'ctx> = match op {
            Op::Const(bits) => {
                let Some(t) = rt else { return Ok(None) };
                match t {
                    Ty::F32 => {
                        let i = self.cx.i32_type().const_int(*bits & 0xffff_ffff, false);
                        self.b.build_bit_cast(i, self.cx.f32_type(), "")?
                    }
                    Ty::F64 => {
                        let i = self.cx.i64_type().const_int(*bits, false);
                        self.b.build_bit_cast(i, self.cx.f64_type(), "")?
                    }
                    Ty::Bool => self.cx.bool_type().const_int(u64::from(*bits != 0), false).into(),
                    t => self.lt(t).into_int_type().const_int(*bits, false).into(),
                }
            }
            Op::Bin(o, a, b) => {
                let t = rt.unwrap_or(Ty::I64);
                let (a, b) = (self.v(*a)?, self.v(*b)?);
                self.bin(*o, t, a, b)?
            }
            Op::Un(o, a) => {
                let a = self.v(*a)?;
                match o {
                    UnOp::Neg => self.b.build_int_neg(a.into_int_value(), "")?.into(),
                    UnOp::FNeg => self.b.build_float_neg(a.into_float_value(), "")?.into(),
                    UnOp::Not => self.b.build_not(a.into_int_value(), "")?.into(),
                    UnOp::Clz => {
                        let f = self.cx.bool_type().const_zero();
                        self.intrinsic("llvm.ctlz", &[a.get_type()], &[a, f.into()])?
                    }
                    UnOp::Popcnt => self.intrinsic("llvm.ctpop", &[a.get_type()], &[a])?,
                }
            }
            // Past a peeled segment's first work-item (`rounds.rs`), no work-item is the first.
            op @ Op::Cmp(..) if self.after_first_item() && super::rounds::first_item_test(&self.defs, op) => {
                self.cx.bool_type().const_zero().into()
            }
            Op::Cmp(c, a, b) => {
                let (a, b) = (self.v(*a)?, self.v(*b)?);
                self.cmp(*c, a, b)?.into()
            }
            Op::Select(c, a, b) => {
                let c = self.iv(*c)?;
                let (a, b) = (self.v(*a)?, self.v(*b)?);
                self.b.build_select(c, a, b, "")?
            }
            Op::Conv(c, x) => {
                let from = self.k.ty(*x);
                let x = self.v(*x)?;
                self.conv(*c, from, rt.unwrap_or(Ty::I64), x)?
            }
            Op::Load(a) => {
                let t = rt.unwrap_or(Ty::I64);
                if let Some(v) = self.arg_words.get(&(*a, t)) {
                    *v
                } else {
                    let p = self.ptr(*a, PTR_DEPTH)?;
                    self.load_ptr(t, p)?
                }
            }
            Op::Store { addr, value } => {
                let t = self.k.ty(*value);
                let x = self.v(*value)?;
                let p = self.ptr(*addr, PTR_DEPTH)?;
                self.store_ptr(t, p, x)?;
                return Ok(None);
            }
            Op::Copy { dst, src, size } => {
                let i64t = self.cx.i64_type().into();
                let args = [self.v(*dst)?, self.v(*src)?, self.v(*size)?];
                self.call("zekit_copy_bytes", &[i64t; 3], None, &args)?;
                return Ok(None);
            }
            // Local memory: one thread runs the group, so a plain read-modify-write is atomic.
            Op::Atomic(o, a, x, Reach::Group) => {
                let t = rt.unwrap_or(Ty::I32);
                let p = self.ptr(*a, PTR_DEPTH)?;
                let x = self.iv(*x)?;
                let old = self.load_ptr(t, p)?.into_int_value();
                let new = self.atomic_value(*o, old, x)?;
                self.store_ptr(t, p, new.into())?;
                old.into()
            }
            Op::AtomicCas(a, e, x, Reach::Group) => {
                let t = rt.unwrap_or(Ty::I32);
                let p = self.ptr(*a, PTR_DEPTH)?;
                let (e, x) = (self.iv(*e)?, self.iv(*x)?);
                let old = self.load_ptr(t, p)?.into_int_value();
                let same = self.b.build_int_compare(IntPredicate::EQ, old, e, "")?;
                let new = self.b.build_select(same, x, old, "")?;
                self.store_ptr(t, p, new)?;
                old.into()
            }
            Op::Atomic(o, a, x, Reach::Device) => {
                let p = self.ptr(*a, PTR_DEPTH)?;
                let x = self.iv(*x)?;
                let o = match o {
                    AtomicOp::Add => AtomicRMWBinOp::Add,
                    AtomicOp::Sub => AtomicRMWBinOp::Sub,
                    AtomicOp::Xchg => AtomicRMWBinOp::Xchg,
                    AtomicOp::And => AtomicRMWBinOp::And,
                    AtomicOp::Or => AtomicRMWBinOp::Or,
                    AtomicOp::Xor => AtomicRMWBinOp::Xor,
                    AtomicOp::SMin => AtomicRMWBinOp::Min,
                    AtomicOp::SMax => AtomicRMWBinOp::Max,
                    AtomicOp::UMin => AtomicRMWBinOp::UMin,
                    AtomicOp::UMax => AtomicRMWBinOp::UMax,
                };
                let seq = AtomicOrdering::SequentiallyConsistent;
                self.b.build_atomicrmw(o, p, x, seq)?.into()
            }
            Op::AtomicCas(a, e, x, Reach::Device) => {
                let p = self.ptr(*a, PTR_DEPTH)?;
                let (e, x) = (self.iv(*e)?, self.iv(*x)?);
                let seq = AtomicOrdering::SequentiallyConsistent;
                let pair = self.b.build_cmpxchg(p, e, x, seq, seq)?;
                self.b.build_extract_value(pair, 0, "")?
            }
            Op::AtomicLoad(a) => {
                let t = rt.unwrap_or(Ty::I32);
                let p = self.ptr(*a, PTR_DEPTH)?;
                let v = self.b.build_load(self.lt(t), p, "")?;
                atomic(v, t)?;
                v
            }
            Op::AtomicStore(a, x) => {
                let t = self.k.ty(*x);
                let x = self.v(*x)?;
                let p = self.ptr(*a, PTR_DEPTH)?;
                let s = self.b.build_store(p, x)?;
                s.set_atomic_ordering(AtomicOrdering::SequentiallyConsistent)
                    .map_err(|e| Error::internal(format!("llvm: {e}")))?;
                s.set_alignment(t.bytes())
                    .map_err(|e| Error::internal(format!("llvm: {e}")))?;
                return Ok(None);
            }
            Op::Math(f, args) => {
                let t = rt.unwrap_or(Ty::F32);
                let args = args
                    .iter()
                    .map(|a| self.v(*a))
                    .collect::<Result<Vec<_>, _>>()?;
                self.math(*f, t, &args)?
            }
            Op::Builtin(b, d) => self.builtin(*b, usize::from(*d).min(2))?.into(),
            Op::BuiltinDyn(b, d) => {
                let d = self.iv(*d)?;
                let d = if d.get_type().get_bit_width() == 64 {
                    d
                } else {
                    self.b.build_int_z_extend(d, self.cx.i64_type(), "")?
                };
                let dflt = match b {
                    Builtin::GlobalSize | Builtin::LocalSize | Builtin::NumGroups => 1,
                    _ => 0,
                };
                let mut acc = self.i64c(dflt);
                for dim in (0..3).rev() {
                    let v = self.builtin(*b, dim)?;
                    let is = self.b.build_int_compare(IntPredicate::EQ, d, self.i64c(dim as u64), "")?;
                    acc = self.b.build_select(is, v, acc, "")?.into_int_value();
                }
                acc.into()
            }
            Op::ArgAddr(o) => {
                let a = self.g().args;
                self.b.build_int_add(a, self.i64c(u64::from(*o)), "")?.into()
            }
            Op::PrivateAddr(o) => {
                let a = self.wi_area()?;
                self.b.build_int_add(a, self.i64c(u64::from(*o)), "")?.into()
            }
            Op::LocalAddr(o) => {
                let a = self.g().local;
                self.b.build_int_add(a, self.i64c(u64::from(*o)), "")?.into()
            }
            Op::GlobalAddr(o) => {
                let g = match self.m.get_global("zekit_data") {
                    Some(g) => g,
                    None => self.m.add_global(self.cx.i8_type(), None, "zekit_data"),
                };
                let base = self.b.build_ptr_to_int(g.as_pointer_value(), self.cx.i64_type(), "")?;
                self.b.build_int_add(base, self.i64c(u64::from(*o)), "")?.into()
            }
            Op::Barrier | Op::SubgroupBarrier => {
                return Err(Error::internal("a barrier left after splitting"))
            }
            Op::Printf { fmt, args, count } => {
                let (f, a) = (self.v(*fmt)?, self.v(*args)?);
                let i64t: BasicTypeEnum = self.cx.i64_type().into();
                let i32t: BasicTypeEnum = self.cx.i32_type().into();
                let n = self.cx.i32_type().const_int(u64::from(*count), false).into();
                let r = self.call("zekit_printf", &[i64t, i64t, i32t], Some(i32t), &[f, a, n])?;
                r.ok_or_else(|| Error::internal("llvm: printf has no result"))?
            }
            Op::Image {
                flags,
                image,
                sampler,
                coords,
                texel,
            } => {
                let i64t: BasicTypeEnum = self.cx.i64_type().into();
                let i32t: BasicTypeEnum = self.cx.i32_type().into();
                let f = self.cx.i32_type().const_int(u64::from(*flags), false).into();
                let args = [f, self.v(*image)?, self.v(*sampler)?, self.v(*coords)?, self.v(*texel)?];
                self.call("zekit_image", &[i32t, i64t, i64t, i64t, i64t], None, &args)?;
                return Ok(None);
            }
        };
        Ok(Some(v))
    }

    fn atomic_value(&self, o: AtomicOp, old: IntValue<'ctx>, x: IntValue<'ctx>) -> Result<IntValue<'ctx>, Error> {
        let b = &self.b;
        let pick = |p: IntPredicate| -> Result<IntValue<'ctx>, Error> {
            let c = b.build_int_compare(p, old, x, "")?;
            Ok(b.build_select(c, old, x, "")?.into_int_value())
        };
        Ok(match o {
            AtomicOp::Add => b.build_int_add(old, x, "")?,
            AtomicOp::Sub => b.build_int_sub(old, x, "")?,
            AtomicOp::Xchg => x,
            AtomicOp::And => b.build_and(old, x, "")?,
            AtomicOp::Or => b.build_or(old, x, "")?,
            AtomicOp::Xor => b.build_xor(old, x, "")?,
            AtomicOp::SMin => pick(IntPredicate::SLT)?,
            AtomicOp::SMax => pick(IntPredicate::SGT)?,
            AtomicOp::UMin => pick(IntPredicate::ULT)?,
            AtomicOp::UMax => pick(IntPredicate::UGT)?,
        })
    }

    pub(super) fn cmp(&self, c: CmpOp, a: BasicValueEnum<'ctx>, b: BasicValueEnum<'ctx>) -> Result<IntValue<'ctx>, Error> {
        let i = |p| Some(p);
        let ip = match c {
            CmpOp::Eq => i(IntPredicate::EQ),
            CmpOp::Ne => i(IntPredicate::NE),
            CmpOp::ULt => i(IntPredicate::ULT),
            CmpOp::ULe => i(IntPredicate::ULE),
            CmpOp::UGt => i(IntPredicate::UGT),
            CmpOp::UGe => i(IntPredicate::UGE),
            CmpOp::SLt => i(IntPredicate::SLT),
            CmpOp::SLe => i(IntPredicate::SLE),
            CmpOp::SGt => i(IntPredicate::SGT),
            CmpOp::SGe => i(IntPredicate::SGE),
            _ => None,
        };
        if let Some(p) = ip {
            return Ok(self.b.build_int_compare(p, a.into_int_value(), b.into_int_value(), "")?);
        }
        let p = match c {
            CmpOp::FEq => FloatPredicate::OEQ,
            CmpOp::FNe => FloatPredicate::ONE,
            CmpOp::FLt => FloatPredicate::OLT,
            CmpOp::FLe => FloatPredicate::OLE,
            CmpOp::FGt => FloatPredicate::OGT,
            CmpOp::FGe => FloatPredicate::OGE,
            CmpOp::FUnordEq => FloatPredicate::UEQ,
            CmpOp::FUnordNe => FloatPredicate::UNE,
            CmpOp::FUnordLt => FloatPredicate::ULT,
            CmpOp::FUnordLe => FloatPredicate::ULE,
            CmpOp::FUnordGt => FloatPredicate::UGT,
            CmpOp::FUnordGe => FloatPredicate::UGE,
            CmpOp::FOrd => FloatPredicate::ORD,
            _ => FloatPredicate::UNO,
        };
        Ok(self.b.build_float_compare(p, a.into_float_value(), b.into_float_value(), "")?)
    }

    fn shim(&mut self, f: MathFn, t: Ty, args: &[BasicValueEnum<'ctx>]) -> Result<BasicValueEnum<'ctx>, Error> {
        let addr = math_shim(f, t == Ty::F64).ok_or_else(|| Error::internal(format!("no shim for {f:?}")))?;
        let name = shim_table()
            .into_iter()
            .find(|s| s.1 == addr)
            .map(|s| s.0)
            .ok_or_else(|| Error::internal(format!("no shim name for {f:?}")))?;
        let lt = self.lt(t);
        let r = self.call(name, &vec![lt; args.len()], Some(lt), args)?;
        r.ok_or_else(|| Error::internal("llvm: a shim without a result"))
    }

    fn math(&mut self, f: MathFn, t: Ty, args: &[BasicValueEnum<'ctx>]) -> Result<BasicValueEnum<'ctx>, Error> {
        let lt = self.lt(t);
        // Correctly rounded in LLVM as in the shims: instructions (or exact sequences).
        let exact = match f {
            MathFn::Sqrt => Some("llvm.sqrt"),
            MathFn::Fabs => Some("llvm.fabs"),
            MathFn::Fma => Some("llvm.fma"),
            MathFn::Floor => Some("llvm.floor"),
            MathFn::Ceil => Some("llvm.ceil"),
            MathFn::Trunc => Some("llvm.trunc"),
            MathFn::Rint => Some("llvm.rint"),
            MathFn::Copysign => Some("llvm.copysign"),
            _ => None,
        };
        if let Some(name) = exact {
            return self.intrinsic(name, &[lt], args);
        }
        match f {
            MathFn::Mad => {
                let m = self.b.build_float_mul(args[0].into_float_value(), args[1].into_float_value(), "")?;
                Ok(self.b.build_float_add(m, args[2].into_float_value(), "")?.into())
            }
            MathFn::ReadClock => {
                let i64t = self.cx.i64_type().into();
                let r = self.call("zekit_read_clock", &[], Some(i64t), &[])?;
                r.ok_or_else(|| Error::internal("llvm: clock without a result"))
            }
            _ => self.shim(f, t, args),
        }
    }

    pub(super) fn bin(&mut self, o: BinOp, t: Ty, a: BasicValueEnum<'ctx>, b: BasicValueEnum<'ctx>) -> Result<BasicValueEnum<'ctx>, Error> {
        if t.is_float() {
            let (x, y) = (a.into_float_value(), b.into_float_value());
            return Ok(match o {
                BinOp::FAdd => self.b.build_float_add(x, y, "")?.into(),
                BinOp::FSub => self.b.build_float_sub(x, y, "")?.into(),
                BinOp::FMul => self.b.build_float_mul(x, y, "")?.into(),
                BinOp::FDiv => self.b.build_float_div(x, y, "")?.into(),
                BinOp::FRem => self.shim(MathFn::Fmod, t, &[a, b])?,
                _ => return Err(Error::internal(format!("llvm: {o:?} on floats"))),
            });
        }
        let (x, y) = (a.into_int_value(), b.into_int_value());
        let it = x.get_type();
        let w = it.get_bit_width();
        let b_ = &self.b;
        Ok(match o {
            BinOp::Add => b_.build_int_add(x, y, "")?.into(),
            BinOp::Sub => b_.build_int_sub(x, y, "")?.into(),
            BinOp::Mul => b_.build_int_mul(x, y, "")?.into(),
            BinOp::And => b_.build_and(x, y, "")?.into(),
            BinOp::Or => b_.build_or(x, y, "")?.into(),
            BinOp::Xor => b_.build_xor(x, y, "")?.into(),
            BinOp::SMulHi | BinOp::UMulHi => {
                let signed = o == BinOp::SMulHi;
                let wide = std::num::NonZeroU32::new(2 * w)
                    .and_then(|n| self.cx.custom_width_int_type(n).ok())
                    .ok_or_else(|| Error::internal("llvm: no integer type of that width"))?;
                let ext = |v| -> Result<IntValue<'ctx>, Error> {
                    Ok(if signed {
                        b_.build_int_s_extend(v, wide, "")?
                    } else {
                        b_.build_int_z_extend(v, wide, "")?
                    })
                };
                let p = b_.build_int_mul(ext(x)?, ext(y)?, "")?;
                let hi = b_.build_right_shift(p, wide.const_int(u64::from(w), false), false, "")?;
                b_.build_int_truncate(hi, it, "")?.into()
            }
            BinOp::Rotl => {
                let y = self.resize(y, it)?;
                self.intrinsic("llvm.fshl", &[it.into()], &[x.into(), x.into(), y.into()])?
            }
            BinOp::Shl | BinOp::LShr | BinOp::AShr => {
                // Shift amounts of another width are brought to the shifted value's, and wrap
                // at its width (as Cranelift's shifts do).
                let y = self.resize(y, it)?;
                let y = self.b.build_and(y, it.const_int(u64::from(w) - 1, false), "")?;
                match o {
                    BinOp::Shl => self.b.build_left_shift(x, y, "")?.into(),
                    BinOp::LShr => self.b.build_right_shift(x, y, false, "")?.into(),
                    _ => self.b.build_right_shift(x, y, true, "")?.into(),
                }
            }
            BinOp::UDiv | BinOp::URem | BinOp::SDiv | BinOp::SRem | BinOp::SMod => {
                self.div(o, x, y)?.into()
            }
            _ => return Err(Error::internal(format!("llvm: {o:?} on integers"))),
        })
    }

    /// A division or remainder without undefined cases: a zero divisor gives 0, `MIN / -1`
    /// wraps (remainder 0).
    fn div(&self, o: BinOp, a: IntValue<'ctx>, b: IntValue<'ctx>) -> Result<IntValue<'ctx>, Error> {
        let t = a.get_type();
        let bd = &self.b;
        let (zero, one) = (t.const_zero(), t.const_int(1, false));
        let is0 = bd.build_int_compare(IntPredicate::EQ, b, zero, "")?;
        let signed = matches!(o, BinOp::SDiv | BinOp::SRem | BinOp::SMod);
        let ism1 = if signed {
            bd.build_int_compare(IntPredicate::EQ, b, t.const_all_ones(), "")?
        } else {
            self.cx.bool_type().const_zero()
        };
        let bad = bd.build_or(is0, ism1, "")?;
        let d = bd.build_select(bad, one, b, "")?.into_int_value();
        let r = match o {
            BinOp::UDiv => bd.build_int_unsigned_div(a, d, "")?,
            BinOp::URem => bd.build_int_unsigned_rem(a, d, "")?,
            BinOp::SDiv => bd.build_int_signed_div(a, d, "")?,
            _ => bd.build_int_signed_rem(a, d, "")?,
        };
        let r = if o == BinOp::SMod {
            // The remainder takes the divisor's sign.
            let nz = bd.build_int_compare(IntPredicate::NE, r, zero, "")?;
            let x = bd.build_xor(r, b, "")?;
            let neg = bd.build_int_compare(IntPredicate::SLT, x, zero, "")?;
            let fix = bd.build_and(nz, neg, "")?;
            let rb = bd.build_int_add(r, b, "")?;
            bd.build_select(fix, rb, r, "")?.into_int_value()
        } else {
            r
        };
        // By -1: the quotient is -a, the remainder 0.
        let r = if o == BinOp::SDiv {
            let na = bd.build_int_neg(a, "")?;
            bd.build_select(ism1, na, r, "")?.into_int_value()
        } else if signed {
            bd.build_select(ism1, zero, r, "")?.into_int_value()
        } else {
            r
        };
        Ok(bd.build_select(is0, zero, r, "")?.into_int_value())
    }

    /// Zero-extends or truncates `v` to type `t`.
    pub(super) fn resize(&self, v: IntValue<'ctx>, t: inkwell::types::IntType<'ctx>) -> Result<IntValue<'ctx>, Error> {
        let (from, to) = (v.get_type().get_bit_width(), t.get_bit_width());
        Ok(if from < to {
            self.b.build_int_z_extend(v, t, "")?
        } else if from > to {
            self.b.build_int_truncate(v, t, "")?
        } else {
            v
        })
    }

    pub(super) fn conv(&mut self, c: ConvOp, from: Ty, to: Ty, x: BasicValueEnum<'ctx>) -> Result<BasicValueEnum<'ctx>, Error> {
        let tt = self.lt(to);
        let bd = &self.b;
        Ok(match c {
            ConvOp::UResize | ConvOp::BoolToInt | ConvOp::SResize => {
                let x = x.into_int_value();
                let t = tt.into_int_type();
                let (fw, tw) = (x.get_type().get_bit_width(), t.get_bit_width());
                if tw > fw {
                    if c == ConvOp::SResize && from != Ty::Bool {
                        bd.build_int_s_extend(x, t, "")?.into()
                    } else {
                        bd.build_int_z_extend(x, t, "")?.into()
                    }
                } else if tw < fw {
                    bd.build_int_truncate(x, t, "")?.into()
                } else {
                    x.into()
                }
            }
            ConvOp::FToS | ConvOp::FToU => {
                // Saturating, NaN to 0; below 32 bits through a 32-bit result, truncated.
                let t = tt.into_int_type();
                let wide = if t.get_bit_width() < 32 { self.cx.i32_type() } else { t };
                let name = if c == ConvOp::FToS { "llvm.fptosi.sat" } else { "llvm.fptoui.sat" };
                let v = self.intrinsic(name, &[wide.into(), x.get_type()], &[x])?.into_int_value();
                if wide == t {
                    v.into()
                } else {
                    self.b.build_int_truncate(v, t, "")?.into()
                }
            }
            ConvOp::SToF | ConvOp::UToF => {
                let t = tt.into_float_type();
                let x = x.into_int_value();
                if c == ConvOp::SToF && from != Ty::Bool {
                    bd.build_signed_int_to_float(x, t, "")?.into()
                } else {
                    bd.build_unsigned_int_to_float(x, t, "")?.into()
                }
            }
            ConvOp::FResize => {
                let t = tt.into_float_type();
                let x: FloatValue = x.into_float_value();
                match (from, to) {
                    (Ty::F32, Ty::F64) => bd.build_float_ext(x, t, "")?.into(),
                    (Ty::F64, Ty::F32) => bd.build_float_trunc(x, t, "")?.into(),
                    _ => x.into(),
                }
            }
            ConvOp::Bitcast => {
                if from == to {
                    x
                } else {
                    bd.build_bit_cast(x, tt, "")?
                }
            }
            ConvOp::F16ToF => {
                // Exact: the half's bits as a `half`, widened.
                let h = self.resize(x.into_int_value(), self.cx.i16_type())?;
                let h = self.b.build_bit_cast(h, self.cx.f16_type(), "")?.into_float_value();
                self.b.build_float_ext(h, tt.into_float_type(), "")?.into()
            }
            ConvOp::FToF16(r) => {
                let x = if from == Ty::F32 {
                    bd.build_float_ext(x.into_float_value(), self.cx.f64_type(), "")?.into()
                } else {
                    x
                };
                let (f64t, i32t) = (self.cx.f64_type().into(), self.cx.i32_type().into());
                let m = self.cx.i32_type().const_int(u64::from(r.code()), false).into();
                let h = self
                    .call("zekit_f64_to_f16", &[f64t, i32t], Some(i32t), &[x, m])?
                    .ok_or_else(|| Error::internal("llvm: f64_to_f16 without a result"))?;
                self.resize(h.into_int_value(), tt.into_int_type())?.into()
            }
        })
    }
}

fn set_align(v: BasicValueEnum<'_>, a: u32) -> Result<(), Error> {
    if let Some(i) = v.as_instruction_value() {
        i.set_alignment(a).map_err(|e| Error::internal(format!("llvm: {e}")))?;
    }
    Ok(())
}

/// Makes load `v` of type `t` sequentially consistent, at its natural alignment.
fn atomic(v: BasicValueEnum<'_>, t: Ty) -> Result<(), Error> {
    if let Some(i) = v.as_instruction_value() {
        i.set_atomic_ordering(AtomicOrdering::SequentiallyConsistent)
            .map_err(|e| Error::internal(format!("llvm: {e}")))?;
        i.set_alignment(t.bytes()).map_err(|e| Error::internal(format!("llvm: {e}")))?;
    }
    Ok(())
}
