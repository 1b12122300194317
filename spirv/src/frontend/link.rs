//! Linking a module against libraries ([`lower_linked`]): the libraries' exported functions are
//! inlined where the module imports them, and their program-scope data and local variables are
//! placed after the module's own ([`Linking`]).

use std::collections::HashMap;

use super::{align_up, lower_kernel, read_module, Lowered};
use crate::spv::Inst;
use crate::Error;

/// What linking does with a library's program-scope variables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Linking {
    /// The inputs are one module (`ze_module_program_exp_desc_t`): each library's variables
    /// are placed, once, in the importing module's data, and its exported variables are the
    /// module's (`zeModuleGetGlobalPointer`).
    OneModule,
    /// Separate modules (`zeModuleDynamicLink`): a library's read-only variables
    /// (UniformConstant) are copied into the importing module, which no program can tell
    /// apart; a linked function that uses its own module's writable (CrossWorkgroup)
    /// variables is refused (`unsupported`), as a copy would not be the library's.
    Separate,
}

/// Lowers a module whose imported functions are resolved by the exports of `libs` (each a
/// module's instructions and specialization constants), first match in order: an imported
/// function's body is inlined from the library like any call. The libraries' program-scope
/// data follows the module's own, and their local variables follow its own (see [`Linking`]).
pub fn lower_linked(
    insts: &[Inst],
    spec: &HashMap<u32, u64>,
    libs: &[(&[Inst], &HashMap<u32, u64>)],
    linking: Linking,
) -> Result<Lowered, Error> {
    let (mut m, mut data, mut globals, entries, modes) = read_module(insts, spec)?;
    let mut placed = Vec::with_capacity(libs.len());
    for (i, s) in libs {
        let (mut lm, ldata, lglobals, ..) =
            read_module(i, s).map_err(|e| e.context("a linked module"))?;
        if !lm.fnptr.relocs.is_empty() {
            return Err(Error::unsupported(
                "a linked module whose program-scope data holds function pointers",
            ));
        }
        // 128: the largest alignment of any type (a 16-element vector of 64-bit values).
        let base = align_up(data.len() as u64, 128);
        if base + ldata.len() as u64 > 64 << 20 {
            return Err(Error::unsupported("more than 64 MiB of program-scope variables"));
        }
        data.resize(base as usize, 0);
        data.extend_from_slice(&ldata);
        lm.data_base = base as u32;
        if linking == Linking::OneModule {
            // The library's exported variables are the module's.
            globals.extend(lglobals.into_iter().map(|(n, o, size)| (n, o + base as u32, size)));
        }
        if lm.local_size > 0 {
            let lbase = align_up(u64::from(m.local_size), 128);
            if lbase + u64::from(lm.local_size) > 1 << 30 {
                return Err(Error::unsupported("more than 1 GiB of local variables"));
            }
            lm.local_base = lbase as u32;
            m.local_size = (lbase + u64::from(lm.local_size)) as u32;
        }
        lm.shared_writable = linking == Linking::Separate;
        placed.push(lm);
    }
    let libs = placed;
    let mut kernels = Vec::new();
    for (fid, name) in entries {
        let km = modes.get(&fid).cloned().unwrap_or_default();
        let (k, info) = lower_kernel(&m, &libs, fid, &name, &km)
            .map_err(|e| e.context(format!("kernel `{name}`")))?;
        kernels.push((k, info));
    }
    Ok(Lowered {
        kernels,
        data,
        globals,
        functions: std::mem::take(&mut m.fnptr.names),
        data_relocs: std::mem::take(&mut m.fnptr.relocs),
    })
}
