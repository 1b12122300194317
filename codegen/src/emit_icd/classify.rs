//! How each C parameter reaches the trait method (`PKind`), classified from the shared
//! parameter model, and the trait method names.

use std::collections::BTreeMap;

use heck::ToSnakeCase;
use proc_macro2::TokenStream;

use crate::emit_rust::{rust_type_tokens, scalar_tokens};
use crate::model::{Api, TypeKind};
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
    InSlice { len: RangeLen, handle: Option<String>, optional: bool },
    /// `[out]`/`[in,out]` pointer to one element: `&mut T` / `Option<&mut T>`;
    /// `buffered` outputs are written back only on success.
    OutRef { optional: bool, buffered: bool },
    /// `[out]` pointer to one handle: `&mut Option<Handle<K>>` (optional: wrapped in an
    /// `Option`), an `[out]` one is nulled first and written back whatever the result (the driver sets it only where a failure still hands one out).
    OutHandle { kind: String, optional: bool },
    /// `[out]`/`[in,out]` array from a `[range(0, n)]`: `Option<&mut [T]>` or handle slots.
    OutSlice { len: RangeLen, handle: Option<String> },
    /// `[in] const char*`: `&CStr` / `Option<&CStr>`.
    CStr { optional: bool },
    /// Anything else stays a raw pointer.
    Raw,
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
    let range_len = || p.range.as_ref().filter(|_| p.range_from_zero)?.as_ref().ok().copied();
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
pub(super) fn pointee(p: &Field) -> TokenStream {
    let ty = p.ty.trim_end();
    rust_type_tokens(ty.strip_suffix('*').unwrap_or(ty))
}

pub(super) struct Param<'a> {
    pub(super) field: &'a Field,
    pub(super) kind: PKind,
}

pub(super) fn params<'a>(api: &Api, kinds: &BTreeMap<String, (String, u32)>, f: &'a Function) -> Vec<Param<'a>> {
    let model = params::of_function(api, f);
    (0..model.len()).map(|i| Param { field: model[i].field, kind: classify(api, kinds, &model, i) }).collect()
}
