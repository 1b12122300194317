//! The scalar lowering of the IR's operations: arithmetic, conversions, memory, atomics, math
//! and host calls, one work-item's values at a time.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::immediates::{Ieee32, Ieee64};
use cranelift_codegen::ir::{types, AtomicRmwOp, InstBuilder, MemFlagsData, Type};
use cranelift_module::Module;

use crate::ir::{AtomicOp, BinOp, Builtin, CmpOp, ConvOp, MathFn, Op, Reach, Ty, UnOp};
use super::module::runtime_fn;
use crate::rt::math::math_shim;
use crate::Error;

use super::{ty, CValue, Lower};

impl Lower<'_> {
    pub(super) fn op(&mut self, rt: Option<Ty>, op: &Op) -> Result<Option<CValue>, Error> {
        let fl = MemFlagsData::new();
        let t = rt.map(ty).unwrap_or(types::INVALID);
        let v = match op {
            Op::Const(bits) => match rt {
                Some(Ty::F32) => self.b.ins().f32const(Ieee32::with_bits(*bits as u32)),
                Some(Ty::F64) => self.b.ins().f64const(Ieee64::with_bits(*bits)),
                Some(r) => {
                    let w = r.bytes() * 8;
                    let bits = if w >= 64 {
                        *bits
                    } else {
                        *bits & ((1u64 << w) - 1)
                    };
                    let bits = if r == Ty::Bool {
                        u64::from(bits != 0)
                    } else {
                        bits
                    };
                    self.b.ins().iconst(t, bits as i64)
                }
                None => return Ok(None),
            },
            Op::Bin(o, a, b) => {
                let (a, b) = (self.v(*a), self.v(*b));
                self.bin(*o, t, a, b)
            }
            Op::Un(o, a) => {
                let a = self.v(*a);
                self.un(*o, rt == Some(Ty::Bool), a)
            }
            Op::Cmp(c, a, b) => {
                let (a, b) = (self.v(*a), self.v(*b));
                let i = |cc| Some(cc);
                let icc = match c {
                    CmpOp::Eq => i(IntCC::Equal),
                    CmpOp::Ne => i(IntCC::NotEqual),
                    CmpOp::ULt => i(IntCC::UnsignedLessThan),
                    CmpOp::ULe => i(IntCC::UnsignedLessThanOrEqual),
                    CmpOp::UGt => i(IntCC::UnsignedGreaterThan),
                    CmpOp::UGe => i(IntCC::UnsignedGreaterThanOrEqual),
                    CmpOp::SLt => i(IntCC::SignedLessThan),
                    CmpOp::SLe => i(IntCC::SignedLessThanOrEqual),
                    CmpOp::SGt => i(IntCC::SignedGreaterThan),
                    CmpOp::SGe => i(IntCC::SignedGreaterThanOrEqual),
                    _ => None,
                };
                if let Some(cc) = icc {
                    self.b.ins().icmp(cc, a, b)
                } else {
                    let fcc = match c {
                        CmpOp::FEq => FloatCC::Equal,
                        CmpOp::FNe => FloatCC::OrderedNotEqual,
                        CmpOp::FLt => FloatCC::LessThan,
                        CmpOp::FLe => FloatCC::LessThanOrEqual,
                        CmpOp::FGt => FloatCC::GreaterThan,
                        CmpOp::FGe => FloatCC::GreaterThanOrEqual,
                        CmpOp::FUnordEq => FloatCC::UnorderedOrEqual,
                        CmpOp::FUnordNe => FloatCC::NotEqual,
                        CmpOp::FUnordLt => FloatCC::UnorderedOrLessThan,
                        CmpOp::FUnordLe => FloatCC::UnorderedOrLessThanOrEqual,
                        CmpOp::FUnordGt => FloatCC::UnorderedOrGreaterThan,
                        CmpOp::FUnordGe => FloatCC::UnorderedOrGreaterThanOrEqual,
                        CmpOp::FOrd => FloatCC::Ordered,
                        _ => FloatCC::Unordered,
                    };
                    self.b.ins().fcmp(fcc, a, b)
                }
            }
            Op::Select(c, a, b) => {
                let (c, a, b) = (self.v(*c), self.v(*a), self.v(*b));
                self.b.ins().select(c, a, b)
            }
            Op::Conv(c, x) => {
                let from = self.k.ty(*x);
                let x = self.v(*x);
                self.conv(*c, from, rt.unwrap_or(Ty::I64), x)
            }
            Op::Load(a) if self.arg_words.contains_key(&(*a, t)) => self.arg_words[&(*a, t)],
            Op::Load(a) => {
                // The argument block does not change while the group runs: such loads may
                // move out of the work-item loop.
                let fl = if self.arg_reads.contains(a) {
                    fl.with_notrap().with_readonly().with_can_move()
                } else {
                    fl
                };
                let a = self.v(*a);
                self.b.ins().load(t, fl, a, 0)
            }
            Op::Store { addr, value } => {
                let (a, v) = (self.v(*addr), self.v(*value));
                self.b.ins().store(fl, v, a, 0);
                return Ok(None);
            }
            Op::Copy { dst, src, size } => {
                let args = [self.v(*dst), self.v(*src), self.v(*size)];
                self.call(
                    runtime_fn("zekit_copy_bytes"),
                    &[types::I64; 3],
                    types::INVALID,
                    &args,
                );
                return Ok(None);
            }
            // Local memory: one thread runs the group, so a plain read-modify-write is atomic
            // (in lockstep too: atomics run lane by lane).
            Op::Atomic(o, a, x, Reach::Group) => {
                let (a, x) = (self.v(*a), self.v(*x));
                let old = self.b.ins().load(t, fl, a, 0);
                let ins = self.b.ins();
                let new = match o {
                    AtomicOp::Add => ins.iadd(old, x),
                    AtomicOp::Sub => ins.isub(old, x),
                    AtomicOp::Xchg => x,
                    AtomicOp::And => ins.band(old, x),
                    AtomicOp::Or => ins.bor(old, x),
                    AtomicOp::Xor => ins.bxor(old, x),
                    AtomicOp::SMin => ins.smin(old, x),
                    AtomicOp::SMax => ins.smax(old, x),
                    AtomicOp::UMin => ins.umin(old, x),
                    AtomicOp::UMax => ins.umax(old, x),
                };
                self.b.ins().store(fl, new, a, 0);
                old
            }
            Op::AtomicCas(a, e, x, Reach::Group) => {
                let (a, e, x) = (self.v(*a), self.v(*e), self.v(*x));
                let old = self.b.ins().load(t, fl, a, 0);
                let same = self.b.ins().icmp(IntCC::Equal, old, e);
                let new = self.b.ins().select(same, x, old);
                self.b.ins().store(fl, new, a, 0);
                old
            }
            Op::Atomic(o, a, x, Reach::Device) => {
                let (a, x) = (self.v(*a), self.v(*x));
                let o = match o {
                    AtomicOp::Add => AtomicRmwOp::Add,
                    AtomicOp::Sub => AtomicRmwOp::Sub,
                    AtomicOp::Xchg => AtomicRmwOp::Xchg,
                    AtomicOp::And => AtomicRmwOp::And,
                    AtomicOp::Or => AtomicRmwOp::Or,
                    AtomicOp::Xor => AtomicRmwOp::Xor,
                    AtomicOp::SMin => AtomicRmwOp::Smin,
                    AtomicOp::SMax => AtomicRmwOp::Smax,
                    AtomicOp::UMin => AtomicRmwOp::Umin,
                    AtomicOp::UMax => AtomicRmwOp::Umax,
                };
                self.b.ins().atomic_rmw(t, fl, o, a, x)
            }
            Op::AtomicCas(a, e, x, Reach::Device) => {
                let (a, e, x) = (self.v(*a), self.v(*e), self.v(*x));
                self.b.ins().atomic_cas(fl, a, e, x)
            }
            Op::AtomicLoad(a) => {
                let a = self.v(*a);
                self.b.ins().atomic_load(t, fl, a)
            }
            Op::AtomicStore(a, x) => {
                let (a, x) = (self.v(*a), self.v(*x));
                self.b.ins().atomic_store(fl, x, a);
                return Ok(None);
            }
            Op::Math(f, args) => {
                let args: Vec<CValue> = args.iter().map(|a| self.v(*a)).collect();
                if let Some(v) = self.inline_math(*f, &args) {
                    return Ok(Some(v));
                }
                match f {
                    MathFn::ReadClock => {
                        self.call(runtime_fn("zekit_read_clock"), &[], types::I64, &[])
                    }
                    _ => {
                        let addr = math_shim(*f, rt == Some(Ty::F64))
                            .ok_or_else(|| Error::internal(format!("no shim for {f:?}")))?;
                        self.call(addr, &vec![t; args.len()], t, &args)
                    }
                }
            }
            Op::Builtin(b, d) => self.builtin(*b, usize::from(*d).min(2)),
            Op::BuiltinDyn(b, d) => {
                let d = self.v(*d);
                let d = if self.b.func.dfg.value_type(d) == types::I64 {
                    d
                } else {
                    self.b.ins().uextend(types::I64, d)
                };
                let dflt = match b {
                    Builtin::GlobalSize | Builtin::LocalSize | Builtin::NumGroups => 1,
                    _ => 0,
                };
                let mut acc = self.b.ins().iconst(types::I64, dflt);
                for dim in (0..3).rev() {
                    let v = self.builtin(*b, dim);
                    let is = self.b.ins().icmp_imm_s(IntCC::Equal, d, dim as i64);
                    acc = self.b.ins().select(is, v, acc);
                }
                acc
            }
            Op::ArgAddr(o) => {
                let a = self.g().args;
                self.b.ins().iadd_imm_s(a, i64::from(*o))
            }
            Op::PrivateAddr(o) => {
                let a = self.wi_area();
                self.b.ins().iadd_imm_s(a, i64::from(*o))
            }
            Op::LocalAddr(o) => {
                let a = self.g().local;
                self.b.ins().iadd_imm_s(a, i64::from(*o))
            }
            Op::GlobalAddr(o) => {
                let gv = match self.syms.data_gv {
                    Some(gv) => gv,
                    None => {
                        let gv = self
                            .syms
                            .module
                            .declare_data_in_func(self.syms.data, self.b.func);
                        self.syms.data_gv = Some(gv);
                        gv
                    }
                };
                let base = self.b.ins().symbol_value(types::I64, gv);
                self.b.ins().iadd_imm_s(base, i64::from(*o))
            }
            Op::Barrier | Op::SubgroupBarrier => {
                return Err(Error::internal("a barrier left after splitting"))
            }
            Op::Printf { fmt, args, count } => {
                let (f, a) = (self.v(*fmt), self.v(*args));
                let n = self.b.ins().iconst(types::I32, i64::from(*count));
                let addr = runtime_fn("zekit_printf");
                self.call(addr, &[types::I64, types::I64, types::I32], types::I32, &[f, a, n])
            }
            Op::Image {
                flags,
                image,
                sampler,
                coords,
                texel,
            } => {
                let f = self.b.ins().iconst(types::I32, i64::from(*flags));
                let args = [f, self.v(*image), self.v(*sampler), self.v(*coords), self.v(*texel)];
                let addr = runtime_fn("zekit_image");
                let params = [types::I32, types::I64, types::I64, types::I64, types::I64];
                self.call(addr, &params, types::INVALID, &args);
                return Ok(None);
            }
        };
        Ok(Some(v))
    }

    /// A unary operation, of any type the instruction takes (scalars, and the lockstep
    /// lowering's vectors); `boolean`: the operand is a `Bool` (`Not` flips its low bit).
    pub(super) fn un(&mut self, o: UnOp, boolean: bool, a: CValue) -> CValue {
        match o {
            UnOp::Neg => self.b.ins().ineg(a),
            UnOp::FNeg => self.b.ins().fneg(a),
            UnOp::Not if boolean => self.b.ins().bxor_imm_s(a, 1),
            UnOp::Not => self.b.ins().bnot(a),
            UnOp::Clz => self.b.ins().clz(a),
            UnOp::Popcnt => self.b.ins().popcnt(a),
        }
    }

    /// The math functions that are instructions (scalars or vectors): `sqrt`, `fabs`, `fma`
    /// where the ISA has it, `mad`; `None` for the others (a shim call, scalars only).
    pub(super) fn inline_math(&mut self, f: MathFn, args: &[CValue]) -> Option<CValue> {
        Some(match f {
            MathFn::Sqrt => self.b.ins().sqrt(args[0]),
            MathFn::Fabs => self.b.ins().fabs(args[0]),
            // One instruction where the ISA has it, else `f32::mul_add` through a shim.
            // (`mad` stays a multiply and an add: OpenCL allows either, and the kernel tests
            // compare `mad` results with unfused host references.)
            MathFn::Fma if self.fma => self.b.ins().fma(args[0], args[1], args[2]),
            MathFn::Mad => {
                let m = self.b.ins().fmul(args[0], args[1]);
                self.b.ins().fadd(m, args[2])
            }
            _ => return None,
        })
    }

    /// A binary operation of type `t`: scalars of any width, and for the operations of
    /// [`lanes_have`] the lockstep lowering's vectors (the instructions are the same).
    pub(super) fn bin(&mut self, o: BinOp, t: Type, a: CValue, b: CValue) -> CValue {
        match o {
            BinOp::Add => self.b.ins().iadd(a, b),
            BinOp::Sub => self.b.ins().isub(a, b),
            BinOp::Mul => self.b.ins().imul(a, b),
            BinOp::FAdd => self.b.ins().fadd(a, b),
            BinOp::FSub => self.b.ins().fsub(a, b),
            BinOp::FMul => self.b.ins().fmul(a, b),
            BinOp::FDiv => self.b.ins().fdiv(a, b),
            BinOp::FRem => {
                let addr = math_shim(MathFn::Fmod, t == types::F64).unwrap_or(0);
                self.call(addr, &[t, t], t, &[a, b])
            }
            BinOp::And => self.b.ins().band(a, b),
            BinOp::Or => self.b.ins().bor(a, b),
            BinOp::Xor => self.b.ins().bxor(a, b),
            BinOp::SMulHi => self.b.ins().smulhi(a, b),
            BinOp::UMulHi => self.b.ins().umulhi(a, b),
            BinOp::Rotl => self.b.ins().rotl(a, b),
            BinOp::Shl | BinOp::LShr | BinOp::AShr => {
                // Shift amounts of another width are brought to the shifted value's.
                let bt = self.b.func.dfg.value_type(b);
                let b = if bt.bits() > t.bits() {
                    self.b.ins().ireduce(t, b)
                } else if bt.bits() < t.bits() {
                    self.b.ins().uextend(t, b)
                } else {
                    b
                };
                match o {
                    BinOp::Shl => self.b.ins().ishl(a, b),
                    BinOp::LShr => self.b.ins().ushr(a, b),
                    _ => self.b.ins().sshr(a, b),
                }
            }
            BinOp::UDiv | BinOp::URem | BinOp::SDiv | BinOp::SRem | BinOp::SMod => {
                // No trap: a zero divisor gives 0, MIN / -1 wraps (remainder 0).
                let zero = self.b.ins().iconst(t, 0);
                let one = self.b.ins().iconst(t, 1);
                let is0 = self.b.ins().icmp_imm_s(IntCC::Equal, b, 0);
                let signed = matches!(o, BinOp::SDiv | BinOp::SRem | BinOp::SMod);
                let ism1 = if signed {
                    self.b.ins().icmp_imm_s(IntCC::Equal, b, -1)
                } else {
                    self.b.ins().iconst(types::I8, 0)
                };
                let bad = self.b.ins().bor(is0, ism1);
                let d = self.b.ins().select(bad, one, b);
                let r = match o {
                    BinOp::UDiv => self.b.ins().udiv(a, d),
                    BinOp::URem => self.b.ins().urem(a, d),
                    BinOp::SDiv => self.b.ins().sdiv(a, d),
                    _ => self.b.ins().srem(a, d),
                };
                let r = if o == BinOp::SMod {
                    // The remainder takes the divisor's sign.
                    let nz = self.b.ins().icmp_imm_s(IntCC::NotEqual, r, 0);
                    let x = self.b.ins().bxor(r, b);
                    let neg = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, x, 0);
                    let fix = self.b.ins().band(nz, neg);
                    let rb = self.b.ins().iadd(r, b);
                    self.b.ins().select(fix, rb, r)
                } else {
                    r
                };
                // By -1: the quotient is -a, the remainder 0.
                let r = if o == BinOp::SDiv {
                    let na = self.b.ins().ineg(a);
                    self.b.ins().select(ism1, na, r)
                } else if signed {
                    self.b.ins().select(ism1, zero, r)
                } else {
                    r
                };
                self.b.ins().select(is0, zero, r)
            }
        }
    }

    /// The bits of a half (`I16`) to a float of type `tt`, exactly: the exponent and mantissa
    /// shifted into a float's, scaled by 2^112 (which also normalizes subnormals); infinities
    /// and NaNs get the all-ones exponent.
    pub(super) fn half_to_float(&mut self, h: CValue, tt: Type) -> CValue {
        let fl = MemFlagsData::new();
        let h = self.b.ins().uextend(types::I32, h);
        let sign = self.b.ins().band_imm_u(h, 0x8000);
        let sign = self.b.ins().ishl_imm_u(sign, 16);
        let em = self.b.ins().band_imm_u(h, 0x7fff);
        let shifted = self.b.ins().ishl_imm_u(em, 13);
        let f = self.b.ins().bitcast(types::F32, fl, shifted);
        let scale = self.b.ins().f32const(Ieee32::with_bits(0x7780_0000));
        let f = self.b.ins().fmul(f, scale);
        let fb = self.b.ins().bitcast(types::I32, fl, f);
        let special = self.b.ins().bor_imm_u(shifted, 0x7f80_0000);
        let is_special = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, em, 0x7c00);
        let bits = self.b.ins().select(is_special, special, fb);
        let bits = self.b.ins().bor(bits, sign);
        let f = self.b.ins().bitcast(types::F32, fl, bits);
        if tt == types::F64 {
            self.b.ins().fpromote(types::F64, f)
        } else {
            f
        }
    }

    pub(super) fn conv(&mut self, c: ConvOp, from: Ty, to: Ty, x: CValue) -> CValue {
        let (ft, tt) = (ty(from), ty(to));
        let resize = |s: &mut Self, signed: bool, x: CValue| {
            if tt.bits() > ft.bits() {
                if signed {
                    s.b.ins().sextend(tt, x)
                } else {
                    s.b.ins().uextend(tt, x)
                }
            } else if tt.bits() < ft.bits() {
                s.b.ins().ireduce(tt, x)
            } else {
                x
            }
        };
        match c {
            ConvOp::UResize | ConvOp::BoolToInt => resize(self, false, x),
            ConvOp::SResize => resize(self, true, x),
            ConvOp::FToS | ConvOp::FToU => {
                let wide = if tt.bits() < 32 { types::I32 } else { tt };
                let v = if c == ConvOp::FToS {
                    self.b.ins().fcvt_to_sint_sat(wide, x)
                } else {
                    self.b.ins().fcvt_to_uint_sat(wide, x)
                };
                if wide == tt {
                    v
                } else {
                    self.b.ins().ireduce(tt, v)
                }
            }
            ConvOp::SToF | ConvOp::UToF => {
                let x = if ft.bits() < 32 {
                    if c == ConvOp::SToF {
                        self.b.ins().sextend(types::I32, x)
                    } else {
                        self.b.ins().uextend(types::I32, x)
                    }
                } else {
                    x
                };
                if c == ConvOp::SToF {
                    self.b.ins().fcvt_from_sint(tt, x)
                } else {
                    self.b.ins().fcvt_from_uint(tt, x)
                }
            }
            ConvOp::FResize => {
                if tt.bits() > ft.bits() {
                    self.b.ins().fpromote(tt, x)
                } else if tt.bits() < ft.bits() {
                    self.b.ins().fdemote(tt, x)
                } else {
                    x
                }
            }
            ConvOp::Bitcast => {
                if ft == tt {
                    x
                } else {
                    self.b.ins().bitcast(tt, MemFlagsData::new(), x)
                }
            }
            ConvOp::F16ToF => self.half_to_float(x, tt),
            ConvOp::FToF16(r) => {
                let x = if ft == types::F32 {
                    self.b.ins().fpromote(types::F64, x)
                } else {
                    x
                };
                let m = self.b.ins().iconst(types::I32, i64::from(r.code()));
                let addr = runtime_fn("zekit_f64_to_f16");
                let h = self.call(addr, &[types::F64, types::I32], types::I32, &[x, m]);
                self.b.ins().ireduce(tt, h)
            }
        }
    }
}

/// Whether operation `op` on `F32` (`float`) or `I32` values has a SIMD form the lockstep
/// lowering emits through the same [`Lower::bin`], [`Lower::un`] and [`Lower::inline_math`] as
/// the scalar lowering (Cranelift's instructions take vectors as they take scalars): the
/// arithmetic and bitwise operations of one instruction per lane, negation, `sqrt`, `fabs`,
/// `mad`, and `fma` where the ISA has it (`fma`).
pub(super) fn lanes_have(op: &Op, float: bool, fma: bool) -> bool {
    match op {
        Op::Bin(o, ..) if float => matches!(o, BinOp::FAdd | BinOp::FSub | BinOp::FMul | BinOp::FDiv),
        Op::Bin(o, ..) => matches!(o, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::And | BinOp::Or | BinOp::Xor),
        Op::Un(o, _) if float => *o == UnOp::FNeg,
        Op::Un(o, _) => matches!(o, UnOp::Neg | UnOp::Not),
        Op::Math(f, _) if float => match f {
            MathFn::Fma => fma,
            MathFn::Mad | MathFn::Sqrt | MathFn::Fabs => true,
            _ => false,
        },
        _ => false,
    }
}
