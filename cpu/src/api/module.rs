//! ModuleApi and ModuleBuildLogApi: modules compiled from SPIR-V (see `crate::model::module`).

use super::*;
use crate::model::module::{BuildLogObject, ModuleObject, SpecConstants};

fn module(h: Handle<kinds::Module>) -> ZeResult<Obj<ModuleObject>> {
    h.get::<ModuleObject>()
}

/// The specialization constants of a module descriptor.
fn constants(desc: &ze_module_desc_t) -> ZeResult<Option<(Vec<u32>, Vec<usize>)>> {
    // SAFETY: `pConstants`, when not null, is the application's descriptor.
    let Some(c) = (unsafe { desc.pConstants.as_ref() }) else {
        return Ok(None);
    };
    let n = c.numConstants as usize;
    if n == 0 {
        return Ok(None);
    }
    if c.pConstantIds.is_null() || c.pConstantValues.is_null() {
        return Err(null_pointer("pConstants->pConstantIds or pConstantValues"));
    }
    // SAFETY: the application gives `numConstants` ids and as many value pointers.
    let ids = unsafe { std::slice::from_raw_parts(c.pConstantIds, n) }.to_vec();
    // SAFETY: as above.
    let values = unsafe { std::slice::from_raw_parts(c.pConstantValues, n) }
        .iter()
        .map(|p| *p as usize)
        .collect();
    Ok(Some((ids, values)))
}

/// The `ze_module_program_exp_desc_t` chained to a module descriptor, if any.
fn program_desc(desc: &ze_module_desc_t) -> Option<&ze_module_program_exp_desc_t> {
    // SAFETY: the application's chain, read-only for this call.
    let mut links = unsafe { chain::Links::new(desc.pNext) };
    links
        .find(|l| l.stype == ze_structure_type_t::MODULE_PROGRAM_EXP_DESC.0)
        // SAFETY: a link of that structure type is that structure.
        .map(|l| unsafe { &*l.ptr.cast::<ze_module_program_exp_desc_t>() })
}

/// `zeModuleCreate` with `ze_module_program_exp_desc_t` (`ZE_experimental_module_program`):
/// each input is built as a module, then the one input with kernels is linked against the others
/// (`zeModuleDynamicLink`'s rules): SYCL links its device libraries so. Kernels in more than one
/// input are `UNSUPPORTED_FEATURE`.
fn build_program(
    h_context: Handle<kinds::Context>,
    h_device: Handle<kinds::Device>,
    format: ze_module_format_t,
    p: &ze_module_program_exp_desc_t,
) -> ZeResult<(ModuleObject, String)> {
    let n = p.count as usize;
    if n == 0 || p.inputSizes.is_null() || p.pInputModules.is_null() {
        return Err(ZeError::new(ZE_RESULT_ERROR_INVALID_ARGUMENT, "a module program of no inputs (count 0, or null arrays)"));
    }
    // SAFETY: the application gives `count` sizes, input pointers and (when not null) build
    // flags and constants.
    let (sizes, inputs) = unsafe { (std::slice::from_raw_parts(p.inputSizes, n), std::slice::from_raw_parts(p.pInputModules, n)) };
    let mut modules = Vec::with_capacity(n);
    let mut log = Vec::new();
    for i in 0..n {
        if inputs[i].is_null() {
            return Err(ZeError::new(ZE_RESULT_ERROR_INVALID_NULL_POINTER, format!("input {i} of the module program is null")));
        }
        // SAFETY: as above.
        let input = unsafe { std::slice::from_raw_parts(inputs[i], sizes[i]) };
        // SAFETY: as above; each entry, when not null, is a NUL-terminated string.
        let flags = (!p.pBuildFlags.is_null())
            .then(|| unsafe { *p.pBuildFlags.add(i) })
            .filter(|f| !f.is_null())
            .map(|f| unsafe { CStr::from_ptr(f) }.to_string_lossy().into_owned())
            .unwrap_or_default();
        let one = ze_module_desc_t {
            // SAFETY: as above.
            pConstants: if p.pConstants.is_null() { std::ptr::null() } else { unsafe { *p.pConstants.add(i) } },
            ..Default::default()
        };
        let constants = constants(&one)?;
        let spec = constants.as_ref().map(|(ids, values)| SpecConstants { ids, values });
        let (m, l) = ModuleObject::build(h_context, h_device, format, input, &flags, spec)
            .map_err(|f| ZeError::new(f.code(), format!("input {i} of the module program: {}", f.reason())))?;
        log.push(format!("input {i}: {l}"));
        modules.push(m);
    }
    let with_kernels: Vec<usize> = (0..n).filter(|&i| !modules[i].kernel_names().is_empty()).collect();
    let main = match with_kernels[..] {
        [i] => i,
        [] => 0,
        _ => {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
                format!("kernels in {} inputs of a module program (inputs {with_kernels:?}); one input with kernels is linked against the others", with_kernels.len()),
            ))
        }
    };
    if modules[main].unlinked() {
        let all: Vec<&ModuleObject> = modules.iter().collect();
        log.push(ModuleObject::link(&all, zekit_spirv::Linking::OneModule)?);
    }
    let m = modules.swap_remove(main);
    Ok((m, log.join("\n")))
}

/// A build's or link's result and the log handed out with it: the log it wrote on success, the
/// reason the call returns (and the entry layer logs) on failure.
fn with_log<T>(r: ZeResult<(T, String)>) -> (ZeResult<T>, String) {
    match r {
        Ok((v, log)) => (Ok(v), log),
        Err(e) => {
            let log = e.reason().to_string();
            (Err(e), log)
        }
    }
}

#[zekit_icd::implement]
impl ModuleApi for CpuDriver {
    fn ze_module_create(
        &self,
        h_context: Handle<kinds::Context>,
        h_device: Handle<kinds::Device>,
        desc: &ze_module_desc_t,
        ph_module: &mut Option<Handle<kinds::Module>>,
        ph_build_log: Option<&mut Option<Handle<kinds::ModuleBuildLog>>>,
    ) -> ZeResult<()> {
        context(h_context)?;
        ordinal(h_device)?;
        if let Some(p) = program_desc(desc) {
            let (result, log) = with_log(build_program(h_context, h_device, desc.format, p));
            if let Some(out) = ph_build_log {
                *out = Some(log_handle(log));
            }
            *ph_module = Some(Handle::new(result?));
            return Ok(());
        }
        if desc.pInputModule.is_null() {
            return Err(null_pointer("desc->pInputModule"));
        }
        // The generated check lets 0 through for a module program (`LENIENT_CONDITIONS`).
        if desc.inputSize == 0 {
            return Err(zekit_icd_rt::fail(ZeError::INVALID_SIZE, "`0 == desc->inputSize`"));
        }
        // SAFETY: the application gives `inputSize` bytes at `pInputModule`.
        let input = unsafe { std::slice::from_raw_parts(desc.pInputModule, desc.inputSize) };
        let flags = if desc.pBuildFlags.is_null() {
            String::new()
        } else {
            // SAFETY: a NUL-terminated string of the application.
            unsafe { CStr::from_ptr(desc.pBuildFlags) }
                .to_string_lossy()
                .into_owned()
        };
        let constants = constants(desc)?;
        let spec = constants
            .as_ref()
            .map(|(ids, values)| SpecConstants { ids, values });
        let built = ModuleObject::build(h_context, h_device, desc.format, input, &flags, spec);
        // Success or failure, the log says what happened (a failure: the reason the call returns).
        let (result, log) = with_log(built);
        if let Some(out) = ph_build_log {
            *out = Some(log_handle(log));
        }
        *ph_module = Some(Handle::new(result?));
        Ok(())
    }

    fn ze_module_destroy(&self, h_module: Handle<kinds::Module>) -> ZeResult<()> {
        // `[release]`: the entry layer takes the handle out; kernels and launches keep the code.
        module(h_module).map(|_| ())
    }

    fn ze_module_get_kernel_names(
        &self,
        h_module: Handle<kinds::Module>,
        p_count: &mut u32,
        p_names: Option<&mut [*const c_char]>,
    ) -> ZeResult<()> {
        let m = module(h_module)?;
        // The names live as long as the module object (the application's contract).
        zekit_icd_rt::conv::fill_counted(m.kernel_names(), p_count, p_names, |n, slot| {
            *slot = n.as_ptr()
        });
        Ok(())
    }

    fn ze_module_get_properties(
        &self,
        h_module: Handle<kinds::Module>,
        p: &mut ze_module_properties_t,
    ) -> ZeResult<()> {
        let m = module(h_module)?;
        p.flags = if m.imports().is_empty() {
            ze_module_property_flags_t::empty()
        } else {
            ze_module_property_flags_t::IMPORTS
        };
        Ok(())
    }

    fn ze_module_get_global_pointer(
        &self,
        h_module: Handle<kinds::Module>,
        p_global_name: &CStr,
        p_size: Option<&mut usize>,
        pptr: Option<&mut *mut c_void>,
    ) -> ZeResult<()> {
        let m = module(h_module)?;
        let (addr, size) = m.global(&p_global_name.to_string_lossy())?;
        if let Some(s) = p_size {
            *s = size;
        }
        if let Some(p) = pptr {
            *p = addr as *mut c_void;
        }
        Ok(())
    }

    fn ze_module_get_native_binary(
        &self,
        h_module: Handle<kinds::Module>,
        p_size: &mut usize,
        p_module_native_binary: Option<&mut [u8]>,
    ) -> ZeResult<()> {
        let bytes = module(h_module)?.native_binary()?;
        match p_module_native_binary {
            Some(out) if *p_size != 0 => {
                if out.len() < bytes.len() {
                    return Err(zekit_icd_rt::fail(
                        ZeError::INVALID_SIZE,
                        format_args!(
                            "*pSize is {}, the native binary takes {} bytes",
                            out.len(),
                            bytes.len()
                        ),
                    ));
                }
                out[..bytes.len()].copy_from_slice(&bytes);
                *p_size = bytes.len();
            }
            _ => *p_size = bytes.len(),
        }
        Ok(())
    }

    fn ze_module_get_function_pointer(
        &self,
        h_module: Handle<kinds::Module>,
        p_function_name: &CStr,
        pfn_function: &mut *mut c_void,
    ) -> ZeResult<()> {
        let m = module(h_module)?;
        *pfn_function = m.function(&p_function_name.to_string_lossy())? as *mut c_void;
        Ok(())
    }

    fn ze_module_dynamic_link(
        &self,
        _num_modules: u32,
        ph_modules: &[Handle<kinds::Module>],
        ph_link_log: Option<&mut Option<Handle<kinds::ModuleBuildLog>>>,
    ) -> ZeResult<()> {
        let objs = ph_modules
            .iter()
            .map(|h| module(*h))
            .collect::<ZeResult<Vec<_>>>()?;
        let refs: Vec<&ModuleObject> = objs.iter().map(|o| &**o).collect();
        // The link log is handed out on failure too, naming what did not resolve.
        let (result, log) = with_log(ModuleObject::link(&refs, zekit_spirv::Linking::Separate).map(|log| ((), log)));
        if let Some(out) = ph_link_log {
            *out = Some(log_handle(log));
        }
        result
    }

    fn ze_module_inspect_linkage_ext(
        &self,
        p_inspect_desc: &ze_linkage_inspection_ext_desc_t,
        _num_modules: u32,
        ph_modules: &[Handle<kinds::Module>],
        ph_log: &mut Option<Handle<kinds::ModuleBuildLog>>,
    ) -> ZeResult<()> {
        let objs = ph_modules
            .iter()
            .map(|h| module(*h))
            .collect::<ZeResult<Vec<_>>>()?;
        let flags = p_inspect_desc.flags;
        let mut lines = Vec::new();
        for (n, m) in objs.iter().enumerate() {
            if flags.contains(ze_linkage_inspection_ext_flags_t::IMPORTS) {
                lines.push(format!("module {n}: imports: {}", m.imports().join(", ")));
            }
            if flags.contains(ze_linkage_inspection_ext_flags_t::UNRESOLVABLE_IMPORTS) {
                let unresolvable: Vec<&str> = m
                    .imports()
                    .iter()
                    .filter(|i| {
                        !objs
                            .iter()
                            .enumerate()
                            .any(|(o, x)| o != n && x.exports().contains(i))
                    })
                    .map(|s| s.as_str())
                    .collect();
                lines.push(format!(
                    "module {n}: unresolvable imports: {}",
                    unresolvable.join(", ")
                ));
            }
            if flags.contains(ze_linkage_inspection_ext_flags_t::EXPORTS) {
                lines.push(format!("module {n}: exports: {}", m.exports().join(", ")));
            }
        }
        *ph_log = Some(log_handle(lines.join("\n")));
        Ok(())
    }

    fn ze_module_get_device_handle(
        &self,
        h_module: Handle<kinds::Module>,
        ph_device: &mut Option<Handle<kinds::Device>>,
    ) -> ZeResult<()> {
        *ph_device = Some(module(h_module)?.device);
        Ok(())
    }
}

#[zekit_icd::implement]
impl ModuleBuildLogApi for CpuDriver {
    fn ze_module_build_log_destroy(&self, h: Handle<kinds::ModuleBuildLog>) -> ZeResult<()> {
        // `[release]`: the entry layer takes the handle out.
        h.get::<BuildLogObject>().map(|_| ())
    }

    // The trait passes the application's output pointer as it is (the spec's contract).
    #[allow(clippy::not_unsafe_ptr_arg_deref)]
    fn ze_module_build_log_get_string(
        &self,
        h: Handle<kinds::ModuleBuildLog>,
        p_size: &mut usize,
        p_build_log: *mut c_char,
    ) -> ZeResult<()> {
        let log = h.get::<BuildLogObject>()?;
        // SAFETY: the application provides `*p_size` writable bytes at a non-null `p_build_log`.
        unsafe { zekit_icd_rt::conv::copy_c_string(&log.text, p_size, p_build_log) };
        Ok(())
    }
}

/// A build or link log object holding `text` (interior NULs, from application strings, cut it
/// short rather than fail).
fn log_handle(text: String) -> Handle<kinds::ModuleBuildLog> {
    let text = CString::new(text).unwrap_or_else(|e| {
        let n = e.nul_position();
        let mut v = e.into_vec();
        v.truncate(n);
        CString::new(v).unwrap_or_default()
    });
    Handle::new(BuildLogObject { text })
}
