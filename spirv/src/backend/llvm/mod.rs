//! The optimizing tier: the same [`ir::Kernel`] lowered to LLVM 19 IR (`lower`, `ops`),
//! optimized at `O3` for the host CPU (its full vector width: LLVM's loop vectorizer runs the
//! work-item loop on 512-bit vectors on AVX-512, 256-bit on AVX2), and written as an ELF object
//! that `link` turns into the relocatable [`FuncImage`] the Cranelift tier saves too. So code of
//! either tier loads through one path ([`super::load`]) and the native-binary cache holds both.
//!
//! The work-group function keeps the Cranelift tier's signature and behaviour
//! (`extern "C" fn(*mut GroupCtx)`, rounds at barriers, segments, spills): `backend/scalar.rs`
//! documents them. What differs is the shape LLVM can optimize:
//! - the work-items run in three nested counted loops (z, y, x), x innermost;
//! - memory addresses made by adding an offset to a pointer become `getelementptr`s of that
//!   pointer, so that LLVM's analyses see strides (and vectorize, with run-time alias checks);
//! - kernels without barriers keep their private memory in a stack slot, which LLVM promotes to
//!   registers;
//! - where the work-items' body loops, the x loop is marked for LLVM's outer-loop vectorizer
//!   (`outer`), so that work-items run across SIMD lanes through the inner loop.
//!
//! LLVM's diagnostics go to [`Diagnostics`], not to standard error, and an error there fails
//! the kernel's compilation instead of ending the process. Under `ZEKIT_TIER=auto` this tier
//! compiles kernels that have run long enough (`super::tierup`).
//!
//! Only x86-64 is supported (the relocations `link` resolves); elsewhere, and for any kernel
//! LLVM's code cannot be linked for, the Cranelift tier's code is used ([`Tier`]).

use inkwell::context::Context;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{
    CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetMachine,
};
use inkwell::OptimizationLevel;

use crate::analysis::regions::Regions;
use crate::ir;
use crate::Error;

use super::FuncImage;

mod consecutive;
mod link;
mod lower;
mod ops;
mod outer;
mod rounds;
mod tiles;
mod uniform;

pub(crate) use outer::marked_on_this_thread;
pub(crate) use consecutive::rewritten_on_this_thread as consecutive_on_this_thread;
pub(crate) use rounds::group_values_on_this_thread;
pub(crate) use tiles::chunked_on_this_thread;

impl From<inkwell::builder::BuilderError> for Error {
    fn from(e: inkwell::builder::BuilderError) -> Error {
        Error::internal(format!("llvm builder: {e}"))
    }
}

/// The host's CPU name and its enabled features, as LLVM names them.
fn host_cpu() -> (String, String) {
    let cpu = TargetMachine::get_host_cpu_name().to_string();
    let features = TargetMachine::get_host_cpu_features().to_string();
    (cpu, features)
}

/// What LLVM code records of the host in [`super::Code::features`], beside Cranelift's flags:
/// `llvm:+feature` for each feature the host has. Code carrying one is only loaded where the
/// host has it too (and where this tier is built in).
pub(crate) fn host_feature_names() -> Vec<String> {
    let (_, features) = host_cpu();
    features
        .split(',')
        .filter(|f| f.starts_with('+'))
        .map(|f| format!("llvm:{f}"))
        .collect()
}

fn machine() -> Result<TargetMachine, Error> {
    if !cfg!(target_arch = "x86_64") {
        return Err(Error::unsupported("the LLVM tier supports x86-64 hosts only"));
    }
    // Once per process: the build pool's threads compile at the same time, and LLVM's target
    // registration is global.
    static INIT: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    INIT.get_or_init(|| {
        Target::initialize_native(&InitializationConfig::default())?;
        outer::enable_native_path();
        Ok(())
    })
        .clone()
        .map_err(|e| Error::internal(format!("llvm: {e}")))?;
    let triple = TargetMachine::get_default_triple();
    let target = Target::from_triple(&triple).map_err(|e| Error::internal(format!("llvm: {e}")))?;
    let (cpu, features) = host_cpu();
    // Static, large code model: every address the code names (the runtime's functions, the
    // program's data, its own constants) is a 64-bit absolute relocation, which `link` can
    // place anywhere.
    target
        .create_target_machine(
            &triple,
            &cpu,
            &features,
            OptimizationLevel::Aggressive,
            RelocMode::Static,
            CodeModel::Large,
        )
        .ok_or_else(|| Error::internal("llvm: no target machine for this host"))
}

/// What LLVM reports while it compiles a kernel. Without a handler of ours LLVM prints its
/// warnings (a hinted loop it could not vectorize, say) to the process's standard error, and
/// ends the process on an error; with it, warnings and remarks are dropped and errors fail
/// the kernel's compilation.
struct Diagnostics {
    errors: Box<std::sync::Mutex<Vec<String>>>,
    cx: inkwell::llvm_sys::prelude::LLVMContextRef,
}

impl Drop for Diagnostics {
    fn drop(&mut self) {
        // SAFETY: `cx` is the context `install` was given, which is dropped after this (it
        // is declared first); from here on it reports nowhere, so never into the freed box.
        unsafe { inkwell::llvm_sys::core::LLVMContextSetDiagnosticHandler(self.cx, None, std::ptr::null_mut()) };
    }
}

impl Diagnostics {
    fn install(cx: &Context) -> Diagnostics {
        use inkwell::llvm_sys::core as c;
        use inkwell::llvm_sys::prelude::LLVMDiagnosticInfoRef;
        use inkwell::llvm_sys::LLVMDiagnosticSeverity;
        extern "C" fn handler(info: LLVMDiagnosticInfoRef, errors: *mut std::ffi::c_void) {
            // SAFETY: LLVM passes a live diagnostic for the duration of the call; `errors` is
            // the box `install` registered, which outlives the context's use (`Diagnostics`
            // unregisters itself when dropped). The description is LLVM's own string, freed
            // with LLVMDisposeMessage.
            unsafe {
                if c::LLVMGetDiagInfoSeverity(info) != LLVMDiagnosticSeverity::LLVMDSError {
                    return;
                }
                let d = c::LLVMGetDiagInfoDescription(info);
                let text = std::ffi::CStr::from_ptr(d).to_string_lossy().into_owned();
                c::LLVMDisposeMessage(d);
                let errors = &*(errors as *const std::sync::Mutex<Vec<String>>);
                errors.lock().unwrap_or_else(|e| e.into_inner()).push(text);
            }
        }
        let errors = Box::new(std::sync::Mutex::new(Vec::new()));
        let p = std::ptr::addr_of!(*errors) as *mut std::ffi::c_void;
        // SAFETY: the context is live; the handler only reads `p` as the box above, which
        // stays at its address (boxed) while `Diagnostics` lives.
        unsafe { c::LLVMContextSetDiagnosticHandler(cx.raw(), Some(handler), p) };
        Diagnostics { errors, cx: cx.raw() }
    }

    /// The first error LLVM reported, as this kernel's.
    fn check(&self, kernel: &str) -> Result<(), Error> {
        let errors = self.errors.lock().unwrap_or_else(|e| e.into_inner());
        match errors.first() {
            Some(e) => Err(Error::internal(format!("llvm, kernel `{kernel}`: {e}"))),
            None => Ok(()),
        }
    }
}

/// Compiles one kernel with LLVM into a relocatable image.
pub(crate) fn compile_kernel(k: &ir::Kernel, regions: &Regions, stride: u32) -> Result<FuncImage, Error> {
    let tm = machine()?;
    let cx = Context::create();
    let diags = Diagnostics::install(&cx);
    let module = cx.create_module(&k.name);
    module.set_triple(&tm.get_triple());
    module.set_data_layout(&tm.get_target_data().get_data_layout());
    let marks = outer::marked_on_this_thread();
    let f = lower::lower(&cx, &module, k, regions, stride)?;
    let outer_loop = outer::marked_on_this_thread() > marks;
    let dump = std::env::var("ZEKIT_SPIRV_DUMP").ok();
    if dump.as_deref() == Some("llvm") {
        eprintln!("{}", module.print_to_string().to_string());
    }
    module
        .verify()
        .map_err(|e| Error::internal(format!("llvm rejected kernel `{}`: {e}", k.name)))?;
    let options = PassBuilderOptions::create();
    options.set_loop_vectorization(true);
    options.set_loop_slp_vectorization(true);
    options.set_loop_unrolling(true);
    // Dead address arithmetic goes first, so that it does not keep private memory in memory.
    module
        .run_passes("function(dce),default<O3>", &tm, options)
        .map_err(|e| Error::internal(format!("llvm passes: {e}")))?;
    // Outer-loop vectorized code: what every lane computes alike, once (see `uniform`).
    // Then gathers and scatters of consecutive addresses become vector loads and stores (see
    // `consecutive`).
    let scalarized = outer_loop && uniform::scalarize(f);
    if consecutive::rewrite(f) || scalarized {
        module
            .run_passes("function(instcombine,early-cse,simplifycfg,dce)", &tm, PassBuilderOptions::create())
            .map_err(|e| Error::internal(format!("llvm passes: {e}")))?;
    }
    if dump.as_deref() == Some("llvm-opt") {
        eprintln!("{}", module.print_to_string().to_string());
    }
    let obj = tm
        .write_to_memory_buffer(&module, FileType::Object)
        .map_err(|e| Error::internal(format!("llvm codegen: {e}")))?;
    if dump.as_deref() == Some("llvm-asm") {
        if let Ok(asm) = tm.write_to_memory_buffer(&module, FileType::Assembly) {
            eprintln!("{}", String::from_utf8_lossy(asm.as_slice()));
        }
    }
    diags.check(&k.name)?;
    link::image(obj.as_slice(), &f.get_name().to_string_lossy())
        .map_err(|e| e.context(format!("kernel `{}`", k.name)))
}

#[cfg(test)]
mod tests {
    #[test]
    fn host_features_are_named() {
        let f = super::host_feature_names();
        assert!(f.iter().all(|x| x.starts_with("llvm:+")), "{f:?}");
        if cfg!(target_arch = "x86_64") {
            assert!(f.iter().any(|x| x == "llvm:+sse2"), "{f:?}");
        }
    }
}
