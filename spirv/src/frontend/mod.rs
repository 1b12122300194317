//! SPIR-V to the IR: module-level facts, program-scope variables laid out, and each entry
//! point lowered to one [`ir::Kernel`] with every call inlined.
//!
//! `read` reads the module (capabilities, types, constants, variables, functions), `module`
//! answers questions about it (types, layouts, constants), `kernel` lowers one entry point with
//! the function builder of `builder`, which dispatches each instruction to its family: `arith`
//! (arithmetic, comparisons, conversions), `math` (OpenCL.std), `memory` (variables, loads,
//! stores, access chains), `composite` (vectors and composites), `atomics`, `groups`
//! (barriers and collectives), `control` (branches, calls, returns) and the files of the
//! extensions and libraries (`aggregate`, `stdlib`, `image`, `fnptr`, `dpcpp`, `nonuniform`,
//! `intrinsics`; `link` joins modules).

use std::collections::{HashMap, HashSet};

use crate::ir::{self, BlockId, Builtin, Value};
use crate::spv::{Decoration, Inst, Type};
use crate::{Error, KernelInfo};

mod aggregate;
mod arith;
mod atomics;
mod builder;
mod composite;
mod control;
mod dpcpp;
pub(crate) mod fnptr;
mod groups;
mod image;
mod intrinsics;
mod kernel;
mod link;
pub use link::{lower_linked, Linking};
mod math;
mod memory;
mod module;
mod nonuniform;
mod read;
mod stdlib;

use arith::{elementwise, int_min_max};
use kernel::{dominance_order, lower_kernel, scratch_offset, GROUP_SCRATCH};
use module::{align_up, builtin_of};
use read::{read_module, Modes, SUPPORTED_CAPS};

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
    /// Exported functions with a pointer value (`frontend/fnptr.rs`): name, offset in `data` of
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
    /// Extended instruction sets whose instructions are ignored (`frontend/dpcpp.rs`).
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
    /// Function pointers (`frontend/fnptr.rs`).
    fnptr: fnptr::FnPtrs,
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

#[derive(Clone, Debug)]
enum Val {
    V(Value),
    /// A vector, as one scalar value per element.
    Vec(Vec<Value>),
    /// The address of a built-in variable.
    BVar(Builtin),
    /// A loaded built-in vector.
    BVec(Builtin),
    /// A pointer into a built-in variable (`frontend/dpcpp.rs`): byte offset, element size.
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
    /// Sub-group exchanges of `OpGroupNonUniform*` lowered so far (`frontend/nonuniform.rs`).
    nu_tags: u32,
    /// The widths of the scratch slots the kernel's collectives, shuffles and non-uniform
    /// operations use, and the constants that give a collective's slot width
    /// (`frontend/groups.rs`): where the widths differ, every slot is 8 bytes wide.
    slot_widths: std::collections::BTreeSet<u64>,
    slot_width_consts: Vec<Value>,
}
