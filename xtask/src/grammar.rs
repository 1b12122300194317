//! `spirv/src/spv/grammar.rs`, written by `cargo xtask gen` (and checked by `gen --check`):
//! SPIR-V's enumerants as typed constants, one module per operand kind, each named after and
//! valued by the `spirv` crate's enum (the rspirv project's crate, generated from
//! `spirv.core.grammar.json` and the OpenCL.std grammar), so that the compiler matches names,
//! never numbers. The crate's source (`autogen_spirv.rs`) is found through `cargo metadata`.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The file this writes, relative to the workspace root.
pub const PATH: &str = "spirv/src/spv/grammar.rs";

/// (crate enum, module, constant type, doc)
const KINDS: [(&str, &str, &str, &str); 23] = [
    ("Op", "op", "u16", "Opcodes (`spirv::Op`)."),
    ("Capability", "cap", "u32", "Capabilities (`spirv::Capability`)."),
    ("StorageClass", "storage", "u32", "Storage classes (`spirv::StorageClass`)."),
    ("Decoration", "deco", "u32", "Decorations (`spirv::Decoration`)."),
    ("BuiltIn", "builtin", "u32", "Built-in variables (`spirv::BuiltIn`)."),
    ("ExecutionMode", "exec_mode", "u32", "Execution modes (`spirv::ExecutionMode`)."),
    ("ExecutionModel", "exec_model", "u32", "Execution models (`spirv::ExecutionModel`)."),
    (
        "Scope",
        "scope",
        "u64",
        "Memory and execution scopes (`spirv::Scope`; `u64`: the compiler reads them as constants).",
    ),
    ("GroupOperation", "group_op", "u32", "Group operations (`spirv::GroupOperation`)."),
    ("Dim", "dim", "u32", "Image dimensionalities (`spirv::Dim`)."),
    ("ImageFormat", "image_format", "u32", "Image formats (`spirv::ImageFormat`)."),
    ("ImageChannelOrder", "channel_order", "u32", "Image channel orders (`spirv::ImageChannelOrder`)."),
    (
        "ImageChannelDataType",
        "channel_type",
        "u32",
        "Image channel data types (`spirv::ImageChannelDataType`).",
    ),
    (
        "SamplerAddressingMode",
        "addressing",
        "u32",
        "Sampler addressing modes (`spirv::SamplerAddressingMode`).",
    ),
    ("SamplerFilterMode", "filter", "u32", "Sampler filter modes (`spirv::SamplerFilterMode`)."),
    ("FPRoundingMode", "rounding", "u32", "Floating-point rounding modes (`spirv::FPRoundingMode`)."),
    ("AccessQualifier", "access", "u32", "Access qualifiers (`spirv::AccessQualifier`)."),
    (
        "FunctionParameterAttribute",
        "param_attr",
        "u32",
        "Function parameter attributes (`spirv::FunctionParameterAttribute`).",
    ),
    ("LinkageType", "linkage", "u32", "Linkage types (`spirv::LinkageType`)."),
    ("AddressingModel", "addressing_model", "u32", "Addressing models (`spirv::AddressingModel`)."),
    ("MemoryModel", "memory_model", "u32", "Memory models (`spirv::MemoryModel`)."),
    ("SourceLanguage", "source_language", "u32", "Source languages (`spirv::SourceLanguage`)."),
    ("CLOp", "cl", "u32", "OpenCL.std extended instructions (`spirv::CLOp`)."),
];

/// Vendor suffixes that get an underscore of their own after a capital or a digit.
const VENDORS: [&str; 11] = ["INTEL", "KHR", "EXT", "NVX", "NV", "AMDX", "AMD", "ARM", "QCOM", "HUAWEI", "GOOGLE"];

/// `FAdd` → `F_ADD`, `ConvertFToU` → `CONVERT_F_TO_U`, `ConvertBF16ToFINTEL` →
/// `CONVERT_BF16_TO_F_INTEL`, `Dim1D` → `DIM_1D`, `s_abs` → `S_ABS`.
fn const_name(variant: &str) -> String {
    let c: Vec<char> = variant.chars().collect();
    // An underscore between a lower-case letter or digit and a capital.
    let mut a: Vec<char> = Vec::new();
    for (i, &ch) in c.iter().enumerate() {
        if i > 0 && ch.is_ascii_uppercase() && (c[i - 1].is_ascii_lowercase() || c[i - 1].is_ascii_digit()) {
            a.push('_');
        }
        a.push(ch);
    }
    // An underscore between a capital and a capital followed by a lower-case letter.
    let mut b: Vec<char> = Vec::new();
    for (i, &ch) in a.iter().enumerate() {
        let next_lower = a.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
        if i > 0 && ch.is_ascii_uppercase() && a[i - 1].is_ascii_uppercase() && next_lower {
            b.push('_');
        }
        b.push(ch);
    }
    let mut s: String = b.into_iter().collect();
    if let Some(v) = VENDORS.iter().find(|v| s.ends_with(*v)) {
        let at = s.len() - v.len();
        if s[..at].chars().last().is_some_and(|p| p.is_ascii_uppercase() || p.is_ascii_digit()) {
            s.insert(at, '_');
        }
    }
    let s = s.to_uppercase();
    // `DIM1_D` reads better as `DIM_1D`.
    match s.strip_prefix("DIM").and_then(|r| r.strip_suffix("_D")) {
        Some(d) if d.len() == 1 && d.chars().all(|c| c.is_ascii_digit()) => format!("DIM_{d}D"),
        _ => s,
    }
}

/// The variants of `pub enum NAME { V = 12u32, ... }` in the crate's source, in order.
fn variants<'a>(src: &'a str, name: &str) -> Result<Vec<(&'a str, u32)>, String> {
    let head = format!("pub enum {name} {{\n");
    let start = src.find(&head).ok_or_else(|| format!("the spirv crate has no enum {name}"))? + head.len();
    let body = &src[start..start + src[start..].find("\n}").ok_or("an enum without its end")?];
    let mut out = Vec::new();
    for line in body.lines() {
        let line = line.trim();
        let Some((v, n)) = line.strip_suffix("u32,").and_then(|l| l.split_once(" = ")) else {
            continue;
        };
        out.push((v.trim(), n.trim().parse().map_err(|_| format!("{name}::{v}: `{n}`"))?));
    }
    Ok(out)
}

/// The `spirv` crate's directory, from `cargo metadata` of the compiler's crate.
fn crate_dir(root: &Path) -> Result<PathBuf, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--manifest-path"])
        .arg(root.join("spirv/Cargo.toml"))
        .output()
        .map_err(|e| format!("cargo metadata: {e}"))?;
    if !out.status.success() {
        return Err(format!("cargo metadata: {}", String::from_utf8_lossy(&out.stderr)));
    }
    let json = String::from_utf8_lossy(&out.stdout);
    // Each package's `"manifest_path":"..."`; the spirv crate's ends in `/spirv-<version>/Cargo.toml`.
    let key = "\"manifest_path\":\"";
    json.match_indices(key)
        .filter_map(|(i, _)| {
            let rest = &json[i + key.len()..];
            Some(&rest[..rest.find('"')?])
        })
        .map(PathBuf::from)
        .find(|p| {
            p.parent()
                .and_then(|d| d.file_name())
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("spirv-") && n[6..].starts_with(|c: char| c.is_ascii_digit()))
        })
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .ok_or_else(|| "cargo metadata lists no spirv crate".into())
}

/// The text of [`PATH`].
pub fn text(root: &Path) -> Result<String, String> {
    let dir = crate_dir(root)?;
    let version = dir.file_name().and_then(|n| n.to_str()).unwrap_or("spirv").to_owned();
    let src_path = dir.join("autogen_spirv.rs");
    let src = std::fs::read_to_string(&src_path).map_err(|e| format!("{}: {e}", src_path.display()))?;
    let mut out = String::from("// @generated by `cargo xtask gen` (xtask/src/grammar.rs): do not edit.\n");
    out.push_str("//! SPIR-V enumerants as typed constants, one module per operand kind, from the `spirv` crate\n");
    out.push_str(&format!("//! ({version}), that is from SPIR-V's machine-readable grammar. Names the grammar lacks\n"));
    out.push_str("//! are in `names`.\n\n");
    for (name, module, ty, doc) in KINDS {
        out.push_str(&format!("/// {doc}\npub mod {module} {{\n"));
        let mut seen = std::collections::HashSet::new();
        for (v, n) in variants(&src, name)? {
            let c = const_name(v);
            if !seen.insert(c.clone()) {
                return Err(format!("two constants {c} in {module}"));
            }
            out.push_str(&format!("    /// `{v}` ({n}).\n    pub const {c}: {ty} = spirv::{name}::{v} as {ty};\n"));
        }
        out.push_str("}\n");
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn names() {
        for (v, c) in [
            ("FAdd", "F_ADD"),
            ("ConvertFToU", "CONVERT_F_TO_U"),
            ("ConvertBF16ToFINTEL", "CONVERT_BF16_TO_F_INTEL"),
            ("Dim1D", "DIM_1D"),
            ("s_abs", "S_ABS"),
            ("SubgroupShuffleINTEL", "SUBGROUP_SHUFFLE_INTEL"),
            ("GroupNonUniformRotateKHR", "GROUP_NON_UNIFORM_ROTATE_KHR"),
            ("Int64", "INT64"),
        ] {
            assert_eq!(super::const_name(v), c, "{v}");
        }
    }
}
