//! Handle kinds: one marker type per handle type with a unique tag (`kinds.rs`).

use std::collections::BTreeMap;

use heck::ToUpperCamelCase;
use proc_macro2::TokenStream;
use quote::quote;

use super::Ctx;
use crate::emit_rust::ident;
use crate::load::NAMESPACES;
use crate::model::Api;
use crate::spec::*;

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
pub(super) fn kind_name(handle: &str) -> String {
    let base = handle.strip_suffix("_handle_t").unwrap_or(handle);
    match base.strip_prefix("ze_") {
        Some(rest) => rest.to_upper_camel_case(),
        None => base.to_upper_camel_case(),
    }
}

pub(super) fn kind_ident(k: &str) -> TokenStream {
    let i = ident(k);
    quote!(crate::kinds::#i)
}

pub(super) fn emit_kinds(cx: &Ctx) -> TokenStream {
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
            impl zekit_icd_rt::HandleKind for #i {
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
