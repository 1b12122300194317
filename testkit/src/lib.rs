//! Test support for running real Level Zero C programs through the official loader
//! (Debian's `libze1`) on a zekit ICD.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace root").to_path_buf()
}

/// `generated/include`, where zekit's Level Zero headers are.
pub fn include_dir() -> PathBuf {
    root().join("generated/include")
}

/// The target directory of the running test binary (`target/debug` or `target/release`).
pub fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current exe");
    // target/<profile>/deps/<test-binary>
    exe.parent().and_then(Path::parent).expect("target dir").to_path_buf()
}

/// Path of an ICD built by this workspace, e.g. `icd("ze_zekit_cpu")`: the newer of
/// `target/<profile>/lib<name>.so` and `target/<profile>/deps/lib<name>.so` (`cargo test`
/// refreshes only the latter). Panics with a clear message if neither exists.
pub fn icd(lib_name: &str) -> PathBuf {
    let dir = target_dir();
    let file = format!("lib{lib_name}.so");
    let newest = [dir.join(&file), dir.join("deps").join(&file)]
        .into_iter()
        .filter_map(|p| std::fs::metadata(&p).and_then(|m| m.modified()).ok().map(|t| (t, p)))
        .max_by_key(|(t, _)| *t);
    match newest {
        Some((_, p)) => p,
        None => panic!("{file} not found in {} (build the crate first)", dir.display()),
    }
}

/// Whether Debian's loader and headers are installed (`libze1`, `libze-dev`).
pub fn loader_available() -> bool {
    Path::new("/usr/include/level_zero/ze_api.h").exists()
        && ["/usr/lib/x86_64-linux-gnu/libze_loader.so", "/usr/lib/libze_loader.so"].iter().any(|p| Path::new(p).exists())
}

/// Fails the test with install instructions when the loader is missing (CI installs it).
pub fn require_loader() {
    assert!(loader_available(), "Debian's Level Zero loader is missing: apt-get install libze1 libze-dev (.ci/run does)");
}

/// A scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let d = target_dir().join("zekit-c-tests").join(name);
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

/// Compiles C sources against zekit's headers and links them with the official loader;
/// returns the executable. Panics with the compiler's output on failure.
pub fn compile_c(name: &str, sources: &[&Path], extra_args: &[&str]) -> PathBuf {
    let exe = scratch(name).join(name);
    let out = Command::new("cc")
        .args(["-std=c11", "-O1", "-Wall", "-Werror", "-I"])
        .arg(include_dir())
        .args(sources)
        .args(extra_args)
        .args(["-lze_loader", "-o"])
        .arg(&exe)
        .output()
        .expect("run cc");
    assert!(out.status.success(), "cc failed for {name}:\n{}", String::from_utf8_lossy(&out.stderr));
    exe
}

/// Runs an executable through the loader with `ZE_ENABLE_ALT_DRIVERS` naming `icds`.
pub fn run_with_icds(exe: &Path, icds: &[&Path], env: &[(&str, &str)]) -> Output {
    let list: Vec<String> = icds.iter().map(|p| p.display().to_string()).collect();
    let mut cmd = Command::new(exe);
    cmd.env("ZE_ENABLE_ALT_DRIVERS", list.join(","));
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("run test program")
}

/// Asserts a program exited 0, showing its output otherwise; returns stdout.
pub fn expect_success(what: &str, out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{what} failed ({}):\n--- stdout\n{stdout}\n--- stderr\n{stderr}", out.status);
    stdout
}
