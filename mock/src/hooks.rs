//! `impl zekit_icd::Hooks for MockDriver`: the script around every call.
//!
//! Installed with hooks (the `.so` always is; [`crate::install`] too), every call goes
//! through the global [`Script`](crate::Script) first: it is logged, and a programmed result
//! answers it. A function the mock does not model ([`crate::api::is_modeled`]) then answers
//! its fallback result ([`crate::fallback`]). `fill_all` is true: the DDI tables offer every
//! function, modeled or not.
//!
//! A failure answered here is logged and recorded by the entry layer like any other: a
//! programmed result with the reason given here (`zeMemAllocDevice:
//! ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY: programmed by the mock's script`), a fallback
//! `UNSUPPORTED_FEATURE` with no reason and so without a log line.

use zekit_icd::api::{Args, Hooks};
use zekit_icd::{ZeError, ZeResult};
use zekit_sys::ze_result_t;

use crate::api::{is_modeled, MockDriver};
use crate::script::script;

fn owned(args: Vec<(&'static str, String)>) -> Vec<(String, String)> {
    args.into_iter().map(|(n, v)| (n.to_string(), v)).collect()
}

/// The rendered arguments of `function`; a kernel launch (`zeCommandListAppendLaunch*` with
/// an `hKernel`) also shows the kernel's name, group size, global offset and argument values
/// (`kernel`, `groupSize`, `globalOffset`, `arg0`, ...), so predicates and the call log see them.
fn rendered(function: &str, args: Args<'_>) -> Vec<(String, String)> {
    let mut v = owned(args());
    if function.starts_with("zeCommandListAppendLaunch") {
        if let Some(h) = v
            .iter()
            .find(|(n, _)| n == "hKernel")
            .map(|(_, h)| h.clone())
        {
            v.extend(crate::api::kernel::launch_log_args(&h));
        }
    }
    v
}

impl Hooks for MockDriver {
    fn before_call(&self, function: &'static str, args: Args<'_>) -> Option<ZeResult<()>> {
        let render = || rendered(function, args);
        match script().before_call(function, &render) {
            Some(ze_result_t::SUCCESS) => Some(Ok(())),
            Some(code) => Some(Err(ZeError::new(code, "programmed by the mock's script"))),
            None if is_modeled(function) => None,
            None => Some(match crate::fallback::result(function) {
                ze_result_t::SUCCESS => Ok(()),
                code => Err(ZeError::of(code)),
            }),
        }
    }

    fn after_call(&self, function: &'static str, args: Args<'_>, result: ze_result_t) {
        let render = || rendered(function, args);
        script().after_call(function, &render, result);
    }

    fn fill_all(&self) -> bool {
        true
    }
}
