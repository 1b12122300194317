//! The `extern "C"` entry points (`entry/<ns>.rs`).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::api::*;
use super::classify::*;
use super::convert::*;
use super::{arg_names, c_params, Ctx};
use crate::emit_rust::{ident, rust_type_tokens};
use crate::spec::*;

pub(super) fn emit_entry_ns(cx: &Ctx, ns: &str) -> TokenStream {
    let fns = cx.api.functions(ns).map(|(_, f)| {
        let name = ident(&f.name);
        let fname = f.name.as_str();
        let m = ident(&method_name(&f.name));
        let field = ident(&class_field(&f.class));
        let cps = c_params(f);
        let names = arg_names(f);
        let ps = params(cx.api, &cx.kinds, f);
        // Counts first: no reference to a count's pointer exists yet when it is read.
        let mut convs: Vec<TokenStream> = ps.iter().map(|p| precompute_len(p, &ps)).collect();
        // Write-backs: `[out]` handles are written whatever the driver returned (what it set,
        // else null: a failed create may still hand out a build log), the rest on success.
        let mut backs = vec![];
        let mut handle_backs = vec![];
        for p in &ps {
            let (c, b) = conversion(p);
            convs.push(c);
            if matches!(p.kind, PKind::OutHandle { .. }) && p.field.dir == Some(Dir::Out) {
                handle_backs.push(b);
            } else {
                backs.push(b);
            }
        }
        let call_args = ps.iter().map(|p| format_ident!("__a_{}", p.field.name));
        let fmt_fn = format_ident!("{}", f.name);
        // `[out]` handles (one handle, no range) are nulled before anything else, so that no
        // caller reads a stale or uninitialized handle after an error (validation and hook
        // failures included); the driver's values replace the null afterwards. A null pointer
        // is left alone (that is the validation failure on the pointer itself).
        let out_handles: Vec<_> = ps
            .iter()
            .filter(|p| matches!(p.kind, PKind::OutHandle { .. }) && p.field.dir == Some(Dir::Out))
            .map(|p| ident(&p.field.name))
            .collect();
        // Most functions return ze_result_t; a few return a value and a failure value.
        let (ret, to_c, on_error) = match &f.return_type {
            None => (quote!(ze_result_t), quote!(ze_result_t::SUCCESS), quote!(|code| code)),
            Some(t) => {
                let failure = match f.failure_value.as_deref() {
                    Some("nullptr") | Some("NULL") | None => quote!(::core::ptr::null_mut()),
                    Some("UINT32_MAX") => quote!(u32::MAX),
                    Some(other) => {
                        let v = cx.api.eval(other).unwrap_or(0);
                        let lit = proc_macro2::Literal::i64_unsuffixed(v);
                        quote!(#lit as _)
                    }
                };
                let conv = if cx.kinds.contains_key(t.as_str()) { quote!(__v.raw() as _) } else { quote!(__v) };
                (rust_type_tokens(t), conv, quote!(|_code| #failure))
            }
        };
        let call = quote! {
            crate::call(
                #fname,
                &|| unsafe { crate::fmt::#fmt_fn(#(#names),*) },
                || unsafe { crate::validate::#name(#(#names),*) },
                |__d| unsafe {
                    let __c = __d.classes.#field.ok_or(zekit_icd_rt::ZeError::UNSUPPORTED_FEATURE)?;
                    #(#convs)*
                    let __res = __c.#m(#(#call_args),*);
                    #(#handle_backs)*
                    let __v = __res?;
                    #(#backs)*
                    Ok(#to_c)
                },
                #on_error,
            )
        };
        let body = if out_handles.is_empty() || f.return_type.is_some() {
            call
        } else {
            quote! {
                #(if !#out_handles.is_null() { unsafe { #out_handles.write(::core::ptr::null_mut()) }; })*
                #call
            }
        };
        quote! {
            #[doc = concat!(" C entry point of `", #fname, "`.")]
            pub unsafe extern "C" fn #name(#(#cps),*) -> #ret {
                #body
            }
        }
    });
    quote! {
        #![doc = " C entry points of one namespace: guard, validate, convert, call the driver, write outputs, trace."]
        #![allow(non_snake_case, unused_mut, unused_unsafe, unused_variables, unused_parens, clippy::all)]
        use ::core::ffi::{c_char, c_int, c_void};
        use zekit_icd_rt::Handle;
        use zekit_sys::*;
        #(#fns)*
        #[allow(unused_imports)]
        use {c_char as _, c_int as _, c_void as _, Handle as _};
    }
}
