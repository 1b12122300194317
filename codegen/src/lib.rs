//! zekit-codegen: loads, resolves and lints the zekit Level Zero spec, and emits
//! C headers (tera templates) and Rust FFI (quote + prettyplease).

pub mod emit_c;
pub mod emit_chain;
pub mod emit_icd;
pub mod emit_mock;
pub mod emit_rust;
pub mod emit_validate;
pub mod expr;
pub mod lint;
pub mod load;
pub mod model;
pub mod params;
pub mod seeds;
pub mod spec;

use std::path::Path;

pub use load::{Diag, Loc};
pub use model::Api;

/// Loads and resolves the spec under `root` (the folder holding `ze/`, `zet/`, ...).
pub fn load_api(root: &Path) -> Result<Api, Vec<Diag>> {
    let loaded = load::load_dir(root)?;
    Ok(Api::new(loaded))
}

/// Every generated file: (path relative to `generated/`, contents).
pub fn generate(api: &Api) -> Result<Vec<(String, String)>, String> {
    let sources = "spec/ (zekit schema) via codegen/templates";
    let all_ns = load::NAMESPACES.iter().all(|ns| api.loaded.files.iter().any(|f| f.ns == *ns));
    // The emitters are independent: run them side by side.
    let (c, rust, icd) = std::thread::scope(|s| {
        let c = s.spawn(|| emit_c::emit(api, sources));
        let rust = s.spawn(|| emit_rust::emit(api));
        let icd = s.spawn(|| if all_ns { emit_icd::emit(api) } else { Ok(vec![]) });
        let join = |h: std::thread::ScopedJoinHandle<'_, Result<Vec<(String, String)>, String>>| {
            h.join().unwrap_or_else(|_| Err("an emitter panicked".to_string()))
        };
        (join(c), join(rust), join(icd))
    });
    let mut out: Vec<(String, String)> =
        c?.into_iter().map(|(name, text)| (format!("include/level_zero/{name}"), text)).collect();
    out.extend(rust?);
    out.extend(icd?);
    out.extend(emit_mock::emit(api)?);
    Ok(out)
}

/// A stable, human-readable summary of the resolved spec: items per namespace and
/// kind, and every DDI table with its entry count (snapshot-tested).
pub fn summary(api: &Api) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    for ns in load::NAMESPACES {
        let mut counts = std::collections::BTreeMap::new();
        for (_, d) in api.docs(ns) {
            *counts.entry(d.entry.kind()).or_insert(0usize) += 1;
            match &d.entry {
                spec::Entry::Struct(x) | spec::Entry::Union(x) => {
                    *counts.entry("member").or_insert(0) += x.members.len();
                }
                spec::Entry::Enum(x) | spec::Entry::Flags(x) => {
                    *counts.entry("enumerator").or_insert(0) += x.etors.len();
                }
                spec::Entry::Function(f) => *counts.entry("param").or_insert(0) += f.params.len(),
                _ => {}
            }
        }
        let list: Vec<String> = counts.iter().map(|(k, v)| format!("{v} {k}")).collect();
        let _ = writeln!(s, "{ns}: {}", list.join(", "));
        for t in api.ddi_tables(ns) {
            let _ = writeln!(s, "  {} ({}): {} entries", t.type_name, t.getter, t.functions.len());
        }
    }
    s
}
