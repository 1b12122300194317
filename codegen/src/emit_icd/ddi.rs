//! The `*Get*ProcAddrTable` implementations and `getters()` (`ddi.rs`).

use proc_macro2::TokenStream;
use quote::quote;

use super::classify::*;
use super::Ctx;
use crate::emit_rust::ident;
use crate::load::NAMESPACES;
use crate::model::Version;

pub(super) fn emit_ddi(cx: &Ctx) -> TokenStream {
    let mut fills = vec![];
    let mut getters = vec![];
    let mut handle_tables = vec![];
    for ns in NAMESPACES {
        let tables = cx.api.ddi_tables(ns);
        let mut drv_fields = vec![];
        for t in &tables {
            let g = ident(&t.getter);
            let tt = ident(&t.type_name);
            let gname = t.getter.as_str();
            let sets = t.functions.iter().map(|r| {
                let f = cx.api.function(*r);
                let v = Version::of(f.since.as_deref());
                let enc = v.encoded();
                let member = ident(&format!(
                    "pfn{}",
                    crate::model::strip_ns(crate::model::strip_ns(&f.name, ns), crate::model::strip_ns(&f.class, ns))
                ));
                let e = ident(&f.name);
                let mname = method_name(&f.name);
                quote! {
                    if version.0 >= #enc {
                        ::core::ptr::addr_of_mut!((*pDdiTable).#member).write(if supports(#mname) { Some(crate::entry::#e) } else { None });
                    }
                }
            });
            fills.push(quote! {
                #[doc = concat!(" `", #gname, "`: fills the entries whose version is at most `version`.")]
                pub unsafe extern "C" fn #g(version: ze_api_version_t, pDdiTable: *mut #tt) -> ze_result_t {
                    zekit_icd_rt::guard(#gname, || unsafe {
                        if pDdiTable.is_null() {
                            zekit_icd_rt::log_error(#gname, "pDdiTable is null");
                            return ze_result_t::ERROR_INVALID_NULL_POINTER;
                        }
                        if (version.0 >> 16) != (ze_api_version_t::CURRENT.0 >> 16) {
                            zekit_icd_rt::log_error(#gname, &format!("unsupported major version in {version:?}"));
                            return ze_result_t::ERROR_UNSUPPORTED_VERSION;
                        }
                        let d = crate::dispatch();
                        let supports = |n: &str| d.is_none_or(|d| d.offers(n));
                        #(#sets)*
                        ze_result_t::SUCCESS
                    })
                }
            });
            let member = ident(&t.name);
            drv_fields.push(quote! {
                #member: {
                    let t: &'static mut #tt = Box::leak(Box::default());
                    unsafe { #g(ze_api_version_t::CURRENT, t) };
                    t
                }
            });
            getters.push((t.getter.clone(), t.type_name.clone()));
        }
        let drv = ident(&format!("{ns}_dditable_driver_t"));
        handle_tables.push(quote! {
            Box::leak(Box::new(#drv {
                version: ze_api_version_t::CURRENT,
                isValidFlag: 1,
                #(#drv_fields),*
            })) as *const #drv as *const c_void
        });
    }
    let getter_names = getters.iter().map(|(g, _)| g.as_str());
    let getter_fields: Vec<_> = getters.iter().map(|(g, _)| ident(g)).collect();
    quote! {
        #![doc = " The `*Get*ProcAddrTable` implementations and the tables handles point to."]
        #![allow(non_snake_case, unused_unsafe, clippy::all)]
        use ::core::ffi::c_void;
        use zekit_sys::*;
        #(#fills)*

        /// Builds the driver's `ze_handle_t` tables (core, tools, sysman, runtime) at the
        /// current API version.
        pub fn handle_tables() -> [*const c_void; 4] {
            [#(#handle_tables),*]
        }

        /// Every exported getter, in spec order.
        pub const GETTERS: &[&str] = &[#(#getter_names),*];

        /// The getters of the driver installed in this process, for
        /// `zekit_sys::fns::Fns::from_driver`: its functions with no loader in between.
        pub fn getters() -> zekit_sys::fns::DriverGetters {
            zekit_sys::fns::DriverGetters { #(#getter_fields: Some(#getter_fields),)* }
        }
    }
}
