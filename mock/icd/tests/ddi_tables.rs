//! Every function of every DDI table (`zekit_sys::DDI_TABLES`) and which entries
//! `libze_zekit_mock.so` fills: all of them at the newest API version (the spec's, 1.18), at
//! `ZE_API_VERSION_CURRENT` and at API 1.4 exactly those introduced by then — checked on a
//! poisoned buffer, so not a byte past a version's prefix of a table may change. Run with
//! `--nocapture` for the listing.

use std::ffi::{c_void, CString};

use zekit_sys::*;

type Getter = unsafe extern "C" fn(ze_api_version_t, *mut c_void) -> ze_result_t;

const POISON: u64 = 0xA5A5_A5A5_A5A5_A5A5;
/// Words after the table that must stay poisoned too.
const GUARD: usize = 8;

struct Lib(*mut c_void);

impl Lib {
    fn open() -> Lib {
        // The newer of target/<profile>/ and deps/ (`cargo test` refreshes only deps/).
        let found = zekit_testkit::icd("ze_zekit_mock");
        let deps = zekit_testkit::target_dir().join("deps/libze_zekit_mock.so");
        let mtime = |p: &std::path::Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
        let path = match (mtime(&found), mtime(&deps)) {
            (Some(a), Some(b)) if b > a => deps,
            _ => found,
        };
        let c = CString::new(path.to_str().unwrap()).unwrap();
        // SAFETY: a valid path; the library's initialisers are Rust's and the mock's.
        let h = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        assert!(!h.is_null(), "dlopen {}", path.display());
        Lib(h)
    }
    fn getter(&self, name: &str) -> Getter {
        let c = CString::new(name).unwrap();
        // SAFETY: a valid library handle and symbol name.
        let f = unsafe { libc::dlsym(self.0, c.as_ptr()) };
        assert!(!f.is_null(), "{name} is not exported");
        // SAFETY: every `*GetProcAddrTable` has this shape (the table pointer is typed in C).
        unsafe { std::mem::transmute::<*mut c_void, Getter>(f) }
    }
}

/// Calls `getter` on a poisoned buffer of `words` table words (+ guard); returns the buffer.
fn fill(getter: Getter, version: ze_api_version_t, words: usize) -> Vec<u64> {
    let mut buf = vec![POISON; words + GUARD];
    // SAFETY: the buffer holds the whole table and is 8-aligned.
    let r = unsafe { getter(version, buf.as_mut_ptr() as *mut c_void) };
    assert_eq!(r, ZE_RESULT_SUCCESS);
    buf
}

/// The entries of `t` a getter called with `version` fills: those with `since <= version`,
/// which are a prefix of the table (tables only grow by appending). Checks that on a poisoned
/// buffer: the prefix is filled, not a byte after it changes. Returns the prefix length.
fn check_version(lib: &Lib, t: &DdiTableInfo, version: ze_api_version_t) -> usize {
    let words = t.size / 8;
    let prefix = t
        .entries
        .iter()
        .filter(|e| e.since_version() <= version.0)
        .count();
    for e in t.entries {
        assert_eq!(
            e.slot < prefix,
            e.since_version() <= version.0,
            "{}.{}: since {:?} breaks the prefix of version {:#x}",
            t.type_name,
            e.member,
            e.since,
            version.0
        );
    }
    let buf = fill(lib.getter(t.getter), version, words);
    for e in &t.entries[..prefix] {
        assert!(
            buf[e.slot] != POISON && buf[e.slot] != 0,
            "{}.{} ({}) not filled at version {:#x}",
            t.type_name,
            e.member,
            e.name,
            version.0
        );
    }
    assert!(
        buf[prefix..].iter().all(|&w| w == POISON),
        "{}: a byte past the prefix of version {:#x} ({prefix} entries) was written",
        t.type_name,
        version.0
    );
    prefix
}

#[test]
fn the_mock_fills_every_entry_and_only_those_a_version_has() {
    let lib = Lib::open();
    // The newest version the spec describes (every entry), the headers' "current" version,
    // and Debian's loader's API 1.4.
    let newest = ze_api_version_t((ZEKIT_SPEC_VERSION.0 << 16) | ZEKIT_SPEC_VERSION.1);
    let (mut functions, mut at_current, mut at_14, mut tables) = (0, 0, 0, 0);
    for (ns, list) in DDI_TABLES {
        for t in *list {
            tables += 1;
            assert_eq!(t.size % 8, 0, "{}", t.type_name);
            assert_eq!(
                t.size / 8,
                t.entries.len(),
                "{}: one pointer per entry",
                t.type_name
            );
            let all = check_version(&lib, t, newest);
            assert_eq!(
                all,
                t.entries.len(),
                "{}: every entry at the newest version",
                t.type_name
            );
            let cur = check_version(&lib, t, ZE_API_VERSION_CURRENT);
            let old = check_version(&lib, t, ZE_API_VERSION_1_4);
            println!(
                "{ns} {} ({}): {} entries, {cur} at the current version, {old} at API 1.4",
                t.type_name,
                t.getter,
                t.entries.len(),
            );
            for e in t.entries {
                let at = |n: usize| if e.slot < n { "filled" } else { "untouched" };
                println!(
                    "    {:<48} since {}.{:<3} {}.{}: filled  current: {:<9}  1.4: {}",
                    e.name,
                    e.since.0,
                    e.since.1,
                    ZEKIT_SPEC_VERSION.0,
                    ZEKIT_SPEC_VERSION.1,
                    at(cur),
                    at(old)
                );
            }
            functions += t.entries.len();
            at_current += cur;
            at_14 += old;
        }
    }
    println!(
        "{tables} tables, {functions} entries: all filled at API {}.{}, {at_current} at the current \
         version, {at_14} at API 1.4",
        ZEKIT_SPEC_VERSION.0, ZEKIT_SPEC_VERSION.1
    );
    assert!(functions >= 480, "{functions}");
    assert!(at_14 > 0 && at_14 < at_current && at_current <= functions);

    // An unknown major version is refused without writing anything.
    let t = &ZE_DDI_TABLES[0];
    let mut buf = vec![POISON; t.size / 8 + GUARD];
    // SAFETY: as in `fill`.
    let r =
        unsafe { lib.getter(t.getter)(ze_api_version_t(2 << 16), buf.as_mut_ptr() as *mut c_void) };
    assert_eq!(r, ZE_RESULT_ERROR_UNSUPPORTED_VERSION);
    assert!(buf.iter().all(|&w| w == POISON));
}

#[test]
fn every_control_function_of_the_generated_header_is_exported() {
    let header = include_str!("../../../generated/include/zekit/zekit_mock.h");
    assert!(
        header.starts_with("/* @generated"),
        "the header is generated"
    );
    let declared: Vec<&str> = header
        .lines()
        .filter(|l| !l.starts_with("typedef") && !l.starts_with("///"))
        .filter_map(|l| {
            let start = l.find("zekitMock")?;
            let rest = &l[start..];
            let end = rest.find('(')?;
            Some(&rest[..end])
        })
        .collect();
    assert_eq!(
        declared,
        [
            "zekitMockReset",
            "zekitMockSetResult",
            "zekitMockCallCount",
            "zekitMockWriteLog",
            "zekitMockLoadScenario",
            "zekitMockVerify",
            "zekitMockOnKernel"
        ]
    );
    assert_eq!(
        declared,
        zekit_mock::capi::CONTROL_FUNCTIONS,
        "one list for C and Rust"
    );
    let lib = Lib::open();
    for name in declared {
        let c = CString::new(name).unwrap();
        // SAFETY: a valid library handle and symbol name.
        let f = unsafe { libc::dlsym(lib.0, c.as_ptr()) };
        assert!(!f.is_null(), "{name}");
    }
}
