//! `impl zekit_icd::Hooks for MockDriver`: the script around every call.
//!
//! Installed with hooks (the `.so` always is; [`crate::install`] too), every call goes
//! through the global [`Script`](crate::Script) first: it is logged, and a programmed result
//! answers it. A function the mock does not model ([`crate::api::is_modeled`]) then answers
//! its fallback result ([`crate::fallback`]). `fill_all` is true: the DDI tables offer every
//! function, modeled or not.
//!
//! A failure answered here is logged and recorded by the entry layer like any other: a
//! programmed result with the reason noted here (`zeMemAllocDevice:
//! ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY: programmed by the mock's script`), a fallback
//! `UNSUPPORTED_FEATURE` with no reason and so without a log line.

use zekit_icd::api::{Args, Hooks};
use zekit_icd::ZeError;
use zekit_sys::ze_result_t;

use crate::api::{is_modeled, MockDriver};
use crate::script::script;

fn owned(args: Vec<(&'static str, String)>) -> Vec<(String, String)> {
    args.into_iter().map(|(n, v)| (n.to_string(), v)).collect()
}

impl Hooks for MockDriver {
    fn before_call(&self, function: &'static str, args: Args<'_>) -> Option<ze_result_t> {
        let render = || owned(args());
        match script().before_call(function, &render) {
            Some(code) => {
                zekit_rt::fail(ZeError(code), "programmed by the mock's script");
                Some(code)
            }
            None if is_modeled(function) => None,
            None => Some(crate::fallback::result(function)),
        }
    }

    fn after_call(&self, function: &'static str, args: Args<'_>, result: ze_result_t) {
        let render = || owned(args());
        script().after_call(function, &render, result);
    }

    fn fill_all(&self) -> bool {
        true
    }
}
