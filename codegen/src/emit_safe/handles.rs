//! The handle types as the crate sees them: canonical handle, wrapper name, class, namespace.

use std::collections::BTreeMap;

use crate::load::NAMESPACES;
use crate::model::{strip_ns, Api};
use crate::spec::*;

/// One handle type as the crate sees it.
#[derive(Debug, Clone)]
pub(super) struct HandleInfo {
    /// The handle type this one aliases, or itself.
    pub(super) canonical: String,
    /// The wrapper's name (`Device`, `ZesFreq`).
    pub(super) wrapper: String,
    /// The class of the canonical handle, without namespace (`Device`).
    pub(super) class: String,
    /// The namespace of the canonical handle.
    pub(super) ns: &'static str,
    pub(super) doc: Option<String>,
}

pub(super) fn ns_of_type(name: &str) -> &'static str {
    ["zet_", "zes_", "zer_", "ze_"]
        .iter()
        .find(|p| name.starts_with(**p))
        .map(|p| &p[..p.len() - 1])
        .map(|p| NAMESPACES.into_iter().find(|n| *n == p).unwrap_or("ze"))
        .unwrap_or("ze")
}

/// `ze_device_handle_t` → `Device`, `zes_freq_handle_t` → `ZesFreq`.
pub(super) fn wrapper_name(handle: &str) -> String {
    let ns = ns_of_type(handle);
    let short = handle.strip_prefix(&format!("{ns}_")).unwrap_or(handle);
    let short = short.strip_suffix("_handle_t").unwrap_or(short);
    let camel = crate::emit_chain::camel(short);
    if ns == "ze" {
        camel
    } else {
        format!("{}{camel}", crate::emit_chain::camel(ns))
    }
}

pub(super) fn handles(api: &Api) -> BTreeMap<String, HandleInfo> {
    let mut raw: Vec<&Handle> = vec![];
    for f in &api.loaded.files {
        for d in &f.docs {
            if let Entry::Handle(h) = &d.entry {
                raw.push(h);
            }
        }
    }
    let by_name: BTreeMap<&str, &Handle> = raw.iter().map(|h| (h.name.as_str(), *h)).collect();
    let mut out = BTreeMap::new();
    for h in &raw {
        let mut c = *h;
        while let Some(a) = c.alias.as_deref().and_then(|a| by_name.get(a)) {
            c = a;
        }
        let ns = ns_of_type(&c.name);
        out.insert(
            h.name.clone(),
            HandleInfo {
                canonical: c.name.clone(),
                wrapper: wrapper_name(&c.name),
                class: strip_ns(&c.class, ns).to_string(),
                ns,
                doc: c.doc.clone(),
            },
        );
    }
    out
}
