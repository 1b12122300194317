//! ABI comparison of the generated Level Zero headers with Debian's `libze-dev` (API 1.4).
//!
//! The generated headers must be drop-in replacements: every struct keeps its size, alignment and
//! member offsets, every enumerator and numeric macro keeps its value, every function and
//! function-pointer typedef keeps its signature, and DDI tables only grow by appending. See
//! `abi/mod.rs` for how the comparison works.
//!
//! Run with `cargo test -p zekit-codegen --test abi_debian -- --nocapture` to see the counts.
//! Set `ZEKIT_ABI_KEEP_TEMP=1` to keep the generated probe sources for inspection.

mod abi;

use std::fs;
use std::path::{Path, PathBuf};

fn debian_root() -> PathBuf {
    let root = abi::debian_include_root();
    let missing = abi::missing_headers(&root);
    assert!(
        missing.is_empty(),
        "Debian's Level Zero headers are not installed (missing: {}). Run `cargo xtask test`, which \
         fetches Debian's `libze-dev` into target/, or `sudo apt-get install libze-dev`. This test does not skip.",
        missing
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    root
}

fn generated_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .parent()
        .unwrap_or(manifest)
        .join("generated/include")
}

#[test]
fn generated_headers_match_debian_abi() {
    let debian = debian_root();
    let generated = generated_root();
    let missing = abi::missing_headers(&generated);
    assert!(
        missing.is_empty(),
        "the generated headers are missing ({}); run `cargo xtask gen` first",
        missing
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let work = abi::TempDir::new("generated");
    let report = abi::compare(&debian, &generated, &work.0)
        .unwrap_or_else(|e| panic!("ABI comparison could not run: {e}"));
    let label = format!("generated headers in {}", generated.display());
    println!("{}", report.summary(&label));
    assert!(
        report.differences.is_empty(),
        "{}",
        report.failure_message(&label)
    );
}

/// Debian against itself: proves the parser, the probe and the signature unit, and that the
/// headers hold roughly the number of items expected.
#[test]
fn harness_self_test_debian_vs_debian() {
    let debian = debian_root();
    let work = abi::TempDir::new("self");
    let report = abi::compare(&debian, &debian, &work.0)
        .unwrap_or_else(|e| panic!("ABI comparison could not run: {e}"));
    println!("{}", report.summary("itself"));
    assert!(
        report.differences.is_empty(),
        "{}",
        report.failure_message("itself")
    );
    assert!(report.tolerated.is_empty(), "{:?}", report.tolerated);

    let c = &report.counts;
    for (what, n) in [
        ("structs", c.structs),
        ("unions", c.unions),
        ("members", c.members),
        ("enums", c.enums),
        ("enumerators", c.etors),
        ("numeric macros", c.macros),
        ("string macros", c.str_macros),
        ("functions", c.functions),
        ("DDI pfn typedefs", c.ddi_pfns),
        ("callback pfn typedefs", c.callback_pfns),
        ("DDI tables", c.ddi_tables),
    ] {
        assert!(n > 0, "no {what} found in the Debian headers");
    }
    assert!(
        (3000..6000).contains(&c.headline()),
        "expected roughly 3,500 structs+members+enumerators+macros+functions+pfns, found {}",
        c.headline()
    );

    // Spot checks of the parser against well-known items.
    let api = abi::parse_headers(&debian).expect("parse");
    let props = api
        .find_composite("ze_device_properties_t")
        .expect("ze_device_properties_t");
    let names: Vec<&str> = props.members.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(&names[..4], ["stype", "pNext", "type", "vendorId"]);
    assert!(names.contains(&"uuid") && names.contains(&"name"));
    let uuid = api
        .find_composite("ze_device_uuid_t")
        .expect("ze_device_uuid_t");
    assert_eq!(uuid.members[0].decl, "uint8_t id[ZE_MAX_DEVICE_UUID_SIZE]");
    let cl = api
        .find_composite("ze_command_list_dditable_t")
        .expect("ze_command_list_dditable_t");
    assert!(cl.is_ddi_table());
    assert_eq!(cl.members[0].name, "pfnCreate");
    assert!(api
        .find_composite("ze_dditable_t")
        .expect("ze_dditable_t")
        .is_ddi_container());
    assert!(
        api.find_composite("zet_value_t")
            .expect("zet_value_t")
            .is_union
    );
}

/// An edit of a scratch copy of a Debian header. `scope` is text that precedes the edit in the
/// file, so that the edit hits the intended declaration.
enum Edit {
    Replace {
        file: &'static str,
        scope: &'static str,
        old: &'static str,
        new: &'static str,
    },
    /// Swaps the first line containing `a` with the first line containing `b` after `scope`.
    SwapLines {
        file: &'static str,
        scope: &'static str,
        a: &'static str,
        b: &'static str,
    },
}

fn find_after(text: &str, scope: &str, what: &str, file: &str) -> usize {
    let from = text
        .find(scope)
        .unwrap_or_else(|| panic!("`{scope}` not found in {file}"));
    from + text[from..]
        .find(what)
        .unwrap_or_else(|| panic!("`{what}` not found after `{scope}` in {file}"))
}

/// Returns the byte range of the whole line holding byte `at`.
fn line_at(text: &str, at: usize) -> std::ops::Range<usize> {
    let start = text[..at].rfind('\n').map_or(0, |p| p + 1);
    let end = text[at..].find('\n').map_or(text.len(), |p| at + p);
    start..end
}

/// Copies the Debian headers into a scratch include root, applies `edits` and returns the root.
fn mutated_copy(dir: &Path, edits: &[Edit]) -> PathBuf {
    let root = dir.join("include");
    let lz = root.join("level_zero");
    fs::create_dir_all(&lz).expect("create scratch include dir");
    for h in abi::HEADERS {
        let src = abi::debian_include_root().join("level_zero").join(h);
        fs::copy(&src, lz.join(h)).unwrap_or_else(|e| panic!("copy {}: {e}", src.display()));
    }
    for edit in edits {
        let file = match edit {
            Edit::Replace { file, .. } | Edit::SwapLines { file, .. } => file,
        };
        let path = lz.join(file);
        let text = fs::read_to_string(&path).expect("read copy");
        let edited = match edit {
            Edit::Replace {
                scope, old, new, ..
            } => {
                let at = find_after(&text, scope, old, file);
                format!("{}{}{}", &text[..at], new, &text[at + old.len()..])
            }
            Edit::SwapLines { scope, a, b, .. } => {
                let ra = line_at(&text, find_after(&text, scope, a, file));
                let rb = line_at(&text, find_after(&text, scope, b, file));
                assert!(ra.end < rb.start, "`{a}` must come before `{b}` in {file}");
                format!(
                    "{}{}{}{}{}",
                    &text[..ra.start],
                    &text[rb.clone()],
                    &text[ra.end..rb.start],
                    &text[ra.clone()],
                    &text[rb.end..]
                )
            }
        };
        assert_ne!(edited, text, "edit of {file} changed nothing");
        fs::write(&path, edited).expect("write copy");
    }
    root
}

/// The harness must notice layout, value, signature, DDI-order and missing-item changes.
#[test]
fn harness_detects_differences() {
    let debian = debian_root();
    let work = abi::TempDir::new("mutated");
    let root = mutated_copy(
        &work.0,
        &[
            // Swap two members of ze_device_properties_t (same type, so only offsets move).
            Edit::SwapLines {
                file: "ze_api.h",
                scope: "typedef struct _ze_device_properties_t",
                a: " vendorId;",
                b: " deviceId;",
            },
            // Change a member type without changing the layout.
            Edit::Replace {
                file: "ze_api.h",
                scope: "typedef struct _ze_device_properties_t",
                old: "uint32_t coreClockRate;",
                new: "int32_t coreClockRate;",
            },
            // Change an enumerator value.
            Edit::Replace {
                file: "ze_api.h",
                scope: "typedef enum _ze_device_type_t",
                old: "ZE_DEVICE_TYPE_VPU = 5,",
                new: "ZE_DEVICE_TYPE_VPU = 6,",
            },
            // Remove an enumerator.
            Edit::Replace {
                file: "ze_api.h",
                scope: "typedef enum _ze_device_type_t",
                old: "ZE_DEVICE_TYPE_MCA = 4,",
                new: "",
            },
            // Change a function signature (drop a const).
            Edit::Replace {
                file: "ze_api.h",
                scope: "zeCommandListAppendMemoryCopy(",
                old: "const void* srcptr,",
                new: "void* srcptr,",
            },
            // Change the type of a numeric macro.
            Edit::Replace {
                file: "zes_api.h",
                scope: "#define ZES_SCHED_WATCHDOG_DISABLE",
                old: "(~(0ULL))",
                new: "(~(0U))",
            },
            // Reorder a DDI table.
            Edit::SwapLines {
                file: "ze_ddi.h",
                scope: "typedef struct _ze_command_list_dditable_t",
                a: " pfnCreate;",
                b: " pfnCreateImmediate;",
            },
        ],
    );
    let report = abi::compare(&debian, &root, &work.0)
        .unwrap_or_else(|e| panic!("ABI comparison could not run: {e}"));
    let msg = report.failure_message("mutated copy");
    println!("{msg}");
    let expect = [
        "offset ze_device_properties_t.vendorId: debian=20 generated=24",
        "offset ze_device_properties_t.deviceId: debian=24 generated=20",
        "signature member type ze_device_properties_t.coreClockRate",
        "etor ZE_DEVICE_TYPE_VPU: debian=5 generated=6",
        "etor ZE_DEVICE_TYPE_MCA: debian=4 generated=<missing:",
        "signature function zeCommandListAppendMemoryCopy: conflicting types",
        "macro ZES_SCHED_WATCHDOG_DISABLE: debian=-1 u8 generated=4294967295 u4",
        "offset ze_command_list_dditable_t.pfnCreate: debian=0 generated=8 [DDI table \
         ze_command_list_dditable_t: member pfnCreate moved from slot 0 to slot 1",
        "offset ze_command_list_dditable_t.pfnCreateImmediate: debian=8 generated=0",
    ];
    for e in expect {
        assert!(
            report.differences.iter().any(|d| d.contains(e)),
            "expected a difference containing `{e}`; got:\n{msg}"
        );
    }
    // Each edit shows up only where expected.
    assert_eq!(
        report.differences.len(),
        expect.len(),
        "unexpected set of differences:\n{msg}"
    );
}

/// Changes that newer official headers make too must not count as differences: DDI tables grow
/// by appending, the DDI container gains (and reorders) tables, `*_VERSION_CURRENT` moves up,
/// and new items appear.
#[test]
fn harness_tolerates_allowed_evolution() {
    let debian = debian_root();
    let work = abi::TempDir::new("evolved");
    let root = mutated_copy(
        &work.0,
        &[
            Edit::Replace {
                file: "ze_ddi.h",
                scope: "typedef struct _ze_command_list_dditable_t",
                old: "} ze_command_list_dditable_t;",
                new: "    ze_pfnCommandListCreate_t pfnZkAppended;\n} ze_command_list_dditable_t;",
            },
            Edit::Replace {
                file: "ze_ddi.h",
                scope: "typedef struct _ze_dditable_t",
                old: "{",
                new: "{\n    ze_global_dditable_t ZkInserted;",
            },
            Edit::Replace {
                file: "ze_api.h",
                scope: "typedef enum _ze_api_version_t",
                old: "ZE_API_VERSION_CURRENT = ZE_MAKE_VERSION( 1, 4 ),",
                new: "ZE_API_VERSION_1_17 = ZE_MAKE_VERSION( 1, 17 ),\n    \
                      ZE_API_VERSION_CURRENT = ZE_MAKE_VERSION( 1, 17 ),",
            },
            Edit::Replace {
                file: "ze_api.h",
                scope: "zeInit(",
                old: ");",
                new: ");\nZE_APIEXPORT ze_result_t ZE_APICALL zeZkNewFunction(void);",
            },
        ],
    );
    let report = abi::compare(&debian, &root, &work.0)
        .unwrap_or_else(|e| panic!("ABI comparison could not run: {e}"));
    println!("{}", report.summary("evolved copy"));
    assert!(
        report.differences.is_empty(),
        "{}",
        report.failure_message("evolved copy")
    );
    for e in [
        "size ze_command_list_dditable_t: debian=224 generated=232",
        "size ze_dditable_t:",
        "offset ze_dditable_t.Global: debian=0 generated=8",
        "etor ZE_API_VERSION_CURRENT: debian=65540 generated=65553",
    ] {
        assert!(
            report.tolerated.iter().any(|t| t.contains(e)),
            "expected a tolerated difference containing `{e}`; got {:#?}",
            report.tolerated
        );
    }
}
