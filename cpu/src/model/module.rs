//! Modules (SPIR-V compiled by `zekit-spirv`) and their build logs.
//!
//! | topic | behaviour |
//! |---|---|
//! | `zeModuleCreate` format | `ZE_MODULE_FORMAT_IL_SPIRV` (SPIR-V 1.0 to 1.6, OpenCL kernels, Physical64); `ZE_MODULE_FORMAT_NATIVE`: what `zeModuleGetNativeBinary` returned (`zekit_spirv::native`), loaded without compiling; another format version, a corrupt binary, another target or CPU features this host lacks: `INVALID_NATIVE_BINARY` naming the reason |
//! | `zeModuleGetNativeBinary` | the relocatable machine code of the kernels, their reports, the initial program-scope data, the target and CPU features; a null buffer or `*pSize` 0 asks the size; a smaller buffer: `INVALID_SIZE`; a module from a native binary exports and imports nothing (it holds no SPIR-V) |
//! | when the code is generated | `zeModuleCreate` of SPIR-V returns once the module is parsed, validated and lowered (so every error but a code generator failure fails it); the machine code of its kernels is generated in the background, on worker threads, kernels in parallel ([`super::build_pool`]); `zeKernelCreate`, `zeModuleGetNativeBinary`, `zeModuleGetFunctionPointer` and `zeModuleGetGlobalPointer` wait for it (generating the code of kernels not started yet themselves); a code generator failure (a compiler bug): `MODULE_BUILD_FAILURE` from those calls, the log line naming the kernel |
//! | bad SPIR-V, unsupported SPIR-V | `MODULE_BUILD_FAILURE`, the reason in the log line and the build log (`invalid SPIR-V: ...`, `unsupported: kernel `k`: instruction OpXxx`) |
//! | build flags | accepted; recorded in the build log (`-cl-*` options do not change the code) |
//! | specialization constants | applied by SpecId; each value read with the constant's own size; an id the module does not have: ignored (as OpenCL does) |
//! | build log | `zeModuleBuildLogGetString`: the text and its NUL (`pSize` with a null buffer asks the size); on success it says what was built; after a failure it names the reason: `phBuildLog` (and `zeModuleDynamicLink`'s `phLinkLog`) is returned on failure too, besides the log line and `zeDriverGetLastErrorDescription` |
//! | `zeModuleGetKernelNames` | in entry point order |
//! | `zeModuleGetGlobalPointer` | program-scope variables the module exports (LinkageAttributes Export); others: `INVALID_GLOBAL_NAME` |
//! | imports (functions declared with LinkageAttributes Import) | the module is built by `zeModuleDynamicLink`, with the modules exporting them; until then `zeKernelCreate` and `zeModuleGetFunctionPointer` answer `INVALID_MODULE_UNLINKED`; `zeModuleGetProperties` reports `IMPORTS` for a module with imports |
//! | `zeModuleDynamicLink` | each module with unresolved imports is compiled with the exported functions of the others inlined into its kernels; an import no other module exports: `MODULE_LINK_FAILURE`, the log line naming the symbol (nothing is linked then); a linked function's program-scope variables: read-only ones are copied into the importing module; one using its own module's writable (CrossWorkgroup) variables: `MODULE_LINK_FAILURE` (in a module program of several inputs, `ze_module_program_exp_desc_t`, the inputs are one module and share them) |
//! | `zeModuleGetFunctionPointer` | a kernel's work-group function (`extern "C" fn(*mut zekit_spirv::GroupCtx)`, callable from the host); in a module declaring FunctionPointersINTEL, an exported function that is not a kernel: the pointer value the module's kernels call it by (an address in the module's data, not host code), which the host may pass to those kernels (a `ulong` argument, or in a buffer); other names, and exported functions of modules without function pointers (inlined, no address): `INVALID_FUNCTION_NAME` |
//! | `zeModuleDestroy` | allowed while kernels or launches use the module: they keep its code alive; while its code is generated: the kernels not started are skipped |

use std::collections::HashMap;
use std::ffi::CString;
use std::sync::{Arc, OnceLock};

use zekit_icd::kinds;
use zekit_icd_rt::Handle;
use zekit_spirv::Program;
use zekit_sys::*;

use super::build_pool::Build;
use super::objects::{ZeError, ZeResult};

/// Value of a module handle.
#[derive(Debug)]
pub struct ModuleObject {
    /// Its context.
    pub context: Handle<kinds::Context>,
    /// Its device.
    pub device: Handle<kinds::Device>,
    /// The SPIR-V (kept for linking: an importer inlines this module's exports).
    spirv: Vec<u8>,
    /// Specialization constants by SpecId.
    spec: HashMap<u32, u64>,
    /// Functions it imports and exports, by name, sorted.
    imports: Vec<String>,
    exports: Vec<String>,
    /// Kernel names, in entry point order.
    names: Vec<CString>,
    /// The compiled code (kernels and launches hold the program too): set when built (its
    /// code generated in the background: [`super::build_pool`]), or when linked for a module with
    /// imports.
    program: OnceLock<Arc<Build>>,
}

impl Drop for ModuleObject {
    fn drop(&mut self) {
        if let Some(b) = self.program.get() {
            b.cancel();
        }
    }
}

/// Value of a build log handle.
#[derive(Debug)]
pub struct BuildLogObject {
    /// The text.
    pub text: CString,
}

/// Specialization constants as the application gives them: ids and pointers to values.
pub struct SpecConstants<'a> {
    /// SpecIds.
    pub ids: &'a [u32],
    /// Their values' addresses.
    pub values: &'a [usize],
}

fn build_failure(e: zekit_spirv::Error) -> ZeError {
    ZeError::new(ze_result_t::ERROR_MODULE_BUILD_FAILURE, e.to_string())
}

/// Names of the entry points, from the SPIR-V (without compiling it).
fn entry_names(input: &[u8]) -> ZeResult<Vec<CString>> {
    let (insts, _, _) = zekit_spirv::spv::parse(input).map_err(build_failure)?;
    insts
        .iter()
        .filter(|i| i.op == 15)
        .map(|i| {
            let (name, _) = i.string(2).map_err(build_failure)?;
            Ok(CString::new(name).unwrap_or_default())
        })
        .collect()
}

impl ModuleObject {
    /// Builds a module; on success also returns the build log's text. A module with imports
    /// is only checked here and compiled by [`ModuleObject::link`].
    pub fn build(
        context: Handle<kinds::Context>,
        device: Handle<kinds::Device>,
        format: ze_module_format_t,
        input: &[u8],
        flags: &str,
        constants: Option<SpecConstants<'_>>,
    ) -> ZeResult<(ModuleObject, String)> {
        if format == ze_module_format_t::NATIVE {
            let program = zekit_spirv::native::load(input).map_err(|e| {
                ZeError::new(
                    ze_result_t::ERROR_INVALID_NATIVE_BINARY,
                    format!("native binary: {e}"),
                )
            })?;
            let names: Vec<CString> = program
                .kernels
                .iter()
                .map(|k| CString::new(k.info.name.clone()).unwrap_or_default())
                .collect();
            let log = format!(
                "zekit-spirv: loaded {} kernel(s) from a native binary, nothing compiled",
                names.len()
            );
            let m = ModuleObject {
                context,
                device,
                spirv: Vec::new(),
                spec: HashMap::new(),
                imports: Vec::new(),
                exports: Vec::new(),
                names,
                program: OnceLock::new(),
            };
            let _ = m.program.set(Build::ready(Arc::new(program)));
            return Ok((m, log));
        }
        let mut spec = HashMap::new();
        if let Some(c) = constants {
            let sizes: HashMap<u32, u32> = zekit_spirv::spec_constants(input)
                .map_err(build_failure)?
                .into_iter()
                .collect();
            for (id, value) in c.ids.iter().zip(c.values) {
                let Some(size) = sizes.get(id) else { continue };
                if *value == 0 {
                    return Err(ZeError::new(
                        ze_result_t::ERROR_INVALID_NULL_POINTER,
                        format!("the value of specialization constant {id} is null"),
                    ));
                }
                let mut bytes = [0u8; 8];
                let n = (*size as usize).min(8);
                // SAFETY: the application gives a value of the constant's type at this address.
                unsafe {
                    std::ptr::copy_nonoverlapping(*value as *const u8, bytes.as_mut_ptr(), n)
                };
                spec.insert(*id, u64::from_le_bytes(bytes));
            }
        }
        let (imports, exports) = zekit_spirv::linkage(input).map_err(build_failure)?;
        let names = entry_names(input)?;
        let m = ModuleObject {
            context,
            device,
            spirv: input.to_vec(),
            spec,
            imports,
            exports,
            names,
            program: OnceLock::new(),
        };
        let mut log = if m.imports.is_empty() {
            let prepared =
                zekit_spirv::prepare_linked(input, &m.spec, &[], zekit_spirv::Linking::OneModule).map_err(build_failure)?;
            let log = format!(
                "zekit-spirv: built {} kernel(s): {}",
                prepared.infos.len(),
                prepared
                    .infos
                    .iter()
                    .map(|k| k.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            let _ = m.program.set(Build::start(prepared));
            log
        } else {
            format!(
                "zekit-spirv: {} kernel(s) to build when linked; imports {}: link with zeModuleDynamicLink",
                m.names.len(),
                m.imports.join(", ")
            )
        };
        if !flags.trim().is_empty() {
            log.push_str(&format!("; build flags `{}` accepted", flags.trim()));
        }
        Ok((m, log))
    }

    /// Functions it imports, by name.
    pub fn imports(&self) -> &[String] {
        &self.imports
    }

    /// Functions it exports, by name.
    pub fn exports(&self) -> &[String] {
        &self.exports
    }

    /// Whether it still waits for `zeModuleDynamicLink`.
    pub fn unlinked(&self) -> bool {
        self.program.get().is_none()
    }

    /// The compiled code, once generated (waits for it); `INVALID_MODULE_UNLINKED` before a
    /// module with imports is linked; `MODULE_BUILD_FAILURE` when the code generator failed.
    pub fn program(&self) -> ZeResult<Arc<Program>> {
        let build = self.program.get().ok_or_else(|| {
            ZeError::new(
                ze_result_t::ERROR_INVALID_MODULE_UNLINKED,
                format!(
                    "the module imports {}: link it first (zeModuleDynamicLink)",
                    self.imports.join(", ")
                ),
            )
        })?;
        build.wait().map_err(|e| {
            ZeError::new(
                ze_result_t::ERROR_MODULE_BUILD_FAILURE,
                format!("the module's code generation failed: {e}"),
            )
        })
    }

    /// Kernel names, in order.
    pub fn kernel_names(&self) -> &[CString] {
        &self.names
    }

    /// Index of kernel `name`.
    pub fn kernel_index(&self, name: &str) -> ZeResult<usize> {
        self.names
            .iter()
            .position(|k| k.to_bytes() == name.as_bytes())
            .ok_or_else(|| {
                ZeError::new(
                    ze_result_t::ERROR_INVALID_KERNEL_NAME,
                    format!("the module has no kernel `{name}`"),
                )
            })
    }

    /// Address and size of the exported program-scope variable `name`.
    pub fn global(&self, name: &str) -> ZeResult<(usize, usize)> {
        self.program()?
            .globals
            .iter()
            .find(|g| g.0 == name)
            .map(|g| (g.1, g.2))
            .ok_or_else(|| {
                ZeError::new(
                    ze_result_t::ERROR_INVALID_GLOBAL_NAME,
                    format!("the module exports no global variable `{name}`"),
                )
            })
    }

    /// `zeModuleGetNativeBinary`: the compiled code as a native binary.
    pub fn native_binary(&self) -> ZeResult<Vec<u8>> {
        self.program()?.native_binary().map_err(|e| {
            ZeError::new(
                ze_result_t::ERROR_UNSUPPORTED_FEATURE,
                format!("no native binary: {e}"),
            )
        })
    }

    /// `zeModuleGetFunctionPointer`: the work-group function of kernel `name`, or the pointer
    /// value of exported function `name` in a module using function pointers.
    pub fn function(&self, name: &str) -> ZeResult<usize> {
        let program = self.program()?;
        if let Some(k) = program.kernel(name) {
            return Ok(k.entry());
        }
        if let Some(f) = program.function(name) {
            return Ok(f);
        }
        let why = if self.exports.iter().any(|e| e == name) {
            "is inlined into the kernels that call it and has no address of its own (the module does not use function pointers: capability FunctionPointersINTEL)"
        } else {
            "is neither a kernel nor an exported function of the module"
        };
        Err(ZeError::new(
            ze_result_t::ERROR_INVALID_FUNCTION_NAME,
            format!("function `{name}` {why}"),
        ))
    }

    /// `zeModuleDynamicLink`: compiles each module with imports, its imports resolved by the
    /// exports of the others; returns the link log. All or nothing: an unresolved import or a
    /// failed build links no module. `linking`: separate modules (`zeModuleDynamicLink`) or
    /// the inputs of one module program.
    pub fn link(modules: &[&ModuleObject], linking: zekit_spirv::Linking) -> ZeResult<String> {
        let mut log = Vec::new();
        let mut missing = Vec::new();
        for (n, m) in modules.iter().enumerate() {
            if !m.unlinked() {
                continue;
            }
            for name in &m.imports {
                let found = modules
                    .iter()
                    .enumerate()
                    .any(|(o, x)| o != n && x.exports.contains(name));
                if !found {
                    missing.push(format!("module {n}: unresolved import `{name}`"));
                }
            }
        }
        if !missing.is_empty() {
            return Err(ZeError::new(
                ze_result_t::ERROR_MODULE_LINK_FAILURE,
                missing.join("; "),
            ));
        }
        let mut built = Vec::new();
        for (n, m) in modules.iter().enumerate() {
            if !m.unlinked() {
                continue;
            }
            let libs: Vec<(&[u8], &HashMap<u32, u64>)> = modules
                .iter()
                .enumerate()
                .filter(|(o, _)| *o != n)
                .map(|(_, x)| (&x.spirv[..], &x.spec))
                .collect();
            let program = zekit_spirv::compile_linked(&m.spirv, &m.spec, &libs, linking).map_err(|e| {
                ZeError::new(
                    ze_result_t::ERROR_MODULE_LINK_FAILURE,
                    format!("module {n}: {e}"),
                )
            })?;
            log.push(format!(
                "module {n}: linked {} ({} kernel(s))",
                m.imports.join(", "),
                program.kernels.len()
            ));
            built.push((n, program));
        }
        for (n, p) in built {
            // Another thread may have linked it meanwhile: its program stays.
            let _ = modules[n].program.set(Build::ready(Arc::new(p)));
        }
        if log.is_empty() {
            log.push("nothing to link".to_string());
        }
        Ok(log.join("\n"))
    }
}
