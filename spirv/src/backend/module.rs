//! The JIT modules kernels are compiled into: the host ISA and its features, the symbols
//! generated code names (host functions and the program's data), and the relocatable images
//! of compiled code, saved and loaded again without compiling ([`load`]).

use std::collections::HashMap;

use cranelift_codegen::ir::{types, AbiParam, Signature, Type};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_codegen::binemit::Reloc;
use cranelift_module::{
    DataId, FuncId, FuncOrDataId, Linkage, Module, ModuleReloc, ModuleRelocTarget,
};

use crate::rt::lanes;
use crate::rt::math::{copy_bytes, f64_to_f16, read_clock, shim_table};
use crate::Error;

use super::Code;

/// The name a saved image's relocation uses for the image's own first byte.
pub(crate) const SELF: &str = "zekit_self";

extern "C" {
    // The C library's, which LLVM's code may call for copies and fills it recognizes.
    fn memcpy(dst: *mut u8, src: *const u8, n: usize) -> *mut u8;
    fn memmove(dst: *mut u8, src: *const u8, n: usize) -> *mut u8;
    fn memset(dst: *mut u8, c: i32, n: usize) -> *mut u8;
}

/// The C library functions code may name: name, address, and whether the second parameter is
/// an `i32` (`memset`'s byte).
fn libc_symbols() -> [(&'static str, usize, bool); 3] {
    [
        ("memcpy", memcpy as *const () as usize, false),
        ("memmove", memmove as *const () as usize, false),
        ("memset", memset as *const () as usize, true),
    ]
}

/// The address of runtime function `name` (one of those generated code calls by name), taken
/// here alone. Rust does not promise one address per function (a copy may live in each
/// codegen unit that uses it), and calls find their import by address: an address taken at
/// another site could miss it, and the call would then be made to this process's address,
/// which saved code must never hold. 0 for another name.
pub(crate) fn runtime_fn(name: &str) -> usize {
    match name {
        "zekit_copy_bytes" => copy_bytes as *const () as usize,
        "zekit_read_clock" => read_clock as *const () as usize,
        "zekit_f64_to_f16" => f64_to_f16 as *const () as usize,
        "zekit_printf" => crate::printf::zekit_printf as *const () as usize,
        "zekit_lanes_gather" => lanes::lanes_gather as *const () as usize,
        "zekit_lanes_scatter" => lanes::lanes_scatter as *const () as usize,
        "zekit_image" => crate::image::zekit_image as *const () as usize,
        _ => 0,
    }
}

/// The symbols generated code refers to (through relocations, so that the code can be saved
/// and loaded again, see [`load`]): the math shims, `memmove`, and the program's data.
pub(super) fn symbols(data: usize) -> Vec<(&'static str, usize)> {
    let mut v: Vec<(&'static str, usize)> =
        shim_table().into_iter().map(|(n, a, _, _)| (n, a)).collect();
    for name in ["zekit_copy_bytes", "zekit_read_clock", "zekit_f64_to_f16", "zekit_printf"] {
        v.push((name, runtime_fn(name)));
    }
    v.push(("zekit_lanes_gather", runtime_fn("zekit_lanes_gather")));
    v.push(("zekit_lanes_scatter", runtime_fn("zekit_lanes_scatter")));
    #[cfg(target_arch = "x86_64")]
    v.extend(lanes::stream_shims().map(|(n, a, _)| (n, a)));
    v.push(("zekit_image", runtime_fn("zekit_image")));
    v.push(("zekit_data", data));
    v.extend(libc_symbols().map(|(n, a, _)| (n, a)));
    v
}

/// A JIT module with every symbol of `symbols` declared; returns it, the function ids by
/// address, and the data id.
#[allow(clippy::type_complexity)]
pub(super) fn new_module(
    isa: cranelift_codegen::isa::OwnedTargetIsa,
    data: usize,
) -> Result<(JITModule, HashMap<usize, FuncId>, DataId), Error> {
    let cl = |e: cranelift_module::ModuleError| Error::internal(format!("cranelift: {e}"));
    let mut builder = JITBuilder::with_isa(isa, cranelift_module::default_libcall_names());
    for (name, addr) in symbols(data) {
        builder.symbol(name, addr as *const u8);
    }
    let mut module = JITModule::new(builder);
    let mut funcs = HashMap::new();
    let call_conv = module.isa().default_call_conv();
    // Each function the code calls, declared as an import by name (saved code names it in
    // relocations, not by this process's address).
    let mut import = |name: &str, addr: usize, params: &[Type], ret: Option<Type>| {
        let mut sig = Signature::new(call_conv);
        sig.params.extend(params.iter().map(|t| AbiParam::new(*t)));
        sig.returns.extend(ret.map(AbiParam::new));
        let id = module.declare_function(name, Linkage::Import, &sig).map_err(cl)?;
        funcs.insert(addr, id);
        Ok::<(), Error>(())
    };
    for (name, addr, arity, double) in shim_table() {
        let t = if double { types::F64 } else { types::F32 };
        import(name, addr, &vec![t; arity], Some(t))?;
    }
    let (i32_, i64_) = (types::I32, types::I64);
    let f = runtime_fn;
    import("zekit_copy_bytes", f("zekit_copy_bytes"), &[i64_; 3], None)?;
    import("zekit_read_clock", f("zekit_read_clock"), &[], Some(i64_))?;
    import("zekit_f64_to_f16", f("zekit_f64_to_f16"), &[types::F64, i32_], Some(i32_))?;
    import("zekit_printf", f("zekit_printf"), &[i64_, i64_, i32_], Some(i32_))?;
    import("zekit_image", f("zekit_image"), &[i32_, i64_, i64_, i64_, i64_], None)?;
    // The lockstep shims (`rt/lanes.rs`).
    import("zekit_lanes_gather", f("zekit_lanes_gather"), &[i64_, i64_, i32_], None)?;
    import("zekit_lanes_scatter", f("zekit_lanes_scatter"), &[i64_, i32_, i64_], None)?;
    #[cfg(target_arch = "x86_64")]
    for (name, addr, t) in lanes::stream_shims() {
        import(name, addr, &[i64_, t, t, t, t], None)?;
    }
    for (name, addr, byte) in libc_symbols() {
        import(name, addr, &[i64_, if byte { i32_ } else { i64_ }, i64_], Some(i64_))?;
    }
    let data = module
        .declare_data("zekit_data", Linkage::Import, true, false)
        .map_err(cl)?;
    Ok((module, funcs, data))
}

pub(super) fn host_isa() -> Result<cranelift_codegen::isa::OwnedTargetIsa, Error> {
    let mut flags = settings::builder();
    let set = |f: &mut settings::Builder, k: &str, v: &str| {
        f.set(k, v)
            .map_err(|e| Error::internal(format!("cranelift flag {k}: {e}")))
    };
    set(&mut flags, "opt_level", "speed")?;
    // Cranelift's own IR verifier runs in debug builds (the tests and the fuzzer), not in
    // release ones, where it was a large share of each module's build (`verify.rs` still checks
    // our IR before code generation).
    set(&mut flags, "enable_verifier", if cfg!(debug_assertions) { "true" } else { "false" })?;
    set(&mut flags, "use_colocated_libcalls", "false")?;
    set(&mut flags, "is_pic", "false")?;
    cranelift_native::builder()
        .map_err(|e| Error::internal(format!("this host is not supported by Cranelift: {e}")))?
        .finish(settings::Flags::new(flags))
        .map_err(|e| Error::internal(format!("cranelift: {e}")))
}

/// The target and the CPU features code is generated for: the triple, then the enabled
/// boolean ISA flags, sorted.
pub(super) fn features_of(isa: &dyn cranelift_codegen::isa::TargetIsa) -> (String, Vec<String>) {
    let mut f: Vec<String> = isa
        .isa_flags()
        .iter()
        .filter(|f| f.as_bool() == Some(true))
        .map(|f| f.name.to_string())
        .collect();
    f.sort();
    (isa.triple().to_string(), f)
}

/// The host's target and CPU features, as [`Code::features`] records them.
pub fn host_features() -> Result<(String, Vec<String>), Error> {
    Ok(features_of(&*host_isa()?))
}

/// What a relocation of saved code refers to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A symbol of `symbols`, by name.
    Symbol(String),
    /// A Cranelift library call, by name.
    LibCall(String),
}

/// A relocation of saved code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RelocImage {
    /// Offset in the function's bytes.
    pub offset: u32,
    /// Its kind ([`reloc_code`]).
    pub kind: u8,
    /// What it refers to.
    pub target: Target,
    /// The addend.
    pub addend: i64,
}

/// The machine code of one kernel, relocatable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FuncImage {
    /// Code alignment.
    pub align: u64,
    /// The bytes.
    pub bytes: Vec<u8>,
    /// Where addresses go.
    pub relocs: Vec<RelocImage>,
}

/// The relocation kinds a saved image may hold: absolute 64-bit addresses, what non-PIC code
/// uses for the symbols it names (a PC-relative one could overflow when the loader places the
/// code; code with any other kind is not saved).
const RELOCS: &[Reloc] = &[Reloc::Abs8];

/// The code of a relocation kind in a saved image (`None`: such code cannot be saved).
pub fn reloc_code(r: Reloc) -> Option<u8> {
    RELOCS.iter().position(|x| *x == r).map(|i| i as u8)
}

pub(super) fn image_of(
    module: &JITModule,
    ctx: &cranelift_codegen::Context,
    id: FuncId,
) -> Option<FuncImage> {
    let cc = ctx.compiled_code()?;
    let mut relocs = Vec::new();
    for r in cc.buffer.relocs() {
        let m = ModuleReloc::from_mach_reloc(r, &ctx.func, id);
        let target = match m.name {
            ModuleRelocTarget::User { namespace: 0, index } => Target::Symbol(
                module
                    .declarations()
                    .get_function_decl(FuncId::from_u32(index))
                    .name
                    .clone()?,
            ),
            ModuleRelocTarget::User { namespace: 1, index } => Target::Symbol(
                module
                    .declarations()
                    .get_data_decl(DataId::from_u32(index))
                    .name
                    .clone()?,
            ),
            // Library calls (Cranelift's fallbacks for instructions the CPU lacks) are resolved
            // by the system's dynamic linker; such code is not saved.
            _ => return None,
        };
        relocs.push(RelocImage {
            offset: m.offset,
            kind: reloc_code(m.kind)?,
            target,
            addend: m.addend,
        });
    }
    Some(FuncImage {
        align: u64::from(cc.buffer.alignment),
        bytes: cc.code_buffer().to_vec(),
        relocs,
    })
}

/// Loads saved code ([`Code::images`]) without compiling: the images are copied into
/// executable memory and relocated for this process, `data` being the program's data.
/// `features`: what the code was generated for; a target other than the host's, or a CPU
/// feature the host lacks, is refused.
pub fn load(
    images: &[FuncImage],
    features: &(String, Vec<String>),
    data: usize,
) -> Result<Code, Error> {
    let isa = host_isa()?;
    let host = features_of(&*isa);
    // Code of the LLVM tier also names the host's features as LLVM knows them.
    #[cfg(feature = "llvm")]
    let host = {
        let mut h = host;
        h.1.extend(super::llvm::host_feature_names());
        h
    };
    if host.0 != features.0 {
        return Err(Error::unsupported(format!(
            "code for {}, this host is {}",
            features.0, host.0
        )));
    }
    let missing: Vec<&str> = features
        .1
        .iter()
        .filter(|f| !host.1.contains(f))
        .map(|s| s.as_str())
        .collect();
    if !missing.is_empty() {
        return Err(Error::unsupported(format!(
            "code for CPU features this host lacks: {}",
            missing.join(", ")
        )));
    }
    let cl = |e: cranelift_module::ModuleError| Error::internal(format!("cranelift: {e}"));
    let (mut module, _, _) = new_module(isa, data)?;
    let mut ids = Vec::new();
    for (n, img) in images.iter().enumerate() {
        let mut sig = module.make_signature();
        sig.params.push(AbiParam::new(types::I64));
        let id = module
            .declare_function(&format!("zekit_kernel_{n}"), Linkage::Local, &sig)
            .map_err(cl)?;
        let mut relocs = Vec::new();
        for r in &img.relocs {
            let kind = *RELOCS
                .get(usize::from(r.kind))
                .ok_or_else(|| Error::invalid(format!("relocation kind {}", r.kind)))?;
            if u64::from(r.offset) + 8 > img.bytes.len() as u64 {
                return Err(Error::invalid("a relocation outside its code"));
            }
            let name = match &r.target {
                // The image's own first byte (code of the LLVM tier naming its constants).
                Target::Symbol(s) if s == SELF => ModuleRelocTarget::user(0, id.as_u32()),
                Target::Symbol(s) => match module.get_name(s) {
                    Some(FuncOrDataId::Func(f)) => ModuleRelocTarget::user(0, f.as_u32()),
                    Some(FuncOrDataId::Data(d)) => ModuleRelocTarget::user(1, d.as_u32()),
                    None => return Err(Error::invalid(format!("unknown symbol `{s}`"))),
                },
                Target::LibCall(l) => {
                    return Err(Error::invalid(format!(
                        "a library call (`{l}`): not in native binaries"
                    )))
                }
            };
            // The loader adds the addend to a symbol's address: keep it small.
            if r.addend.unsigned_abs() > 1 << 31 {
                return Err(Error::invalid(format!("relocation addend {}", r.addend)));
            }
            relocs.push(ModuleReloc {
                offset: r.offset,
                kind,
                name,
                addend: r.addend,
            });
        }
        if !img.align.is_power_of_two() || img.align > 4096 {
            return Err(Error::invalid(format!("code alignment {}", img.align)));
        }
        module
            .define_function_bytes(id, img.align, &img.bytes, &relocs)
            .map_err(cl)?;
        ids.push(id);
    }
    module.finalize_definitions().map_err(cl)?;
    let entries = ids
        .iter()
        .map(|id| module.get_finalized_function(*id) as usize)
        .collect();
    Ok(Code {
        modules: vec![module],
        entries,
        images: Some(images.to_vec()),
        features: features.clone(),
    })
}
