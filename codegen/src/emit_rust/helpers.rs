//! Literal, `#[doc]` attribute and naming helpers shared by the zekit-sys emitters.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use crate::model::Version;

pub(super) fn lit_str(s: &str) -> Literal {
    Literal::string(s)
}

pub(super) fn lit_usize(v: u64) -> Literal {
    Literal::u64_unsuffixed(v)
}

/// `0x...` literal, `digits` wide.
pub(super) fn lit_hex(v: u64, digits: usize) -> Literal {
    format!("{v:#0w$x}", w = digits + 2).parse().expect("hex literal")
}

/// Enumerator values: hex when large (result codes, versions), decimal otherwise.
pub(super) fn lit_value(v: u32) -> Literal {
    if v > 0xffff {
        lit_hex(v as u64, 8)
    } else {
        Literal::u32_unsuffixed(v)
    }
}

/// `#[doc]` attributes, one per non-empty line, each line trimmed (indentation would turn
/// into a doctest code block).
pub(super) fn doc_attrs<I: IntoIterator<Item = String>>(lines: I) -> TokenStream {
    let mut out = TokenStream::new();
    for l in lines {
        // An empty entry separates paragraphs.
        if l.is_empty() && !out.is_empty() {
            out.extend(quote!(#[doc = ""]));
            continue;
        }
        for l in l.lines() {
            let l = l.trim();
            if l.is_empty() {
                continue;
            }
            let s = lit_str(&format!(" {l}"));
            out.extend(quote!(#[doc = #s]));
        }
    }
    out
}

pub(super) fn item_doc(doc: Option<&str>, since: Option<&str>) -> TokenStream {
    let mut lines = vec![];
    if let Some(d) = doc {
        lines.push(d.to_string());
    }
    if let Some(s) = since {
        if Version::of(Some(s)) > Version::V1_0 {
            if !lines.is_empty() {
                lines.push(String::new());
            }
            lines.push(format!("Since API {s}."));
        }
    }
    doc_attrs(lines)
}

/// Prefix of an enum's enumerators: `ze_device_type_t` → `ZE_DEVICE_TYPE_` (as emit_c).
pub(super) fn etor_prefix(enum_name: &str) -> String {
    format!("{}_", enum_name.strip_suffix("_t").unwrap_or(enum_name).to_uppercase())
}

/// The associated-const name of an enumerator: the C name minus the enum's prefix,
/// `_`-prefixed when it would start with a digit (`_3D`).
pub(super) fn short_etor_name(prefix: &str, etor: &str) -> String {
    match etor.strip_prefix(prefix) {
        Some(s) if !s.is_empty() && s.as_bytes()[0].is_ascii_digit() => format!("_{s}"),
        Some(s) if !s.is_empty() => s.to_string(),
        _ => etor.to_string(),
    }
}

/// `DeviceExp` → `device_exp` (the DDI table naming rule of the model).
pub(super) fn heck_snake(name: &str) -> String {
    crate::model::camel_to_snake(name)
}

/// `ze_device_dditable_t` → `ZE_DEVICE_DDITABLE_ENTRIES`.
pub(super) fn entries_const_name(type_name: &str) -> String {
    format!("{}_ENTRIES", type_name.strip_suffix("_t").unwrap_or(type_name).to_uppercase())
}

/// Whitespace-free text, to compare C macro bodies.
pub(super) fn squash(s: &str) -> String {
    s.split_whitespace().collect()
}
