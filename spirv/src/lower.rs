//! SPIR-V to the IR: module-level facts, program-scope variables laid out, and each entry
//! point lowered to one [`ir::Kernel`] with every call inlined.

use std::collections::{HashMap, HashSet};

use crate::ir::{
    self, AtomicOp, BinOp, BlockId, Builtin, CmpOp, ConvOp, MathFn, Op, Term, Ty, UnOp, Value,
};
use crate::spv::{self, op_name, Decoration, Inst, Type};
use crate::{AddressSpace, ArgInfo, ArgKind, Error, KernelInfo};

mod aggregate;
mod dpcpp;
pub(crate) mod fnptr;
mod image;
mod intrinsics;
mod link;
pub use link::{lower_linked, Linking};
mod nonuniform;
mod stdlib;

/// Most IR instructions a kernel may have after inlining.
const MAX_INSTS: usize = 1 << 20;
/// Deepest call nesting.
const MAX_DEPTH: usize = 64;

/// A lowered module.
#[derive(Debug)]
pub struct Lowered {
    /// Each kernel with what it reports.
    pub kernels: Vec<(ir::Kernel, KernelInfo)>,
    /// Initial bytes of the program-scope variables.
    pub data: Vec<u8>,
    /// Exported program-scope variables: name, offset in `data`, size.
    pub globals: Vec<(String, u32, u32)>,
    /// Exported functions with a pointer value (`lower/fnptr.rs`): name, offset in `data` of
    /// the slot whose address is the value.
    pub functions: Vec<(String, u32)>,
    /// Offsets in `data` of 8-byte values to which `data`'s address is added when it is placed
    /// (function pointers in initializers).
    pub data_relocs: Vec<u32>,
}

#[derive(Clone, Debug)]
enum ConstVal {
    Scalar(u64),
    Composite(Vec<u32>),
    Null,
}

#[derive(Clone, Copy, Debug)]
enum Global {
    /// Program-scope data at this offset; whether kernels may write it (CrossWorkgroup, not
    /// UniformConstant).
    Data(u32, bool),
    Local(u32),
    Builtin(Builtin),
}

struct Func {
    params: Vec<(u32, u32)>,
    ret: u32,
    blocks: Vec<(u32, Vec<Inst>)>,
}

struct Module {
    types: HashMap<u32, Type>,
    consts: HashMap<u32, (u32, ConstVal)>,
    globals: HashMap<u32, (u32, Global)>,
    funcs: HashMap<u32, Func>,
    decos: HashMap<u32, Vec<Decoration>>,
    names: HashMap<u32, String>,
    opencl_std: HashSet<u32>,
    /// Extended instruction sets whose instructions are ignored (`lower/dpcpp.rs`).
    ignored_sets: HashSet<u32>,
    local_size: u32,
    /// Where a linked library's program-scope data and local variables start in the importing
    /// module's (0 for the importing module itself).
    data_base: u32,
    local_base: u32,
    /// A linked library whose writable program-scope variables must not be copied (see
    /// [`Linking`]).
    shared_writable: bool,
    /// Functions with `LinkageAttributes` Export: name → id.
    exports: HashMap<String, u32>,
    /// Ids with `LinkageAttributes` Import → name.
    imports: HashMap<u32, String>,
    /// Function pointers (`lower/fnptr.rs`).
    fnptr: fnptr::FnPtrs,
}

const SUPPORTED_CAPS: &[(u32, &str)] = &[
    (4, "Addresses"),
    (5, "Linkage"),
    (6, "Kernel"),
    (10, "Float64"),
    (11, "Int64"),
    (12, "Int64Atomics"),
    (18, "Groups"),
    (22, "Int16"),
    (38, "GenericPointer"),
    (39, "Int8"),
    (5612, "AtomicFloat32MinMaxEXT"),
    (5613, "AtomicFloat64MinMaxEXT"),
    (6033, "AtomicFloat32AddEXT"),
    (6034, "AtomicFloat64AddEXT"),
    (58, "SubgroupDispatch"),
    (5568, "SubgroupShuffleINTEL"),
    (61, "GroupNonUniform"),
    (62, "GroupNonUniformVote"),
    (63, "GroupNonUniformArithmetic"),
    (64, "GroupNonUniformBallot"),
    (65, "GroupNonUniformShuffle"),
    (66, "GroupNonUniformShuffleRelative"),
    (67, "GroupNonUniformClustered"),
    (7, "Vector16"),
    (8, "Float16Buffer"),
    (9, "Float16"),
    (fnptr::CAPABILITY, "FunctionPointersINTEL"),
    // Images (see `lower/image.rs`).
    (13, "ImageBasic"),
    (14, "ImageReadWrite"),
    (20, "LiteralSampler"),
    (43, "Sampled1D"),
    (44, "Image1D"),
    (46, "SampledBuffer"),
    (47, "ImageBuffer"),
];

fn align_up(x: u64, a: u64) -> u64 {
    x.div_ceil(a.max(1)) * a.max(1)
}

impl Module {
    fn ty(&self, id: u32) -> Result<&Type, Error> {
        self.types
            .get(&id)
            .ok_or_else(|| Error::invalid(format!("%{id} is not a type")))
    }

    fn name(&self, id: u32) -> String {
        self.names
            .get(&id)
            .cloned()
            .unwrap_or_else(|| format!("%{id}"))
    }

    fn has_deco(&self, id: u32, deco: u32) -> Option<&[u32]> {
        self.decos
            .get(&id)?
            .iter()
            .find(|d| d.0 == deco)
            .map(|d| d.1.as_slice())
    }

    /// Size and alignment in bytes of a type in memory.
    fn layout(&self, id: u32) -> Result<(u64, u64), Error> {
        self.layout_depth(id, 0)
    }

    fn layout_depth(&self, id: u32, depth: u32) -> Result<(u64, u64), Error> {
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

    fn member_offset(&self, members: &[u32], packed: bool, index: usize) -> Result<u64, Error> {
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
    fn vector(&self, id: u32) -> Option<(u32, u32)> {
        match self.types.get(&id) {
            Some(Type::Vector(e, n)) => Some((*e, *n)),
            _ => None,
        }
    }

    fn ir_ty(&self, id: u32) -> Result<Ty, Error> {
        Ok(match self.ty(id)? {
            Type::Bool => Ty::Bool,
            Type::Int(8) => Ty::I8,
            Type::Int(16) => Ty::I16,
            Type::Int(32) => Ty::I32,
            Type::Int(64) => Ty::I64,
            Type::Float(32) => Ty::F32,
            Type::Float(64) => Ty::F64,
            // A half value is carried as the f32 of the same value (see `lower/stdlib.rs`).
            Type::Float(16) => Ty::F32,
            // Images and samplers: their descriptors' addresses (`lower/image.rs`).
            // Events: a copy's event (`async_copy`), never waited on for real.
            Type::Pointer(..) | Type::Image(_) | Type::Sampler | Type::Event => Ty::I64,
            t => return Err(Error::unsupported(format!("values of type {t:?}"))),
        })
    }

    fn const_scalar(&self, id: u32) -> Result<u64, Error> {
        match self.consts.get(&id) {
            Some((_, ConstVal::Scalar(v))) => Ok(*v),
            Some((_, ConstVal::Null)) => Ok(0),
            _ => Err(Error::invalid(format!("%{id} is not a scalar constant"))),
        }
    }

    /// Writes constant `id` (of type `ty`) into `out`.
    fn write_const(&self, id: u32, ty: u32, out: &mut [u8], depth: u32) -> Result<(), Error> {
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

fn builtin_of(n: u32) -> Result<Builtin, Error> {
    Ok(match n {
        24 => Builtin::NumGroups,
        25 | 32 => Builtin::LocalSize,
        26 => Builtin::GroupId,
        27 => Builtin::LocalId,
        28 => Builtin::GlobalId,
        29 => Builtin::LocalLinearId,
        30 => Builtin::WorkDim,
        31 => Builtin::GlobalSize,
        33 => Builtin::GlobalOffset,
        34 => Builtin::GlobalLinearId,
        36 => Builtin::SubgroupSize,
        37 => Builtin::SubgroupMaxSize,
        38 | 39 => Builtin::NumSubgroups,
        40 => Builtin::SubgroupId,
        41 => Builtin::SubgroupLocalId,
        _ => return Err(Error::unsupported(format!("built-in variable BuiltIn {n}"))),
    })
}

/// Lowers a parsed module; `spec` gives specialization constants by SpecId.
pub fn lower(insts: &[Inst], spec: &HashMap<u32, u64>) -> Result<Lowered, Error> {
    lower_linked(insts, spec, &[], Linking::OneModule)
}

/// The functions a module imports and exports (`LinkageAttributes`): (imports, exports), each
/// sorted by name. Imports are functions declared without a body; exports are defined
/// functions (kernels' own functions included, as llvm-spirv marks them).
pub fn linkage(insts: &[Inst]) -> Result<(Vec<String>, Vec<String>), Error> {
    let (m, ..) = read_module(insts, &HashMap::new())?;
    let mut imports: Vec<String> = m
        .imports
        .iter()
        .filter(|(id, _)| m.funcs.get(id).is_some_and(|f| f.blocks.is_empty()))
        .filter(|(_, n)| !intrinsics::is_intrinsic(n))
        .map(|(_, n)| n.clone())
        .collect();
    let mut exports: Vec<String> = m.exports.keys().cloned().collect();
    imports.sort();
    exports.sort();
    Ok((imports, exports))
}

type Read = (
    Module,
    Vec<u8>,
    Vec<(String, u32, u32)>,
    Vec<(u32, String)>,
    HashMap<u32, Modes>,
);

/// What a kernel's execution modes report (`OpExecutionMode`).
#[derive(Clone, Debug, Default)]
struct Modes {
    /// LocalSize (17): `reqd_work_group_size`.
    reqd: Option<[u32; 3]>,
    /// LocalSizeHint (18): `work_group_size_hint`.
    hint: Option<[u32; 3]>,
    /// VecTypeHint (30): `vec_type_hint`, as its OpenCL C type name.
    vec_type_hint: Option<String>,
    /// SubgroupSize (35): `intel_reqd_sub_group_size`.
    sub_group: Option<u32>,
}

/// The OpenCL C type name of a VecTypeHint literal: the low 16 bits are the element type
/// (0 to 3: 8- to 64-bit integers, 4 to 6: 16- to 64-bit floats), the high 16 bits the
/// component count (0 or 1: a scalar). SPIR-V keeps no signedness, so `uint` reads as `int`.
fn vec_type_name(lit: u32) -> Result<String, Error> {
    let elem = match lit & 0xffff {
        0 => "char",
        1 => "short",
        2 => "int",
        3 => "long",
        4 => "half",
        5 => "float",
        6 => "double",
        _ => return Err(Error::invalid(format!(
            "OpExecutionMode VecTypeHint with the literal {lit:#x}: element type {} is none of 0 to 6",
            lit & 0xffff
        ))),
    };
    match lit >> 16 {
        0 | 1 => Ok(elem.to_string()),
        n @ (2 | 3 | 4 | 8 | 16) => Ok(format!("{elem}{n}")),
        n => Err(Error::invalid(format!(
            "OpExecutionMode VecTypeHint with the literal {lit:#x}: {n} components (not 1, 2, 3, 4, 8 or 16)"
        ))),
    }
}

fn read_module(insts: &[Inst], spec: &HashMap<u32, u64>) -> Result<Read, Error> {
    let decos = spv::decorations(insts)?;
    let mut exports = HashMap::new();
    let mut imports = HashMap::new();
    for (id, ds) in &decos {
        for d in ds.iter().filter(|d| d.0 == 41) {
            let w = Inst {
                op: 71,
                ops: d.1.clone(),
            };
            let (name, next) = w.string(0)?;
            match d.1.get(next) {
                // Export, and LinkOnceODR (SPV_KHR_linkonce_odr: a definition other modules
                // may have too; the first found is linked).
                Some(0 | 2) => {
                    exports.insert(name, *id);
                }
                Some(1) => {
                    imports.insert(*id, name);
                }
                _ => {}
            }
        }
    }
    let mut m = Module {
        exports,
        imports,
        types: HashMap::new(),
        consts: HashMap::new(),
        globals: HashMap::new(),
        funcs: HashMap::new(),
        decos,
        names: HashMap::new(),
        opencl_std: HashSet::new(),
        ignored_sets: HashSet::new(),
        local_size: 0,
        data_base: 0,
        local_base: 0,
        shared_writable: false,
        fnptr: fnptr::FnPtrs::default(),
    };
    let mut data = Vec::new();
    let mut globals = Vec::new();
    let mut entries = Vec::new();
    let mut modes: HashMap<u32, Modes> = HashMap::new();
    let mut current: Option<(u32, Func)> = None;
    for i in insts {
        if let Some((fid, f)) = current.as_mut() {
            match i.op {
                55 => f.params.push((i.w(1)?, i.w(0)?)),
                248 => f.blocks.push((i.w(0)?, Vec::new())),
                56 => {
                    let (fid, f) = current.take().expect("inside a function");
                    m.funcs.insert(fid, f);
                }
                54 => return Err(Error::invalid("OpFunction inside a function")),
                _ => match f.blocks.last_mut() {
                    Some(b) => b.1.push(i.clone()),
                    None => {
                        return Err(Error::invalid(format!(
                            "{} before the first block of function %{fid}",
                            op_name(i.op)
                        )))
                    }
                },
            }
            continue;
        }
        if dpcpp::module_ignored(&m, i)? {
            continue;
        }
        match i.op {
            0 | 2 | 3 | 4 | 6 | 7 | 8 | 10 | 71 | 72 | 73 | 74 | 317 | 330 => {}
            5 => {
                let (s, _) = i.string(1)?;
                m.names.insert(i.w(0)?, s);
            }
            17 => {
                let c = i.w(0)?;
                if !SUPPORTED_CAPS.iter().chain(dpcpp::ACCEPTED_CAPS).any(|s| s.0 == c) {
                    return Err(dpcpp::refuse_capability(c));
                }
            }
            11 => {
                let (s, _) = i.string(1)?;
                if s == "OpenCL.std" {
                    m.opencl_std.insert(i.w(0)?);
                } else if dpcpp::ignored_set(&s) {
                    m.ignored_sets.insert(i.w(0)?);
                }
            }
            14 => {
                if i.w(0)? != 2 {
                    return Err(Error::unsupported(
                        "addressing model other than Physical64 (compile for spir64)",
                    ));
                }
                if i.w(1)? != 2 {
                    return Err(Error::unsupported("memory model other than OpenCL"));
                }
            }
            15 => {
                if i.w(0)? != 6 {
                    return Err(Error::unsupported("entry points other than Kernel"));
                }
                let (name, _) = i.string(2)?;
                entries.push((i.w(1)?, name));
            }
            16 | 331 => {
                // intel_reqd_sub_group_size: one of the sizes the device reports.
                if i.w(1)? == 35 {
                    let size = i.w(2)?;
                    if !ir::SUB_GROUP_SIZES.contains(&size) {
                        return Err(Error::unsupported(format!(
                            "a required sub-group size of {size} (sub-groups may have {:?} \
                             work-items)",
                            ir::SUB_GROUP_SIZES
                        )));
                    }
                    modes.entry(i.w(0)?).or_default().sub_group = Some(size);
                }
                if matches!(i.w(1)?, 36 | 37) {
                    return Err(Error::unsupported("execution mode SubgroupsPerWorkgroup"));
                }
                match i.w(1)? {
                    17 => {
                        modes.entry(i.w(0)?).or_default().reqd =
                            Some([i.w(2)?, i.w(3)?, i.w(4)?]);
                    }
                    18 => {
                        modes.entry(i.w(0)?).or_default().hint =
                            Some([i.w(2)?, i.w(3)?, i.w(4)?]);
                    }
                    30 => {
                        modes.entry(i.w(0)?).or_default().vec_type_hint =
                            Some(vec_type_name(i.w(2)?)?);
                    }
                    _ => {}
                }
            }
            19 => {
                m.types.insert(i.w(0)?, Type::Void);
            }
            20 => {
                m.types.insert(i.w(0)?, Type::Bool);
            }
            21 => {
                let b = i.w(1)?;
                if ![8, 16, 32, 64].contains(&b) {
                    return Err(Error::unsupported(format!("{b}-bit integers")));
                }
                m.types.insert(i.w(0)?, Type::Int(b));
            }
            22 => {
                let b = i.w(1)?;
                if ![16, 32, 64].contains(&b) {
                    return Err(Error::invalid(format!("{b}-bit floats")));
                }
                m.types.insert(i.w(0)?, Type::Float(b));
            }
            23 => {
                // OpenCL vectors have 2, 3, 4, 8 or 16 elements (a mutated count of billions
                // would exhaust memory when the vector is scalarized).
                if ![2, 3, 4, 8, 16].contains(&i.w(2)?) {
                    return Err(Error::invalid(format!("vectors of {} elements", i.w(2)?)));
                }
                m.types.insert(i.w(0)?, Type::Vector(i.w(1)?, i.w(2)?));
            }
            28 => {
                let len = m.const_scalar(i.w(2)?)?;
                m.types.insert(i.w(0)?, Type::Array(i.w(1)?, len));
            }
            30 => {
                let packed = m.has_deco(i.w(0)?, 10).is_some();
                m.types
                    .insert(i.w(0)?, Type::Struct(i.ops[1..].to_vec(), packed));
            }
            32 => {
                m.types.insert(i.w(0)?, Type::Pointer(i.w(1)?, i.w(2)?));
            }
            33 => {
                m.types
                    .insert(i.w(0)?, Type::Function(i.w(1)?, i.ops[2..].to_vec()));
            }
            25 => {
                let t = crate::image::ImageType::parse(&i.ops)?;
                m.types.insert(i.w(0)?, Type::Image(t));
            }
            26 => {
                m.types.insert(i.w(0)?, Type::Sampler);
            }
            27 => {
                m.types.insert(i.w(0)?, Type::SampledImage(i.w(1)?));
            }
            45 => image::constant_sampler(&mut m, &mut data, i)?,
            34 => {
                m.types.insert(i.w(0)?, Type::Event);
            }
            24 | 29 | 31 | 35..=39 | 322 => {
                m.types.insert(i.w(0)?, Type::Other("opaque"));
            }
            41 | 42 | 48 | 49 => {
                let mut v = u64::from(i.op == 41 || i.op == 48);
                if i.op >= 48 {
                    if let Some(s) = m.has_deco(i.w(1)?, 1).and_then(|d| d.first()) {
                        if let Some(x) = spec.get(s) {
                            v = u64::from(*x != 0);
                        }
                    }
                }
                m.consts.insert(i.w(1)?, (i.w(0)?, ConstVal::Scalar(v)));
            }
            43 | 50 => {
                let ty = i.w(0)?;
                let bits = match m.ty(ty)? {
                    Type::Int(b) | Type::Float(b) => *b,
                    t => return Err(Error::invalid(format!("OpConstant of type {t:?}"))),
                };
                let mut v = u64::from(i.w(2)?);
                if bits > 32 {
                    v |= u64::from(i.w(3)?) << 32;
                }
                if i.op == 50 {
                    if let Some(s) = m.has_deco(i.w(1)?, 1).and_then(|d| d.first()) {
                        if let Some(x) = spec.get(s) {
                            v = if bits >= 64 {
                                *x
                            } else {
                                *x & ((1u64 << bits) - 1)
                            };
                        }
                    }
                }
                m.consts.insert(i.w(1)?, (ty, ConstVal::Scalar(v)));
            }
            44 | 51 => {
                m.consts
                    .insert(i.w(1)?, (i.w(0)?, ConstVal::Composite(i.ops[2..].to_vec())));
            }
            46 => {
                m.consts.insert(i.w(1)?, (i.w(0)?, ConstVal::Null));
            }
            1 => {
                m.consts.insert(i.w(1)?, (i.w(0)?, ConstVal::Null));
            }
            59 => {
                let (pty, id, sc) = (i.w(0)?, i.w(1)?, i.w(2)?);
                let pointee = match m.ty(pty)? {
                    Type::Pointer(_, p) => *p,
                    _ => return Err(Error::invalid("OpVariable whose type is not a pointer")),
                };
                // A `BuiltIn` variable is the built-in in any storage class (the translator of
                // LLVM 14 declares them UniformConstant).
                let builtin = m.has_deco(id, 11).and_then(|d| d.first().copied());
                let g = match sc {
                    _ if builtin.is_some() => Global::Builtin(builtin_of(builtin.unwrap_or(0))?),
                    1 => return Err(Error::unsupported("Input variables that are not built-ins")),
                    0 | 5 => {
                        let (size, align) = m.layout(pointee)?;
                        let off = align_up(data.len() as u64, align.max(8));
                        if off + size > 64 << 20 {
                            return Err(Error::unsupported(
                                "more than 64 MiB of program-scope variables",
                            ));
                        }
                        data.resize((off + size) as usize, 0);
                        if let Some(init) = i.ops.get(3) {
                            m.write_const(*init, pointee, &mut data[off as usize..], 0)?;
                            fnptr::init_relocs(&mut m, *init, pointee, off)?;
                        }
                        if let Some(d) = m.has_deco(id, 41) {
                            let w = Inst {
                                op: 41,
                                ops: d.to_vec(),
                            };
                            let (name, next) = w.string(0)?;
                            if d.get(next) == Some(&0) {
                                globals.push((name, off as u32, size as u32));
                            }
                        }
                        if let Some(name) = dpcpp::host_access_name(&m, id)? {
                            globals.push((name, off as u32, size as u32));
                        }
                        Global::Data(off as u32, sc == 5)
                    }
                    4 => {
                        let (size, align) = m.layout(pointee)?;
                        let off = align_up(u64::from(m.local_size), align.max(8));
                        if off + size > 1 << 30 {
                            return Err(Error::unsupported("more than 1 GiB of local variables"));
                        }
                        m.local_size = (off + size) as u32;
                        Global::Local(off as u32)
                    }
                    s => {
                        return Err(Error::unsupported(format!(
                            "program-scope variables of storage class {s}"
                        )))
                    }
                };
                m.globals.insert(id, (pty, g));
            }
            54 => {
                let ret = i.w(0)?;
                current = Some((
                    i.w(1)?,
                    Func {
                        params: Vec::new(),
                        ret,
                        blocks: Vec::new(),
                    },
                ));
            }
            52 | fnptr::CONSTANT_FUNCTION_POINTER => fnptr::module_inst(&mut m, i, &mut data)?,
            op => {
                return Err(Error::unsupported(format!(
                    "instruction {} at module scope",
                    op_name(op)
                )))
            }
        }
    }
    if current.is_some() {
        return Err(Error::invalid("a function has no OpFunctionEnd"));
    }
    // Only defined functions are exports (variables and declarations are not).
    m.exports
        .retain(|_, id| m.funcs.get(id).is_some_and(|f| !f.blocks.is_empty()));
    fnptr::finish(&mut m, &mut data, insts, &entries)?;
    Ok((m, data, globals, entries, modes))
}

#[derive(Clone, Debug)]
enum Val {
    V(Value),
    /// A vector, as one scalar value per element.
    Vec(Vec<Value>),
    /// The address of a built-in variable.
    BVar(Builtin),
    /// A loaded built-in vector.
    BVec(Builtin),
    /// A pointer into a built-in variable (`lower/dpcpp.rs`): byte offset, element size.
    BPtr(Builtin, u32, u32),
}

struct Frame {
    vals: HashMap<u32, (Val, u32)>,
    labels: HashMap<u32, BlockId>,
    phis: HashMap<u32, Vec<Inst>>,
    /// Where a return goes (None: the kernel's end), and the return value's parameter.
    ret: Option<BlockId>,
}

struct Builder<'a> {
    m: &'a Module,
    /// The module whose kernel this is (its program-scope variables are the program's).
    root: &'a Module,
    /// Modules whose exports resolve imports.
    libs: &'a [Module],
    k: ir::Kernel,
    cur: BlockId,
    /// Functions being inlined: (module, id).
    stack: Vec<(usize, u32)>,
    /// Lowering one element of a vector instruction (OpenCL.std `select` tests the sign bit).
    lane: bool,
    /// Bytes of scratch slots the kernel's work-group and sub-group collectives use, after
    /// the static local memory (0: none).
    scratch: u32,
    /// Lowering an instruction whose `half` result [`Builder::half_inst`] rounds afterwards.
    in_half: bool,
    /// Sub-group exchanges of `OpGroupNonUniform*` lowered so far (`lower/nonuniform.rs`).
    nu_tags: u32,
}

fn lower_kernel(
    m: &Module,
    libs: &[Module],
    fid: u32,
    name: &str,
    modes: &Modes,
) -> Result<(ir::Kernel, KernelInfo), Error> {
    let f = m
        .funcs
        .get(&fid)
        .ok_or_else(|| Error::invalid("the entry point is not a defined function"))?;
    if m.ty(f.ret)? != &Type::Void {
        return Err(Error::invalid("a kernel must return void"));
    }
    let mut b = Builder {
        m,
        root: m,
        libs,
        k: ir::Kernel {
            name: name.to_string(),
            blocks: Vec::new(),
            types: Vec::new(),
            private_size: 0,
            sub_group_size: modes.sub_group.unwrap_or(ir::SUB_GROUP_SIZE),
        },
        cur: BlockId(0),
        stack: Vec::new(),
        lane: false,
        scratch: 0,
        in_half: false,
        nu_tags: 0,
    };
    b.cur = b.k.new_block();
    let mut args = Vec::new();
    let mut infos = Vec::new();
    let mut offset = 0u32;
    for (pid, pty) in &f.params {
        let byval = m
            .decos
            .get(pid)
            .is_some_and(|d| d.iter().any(|d| d.0 == 38 && d.1.first() == Some(&2)));
        let (kind, size, space, align) = match m.ty(*pty)? {
            Type::Int(_) | Type::Float(_) | Type::Vector(..) => {
                let (s, a) = m.layout(*pty)?;
                (
                    ArgKind::Scalar,
                    s as u32,
                    AddressSpace::Private,
                    a.max(8) as u32,
                )
            }
            Type::Pointer(7, p) if byval => {
                let (s, a) = m.layout(*p)?;
                if s > 1 << 16 {
                    return Err(Error::unsupported("by-value arguments larger than 64 KiB"));
                }
                (
                    ArgKind::ByValue,
                    s as u32,
                    AddressSpace::Private,
                    a.max(8) as u32,
                )
            }
            Type::Pointer(4, _) => (ArgKind::Local, 8, AddressSpace::Local, 8),
            Type::Image(_) => (
                ArgKind::Image,
                crate::image::IMAGE_DESC_SIZE,
                AddressSpace::Global,
                8,
            ),
            Type::Sampler => (
                ArgKind::Sampler,
                crate::image::SAMPLER_DESC_SIZE,
                AddressSpace::Private,
                8,
            ),
            Type::Pointer(sc @ (0 | 5 | 8), _) => {
                let space = match sc {
                    0 => AddressSpace::Constant,
                    5 => AddressSpace::Global,
                    _ => AddressSpace::Generic,
                };
                (ArgKind::Buffer, 8, space, 8)
            }
            t => {
                return Err(Error::unsupported(format!(
                    "a kernel argument of type {t:?}"
                )))
            }
        };
        offset = align_up(u64::from(offset), u64::from(align)) as u32;
        let addr = b.push(Ty::I64, Op::ArgAddr(offset));
        let v = match kind {
            // Images and samplers: their descriptors' addresses.
            ArgKind::ByValue | ArgKind::Image | ArgKind::Sampler => Val::V(addr),
            _ => {
                // Scalars, pointers and vectors (element after element); a `half` is 2 bytes,
                // carried as the f32 of its value.
                let half = m.is_half(*pty);
                let mut vs = Vec::new();
                for (k, t) in b.value_types(*pty)?.into_iter().enumerate() {
                    let size = if half { 2 } else { t.bytes() };
                    let a = b.add_const(addr, k as u64 * u64::from(size));
                    vs.push(if half {
                        let h = b.push(Ty::I16, Op::Load(a));
                        b.push(t, Op::Conv(ConvOp::F16ToF, h))
                    } else {
                        b.push(t, Op::Load(a))
                    });
                }
                b.pack(*pty, vs)
            }
        };
        args.push((v, *pty));
        infos.push(ArgInfo {
            kind,
            size,
            offset,
            space,
        });
        offset += size;
    }
    let entry = b.inline(fid, args, None)?;
    if b.nu_tags > 0 {
        b.cur = BlockId(0);
        b.nu_clear_tag();
    }
    b.k.blocks[0].term = Term::Jump(entry, vec![]);
    let info = KernelInfo {
        name: name.to_string(),
        args: infos,
        args_size: align_up(u64::from(offset), 16) as u32,
        reqd_work_group_size: modes.reqd,
        work_group_size_hint: modes.hint,
        vec_type_hint: modes.vec_type_hint.clone(),
        reqd_sub_group_size: modes.sub_group,
        local_static_size: if b.scratch > 0 {
            scratch_offset(m) + b.scratch
        } else {
            m.local_size
        },
        private_size: b.k.private_size,
        barriers: false,
    };
    Ok((b.k, info))
}

/// Bytes of local memory the collectives use: one 8-byte slot per work-item of the largest
/// group the driver launches (1024).
const GROUP_SCRATCH: u32 = 8 * 1024;

/// Where the collectives' slots start in local memory.
fn scratch_offset(m: &Module) -> u32 {
    align_up(u64::from(m.local_size), 8) as u32
}

fn cmp_of(op: u16) -> Option<CmpOp> {
    Some(match op {
        164 | 170 => CmpOp::Eq,
        165 | 171 => CmpOp::Ne,
        172 => CmpOp::UGt,
        173 => CmpOp::SGt,
        174 => CmpOp::UGe,
        175 => CmpOp::SGe,
        176 => CmpOp::ULt,
        177 => CmpOp::SLt,
        178 => CmpOp::ULe,
        179 => CmpOp::SLe,
        180 => CmpOp::FEq,
        181 => CmpOp::FUnordEq,
        182 => CmpOp::FNe,
        183 => CmpOp::FUnordNe,
        184 => CmpOp::FLt,
        185 => CmpOp::FUnordLt,
        186 => CmpOp::FGt,
        187 => CmpOp::FUnordGt,
        188 => CmpOp::FLe,
        189 => CmpOp::FUnordLe,
        190 => CmpOp::FGe,
        191 => CmpOp::FUnordGe,
        162 => CmpOp::FOrd,
        163 => CmpOp::FUnord,
        _ => return None,
    })
}

fn bin_of(op: u16) -> Option<BinOp> {
    Some(match op {
        128 => BinOp::Add,
        129 => BinOp::FAdd,
        130 => BinOp::Sub,
        131 => BinOp::FSub,
        132 => BinOp::Mul,
        133 => BinOp::FMul,
        134 => BinOp::UDiv,
        135 => BinOp::SDiv,
        136 => BinOp::FDiv,
        137 => BinOp::URem,
        138 => BinOp::SRem,
        139 => BinOp::SMod,
        140 => BinOp::FRem,
        194 => BinOp::LShr,
        195 => BinOp::AShr,
        196 => BinOp::Shl,
        197 | 166 => BinOp::Or,
        198 => BinOp::Xor,
        199 | 167 => BinOp::And,
        _ => return None,
    })
}

fn atomic_of(op: u16) -> Option<AtomicOp> {
    Some(match op {
        229 => AtomicOp::Xchg,
        232 | 234 => AtomicOp::Add,
        233 | 235 => AtomicOp::Sub,
        236 => AtomicOp::SMin,
        237 => AtomicOp::UMin,
        238 => AtomicOp::SMax,
        239 => AtomicOp::UMax,
        240 => AtomicOp::And,
        241 => AtomicOp::Or,
        242 => AtomicOp::Xor,
        _ => return None,
    })
}

/// OpenCL.std s_max (156), u_max, s_min, u_min (159): the comparison that picks the first
/// operand.
fn int_min_max(n: u32) -> Option<CmpOp> {
    Some(match n {
        156 => CmpOp::SGt,
        157 => CmpOp::UGt,
        158 => CmpOp::SLt,
        159 => CmpOp::ULt,
        _ => return None,
    })
}

/// Instructions computed element by element on vectors, and where their id operands start.
fn elementwise(op: u16) -> Option<usize> {
    match op {
        109..=116 | 118 | 119 | 124 | 126..=141 | 156..=160 | 162..=205 => Some(2),
        12 => Some(4),
        _ => None,
    }
}

fn math_of(n: u32) -> Option<(MathFn, usize)> {
    Some(match n {
        61 => (MathFn::Sqrt, 1),
        23 => (MathFn::Fabs, 1),
        28 => (MathFn::Fmin, 2),
        27 => (MathFn::Fmax, 2),
        42 => (MathFn::Mad, 3),
        26 => (MathFn::Fma, 3),
        19 => (MathFn::Exp, 1),
        37 => (MathFn::Log, 1),
        57 => (MathFn::Sin, 1),
        14 => (MathFn::Cos, 1),
        25 => (MathFn::Floor, 1),
        12 => (MathFn::Ceil, 1),
        66 => (MathFn::Trunc, 1),
        48 => (MathFn::Pow, 2),
        29 => (MathFn::Fmod, 2),
        // Full precision, native_* and half_* alike.
        62 | 80 | 94 => (MathFn::Tan, 1),
        67 | 81 => (MathFn::Cos, 1),
        69 | 83 => (MathFn::Exp, 1),
        70 | 84 => (MathFn::Exp2, 1),
        20 => (MathFn::Exp2, 1),
        21 | 71 | 85 => (MathFn::Exp10, 1),
        72 | 86 => (MathFn::Log, 1),
        38 | 73 | 87 => (MathFn::Log2, 1),
        39 | 74 | 88 => (MathFn::Log10, 1),
        50 | 75 | 89 => (MathFn::Pow, 2),
        78 | 92 => (MathFn::Sin, 1),
        79 | 93 => (MathFn::Sqrt, 1),
        0 => (MathFn::Acos, 1),
        3 => (MathFn::Asin, 1),
        6 => (MathFn::Atan, 1),
        7 => (MathFn::Atan2, 2),
        11 => (MathFn::Cbrt, 1),
        13 => (MathFn::Copysign, 2),
        15 => (MathFn::Cosh, 1),
        22 => (MathFn::Expm1, 1),
        24 => (MathFn::Fdim, 2),
        32 => (MathFn::Hypot, 2),
        40 => (MathFn::Log1p, 1),
        43 => (MathFn::Maxmag, 2),
        44 => (MathFn::Minmag, 2),
        53 => (MathFn::Rint, 1),
        55 => (MathFn::Round, 1),
        59 => (MathFn::Sinh, 1),
        63 => (MathFn::Tanh, 1),
        _ => return None,
    })
}

impl Builder<'_> {
    fn push(&mut self, ty: Ty, op: Op) -> Value {
        let v = self.k.new_value(ty);
        self.k.blocks[self.cur.0 as usize].insts.push(ir::Inst {
            result: Some(v),
            op,
        });
        v
    }

    fn effect(&mut self, op: Op) {
        self.k.blocks[self.cur.0 as usize]
            .insts
            .push(ir::Inst { result: None, op });
    }

    fn get(&mut self, fr: &Frame, id: u32) -> Result<(Val, u32), Error> {
        if let Some(v) = fr.vals.get(&id) {
            return Ok(v.clone());
        }
        if let Some(v) = self.fnptr_const(id)? {
            return Ok(v);
        }
        if let Some((ty, c)) = self.m.consts.get(&id) {
            if self.m.is_aggregate(*ty) {
                let ty = *ty;
                return Ok((Val::Vec(self.const_aggregate(fr, id, 0)?), ty));
            }
            if let Some((e, n)) = self.m.vector(*ty) {
                let et = self.m.ir_ty(e)?;
                let scalar_parts = match c {
                    ConstVal::Composite(parts) => parts.iter().all(|p| {
                        self.m.consts.get(p).is_some_and(|(t, _)| {
                            self.m.vector(*t).is_none() && !self.m.is_aggregate(*t)
                        })
                    }),
                    _ => true,
                };
                if !scalar_parts || self.m.vector(e).is_some() {
                    return Err(Error::invalid(
                        "a vector constant whose elements are not scalar constants",
                    ));
                }
                let elems = match c {
                    ConstVal::Composite(parts) if parts.len() == n as usize => parts
                        .iter()
                        .map(|p| self.val(fr, *p))
                        .collect::<Result<Vec<_>, _>>()?,
                    ConstVal::Composite(_) => {
                        return Err(Error::invalid(
                            "a vector constant with the wrong number of elements",
                        ))
                    }
                    _ => (0..n).map(|_| self.push(et, Op::Const(0))).collect(),
                };
                if elems.iter().any(|v| self.k.ty(*v) != et) {
                    return Err(Error::invalid(
                        "a vector constant with elements of the wrong type",
                    ));
                }
                return Ok((Val::Vec(elems), *ty));
            }
            let bits = match c {
                ConstVal::Scalar(v) => *v,
                ConstVal::Null => 0,
                ConstVal::Composite(_) => {
                    return Err(Error::unsupported("composite constants used as values"))
                }
            };
            let irt = self.m.ir_ty(*ty)?;
            let bits = if self.m.is_half(*ty) {
                stdlib::half_to_f32_bits(bits)
            } else {
                bits
            };
            return Ok((Val::V(self.push(irt, Op::Const(bits))), *ty));
        }
        if let Some((ty, g)) = self.m.globals.get(&id) {
            let v = match g {
                Global::Data(_, true) if self.m.shared_writable => {
                    return Err(Error::unsupported(
                        "a function linked from another module using its own module's writable program-scope variables, which zeModuleDynamicLink keeps apart (a module program of several inputs shares them)",
                    ))
                }
                Global::Data(o, _) => {
                    Val::V(self.push(Ty::I64, Op::GlobalAddr(self.m.data_base + *o)))
                }
                Global::Local(o) => Val::V(self.push(Ty::I64, Op::LocalAddr(self.m.local_base + *o))),
                Global::Builtin(b) => Val::BVar(*b),
            };
            return Ok((v, *ty));
        }
        Err(Error::invalid(format!(
            "%{id} is used but not defined (or not yet)"
        )))
    }

    fn val(&mut self, fr: &Frame, id: u32) -> Result<Value, Error> {
        match self.get(fr, id)?.0 {
            Val::V(v) => Ok(v),
            Val::Vec(_) => Err(Error::invalid(format!(
                "vector %{id} used where a scalar is expected"
            ))),
            _ => Err(Error::unsupported(format!(
                "built-in variable %{id} used other than by OpLoad + OpCompositeExtract"
            ))),
        }
    }

    /// `ix == k` for an integer index.
    fn index_is(&mut self, ix: Value, k: usize) -> Result<Value, Error> {
        let t = self.k.ty(ix);
        if t.is_float() || t == Ty::Bool {
            return Err(Error::invalid("a vector index is not an integer"));
        }
        let c = self.push(t, Op::Const(k as u64));
        Ok(self.push(Ty::Bool, Op::Cmp(CmpOp::Eq, ix, c)))
    }

    /// Stores `values` one after the other from `addr` (a scalar, or a vector's elements).
    fn store_elems(&mut self, addr: Value, values: &[Value]) -> Result<(), Error> {
        for (k, value) in values.iter().enumerate() {
            let t = self.k.ty(*value);
            if t == Ty::Bool {
                return Err(Error::unsupported("stores of booleans"));
            }
            let a = self.add_const(addr, k as u64 * u64::from(t.bytes()));
            self.effect(Op::Store {
                addr: a,
                value: *value,
            });
        }
        Ok(())
    }

    /// `addr + off` (just `addr` for 0).
    fn add_const(&mut self, addr: Value, off: u64) -> Value {
        if off == 0 {
            return addr;
        }
        let c = self.push(Ty::I64, Op::Const(off));
        self.push(Ty::I64, Op::Bin(BinOp::Add, addr, c))
    }

    /// The scalar values of `id`: itself, or a vector's elements.
    fn elems(&mut self, fr: &Frame, id: u32) -> Result<(Vec<Value>, u32), Error> {
        match self.get(fr, id)? {
            (Val::V(v), t) => Ok((vec![v], t)),
            (Val::Vec(v), t) => Ok((v, t)),
            _ => Err(Error::unsupported(format!(
                "built-in variable %{id} used other than by OpLoad + OpCompositeExtract"
            ))),
        }
    }

    /// The IR types a value of SPIR-V type `ty` is made of (one per vector element).
    fn value_types(&self, ty: u32) -> Result<Vec<Ty>, Error> {
        if self.m.is_aggregate(ty) {
            return self.aggregate_types(ty);
        }
        match self.m.vector(ty) {
            Some((e, n)) => Ok(vec![self.m.ir_ty(e)?; n as usize]),
            None => Ok(vec![self.m.ir_ty(ty)?]),
        }
    }

    /// `vals` as a value of SPIR-V type `ty`.
    fn pack(&self, ty: u32, mut vals: Vec<Value>) -> Val {
        if self.m.vector(ty).is_some() || self.m.is_aggregate(ty) || vals.len() != 1 {
            Val::Vec(vals)
        } else {
            Val::V(vals.remove(0))
        }
    }

    fn block(&self, fr: &Frame, label: u32) -> Result<BlockId, Error> {
        fr.labels.get(&label).copied().ok_or_else(|| {
            Error::invalid(format!(
                "branch to %{label}, which is not a block of the function"
            ))
        })
    }

    /// Arguments of the edge from SPIR-V block `from` to block `to`.
    fn edge(&mut self, fr: &Frame, from: u32, to: u32) -> Result<(BlockId, Vec<Value>), Error> {
        let target = self.block(fr, to)?;
        let mut args = Vec::new();
        for phi in fr.phis.get(&to).map(Vec::as_slice).unwrap_or(&[]) {
            let pairs = &phi.ops[2..];
            let v = pairs
                .chunks(2)
                .find(|p| p.len() == 2 && p[1] == from)
                .map(|p| p[0])
                .ok_or_else(|| {
                    Error::invalid(format!(
                        "OpPhi %{} has no value for predecessor %{from}",
                        phi.ops[1]
                    ))
                })?;
            let (vals, _) = self.elems(fr, v)?;
            let expect = self.value_types(phi.ops[0])?;
            if vals.len() != expect.len()
                || vals.iter().zip(&expect).any(|(v, t)| self.k.ty(*v) != *t)
            {
                return Err(Error::invalid(format!(
                    "OpPhi %{}: operand of the wrong type",
                    phi.ops[1]
                )));
            }
            args.extend(vals);
        }
        Ok((target, args))
    }

    /// Lowers function `fid` with `args` into the kernel; returns its entry block. Returns jump
    /// to `ret` (with the value as its parameter), or end the work-item when `ret` is None.
    fn inline(
        &mut self,
        fid: u32,
        args: Vec<(Val, u32)>,
        ret: Option<BlockId>,
    ) -> Result<BlockId, Error> {
        let m = self.m;
        let f = m
            .funcs
            .get(&fid)
            .ok_or_else(|| Error::invalid(format!("call to %{fid}, which is not a function")))?;
        if f.blocks.is_empty() {
            if let Some(name) = m.imports.get(&fid) {
                let found = self
                    .libs
                    .iter()
                    .find_map(|l| l.exports.get(name).map(|id| (l, *id)));
                let Some((lib, id)) = found else {
                    return Err(Error::unsupported(format!(
                        "call to `{name}`, which the module imports: link it with a module exporting it (zeModuleDynamicLink)"
                    )));
                };
                let saved = self.m;
                self.m = lib;
                let r = self.inline(id, args, ret);
                self.m = saved;
                return r.map_err(|e| e.context(format!("`{name}` (linked)")));
            }
            return Err(Error::unsupported(format!(
                "call to `{}`, which is declared but not defined in the module",
                m.name(fid)
            )));
        }
        let key = (m as *const Module as usize, fid);
        if self.stack.contains(&key) {
            return Err(Error::invalid(format!(
                "recursive call to `{}`",
                m.name(fid)
            )));
        }
        if self.stack.len() >= MAX_DEPTH {
            return Err(Error::unsupported("calls nested more than 64 deep"));
        }
        if args.len() != f.params.len() {
            return Err(Error::invalid(format!(
                "call to `{}` with the wrong number of arguments",
                m.name(fid)
            )));
        }
        self.stack.push(key);
        let mut fr = Frame {
            vals: HashMap::new(),
            labels: HashMap::new(),
            phis: HashMap::new(),
            ret,
        };
        for ((pid, pty), (a, _)) in f.params.iter().zip(args) {
            fr.vals.insert(*pid, (a, *pty));
        }
        for (label, insts) in &f.blocks {
            let b = self.k.new_block();
            if fr.labels.insert(*label, b).is_some() {
                return Err(Error::invalid(format!("block %{label} defined twice")));
            }
            let phis: Vec<Inst> = insts.iter().filter(|i| i.op == 245).cloned().collect();
            for p in &phis {
                let types = self.value_types(p.w(0)?)?;
                let vs: Vec<Value> = types.iter().map(|t| self.k.new_value(*t)).collect();
                self.k.blocks[b.0 as usize].params.extend(&vs);
                fr.vals.insert(p.w(1)?, (self.pack(p.w(0)?, vs), p.w(0)?));
            }
            fr.phis.insert(*label, phis);
        }
        let entry = fr.labels[&f.blocks[0].0];
        for &bi in &dominance_order(&f.blocks) {
            let (label, insts) = &f.blocks[bi];
            self.cur = fr.labels[label];
            let mut ended = false;
            for i in insts {
                if ended {
                    return Err(Error::invalid(format!(
                        "{} after the terminator of block %{label}",
                        op_name(i.op)
                    )));
                }
                ended = self.inst(&mut fr, *label, i)?;
                if self.k.types.len() > MAX_INSTS {
                    return Err(Error::unsupported(
                        "kernels of more than a million instructions after inlining",
                    ));
                }
            }
            if !ended {
                return Err(Error::invalid(format!("block %{label} has no terminator")));
            }
        }
        self.stack.pop();
        Ok(entry)
    }

    fn set_term(&mut self, t: Term) {
        self.k.blocks[self.cur.0 as usize].term = t;
    }

    /// Lowers one instruction; true when it ended the block.
    fn inst(&mut self, fr: &mut Frame, label: u32, i: &Inst) -> Result<bool, Error> {
        let m = self.m;
        let op = i.op;
        // Result type and id of value instructions.
        let rt = || i.w(0);
        let rid = || i.w(1);
        let def = |fr: &mut Frame, v: Val, ty: u32| -> Result<(), Error> {
            fr.vals.insert(i.w(1)?, (v, ty));
            Ok(())
        };
        if let Some(ended) = self.half_inst(fr, label, i)? {
            return Ok(ended);
        }
        if let Some(ended) = self.dpcpp_inst(fr, i)? {
            return Ok(ended);
        }
        if let Some(ended) = self.spirv_int_inst(fr, i)? {
            return Ok(ended);
        }
        if matches!(
            op,
            fnptr::CONSTANT_FUNCTION_POINTER | fnptr::FUNCTION_POINTER_CALL
        ) {
            self.fnptr_inst(fr, i)?;
            return Ok(false);
        }
        if op == 12 {
            if let Some(ended) = self.std_whole(fr, i)? {
                return Ok(ended);
            }
        }
        if (86..=107).contains(&op) {
            return self.image_inst(fr, i).map(|()| false);
        }
        if matches!(op, 80..=82 | 169) && self.aggregate_inst(fr, i)?.is_some() {
            return Ok(false);
        }
        if let Some(first) = elementwise(op) {
            if let Some((e, n)) = i.ops.first().and_then(|t| m.vector(*t)) {
                return self.per_element(fr, label, i, first, e, n);
            }
        }
        match op {
            0 | 1 | 5 | 8 | 245 | 246 | 247 | 256 | 257 | 317 | 330 => {
                if op == 1 {
                    let vs = self
                        .value_types(rt()?)?
                        .into_iter()
                        .map(|t| self.push(t, Op::Const(0)))
                        .collect();
                    let v = self.pack(rt()?, vs);
                    def(fr, v, rt()?)?;
                }
            }
            59 => {
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
            61 => {
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
            62 => {
                let addr = self.val(fr, i.w(0)?)?;
                self.pointer(addr, op)?;
                let (values, vty) = self.elems(fr, i.w(1)?)?;
                if m.is_aggregate(vty) {
                    self.store_aggregate(addr, vty, &values)?;
                } else {
                    self.store_elems(addr, &values)?;
                }
            }
            63 | 64 => {
                let dst = self.val(fr, i.w(0)?)?;
                let src = self.val(fr, i.w(1)?)?;
                self.pointer(dst, op)?;
                self.pointer(src, op)?;
                let size = if op == 64 {
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
            65 | 66 | 67 | 70 => {
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
                if op == 67 || op == 70 {
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
            81 => {
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
            82 => {
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
            80 | 79 => {
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
                let parts = if op == 80 {
                    &i.ops[2..]
                } else {
                    &i.ops[2..i.ops.len().min(4)]
                };
                for p in parts {
                    all.extend(self.elems(fr, *p)?.0);
                }
                let v: Vec<Value> = if op == 80 {
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
            78 => {
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
            148 => {
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
            142 => {
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
            154 | 155 => {
                let (v, _) = self.elems(fr, i.w(2)?)?;
                self.check(Ty::Bool, &v, false, op)?;
                let bop = if op == 154 { BinOp::Or } else { BinOp::And };
                let mut acc = v[0];
                for e in &v[1..] {
                    acc = self.push(Ty::Bool, Op::Bin(bop, acc, *e));
                }
                def(fr, Val::V(acc), rt()?)?;
            }
            77 => {
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
            83 | 121 | 122 | 123 => {
                let (v, _) = self.get(fr, i.w(2)?)?;
                def(fr, v, rt()?)?;
            }
            109..=115 | 117 | 120 | 124 => {
                let x = self.val(fr, i.w(2)?)?;
                let to = m.ir_ty(rt()?)?;
                let from = self.k.ty(x);
                let cop = match op {
                    109 => ConvOp::FToU,
                    110 => ConvOp::FToS,
                    111 => ConvOp::SToF,
                    112 => ConvOp::UToF,
                    113 | 117 | 120 => ConvOp::UResize,
                    114 => ConvOp::SResize,
                    115 => ConvOp::FResize,
                    _ => {
                        if from.bytes() != to.bytes() || from == Ty::Bool {
                            return Err(Error::invalid(
                                "OpBitcast between types of different sizes",
                            ));
                        }
                        ConvOp::Bitcast
                    }
                };
                let ok = match cop {
                    ConvOp::FToU | ConvOp::FToS => {
                        from.is_float() && !to.is_float() && to != Ty::Bool
                    }
                    ConvOp::SToF | ConvOp::UToF => {
                        !from.is_float() && from != Ty::Bool && to.is_float()
                    }
                    ConvOp::FResize => from.is_float() && to.is_float(),
                    ConvOp::UResize | ConvOp::SResize => {
                        !from.is_float() && !to.is_float() && from != Ty::Bool && to != Ty::Bool
                    }
                    _ => true,
                };
                if !ok {
                    return Err(Error::invalid(format!(
                        "{}: operand of the wrong type",
                        op_name(op)
                    )));
                }
                let v = if from == to && cop != ConvOp::Bitcast {
                    x
                } else {
                    self.push(to, Op::Conv(cop, x))
                };
                def(fr, Val::V(v), rt()?)?;
            }
            205 => {
                let x = self.val(fr, i.w(2)?)?;
                let ty = m.ir_ty(rt()?)?;
                if ty.is_float() || ty == Ty::Bool || self.k.ty(x) != ty {
                    return Err(Error::invalid("OpBitCount of a non-integer"));
                }
                let v = self.push(ty, Op::Un(UnOp::Popcnt, x));
                def(fr, Val::V(v), rt()?)?;
            }
            126 | 127 | 200 | 168 => {
                let x = self.val(fr, i.w(2)?)?;
                let ty = m.ir_ty(rt()?)?;
                let u = match op {
                    126 => UnOp::Neg,
                    127 => UnOp::FNeg,
                    _ => UnOp::Not,
                };
                self.check(ty, &[x], u == UnOp::FNeg, op)?;
                let v = self.push(ty, Op::Un(u, x));
                def(fr, Val::V(v), rt()?)?;
            }
            128..=140 | 166 | 167 | 194..=199 => {
                let bop = bin_of(op)
                    .ok_or_else(|| Error::unsupported(format!("instruction {}", op_name(op))))?;
                let a = self.val(fr, i.w(2)?)?;
                let b = self.val(fr, i.w(3)?)?;
                let ty = m.ir_ty(rt()?)?;
                let float = matches!(
                    bop,
                    BinOp::FAdd | BinOp::FSub | BinOp::FMul | BinOp::FDiv | BinOp::FRem
                );
                let shift = matches!(bop, BinOp::Shl | BinOp::LShr | BinOp::AShr);
                if shift {
                    self.check(ty, &[a], false, op)?;
                    if self.k.ty(b).is_float() || self.k.ty(b) == Ty::Bool {
                        return Err(Error::invalid(format!(
                            "{}: shift amount is not an integer",
                            op_name(op)
                        )));
                    }
                } else {
                    self.check(ty, &[a, b], float, op)?;
                }
                if ty == Ty::Bool && !matches!(bop, BinOp::And | BinOp::Or | BinOp::Xor) {
                    return Err(Error::invalid(format!("{} on booleans", op_name(op))));
                }
                let v = self.push(ty, Op::Bin(bop, a, b));
                def(fr, Val::V(v), rt()?)?;
            }
            156 | 157 => {
                let x = self.val(fr, i.w(2)?)?;
                let t = self.k.ty(x);
                if !t.is_float() {
                    return Err(Error::invalid(format!("{} of a non-float", op_name(op))));
                }
                let v = if op == 156 {
                    self.push(Ty::Bool, Op::Cmp(CmpOp::FUnord, x, x))
                } else {
                    let a = self.push(t, Op::Math(MathFn::Fabs, vec![x]));
                    let inf = if t == Ty::F32 {
                        u64::from(f32::INFINITY.to_bits())
                    } else {
                        f64::INFINITY.to_bits()
                    };
                    let c = self.push(t, Op::Const(inf));
                    self.push(Ty::Bool, Op::Cmp(CmpOp::FEq, a, c))
                };
                def(fr, Val::V(v), rt()?)?;
            }
            162..=165 | 170..=191 => {
                let c = cmp_of(op)
                    .ok_or_else(|| Error::unsupported(format!("instruction {}", op_name(op))))?;
                let a = self.val(fr, i.w(2)?)?;
                let b = self.val(fr, i.w(3)?)?;
                let t = self.k.ty(a);
                let float = op >= 180 || op == 162 || op == 163;
                self.check(t, &[a, b], float, op)?;
                if (op == 164 || op == 165) != (t == Ty::Bool) && t == Ty::Bool {
                    return Err(Error::invalid(format!("{} on booleans", op_name(op))));
                }
                let v = self.push(Ty::Bool, Op::Cmp(c, a, b));
                def(fr, Val::V(v), rt()?)?;
            }
            169 => {
                let c = self.val(fr, i.w(2)?)?;
                let a = self.val(fr, i.w(3)?)?;
                let b = self.val(fr, i.w(4)?)?;
                let ty = m.ir_ty(rt()?)?;
                if self.k.ty(c) != Ty::Bool {
                    return Err(Error::invalid("OpSelect condition is not a boolean"));
                }
                if self.k.ty(a) != ty || self.k.ty(b) != ty {
                    return Err(Error::invalid("OpSelect operands of the wrong type"));
                }
                // DPC++ selects with a constant condition around every id (`OpSelect %true
                // %id 0`): the chosen value itself, so that what follows sees it (the
                // lockstep plan's stride analysis among them).
                let v = match m.consts.get(&i.w(2)?) {
                    Some((_, ConstVal::Scalar(k))) => {
                        if *k != 0 {
                            a
                        } else {
                            b
                        }
                    }
                    _ => self.push(ty, Op::Select(c, a, b)),
                };
                def(fr, Val::V(v), rt()?)?;
            }
            // Execution scope Subgroup: `sub_group_barrier`.
            224 if matches!(m.const_scalar(i.w(0)?), Ok(3)) => self.effect(Op::SubgroupBarrier),
            224 => self.effect(Op::Barrier),
            259 => self.async_copy(fr, i)?,
            // `wait_group_events`: every work-item's share of the copies is done once all of
            // them are past a barrier.
            260 if matches!(m.const_scalar(i.w(0)?), Ok(2)) => self.effect(Op::Barrier),
            260 => return Err(Error::unsupported("OpGroupWaitEvents outside Workgroup scope")),
            261..=271 | dpcpp::OP_GROUP_IMUL_KHR..=dpcpp::OP_GROUP_LOGICAL_XOR_KHR => {
                self.group_op(fr, i)?
            }
            5571..=5574 => self.shuffle_op(fr, i)?,
            333..=366 | nonuniform::ROTATE_KHR => self.nonuniform_op(fr, i)?,
            225 => {}
            227..=229 | 318 | 319 | 5614 | 5615 | 6035 if self.atomic_ext(fr, i)? => {}
            227..=242 => {
                let (addr_id, value_ix) = match op {
                    228 => (i.w(0)?, 3),
                    _ => (i.w(2)?, 5),
                };
                let addr = self.val(fr, addr_id)?;
                self.pointer(addr, op)?;
                if op == 228 {
                    let v = self.val(fr, i.w(value_ix)?)?;
                    self.int_check(v, op)?;
                    self.effect(Op::AtomicStore(addr, v));
                    return Ok(false);
                }
                let ty = m.ir_ty(rt()?)?;
                if !matches!(ty, Ty::I32 | Ty::I64) {
                    return Err(Error::unsupported(format!("{} on {ty:?}", op_name(op))));
                }
                let v = match op {
                    227 => self.push(ty, Op::AtomicLoad(addr)),
                    230 | 231 => {
                        let value = self.val(fr, i.w(6)?)?;
                        let cmp = self.val(fr, i.w(7)?)?;
                        self.check(ty, &[value, cmp], false, op)?;
                        self.push(ty, Op::AtomicCas(addr, cmp, value))
                    }
                    232 | 233 => {
                        let one = self.push(ty, Op::Const(1));
                        self.push(ty, Op::Atomic(atomic_of(op).expect("known"), addr, one))
                    }
                    _ => {
                        let a = atomic_of(op).ok_or_else(|| {
                            Error::unsupported(format!("instruction {}", op_name(op)))
                        })?;
                        let value = self.val(fr, i.w(5)?)?;
                        self.check(ty, &[value], false, op)?;
                        self.push(ty, Op::Atomic(a, addr, value))
                    }
                };
                def(fr, Val::V(v), rt()?)?;
            }
            12 => {
                if !m.opencl_std.contains(&i.w(2)?) {
                    return Err(Error::unsupported(
                        "extended instructions of sets other than OpenCL.std",
                    ));
                }
                let n = i.w(3)?;
                if n == 187 {
                    // select(a, b, c): c ? b : a; for vector elements, c's sign bit.
                    let (Some(&a), Some(&b), Some(&c), 7) =
                        (i.ops.get(4), i.ops.get(5), i.ops.get(6), i.ops.len())
                    else {
                        return Err(Error::invalid("OpenCL.std select needs 3 operands"));
                    };
                    let ty = m.ir_ty(rt()?)?;
                    let (a, b, c) = (self.val(fr, a)?, self.val(fr, b)?, self.val(fr, c)?);
                    self.check(ty, &[a, b], ty.is_float(), op)?;
                    let ct = self.k.ty(c);
                    if ct.is_float() || ct == Ty::Bool {
                        return Err(Error::invalid(
                            "OpenCL.std select: the condition is not an integer",
                        ));
                    }
                    let zero = self.push(ct, Op::Const(0));
                    let cmp = if self.lane { CmpOp::SLt } else { CmpOp::Ne };
                    let cond = self.push(Ty::Bool, Op::Cmp(cmp, c, zero));
                    let v = self.push(ty, Op::Select(cond, b, a));
                    def(fr, Val::V(v), rt()?)?;
                    return Ok(false);
                }
                if let Some(v) = self.derived(fr, i, n)? {
                    def(fr, Val::V(v), rt()?)?;
                    return Ok(false);
                }
                if let Some(v) = self.std_scalar(fr, i, n)? {
                    def(fr, Val::V(v), rt()?)?;
                    return Ok(false);
                }
                if let Some(cmp) = int_min_max(n) {
                    // s_max, u_max, s_min, u_min: a comparison and a select.
                    let ty = m.ir_ty(rt()?)?;
                    let (Some(&x), Some(&y), 6) = (i.ops.get(4), i.ops.get(5), i.ops.len()) else {
                        return Err(Error::invalid(format!(
                            "OpenCL.std function {n} needs 2 operands"
                        )));
                    };
                    let (a, b) = (self.val(fr, x)?, self.val(fr, y)?);
                    self.check(ty, &[a, b], false, op)?;
                    if ty == Ty::Bool {
                        return Err(Error::invalid("integer min/max of booleans"));
                    }
                    let c = self.push(Ty::Bool, Op::Cmp(cmp, a, b));
                    let v = self.push(ty, Op::Select(c, a, b));
                    def(fr, Val::V(v), rt()?)?;
                    return Ok(false);
                }
                let (f, arity) = math_of(n)
                    .ok_or_else(|| Error::unsupported(format!("OpenCL.std function {n}")))?;
                let ty = m.ir_ty(rt()?)?;
                let args = i.ops[4..]
                    .iter()
                    .map(|a| self.val(fr, *a))
                    .collect::<Result<Vec<_>, _>>()?;
                if args.len() != arity {
                    return Err(Error::invalid(format!(
                        "OpenCL.std function {n} with {} operands",
                        args.len()
                    )));
                }
                self.check(ty, &args, true, op)?;
                let v = self.push(ty, Op::Math(f, args));
                def(fr, Val::V(v), rt()?)?;
            }
            57 if self.intrinsic(fr, i)? => {}
            57 => {
                let fid = i.w(2)?;
                let args = i.ops[3..]
                    .iter()
                    .map(|a| self.get(fr, *a))
                    .collect::<Result<Vec<_>, _>>()?;
                let ret_ty = rt()?;
                let cont = self.k.new_block();
                let mut result = None;
                if m.ty(ret_ty)? != &Type::Void {
                    let vs: Vec<Value> = self
                        .value_types(ret_ty)?
                        .into_iter()
                        .map(|t| self.k.new_value(t))
                        .collect();
                    self.k.blocks[cont.0 as usize].params.extend(&vs);
                    result = Some(self.pack(ret_ty, vs));
                }
                let from = self.cur;
                let entry = self.inline(fid, args, Some(cont))?;
                self.k.blocks[from.0 as usize].term = Term::Jump(entry, vec![]);
                self.cur = cont;
                if let Some(p) = result {
                    fr.vals.insert(rid()?, (p, ret_ty));
                }
            }
            249 => {
                let (t, a) = self.edge(fr, label, i.w(0)?)?;
                self.set_term(Term::Jump(t, a));
                return Ok(true);
            }
            250 => {
                let c = self.val(fr, i.w(0)?)?;
                if self.k.ty(c) != Ty::Bool {
                    return Err(Error::invalid(
                        "OpBranchConditional condition is not a boolean",
                    ));
                }
                let t = self.edge(fr, label, i.w(1)?)?;
                let f = self.edge(fr, label, i.w(2)?)?;
                self.set_term(Term::Branch(c, t, f));
                return Ok(true);
            }
            251 => {
                let sel = self.val(fr, i.w(0)?)?;
                let st = self.k.ty(sel);
                if st.is_float() || st == Ty::Bool {
                    return Err(Error::invalid("OpSwitch selector is not an integer"));
                }
                // A switch passes no block arguments: an edge into a block with OpPhi goes
                // through a block of its own that jumps there with them.
                let via = |b: &mut Self, (t, a): (BlockId, Vec<Value>)| {
                    if a.is_empty() {
                        return t;
                    }
                    let hop = b.k.new_block();
                    b.k.blocks[hop.0 as usize].term = Term::Jump(t, a);
                    hop
                };
                let de = self.edge(fr, label, i.w(1)?)?;
                let d = via(self, de);
                let step = if st == Ty::I64 { 3 } else { 2 };
                let mut cases = Vec::new();
                for c in i.ops[2..].chunks(step) {
                    if c.len() != step {
                        return Err(Error::invalid("OpSwitch with a truncated case"));
                    }
                    let mut v = u64::from(c[0]);
                    if step == 3 {
                        v |= u64::from(c[1]) << 32;
                    }
                    let e = self.edge(fr, label, c[step - 1])?;
                    cases.push((v, via(self, e)));
                }
                self.set_term(Term::Switch(sel, d, cases));
                return Ok(true);
            }
            253 | 254 => {
                let args = if op == 254 {
                    self.elems(fr, i.w(0)?)?.0
                } else {
                    vec![]
                };
                match fr.ret {
                    Some(r) => {
                        let want = self.k.blocks[r.0 as usize].params.clone();
                        if want.len() != args.len()
                            || want
                                .iter()
                                .zip(&args)
                                .any(|(w, a)| self.k.ty(*w) != self.k.ty(*a))
                        {
                            return Err(Error::invalid(
                                "return value does not match the function type",
                            ));
                        }
                        self.set_term(Term::Jump(r, args));
                    }
                    None => self.set_term(Term::Return),
                }
                return Ok(true);
            }
            252 | 255 => {
                self.set_term(Term::Unreachable);
                return Ok(true);
            }
            _ => return Err(Error::unsupported(format!("instruction {}", op_name(op)))),
        }
        Ok(false)
    }

    /// OpenCL.std functions made of other operations: reciprocals and divisions, `rsqrt`,
    /// `fclamp`, `mix`, `step`, `degrees`, `radians`, `sign`, and the integer `abs`, `clamp`,
    /// `clz`, `mul_hi`, `rotate`, `mad24`, `mul24`. `None`: not one of them.
    fn derived(&mut self, fr: &Frame, i: &Inst, n: u32) -> Result<Option<Value>, Error> {
        let arity = match n {
            56 | 77 | 91 | 76 | 90 | 96 | 100 | 103 | 141 | 201 | 151 => 1,
            68 | 82 | 101 | 160 | 203 | 161 | 169 | 170 => 2,
            95 | 99 | 149 | 150 | 167 | 168 => 3,
            _ => return Ok(None),
        };
        let ty = self.m.ir_ty(i.w(0)?)?;
        let ids = i.ops.get(4..).unwrap_or(&[]);
        if ids.len() != arity {
            return Err(Error::invalid(format!(
                "OpenCL.std function {n} needs {arity} operands"
            )));
        }
        let a: Vec<Value> = ids
            .iter()
            .map(|x| self.val(fr, *x))
            .collect::<Result<_, _>>()?;
        let float = ty.is_float();
        let int_fn = matches!(
            n,
            141 | 201 | 151 | 160 | 203 | 161 | 169 | 170 | 149 | 150 | 167 | 168
        );
        if float == int_fn || ty == Ty::Bool {
            return Err(Error::invalid(format!(
                "OpenCL.std function {n} of the wrong type"
            )));
        }
        self.check(ty, &a, float, i.op)?;
        let fconst = |b: &mut Self, x: f64| {
            let bits = if ty == Ty::F32 {
                u64::from((x as f32).to_bits())
            } else {
                x.to_bits()
            };
            b.push(ty, Op::Const(bits))
        };
        let bin = |b: &mut Self, o: BinOp, x: Value, y: Value| b.push(ty, Op::Bin(o, x, y));
        let v = match n {
            // rsqrt, half_rsqrt, native_rsqrt
            56 | 77 | 91 => {
                let one = fconst(self, 1.0);
                let r = self.push(ty, Op::Math(MathFn::Sqrt, vec![a[0]]));
                bin(self, BinOp::FDiv, one, r)
            }
            // half_recip, native_recip
            76 | 90 => {
                let one = fconst(self, 1.0);
                bin(self, BinOp::FDiv, one, a[0])
            }
            // half_divide, native_divide
            68 | 82 => bin(self, BinOp::FDiv, a[0], a[1]),
            96 | 100 => {
                let f = if n == 96 {
                    180.0 / std::f64::consts::PI
                } else {
                    std::f64::consts::PI / 180.0
                };
                let c = fconst(self, f);
                bin(self, BinOp::FMul, a[0], c)
            }
            103 => {
                // sign: 1, -1, or x itself for ±0; 0 for NaN
                let (zero, one, minus) = (fconst(self, 0.0), fconst(self, 1.0), fconst(self, -1.0));
                let nan = self.push(Ty::Bool, Op::Cmp(CmpOp::FUnord, a[0], a[0]));
                let x = self.push(ty, Op::Select(nan, zero, a[0]));
                let neg = self.push(Ty::Bool, Op::Cmp(CmpOp::FLt, a[0], zero));
                let x = self.push(ty, Op::Select(neg, minus, x));
                let pos = self.push(Ty::Bool, Op::Cmp(CmpOp::FGt, a[0], zero));
                self.push(ty, Op::Select(pos, one, x))
            }
            95 => {
                let lo = self.push(ty, Op::Math(MathFn::Fmax, vec![a[0], a[1]]));
                self.push(ty, Op::Math(MathFn::Fmin, vec![lo, a[2]]))
            }
            99 => {
                let d = bin(self, BinOp::FSub, a[1], a[0]);
                let m = bin(self, BinOp::FMul, d, a[2]);
                bin(self, BinOp::FAdd, a[0], m)
            }
            101 => {
                // step(edge, x): x < edge ? 0 : 1
                let (zero, one) = (fconst(self, 0.0), fconst(self, 1.0));
                let lt = self.push(Ty::Bool, Op::Cmp(CmpOp::FLt, a[1], a[0]));
                self.push(ty, Op::Select(lt, zero, one))
            }
            141 => {
                let zero = self.push(ty, Op::Const(0));
                let neg = self.push(Ty::Bool, Op::Cmp(CmpOp::SLt, a[0], zero));
                let m = self.push(ty, Op::Un(UnOp::Neg, a[0]));
                self.push(ty, Op::Select(neg, m, a[0]))
            }
            201 => a[0],
            151 => self.push(ty, Op::Un(UnOp::Clz, a[0])),
            160 => bin(self, BinOp::SMulHi, a[0], a[1]),
            203 => bin(self, BinOp::UMulHi, a[0], a[1]),
            161 => bin(self, BinOp::Rotl, a[0], a[1]),
            169 | 170 => bin(self, BinOp::Mul, a[0], a[1]),
            167 | 168 => {
                let m = bin(self, BinOp::Mul, a[0], a[1]);
                bin(self, BinOp::Add, m, a[2])
            }
            _ => {
                // s_clamp (149), u_clamp (150): min(max(x, lo), hi)
                let (gt, lt) = if n == 149 {
                    (CmpOp::SGt, CmpOp::SLt)
                } else {
                    (CmpOp::UGt, CmpOp::ULt)
                };
                let c = self.push(Ty::Bool, Op::Cmp(gt, a[0], a[1]));
                let x = self.push(ty, Op::Select(c, a[0], a[1]));
                let c = self.push(Ty::Bool, Op::Cmp(lt, x, a[2]));
                self.push(ty, Op::Select(c, x, a[2]))
            }
        };
        Ok(Some(v))
    }

    /// Lowers a vector instruction as one scalar instruction per element: each vector operand
    /// is replaced by its element (under a temporary id), the scalar path lowers it, and the
    /// results make the vector.
    fn per_element(
        &mut self,
        fr: &mut Frame,
        label: u32,
        i: &Inst,
        first: usize,
        elem: u32,
        n: u32,
    ) -> Result<bool, Error> {
        const LANE: u32 = 0xF000_0000;
        if self.m.vector(elem).is_some() || self.lane {
            return Err(Error::invalid("a vector of vectors"));
        }
        let mut operands = Vec::new();
        for &id in i.ops.get(first..).unwrap_or(&[]) {
            match self.get(fr, id)? {
                (Val::Vec(v), ty) => {
                    let (e, m) = self
                        .m
                        .vector(ty)
                        .ok_or_else(|| Error::invalid("a vector value of a non-vector type"))?;
                    if m != n || v.len() != n as usize {
                        return Err(Error::invalid(format!(
                            "{}: vectors of different sizes",
                            op_name(i.op)
                        )));
                    }
                    operands.push(Some((v, e)));
                }
                _ => operands.push(None),
            }
        }
        let mut out = Vec::new();
        for k in 0..n as usize {
            let mut ops = i.ops.clone();
            ops[0] = elem;
            ops[1] = LANE;
            for (j, o) in operands.iter().enumerate() {
                if let Some((v, e)) = o {
                    let id = LANE + 1 + j as u32;
                    fr.vals.insert(id, (Val::V(v[k]), *e));
                    ops[first + j] = id;
                }
            }
            self.lane = true;
            let r = self.inst(fr, label, &Inst { op: i.op, ops });
            self.lane = false;
            for j in 0..operands.len() {
                fr.vals.remove(&(LANE + 1 + j as u32));
            }
            r?;
            match fr.vals.remove(&LANE) {
                Some((Val::V(x), _)) => out.push(x),
                _ => return Err(Error::internal("an element-wise instruction made no value")),
            }
        }
        fr.vals.insert(i.w(1)?, (Val::Vec(out), i.w(0)?));
        Ok(false)
    }

    fn check(&self, ty: Ty, vals: &[Value], float: bool, op: u16) -> Result<(), Error> {
        if ty.is_float() != float || vals.iter().any(|v| self.k.ty(*v) != ty) {
            return Err(Error::invalid(format!(
                "{}: operands of the wrong type",
                op_name(op)
            )));
        }
        Ok(())
    }

    /// Atomics the integer path does not take: the flag instructions, and loads, stores,
    /// exchanges, additions, minima and maxima of floats (through their bit patterns; the
    /// arithmetic ones as a compare-exchange loop). False when `i` is an integer atomic.
    fn atomic_ext(&mut self, fr: &mut Frame, i: &Inst) -> Result<bool, Error> {
        let op = i.op;
        let float_of = |b: &Self, v: Value| -> Result<Option<Ty>, Error> {
            match b.k.ty(v) {
                t @ (Ty::F32 | Ty::F64) => Ok(Some(t)),
                _ => Ok(None),
            }
        };
        let bits_of = |t: Ty| if t == Ty::F32 { Ty::I32 } else { Ty::I64 };
        match op {
            318 => {
                let addr = self.val(fr, i.w(2)?)?;
                self.pointer(addr, op)?;
                let one = self.push(Ty::I32, Op::Const(1));
                let old = self.push(Ty::I32, Op::Atomic(AtomicOp::Xchg, addr, one));
                let zero = self.push(Ty::I32, Op::Const(0));
                let set = self.push(Ty::Bool, Op::Cmp(CmpOp::Ne, old, zero));
                fr.vals.insert(i.w(1)?, (Val::V(set), i.w(0)?));
                return Ok(true);
            }
            319 => {
                let addr = self.val(fr, i.w(0)?)?;
                self.pointer(addr, op)?;
                let zero = self.push(Ty::I32, Op::Const(0));
                self.effect(Op::AtomicStore(addr, zero));
                return Ok(true);
            }
            228 => {
                let addr = self.val(fr, i.w(0)?)?;
                self.pointer(addr, op)?;
                let v = self.val(fr, i.w(3)?)?;
                let Some(t) = float_of(self, v)? else {
                    return Ok(false);
                };
                let bits = self.push(bits_of(t), Op::Conv(ConvOp::Bitcast, v));
                self.effect(Op::AtomicStore(addr, bits));
                return Ok(true);
            }
            _ => {}
        }
        let ty = self.m.ir_ty(i.w(0)?)?;
        if !ty.is_float() {
            if matches!(op, 227..=229) {
                return Ok(false);
            }
            return Err(Error::unsupported(format!("{} on {ty:?}", op_name(op))));
        }
        let it = bits_of(ty);
        let addr = self.val(fr, i.w(2)?)?;
        self.pointer(addr, op)?;
        let result = match op {
            227 => {
                let bits = self.push(it, Op::AtomicLoad(addr));
                self.push(ty, Op::Conv(ConvOp::Bitcast, bits))
            }
            229 => {
                let v = self.val(fr, i.w(5)?)?;
                self.check(ty, &[v], true, op)?;
                let bits = self.push(it, Op::Conv(ConvOp::Bitcast, v));
                let old = self.push(it, Op::Atomic(AtomicOp::Xchg, addr, bits));
                self.push(ty, Op::Conv(ConvOp::Bitcast, old))
            }
            _ => {
                let x = self.val(fr, i.w(5)?)?;
                self.check(ty, &[x], true, op)?;
                let first = self.push(it, Op::AtomicLoad(addr));
                let head = self.k.new_block();
                let seen = self.k.new_value(it);
                self.k.blocks[head.0 as usize].params.push(seen);
                self.set_term(Term::Jump(head, vec![first]));
                self.cur = head;
                let old = self.push(ty, Op::Conv(ConvOp::Bitcast, seen));
                let new = match op {
                    6035 => self.push(ty, Op::Bin(BinOp::FAdd, old, x)),
                    5614 => self.push(ty, Op::Math(MathFn::Fmin, vec![old, x])),
                    _ => self.push(ty, Op::Math(MathFn::Fmax, vec![old, x])),
                };
                let new = self.push(it, Op::Conv(ConvOp::Bitcast, new));
                let got = self.push(it, Op::AtomicCas(addr, seen, new));
                let same = self.push(Ty::Bool, Op::Cmp(CmpOp::Eq, got, seen));
                let exit = self.k.new_block();
                self.set_term(Term::Branch(same, (exit, vec![]), (head, vec![got])));
                self.cur = exit;
                old
            }
        };
        fr.vals.insert(i.w(1)?, (Val::V(result), i.w(0)?));
        Ok(true)
    }

    /// A 64-bit constant.
    fn c64(&mut self, x: u64) -> Value {
        self.push(Ty::I64, Op::Const(x))
    }

    /// `base + index * 8`: a collective's slot.
    fn slot(&mut self, base: Value, index: Value) -> Value {
        let eight = self.c64(8);
        let o = self.push(Ty::I64, Op::Bin(BinOp::Mul, index, eight));
        self.push(Ty::I64, Op::Bin(BinOp::Add, base, o))
    }

    /// The smaller of two unsigned 64-bit values.
    fn umin64(&mut self, a: Value, b: Value) -> Value {
        let lt = self.push(Ty::Bool, Op::Cmp(CmpOp::ULt, a, b));
        self.push(Ty::I64, Op::Select(lt, a, b))
    }

    /// `a op b` for the group instruction `op` (All, Any and the logical ones on 0/1
    /// integers; a half sum or product rounded to half): the operation of its
    /// `OpGroupNonUniform*` twin.
    fn group_combine(&mut self, op: u16, t: Ty, a: Value, b: Value, half: bool) -> Value {
        match op {
            261 => self.push(t, Op::Bin(BinOp::And, a, b)),
            262 => self.push(t, Op::Bin(BinOp::Or, a, b)),
            _ => self.nu_combine(dpcpp::group_twin(op), t, a, b, half),
        }
    }

    /// The identity of a group instruction's operation on `t` (what an exclusive scan gives
    /// the first work-item).
    fn group_identity(op: u16, t: Ty) -> u64 {
        match op {
            261 => 1,
            262 => 0,
            _ => nonuniform::identity(dpcpp::group_twin(op), t),
        }
    }

    /// Work-group (`Workgroup` scope) and sub-group (`Subgroup` scope) collectives through
    /// scratch slots in local memory, one per work-item: every work-item stores its operand,
    /// then a barrier. Reduces and scans: the first work-item of the group (or of each
    /// sub-group) turns its slots into an inclusive (or exclusive) scan in linear order, and
    /// each work-item reads its result: the last slot (a reduce) or its own. One barrier is
    /// enough because the work-items a barrier releases resume one at a time in linear order
    /// (see [`ir::Op::Barrier`]): the first one scans before any other reads, and a work-item
    /// that goes on to its next collective overwrites only its own slot, which no later
    /// work-item reads (the last slot is the last work-item's). A broadcast reads another
    /// work-item's slot, so a second barrier follows it before the slots are used again.
    /// Sub-group collectives use sub-group barriers: every work-item of the sub-group must
    /// reach them, other sub-groups need not.
    fn group_op(&mut self, fr: &mut Frame, i: &Inst) -> Result<(), Error> {
        let op = i.op;
        let m = self.m;
        let sub = match m.const_scalar(i.w(2)?)? {
            2 => false,
            3 => true,
            s => return Err(Error::unsupported(format!("{} in scope {s}", op_name(op)))),
        };
        // Sub-group collectives wait for their sub-group only (see `ir::Op::SubgroupBarrier`).
        let barrier = if sub {
            Op::SubgroupBarrier
        } else {
            Op::Barrier
        };
        let rty = m.ir_ty(i.w(0)?)?;
        // Sums and products of halves are rounded to half after each step.
        let half = m.is_half(i.w(0)?);
        // The operation: 0 reduce, 1 inclusive scan, 2 exclusive scan, 3 broadcast.
        let (kind, x) = match op {
            261 | 262 => (0, self.val(fr, i.w(3)?)?),
            263 => (3, self.val(fr, i.w(3)?)?),
            _ => {
                let g = i.w(3)?;
                if g > 2 {
                    return Err(Error::unsupported(format!(
                        "{} with group operation {g}",
                        op_name(op)
                    )));
                }
                (g, self.val(fr, i.w(4)?)?)
            }
        };
        let xt = self.k.ty(x);
        let float = dpcpp::group_float(op);
        let ok = match op {
            261 | 262 => xt == Ty::Bool && rty == Ty::Bool,
            _ if dpcpp::group_logical(op) => xt == Ty::Bool && rty == Ty::Bool,
            263 => xt == rty && xt != Ty::Bool,
            _ => xt == rty && xt != Ty::Bool && xt.is_float() == float,
        };
        if !ok {
            return Err(Error::invalid(format!(
                "{}: operands of the wrong type",
                op_name(op)
            )));
        }
        let (t, xv) = if xt == Ty::Bool {
            (Ty::I32, self.push(Ty::I32, Op::Conv(ConvOp::BoolToInt, x)))
        } else {
            (xt, x)
        };
        self.scratch = self.scratch.max(GROUP_SCRATCH);
        let base = self.push(Ty::I64, Op::LocalAddr(scratch_offset(self.root)));
        let (lid, ls, n) = self.group_geometry();
        let slot = self.slot(base, lid);
        self.effect(Op::Store {
            addr: slot,
            value: xv,
        });
        self.effect(barrier.clone());
        let (start, end) = if sub {
            let s = u64::from(self.k.sub_group_size);
            let mask = self.c64(!(s - 1));
            let start = self.push(Ty::I64, Op::Bin(BinOp::And, lid, mask));
            let s = self.c64(s);
            let e = self.push(Ty::I64, Op::Bin(BinOp::Add, start, s));
            (start, self.umin64(e, n))
        } else {
            (self.c64(0), n)
        };
        let one = self.c64(1);
        let last = self.push(Ty::I64, Op::Bin(BinOp::Sub, end, one));
        let result = if kind == 3 {
            let (ids, _) = self.elems(fr, i.w(4)?)?;
            if ids.is_empty() || ids.len() > 3 || (sub && ids.len() != 1) {
                return Err(Error::invalid(
                    "OpGroupBroadcast: a local id of the wrong size",
                ));
            }
            let mut target = self.c64(0);
            for (d, v) in ids.iter().enumerate().rev() {
                if self.k.ty(*v).is_float() || self.k.ty(*v) == Ty::Bool {
                    return Err(Error::invalid(
                        "OpGroupBroadcast: the local id is not an integer",
                    ));
                }
                let v = self.resize(*v, Ty::I64);
                let scaled = self.push(Ty::I64, Op::Bin(BinOp::Mul, target, ls[d.min(2)]));
                target = self.push(Ty::I64, Op::Bin(BinOp::Add, scaled, v));
            }
            let target = self.push(Ty::I64, Op::Bin(BinOp::Add, start, target));
            // Out of range (undefined in OpenCL): the last work-item's value.
            let target = self.umin64(target, last);
            let a = self.slot(base, target);
            self.push(t, Op::Load(a))
        } else {
            let leader = self.push(Ty::Bool, Op::Cmp(CmpOp::Eq, lid, start));
            let (lp, head, body, join) = (
                self.k.new_block(),
                self.k.new_block(),
                self.k.new_block(),
                self.k.new_block(),
            );
            self.set_term(Term::Branch(leader, (lp, vec![]), (join, vec![])));
            self.cur = lp;
            let first = self.push(t, Op::Load(slot));
            if kind == 2 {
                let idn = self.push(t, Op::Const(Self::group_identity(op, t)));
                self.effect(Op::Store {
                    addr: slot,
                    value: idn,
                });
            }
            let j0 = self.push(Ty::I64, Op::Bin(BinOp::Add, start, one));
            self.set_term(Term::Jump(head, vec![j0, first]));
            let (j, acc) = (self.k.new_value(Ty::I64), self.k.new_value(t));
            self.k.blocks[head.0 as usize].params.extend([j, acc]);
            self.cur = head;
            let more = self.push(Ty::Bool, Op::Cmp(CmpOp::ULt, j, end));
            self.set_term(Term::Branch(more, (body, vec![]), (join, vec![])));
            self.cur = body;
            let a = self.slot(base, j);
            let v = self.push(t, Op::Load(a));
            let acc2 = self.group_combine(op, t, acc, v, half);
            // Inclusive: the prefix through j; exclusive: the one before it.
            self.effect(Op::Store {
                addr: a,
                value: if kind == 2 { acc } else { acc2 },
            });
            let j1 = self.push(Ty::I64, Op::Bin(BinOp::Add, j, one));
            self.set_term(Term::Jump(head, vec![j1, acc2]));
            self.cur = join;
            let a = if kind == 0 { self.slot(base, last) } else { slot };
            self.push(t, Op::Load(a))
        };
        if kind == 3 {
            self.effect(barrier.clone());
        }
        let result = if rty == Ty::Bool {
            let zero = self.push(t, Op::Const(0));
            self.push(Ty::Bool, Op::Cmp(CmpOp::Ne, result, zero))
        } else {
            result
        };
        fr.vals.insert(i.w(1)?, (Val::V(result), i.w(0)?));
        Ok(())
    }

    /// The work-item's local linear id, the group's size in each dimension, and its work-item
    /// count (all `I64`).
    fn group_geometry(&mut self) -> (Value, Vec<Value>, Value) {
        let lid = self.push(Ty::I64, Op::Builtin(Builtin::LocalLinearId, 0));
        let ls: Vec<Value> = (0..3)
            .map(|d| self.push(Ty::I64, Op::Builtin(Builtin::LocalSize, d)))
            .collect();
        let n01 = self.push(Ty::I64, Op::Bin(BinOp::Mul, ls[0], ls[1]));
        let n = self.push(Ty::I64, Op::Bin(BinOp::Mul, n01, ls[2]));
        (lid, ls, n)
    }

    /// `async_work_group_copy` and `async_work_group_strided_copy` (OpGroupAsyncCopy), done at
    /// once and shared by the work-items of the group: work-item `l` copies elements `l`,
    /// `l + size`, ... The global side (the destination when the source is local memory) steps
    /// by `Stride` elements. The result is the event given: nothing is left pending, and
    /// `wait_group_events` is a barrier, after which every share is done.
    fn async_copy(&mut self, fr: &mut Frame, i: &Inst) -> Result<(), Error> {
        let m = self.m;
        let scope = m.const_scalar(i.w(2)?)?;
        if scope != 2 {
            return Err(Error::unsupported(format!("OpGroupAsyncCopy in scope {scope}")));
        }
        if m.ty(i.w(0)?)? != &Type::Event {
            return Err(Error::invalid("OpGroupAsyncCopy: the result is not an event"));
        }
        let (dst, dty) = self.get(fr, i.w(3)?)?;
        let (src, sty) = self.get(fr, i.w(4)?)?;
        let (Val::V(dst), Val::V(src)) = (dst, src) else {
            return Err(Error::invalid("OpGroupAsyncCopy: operands are not pointers"));
        };
        let (Type::Pointer(_, de), Type::Pointer(ssc, se)) = (m.ty(dty)?, m.ty(sty)?) else {
            return Err(Error::invalid("OpGroupAsyncCopy: operands are not pointers"));
        };
        let (es, _) = m.layout(*de)?;
        if m.layout(*se)?.0 != es || self.k.ty(dst) != Ty::I64 || self.k.ty(src) != Ty::I64 {
            return Err(Error::invalid("OpGroupAsyncCopy: elements of different sizes"));
        }
        // Workgroup storage: the source is local, so the destination is the global side.
        let dst_strided = *ssc == 4;
        let (n, stride, event) = (
            self.val(fr, i.w(5)?)?,
            self.val(fr, i.w(6)?)?,
            self.val(fr, i.w(7)?)?,
        );
        for v in [n, stride] {
            if self.k.ty(v).is_float() || self.k.ty(v) == Ty::Bool {
                return Err(Error::invalid("OpGroupAsyncCopy: a count is not an integer"));
            }
        }
        let (n, stride) = (self.resize(n, Ty::I64), self.resize(stride, Ty::I64));
        let (lid, _, size) = self.group_geometry();
        let es = self.c64(es);
        let (head, body, join) = (self.k.new_block(), self.k.new_block(), self.k.new_block());
        self.set_term(Term::Jump(head, vec![lid]));
        let j = self.k.new_value(Ty::I64);
        self.k.blocks[head.0 as usize].params.push(j);
        self.cur = head;
        let more = self.push(Ty::Bool, Op::Cmp(CmpOp::ULt, j, n));
        self.set_term(Term::Branch(more, (body, vec![]), (join, vec![])));
        self.cur = body;
        let near = self.push(Ty::I64, Op::Bin(BinOp::Mul, j, es));
        let far = self.push(Ty::I64, Op::Bin(BinOp::Mul, near, stride));
        let (d_off, s_off) = if dst_strided { (far, near) } else { (near, far) };
        let d = self.push(Ty::I64, Op::Bin(BinOp::Add, dst, d_off));
        let s = self.push(Ty::I64, Op::Bin(BinOp::Add, src, s_off));
        self.effect(Op::Copy { dst: d, src: s, size: es });
        let j1 = self.push(Ty::I64, Op::Bin(BinOp::Add, j, size));
        self.set_term(Term::Jump(head, vec![j1]));
        self.cur = join;
        fr.vals.insert(i.w(1)?, (Val::V(event), i.w(0)?));
        Ok(())
    }

    /// `intel_sub_group_shuffle`, `_down`, `_up` and `_xor` (SPV_INTEL_subgroups) through the
    /// collectives' scratch: each work-item stores its operands (a second array for the
    /// `next`/`previous` operand), a sub-group barrier, each reads the slot of the work-item it names in
    /// its sub-group (out of range, which OpenCL leaves undefined: the sub-group's last), a
    /// sub-group barrier.
    fn shuffle_op(&mut self, fr: &mut Frame, i: &Inst) -> Result<(), Error> {
        let op = i.op;
        let rty = self.m.ir_ty(i.w(0)?)?;
        let two = matches!(op, 5572 | 5573);
        let a = self.val(fr, i.w(2)?)?;
        let b = if two {
            Some(self.val(fr, i.w(3)?)?)
        } else {
            None
        };
        let c = self.val(fr, i.w(if two { 4 } else { 3 })?)?;
        let ct = self.k.ty(c);
        if rty == Ty::Bool
            || self.k.ty(a) != rty
            || b.is_some_and(|b| self.k.ty(b) != rty)
            || ct.is_float()
            || ct == Ty::Bool
        {
            return Err(Error::invalid(format!(
                "{}: operands of the wrong type",
                op_name(op)
            )));
        }
        self.scratch = self.scratch.max(2 * GROUP_SCRATCH);
        let base = self.push(Ty::I64, Op::LocalAddr(scratch_offset(self.root)));
        let off = self.c64(u64::from(GROUP_SCRATCH));
        let base2 = self.push(Ty::I64, Op::Bin(BinOp::Add, base, off));
        let lid = self.push(Ty::I64, Op::Builtin(Builtin::LocalLinearId, 0));
        let slot = self.slot(base, lid);
        self.effect(Op::Store {
            addr: slot,
            value: a,
        });
        if let Some(b) = b {
            let slot2 = self.slot(base2, lid);
            self.effect(Op::Store {
                addr: slot2,
                value: b,
            });
        }
        self.effect(Op::SubgroupBarrier);
        let ls: Vec<Value> = (0..3)
            .map(|d| self.push(Ty::I64, Op::Builtin(Builtin::LocalSize, d)))
            .collect();
        let n01 = self.push(Ty::I64, Op::Bin(BinOp::Mul, ls[0], ls[1]));
        let n = self.push(Ty::I64, Op::Bin(BinOp::Mul, n01, ls[2]));
        let s = u64::from(self.k.sub_group_size);
        let mask = self.c64(!(s - 1));
        let start = self.push(Ty::I64, Op::Bin(BinOp::And, lid, mask));
        let sg = self.c64(s);
        let e = self.push(Ty::I64, Op::Bin(BinOp::Add, start, sg));
        let end = self.umin64(e, n);
        let one = self.c64(1);
        let last = self.push(Ty::I64, Op::Bin(BinOp::Sub, end, one));
        let max = self.umin64(n, sg);
        let sglid = self.push(Ty::I64, Op::Bin(BinOp::Sub, lid, start));
        let c = self.resize(c, Ty::I64);
        // (index in the sub-group, true when it reads the second operand's array)
        let (idx, second) = match op {
            5571 => (c, None),
            5574 => (self.push(Ty::I64, Op::Bin(BinOp::Xor, sglid, c)), None),
            5572 => {
                let t = self.push(Ty::I64, Op::Bin(BinOp::Add, sglid, c));
                let over = self.push(Ty::Bool, Op::Cmp(CmpOp::UGe, t, max));
                let wrapped = self.push(Ty::I64, Op::Bin(BinOp::Sub, t, max));
                (self.push(Ty::I64, Op::Select(over, wrapped, t)), Some(over))
            }
            _ => {
                // In range: `current` (the second operand) of sglid - delta; else `previous`
                // of max + sglid - delta.
                let within = self.push(Ty::Bool, Op::Cmp(CmpOp::ULe, c, sglid));
                let t = self.push(Ty::I64, Op::Bin(BinOp::Sub, sglid, c));
                let wrapped = self.push(Ty::I64, Op::Bin(BinOp::Add, t, max));
                (
                    self.push(Ty::I64, Op::Select(within, t, wrapped)),
                    Some(within),
                )
            }
        };
        let target = self.push(Ty::I64, Op::Bin(BinOp::Add, start, idx));
        let target = self.umin64(target, last);
        let from = match second {
            Some(sec) => self.push(Ty::I64, Op::Select(sec, base2, base)),
            None => base,
        };
        let addr = self.slot(from, target);
        let v = self.push(rty, Op::Load(addr));
        self.effect(Op::SubgroupBarrier);
        fr.vals.insert(i.w(1)?, (Val::V(v), i.w(0)?));
        Ok(())
    }

    /// Addresses are 64-bit values (pointers of Physical64).
    fn pointer(&self, v: Value, op: u16) -> Result<(), Error> {
        if self.k.ty(v) != Ty::I64 {
            return Err(Error::invalid(format!(
                "{}: the pointer operand is not a pointer",
                op_name(op)
            )));
        }
        Ok(())
    }

    fn int_check(&self, v: Value, op: u16) -> Result<(), Error> {
        if !matches!(self.k.ty(v), Ty::I32 | Ty::I64) {
            return Err(Error::unsupported(format!(
                "{} on {:?}",
                op_name(op),
                self.k.ty(v)
            )));
        }
        Ok(())
    }

    /// A built-in's 64-bit value as the loaded type, which must be an integer.
    fn builtin_resize(&mut self, x: Value, to: Ty) -> Result<Value, Error> {
        if to.is_float() || to == Ty::Bool {
            return Err(Error::invalid(format!(
                "a built-in variable read as {to:?}"
            )));
        }
        Ok(self.resize(x, to))
    }

    /// Integer resize (zero-extension or truncation) to `to`.
    fn resize(&mut self, x: Value, to: Ty) -> Value {
        if self.k.ty(x) == to {
            x
        } else {
            self.push(to, Op::Conv(ConvOp::UResize, x))
        }
    }

    /// `addr + index * size`, the index sign-extended to 64 bits.
    fn offset(&mut self, fr: &Frame, addr: Value, index: u32, size: u64) -> Result<Value, Error> {
        let ix = self.val(fr, index)?;
        let t = self.k.ty(ix);
        if t.is_float() || t == Ty::Bool {
            return Err(Error::invalid("an access chain index is not an integer"));
        }
        let ix = if t == Ty::I64 {
            ix
        } else {
            self.push(Ty::I64, Op::Conv(ConvOp::SResize, ix))
        };
        let s = self.push(Ty::I64, Op::Const(size));
        let o = self.push(Ty::I64, Op::Bin(BinOp::Mul, ix, s));
        Ok(self.push(Ty::I64, Op::Bin(BinOp::Add, addr, o)))
    }
}

/// The order in which to lower a function's blocks: reverse postorder of the control-flow graph
/// from the entry (so every block comes after the blocks that dominate it, and a value is lowered
/// before its uses even when the layout does not respect dominance, as llvm-spirv's loops exits
/// do), then the unreachable blocks in layout order.
fn dominance_order(blocks: &[(u32, Vec<Inst>)]) -> Vec<usize> {
    let index: HashMap<u32, usize> = blocks
        .iter()
        .enumerate()
        .map(|(i, (l, _))| (*l, i))
        .collect();
    let succs = |b: usize| -> Vec<usize> {
        let Some(t) = blocks[b].1.last() else {
            return vec![];
        };
        let labels: Vec<u32> = match t.op {
            249 => t.ops.iter().take(1).copied().collect(),
            250 => t.ops.iter().skip(1).take(2).copied().collect(),
            251 => {
                // selector, default, then (literal words, label) pairs of 2 or 3 words.
                let rest = t.ops.get(2..).unwrap_or(&[]);
                let stride = if rest.len() % 2 == 0
                    && rest
                        .iter()
                        .skip(1)
                        .step_by(2)
                        .all(|l| index.contains_key(l))
                {
                    2
                } else {
                    3
                };
                t.ops
                    .iter()
                    .skip(1)
                    .take(1)
                    .chain(rest.iter().skip(stride - 1).step_by(stride))
                    .copied()
                    .collect()
            }
            _ => vec![],
        };
        labels
            .iter()
            .filter_map(|l| index.get(l).copied())
            .collect()
    };
    let mut seen = vec![false; blocks.len()];
    let mut post = Vec::with_capacity(blocks.len());
    if !blocks.is_empty() {
        // Iterative depth-first search: (block, its successors, next successor to visit).
        let mut stack = vec![(0usize, succs(0), 0usize)];
        seen[0] = true;
        while let Some((b, ss, next)) = stack.last_mut() {
            if let Some(&s) = ss.get(*next) {
                *next += 1;
                if !seen[s] {
                    seen[s] = true;
                    stack.push((s, succs(s), 0));
                }
            } else {
                post.push(*b);
                stack.pop();
            }
        }
    }
    post.reverse();
    post.extend((0..blocks.len()).filter(|&i| !seen[i]));
    post
}
