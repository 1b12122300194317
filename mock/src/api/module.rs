//! `ModuleApi` and `ModuleBuildLogApi`: modules from SPIR-V, read (not compiled) with
//! `zekit-spirv`'s parser: entry points, argument layouts, required group sizes,
//! program-scope variables. Mirrors the CPU driver's answers:
//!
//! | topic | behaviour |
//! |---|---|
//! | format | `ZE_MODULE_FORMAT_IL_SPIRV`; `NATIVE`: `INVALID_NATIVE_BINARY` (the mock has no native format) |
//! | bad or unsupported SPIR-V | `MODULE_BUILD_FAILURE`, the reason in the build log (`phBuildLog` is handed out on failure too), the log line and the thread's last error |
//! | specialization constants | applied by SpecId, each value read with the constant's own size; unknown ids ignored |
//! | build log | on success: what was read, and the build flags |
//! | `zeModuleGetGlobalPointer` | exported program-scope variables, backed by the module's own memory with their initial bytes; others: `INVALID_GLOBAL_NAME` |
//! | `zeModuleDestroy` | allowed while kernels of the module live (they keep what they need) |

use std::collections::HashMap;
use std::ffi::{c_char, c_void, CStr, CString};
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use zekit_icd::{kinds, Handle, ModuleApi, ModuleBuildLogApi, ZeError, ZeResult};
use zekit_icd_rt::fail;
use zekit_sys::*;

use super::MockDriver;
use crate::objects::*;

/// The specialization constants of `desc` by SpecId, each read with its constant's size.
fn spec_constants(desc: &ze_module_desc_t, input: &[u8]) -> ZeResult<HashMap<u32, u64>> {
    let mut spec = HashMap::new();
    // SAFETY: `pConstants`, when not null, is the application's descriptor.
    let Some(c) = (unsafe { desc.pConstants.as_ref() }) else {
        return Ok(spec);
    };
    let n = c.numConstants as usize;
    if n == 0 {
        return Ok(spec);
    }
    if c.pConstantIds.is_null() || c.pConstantValues.is_null() {
        return Err(fail(
            ZeError::INVALID_NULL_POINTER,
            "desc->pConstants->pConstantIds or pConstantValues is null",
        ));
    }
    let sizes: HashMap<u32, u32> = zekit_spirv::spec_constants(input)
        .map_err(build_failure)?
        .into_iter()
        .collect();
    // SAFETY: the application gives `numConstants` ids and as many value pointers.
    let ids = unsafe { std::slice::from_raw_parts(c.pConstantIds, n) };
    // SAFETY: as above.
    let values = unsafe { std::slice::from_raw_parts(c.pConstantValues, n) };
    for (id, value) in ids.iter().zip(values) {
        let Some(size) = sizes.get(id) else { continue };
        if value.is_null() {
            return Err(fail(
                ZeError::INVALID_NULL_POINTER,
                format_args!("the value of specialization constant {id} is null"),
            ));
        }
        let mut bytes = [0u8; 8];
        let k = (*size as usize).min(8);
        // SAFETY: the application gives a value of the constant's type at this address.
        unsafe { std::ptr::copy_nonoverlapping(value.cast::<u8>(), bytes.as_mut_ptr(), k) };
        spec.insert(*id, u64::from_le_bytes(bytes));
    }
    Ok(spec)
}

fn build_failure(e: zekit_spirv::Error) -> ZeError {
    fail(ZeError::of(ZE_RESULT_ERROR_MODULE_BUILD_FAILURE), e)
}

#[zekit_icd::implement]
impl ModuleApi for MockDriver {
    fn ze_module_create(
        &self,
        h_context: Handle<kinds::Context>,
        h_device: Handle<kinds::Device>,
        desc: &ze_module_desc_t,
        ph_module: &mut Option<Handle<kinds::Module>>,
        ph_build_log: Option<&mut Option<Handle<kinds::ModuleBuildLog>>>,
    ) -> ZeResult<()> {
        Self::context_id(h_context)?;
        self.check_device(h_device)?;
        if desc.format == ZE_MODULE_FORMAT_NATIVE {
            return Err(fail(
                ZeError::of(ZE_RESULT_ERROR_INVALID_NATIVE_BINARY),
                "the mock has no native binary format: give SPIR-V (ZE_MODULE_FORMAT_IL_SPIRV)",
            ));
        }
        if desc.inputSize == 0 {
            return Err(fail(ZeError::INVALID_SIZE, "desc->inputSize is 0"));
        }
        if desc.pInputModule.is_null() {
            return Err(fail(
                ZeError::INVALID_NULL_POINTER,
                "desc->pInputModule is null",
            ));
        }
        // SAFETY: the application gives `inputSize` readable bytes at `pInputModule`.
        let input = unsafe { std::slice::from_raw_parts(desc.pInputModule, desc.inputSize) };
        let spec = spec_constants(desc, input)?;
        // The reader returns errors for bad input; a panic would be its bug, still an error here.
        let m = match std::panic::catch_unwind(|| zekit_spirv::inspect(input, &spec))
            .unwrap_or_else(|_| Err(zekit_spirv::Error::internal("the SPIR-V reader panicked")))
        {
            Ok(m) => m,
            Err(e) => {
                // A failed build still hands out its log, which says why.
                if let Some(out) = ph_build_log {
                    let text = CString::new(format!("zekit mock: {e}")).unwrap_or_default();
                    *out = Some(Handle::new(BuildLogObj { text }));
                }
                return Err(build_failure(e));
            }
        };
        let names: Vec<CString> = m
            .kernels
            .iter()
            .map(|k| CString::new(k.name.clone()).unwrap_or_default())
            .collect();
        let mut log = format!(
            "zekit mock: read {} kernel(s) (no code is generated): {}",
            names.len(),
            m.kernels
                .iter()
                .map(|k| k.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
        if !desc.pBuildFlags.is_null() {
            // SAFETY: a NUL-terminated string of the application.
            let flags = unsafe { CStr::from_ptr(desc.pBuildFlags) }.to_string_lossy();
            if !flags.trim().is_empty() {
                log.push_str(&format!("; build flags `{}` accepted", flags.trim()));
            }
        }
        let data: Box<[AtomicU64]> = m
            .data
            .chunks(8)
            .map(|c| {
                let mut w = [0u8; 8];
                w[..c.len()].copy_from_slice(c);
                AtomicU64::new(u64::from_le_bytes(w))
            })
            .collect();
        *ph_module = Some(Handle::new(ModuleObj {
            device: h_device,
            kernels: m.kernels.into_iter().map(Arc::new).collect(),
            names,
            data,
            globals: m
                .globals
                .into_iter()
                .map(|(n, o, s)| (n, o as usize, s as usize))
                .collect(),
        }));
        if let Some(out) = ph_build_log {
            *out = Some(Handle::new(BuildLogObj {
                text: CString::new(log).unwrap_or_default(),
            }));
        }
        Ok(())
    }

    /// Kernels of the module keep what they need: destroying it first is allowed.
    fn ze_module_destroy(&self, h_module: Handle<kinds::Module>) -> ZeResult<()> {
        h_module.get::<ModuleObj>().map(|_| ())
    }

    fn ze_module_get_kernel_names(
        &self,
        h_module: Handle<kinds::Module>,
        p_count: &mut u32,
        p_names: Option<&mut [*const c_char]>,
    ) -> ZeResult<()> {
        let m = h_module.get::<ModuleObj>()?;
        // The names live as long as the module (the application's contract).
        zekit_icd_rt::conv::fill_counted(&m.names, p_count, p_names, |n, slot| *slot = n.as_ptr());
        Ok(())
    }

    fn ze_module_get_properties(
        &self,
        h_module: Handle<kinds::Module>,
        p: &mut ze_module_properties_t,
    ) -> ZeResult<()> {
        h_module.get::<ModuleObj>()?;
        // Modules are complete: they import nothing.
        p.flags = ze_module_property_flags_t::empty();
        Ok(())
    }

    fn ze_module_get_global_pointer(
        &self,
        h_module: Handle<kinds::Module>,
        p_global_name: &CStr,
        p_size: Option<&mut usize>,
        pptr: Option<&mut *mut c_void>,
    ) -> ZeResult<()> {
        let m = h_module.get::<ModuleObj>()?;
        let name = p_global_name.to_string_lossy();
        let Some((_, offset, size)) = m.globals.iter().find(|g| g.0 == name) else {
            return Err(fail(
                ZeError::of(ZE_RESULT_ERROR_INVALID_GLOBAL_NAME),
                format_args!("the module exports no global variable `{name}`"),
            ));
        };
        if let Some(s) = p_size {
            *s = *size;
        }
        if let Some(p) = pptr {
            // The module object (and so `data`) lives while its handle does: the spec's
            // lifetime of the pointer. `AtomicU64::as_ptr` allows writes through it.
            let base = m.data.as_ptr() as *mut u8;
            // SAFETY: `offset + size` is inside `data`, laid out by the parser.
            *p = unsafe { base.add(*offset) }.cast();
        }
        Ok(())
    }

    fn ze_module_get_device_handle(
        &self,
        h_module: Handle<kinds::Module>,
        ph_device: &mut Option<Handle<kinds::Device>>,
    ) -> ZeResult<()> {
        *ph_device = Some(h_module.get::<ModuleObj>()?.device);
        Ok(())
    }
}

#[zekit_icd::implement]
impl ModuleBuildLogApi for MockDriver {
    fn ze_module_build_log_destroy(&self, h: Handle<kinds::ModuleBuildLog>) -> ZeResult<()> {
        h.get::<BuildLogObj>().map(|_| ())
    }

    // The trait passes the application's output pointer as it is (the spec's contract).
    #[allow(clippy::not_unsafe_ptr_arg_deref)]
    fn ze_module_build_log_get_string(
        &self,
        h: Handle<kinds::ModuleBuildLog>,
        p_size: &mut usize,
        p_build_log: *mut c_char,
    ) -> ZeResult<()> {
        let log = h.get::<BuildLogObj>()?;
        // SAFETY: the application provides `*p_size` writable bytes at a non-null `p_build_log`.
        unsafe { zekit_icd_rt::conv::copy_c_string(&log.text, p_size, p_build_log) };
        Ok(())
    }
}
