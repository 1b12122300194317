//! The compiler's own intermediate representation: one SSA function per kernel, with every
//! call inlined, block parameters instead of phis, addresses as 64-bit integers and the
//! work-item's ids as operations. Nothing in it depends on SPIR-V or on Cranelift, so a second
//! backend only has to lower [`Kernel`]. The IR's checks are in [`verify`].

mod print;
pub mod verify;

/// A value's type. Pointers are [`Ty::I64`] addresses (all memory is host memory); booleans
/// are their own type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    /// A comparison result.
    Bool,
    /// 8-bit integer.
    I8,
    /// 16-bit integer.
    I16,
    /// 32-bit integer.
    I32,
    /// 64-bit integer (and addresses).
    I64,
    /// `float`.
    F32,
    /// `double`.
    F64,
}

impl Ty {
    /// Size in bytes when stored.
    pub fn bytes(self) -> u32 {
        match self {
            Ty::Bool | Ty::I8 => 1,
            Ty::I16 => 2,
            Ty::I32 | Ty::F32 => 4,
            Ty::I64 | Ty::F64 => 8,
        }
    }
    /// A float type.
    pub fn is_float(self) -> bool {
        matches!(self, Ty::F32 | Ty::F64)
    }
}

/// An SSA value of a [`Kernel`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Value(pub u32);

/// A block of a [`Kernel`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BlockId(pub u32);

/// Binary operations on two values of one type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    /// Unsigned division (division by zero gives 0 instead of trapping).
    UDiv,
    /// Signed division (by zero: 0; `MIN / -1`: `MIN`).
    SDiv,
    URem,
    /// Remainder with the dividend's sign.
    SRem,
    /// Remainder with the divisor's sign.
    SMod,
    FAdd,
    FSub,
    FMul,
    FDiv,
    FRem,
    Shl,
    LShr,
    AShr,
    And,
    Or,
    Xor,
    /// High half of the signed product.
    SMulHi,
    /// High half of the unsigned product.
    UMulHi,
    /// Rotation left (the amount modulo the width).
    Rotl,
}

/// Unary operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum UnOp {
    Neg,
    FNeg,
    Not,
    /// Leading zero bits.
    Clz,
    /// Set bits.
    Popcnt,
}

/// Comparisons (result [`Ty::Bool`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum CmpOp {
    Eq,
    Ne,
    ULt,
    ULe,
    UGt,
    UGe,
    SLt,
    SLe,
    SGt,
    SGe,
    /// Float comparisons: ordered (false with a NaN) unless `Unord`.
    FEq,
    FNe,
    FLt,
    FLe,
    FGt,
    FGe,
    FUnordEq,
    FUnordNe,
    FUnordLt,
    FUnordLe,
    FUnordGt,
    FUnordGe,
    /// Either operand is NaN.
    FUnord,
    /// Neither is.
    FOrd,
}

/// Conversions to the instruction's result type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum ConvOp {
    /// Zero-extend or truncate.
    UResize,
    /// Sign-extend or truncate.
    SResize,
    /// Float to integer, saturating (NaN gives 0).
    FToS,
    FToU,
    SToF,
    UToF,
    /// Float width change.
    FResize,
    /// Same-size reinterpretation.
    Bitcast,
    /// Boolean to integer 0 / 1.
    BoolToInt,
    /// The bits of an IEEE half (an `I16`) to a float (exact).
    F16ToF,
    /// A float to the bits of the nearest IEEE half (an `I16`) in a rounding mode.
    FToF16(Round),
}

/// A rounding mode (SPIR-V's FPRoundingMode numbering).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Round {
    /// To nearest, ties to even.
    Rte,
    /// Toward zero.
    Rtz,
    /// Toward +infinity.
    Rtp,
    /// Toward -infinity.
    Rtn,
}

impl Round {
    /// Its number (SPIR-V's), as the runtime's rounding to half takes it.
    pub fn code(self) -> u32 {
        match self {
            Round::Rte => 0,
            Round::Rtz => 1,
            Round::Rtp => 2,
            Round::Rtn => 3,
        }
    }
}

/// Who can touch an atomic's memory while the atomic runs: what decides whether it needs a
/// locked instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    /// Any thread: global (`CrossWorkgroup`), generic or program-scope memory.
    Device,
    /// Only the work-items of one work-group, which one thread runs (their regions one after
    /// another, or in lockstep lane by lane): local (`Workgroup`) memory. Plain loads and stores
    /// are atomic enough.
    Group,
}

/// Atomic read-modify-write operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum AtomicOp {
    Add,
    Sub,
    Xchg,
    And,
    Or,
    Xor,
    SMin,
    SMax,
    UMin,
    UMax,
}

/// Math functions (OpenCL.std), on one float type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum MathFn {
    Sqrt,
    Fabs,
    Fmin,
    Fmax,
    /// `a * b + c`, unfused.
    Mad,
    /// Fused.
    Fma,
    Exp,
    Log,
    Sin,
    Cos,
    Floor,
    Ceil,
    Trunc,
    Pow,
    Fmod,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Exp2,
    Exp10,
    Expm1,
    Log2,
    Log10,
    Log1p,
    Cbrt,
    /// Halfway cases away from zero.
    Round,
    /// Halfway cases to even.
    Rint,
    Atan2,
    Hypot,
    Copysign,
    Fdim,
    Maxmag,
    Minmag,
    // OpenCL.std functions added for the full extended set (see `frontend/stdlib/`).
    Acosh,
    Asinh,
    Atanh,
    Acospi,
    Asinpi,
    Atanpi,
    Atan2pi,
    Cospi,
    Sinpi,
    Tanpi,
    Erf,
    Erfc,
    Tgamma,
    Lgamma,
    /// The sign of gamma(x) (±1) for `lgamma_r`.
    LgammaSign,
    Logb,
    /// `ilogb` as a float (FP_ILOGB0 = i32::MIN, FP_ILOGBNAN = i32::MAX).
    Ilogb,
    /// `x * 2^k`, `k` an integer held in a float.
    Ldexp,
    /// `x^n`, `n` an integer held in a float.
    Pown,
    /// `x^(1/n)`, `n` an integer held in a float.
    Rootn,
    Nextafter,
    /// IEEE remainder (quotient rounded to even).
    Remainder,
    /// The low 7 bits of the rounded quotient of `remquo`, with its sign, as a float.
    RemquoQ,
    /// `frexp`'s mantissa in [0.5, 1).
    FrexpMant,
    /// `frexp`'s exponent as a float.
    FrexpExp,
    /// `fract`: `min(x - floor(x), largest below 1)`.
    Fract,
    /// `modf`'s fractional part (±0 for infinities).
    ModfFrac,
    /// A 64-bit count of nanoseconds that never goes back (`OpReadClockKHR`; no operands,
    /// an `I64` result).
    ReadClock,
}

/// The work-item and work-group values a kernel can read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Builtin {
    GlobalId,
    LocalId,
    GroupId,
    GlobalSize,
    LocalSize,
    NumGroups,
    GlobalOffset,
    /// Scalars: the dimension is ignored.
    WorkDim,
    GlobalLinearId,
    LocalLinearId,
    /// Sub-groups ([`SUB_GROUP_SIZE`] consecutive work-items in linear order; the last one of
    /// a group may be smaller): this work-item's sub-group's size.
    SubgroupSize,
    /// The largest sub-group of the launch: `min(sub-group size, group size)`.
    SubgroupMaxSize,
    /// Sub-groups in the work-group.
    NumSubgroups,
    /// This work-item's sub-group.
    SubgroupId,
    /// This work-item's index in its sub-group.
    SubgroupLocalId,
}

/// Work-items per sub-group of a kernel that requires no size (the last sub-group of a group
/// may have fewer).
pub const SUB_GROUP_SIZE: u32 = 8;

/// The sub-group sizes a kernel may require (`intel_reqd_sub_group_size`, ExecutionMode
/// SubgroupSize), ascending: the device's `subGroupSizes`.
pub const SUB_GROUP_SIZES: [u32; 2] = [8, 16];

/// An operation.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// A constant (the low bits of `bits`, floats as their bit pattern).
    Const(u64),
    /// Two operands of the result's type (shift amounts may be of any integer type).
    Bin(BinOp, Value, Value),
    /// One operand of the result's type.
    Un(UnOp, Value),
    /// A comparison.
    Cmp(CmpOp, Value, Value),
    /// `cond ? a : b`.
    Select(Value, Value, Value),
    /// A conversion of the operand to the result's type.
    Conv(ConvOp, Value),
    /// A load of the result's type.
    Load(Value),
    /// A store (no result).
    Store {
        /// The address.
        addr: Value,
        /// The value.
        value: Value,
    },
    /// `size` bytes copied from `src` to `dst` (no result).
    Copy {
        /// Destination.
        dst: Value,
        /// Source.
        src: Value,
        /// Byte count (an `I64`).
        size: Value,
    },
    /// Atomic read-modify-write of memory of that reach; the result is the old value.
    Atomic(AtomicOp, Value, Value, Reach),
    /// Atomic compare-exchange: address, expected, replacement, of memory of that reach; the
    /// result is the old value.
    AtomicCas(Value, Value, Value, Reach),
    /// Atomic load.
    AtomicLoad(Value),
    /// Atomic store (no result).
    AtomicStore(Value, Value),
    /// A math function of the result's type.
    Math(MathFn, Vec<Value>),
    /// A built-in in dimension 0, 1 or 2 (`I64`).
    Builtin(Builtin, u8),
    /// A built-in in a dimension computed at run time (out of range: 0 for ids, 1 for sizes).
    BuiltinDyn(Builtin, Value),
    /// The address of a kernel argument's bytes in the argument block.
    ArgAddr(u32),
    /// The address of this work-item's private memory at this offset.
    PrivateAddr(u32),
    /// The address of the work-group's local memory at this offset.
    LocalAddr(u32),
    /// The address of a program-scope variable at this offset of the module's data.
    GlobalAddr(u32),
    /// A work-group barrier (only before [`crate::regions`] splits blocks at it).
    ///
    /// What the lowering of collectives relies on (every backend keeps it): the work-items a
    /// barrier (or a [`Op::SubgroupBarrier`]) releases resume in linear order, each running
    /// up to its next barrier before a later one resumes; work-items run in lockstep resume
    /// together, each lane's loads in program order before its stores.
    Barrier,
    /// An image read, sample or write by the host function [`crate::image::zekit_image`]
    /// (no result): the image descriptor's address, the sampler descriptor's (0: none), and
    /// the addresses of four 32-bit coordinates and of the four 32-bit texel components.
    Image {
        /// What to do ([`crate::image::zekit_image`]'s flags).
        flags: u32,
        /// The image descriptor.
        image: Value,
        /// The sampler descriptor, or a 0 (`I64`).
        sampler: Value,
        /// The coordinates.
        coords: Value,
        /// The texel.
        texel: Value,
    },
    /// A sub-group barrier (only before [`crate::regions`] splits blocks at it): in each
    /// round, the work-items of a sub-group stopped at its earliest sub-group barrier (in
    /// reverse postorder) go on, those stopped at work-group barriers wait for a round after
    /// one in which no work-item was at a sub-group barrier; so sub-groups may pass different
    /// numbers of them between two work-group barriers.
    SubgroupBarrier,
    /// OpenCL `printf` (result `I32`, 0): the format string's address, and the address of
    /// `count` 8-byte argument slots followed by `count` one-byte type codes
    /// ([`crate::printf`]).
    Printf {
        /// The format string (NUL-terminated).
        fmt: Value,
        /// The argument slots and codes.
        args: Value,
        /// The number of scalar arguments (vector elements one by one).
        count: u32,
    },
}

/// One instruction.
#[derive(Clone, Debug, PartialEq)]
pub struct Inst {
    /// Its result, typed in [`Kernel::types`].
    pub result: Option<Value>,
    /// What it does.
    pub op: Op,
}

/// How a block ends.
#[derive(Clone, Debug, PartialEq)]
pub enum Term {
    /// Not yet set (only while building).
    None,
    /// To a block, with its arguments.
    Jump(BlockId, Vec<Value>),
    /// Two-way branch on a `Bool`.
    Branch(Value, (BlockId, Vec<Value>), (BlockId, Vec<Value>)),
    /// Multi-way branch on an integer: default, then (value, target) pairs.
    Switch(Value, BlockId, Vec<(u64, BlockId)>),
    /// The work-item is done.
    Return,
    /// Never reached.
    Unreachable,
    /// A work-group barrier, then the block (set by [`crate::regions`]).
    Barrier(BlockId),
}

/// A basic block.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    /// Its parameters (the phis of SPIR-V).
    pub params: Vec<Value>,
    /// Its instructions.
    pub insts: Vec<Inst>,
    /// Its terminator.
    pub term: Term,
}

/// A kernel, ready for a backend: block 0 is the entry.
#[derive(Clone, Debug)]
pub struct Kernel {
    /// Its name.
    pub name: String,
    /// The blocks.
    pub blocks: Vec<Block>,
    /// The type of each value.
    pub types: Vec<Ty>,
    /// Bytes of private memory per work-item (function-scope variables).
    pub private_size: u32,
    /// Work-items per sub-group: one of [`SUB_GROUP_SIZES`].
    pub sub_group_size: u32,
}

impl Kernel {
    /// A new value of type `ty`.
    pub fn new_value(&mut self, ty: Ty) -> Value {
        self.types.push(ty);
        Value(self.types.len() as u32 - 1)
    }
    /// A new empty block.
    pub fn new_block(&mut self) -> BlockId {
        self.blocks.push(Block {
            params: Vec::new(),
            insts: Vec::new(),
            term: Term::None,
        });
        BlockId(self.blocks.len() as u32 - 1)
    }
    /// The type of `v`.
    pub fn ty(&self, v: Value) -> Ty {
        self.types[v.0 as usize]
    }
    /// The edges of a block that pass arguments: each target with its arguments (a jump's,
    /// or each side of a two-way branch).
    pub fn edge_args(&self, b: BlockId) -> Vec<(BlockId, &[Value])> {
        match &self.blocks[b.0 as usize].term {
            Term::Jump(t, a) => vec![(*t, a.as_slice())],
            Term::Branch(_, (t, ta), (f, fa)) => vec![(*t, ta.as_slice()), (*f, fa.as_slice())],
            _ => vec![],
        }
    }
    /// Successors of a block.
    pub fn successors(&self, b: BlockId) -> Vec<BlockId> {
        match &self.blocks[b.0 as usize].term {
            Term::Jump(t, _) | Term::Barrier(t) => vec![*t],
            Term::Branch(_, (a, _), (b, _)) => vec![*a, *b],
            Term::Switch(_, d, cases) => {
                let mut v = vec![*d];
                v.extend(cases.iter().map(|c| c.1));
                v
            }
            Term::None | Term::Return | Term::Unreachable => vec![],
        }
    }
}

/// The values an operation reads.
pub fn operands(op: &Op) -> Vec<Value> {
    match op {
        Op::Bin(_, a, b) | Op::Cmp(_, a, b) | Op::Atomic(_, a, b, _) | Op::AtomicStore(a, b) => {
            vec![*a, *b]
        }
        Op::Un(_, a) | Op::Conv(_, a) | Op::Load(a) | Op::AtomicLoad(a) | Op::BuiltinDyn(_, a) => {
            vec![*a]
        }
        Op::Select(a, b, c) | Op::AtomicCas(a, b, c, _) => vec![*a, *b, *c],
        Op::Store { addr, value } => vec![*addr, *value],
        Op::Copy { dst, src, size } => vec![*dst, *src, *size],
        Op::Math(_, v) => v.clone(),
        Op::Printf { fmt, args, .. } => vec![*fmt, *args],
        Op::Image {
            image,
            sampler,
            coords,
            texel,
            ..
        } => vec![*image, *sampler, *coords, *texel],
        Op::Const(_)
        | Op::Builtin(..)
        | Op::ArgAddr(_)
        | Op::PrivateAddr(_)
        | Op::LocalAddr(_)
        | Op::GlobalAddr(_)
        | Op::Barrier
        | Op::SubgroupBarrier => vec![],
    }
}

/// The values a terminator reads.
pub fn term_operands(t: &Term) -> Vec<Value> {
    match t {
        Term::Jump(_, a) => a.clone(),
        Term::Branch(c, (_, a), (_, b)) => {
            let mut v = vec![*c];
            v.extend(a);
            v.extend(b);
            v
        }
        Term::Switch(c, ..) => vec![*c],
        _ => vec![],
    }
}
