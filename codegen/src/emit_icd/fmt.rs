//! The decoded arguments of every function (`fmt/<ns>.rs`), for tracing and call logs.

use proc_macro2::TokenStream;
use quote::quote;

use super::classify::*;
use super::convert::*;
use super::{c_params, Ctx};
use crate::emit_rust::ident;

pub(super) fn emit_fmt_ns(cx: &Ctx, ns: &str) -> TokenStream {
    let fns = cx.api.functions(ns).map(|(_, f)| {
        let name = ident(&f.name);
        let cps = c_params(f);
        let ps = params(cx.api, &cx.kinds, f);
        let rows = ps.iter().map(|p| {
            let n = p.field.name.as_str();
            let v = format_arg(cx.api, p);
            quote!((#n, #v))
        });
        quote! {
            /// Decoded arguments (pointers to inputs and outputs show their pointee).
            pub unsafe fn #name(#(#cps),*) -> Vec<(&'static str, String)> {
                vec![#(#rows),*]
            }
        }
    });
    quote! {
        #![doc = " Decoded arguments of one namespace's functions, for tracing and call logs."]
        #![allow(non_snake_case, unused_unsafe, clippy::all)]
        use ::core::ffi::{c_char, c_int, c_void};
        use zekit_sys::*;
        #(#fns)*
        #[allow(unused_imports)]
        use {c_char as _, c_int as _, c_void as _};
    }
}
