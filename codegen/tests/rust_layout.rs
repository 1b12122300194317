//! The Rust FFI (`zekit-sys`) against the C headers, both generated from `spec/`.
//!
//! A C probe (`cc -std=c11 -I generated/include`) prints `sizeof`, `_Alignof` and every
//! member's `offsetof` for each struct/union that `zekit_sys::LAYOUTS` lists (spec structs
//! and unions, DDI tables, tracing structs). Those numbers are compared with
//! * the Rust side (`zekit_sys::LAYOUTS`, computed with `size_of` / `offset_of!`),
//! * the model (`Api::layouts`), which `cargo xtask gen` writes into
//!   `generated/zekit-sys/tests/layout.rs`.
//!
//! Every mismatch is collected and reported, not just the first. Run `cargo xtask gen` first:
//! this test reads the generated headers and builds the generated crate.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use zekit_codegen::model::Api;
use zekit_codegen::spec::Entry;

fn root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}

fn api() -> &'static Api {
    static API: OnceLock<Api> = OnceLock::new();
    API.get_or_init(|| {
        zekit_codegen::load_api(&root().join("spec")).unwrap_or_else(|diags| {
            panic!("spec does not load:\n{}", diags.iter().map(|d| d.to_string()).collect::<Vec<_>>().join("\n"))
        })
    })
}

/// The headers, in include order.
const HEADERS: [&str; 9] = [
    "ze_api.h",
    "ze_ddi.h",
    "zet_api.h",
    "zet_ddi.h",
    "zes_api.h",
    "zes_ddi.h",
    "zer_api.h",
    "zer_ddi.h",
    "ze_ddi_common.h",
];

#[derive(Default)]
struct CLayouts {
    /// type → (size, align)
    types: BTreeMap<String, (u64, u64)>,
    /// (type, member) → offset
    offsets: BTreeMap<(String, String), u64>,
}

fn fail(errs: &[String], what: &str) {
    assert!(errs.is_empty(), "{} {what}:\n{}", errs.len(), errs.join("\n"));
}

/// Compiles and runs the C probe once per test process.
fn c_layouts() -> &'static CLayouts {
    static C: OnceLock<CLayouts> = OnceLock::new();
    C.get_or_init(|| {
        let include = root().join("generated/include");
        let mut src = String::from("#include <stdio.h>\n#include <stddef.h>\n");
        for h in HEADERS {
            assert!(
                include.join("level_zero").join(h).exists(),
                "generated/include/level_zero/{h} is missing; run `cargo xtask gen`"
            );
            src.push_str(&format!("#include <level_zero/{h}>\n"));
        }
        src.push_str("int main(void) {\n");
        for (name, _, _, members) in zekit_sys::LAYOUTS {
            src.push_str(&format!("    printf(\"T {name} %zu %zu\\n\", sizeof({name}), (size_t)_Alignof({name}));\n"));
            for (m, _) in *members {
                src.push_str(&format!("    printf(\"M {name} {m} %zu\\n\", offsetof({name}, {m}));\n"));
            }
        }
        src.push_str("    return 0;\n}\n");
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("rust_layout");
        std::fs::create_dir_all(&dir).unwrap();
        let c = dir.join("probe.c");
        let exe = dir.join("probe");
        std::fs::write(&c, src).unwrap();
        let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
        let out = Command::new(&cc)
            .args(["-std=c11", "-o"])
            .arg(&exe)
            .arg("-I")
            .arg(&include)
            .arg(&c)
            .output()
            .unwrap_or_else(|e| panic!("cannot run the C compiler `{cc}`: {e}"));
        assert!(
            out.status.success(),
            "the C probe {} does not compile:\n{}",
            c.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let out = Command::new(&exe).output().expect("run the C probe");
        assert!(out.status.success(), "the C probe failed");
        let mut l = CLayouts::default();
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            let f: Vec<&str> = line.split(' ').collect();
            match f.as_slice() {
                ["T", t, size, align] => {
                    l.types.insert(t.to_string(), (size.parse().unwrap(), align.parse().unwrap()));
                }
                ["M", t, m, off] => {
                    l.offsets.insert((t.to_string(), m.to_string()), off.parse().unwrap());
                }
                _ => panic!("unexpected probe line `{line}`"),
            }
        }
        l
    })
}

/// Every `typedef struct _X` / `typedef union _X` of the generated headers, handles excluded.
fn c_struct_names() -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for h in HEADERS {
        let text = std::fs::read_to_string(root().join("generated/include/level_zero").join(h)).unwrap();
        for kw in ["typedef struct _", "typedef union _"] {
            for (i, _) in text.match_indices(kw) {
                let rest = &text[i + kw.len()..];
                let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
                let after = rest[end..].trim_start();
                if after.starts_with('*') {
                    continue; // `typedef struct _ze_device_handle_t *ze_device_handle_t;`
                }
                out.insert(rest[..end].to_string());
            }
        }
    }
    out
}

#[test]
fn rust_layouts_match_c_compiler() {
    let c = c_layouts();
    let mut errs = vec![];
    let mut members = 0;
    for (name, size, align, ms) in zekit_sys::LAYOUTS {
        let Some(&(csize, calign)) = c.types.get(*name) else {
            errs.push(format!("{name}: not measured by the C probe"));
            continue;
        };
        if *size as u64 != csize {
            errs.push(format!("sizeof({name}): Rust {size}, C {csize}"));
        }
        if *align as u64 != calign {
            errs.push(format!("_Alignof({name}): Rust {align}, C {calign}"));
        }
        for (m, off) in *ms {
            members += 1;
            match c.offsets.get(&(name.to_string(), m.to_string())) {
                Some(&coff) if coff == *off as u64 => {}
                Some(coff) => errs.push(format!("offsetof({name}, {m}): Rust {off}, C {coff}")),
                None => errs.push(format!("offsetof({name}, {m}): not measured by the C probe")),
            }
        }
    }
    println!("{} types, {members} members compared", zekit_sys::LAYOUTS.len());
    fail(&errs, "Rust/C layout mismatches");
}

#[test]
fn every_c_struct_has_a_rust_layout() {
    let rust: BTreeSet<&str> = zekit_sys::LAYOUTS.iter().map(|r| r.0).collect();
    let errs: Vec<String> = c_struct_names()
        .into_iter()
        .filter(|n| !rust.contains(n.as_str()))
        .map(|n| format!("{n}: declared in the C headers, missing from zekit_sys::LAYOUTS"))
        .collect();
    fail(&errs, "C structs without a Rust counterpart");
}

#[test]
fn model_layouts_match_c_compiler() {
    let api = api();
    let c = c_layouts();
    let mut errs = vec![];
    for (_, d) in zekit_codegen::load::NAMESPACES.iter().flat_map(|ns| api.docs(ns)) {
        let (Entry::Struct(s) | Entry::Union(s)) = &d.entry else { continue };
        let Some(l) = api.layouts.get(&s.name) else {
            errs.push(format!("{}: the model has no layout", s.name));
            continue;
        };
        let Some(&(csize, calign)) = c.types.get(&s.name) else {
            errs.push(format!("{}: not measured by the C probe (missing from zekit_sys::LAYOUTS?)", s.name));
            continue;
        };
        if (l.size, l.align) != (csize, calign) {
            errs.push(format!("{}: model size/align {}/{}, C {csize}/{calign}", s.name, l.size, l.align));
        }
        for (m, off, _) in &l.members {
            match c.offsets.get(&(s.name.clone(), m.clone())) {
                Some(&coff) if coff == *off => {}
                Some(coff) => errs.push(format!("offsetof({}, {m}): model {off}, C {coff}", s.name)),
                None => errs.push(format!("offsetof({}, {m}): not measured by the C probe", s.name)),
            }
        }
    }
    fail(&errs, "model/C layout mismatches");
}

#[test]
fn rust_structs_have_spec_members_in_order() {
    let api = api();
    let rust: BTreeMap<&str, Vec<&str>> =
        zekit_sys::LAYOUTS.iter().map(|(n, _, _, ms)| (*n, ms.iter().map(|m| m.0).collect())).collect();
    let mut errs = vec![];
    for (_, d) in zekit_codegen::load::NAMESPACES.iter().flat_map(|ns| api.docs(ns)) {
        let (Entry::Struct(s) | Entry::Union(s)) = &d.entry else { continue };
        let want: Vec<&str> = api.all_members(s).iter().map(|m| m.name.as_str()).collect();
        match rust.get(s.name.as_str()) {
            None => errs.push(format!("{}: missing from zekit_sys::LAYOUTS", s.name)),
            Some(have) if *have != want => errs.push(format!("{}: Rust members {have:?}, spec {want:?}", s.name)),
            Some(_) => {}
        }
    }
    fail(&errs, "Rust struct member mismatches");
}

#[test]
fn rust_ddi_tables_match_model() {
    let api = api();
    let sizes: BTreeMap<&str, usize> = zekit_sys::LAYOUTS.iter().map(|r| (r.0, r.1)).collect();
    let mut errs = vec![];
    let namespaces: Vec<&str> = zekit_sys::DDI_TABLES.iter().map(|(ns, _)| *ns).collect();
    for ns in zekit_codegen::load::NAMESPACES {
        let model = api.ddi_tables(ns);
        let Some((_, rust)) = zekit_sys::DDI_TABLES.iter().find(|(n, _)| *n == ns) else {
            if !model.is_empty() {
                errs.push(format!("{ns}: no DDI tables in zekit_sys::DDI_TABLES ({namespaces:?})"));
            }
            continue;
        };
        let mn: Vec<&str> = model.iter().map(|t| t.type_name.as_str()).collect();
        let rn: Vec<&str> = rust.iter().map(|t| t.type_name).collect();
        if mn != rn {
            errs.push(format!("{ns}: Rust tables {rn:?}, model {mn:?}"));
        }
        let mut total = 0;
        for t in *rust {
            total += t.size;
            if t.size != 8 * t.entries.len() {
                errs.push(format!("{}: {} bytes for {} entries", t.type_name, t.size, t.entries.len()));
            }
            if sizes.get(t.type_name) != Some(&t.size) {
                errs.push(format!("{}: LAYOUTS size {:?}, table size {}", t.type_name, sizes.get(t.type_name), t.size));
            }
            let Some(m) = model.iter().find(|m| m.type_name == t.type_name) else { continue };
            if t.getter != m.getter || t.name != m.name {
                errs.push(format!("{}: Rust {}/{}, model {}/{}", t.type_name, t.name, t.getter, m.name, m.getter));
            }
            let want: Vec<(&str, (u32, u32))> = m
                .functions
                .iter()
                .map(|r| {
                    let f = api.function(*r);
                    let v = zekit_codegen::model::Version::of(f.since.as_deref());
                    (f.name.as_str(), (v.0, v.1))
                })
                .collect();
            let have: Vec<(&str, (u32, u32))> = t.entries.iter().map(|e| (e.name, e.since)).collect();
            if have != want {
                errs.push(format!("{}: Rust entries {have:?}, model {want:?}", t.type_name));
            }
            for (i, e) in t.entries.iter().enumerate() {
                if e.slot != i {
                    errs.push(format!("{}: {} at index {i} says slot {}", t.type_name, e.name, e.slot));
                }
            }
        }
        let agg = format!("{ns}_dditable_t");
        if sizes.get(agg.as_str()) != Some(&total) {
            errs.push(format!("{agg}: size {:?}, sum of tables {total}", sizes.get(agg.as_str())));
        }
    }
    fail(&errs, "DDI table mismatches");
}

/// Not layout, but the same crate: the generated conveniences behave as documented.
#[test]
fn zekit_sys_enums_flags_and_defaults() {
    use zekit_sys::*;
    let flags = ZE_DEVICE_PROPERTY_FLAG_INTEGRATED | ZE_DEVICE_PROPERTY_FLAG_ECC | ze_device_property_flags_t(0x100);
    assert_eq!(format!("{flags:?}"), "ZE_DEVICE_PROPERTY_FLAG_INTEGRATED | ZE_DEVICE_PROPERTY_FLAG_ECC | 0x100");
    assert_eq!(format!("{:?}", ze_device_property_flags_t::empty()), "0");
    assert!(flags.contains(ZE_DEVICE_PROPERTY_FLAG_ECC));
    assert!(!flags.contains(ze_device_property_flags_t::SUBDEVICE));
    assert_eq!((flags & !ze_device_property_flags_t::all_known()).bits(), 0x100);
    assert_eq!(format!("{:?}", ze_device_type_t::GPU), "ZE_DEVICE_TYPE_GPU");
    assert_eq!(format!("{}", ze_device_type_t(0x1234)), "ze_device_type_t(0x1234)");
    assert_eq!(ZE_RESULT_ERROR_UNINITIALIZED.to_string(), "ZE_RESULT_ERROR_UNINITIALIZED");
    assert_eq!(ZE_RESULT_ERROR_UNINITIALIZED.0, 0x7800_0001);
    assert_eq!(zes_engine_group_t::_3D_SINGLE, ZES_ENGINE_GROUP_3D_SINGLE);
    assert_eq!(ZE_API_VERSION_CURRENT.0 >> 16, ZEKIT_SPEC_VERSION.0);
    assert_eq!(ZE_MAKE_VERSION(1, 3), 0x0001_0003);
    assert_eq!(ZE_BIT(4), 16);
    let p = ze_device_properties_t::default();
    assert_eq!(p.stype, ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES);
    assert!(p.pNext.is_null());
    assert_eq!(ze_base_desc_t::default().stype.0, 0);
    assert!(ze_device_dditable_t::default().pfnGet.is_none());
    assert_eq!(
        ZE_DEVICE_DDITABLE_ENTRIES[0],
        DdiEntry { slot: 0, name: "zeDeviceGet", member: "pfnGet", since: (1, 0) }
    );
    assert_eq!(ZE_CACHELINE_SIZE_EXT_NAME_BYTES.strip_suffix(b"\0"), Some(ZE_CACHELINE_SIZE_EXT_NAME.as_bytes()));
    let _ = format!("{p:?}");
}
