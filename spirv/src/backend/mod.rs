//! The Cranelift backend: each [`ir::Kernel`] becomes one native function
//! `extern "C" fn(*mut GroupCtx)` that runs a whole work-group: rounds of a loop over the
//! group's work-items (x fastest), each work-item running its segment (see [`crate::regions`])
//! up to its next barrier or its end; another round while any work-item stopped at a barrier.
//! In a round after one where some work-item stopped at a sub-group barrier, the work-items
//! stopped at work-group barriers wait (see [`ir::Op::SubgroupBarrier`]).
//!
//! The code names what it calls (math shims, `memmove`) and the program's data by symbol
//! (`symbols`), through relocations, so each kernel's bytes and relocations
//! ([`FuncImage`]) can be saved and loaded into another process ([`load`]).

use cranelift_codegen::ir::{types, AbiParam, Type};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::JITModule;
use cranelift_module::{Linkage, Module};

use crate::ir::{self, Ty};
use crate::analysis::regions::Regions;
use crate::Error;

mod hoist;
#[cfg(feature = "llvm")]
mod llvm;
pub mod tierup;
mod lockstep;
mod module;
pub mod native;
mod ops;
mod scalar;

pub use crate::analysis::lockstep::Lockstep;
pub use module::{host_features, load, reloc_code, FuncImage, RelocImage, Target};
use module::{features_of, host_isa, image_of, new_module};
use scalar::{CValue, Lower, Syms};

/// Compiled code; freed when dropped.
pub struct Code {
    /// The JIT modules holding the code (one per piece [`Code::join`] joined).
    modules: Vec<JITModule>,
    /// Entry of each kernel, in order.
    pub entries: Vec<usize>,
    /// The relocatable machine code of each kernel (what a native binary saves); `None` when
    /// some code refers to what an image cannot name.
    pub images: Option<Vec<FuncImage>>,
    /// The target triple and the CPU features the code was generated for.
    pub features: (String, Vec<String>),
}

impl std::fmt::Debug for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Code({} kernels)", self.entries.len())
    }
}

// SAFETY: the module is only touched again by `drop` (freeing the code); the entries are
// addresses of immutable, finalized code that any thread may call.
unsafe impl Send for Code {}
// SAFETY: as above; `&Code` gives access to nothing but the entry addresses.
unsafe impl Sync for Code {}

impl Drop for Code {
    fn drop(&mut self) {
        for m in self.modules.drain(..) {
            // SAFETY: the owner of `Code` (the program) is being dropped, so no kernel of it
            // runs any more (launches hold the program alive).
            unsafe { m.free_memory() };
        }
    }
}

impl Code {
    /// The code of several pieces (kernels compiled apart), their kernels in order. Images are
    /// kept when every piece has them; the features are the first piece's (all pieces are
    /// generated for the host).
    pub fn join(pieces: Vec<Code>) -> Code {
        let mut out = Code {
            modules: Vec::new(),
            entries: Vec::new(),
            images: Some(Vec::new()),
            features: (String::new(), Vec::new()),
        };
        for (n, mut p) in pieces.into_iter().enumerate() {
            out.modules.append(&mut p.modules);
            out.entries.append(&mut p.entries);
            out.images = match (out.images.take(), p.images.take()) {
                (Some(mut a), Some(mut b)) => {
                    a.append(&mut b);
                    Some(a)
                }
                _ => None,
            };
            // Every piece's features: code of the LLVM tier names more than Cranelift's.
            if n == 0 {
                out.features.0 = std::mem::take(&mut p.features.0);
            }
            out.features.1.append(&mut p.features.1);
        }
        out.features.1.sort();
        out.features.1.dedup();
        out
    }
}

fn ty(t: Ty) -> Type {
    match t {
        Ty::Bool | Ty::I8 => types::I8,
        Ty::I16 => types::I16,
        Ty::I32 => types::I32,
        Ty::I64 => types::I64,
        Ty::F32 => types::F32,
        Ty::F64 => types::F64,
    }
}

thread_local! {
    static COMPILED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    static LOCKSTEP: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    static POLICY: std::cell::Cell<Option<Lockstep>> = const { std::cell::Cell::new(None) };
    static TIER: std::cell::Cell<Option<Tier>> = const { std::cell::Cell::new(None) };
    static LLVM_KERNELS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Which code generator makes a kernel's code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    /// Cranelift: fast to compile, 128-bit SIMD at most.
    Cranelift,
    /// LLVM at `O3` for the host CPU (built with the `llvm` feature; without it, or where LLVM's
    /// code cannot be used, Cranelift's, with a log line).
    Llvm,
    /// The default: Cranelift (recompiling kernels that ran long enough with LLVM, in the
    /// background, is not built yet).
    Auto,
}

/// Sets the tier the kernels compiled on this thread use; the default comes from the
/// environment variable `ZEKIT_TIER` (`cranelift`, `llvm`; else `auto`).
pub fn set_tier(tier: Tier) {
    TIER.with(|t| t.set(Some(tier)));
}

/// The tier [`compile`] uses on this thread.
pub fn tier() -> Tier {
    TIER.with(|t| t.get()).unwrap_or_else(|| match std::env::var("ZEKIT_TIER").as_deref() {
        Ok("cranelift") => Tier::Cranelift,
        Ok("llvm") => Tier::Llvm,
        _ => Tier::Auto,
    })
}

/// True when this build has the LLVM tier (the `llvm` feature).
pub const HAS_LLVM: bool = cfg!(feature = "llvm");

/// True when kernels compiled now start on Cranelift's code and tier up to LLVM's
/// ([`tierup`]): [`Tier::Auto`] on an x86-64 host, with the LLVM tier built in.
pub fn tiers_up() -> bool {
    HAS_LLVM && cfg!(target_arch = "x86_64") && tier() == Tier::Auto
}

/// How many kernels this thread compiled with LLVM.
pub fn llvm_kernels_on_this_thread() -> u64 {
    LLVM_KERNELS.with(|c| c.get())
}

/// How many kernels this thread compiled with LLVM that have their work-items across SIMD
/// lanes through an inner loop (`backend/llvm/outer.rs`: the x loop marked for LLVM's
/// outer-loop vectorizer). 0 without the LLVM tier.
pub fn llvm_outer_loops_on_this_thread() -> u64 {
    #[cfg(feature = "llvm")]
    return llvm::marked_on_this_thread();
    #[cfg(not(feature = "llvm"))]
    0
}

/// How many spilled values of the kernels this thread compiled with LLVM are kept once per
/// work-group instead of per work-item (`backend/llvm/rounds.rs`: values every work-item
/// computes alike). 0 without the LLVM tier.
pub fn llvm_group_values_on_this_thread() -> u64 {
    #[cfg(feature = "llvm")]
    return llvm::group_values_on_this_thread();
    #[cfg(not(feature = "llvm"))]
    0
}

/// How many kernels this thread compiled with LLVM run their x loop in chunks of 16
/// work-items, with indices made by masks, shifts and divisions of the x id computed from the
/// chunk's first (`backend/llvm/tiles.rs`). 0 without the LLVM tier.
pub fn llvm_chunked_kernels_on_this_thread() -> u64 {
    #[cfg(feature = "llvm")]
    return llvm::chunked_on_this_thread();
    #[cfg(not(feature = "llvm"))]
    0
}

/// How many gathers and scatters of consecutive addresses in the kernels this thread compiled
/// with LLVM became vector loads and stores (`backend/llvm/consecutive.rs`). 0 without the
/// LLVM tier.
pub fn llvm_consecutive_accesses_on_this_thread() -> u64 {
    #[cfg(feature = "llvm")]
    return llvm::consecutive_on_this_thread();
    #[cfg(not(feature = "llvm"))]
    0
}

/// Sets when the kernels compiled on this thread run in lockstep; the default comes from the
/// environment variable `ZEKIT_LOCKSTEP` (`0`: never, `1`: always, else auto).
pub fn set_lockstep(policy: Lockstep) {
    POLICY.with(|p| p.set(Some(policy)));
}

fn lockstep_policy() -> Lockstep {
    POLICY.with(|p| p.get()).unwrap_or_else(|| match std::env::var("ZEKIT_LOCKSTEP").as_deref() {
        Ok("0") => Lockstep::Never,
        Ok("1") => Lockstep::Always,
        _ => Lockstep::Auto,
    })
}

/// How many kernels [`compile`] made run work-items in lockstep (see `backend/lockstep`) on
/// this thread.
pub fn lockstep_kernels_on_this_thread() -> u64 {
    LOCKSTEP.with(|c| c.get())
}

/// How many modules this thread compiled or started compiling ([`crate::prepare_linked`],
/// whose code may then be generated on other threads): a test can show that loading a native
/// binary compiles nothing.
pub fn compilations_on_this_thread() -> u64 {
    COMPILED.with(|c| c.get())
}

pub(crate) fn count_compilation() {
    COMPILED.with(|c| c.set(c.get() + 1));
}

/// Compiles kernels with this thread's [`tier`]; `data` is the address of the module's
/// program-scope variables.
pub fn compile(kernels: &[(ir::Kernel, Regions, u32)], data: usize) -> Result<Code, Error> {
    match tier() {
        Tier::Llvm => compile_llvm(kernels, data),
        Tier::Cranelift | Tier::Auto => compile_cranelift(kernels, data),
    }
}

/// Compiles kernels with LLVM, each on its own; a kernel LLVM's code cannot be made or used
/// for gets Cranelift's (one log line says why).
pub fn compile_llvm(kernels: &[(ir::Kernel, Regions, u32)], data: usize) -> Result<Code, Error> {
    let quiet = std::env::var("ZEKIT_LOG").as_deref() == Ok("0");
    if !HAS_LLVM {
        // One line per process, not one per kernel.
        static SAID: std::sync::Once = std::sync::Once::new();
        if !quiet {
            SAID.call_once(|| {
                eprintln!("zekit: ZEKIT_TIER=llvm: this build has no LLVM tier (the `llvm` feature); Cranelift compiles");
            });
        }
        return compile_cranelift(kernels, data);
    }
    let mut pieces = Vec::new();
    for (i, k) in kernels.iter().enumerate() {
        match llvm_piece(k, data) {
            Ok(c) => {
                LLVM_KERNELS.with(|c| c.set(c.get() + 1));
                pieces.push(c);
            }
            Err(e) => {
                if !quiet {
                    eprintln!("zekit: kernel `{}`: Cranelift's code instead of LLVM's: {e}", k.0.name);
                }
                pieces.push(compile_cranelift(&kernels[i..i + 1], data)?);
            }
        }
    }
    Ok(Code::join(pieces))
}

#[cfg(feature = "llvm")]
fn llvm_piece(k: &(ir::Kernel, Regions, u32), data: usize) -> Result<Code, Error> {
    let img = llvm::compile_kernel(&k.0, &k.1, k.2)?;
    let (triple, mut features) = host_features()?;
    features.extend(llvm::host_feature_names());
    load(&[img], &(triple, features), data)
}

#[cfg(not(feature = "llvm"))]
fn llvm_piece(_: &(ir::Kernel, Regions, u32), _: usize) -> Result<Code, Error> {
    Err(Error::unsupported("this build has no LLVM tier (the `llvm` feature)"))
}

/// Compiles kernels with Cranelift.
pub fn compile_cranelift(kernels: &[(ir::Kernel, Regions, u32)], data: usize) -> Result<Code, Error> {
    let isa = host_isa()?;
    let features = features_of(&*isa);
    let fc = isa.frontend_config();
    // A fused multiply-add instruction: `fma` becomes one instruction instead of a call.
    let fma = isa.name() == "aarch64"
        || isa
            .isa_flags()
            .iter()
            .any(|f| f.name == "has_fma" && f.as_bool() == Some(true));
    let (mut module, funcs, data_id) = new_module(isa, data)?;
    let mut ids = Vec::new();
    let mut images = Some(Vec::new());
    let mut fctx = FunctionBuilderContext::new();
    let mut ctx = module.make_context();
    for (n, (k, regions, stride)) in kernels.iter().enumerate() {
        let mut sig = module.make_signature();
        sig.params.push(AbiParam::new(types::I64));
        let id = module
            .declare_function(&format!("zekit_kernel_{n}"), Linkage::Local, &sig)
            .map_err(|e| Error::internal(format!("cranelift: {e}")))?;
        ctx.func.signature = sig;
        {
            let b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
            let syms = Syms {
                module: &mut module,
                funcs: &funcs,
                data: data_id,
                data_gv: None,
            };
            let l = Lower::new(b, k, regions, *stride, syms, fc, fma);
            if l.lockstep() {
                LOCKSTEP.with(|c| c.set(c.get() + 1));
            }
            l.run()?;
        }
        let dump = std::env::var("ZEKIT_SPIRV_DUMP").ok();
        match dump.as_deref() {
            // The IR as this backend gets it (split at barriers, uniform values hoisted).
            Some("ir") => eprintln!("{k}"),
            Some(_) => eprintln!("{}", ctx.func.display()),
            None => {}
        }
        ctx.set_disasm(dump.as_deref() == Some("asm"));
        module.define_function(id, &mut ctx).map_err(|e| {
            Error::internal(format!("cranelift rejected kernel `{}`: {e:?}", k.name))
        })?;
        if let Some(asm) = ctx.compiled_code().and_then(|c| c.vcode.as_ref()) {
            eprintln!("{asm}");
        }
        // Code that refers to something a saved image cannot name is not saved.
        images = images.and_then(|mut v: Vec<FuncImage>| {
            v.push(image_of(&module, &ctx, id)?);
            Some(v)
        });
        module.clear_context(&mut ctx);
        ids.push(id);
    }
    module
        .finalize_definitions()
        .map_err(|e| Error::internal(format!("cranelift: {e}")))?;
    let entries = ids
        .iter()
        .map(|id| module.get_finalized_function(*id) as usize)
        .collect();
    Ok(Code {
        modules: vec![module],
        entries,
        images,
        features,
    })
}
