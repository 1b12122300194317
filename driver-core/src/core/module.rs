//! Modules (SPIR-V compiled by `zekit-spirv`) and their build logs.
//!
//! | topic | behaviour |
//! |---|---|
//! | `zeModuleCreate` format | `ZE_MODULE_FORMAT_IL_SPIRV` (SPIR-V 1.0 to 1.6, OpenCL kernels, Physical64); `NATIVE`: `INVALID_NATIVE_BINARY` (this driver has no native format) |
//! | bad SPIR-V, unsupported SPIR-V | `MODULE_BUILD_FAILURE`, the reason in the log line and the build log (`invalid SPIR-V: ...`, `unsupported: kernel `k`: instruction OpXxx`) |
//! | build flags | accepted; recorded in the build log (`-cl-*` options do not change the code) |
//! | specialization constants | applied by SpecId; each value read with the constant's own size; an id the module does not have: ignored (as OpenCL does) |
//! | build log | `zeModuleBuildLogGetString`: the text and its NUL (`pSize` with a null buffer asks the size); on success it says what was built. The generated entry layer writes `phBuildLog` on success only (after a failure it is null), so after a failure the reason is in the log line and `zeDriverGetLastErrorDescription` |
//! | `zeModuleGetKernelNames` | in entry point order |
//! | `zeModuleGetGlobalPointer` | program-scope variables the module exports (LinkageAttributes Export); others: `INVALID_GLOBAL_NAME` |
//! | `zeModuleDestroy` | allowed while kernels or launches use the module: they keep its code alive |

use std::collections::HashMap;
use std::ffi::CString;
use std::sync::Arc;

use zekit_icd::kinds;
use zekit_rt::Handle;
use zekit_spirv::Program;
use zekit_sys::*;

use super::objects::{Failure, Outcome};

/// Value of a module handle.
#[derive(Debug)]
pub struct ModuleObject {
    /// Its context.
    pub context: Handle<kinds::Context>,
    /// Its device.
    pub device: Handle<kinds::Device>,
    /// The compiled code (kernels and launches hold it too).
    pub program: Arc<Program>,
    names: Vec<CString>,
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

impl ModuleObject {
    /// Builds a module; on success also returns the build log's text.
    pub fn build(
        context: Handle<kinds::Context>,
        device: Handle<kinds::Device>,
        format: ze_module_format_t,
        input: &[u8],
        flags: &str,
        constants: Option<SpecConstants<'_>>,
    ) -> Outcome<(ModuleObject, String)> {
        if format == ze_module_format_t::NATIVE {
            return Err(Failure::new(
                ze_result_t::ERROR_INVALID_NATIVE_BINARY,
                "this driver has no native binary format: give SPIR-V (ZE_MODULE_FORMAT_IL_SPIRV)",
            ));
        }
        let failed = |e: zekit_spirv::Error| {
            Failure::new(ze_result_t::ERROR_MODULE_BUILD_FAILURE, e.to_string())
        };
        let mut spec = HashMap::new();
        if let Some(c) = constants {
            let sizes: HashMap<u32, u32> = zekit_spirv::spec_constants(input)
                .map_err(failed)?
                .into_iter()
                .collect();
            for (id, value) in c.ids.iter().zip(c.values) {
                let Some(size) = sizes.get(id) else { continue };
                if *value == 0 {
                    return Err(Failure::new(
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
        let program = zekit_spirv::compile(input, &spec).map_err(failed)?;
        let names: Vec<CString> = program
            .kernels
            .iter()
            .map(|k| CString::new(k.info.name.clone()).unwrap_or_default())
            .collect();
        let mut log = format!(
            "zekit-spirv: built {} kernel(s): {}",
            names.len(),
            program
                .kernels
                .iter()
                .map(|k| k.info.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
        if !flags.trim().is_empty() {
            log.push_str(&format!("; build flags `{}` accepted", flags.trim()));
        }
        Ok((
            ModuleObject {
                context,
                device,
                program: Arc::new(program),
                names,
            },
            log,
        ))
    }

    /// Kernel names, in order.
    pub fn kernel_names(&self) -> &[CString] {
        &self.names
    }

    /// Index of kernel `name`.
    pub fn kernel_index(&self, name: &str) -> Outcome<usize> {
        self.program
            .kernels
            .iter()
            .position(|k| k.info.name == name)
            .ok_or_else(|| {
                Failure::new(
                    ze_result_t::ERROR_INVALID_KERNEL_NAME,
                    format!("the module has no kernel `{name}`"),
                )
            })
    }

    /// Address and size of the exported program-scope variable `name`.
    pub fn global(&self, name: &str) -> Outcome<(usize, usize)> {
        self.program
            .globals
            .iter()
            .find(|g| g.0 == name)
            .map(|g| (g.1, g.2))
            .ok_or_else(|| {
                Failure::new(
                    ze_result_t::ERROR_INVALID_GLOBAL_NAME,
                    format!("the module exports no global variable `{name}`"),
                )
            })
    }
}
