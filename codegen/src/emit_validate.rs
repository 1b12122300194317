//! Parameter validation of `zekit-icd` (`validate.rs`), derived from the spec alone:
//! one `unsafe fn <function>(<C parameters>) -> ZeResult<()>` per API function.
//!
//! Checks, in this order: non-optional handles (`INVALID_NULL_HANDLE`), non-optional
//! pointers (`INVALID_NULL_POINTER`).

use proc_macro2::TokenStream;
use quote::quote;

use crate::emit_rust::{ident, rust_type_tokens};
use crate::load::NAMESPACES;
use crate::model::{Api, CType, TypeKind};
use crate::spec::*;

fn checks(api: &Api, f: &Function) -> Vec<TokenStream> {
    let mut out = vec![];
    // Handles first (the loader's validation layer reports them first too).
    for p in &f.params {
        let t = CType::parse(&p.ty);
        let n = ident(&p.name);
        if t.ptrs.is_empty() && !p.optional && api.type_kind(api.resolve_typedef(&t.base)) == Some(TypeKind::Handle) {
            out.push(quote!(if #n.is_null() { return Err(ZeError::INVALID_NULL_HANDLE); }));
        }
    }
    for p in &f.params {
        let t = CType::parse(&p.ty);
        let n = ident(&p.name);
        if !t.ptrs.is_empty() && !p.optional && p.range.is_none() {
            out.push(quote!(if #n.is_null() { return Err(ZeError::INVALID_NULL_POINTER); }));
        }
    }
    out
}

pub fn emit(api: &Api) -> TokenStream {
    let fns = NAMESPACES.iter().flat_map(|ns| api.functions(ns).map(|(_, f)| f)).map(|f| {
        let name = ident(&f.name);
        let ps = f.params.iter().map(|p| {
            let n = ident(&p.name);
            let t = rust_type_tokens(&p.ty);
            quote!(#n: #t)
        });
        let cs = checks(api, f);
        let doc = format!(" Validates the arguments of `{}`.", f.name);
        quote! {
            #[doc = #doc]
            pub unsafe fn #name(#(#ps),*) -> ZeResult<()> {
                #(#cs)*
                Ok(())
            }
        }
    });
    quote! {
        #![doc = " Parameter validation derived from the spec."]
        #![allow(non_snake_case, unused_variables, unused_unsafe, clippy::all)]
        use ::core::ffi::{c_char, c_int, c_void};
        use zekit_rt::{ZeError, ZeResult};
        use zekit_sys::*;
        #(#fns)*
        #[allow(unused_imports)]
        use {c_char as _, c_int as _, c_void as _};
    }
}
