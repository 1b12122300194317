//! Calls of LLVM intrinsics that the LLVM/SPIR-V translator left unresolved: functions declared
//! with `LinkageAttributes "llvm.<name>.<type>" Import` and called with `OpFunctionCall`
//! (DPC++ emits them, e.g. `llvm.usub.sat.i32`). Each is lowered in place, on scalars of 8 to 64
//! bits and on vectors of them (element by element): the saturating additions and
//! subtractions, integer minimum and maximum, `abs`, funnel shifts, bit counts, `bitreverse`,
//! `bswap`, the arithmetic with an overflow flag, the fused multiply-adds, and the vector
//! reductions. Any other
//! `llvm.*` import is refused naming it.
//!
//! With them, the SPIR-V instructions the translator makes of some of these when it may (SPIR-V
//! 1.4 and SPV_KHR_bit_instructions): `OpIAddCarry`, `OpISubBorrow`, `OpUMulExtended`,
//! `OpSMulExtended` (struct results), `OpBitReverse`, `OpBitFieldInsert`, `OpBitFieldSExtract`,
//! `OpBitFieldUExtract`.

use super::{Builder, Frame, Val};
use crate::ir::{BinOp, CmpOp, ConvOp, MathFn, Op, Round, Ty, UnOp, Value};
use crate::spv::{op, Inst};
use crate::Error;

/// `OpIAddCarry`.
const OP_IADD_CARRY: u16 = op::I_ADD_CARRY;
/// `OpISubBorrow`.
const OP_ISUB_BORROW: u16 = op::I_SUB_BORROW;
/// `OpUMulExtended`.
const OP_UMUL_EXTENDED: u16 = op::U_MUL_EXTENDED;
/// `OpSMulExtended`.
const OP_SMUL_EXTENDED: u16 = op::S_MUL_EXTENDED;
/// `OpBitFieldInsert`.
const OP_BIT_FIELD_INSERT: u16 = op::BIT_FIELD_INSERT;
/// `OpBitFieldSExtract`.
const OP_BIT_FIELD_S_EXTRACT: u16 = op::BIT_FIELD_S_EXTRACT;
/// `OpBitFieldUExtract`.
const OP_BIT_FIELD_U_EXTRACT: u16 = op::BIT_FIELD_U_EXTRACT;
/// `OpBitReverse`.
const OP_BIT_REVERSE: u16 = op::BIT_REVERSE;

/// The intrinsics lowered here, by name without `llvm.` and the type suffix.
const INTRINSICS: &[&str] = &[
    "uadd.sat",
    "usub.sat",
    "sadd.sat",
    "ssub.sat",
    "umin",
    "umax",
    "smin",
    "smax",
    "abs",
    "fshl",
    "fshr",
    "ctpop",
    "ctlz",
    "cttz",
    "bitreverse",
    "bswap",
    "fma",
    "fmuladd",
    "uadd.with.overflow",
    "usub.with.overflow",
    "sadd.with.overflow",
    "ssub.with.overflow",
    "umul.with.overflow",
    "smul.with.overflow",
    "vector.reduce.add",
    "vector.reduce.mul",
    "vector.reduce.and",
    "vector.reduce.or",
    "vector.reduce.xor",
    "vector.reduce.smax",
    "vector.reduce.smin",
    "vector.reduce.umax",
    "vector.reduce.umin",
    "vector.reduce.fadd",
    "vector.reduce.fmul",
    "vector.reduce.fmax",
    "vector.reduce.fmin",
];

/// The intrinsic an import name calls (`llvm.usub.sat.i32` → `usub.sat`), if it is one of
/// [`INTRINSICS`].
fn base(name: &str) -> Option<&'static str> {
    let rest = name.strip_prefix("llvm.")?;
    INTRINSICS.iter().copied().find(|k| {
        rest.strip_prefix(k)
            .and_then(|t| t.strip_prefix('.'))
            .is_some_and(|t| !t.is_empty())
    })
}

/// Whether an import is an LLVM intrinsic: not an import to link, but lowered here (or, if it
/// is none of these, refused naming it when the module is compiled).
pub(super) fn is_intrinsic(name: &str) -> bool {
    name.starts_with("llvm.")
}

fn mask(t: Ty) -> u64 {
    match t.bytes() {
        8 => u64::MAX,
        b => (1u64 << (8 * b)) - 1,
    }
}

impl Builder<'_> {
    /// `OpIAddCarry`, `OpISubBorrow`, `OpUMulExtended`, `OpSMulExtended` (a struct of the low
    /// result and the carry, borrow or high half), and the scalar bit instructions (vectors go
    /// element by element). `None`: not one of them.
    pub(super) fn spirv_int_inst(&mut self, fr: &mut Frame, i: &Inst) -> Result<Option<bool>, Error> {
        let op = i.op;
        let name = crate::spv::op_name(op);
        match op {
            OP_IADD_CARRY | OP_ISUB_BORROW | OP_UMUL_EXTENDED | OP_SMUL_EXTENDED => {
                let (a, _) = self.elems(fr, i.w(2)?)?;
                let (b, _) = self.elems(fr, i.w(3)?)?;
                let t = a.first().map(|v| self.k.ty(*v)).unwrap_or(Ty::Bool);
                if a.len() != b.len() || t.is_float() || t == Ty::Bool
                    || a.iter().chain(&b).any(|v| self.k.ty(*v) != t)
                {
                    return Err(Error::invalid(format!("{name}: operands of the wrong type")));
                }
                let (mut lo, mut hi) = (Vec::new(), Vec::new());
                for (x, y) in a.iter().zip(&b) {
                    let (l, h) = match op {
                        OP_IADD_CARRY | OP_ISUB_BORROW => {
                            let o = if op == OP_IADD_CARRY { "uadd" } else { "usub" };
                            let (r, f) = self.with_overflow(o, t, *x, *y);
                            (r, self.push(t, Op::Conv(ConvOp::BoolToInt, f)))
                        }
                        _ => {
                            let r = self.bin(t, BinOp::Mul, *x, *y);
                            (r, self.mul_high(op == OP_SMUL_EXTENDED, t, *x, *y))
                        }
                    };
                    lo.push(l);
                    hi.push(h);
                }
                lo.extend(hi);
                let rty = i.w(0)?;
                let want = self.value_types(rty)?;
                if want.len() != lo.len() || want.iter().zip(&lo).any(|(w, v)| *w != self.k.ty(*v)) {
                    return Err(Error::invalid(format!("{name}: the result type does not match")));
                }
                let v = self.pack(rty, lo);
                fr.vals.insert(i.w(1)?, (v, rty));
            }
            OP_BIT_FIELD_INSERT | OP_BIT_FIELD_S_EXTRACT | OP_BIT_FIELD_U_EXTRACT | OP_BIT_REVERSE => {
                if self.m.vector(i.w(0)?).is_some() {
                    return Ok(None);
                }
                let t = self.m.ir_ty(i.w(0)?)?;
                let n = if op == OP_BIT_FIELD_INSERT { 4 } else if op == OP_BIT_REVERSE { 1 } else { 3 };
                let mut x = Vec::new();
                for k in 0..n {
                    x.push(self.val(fr, i.w(2 + k)?)?);
                }
                let bad = |v: &Value| {
                    let vt = self.k.ty(*v);
                    vt.is_float() || vt == Ty::Bool
                };
                let fields = if op == OP_BIT_FIELD_INSERT { 2 } else { 1 };
                if t.is_float() || t == Ty::Bool || x[..fields].iter().any(|v| self.k.ty(*v) != t) || x.iter().any(bad) {
                    return Err(Error::invalid(format!("{name}: operands of the wrong type")));
                }
                let v = if op == OP_BIT_REVERSE {
                    self.int_intrinsic("bitreverse", t, &x)
                } else {
                    let off = self.resize(x[fields], t);
                    let count = self.resize(x[fields + 1], t);
                    self.bit_field(op, t, x[0], x.get(1).copied(), off, count)
                };
                fr.vals.insert(i.w(1)?, (Val::V(v), i.w(0)?));
            }
            _ => return Ok(None),
        }
        Ok(Some(false))
    }

    /// `OpBitFieldInsert` (`insert` given) or the extractions of `count` bits at `off` (both
    /// already of type `t`; out-of-range amounts are undefined in SPIR-V: here taken modulo
    /// the width, a count of 0 inserting nothing and extracting 0).
    fn bit_field(&mut self, op: u16, t: Ty, base: Value, insert: Option<Value>, off: Value, count: Value) -> Value {
        let bits = u64::from(t.bytes() * 8);
        let zero = self.k_const(t, 0);
        let none = self.cmp(CmpOp::Eq, count, zero);
        // mask = all ones >> (width - count), for count in 1..=width.
        let w = self.k_const(t, bits);
        let all = self.k_const(t, u64::MAX);
        let rest = self.bin(t, BinOp::Sub, w, count);
        let low = self.bin(t, BinOp::LShr, all, rest);
        let low = self.push(t, Op::Select(none, zero, low));
        if op == OP_BIT_FIELD_INSERT {
            let mask = self.bin(t, BinOp::Shl, low, off);
            let ins = insert.unwrap_or(zero);
            let moved = self.bin(t, BinOp::Shl, ins, off);
            let moved = self.bin(t, BinOp::And, moved, mask);
            let keep = self.push(t, Op::Un(UnOp::Not, mask));
            let kept = self.bin(t, BinOp::And, base, keep);
            return self.bin(t, BinOp::Or, kept, moved);
        }
        let shifted = self.bin(t, BinOp::LShr, base, off);
        let field = self.bin(t, BinOp::And, shifted, low);
        if op == OP_BIT_FIELD_U_EXTRACT {
            return field;
        }
        // Sign-extend from bit count - 1: (field << (width - count)) >> (width - count).
        let up = self.bin(t, BinOp::Shl, field, rest);
        let ext = self.bin(t, BinOp::AShr, up, rest);
        self.push(t, Op::Select(none, zero, ext))
    }

    /// The high half of the product of `a` and `b` (signed or unsigned).
    fn mul_high(&mut self, signed: bool, t: Ty, a: Value, b: Value) -> Value {
        if t == Ty::I64 {
            return self.bin(t, if signed { BinOp::SMulHi } else { BinOp::UMulHi }, a, b);
        }
        // The exact product in 64 bits, shifted down by the width.
        let c = if signed { ConvOp::SResize } else { ConvOp::UResize };
        let wa = self.push(Ty::I64, Op::Conv(c, a));
        let wb = self.push(Ty::I64, Op::Conv(c, b));
        let p = self.bin(Ty::I64, BinOp::Mul, wa, wb);
        let s = self.k_const(Ty::I64, u64::from(t.bytes() * 8));
        let h = self.bin(Ty::I64, if signed { BinOp::AShr } else { BinOp::LShr }, p, s);
        self.push(t, Op::Conv(ConvOp::UResize, h))
    }

    /// An `OpFunctionCall` of an imported `llvm.*` function: lowered here (true), or refused
    /// when the intrinsic is not one of these. False: not a call of an intrinsic.
    pub(super) fn intrinsic(&mut self, fr: &mut Frame, i: &Inst) -> Result<bool, Error> {
        let m = self.m;
        let fid = i.w(2)?;
        let Some(name) = m.imports.get(&fid) else {
            return Ok(false);
        };
        if !is_intrinsic(name) || m.funcs.get(&fid).is_some_and(|f| !f.blocks.is_empty()) {
            return Ok(false);
        }
        let Some(b) = base(name) else {
            return Err(Error::unsupported(format!(
                "a call of the LLVM intrinsic `{name}`, which the SPIR-V translator left unresolved"
            )));
        };
        let rty = i.w(0)?;
        let mut args = Vec::new();
        for a in &i.ops[3..] {
            args.push(self.elems(fr, *a)?.0);
        }
        if let Some(op) = b.strip_prefix("vector.reduce.") {
            let v = self.vector_reduce(name, op, rty, &args)?;
            fr.vals.insert(i.w(1)?, (Val::V(v), rty));
            return Ok(true);
        }
        let arity = match b {
            "ctpop" | "bitreverse" | "bswap" => 1,
            "fshl" | "fshr" | "fma" | "fmuladd" => 3,
            _ => 2,
        };
        // `abs`, `ctlz` and `cttz` have a second, boolean operand (whether some inputs give
        // poison), which changes nothing here.
        let (n, flag) = match b {
            "abs" | "ctlz" | "cttz" => (1, true),
            _ => (arity, false),
        };
        if args.len() != arity
            || args[0].is_empty()
            || args[..n].iter().any(|a| a.len() != args[0].len())
            || (flag && args[1].len() != 1)
        {
            return Err(Error::invalid(format!(
                "`{name}` called with operands of the wrong number or shape"
            )));
        }
        let lanes = args[0].len();
        let t = self.k.ty(args[0][0]);
        for a in &args[..n] {
            if a.iter().any(|v| self.k.ty(*v) != t) || t == Ty::Bool {
                return Err(Error::invalid(format!("`{name}`: operands of the wrong type")));
            }
        }
        let float = matches!(b, "fma" | "fmuladd");
        if t.is_float() != float {
            return Err(Error::invalid(format!("`{name}`: operands of the wrong type")));
        }
        let half = m.is_half(rty);
        let mut out = Vec::new();
        let mut flags = Vec::new();
        for l in 0..lanes {
            let x: Vec<Value> = args[..n].iter().map(|a| a[l]).collect();
            if let Some(o) = b.strip_suffix(".with.overflow") {
                let (v, f) = self.with_overflow(o, t, x[0], x[1]);
                out.push(v);
                flags.push(f);
                continue;
            }
            let v = if float {
                let r = self.push(t, Op::Math(MathFn::Fma, x));
                if half {
                    let h = self.push(Ty::I16, Op::Conv(ConvOp::FToF16(Round::Rte), r));
                    self.push(Ty::F32, Op::Conv(ConvOp::F16ToF, h))
                } else {
                    r
                }
            } else {
                self.int_intrinsic(b, t, &x)
            };
            out.push(v);
        }
        out.extend(flags);
        let want = self.value_types(rty)?;
        if want.len() != out.len() || want.iter().zip(&out).any(|(w, v)| *w != self.k.ty(*v)) {
            return Err(Error::invalid(format!(
                "`{name}`: the result type does not match the operands"
            )));
        }
        let v = self.pack(rty, out);
        fr.vals.insert(i.w(1)?, (v, rty));
        Ok(true)
    }

    /// `llvm.vector.reduce.<op>`: the vector's elements combined in order (`fadd` and `fmul`
    /// from their first, scalar operand: the ordered reductions; a half result rounded to half
    /// at each step).
    fn vector_reduce(&mut self, name: &str, op: &str, rty: u32, args: &[Vec<Value>]) -> Result<Value, Error> {
        let ordered = matches!(op, "fadd" | "fmul");
        let bad = || Error::invalid(format!("`{name}` called with operands of the wrong shape or type"));
        let (start, v) = match (ordered, args) {
            (true, [s, v]) if s.len() == 1 => (Some(s[0]), v),
            (false, [v]) => (None, v),
            _ => return Err(bad()),
        };
        let t = self.m.ir_ty(rty)?;
        let float = op.starts_with('f');
        if v.is_empty() || t == Ty::Bool || t.is_float() != float || start.iter().chain(v).any(|x| self.k.ty(*x) != t) {
            return Err(bad());
        }
        let half = self.m.is_half(rty);
        let mut acc = start.unwrap_or(v[0]);
        for x in &v[usize::from(start.is_none())..] {
            let (a, b) = (acc, *x);
            let pick = |s: &mut Self, c: CmpOp| {
                let k = s.cmp(c, a, b);
                s.push(t, Op::Select(k, a, b))
            };
            acc = match op {
                "add" => self.bin(t, BinOp::Add, a, b),
                "mul" => self.bin(t, BinOp::Mul, a, b),
                "and" => self.bin(t, BinOp::And, a, b),
                "or" => self.bin(t, BinOp::Or, a, b),
                "xor" => self.bin(t, BinOp::Xor, a, b),
                "smax" => pick(self, CmpOp::SGt),
                "smin" => pick(self, CmpOp::SLt),
                "umax" => pick(self, CmpOp::UGt),
                "umin" => pick(self, CmpOp::ULt),
                "fmax" => self.push(t, Op::Math(MathFn::Fmax, vec![a, b])),
                "fmin" => self.push(t, Op::Math(MathFn::Fmin, vec![a, b])),
                _ => {
                    let r = self.bin(t, if op == "fadd" { BinOp::FAdd } else { BinOp::FMul }, a, b);
                    if half {
                        let h = self.push(Ty::I16, Op::Conv(ConvOp::FToF16(Round::Rte), r));
                        self.push(Ty::F32, Op::Conv(ConvOp::F16ToF, h))
                    } else {
                        r
                    }
                }
            };
        }
        Ok(acc)
    }

    fn k_const(&mut self, t: Ty, v: u64) -> Value {
        self.push(t, Op::Const(v & mask(t)))
    }

    fn bin(&mut self, t: Ty, o: BinOp, a: Value, b: Value) -> Value {
        self.push(t, Op::Bin(o, a, b))
    }

    fn cmp(&mut self, c: CmpOp, a: Value, b: Value) -> Value {
        self.push(Ty::Bool, Op::Cmp(c, a, b))
    }

    /// One element of an integer intrinsic.
    fn int_intrinsic(&mut self, b: &str, t: Ty, x: &[Value]) -> Value {
        let bits = u64::from(t.bytes() * 8);
        let (smin, smax) = (1u64 << (bits - 1), (1u64 << (bits - 1)) - 1);
        let pick = |s: &mut Self, c: CmpOp| {
            let k = s.cmp(c, x[0], x[1]);
            s.push(t, Op::Select(k, x[0], x[1]))
        };
        match b {
            "uadd.sat" => {
                let s = self.bin(t, BinOp::Add, x[0], x[1]);
                let over = self.cmp(CmpOp::ULt, s, x[0]);
                let max = self.k_const(t, u64::MAX);
                self.push(t, Op::Select(over, max, s))
            }
            "usub.sat" => {
                let d = self.bin(t, BinOp::Sub, x[0], x[1]);
                let under = self.cmp(CmpOp::ULt, x[0], x[1]);
                let zero = self.k_const(t, 0);
                self.push(t, Op::Select(under, zero, d))
            }
            "sadd.sat" | "ssub.sat" => {
                let add = b == "sadd.sat";
                let (r, over) = self.signed_overflow(add, t, x[0], x[1]);
                let zero = self.k_const(t, 0);
                let neg = self.cmp(CmpOp::SLt, x[0], zero);
                let (lo, hi) = (self.k_const(t, smin), self.k_const(t, smax));
                let sat = self.push(t, Op::Select(neg, lo, hi));
                self.push(t, Op::Select(over, sat, r))
            }
            "umin" => pick(self, CmpOp::ULt),
            "umax" => pick(self, CmpOp::UGt),
            "smin" => pick(self, CmpOp::SLt),
            "smax" => pick(self, CmpOp::SGt),
            "abs" => {
                let zero = self.k_const(t, 0);
                let neg = self.cmp(CmpOp::SLt, x[0], zero);
                let n = self.push(t, Op::Un(UnOp::Neg, x[0]));
                self.push(t, Op::Select(neg, n, x[0]))
            }
            "fshl" | "fshr" => {
                // The amount modulo the width; 0 gives the first (fshl) or second operand.
                let m = self.k_const(t, bits - 1);
                let s = self.bin(t, BinOp::And, x[2], m);
                let w = self.k_const(t, bits);
                let r = self.bin(t, BinOp::Sub, w, s);
                let (hi, lo) = if b == "fshl" {
                    (self.bin(t, BinOp::Shl, x[0], s), self.bin(t, BinOp::LShr, x[1], r))
                } else {
                    (self.bin(t, BinOp::Shl, x[0], r), self.bin(t, BinOp::LShr, x[1], s))
                };
                let v = self.bin(t, BinOp::Or, hi, lo);
                let zero = self.k_const(t, 0);
                let none = self.cmp(CmpOp::Eq, s, zero);
                let same = if b == "fshl" { x[0] } else { x[1] };
                self.push(t, Op::Select(none, same, v))
            }
            "ctpop" => self.push(t, Op::Un(UnOp::Popcnt, x[0])),
            "ctlz" => self.push(t, Op::Un(UnOp::Clz, x[0])),
            "cttz" => {
                // popcount((x & -x) - 1): the trailing zeros, the width for 0.
                let n = self.push(t, Op::Un(UnOp::Neg, x[0]));
                let low = self.bin(t, BinOp::And, x[0], n);
                let one = self.k_const(t, 1);
                let below = self.bin(t, BinOp::Sub, low, one);
                self.push(t, Op::Un(UnOp::Popcnt, below))
            }
            "bswap" => self.bswap(t, x[0]),
            _ => {
                // bitreverse: swap bits, pairs and nibbles within each byte, then the bytes.
                let mut v = x[0];
                for (sh, pat) in [(1, 0x55u64), (2, 0x33), (4, 0x0f)] {
                    let m = self.k_const(t, pat * 0x0101_0101_0101_0101);
                    let s = self.k_const(t, sh);
                    let a = self.bin(t, BinOp::LShr, v, s);
                    let a = self.bin(t, BinOp::And, a, m);
                    let c = self.bin(t, BinOp::And, v, m);
                    let c = self.bin(t, BinOp::Shl, c, s);
                    v = self.bin(t, BinOp::Or, a, c);
                }
                self.bswap(t, v)
            }
        }
    }

    /// The bytes of `x` in reverse order.
    fn bswap(&mut self, t: Ty, x: Value) -> Value {
        let n = u64::from(t.bytes());
        let mut acc = self.k_const(t, 0);
        for k in 0..n {
            let byte = self.k_const(t, 0xff);
            let s = self.k_const(t, 8 * k);
            let b = self.bin(t, BinOp::LShr, x, s);
            let b = self.bin(t, BinOp::And, b, byte);
            let d = self.k_const(t, 8 * (n - 1 - k));
            let b = self.bin(t, BinOp::Shl, b, d);
            acc = self.bin(t, BinOp::Or, acc, b);
        }
        acc
    }

    /// `a + b` (or `a - b`) wrapped, and whether the signed operation overflowed.
    fn signed_overflow(&mut self, add: bool, t: Ty, a: Value, b: Value) -> (Value, Value) {
        let r = self.bin(t, if add { BinOp::Add } else { BinOp::Sub }, a, b);
        // Addition: both operands' signs differ from the result's; subtraction: the operands'
        // signs differ and the result's differs from the first's.
        let x = self.bin(t, BinOp::Xor, a, r);
        let y = if add {
            self.bin(t, BinOp::Xor, b, r)
        } else {
            self.bin(t, BinOp::Xor, a, b)
        };
        let both = self.bin(t, BinOp::And, x, y);
        let zero = self.k_const(t, 0);
        (r, self.cmp(CmpOp::SLt, both, zero))
    }

    /// The `*.with.overflow` intrinsics on one element: the wrapped result and the flag.
    fn with_overflow(&mut self, o: &str, t: Ty, a: Value, b: Value) -> (Value, Value) {
        match o {
            "uadd" => {
                let r = self.bin(t, BinOp::Add, a, b);
                (r, self.cmp(CmpOp::ULt, r, a))
            }
            "usub" => {
                let r = self.bin(t, BinOp::Sub, a, b);
                (r, self.cmp(CmpOp::ULt, a, b))
            }
            "sadd" => self.signed_overflow(true, t, a, b),
            "ssub" => self.signed_overflow(false, t, a, b),
            _ => {
                let signed = o == "smul";
                let r = self.bin(t, BinOp::Mul, a, b);
                let hi = self.mul_high(signed, t, a, b);
                // Unsigned: any high bit; signed: the high half is not the low half's sign.
                let expect = if signed {
                    let s = self.k_const(t, u64::from(t.bytes() * 8 - 1));
                    self.bin(t, BinOp::AShr, r, s)
                } else {
                    self.k_const(t, 0)
                };
                (r, self.cmp(CmpOp::Ne, hi, expect))
            }
        }
    }
}
