//! Converting C arguments to the trait method's Rust types and back: parameter types, range
//! lengths, conversions, and the decoded form of an argument.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::classify::*;
use super::kinds::*;
use crate::emit_rust::{ident, rust_type_tokens};
use crate::model::{Api, CType, TypeKind};
use crate::params::RangeLen;

/// The trait method's parameter type.
pub(super) fn trait_type(p: &Param) -> TokenStream {
    let raw = rust_type_tokens(&p.field.ty);
    let el = pointee(p.field);
    match &p.kind {
        PKind::Handle { kind, optional, .. } => {
            let k = kind_ident(kind);
            if *optional {
                quote!(Option<Handle<#k>>)
            } else {
                quote!(Handle<#k>)
            }
        }
        PKind::Value | PKind::Raw => raw,
        PKind::InRef { optional: false } => quote!(&#el),
        PKind::InRef { optional: true } => quote!(Option<&#el>),
        // An optional array of handles can only mean "no handles" when null: an empty slice.
        PKind::InSlice { handle: Some(k), .. } => {
            let k = kind_ident(k);
            quote!(&[Handle<#k>])
        }
        PKind::InSlice { handle: None, optional: false, .. } => quote!(&[#el]),
        PKind::InSlice { handle: None, optional: true, .. } => quote!(Option<&[#el]>),
        PKind::OutRef { optional: false, .. } => quote!(&mut #el),
        PKind::OutRef { optional: true, .. } => quote!(Option<&mut #el>),
        PKind::OutHandle { kind, optional: false } => {
            let k = kind_ident(kind);
            quote!(&mut Option<Handle<#k>>)
        }
        PKind::OutHandle { kind, optional: true } => {
            let k = kind_ident(kind);
            quote!(Option<&mut Option<Handle<#k>>>)
        }
        PKind::OutSlice { handle: Some(k), .. } => {
            let k = kind_ident(k);
            quote!(Option<&mut [Option<Handle<#k>>]>)
        }
        PKind::OutSlice { handle: None, .. } => quote!(Option<&mut [#el]>),
        PKind::CStr { optional: false } => quote!(&::core::ffi::CStr),
        PKind::CStr { optional: true } => quote!(Option<&::core::ffi::CStr>),
    }
}

/// The element count of a `[range]` parameter, read before any conversion lends a reference to
/// the count's own pointer (`let __n_<param> = ...;`).
pub(super) fn precompute_len(p: &Param, ps: &[Param]) -> TokenStream {
    match &p.kind {
        PKind::InSlice { len, .. } | PKind::OutSlice { len, .. } => {
            let n = format_ident!("__n_{}", p.field.name);
            let l = len_expr(*len, ps);
            quote!(let #n: usize = #l;)
        }
        _ => quote!(),
    }
}

/// The count `l` names among the parameters `ps`, as a `usize` (a null count pointer counts 0).
pub(super) fn len_expr(l: RangeLen, ps: &[Param]) -> TokenStream {
    match l {
        RangeLen::Param(j) => {
            let n = ident(&ps[j].field.name);
            quote!((#n as usize))
        }
        RangeLen::Deref(j) => {
            let n = ident(&ps[j].field.name);
            quote!((if #n.is_null() { 0usize } else { *#n as usize }))
        }
    }
}

/// Lends a buffered output `tmp` to the trait as `a`: `Option<&mut _>` when the C pointer
/// `n` is optional (null → `None`), `&mut _` otherwise (null → `INVALID_NULL_POINTER`).
pub(super) fn lend_tmp(a: &proc_macro2::Ident, n: &proc_macro2::Ident, tmp: &proc_macro2::Ident, optional: bool) -> TokenStream {
    if optional {
        quote!(let #a = if #n.is_null() { None } else { Some(&mut #tmp) };)
    } else {
        quote! {
            if #n.is_null() { return Err(zekit_icd_rt::ZeError::INVALID_NULL_POINTER); }
            let #a = &mut #tmp;
        }
    }
}

/// Conversion statements (raw C argument → trait argument `__a_<name>`) and the
/// write-backs that run after success.
pub(super) fn conversion(p: &Param) -> (TokenStream, TokenStream) {
    let n = ident(&p.field.name);
    let a = format_ident!("__a_{}", p.field.name);
    let null = quote!(zekit_icd_rt::ZeError::INVALID_NULL_POINTER);
    match &p.kind {
        PKind::Handle { kind, optional, release } => {
            let k = kind_ident(kind);
            let conv = if *optional {
                quote!(let #a = Handle::<#k>::from_raw_optional(#n as *mut c_void)?;)
            } else {
                quote!(let #a = Handle::<#k>::from_raw(#n as *mut c_void)?;)
            };
            // `[release]`: the driver method ran and succeeded; the handle dies here.
            let back = match (*release, *optional) {
                (false, _) => quote!(),
                (true, false) => quote!(#a.release()?;),
                (true, true) => quote!(if let Some(h) = #a { h.release()?; }),
            };
            (conv, back)
        }
        PKind::Value | PKind::Raw => (quote!(let #a = #n;), quote!()),
        PKind::InRef { optional: false } => (quote!(let #a = #n.as_ref().ok_or(#null)?;), quote!()),
        PKind::InRef { optional: true } => (quote!(let #a = #n.as_ref();), quote!()),
        PKind::InSlice { handle: Some(k), optional, .. } => {
            let k = kind_ident(k);
            let l = format_ident!("__n_{}", p.field.name);
            let slice = quote!(zekit_icd_rt::handle::handle_slice::<#k>(#n as *const *mut c_void, #l)?);
            if *optional {
                (quote!(let #a = if #n.is_null() { &[][..] } else { #slice };), quote!())
            } else {
                (quote!(let #a = #slice;), quote!())
            }
        }
        PKind::InSlice { handle: None, optional: false, .. } => {
            let l = format_ident!("__n_{}", p.field.name);
            (
                quote! {
                    let #a = if #l == 0 { &[][..] } else if #n.is_null() { return Err(#null); } else { ::core::slice::from_raw_parts(#n, #l) };
                },
                quote!(),
            )
        }
        PKind::InSlice { handle: None, optional: true, .. } => {
            let l = format_ident!("__n_{}", p.field.name);
            (
                quote! {
                    let #a = if #n.is_null() { None } else if #l == 0 { Some(&[][..]) } else { Some(::core::slice::from_raw_parts(#n, #l)) };
                },
                quote!(),
            )
        }
        PKind::OutRef { optional, buffered: true } => {
            let tmp = format_ident!("__tmp_{}", p.field.name);
            let take = lend_tmp(&a, &n, &tmp, *optional);
            (
                quote! {
                    let mut #tmp = if #n.is_null() { ::core::mem::zeroed() } else { ::core::ptr::read(#n) };
                    #take
                },
                quote!(if !#n.is_null() { ::core::ptr::write(#n, #tmp); }),
            )
        }
        PKind::OutRef { optional: false, .. } => (quote!(let #a = #n.as_mut().ok_or(#null)?;), quote!()),
        PKind::OutRef { optional: true, .. } => (quote!(let #a = #n.as_mut();), quote!()),
        PKind::OutHandle { optional, .. } => {
            let tmp = format_ident!("__tmp_{}", p.field.name);
            let take = lend_tmp(&a, &n, &tmp, *optional);
            (
                quote! {
                    let mut #tmp = None;
                    #take
                },
                quote!(if !#n.is_null() { *#n = #tmp.map_or(::core::ptr::null_mut(), |h| h.raw() as _); }),
            )
        }
        PKind::OutSlice { handle: Some(k), .. } => {
            let k = kind_ident(k);
            let l = format_ident!("__n_{}", p.field.name);
            (quote!(let #a = zekit_icd_rt::handle::handle_out_slice::<#k>(#n as *mut *mut c_void, #l);), quote!())
        }
        PKind::OutSlice { handle: None, .. } => {
            let l = format_ident!("__n_{}", p.field.name);
            (
                quote!(let #a = if #n.is_null() { None } else { Some(::core::slice::from_raw_parts_mut(#n, #l)) };),
                quote!(),
            )
        }
        PKind::CStr { optional: false } => {
            (quote!(let #a = if #n.is_null() { return Err(#null); } else { ::core::ffi::CStr::from_ptr(#n) };), quote!())
        }
        PKind::CStr { optional: true } => {
            (quote!(let #a = if #n.is_null() { None } else { Some(::core::ffi::CStr::from_ptr(#n)) };), quote!())
        }
    }
}

/// Decoded text of one argument (after the call).
pub(super) fn format_arg(api: &Api, p: &Param) -> TokenStream {
    let n = ident(&p.field.name);
    let t = CType::parse(&p.field.ty);
    let base = api.resolve_typedef(&t.base).to_string();
    match &p.kind {
        PKind::Handle { .. } => quote!(format!("{:p}", #n)),
        PKind::Value => {
            if matches!(api.type_kind(&base), Some(TypeKind::Callback)) || base == "void" {
                quote!(format!("{:?}", #n.map(|f| f as *const ())))
            } else {
                quote!(format!("{:?}", #n))
            }
        }
        PKind::InRef { .. } | PKind::OutRef { .. } => {
            quote!(if #n.is_null() { "null".to_string() } else { format!("{:p} -> {:?}", #n, *#n) })
        }
        PKind::CStr { .. } => quote! {
            if #n.is_null() { "null".to_string() } else { format!("{:?}", ::core::ffi::CStr::from_ptr(#n)) }
        },
        _ => quote!(format!("{:p}", #n)),
    }
}
