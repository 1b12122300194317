//! Which DDI entries the built `libze_zekit_cpu.so` fills, for every function of the spec.
//!
//! Each exported `*GetProcAddrTable` is called (through `dlopen`/`dlsym`, as a loader does) on a
//! buffer of the Rust table's size poisoned with 0xAB, followed by a poisoned guard. At a version
//! `v`, every entry with `since <= v` must be written (the implemented ones non-null, the others
//! null) and nothing else: at API 1.4 (Debian's loader) no byte past the 1.4 prefix may change.
//! The table of results is printed (see it with `--nocapture`) and written to
//! `target/<profile>/zekit-ddi-fill-cpu.md`.

// The driver's library (`zekit-cpu`), which the ICD exports.
extern crate zekit_cpu as zekit_driver_core;

use std::ffi::{c_void, CString};
use std::fmt::Write as _;

use zekit_sys::*;

mod common;

type Getter = unsafe extern "C" fn(ze_api_version_t, *mut c_void) -> ze_result_t;

const POISON: u8 = 0xAB;
const GUARD_BYTES: usize = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    /// Not written by the getter.
    Untouched,
    /// Written null: the function is not implemented.
    Null,
    /// Written non-null.
    Filled,
}

impl Slot {
    fn cell(self, offered: bool) -> &'static str {
        match (offered, self) {
            (false, _) => "-",
            (true, Slot::Filled) => "filled",
            (true, Slot::Null) => "null",
            (true, Slot::Untouched) => "UNTOUCHED",
        }
    }
}

struct Library(*mut c_void);

impl Library {
    fn open() -> Library {
        let path = common::cpu_icd();
        let c = CString::new(path.to_str().expect("utf-8 path")).unwrap();
        // SAFETY: dlopen with a valid C string; the library's initializers are Rust statics.
        let h = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        assert!(!h.is_null(), "dlopen {} failed", path.display());
        Library(h)
    }

    fn getter(&self, name: &str) -> Getter {
        let c = CString::new(name).unwrap();
        // SAFETY: valid handle and C string.
        let sym = unsafe { libc::dlsym(self.0, c.as_ptr()) };
        assert!(!sym.is_null(), "{name} is not exported");
        // SAFETY: every `*GetProcAddrTable` has this signature (the table type is erased).
        unsafe { std::mem::transmute::<*mut c_void, Getter>(sym) }
    }
}

/// Calls `getter` on a poisoned buffer of `size` bytes (plus a guard); returns the bytes.
fn fill(getter: Getter, version: ze_api_version_t, size: usize) -> Vec<u8> {
    assert_eq!(size % 8, 0);
    let words = (size + GUARD_BYTES) / 8;
    let mut buf = vec![u64::from_ne_bytes([POISON; 8]); words];
    // SAFETY: the buffer is at least as large as the table and 8-aligned.
    let r = unsafe { getter(version, buf.as_mut_ptr().cast()) };
    assert_eq!(r, ZE_RESULT_SUCCESS, "getter at {version:?}");
    buf.iter().flat_map(|w| w.to_ne_bytes()).collect()
}

fn slot(bytes: &[u8], index: usize) -> Slot {
    let b = &bytes[index * 8..index * 8 + 8];
    if b.iter().all(|&x| x == POISON) {
        Slot::Untouched
    } else if b.iter().all(|&x| x == 0) {
        Slot::Null
    } else {
        Slot::Filled
    }
}

fn version(major: u32, minor: u32) -> ze_api_version_t {
    ze_api_version_t(ZE_MAKE_VERSION(major, minor))
}

#[test]
fn ddi_fill_at_current_and_1_4() {
    let lib = Library::open();
    let v14 = version(1, 4);
    let current = ze_api_version_t::CURRENT;
    let latest = DDI_TABLES
        .iter()
        .flat_map(|(_, t)| t.iter())
        .flat_map(|t| t.entries.iter())
        .map(|e| ze_api_version_t(e.since_version()))
        .max_by_key(|v| v.0)
        .unwrap();
    let versions = [v14, current, latest];
    let vname = |v: ze_api_version_t| format!("{}.{}", v.0 >> 16, v.0 & 0xffff);

    let mut report = String::new();
    writeln!(
        report,
        "| function | table | slot | since | filled at {} | filled at {} (current) | filled at {} (latest) |",
        vname(v14),
        vname(current),
        vname(latest)
    )
    .unwrap();
    writeln!(report, "|---|---|---|---|---|---|---|").unwrap();

    let dispatch = zekit_driver_core::api::dispatch();
    let mut filled_latest = Vec::new();
    let mut counts = [0usize; 3];
    let mut total = 0;
    for (_, tables) in DDI_TABLES {
        for table in *tables {
            let getter = lib.getter(table.getter);
            let results: Vec<Vec<u8>> = versions
                .iter()
                .map(|&v| fill(getter, v, table.size))
                .collect();
            for (bytes, &v) in results.iter().zip(&versions) {
                // The guard after the table is never written.
                assert!(
                    bytes[table.size..].iter().all(|&b| b == POISON),
                    "{} wrote past the table at {}",
                    table.getter,
                    vname(v)
                );
            }
            // At 1.4: the entries since <= 1.4 are a prefix; nothing after it changes.
            let prefix = table
                .entries
                .iter()
                .take_while(|e| e.since_version() <= v14.0)
                .count();
            assert!(
                table.entries[prefix..]
                    .iter()
                    .all(|e| e.since_version() > v14.0),
                "{}: 1.4 entries are not a prefix",
                table.type_name
            );
            assert!(
                results[0][prefix * 8..].iter().all(|&b| b == POISON),
                "{} changed bytes past the 1.4 prefix ({} entries)",
                table.getter,
                prefix
            );

            for e in table.entries {
                total += 1;
                let mut cells = Vec::new();
                for (i, (bytes, &v)) in results.iter().zip(&versions).enumerate() {
                    let offered = e.since_version() <= v.0;
                    let s = slot(bytes, e.slot);
                    if offered {
                        assert_ne!(s, Slot::Untouched, "{} not written at {}", e.name, vname(v));
                        let expect = if dispatch.implements_function(e.name) {
                            Slot::Filled
                        } else {
                            Slot::Null
                        };
                        assert_eq!(s, expect, "{} at {}", e.name, vname(v));
                    } else {
                        assert_eq!(s, Slot::Untouched, "{} written at {}", e.name, vname(v));
                    }
                    if s == Slot::Filled {
                        counts[i] += 1;
                    }
                    cells.push(s.cell(offered));
                }
                if slot(&results[2], e.slot) == Slot::Filled {
                    filled_latest.push(e.name);
                }
                writeln!(
                    report,
                    "| {} | {} | {} | {}.{} | {} | {} | {} |",
                    e.name,
                    table.type_name,
                    e.slot,
                    e.since.0,
                    e.since.1,
                    cells[0],
                    cells[1],
                    cells[2]
                )
                .unwrap();
            }
        }
    }

    // Exactly the functions the driver's impl blocks define are filled at the latest version.
    let mut expected: Vec<&str> =
        zekit_icd::FUNCTIONS.iter().filter(|f| dispatch.implements(f.method)).map(|f| f.name).collect();
    expected.sort_unstable();
    filled_latest.sort_unstable();
    assert_eq!(filled_latest, expected);

    writeln!(
        report,
        "\n{total} functions; filled: {} at {}, {} at {}, {} at {}.",
        counts[0],
        vname(v14),
        counts[1],
        vname(current),
        counts[2],
        vname(latest)
    )
    .unwrap();
    println!("{report}");
    let out = zekit_testkit::target_dir().join("zekit-ddi-fill-cpu.md");
    std::fs::write(&out, &report).expect("write the report");
    println!("written to {}", out.display());
    // The whole listing is pinned: a change to what the driver implements shows up here.
    insta::assert_snapshot!("ddi_fill_cpu", report);
}

#[test]
fn getters_reject_bad_arguments() {
    let lib = Library::open();
    let getter = lib.getter("zeGetDeviceProcAddrTable");
    // SAFETY: a null table is checked before use.
    let r = unsafe { getter(ze_api_version_t::CURRENT, std::ptr::null_mut()) };
    assert_eq!(r, ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    let mut table = ze_device_dditable_t::default();
    // SAFETY: a valid table; the major version is refused before writing.
    let r = unsafe { getter(version(2, 0), (&raw mut table).cast()) };
    assert_eq!(r, ZE_RESULT_ERROR_UNSUPPORTED_VERSION);
    assert!(table.pfnGet.is_none());
}
