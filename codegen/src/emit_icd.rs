//! The ICD plumbing crate `zekit-icd` (quote + prettyplease): everything a driver
//! needs between the C ABI and plain Rust, derived from the spec.
//!
//! * `kinds.rs`: one marker type per handle type, with a unique tag.
//! * `driver.rs`: the `Driver` trait: one method per API function, taking Rust types
//!   built from the parameter annotations (`Handle<K>`, `&T`, slices from `[range]`
//!   pairs, `&mut` outputs) and returning `ZeResult<()>`; every method defaults to
//!   `ZE_RESULT_ERROR_UNSUPPORTED_FEATURE`.
//! * `entry.rs`: one `extern "C"` entry point per function: guard against panics,
//!   validate, convert, call the trait, map the error, write outputs on success, trace.
//! * `fmt.rs`: the decoded arguments of every function (tracing and call logs).
//! * `ddi.rs`: the `*Get*ProcAddrTable` implementations (fill entries by version).
//! * `validate.rs`: parameter validation (see [`crate::emit_validate`]).
//! * `lib.rs`: installing a driver, and `export_icd!`, which a driver's `cdylib` invokes
//!   to export the getters.

use std::collections::BTreeMap;
use std::sync::Arc;

use heck::{ToSnakeCase, ToUpperCamelCase};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::emit_rust::{ident, rust_type_tokens, scalar_tokens};
use crate::jobs::Job;
use crate::load::NAMESPACES;
use crate::model::{Api, CType, TypeKind, Version};
use crate::spec::*;

/// How a C parameter reaches the trait method.
#[derive(Debug, Clone)]
pub enum PKind {
    /// A handle by value: `Handle<K>` (or `Option<Handle<K>>`).
    Handle { kind: String, optional: bool },
    /// A value passed as is (scalars, enums, flags, structs by value, callbacks).
    Value,
    /// `[in]` pointer to one element: `&T` / `Option<&T>`.
    InRef { optional: bool },
    /// `[in]` array from a `[range(0, n)]`: `&[T]` or `&[Handle<K>]`.
    InSlice { len: Len, handle: Option<String> },
    /// `[out]`/`[in,out]` pointer to one element: `&mut T` / `Option<&mut T>`;
    /// `buffered` outputs are written back only on success.
    OutRef { optional: bool, buffered: bool },
    /// `[out]` pointer to one handle: `&mut Option<Handle<K>>` (optional: wrapped in an
    /// `Option`), written back on success.
    OutHandle { kind: String, optional: bool },
    /// `[out]`/`[in,out]` array from a `[range(0, n)]`: `Option<&mut [T]>` or handle slots.
    OutSlice { len: Len, handle: Option<String> },
    /// `[in] const char*`: `&CStr` / `Option<&CStr>`.
    CStr { optional: bool },
    /// Anything else stays a raw pointer.
    Raw,
}

/// The element count of a range: a parameter's value, or the value it points to.
#[derive(Debug, Clone)]
pub enum Len {
    Param(String),
    Deref(String),
}

/// Handle types: C name → (kind marker name, tag). Aliases map to their target's kind.
pub fn handle_kinds(api: &Api) -> BTreeMap<String, (String, u32)> {
    let mut out = BTreeMap::new();
    let mut tag = 0u32;
    let mut aliases = vec![];
    for ns in NAMESPACES {
        for (_, d) in api.docs(ns) {
            if let Entry::Handle(h) = &d.entry {
                match &h.alias {
                    Some(a) => aliases.push((h.name.clone(), a.clone())),
                    None => {
                        tag += 1;
                        out.insert(h.name.clone(), (kind_name(&h.name), tag));
                    }
                }
            }
        }
    }
    for (name, target) in aliases {
        if let Some(k) = out.get(&target).cloned() {
            out.insert(name, k);
        }
    }
    out
}

/// `ze_device_handle_t` → `Device`; other namespaces keep a prefix: `ZesEngine`.
fn kind_name(handle: &str) -> String {
    let base = handle.strip_suffix("_handle_t").unwrap_or(handle);
    match base.strip_prefix("ze_") {
        Some(rest) => rest.to_upper_camel_case(),
        None => base.to_upper_camel_case(),
    }
}

/// The trait method of a function: `zeDeviceGet` → `ze_device_get`.
pub fn method_name(func: &str) -> String {
    func.to_snake_case()
}

fn range_len(f: &Function, p: &Field) -> Option<Len> {
    let (a, b) = p.range.as_ref()?;
    if a.trim() != "0" {
        return None;
    }
    let b = b.trim();
    let is_param = |n: &str| f.params.iter().any(|q| q.name == n);
    if let Some(n) = b.strip_prefix('*') {
        let q = f.params.iter().find(|q| q.name == n)?;
        let t = CType::parse(&q.ty);
        return (t.ptrs.len() == 1 && is_integer(&t.base)).then(|| Len::Deref(n.to_string()));
    }
    if is_param(b) {
        let q = f.params.iter().find(|q| q.name == b)?;
        let t = CType::parse(&q.ty);
        return (t.ptrs.is_empty() && is_integer(&t.base)).then(|| Len::Param(b.to_string()));
    }
    None
}

fn is_integer(base: &str) -> bool {
    matches!(base, "uint32_t" | "size_t" | "uint64_t" | "int32_t" | "int" | "uint8_t" | "uint16_t")
}

/// Classifies one parameter of `f`.
pub fn classify(api: &Api, kinds: &BTreeMap<String, (String, u32)>, f: &Function, p: &Field) -> PKind {
    let t = CType::parse(&p.ty);
    let base = api.resolve_typedef(&t.base).to_string();
    let handle = kinds.get(&t.base).or_else(|| kinds.get(&base)).map(|k| k.0.clone());
    // A `const` pointee cannot be written, whatever its annotation says.
    let pointee_const = match t.ptrs.len() {
        0 => false,
        1 => t.konst,
        n => t.ptrs[n - 2],
    };
    let dir = if pointee_const { Dir::In } else { p.dir.unwrap_or(Dir::In) };
    if t.ptrs.is_empty() {
        return match handle {
            Some(kind) => PKind::Handle { kind, optional: p.optional },
            None => PKind::Value,
        };
    }
    // A pointer to a pointer (`void**` out, `const char**` arrays): the pointee is itself a
    // raw pointer, passed by reference or as a slice.
    if t.ptrs.len() == 2 {
        return match (dir, p.range.as_ref().and_then(|_| range_len(f, p))) {
            (Dir::In, Some(len)) => PKind::InSlice { len, handle: None },
            (Dir::In, None) => PKind::Raw,
            (_, Some(len)) => PKind::OutSlice { len, handle: None },
            (_, None) if p.range.is_none() => PKind::OutRef { optional: p.optional, buffered: dir == Dir::Out },
            _ => PKind::Raw,
        };
    }
    if t.ptrs.len() > 2 || base == "void" {
        return PKind::Raw;
    }
    let tk = api.type_kind(&base);
    if base == "char" {
        return if dir == Dir::In && t.konst && p.range.is_none() { PKind::CStr { optional: p.optional } } else { PKind::Raw };
    }
    let known = handle.is_some()
        || scalar_tokens(&base).is_some()
        || matches!(
            tk,
            Some(TypeKind::Enum | TypeKind::Flags | TypeKind::FlagBits | TypeKind::Struct | TypeKind::Union)
        );
    if !known {
        return PKind::Raw;
    }
    match (dir, p.range.is_some()) {
        (Dir::In, true) => match range_len(f, p) {
            Some(len) => PKind::InSlice { len, handle },
            None => PKind::Raw,
        },
        (Dir::In, false) => {
            if handle.is_some() {
                PKind::Raw
            } else {
                PKind::InRef { optional: p.optional }
            }
        }
        (_, true) => match range_len(f, p) {
            Some(len) => PKind::OutSlice { len, handle },
            None => PKind::Raw,
        },
        (_, false) => match handle {
            Some(kind) => PKind::OutHandle { kind, optional: p.optional },
            None => {
                let by_value = !matches!(tk, Some(TypeKind::Struct | TypeKind::Union));
                PKind::OutRef { optional: p.optional, buffered: dir == Dir::Out && by_value }
            }
        },
    }
}

/// The pointee's Rust type: the C type with its last `*` removed.
fn pointee(p: &Field) -> TokenStream {
    let ty = p.ty.trim_end();
    rust_type_tokens(ty.strip_suffix('*').unwrap_or(ty))
}

struct Param<'a> {
    field: &'a Field,
    kind: PKind,
}

fn params<'a>(api: &Api, kinds: &BTreeMap<String, (String, u32)>, f: &'a Function) -> Vec<Param<'a>> {
    f.params.iter().map(|p| Param { field: p, kind: classify(api, kinds, f, p) }).collect()
}

fn kind_ident(k: &str) -> TokenStream {
    let i = ident(k);
    quote!(crate::kinds::#i)
}

/// The trait method's parameter type.
fn trait_type(p: &Param) -> TokenStream {
    let raw = rust_type_tokens(&p.field.ty);
    let el = pointee(p.field);
    match &p.kind {
        PKind::Handle { kind, optional } => {
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
        PKind::InSlice { handle: Some(k), .. } => {
            let k = kind_ident(k);
            quote!(&[Handle<#k>])
        }
        PKind::InSlice { handle: None, .. } => quote!(&[#el]),
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

fn len_expr(l: &Len) -> TokenStream {
    match l {
        Len::Param(n) => {
            let n = ident(n);
            quote!((#n as usize))
        }
        Len::Deref(n) => {
            let n = ident(n);
            quote!((if #n.is_null() { 0usize } else { *#n as usize }))
        }
    }
}

/// Lends a buffered output `tmp` to the trait as `a`: `Option<&mut _>` when the C pointer
/// `n` is optional (null → `None`), `&mut _` otherwise (null → `INVALID_NULL_POINTER`).
fn lend_tmp(a: &proc_macro2::Ident, n: &proc_macro2::Ident, tmp: &proc_macro2::Ident, optional: bool) -> TokenStream {
    if optional {
        quote!(let #a = if #n.is_null() { None } else { Some(&mut #tmp) };)
    } else {
        quote! {
            if #n.is_null() { return Err(zekit_rt::ZeError::INVALID_NULL_POINTER); }
            let #a = &mut #tmp;
        }
    }
}

/// Conversion statements (raw C argument → trait argument `__a_<name>`) and the
/// write-backs that run after success.
fn conversion(p: &Param) -> (TokenStream, TokenStream) {
    let n = ident(&p.field.name);
    let a = format_ident!("__a_{}", p.field.name);
    let null = quote!(zekit_rt::ZeError::INVALID_NULL_POINTER);
    match &p.kind {
        PKind::Handle { kind, optional } => {
            let k = kind_ident(kind);
            if *optional {
                (quote!(let #a = Handle::<#k>::from_raw_optional(#n as *mut c_void)?;), quote!())
            } else {
                (quote!(let #a = Handle::<#k>::from_raw(#n as *mut c_void)?;), quote!())
            }
        }
        PKind::Value | PKind::Raw => (quote!(let #a = #n;), quote!()),
        PKind::InRef { optional: false } => (quote!(let #a = #n.as_ref().ok_or(#null)?;), quote!()),
        PKind::InRef { optional: true } => (quote!(let #a = #n.as_ref();), quote!()),
        PKind::InSlice { len, handle: Some(k) } => {
            let k = kind_ident(k);
            let l = len_expr(len);
            (quote!(let #a = zekit_rt::handle::handle_slice::<#k>(#n as *const *mut c_void, #l)?;), quote!())
        }
        PKind::InSlice { len, handle: None } => {
            let l = len_expr(len);
            (
                quote! {
                    let #a = {
                        let __len = #l;
                        if __len == 0 { &[][..] } else if #n.is_null() { return Err(#null); } else { ::core::slice::from_raw_parts(#n, __len) }
                    };
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
        PKind::OutSlice { len, handle: Some(k) } => {
            let k = kind_ident(k);
            let l = len_expr(len);
            (quote!(let #a = zekit_rt::handle::handle_out_slice::<#k>(#n as *mut *mut c_void, #l);), quote!())
        }
        PKind::OutSlice { len, handle: None } => {
            let l = len_expr(len);
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
fn format_arg(api: &Api, p: &Param) -> TokenStream {
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

struct Ctx<'a> {
    api: &'a Api,
    kinds: BTreeMap<String, (String, u32)>,
}

/// The C parameters of `f` as Rust parameters (`hDevice: ze_device_handle_t`).
pub(crate) fn c_params(f: &Function) -> Vec<TokenStream> {
    f.params
        .iter()
        .map(|p| {
            let n = ident(&p.name);
            let t = rust_type_tokens(&p.ty);
            quote!(#n: #t)
        })
        .collect()
}

fn arg_names(f: &Function) -> Vec<TokenStream> {
    f.params
        .iter()
        .map(|p| {
            let n = ident(&p.name);
            quote!(#n)
        })
        .collect()
}

/// Every function of the spec, namespace by namespace.
pub(crate) fn all_functions(api: &Api) -> Vec<&Function> {
    NAMESPACES.iter().flat_map(|ns| api.functions(ns).map(|(_, f)| f)).collect()
}

fn emit_kinds(cx: &Ctx) -> TokenStream {
    let mut seen = BTreeMap::new();
    for (c, (k, tag)) in &cx.kinds {
        seen.entry(k.clone()).or_insert((c.clone(), *tag));
    }
    let items = seen.iter().map(|(k, (c, tag))| {
        let i = ident(k);
        let doc = format!(" Marker for `{c}` handles.");
        quote! {
            #[doc = #doc]
            #[derive(Debug)]
            pub enum #i {}
            impl zekit_rt::HandleKind for #i {
                const TAG: u32 = #tag;
                const NAME: &'static str = #c;
            }
        }
    });
    quote! {
        #![doc = " One marker type per handle type; `Handle<kinds::Device>` is a checked `ze_device_handle_t`."]
        #(#items)*
    }
}

fn emit_driver(cx: &Ctx) -> TokenStream {
    let methods = all_functions(cx.api).into_iter().map(|f| {
        let m = ident(&method_name(&f.name));
        let ps = params(cx.api, &cx.kinds, f);
        let args = ps.iter().map(|p| {
            let n = ident(&p.field.name.to_snake_case());
            let t = trait_type(p);
            quote!(#n: #t)
        });
        let doc = format!(" `{}`{}.", f.name, f.since.as_deref().map(|s| format!(" (since API {s})")).unwrap_or_default());
        let ret = match &f.return_type {
            None => quote!(()),
            Some(t) => match cx.kinds.get(t.as_str()) {
                Some((k, _)) => {
                    let k = kind_ident(k);
                    quote!(Handle<#k>)
                }
                None => rust_type_tokens(t),
            },
        };
        quote! {
            #[doc = #doc]
            fn #m(&self, #(#args),*) -> ZeResult<#ret> {
                Err(ZeError::UNSUPPORTED_FEATURE)
            }
        }
    });
    quote! {
        #![doc = " The API as one Rust trait. A driver implements what it supports; the rest"]
        #![doc = " answers `ZE_RESULT_ERROR_UNSUPPORTED_FEATURE`."]
        use ::core::ffi::{c_char, c_int, c_void};
        use zekit_rt::{Handle, ZeError, ZeResult};
        use zekit_sys::*;

        /// A Level Zero driver in plain Rust. Parameters arrive checked and converted:
        /// handles are live objects of the right kind, `[in]` pointers are references,
        /// `[range]` pairs are slices, outputs are `&mut` and reach the caller only on `Ok`.
        #[allow(unused_variables, clippy::too_many_arguments)]
        pub trait Driver: Send + Sync + 'static {
            /// Whether the DDI tables offer `function` (unsupported entries are left null).
            fn supports(&self, function: &str) -> bool { true }
            /// Called before every call when hooks are on; `Some(code)` answers the call
            /// with `code` without running the method (the mock's programmed results).
            fn before_call(&self, function: &'static str, args: &dyn Fn() -> Vec<(&'static str, String)>) -> Option<ze_result_t> { None }
            /// Called after every call when hooks are on (the mock's call log).
            fn after_call(&self, function: &'static str, args: &dyn Fn() -> Vec<(&'static str, String)>, result: ze_result_t) {}
            #(#methods)*
        }
        #[allow(unused_imports)]
        use {c_char as _, c_int as _, c_void as _};
    }
}

fn emit_entry(cx: &Ctx) -> TokenStream {
    let fns = all_functions(cx.api).into_iter().map(|f| {
        let name = ident(&f.name);
        let fname = f.name.as_str();
        let m = ident(&method_name(&f.name));
        let cps = c_params(f);
        let names = arg_names(f);
        let ps = params(cx.api, &cx.kinds, f);
        let mut convs = vec![];
        let mut backs = vec![];
        for p in &ps {
            let (c, b) = conversion(p);
            convs.push(c);
            backs.push(b);
        }
        let call_args = ps.iter().map(|p| format_ident!("__a_{}", p.field.name));
        let fmt_fn = format_ident!("{}", f.name);
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
        quote! {
            #[doc = concat!(" C entry point of `", #fname, "`.")]
            pub unsafe extern "C" fn #name(#(#cps),*) -> #ret {
                crate::call(
                    #fname,
                    &|| unsafe { crate::fmt::#fmt_fn(#(#names),*) },
                    || unsafe { crate::validate::#name(#(#names),*) },
                    |__d| unsafe {
                        #(#convs)*
                        let __v = __d.#m(#(#call_args),*)?;
                        #(#backs)*
                        Ok(#to_c)
                    },
                    #on_error,
                )
            }
        }
    });
    quote! {
        #![doc = " The C entry points: guard, validate, convert, call the driver, write outputs, trace."]
        #![allow(non_snake_case, unused_mut, unused_unsafe, unused_variables, unused_parens, clippy::all)]
        use ::core::ffi::{c_char, c_int, c_void};
        use zekit_rt::Handle;
        use zekit_sys::*;
        #(#fns)*
        #[allow(unused_imports)]
        use {c_char as _, c_int as _, Handle as _};
    }
}

fn emit_fmt(cx: &Ctx) -> TokenStream {
    let fns = all_functions(cx.api).into_iter().map(|f| {
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
        #![doc = " Decoded arguments of every function, for tracing and call logs."]
        #![allow(non_snake_case, unused_unsafe, clippy::all)]
        use ::core::ffi::{c_char, c_int, c_void};
        use zekit_sys::*;

        /// `name=value, ...`
        pub fn join(args: &[(&'static str, String)]) -> String {
            args.iter().map(|(n, v)| format!("{n}={v}")).collect::<Vec<_>>().join(", ")
        }
        #(#fns)*
        #[allow(unused_imports)]
        use {c_char as _, c_int as _, c_void as _};
    }
}

fn emit_ddi(cx: &Ctx) -> TokenStream {
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
                let fname = f.name.as_str();
                quote! {
                    if version.0 >= #enc {
                        ::core::ptr::addr_of_mut!((*pDdiTable).#member).write(if supports(#fname) { Some(crate::entry::#e) } else { None });
                    }
                }
            });
            fills.push(quote! {
                #[doc = concat!(" `", #gname, "`: fills the entries whose version is at most `version`.")]
                pub unsafe fn #g(version: ze_api_version_t, pDdiTable: *mut #tt) -> ze_result_t {
                    zekit_rt::guard(#gname, || unsafe {
                        if pDdiTable.is_null() {
                            zekit_rt::log_error(#gname, "pDdiTable is null");
                            return ze_result_t::ERROR_INVALID_NULL_POINTER;
                        }
                        if (version.0 >> 16) != (ze_api_version_t::CURRENT.0 >> 16) {
                            zekit_rt::log_error(#gname, &format!("unsupported major version in {version:?}"));
                            return ze_result_t::ERROR_UNSUPPORTED_VERSION;
                        }
                        let d = crate::driver();
                        let supports = |n: &str| d.is_none_or(|d| d.supports(n));
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
    }
}

fn emit_lib(cx: &Ctx) -> TokenStream {
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
    let _ = cx;
    quote! {
        #![doc = " Generated ICD plumbing of zekit: see `driver::Driver` and `export_icd!`."]
        #![allow(clippy::all)]
        pub mod ddi;
        pub mod driver;
        pub mod entry;
        pub mod fmt;
        pub mod kinds;
        pub mod validate;

        pub use driver::Driver;
        pub use zekit_rt as rt;
        pub use zekit_rt::{Handle, ZeError, ZeResult};
        pub use zekit_sys as sys;

        use std::sync::atomic::{AtomicBool, Ordering};
        use std::sync::OnceLock;

        static DRIVER: OnceLock<&'static dyn Driver> = OnceLock::new();
        static HOOKS: AtomicBool = AtomicBool::new(false);

        /// Installs the process's driver (once; later calls are ignored) and builds the
        /// dispatch tables every handle carries. `hooks` turns on `before_call`/`after_call`.
        pub fn install(driver: &'static dyn Driver, hooks: bool) {
            if DRIVER.set(driver).is_ok() {
                HOOKS.store(hooks, Ordering::Relaxed);
                zekit_rt::handle::set_ddi_tables(ddi::handle_tables());
            }
        }

        /// The installed driver.
        #[inline]
        pub fn driver() -> Option<&'static dyn Driver> {
            DRIVER.get().copied()
        }

        #[inline]
        pub(crate) fn hooks_enabled() -> bool {
            HOOKS.load(Ordering::Relaxed)
        }

        type Args<'a> = &'a dyn Fn() -> Vec<(&'static str, String)>;

        /// The shape of every entry point: trace, guard against panics, run the hooks,
        /// validate, then convert and call the driver; failures are logged. `on_error`
        /// turns a failure code into the function's C return value.
        #[inline(always)]
        pub(crate) fn call<R>(
            function: &'static str,
            args: Args<'_>,
            validate: impl FnOnce() -> ZeResult<()>,
            body: impl FnOnce(&'static dyn Driver) -> ZeResult<R>,
            on_error: impl Fn(sys::ze_result_t) -> R,
        ) -> R {
            let t = zekit_rt::trace::start();
            let mut value = None;
            let code = zekit_rt::guard(function, || match dispatch(function, args, validate, body) {
                Ok(v) => {
                    value = Some(v);
                    sys::ze_result_t::SUCCESS
                }
                Err(code) => code,
            });
            if let Some(t) = t {
                zekit_rt::trace::emit(t, function, &fmt::join(&args()), code);
            }
            value.unwrap_or_else(|| on_error(code))
        }

        #[inline(always)]
        fn dispatch<R>(
            function: &'static str,
            args: Args<'_>,
            validate: impl FnOnce() -> ZeResult<()>,
            body: impl FnOnce(&'static dyn Driver) -> ZeResult<R>,
        ) -> Result<R, sys::ze_result_t> {
            let Some(d) = driver() else {
                zekit_rt::log_error(function, "no driver is installed");
                return Err(sys::ze_result_t::ERROR_UNINITIALIZED);
            };
            let hooks = hooks_enabled();
            if hooks {
                if let Some(r) = d.before_call(function, args) {
                    d.after_call(function, args, r);
                    return Err(r);
                }
            }
            let valid = if zekit_rt::validation_enabled() { validate() } else { Ok(()) };
            let res = match valid {
                Err(e) => {
                    zekit_rt::log_error(function, &format!("invalid arguments: {e}"));
                    Err(e.0)
                }
                Ok(()) => body(d).map_err(|e| {
                    if e != ZeError::UNSUPPORTED_FEATURE && e.0 != sys::ze_result_t::NOT_READY {
                        zekit_rt::log_error(function, &format!("failed: {e}"));
                    }
                    e.0
                }),
            };
            if hooks {
                d.after_call(function, args, *res.as_ref().err().unwrap_or(&sys::ze_result_t::SUCCESS));
            }
            res
        }

        /// Exports every `*Get*ProcAddrTable` of the API from the invoking `cdylib`; the
        /// expression gives `(&'static dyn Driver, hooks)` and runs once, on first use.
        #[macro_export]
        macro_rules! export_icd {
            ($init:expr) => {
                fn __zekit_install() {
                    static ONCE: ::std::sync::Once = ::std::sync::Once::new();
                    ONCE.call_once(|| {
                        let (driver, hooks): (&'static dyn $crate::Driver, bool) = $init;
                        $crate::install(driver, hooks);
                    });
                }
                #(#exports)*
            };
        }
    }
}

/// Renders the zekit-icd crate; returns (path relative to `generated/`, text).
pub fn emit(api: &Api) -> Result<Vec<(String, String)>, String> {
    crate::jobs::run(jobs(api)?)
}

/// The files of the zekit-icd crate, one job each (costs: milliseconds on the full spec).
pub fn jobs(api: &Api) -> Result<Vec<Job<'_>>, String> {
    let cx = Arc::new(Ctx { api, kinds: handle_kinds(api) });
    let mut names = BTreeMap::new();
    for f in all_functions(api) {
        if let Some(prev) = names.insert(method_name(&f.name), f.name.clone()) {
            return Err(format!("trait method name of {} collides with {prev}", f.name));
        }
    }
    let cargo = "# @generated by zekit `cargo xtask gen` from spec/ and codegen/. Do not edit.\n\
[package]\n\
name = \"zekit-icd\"\n\
description = \"Generated ICD plumbing: driver trait, C entry points, DDI table exports, validation, tracing.\"\n\
edition.workspace = true\n\
license.workspace = true\n\
version.workspace = true\n\
publish = false\n\
\n\
[dependencies]\n\
zekit-sys = { path = \"../zekit-sys\" }\n\
zekit-rt = { path = \"../../runtime\" }\n";
    let job = |path: &str, cost: u32, f: fn(&Ctx) -> TokenStream| {
        let cx = Arc::clone(&cx);
        Job::rust(path, cost, move || f(&cx))
    };
    Ok(vec![
        Job::text("zekit-icd/Cargo.toml", 0, || Ok(vec![("zekit-icd/Cargo.toml".to_string(), cargo.to_string())])),
        job("zekit-icd/src/lib.rs", 1, emit_lib),
        job("zekit-icd/src/kinds.rs", 1, emit_kinds),
        job("zekit-icd/src/driver.rs", 15, emit_driver),
        job("zekit-icd/src/entry.rs", 50, emit_entry),
        job("zekit-icd/src/fmt.rs", 15, emit_fmt),
        job("zekit-icd/src/ddi.rs", 20, emit_ddi),
        Job::rust("zekit-icd/src/validate.rs", 25, move || crate::emit_validate::emit(api)),
        Job::rust("zekit-icd/tests/validation.rs", 70, move || crate::emit_validate::emit_tests(api)),
    ])
}
