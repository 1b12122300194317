//! The crate root (`lib.rs`): installing a dispatch table, the shape of every call, and
//! `export_icd!`.

use proc_macro2::TokenStream;
use quote::quote;

use super::Ctx;
use crate::emit_rust::ident;
use crate::load::NAMESPACES;

pub(super) fn emit_lib(cx: &Ctx) -> TokenStream {
    let mut exports = vec![];
    for ns in NAMESPACES {
        for t in cx.api.ddi_tables(ns) {
            let g = ident(&t.getter);
            let tt = ident(&t.type_name);
            exports.push(quote! {
                #[no_mangle]
                pub unsafe extern "C" fn #g(version: $crate::sys::ze_api_version_t, pDdiTable: *mut $crate::sys::#tt) -> $crate::sys::ze_result_t {
                    __zekit_install();
                    unsafe { $crate::ddi::#g(version, pDdiTable) }
                }
            });
        }
    }
    quote! {
        #![doc = " Generated ICD plumbing of zekit: the class traits in [`api`], `dispatch!`, `export_icd!`."]
        #![allow(clippy::all)]
        pub mod api;
        pub mod ddi;
        pub mod entry;
        pub mod fmt;
        pub mod kinds;
        pub mod validate;

        pub use api::*;
        pub use zekit_icd_macros::implement;
        pub use zekit_icd_rt as rt;
        pub use zekit_icd_rt::{Handle, ZeError, ZeResult};
        pub use zekit_sys as sys;

        use std::sync::OnceLock;

        static DISPATCH: OnceLock<Dispatch> = OnceLock::new();

        /// Installs the process's driver (once; later calls are ignored) and builds the
        /// dispatch tables every handle carries.
        pub fn install(dispatch: Dispatch) {
            if DISPATCH.set(dispatch).is_ok() {
                zekit_icd_rt::handle::set_ddi_tables(ddi::handle_tables());
            }
        }

        /// The installed driver's dispatch table.
        #[inline]
        pub fn dispatch() -> Option<&'static Dispatch> {
            DISPATCH.get()
        }

        /// The shape of every entry point: trace, guard against panics, run the hooks,
        /// validate, then convert and call the driver. A failure is logged once and recorded
        /// as the thread's last error. `on_error` turns a failure code into the function's C
        /// return value.
        #[inline(always)]
        pub(crate) fn call<R>(
            function: &'static str,
            args: Args<'_>,
            validate: impl FnOnce() -> ZeResult<()>,
            body: impl FnOnce(&'static Dispatch) -> ZeResult<R>,
            on_error: impl Fn(sys::ze_result_t) -> R,
        ) -> R {
            let t = zekit_icd_rt::trace::start();
            let mut value = None;
            let code = zekit_icd_rt::guard(function, || match run(function, args, validate, body) {
                Ok(v) => {
                    value = Some(v);
                    sys::ze_result_t::SUCCESS
                }
                Err(code) => code,
            });
            if let Some(t) = t {
                zekit_icd_rt::trace::emit(t, function, &fmt::join(&args()), code);
            }
            value.unwrap_or_else(|| on_error(code))
        }

        #[inline(always)]
        fn run<R>(
            function: &'static str,
            args: Args<'_>,
            validate: impl FnOnce() -> ZeResult<()>,
            body: impl FnOnce(&'static Dispatch) -> ZeResult<R>,
        ) -> Result<R, sys::ze_result_t> {
            let Some(d) = dispatch() else {
                return Err(zekit_icd_rt::failed(function, ZeError::UNINITIALIZED, "no driver is installed"));
            };
            if let Some(h) = d.hooks {
                if let Some(answer) = h.before_call(function, args) {
                    // Answered by the hooks, with the reason they gave.
                    let r = match answer {
                        Ok(()) => sys::ze_result_t::SUCCESS,
                        Err(e) => zekit_icd_rt::failed(function, e, ""),
                    };
                    h.after_call(function, args, r);
                    return Err(r);
                }
            }
            let valid = if zekit_icd_rt::validation_enabled() { validate() } else { Ok(()) };
            let res = match valid {
                Err(e) => Err(zekit_icd_rt::failed(function, e, "invalid arguments")),
                Ok(()) => body(d).map_err(|e| zekit_icd_rt::failed(function, e, "")),
            };
            if let Some(h) = d.hooks {
                h.after_call(function, args, *res.as_ref().err().unwrap_or(&sys::ze_result_t::SUCCESS));
            }
            res
        }

        /// Exports every `*Get*ProcAddrTable` of the API from the invoking `cdylib`:
        /// `export_icd!(MyDriver, expr)`, where `expr` gives the `&'static MyDriver` (evaluated
        /// once, on first use). Every class trait `MyDriver` implements is dispatched to.
        #[macro_export]
        macro_rules! export_icd {
            ($ty:ty, $value:expr) => {
                fn __zekit_install() {
                    static ONCE: ::std::sync::Once = ::std::sync::Once::new();
                    ONCE.call_once(|| $crate::install($crate::dispatch!($ty, $value)));
                }
                #(#exports)*
            };
        }
    }
}
