//! `zekit-spirv`: OpenCL SPIR-V kernels compiled to native code for the CPU driver.
//!
//! The pipeline, one folder per stage: `spv/` splits the binary into instructions and checks
//! the header ([`spv`]); `frontend/` turns the module into the compiler's own IR (public as
//! [`lower`]: one SSA function per kernel, calls inlined, phis as block parameters, built-ins
//! as operations), validating what it relies on; `ir/` holds the [`ir`] and its checks
//! ([`verify`]: terminators, branch arguments, SSA dominance); `analysis/` splits kernels at
//! their work-group barriers ([`regions`]) and plans which kernels run work-items in lockstep;
//! `backend/` lowers the IR to machine code through Cranelift (public as `jit`), and saves a
//! compiled `Program` as relocatable machine code and loads it again without compiling
//! (`native`); `rt/` holds the host functions generated code calls (math shims, `printf`,
//! image access). Imported functions (`LinkageAttributes` Import) are resolved by
//! `compile_linked` from other modules' exports. Nothing here knows Level Zero.
//!
//! Cargo feature `jit` (on by default): code generation (`compile`, `Program`, `Kernel`, the
//! `jit` module) and the Cranelift dependencies. Without it the crate parses, lowers and verifies
//! modules and reports their kernels ([`check`], [`KernelInfo`], [`spec_constants`]), with no
//! code generator to build: the mock driver uses it that way.
//!
//! A compiled kernel is a function called once per work-group with a [`GroupCtx`]; it runs the
//! group's work-items as loops inside (one loop per barrier-delimited region).

pub mod spv;
mod frontend;
/// SPIR-V to the IR (`frontend/`): [`lower::lower`], [`lower::lower_linked`] and
/// [`lower::linkage`].
pub mod lower {
    pub use crate::frontend::*;
}
pub use lower::Linking;
pub mod ir;
pub use ir::verify;
mod analysis;
pub use analysis::{effects, regions};
#[cfg(feature = "jit")]
mod backend;
/// The Cranelift backend (`backend/`): compiled code, native images of it, and when kernels
/// run work-items in lockstep.
#[cfg(feature = "jit")]
pub mod jit {
    pub use crate::backend::*;
}
#[cfg(feature = "jit")]
pub use backend::native;
mod rt;
#[cfg(feature = "jit")]
pub use rt::printf;
pub mod image;

use std::collections::HashMap;
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::spv::{deco, op};

/// Why a module does not build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// Not valid SPIR-V (or not what the compiler can rely on): a bad binary.
    Invalid(String),
    /// Valid SPIR-V the compiler does not support yet.
    Unsupported(String),
    /// The code generator failed (a compiler bug).
    Internal(String),
}

impl Error {
    /// A malformed module.
    pub fn invalid(m: impl Into<String>) -> Error {
        Error::Invalid(m.into())
    }
    /// Something not supported yet.
    pub fn unsupported(m: impl Into<String>) -> Error {
        Error::Unsupported(m.into())
    }
    /// A compiler failure.
    pub fn internal(m: impl Into<String>) -> Error {
        Error::Internal(m.into())
    }
    /// The same error with `what` in front of its message.
    pub fn context(self, what: impl fmt::Display) -> Error {
        match self {
            Error::Invalid(m) => Error::Invalid(format!("{what}: {m}")),
            Error::Unsupported(m) => Error::Unsupported(format!("{what}: {m}")),
            Error::Internal(m) => Error::Internal(format!("{what}: {m}")),
        }
    }
    /// True for a malformed binary (as opposed to a build failure).
    pub fn is_invalid(&self) -> bool {
        matches!(self, Error::Invalid(_))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Invalid(m) => write!(f, "invalid SPIR-V: {m}"),
            Error::Unsupported(m) => write!(f, "unsupported: {m}"),
            Error::Internal(m) => write!(f, "internal compiler error: {m}"),
        }
    }
}

impl std::error::Error for Error {}

/// What a kernel argument is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgKind {
    /// A pointer to global or constant memory (8 bytes).
    Buffer,
    /// A scalar by value.
    Scalar,
    /// A pointer to local memory: the application sets its size, the driver allocates it.
    Local,
    /// A struct by value (its bytes).
    ByValue,
    /// An image: the application sets its handle, the driver passes an
    /// [`image::ImageDesc`] ([`image::IMAGE_DESC_SIZE`] bytes).
    Image,
    /// A sampler: the application sets its handle, the driver passes an
    /// [`image::SamplerDesc`] ([`image::SAMPLER_DESC_SIZE`] bytes).
    Sampler,
}

/// The address space a pointer argument points into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddressSpace {
    /// `global`.
    Global,
    /// `constant`.
    Constant,
    /// `local`.
    Local,
    /// Not a pointer (scalars, by-value structs).
    Private,
    /// A generic pointer.
    Generic,
}

/// A kernel argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArgInfo {
    /// Its kind.
    pub kind: ArgKind,
    /// Bytes the application passes (8 for pointers; for local arguments, 8 in the block).
    pub size: u32,
    /// Offset in the argument block.
    pub offset: u32,
    /// Where a pointer points.
    pub space: AddressSpace,
}

/// What a kernel reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelInfo {
    /// Its name.
    pub name: String,
    /// Its arguments.
    pub args: Vec<ArgInfo>,
    /// Bytes of the argument block.
    pub args_size: u32,
    /// `reqd_work_group_size`, if given.
    pub reqd_work_group_size: Option<[u32; 3]>,
    /// `work_group_size_hint`, if given (ExecutionMode LocalSizeHint).
    pub work_group_size_hint: Option<[u32; 3]>,
    /// `vec_type_hint`, if given, as the OpenCL C type name (`float4`, `int`; ExecutionMode
    /// VecTypeHint keeps no signedness, so `uint` reads back as `int`).
    pub vec_type_hint: Option<String>,
    /// `intel_reqd_sub_group_size`, if given (ExecutionMode SubgroupSize).
    pub reqd_sub_group_size: Option<u32>,
    /// Bytes of local memory of the module's static local variables (before local arguments).
    pub local_static_size: u32,
    /// Bytes of private memory per work-item (variables, and values kept across barriers).
    pub private_size: u32,
    /// True when the kernel has work-group barriers (work-items then need their own private
    /// memory: `private_size` bytes each).
    pub barriers: bool,
    /// False when nothing the kernel does can be seen once it ends (no store, copy, atomic,
    /// image access or `printf`, no trap: [`effects`]); its launches have nothing
    /// to run.
    pub effects: bool,
}

impl KernelInfo {
    /// Work-items per sub-group: the required size, else [`ir::SUB_GROUP_SIZE`].
    pub fn sub_group_size(&self) -> u32 {
        self.reqd_sub_group_size.unwrap_or(ir::SUB_GROUP_SIZE)
    }
}

/// What a work-group function reads: the launch's geometry, the group, the arguments and the
/// memory the caller provides. Every field is 8 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct GroupCtx {
    /// This group's id.
    pub group_id: [u64; 3],
    /// Work-items per group.
    pub local_size: [u64; 3],
    /// Groups in the launch.
    pub num_groups: [u64; 3],
    /// Global offset.
    pub global_offset: [u64; 3],
    /// Dimensions of the launch (1, 2 or 3).
    pub work_dim: u64,
    /// The argument block: [`KernelInfo::args_size`] bytes laid out by [`ArgInfo::offset`];
    /// local arguments hold the address of their local memory.
    pub args: usize,
    /// The group's local memory (static variables at offset 0).
    pub local_mem: usize,
    /// Private memory: `private_size` bytes, times the group's work-item count when the kernel
    /// has barriers.
    pub private_mem: usize,
    /// Nonzero when the launch writes more than the caches hold: where a kernel writes a
    /// 16-byte record per work-item at addresses made from its global id, it may then use
    /// non-temporal stores, which bypass the caches. Whoever sets it calls [`store_fence`] on
    /// each thread that ran groups before their results are read elsewhere.
    pub stream: u64,
}

/// Orders the non-temporal stores of the groups this thread ran with [`GroupCtx::stream`]
/// before its later stores (`sfence` on x86-64): call it before telling another thread that
/// the groups are done.
pub fn store_fence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `sfence` is part of SSE, which every x86-64 CPU has; it only orders stores.
    unsafe {
        std::arch::x86_64::_mm_sfence()
    };
    #[cfg(not(target_arch = "x86_64"))]
    std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
}

#[cfg(feature = "jit")]
impl GroupCtx {
    const GROUP_ID: i32 = 0;
    const LOCAL_SIZE: i32 = 24;
    const NUM_GROUPS: i32 = 48;
    const GLOBAL_OFFSET: i32 = 72;
    const WORK_DIM: i32 = 96;
    const ARGS: i32 = 104;
    const LOCAL_MEM: i32 = 112;
    const PRIVATE_MEM: i32 = 120;
    const STREAM: i32 = 128;
}

#[cfg(feature = "jit")]
pub(crate) fn align16(x: u32) -> u32 {
    x.div_ceil(16) * 16
}

/// A compiled kernel.
#[cfg(feature = "jit")]
#[derive(Debug)]
pub struct Kernel {
    /// What it reports.
    pub info: KernelInfo,
    entry: usize,
    /// Its way to LLVM's code, where it tiers up ([`jit::tierup`]).
    up: Option<Box<jit::tierup::TierUp>>,
}

#[cfg(feature = "jit")]
impl Kernel {
    /// Address of the work-group function, `extern "C" fn(*mut GroupCtx)` (valid while the
    /// [`Program`] lives; call it as [`Kernel::run_group`] does).
    pub fn entry(&self) -> usize {
        self.entry
    }

    /// Runs one work-group.
    ///
    /// # Safety
    /// `ctx` must describe valid memory: an argument block of `args_size` bytes holding the
    /// values the kernel's code dereferences (valid buffers), local memory of at least the
    /// static size plus the local arguments, private memory as [`GroupCtx::private_mem`]
    /// says; and the [`Program`] must outlive the call.
    pub unsafe fn run_group(&self, ctx: &mut GroupCtx) {
        // SAFETY: as this function's own contract.
        unsafe { self.run_group_with(self.launch_entry(), ctx) }
    }

    /// The code a launch starting now runs: LLVM's once the kernel has tiered up
    /// ([`jit::tierup`]), else the code it was built with. A launch picks it once, so that
    /// all its groups run the same code.
    pub fn launch_entry(&self) -> usize {
        self.up.as_ref().and_then(|u| u.entry()).unwrap_or(self.entry)
    }

    /// True when this kernel's launches run LLVM's code made by tiering up.
    pub fn tiered_up(&self) -> bool {
        self.upgraded().is_some()
    }

    /// LLVM's code made by tiering up, once launches run it.
    pub(crate) fn upgraded(&self) -> Option<&jit::Code> {
        self.up.as_ref().and_then(|u| u.code())
    }

    /// [`Kernel::run_group`] with code `entry`, which [`Kernel::launch_entry`] gave.
    ///
    /// # Safety
    /// As [`Kernel::run_group`]; `entry` is what [`Kernel::launch_entry`] returned for this
    /// kernel.
    pub unsafe fn run_group_with(&self, entry: usize, ctx: &mut GroupCtx) {
        debug_assert!(entry == self.entry || Some(entry) == self.up.as_ref().and_then(|u| u.entry()));
        // SAFETY: `entry` is finalized code of this kernel (either tier's), of this signature
        // (`backend/scalar.rs`), which lives as long as the program; the caller vouches for
        // the memory it reaches.
        let f: extern "C" fn(*mut GroupCtx) = unsafe { std::mem::transmute(entry) };
        f(ctx);
        printf::flush();
    }
}

/// A compiled module.
#[cfg(feature = "jit")]
#[derive(Debug)]
pub struct Program {
    /// Its kernels, in entry point order.
    pub kernels: Vec<Kernel>,
    /// Exported program-scope variables: name, address, size.
    pub globals: Vec<(String, usize, usize)>,
    /// Exported functions that are not kernels, in a module using function pointers: name and
    /// the pointer value the module's kernels call them by (see `frontend/fnptr.rs`).
    pub functions: Vec<(String, usize)>,
    data: Box<[u64]>,
    /// The initial bytes of the program-scope data (what a native binary saves), before
    /// relocation.
    init: Vec<u8>,
    /// Offsets in the data of function pointers, relative to the data until placed.
    data_relocs: Vec<u32>,
    _code: jit::Code,
}

#[cfg(feature = "jit")]
impl Program {
    /// A kernel by name.
    pub fn kernel(&self, name: &str) -> Option<&Kernel> {
        self.kernels.iter().find(|k| k.info.name == name)
    }
    /// Address of the program-scope data.
    pub fn data_address(&self) -> usize {
        self.data.as_ptr() as usize
    }
    /// The pointer value of exported function `name` (not a kernel), as its kernels call it.
    pub fn function(&self, name: &str) -> Option<usize> {
        self.functions.iter().find(|f| f.0 == name).map(|f| f.1)
    }
}

/// Compiles a SPIR-V module; `spec` gives specialization constant values by SpecId. Never
/// panics: a panic inside the compiler becomes [`Error::Internal`].
#[cfg(feature = "jit")]
pub fn compile(bytes: &[u8], spec: &HashMap<u32, u64>) -> Result<Program, Error> {
    compile_linked(bytes, spec, &[], Linking::OneModule)
}

/// [`compile`] with the module's imported functions resolved by the exports of `libs` (each a
/// SPIR-V module and its specialization constants; see [`lower::lower_linked`]); `linking` says
/// whether they are inputs of one module or modules of their own ([`Linking`]).
#[cfg(feature = "jit")]
pub fn compile_linked(
    bytes: &[u8],
    spec: &HashMap<u32, u64>,
    libs: &[(&[u8], &HashMap<u32, u64>)],
    linking: Linking,
) -> Result<Program, Error> {
    match catch_unwind(AssertUnwindSafe(|| compile_inner(bytes, spec, libs, linking))) {
        Ok(r) => r,
        Err(_) => Err(Error::internal("the compiler panicked")),
    }
}

/// The functions a module imports and exports, by name (see [`lower::linkage`]).
pub fn linkage(bytes: &[u8]) -> Result<(Vec<String>, Vec<String>), Error> {
    match catch_unwind(AssertUnwindSafe(|| {
        let (insts, _, _) = spv::parse(bytes)?;
        frontend::linkage(&insts)
    })) {
        Ok(r) => r,
        Err(_) => Err(Error::internal("the compiler panicked")),
    }
}

/// The module's specialization constants: (SpecId, bytes of its value), so that a caller
/// reads exactly as many bytes of each value it is given.
pub fn spec_constants(bytes: &[u8]) -> Result<Vec<(u32, u32)>, Error> {
    let (insts, _, _) = spv::parse(bytes)?;
    let decos = spv::decorations(&insts)?;
    let mut widths = HashMap::new();
    let mut out = Vec::new();
    for i in &insts {
        match i.op {
            op::TYPE_BOOL => {
                widths.insert(i.w(0)?, 1);
            }
            op::TYPE_INT | op::TYPE_FLOAT => {
                widths.insert(i.w(0)?, (i.w(1)? / 8).max(1));
            }
            op::SPEC_CONSTANT_TRUE | op::SPEC_CONSTANT_FALSE | op::SPEC_CONSTANT => {
                let id = i.w(1)?;
                if let Some(d) = decos
                    .get(&id)
                    .and_then(|d| d.iter().find(|d| d.0 == deco::SPEC_ID))
                {
                    let spec_id =
                        *d.1.first()
                            .ok_or_else(|| Error::invalid("SpecId without a value"))?;
                    let w = widths.get(&i.w(0)?).copied().unwrap_or(4);
                    out.push((spec_id, w));
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

/// What a module holds, found without generating code: [`inspect`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleInfo {
    /// Its kernels, in entry point order (`private_size` before spill slots: code generation
    /// adds those).
    pub kernels: Vec<KernelInfo>,
    /// Initial bytes of the program-scope variables.
    pub data: Vec<u8>,
    /// Exported program-scope variables: name, offset in `data`, size.
    pub globals: Vec<(String, u32, u32)>,
}

/// Parses, validates and lowers to the IR without generating code (what the fuzz test drives).
pub fn check(bytes: &[u8], spec: &HashMap<u32, u64>) -> Result<Vec<KernelInfo>, Error> {
    inspect(bytes, spec).map(|m| m.kernels)
}

/// Like [`check`], with the module's program-scope data and exported variables too. Builds
/// without the `jit` feature.
pub fn inspect(bytes: &[u8], spec: &HashMap<u32, u64>) -> Result<ModuleInfo, Error> {
    let (insts, _, _) = spv::parse(bytes)?;
    let lowered = frontend::lower(&insts, spec)?;
    let mut infos = Vec::new();
    for (mut k, mut info) in lowered.kernels {
        verify::verify(&k).map_err(|e| e.context(format!("kernel `{}`", k.name)))?;
        let r = regions::split(&mut k).map_err(|e| e.context(format!("kernel `{}`", k.name)))?;
        info.barriers = r.barriers();
        info.effects = analysis::effects::observable(&k);
        infos.push(info);
    }
    Ok(ModuleInfo {
        kernels: infos,
        data: lowered.data,
        globals: lowered.globals,
    })
}

/// The IR of each kernel of a module as the frontend makes it (verified, before barriers split
/// it), as text ([`ir::Kernel`]'s `Display`): what the file tests of `spirv/tests/filetests.rs`
/// check. Builds without the `jit` feature.
pub fn ir_text(bytes: &[u8], spec: &HashMap<u32, u64>) -> Result<String, Error> {
    let (insts, _, _) = spv::parse(bytes)?;
    let lowered = frontend::lower(&insts, spec)?;
    let mut out = String::new();
    for (k, _) in &lowered.kernels {
        verify::verify(k).map_err(|e| e.context(format!("kernel `{}`", k.name)))?;
        out.push_str(&k.to_string());
    }
    Ok(out)
}

/// A module parsed, validated and lowered, with everything it reports known (the kernels'
/// [`KernelInfo`], private sizes with spill slots included, the program-scope data): every
/// error but a code generator failure has been reported. [`Prepared::codegen`] generates the
/// code of some of its kernels (from any thread, several at once), [`Prepared::finish`] makes
/// the [`Program`] of those pieces.
#[cfg(feature = "jit")]
pub struct Prepared {
    kernels: Vec<(ir::Kernel, regions::Regions, u32)>,
    /// What each kernel reports, in entry point order.
    pub infos: Vec<KernelInfo>,
    data: Box<[u64]>,
    init: Vec<u8>,
    globals: Vec<(String, usize, usize)>,
    functions: Vec<(String, usize)>,
    data_relocs: Vec<u32>,
}

#[cfg(feature = "jit")]
impl fmt::Debug for Prepared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Prepared({} kernels)", self.kernels.len())
    }
}

/// Parses, validates and lowers a module for code generation ([`compile_linked`]'s first
/// half; counts as a compilation in [`jit::compilations_on_this_thread`]). Never panics.
#[cfg(feature = "jit")]
pub fn prepare_linked(
    bytes: &[u8],
    spec: &HashMap<u32, u64>,
    libs: &[(&[u8], &HashMap<u32, u64>)],
    linking: Linking,
) -> Result<Prepared, Error> {
    match catch_unwind(AssertUnwindSafe(|| prepare_inner(bytes, spec, libs, linking))) {
        Ok(r) => r,
        Err(_) => Err(Error::internal("the compiler panicked")),
    }
}

#[cfg(feature = "jit")]
impl Prepared {
    /// Machine code of kernels `range` (indices in entry point order), in one piece. Never
    /// panics: a panic of the code generator is [`Error::Internal`].
    pub fn codegen(&self, range: std::ops::Range<usize>) -> Result<jit::Code, Error> {
        let base = self.data.as_ptr() as usize;
        let kernels = self
            .kernels
            .get(range)
            .ok_or_else(|| Error::internal("no such kernels"))?;
        match catch_unwind(AssertUnwindSafe(|| jit::compile(kernels, base))) {
            Ok(r) => r,
            Err(_) => Err(Error::internal("the code generator panicked")),
        }
    }

    /// The program of the pieces [`Prepared::codegen`] made, in kernel order, covering every
    /// kernel once.
    pub fn finish(self, pieces: Vec<jit::Code>) -> Result<Program, Error> {
        let sources = jit::tiers_up().then_some(self.kernels);
        Program::assemble(
            self.infos,
            jit::Code::join(pieces),
            (self.data, self.init, self.data_relocs),
            (self.globals, self.functions),
            sources,
        )
    }
}

/// A program's exported variables (name, address, size) and functions (name, pointer value).
#[cfg(feature = "jit")]
type Exports = (Vec<(String, usize, usize)>, Vec<(String, usize)>);

#[cfg(feature = "jit")]
impl Program {
    /// A program of kernels (what each reports, and its code, in the same order), its placed
    /// program-scope data (with its initial bytes and function-pointer offsets), and the
    /// exported variables and functions at their addresses in that data; with `sources`,
    /// the IR of each kernel, which then tiers up ([`jit::tierup`]).
    pub(crate) fn assemble(
        infos: Vec<KernelInfo>,
        code: jit::Code,
        (data, init, data_relocs): (Box<[u64]>, Vec<u8>, Vec<u32>),
        (globals, functions): Exports,
        sources: Option<Vec<jit::tierup::Source>>,
    ) -> Result<Program, Error> {
        if code.entries.len() != infos.len() || sources.as_ref().is_some_and(|s| s.len() != infos.len()) {
            return Err(Error::internal("code for some kernels is missing"));
        }
        let mut sources = sources.map(|s| s.into_iter());
        let kernels = infos
            .into_iter()
            .zip(&code.entries)
            .map(|(info, e)| {
                let up = sources.as_mut().and_then(|s| s.next()).map(|s| Box::new(jit::tierup::TierUp::new(s)));
                Kernel { info, entry: *e, up }
            })
            .collect();
        Ok(Program {
            kernels,
            globals,
            functions,
            data,
            init,
            data_relocs,
            _code: code,
        })
    }
}

#[cfg(feature = "jit")]
fn prepare_inner(
    bytes: &[u8],
    spec: &HashMap<u32, u64>,
    libs: &[(&[u8], &HashMap<u32, u64>)],
    linking: Linking,
) -> Result<Prepared, Error> {
    jit::count_compilation();
    let (insts, _, _) = spv::parse(bytes)?;
    let lib_insts = libs
        .iter()
        .map(|(b, s)| spv::parse(b).map(|p| (p.0, *s)))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.context("a linked module"))?;
    let lib_refs: Vec<_> = lib_insts.iter().map(|(i, s)| (&i[..], *s)).collect();
    let lowered = frontend::lower_linked(&insts, spec, &lib_refs, linking)?;
    let mut data: Box<[u64]> = {
        let mut d = vec![0u64; lowered.data.len().div_ceil(8)];
        for (i, b) in lowered.data.iter().enumerate() {
            d[i / 8] |= u64::from(*b) << (8 * (i % 8));
        }
        d.into_boxed_slice()
    };
    let base = data.as_ptr() as usize;
    frontend::fnptr::relocate(&mut data, &lowered.data_relocs, base as u64);
    let mut split = Vec::new();
    let mut infos = Vec::new();
    for (mut k, mut info) in lowered.kernels {
        verify::verify(&k).map_err(|e| e.context(format!("kernel `{}`", k.name)))?;
        let r = regions::split(&mut k).map_err(|e| e.context(format!("kernel `{}`", k.name)))?;
        info.barriers = r.barriers();
        info.effects = analysis::effects::observable(&k);
        // Per work-item: private variables, spill slots, and (with barriers) the resume state.
        let state = if r.barriers() { 8 } else { 0 };
        let stride = align16(align16(k.private_size) + r.spill_size + state);
        info.private_size = stride;
        infos.push(info);
        split.push((k, r, stride));
    }
    let globals = lowered
        .globals
        .into_iter()
        .map(|(n, o, s)| (n, base + o as usize, s as usize))
        .collect();
    let functions = lowered
        .functions
        .into_iter()
        .map(|(n, o)| (n, base + o as usize))
        .collect();
    Ok(Prepared {
        kernels: split,
        infos,
        data,
        init: lowered.data,
        globals,
        functions,
        data_relocs: lowered.data_relocs,
    })
}

#[cfg(feature = "jit")]
fn compile_inner(
    bytes: &[u8],
    spec: &HashMap<u32, u64>,
    libs: &[(&[u8], &HashMap<u32, u64>)],
    linking: Linking,
) -> Result<Program, Error> {
    let p = prepare_inner(bytes, spec, libs, linking)?;
    let code = p.codegen(0..p.infos.len())?;
    p.finish(vec![code])
}
