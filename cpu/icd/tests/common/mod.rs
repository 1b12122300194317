//! Shared by the integration tests that load the built ICD.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use zekit_testkit::{icd, target_dir};

fn newest_source() -> (SystemTime, PathBuf) {
    // This crate (the exports) and the driver's library beside it (`zekit-cpu`, one folder up).
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = dir.join("..");
    let mut files = vec![dir.join("Cargo.toml"), lib.join("Cargo.toml")];
    let mut dirs = vec![dir.join("src"), lib.join("src"), lib.join("csrc")];
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(&d).expect("src dir") {
            let p = entry.expect("dir entry").path();
            if p.is_dir() {
                dirs.push(p);
            } else {
                files.push(p);
            }
        }
    }
    files
        .into_iter()
        .map(|f| {
            (
                std::fs::metadata(&f)
                    .and_then(|m| m.modified())
                    .expect("mtime"),
                f,
            )
        })
        .max()
        .expect("sources")
}

/// `libze_zekit_cpu.so`, checked newer than every source file of this crate and of the driver's
/// library.
///
/// Building an integration test of this package builds the library with both crate types, so
/// `target/<profile>/deps/libze_zekit_cpu.so` is fresh; `cargo test` does not refresh the copy a
/// `cargo build` leaves in `target/<profile>/` (the one `zekit_testkit::icd` prefers), so the
/// `deps/` one is used when it exists.
pub fn cpu_icd() -> PathBuf {
    let deps = target_dir().join("deps/libze_zekit_cpu.so");
    let so = if deps.exists() {
        deps
    } else {
        icd("ze_zekit_cpu")
    };
    let built = std::fs::metadata(&so)
        .and_then(|m| m.modified())
        .expect("mtime of the ICD");
    let (newest, file) = newest_source();
    assert!(
        built >= newest,
        "{} is older than {} (cargo builds the cdylib with the tests; rebuild)",
        so.display(),
        file.display()
    );
    so
}
