//! zekit-codegen: loads, resolves and lints the zekit Level Zero spec, and emits
//! C headers (tera templates) and Rust FFI (quote + prettyplease).

pub mod emit_c;
pub mod load;
pub mod model;
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
    let mut out = vec![];
    for (name, text) in emit_c::emit(api, sources)? {
        out.push((format!("include/level_zero/{name}"), text));
    }
    Ok(out)
}
