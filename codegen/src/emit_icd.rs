//! The ICD plumbing crate `zekit-icd` (quote + prettyplease): everything a driver
//! needs between the C ABI and plain Rust, derived from the spec.
//!
//! * `kinds.rs`: one marker type per handle type, with a unique tag.
//! * `api/<ns>.rs`: one trait per spec class (`DeviceApi`, ...), one method per API function,
//!   taking Rust types built from the parameter annotations (`Handle<K>`, `&T`, slices from
//!   `[range]` pairs, `&mut` outputs); every method defaults to
//!   `ZE_RESULT_ERROR_UNSUPPORTED_FEATURE`. `api/mod.rs`: the `Hooks`, the `Dispatch` table, the
//!   probes of `dispatch!` and `FUNCTIONS`.
//! * `entry/<ns>.rs`: one `extern "C"` entry point per function: guard against panics,
//!   validate, convert, call the class trait, map the error, write outputs on success (`[out]`
//!   handles: null first, then whatever the driver set, failure or not), release `[release]`
//!   handles, trace.
//! * `fmt/<ns>.rs`: the decoded arguments of every function (tracing and call logs).
//! * `ddi.rs`: the `*Get*ProcAddrTable` implementations (fill the entries a driver defines, by
//!   version) and `getters()` for `zekit_sys::fns::Fns::from_driver`.
//! * `validate/`: parameter validation (see [`crate::emit_validate`]).
//! * `lib.rs`: installing a dispatch table, the shape of every call, and `export_icd!`, which a
//!   driver's `cdylib` invokes to export the getters.

use std::collections::BTreeMap;
use std::sync::Arc;

use heck::{ToSnakeCase, ToUpperCamelCase};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::emit_rust::{ident, rust_type_tokens, scalar_tokens};
use crate::jobs::Job;
use crate::load::NAMESPACES;
use crate::model::{Api, CType, TypeKind, Version};
use crate::params::{self, RangeLen};
use crate::spec::*;

/// How a C parameter reaches the trait method.
#[derive(Debug, Clone)]
pub enum PKind {
    /// A handle by value: `Handle<K>` (or `Option<Handle<K>>`). `release`: the call destroys
    /// the object (`[release]`); the generated layer releases the handle after success.
    Handle { kind: String, optional: bool, release: bool },
    /// A value passed as is (scalars, enums, flags, structs by value, callbacks).
    Value,
    /// `[in]` pointer to one element: `&T` / `Option<&T>`.
    InRef { optional: bool },
    /// `[in]` array from a `[range(0, n)]`: `&[T]` or `&[Handle<K>]`; an `[optional]` one is
    /// `Option<&[T]>` (null is `None`), or for handles a slice (null is empty).
    InSlice { len: Len, handle: Option<String>, optional: bool },
    /// `[out]`/`[in,out]` pointer to one element: `&mut T` / `Option<&mut T>`;
    /// `buffered` outputs are written back only on success.
    OutRef { optional: bool, buffered: bool },
    /// `[out]` pointer to one handle: `&mut Option<Handle<K>>` (optional: wrapped in an
    /// `Option`), an `[out]` one is nulled first and written back whatever the result (the driver sets it only where a failure still hands one out).
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

/// Classifies parameter `i` of `f` from the shared parameter model ([`crate::params`]).
pub fn classify(api: &Api, kinds: &BTreeMap<String, (String, u32)>, ps: &[params::Param], i: usize) -> PKind {
    let p = &ps[i];
    let t = &p.ct;
    let base = p.base.as_str();
    let handle = kinds.get(&t.base).or_else(|| kinds.get(base)).map(|k| k.0.clone());
    let dir = if p.input { Dir::In } else { p.field.dir.unwrap_or(Dir::In) };
    let optional = p.field.optional;
    let has_range = p.field.range.is_some();
    let range_len = || match p.range.as_ref().filter(|_| p.range_from_zero)?.as_ref().ok()? {
        RangeLen::Param(j) => Some(Len::Param(ps[*j].field.name.clone())),
        RangeLen::Deref(j) => Some(Len::Deref(ps[*j].field.name.clone())),
    };
    if t.ptrs.is_empty() {
        return match handle {
            Some(kind) => PKind::Handle { kind, optional, release: p.field.release },
            None => PKind::Value,
        };
    }
    // A pointer to a pointer (`void**` out, `const char**` arrays): the pointee is itself a
    // raw pointer, passed by reference or as a slice.
    if t.ptrs.len() == 2 {
        return match (dir, range_len()) {
            (Dir::In, Some(len)) => PKind::InSlice { len, handle: None, optional },
            (Dir::In, None) => PKind::Raw,
            (_, Some(len)) => PKind::OutSlice { len, handle: None },
            (_, None) if !has_range => PKind::OutRef { optional, buffered: dir == Dir::Out },
            _ => PKind::Raw,
        };
    }
    if t.ptrs.len() > 2 || base == "void" {
        return PKind::Raw;
    }
    let tk = api.type_kind(base);
    if base == "char" {
        return if dir == Dir::In && t.konst && !has_range { PKind::CStr { optional } } else { PKind::Raw };
    }
    let known = handle.is_some()
        || scalar_tokens(base).is_some()
        || matches!(
            tk,
            Some(TypeKind::Enum | TypeKind::Flags | TypeKind::FlagBits | TypeKind::Struct | TypeKind::Union)
        );
    if !known {
        return PKind::Raw;
    }
    match (dir, has_range) {
        (Dir::In, true) => match range_len() {
            Some(len) => PKind::InSlice { len, handle, optional },
            None => PKind::Raw,
        },
        (Dir::In, false) => {
            if handle.is_some() {
                PKind::Raw
            } else {
                PKind::InRef { optional }
            }
        }
        (_, true) => match range_len() {
            Some(len) => PKind::OutSlice { len, handle },
            None => PKind::Raw,
        },
        (_, false) => match handle {
            Some(kind) => PKind::OutHandle { kind, optional },
            None => {
                let by_value = !matches!(tk, Some(TypeKind::Struct | TypeKind::Union));
                PKind::OutRef { optional, buffered: dir == Dir::Out && by_value }
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
    let model = params::of_function(api, f);
    (0..model.len()).map(|i| Param { field: model[i].field, kind: classify(api, kinds, &model, i) }).collect()
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
fn precompute_len(p: &Param) -> TokenStream {
    match &p.kind {
        PKind::InSlice { len, .. } | PKind::OutSlice { len, .. } => {
            let n = format_ident!("__n_{}", p.field.name);
            let l = len_expr(len);
            quote!(let #n: usize = #l;)
        }
        _ => quote!(),
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
            let slice = quote!(zekit_rt::handle::handle_slice::<#k>(#n as *const *mut c_void, #l)?);
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
            (quote!(let #a = zekit_rt::handle::handle_out_slice::<#k>(#n as *mut *mut c_void, #l);), quote!())
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

/// The trait of a spec class: `zeDevice` → `DeviceApi`, `ze` → `GlobalApi`,
/// `zesDevice` → `ZesDeviceApi`, `zer` → `ZerGlobalApi`.
pub fn class_trait(class: &str) -> String {
    // The namespace is a case-sensitive prefix followed by the class's own name (`zeSampler` is
    // a `ze` class, not a `zes` one).
    let ns = ["zet", "zes", "zer"]
        .into_iter()
        .find(|p| class.strip_prefix(p).is_some_and(|r| r.is_empty() || r.starts_with(|c: char| c.is_ascii_uppercase())))
        .unwrap_or("ze");
    let rest = class.strip_prefix(ns).unwrap_or(class);
    let base = if rest.is_empty() { "Global" } else { rest };
    if ns == "ze" {
        format!("{base}Api")
    } else {
        format!("{}{base}Api", ns.to_upper_camel_case())
    }
}

/// The `Dispatch` field (and probe method) of a class: `DeviceApi` → `device`.
fn class_field(class: &str) -> String {
    let t = class_trait(class);
    t.strip_suffix("Api").unwrap_or(&t).to_snake_case()
}

/// The classes of a namespace with their functions, in spec order.
fn classes<'a>(api: &'a Api, ns: &'a str) -> Vec<(String, Vec<&'a Function>)> {
    let mut out: Vec<(String, Vec<&Function>)> = vec![];
    for (_, f) in api.functions(ns) {
        match out.iter_mut().find(|(c, _)| *c == f.class) {
            Some((_, fs)) => fs.push(f),
            None => out.push((f.class.clone(), vec![f])),
        }
    }
    out
}

/// Every class of the spec, namespace by namespace.
fn all_classes(api: &Api) -> Vec<(String, Vec<&Function>)> {
    NAMESPACES.iter().flat_map(|ns| classes(api, ns)).collect()
}

fn method_tokens(cx: &Ctx, f: &Function) -> TokenStream {
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
}

/// `api/<ns>.rs`: one trait per class of the namespace.
fn emit_api_ns(cx: &Ctx, ns: &str) -> TokenStream {
    let traits = classes(cx.api, ns).into_iter().map(|(class, fs)| {
        let t = ident(&class_trait(&class));
        let methods = fs.iter().map(|f| method_tokens(cx, f));
        let doc = format!(" The functions of class `{class}`. Implement it with `#[zekit_icd::implement]`, which records the methods a driver defines (their DDI entries are filled; the others stay null and answer `ZE_RESULT_ERROR_UNSUPPORTED_FEATURE`).");
        quote! {
            #[doc = #doc]
            #[allow(unused_variables, clippy::too_many_arguments)]
            pub trait #t: Send + Sync + 'static {
                /// The methods this impl defines (written by `#[zekit_icd::implement]`).
                #[doc(hidden)]
                fn __implemented(&self) -> &'static [&'static str];
                #(#methods)*
            }
        }
    });
    quote! {
        #![doc = " Driver traits of one namespace, one per spec class."]
        #![allow(unused_imports)]
        use ::core::ffi::{c_char, c_int, c_void};
        use zekit_rt::{Handle, ZeError, ZeResult};
        use zekit_sys::*;
        #(#traits)*
    }
}

/// `api/mod.rs`: the namespaces' traits, the hooks, the dispatch table and its probes.
fn emit_api_mod(cx: &Ctx) -> TokenStream {
    let all = all_classes(cx.api);
    let mods = NAMESPACES.iter().map(|ns| {
        let m = ident(ns);
        quote!(pub mod #m; pub use #m::*;)
    });
    let fields: Vec<_> = all.iter().map(|(c, _)| ident(&class_field(c))).collect();
    let traits: Vec<_> = all.iter().map(|(c, _)| ident(&class_trait(c))).collect();
    let field_docs = all.iter().map(|(c, _)| format!(" `{}` (class `{c}`), when the driver implements it.", class_trait(c)));
    let yes: Vec<_> = traits.iter().map(|t| format_ident!("{}Yes", t)).collect();
    let no: Vec<_> = traits.iter().map(|t| format_ident!("{}No", t)).collect();
    let rows = all.iter().flat_map(|(c, fs)| {
        let c = c.clone();
        fs.iter().map(move |f| {
            let name = f.name.as_str();
            let m = method_name(&f.name);
            let t = class_trait(&c);
            quote!(Function { name: #name, method: #m, class: #t })
        })
    });
    quote! {
        #![doc = " The driver traits (one per spec class), the hooks, and the dispatch table the"]
        #![doc = " entry points call through."]
        #(#mods)*
        use std::collections::HashSet;
        use zekit_sys::ze_result_t;

        /// Decoded arguments of a call, computed on demand.
        pub type Args<'a> = &'a dyn Fn() -> Vec<(&'static str, String)>;

        /// Optional hooks around every call (the mock's programmed results and call log).
        #[allow(unused_variables)]
        pub trait Hooks: Send + Sync + 'static {
            /// Called before every call; `Some(code)` answers the call with `code` without
            /// running the method.
            fn before_call(&self, function: &'static str, args: Args<'_>) -> Option<ze_result_t> { None }
            /// Called after every call with its result.
            fn after_call(&self, function: &'static str, args: Args<'_>, result: ze_result_t) {}
            /// Whether the DDI tables offer every function, implemented or not (the mock,
            /// whose hooks answer the rest).
            fn fill_all(&self) -> bool { false }
        }

        /// One API function: its C name, trait method and trait.
        #[derive(Debug, Clone, Copy)]
        pub struct Function {
            pub name: &'static str,
            pub method: &'static str,
            pub class: &'static str,
        }

        /// Every function of the spec, in spec order.
        pub const FUNCTIONS: &[Function] = &[#(#rows),*];

        /// The driver's implementation of each class (`None` where it implements none).
        #[derive(Clone, Copy, Default)]
        pub struct Classes {
            #(#[doc = #field_docs] pub #fields: Option<&'static dyn #traits>,)*
        }

        /// What the entry points dispatch to: a driver's classes and hooks. Built by
        /// [`dispatch!`](macro@crate::dispatch) from a driver value.
        pub struct Dispatch {
            pub classes: Classes,
            pub hooks: Option<&'static dyn Hooks>,
            implemented: HashSet<&'static str>,
        }

        impl Dispatch {
            /// A dispatch table over `classes` and `hooks`.
            pub fn new(classes: Classes, hooks: Option<&'static dyn Hooks>) -> Dispatch {
                let mut implemented = HashSet::new();
                #(if let Some(c) = classes.#fields { implemented.extend(c.__implemented()); })*
                Dispatch { classes, hooks, implemented }
            }

            /// The same without hooks.
            pub fn without_hooks(self) -> Dispatch {
                Dispatch { hooks: None, ..self }
            }

            /// Whether the driver defines the trait method `method` (`ze_device_get`).
            pub fn implements(&self, method: &str) -> bool {
                self.implemented.contains(method)
            }

            /// Whether the driver defines the API function `name` (`zeDeviceGet`).
            pub fn implements_function(&self, name: &str) -> bool {
                FUNCTIONS.iter().any(|f| f.name == name && self.implements(f.method))
            }

            /// Whether the DDI tables offer the function of trait method `method`.
            pub fn offers(&self, method: &str) -> bool {
                self.hooks.is_some_and(|h| h.fill_all()) || self.implements(method)
            }
        }

        /// Autoref probes: `(&Probe(driver)).device()` is `Some` exactly when the driver's
        /// type implements `DeviceApi` (the type must be concrete where the probe is written,
        /// as in [`dispatch!`](macro@crate::dispatch)).
        #[doc(hidden)]
        pub mod probe {
            use super::*;
            pub struct Probe<T: 'static>(pub &'static T);
            pub trait HooksYes { fn hooks(&self) -> Option<&'static dyn Hooks>; }
            impl<T: Hooks> HooksYes for Probe<T> { fn hooks(&self) -> Option<&'static dyn Hooks> { Some(self.0) } }
            pub trait HooksNo { fn hooks(&self) -> Option<&'static dyn Hooks>; }
            impl<T> HooksNo for &Probe<T> { fn hooks(&self) -> Option<&'static dyn Hooks> { None } }
            #(
                pub trait #yes { fn #fields(&self) -> Option<&'static dyn #traits>; }
                impl<T: #traits> #yes for Probe<T> { fn #fields(&self) -> Option<&'static dyn #traits> { Some(self.0) } }
                pub trait #no { fn #fields(&self) -> Option<&'static dyn #traits>; }
                impl<T> #no for &Probe<T> { fn #fields(&self) -> Option<&'static dyn #traits> { None } }
            )*
        }

        /// Builds the [`Dispatch`] of a driver value: `dispatch!(MyDriver, &DRIVER)` (the
        /// expression must be a `&'static MyDriver`). Every class trait the type implements is
        /// used, and its [`Hooks`] if it implements them.
        #[macro_export]
        macro_rules! dispatch {
            ($ty:ty, $value:expr) => {{
                #[allow(unused_imports)]
                use $crate::api::probe::*;
                let __v: &'static $ty = $value;
                $crate::api::Dispatch::new(
                    $crate::api::Classes { #(#fields: (&Probe(__v)).#fields(),)* },
                    (&Probe(__v)).hooks(),
                )
            }};
        }
    }
}

fn emit_entry_ns(cx: &Ctx, ns: &str) -> TokenStream {
    let fns = cx.api.functions(ns).map(|(_, f)| {
        let name = ident(&f.name);
        let fname = f.name.as_str();
        let m = ident(&method_name(&f.name));
        let field = ident(&class_field(&f.class));
        let cps = c_params(f);
        let names = arg_names(f);
        let ps = params(cx.api, &cx.kinds, f);
        // Counts first: no reference to a count's pointer exists yet when it is read.
        let mut convs: Vec<TokenStream> = ps.iter().map(precompute_len).collect();
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
                    let __c = __d.classes.#field.ok_or(zekit_rt::ZeError::UNSUPPORTED_FEATURE)?;
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
        use zekit_rt::Handle;
        use zekit_sys::*;
        #(#fns)*
        #[allow(unused_imports)]
        use {c_char as _, c_int as _, c_void as _, Handle as _};
    }
}

/// `mod.rs` of a per-namespace module: `pub mod ze; pub use ze::*;` for each namespace.
fn emit_ns_mod(doc: &str, extra: TokenStream) -> TokenStream {
    let mods = NAMESPACES.iter().map(|ns| {
        let m = ident(ns);
        quote!(pub mod #m; pub use #m::*;)
    });
    quote! {
        #![doc = #doc]
        #(#mods)*
        #extra
    }
}

fn emit_fmt_ns(cx: &Ctx, ns: &str) -> TokenStream {
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
                    zekit_rt::guard(#gname, || unsafe {
                        if pDdiTable.is_null() {
                            zekit_rt::log_error(#gname, "pDdiTable is null");
                            return ze_result_t::ERROR_INVALID_NULL_POINTER;
                        }
                        if (version.0 >> 16) != (ze_api_version_t::CURRENT.0 >> 16) {
                            zekit_rt::log_error(#gname, &format!("unsupported major version in {version:?}"));
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
        pub use zekit_rt as rt;
        pub use zekit_rt::{Handle, ZeError, ZeResult};
        pub use zekit_sys as sys;

        use std::sync::OnceLock;

        static DISPATCH: OnceLock<Dispatch> = OnceLock::new();

        /// Installs the process's driver (once; later calls are ignored) and builds the
        /// dispatch tables every handle carries.
        pub fn install(dispatch: Dispatch) {
            if DISPATCH.set(dispatch).is_ok() {
                zekit_rt::handle::set_ddi_tables(ddi::handle_tables());
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
            let t = zekit_rt::trace::start();
            let mut value = None;
            let code = zekit_rt::guard(function, || match run(function, args, validate, body) {
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
        fn run<R>(
            function: &'static str,
            args: Args<'_>,
            validate: impl FnOnce() -> ZeResult<()>,
            body: impl FnOnce(&'static Dispatch) -> ZeResult<R>,
        ) -> Result<R, sys::ze_result_t> {
            let Some(d) = dispatch() else {
                return Err(zekit_rt::failed(function, ZeError::UNINITIALIZED, "no driver is installed"));
            };
            zekit_rt::begin_call();
            if let Some(h) = d.hooks {
                if let Some(r) = h.before_call(function, args) {
                    // Answered by the hooks (a reason, if any, noted with `zekit_rt::fail`).
                    if r != sys::ze_result_t::SUCCESS {
                        zekit_rt::failed(function, ZeError(r), "");
                    }
                    h.after_call(function, args, r);
                    return Err(r);
                }
            }
            let valid = if zekit_rt::validation_enabled() { validate() } else { Ok(()) };
            let res = match valid {
                Err(e) => Err(zekit_rt::failed(function, e, "invalid arguments")),
                Ok(()) => body(d).map_err(|e| zekit_rt::failed(function, e, "")),
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
zekit-rt = { path = \"../../runtime\" }\n\
zekit-icd-macros = { path = \"../../runtime/macros\" }\n";
    let job = |path: &str, cost: u32, f: fn(&Ctx) -> TokenStream| {
        let cx = Arc::clone(&cx);
        Job::rust(path, cost, move || f(&cx))
    };
    let mut jobs = vec![
        Job::text("zekit-icd/Cargo.toml", 0, || Ok(vec![("zekit-icd/Cargo.toml".to_string(), cargo.to_string())])),
        job("zekit-icd/src/lib.rs", 1, emit_lib),
        job("zekit-icd/src/kinds.rs", 1, emit_kinds),
        job("zekit-icd/src/api/mod.rs", 3, emit_api_mod),
        Job::rust("zekit-icd/src/entry/mod.rs", 1, || {
            emit_ns_mod(" The C entry points, one module per namespace.", quote!())
        }),
        Job::rust("zekit-icd/src/fmt/mod.rs", 1, || {
            emit_ns_mod(
                " Decoded arguments of every function, for tracing and call logs; one module per namespace.",
                quote! {
                    /// `name=value, ...`
                    pub fn join(args: &[(&'static str, String)]) -> String {
                        args.iter().map(|(n, v)| format!("{n}={v}")).collect::<Vec<_>>().join(", ")
                    }
                },
            )
        }),
        job("zekit-icd/src/ddi.rs", 20, emit_ddi),
        Job::new("zekit-icd/src/validate", 25, move || {
            Ok(crate::emit_validate::emit(api).into_iter().map(|(p, t)| (p, crate::jobs::Output::Rust(t))).collect())
        }),
        Job::rust("zekit-icd/tests/validation.rs", 70, move || crate::emit_validate::emit_tests(api)),
    ];
    // Per namespace: costs in proportion to the functions of each (ze has about half).
    for ns in NAMESPACES {
        let share = |total: u32| (total * api.functions(ns).count() as u32 / 480).max(1);
        for (path, cost, f) in [
            (format!("zekit-icd/src/api/{ns}.rs"), share(15), emit_api_ns as fn(&Ctx, &'static str) -> TokenStream),
            (format!("zekit-icd/src/entry/{ns}.rs"), share(50), emit_entry_ns),
            (format!("zekit-icd/src/fmt/{ns}.rs"), share(15), emit_fmt_ns),
        ] {
            let cx = Arc::clone(&cx);
            jobs.push(Job::rust(&path, cost, move || f(&cx, ns)));
        }
    }
    Ok(jobs)
}
