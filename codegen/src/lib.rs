//! zekit-codegen: loads, resolves and lints the zekit Level Zero spec, and emits
//! C headers (tera templates) and Rust FFI (quote + prettyplease).

pub mod emit_c;
pub mod emit_chain;
pub mod emit_fns;
pub mod emit_icd;
pub mod emit_mock;
pub mod emit_rust;
pub mod emit_safe;
pub mod emit_validate;
pub mod expr;
pub mod jobs;
pub mod lint;
pub mod load;
pub mod model;
pub mod params;
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
    jobs::run(generate_jobs(api)?)
}

/// [`generate`], and how long each job took.
pub fn generate_timed(api: &Api) -> (Result<jobs::Files, String>, Vec<jobs::Timing>) {
    match generate_jobs(api) {
        Ok(jobs) => jobs::run_timed(jobs),
        Err(e) => (Err(e), vec![]),
    }
}

/// The jobs of [`generate`], in the order of its files: C headers, zekit-sys, zekit-icd, the
/// mock's header. They are independent; [`jobs::run`] spreads them over the cores.
pub fn generate_jobs(api: &Api) -> Result<Vec<jobs::Job<'_>>, String> {
    let sources = "spec/ (zekit schema) via codegen/templates";
    let all_ns = load::NAMESPACES.iter().all(|ns| api.loaded.files.iter().any(|f| f.ns == *ns));
    let mut out = vec![jobs::Job::text("C headers", 30, move || {
        let files = emit_c::emit(api, sources)?;
        Ok(files.into_iter().map(|(name, text)| (format!("include/level_zero/{name}"), text)).collect())
    })];
    out.extend(emit_rust::jobs(api));
    if all_ns {
        out.extend(emit_icd::jobs(api)?);
    }
    out.push(jobs::Job::text("mock header", 2, move || emit_mock::emit(api)));
    out.push(jobs::Job::new(emit_safe::PATH, 20, move || {
        Ok(vec![(emit_safe::PATH.to_string(), jobs::Output::Rust(emit_safe::emit(api)?))])
    }));
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
