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

/// The prefix under which Debian's `libze1`/`libze-dev` are found: `$ZEKIT_LEVEL_ZERO_ROOT`
/// (set by `cargo xtask test`), else `/` when they are installed, else
/// `target/zekit-deps/root` where `cargo xtask test` or `demo` unpacked them.
pub fn level_zero_root() -> PathBuf {
    if let Some(r) = std::env::var_os("ZEKIT_LEVEL_ZERO_ROOT") {
        return PathBuf::from(r);
    }
    let fetched = root().join("target/zekit-deps/root");
    if !has_level_zero(Path::new("/")) && has_level_zero(&fetched) {
        return fetched;
    }
    PathBuf::from("/")
}

/// Whether `prefix` holds Debian's Level Zero headers and loader library.
pub fn has_level_zero(prefix: &Path) -> bool {
    prefix.join("usr/include/level_zero/ze_api.h").exists() && loader_lib_dir_in(prefix).is_some()
}

/// The folder under `prefix` holding `libze_loader.so`.
pub fn loader_lib_dir_in(prefix: &Path) -> Option<PathBuf> {
    let lib = prefix.join("usr/lib");
    let mut dirs = vec![lib.clone()];
    if let Ok(entries) = std::fs::read_dir(&lib) {
        dirs.extend(entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()));
    }
    dirs.sort();
    dirs.into_iter().find(|d| d.join("libze_loader.so").exists())
}

/// Debian's Level Zero headers (`<root>/usr/include`, holding `level_zero/`).
pub fn debian_include_dir() -> PathBuf {
    level_zero_root().join("usr/include")
}

/// The folder of Debian's `libze_loader.so`.
pub fn loader_lib_dir() -> Option<PathBuf> {
    loader_lib_dir_in(&level_zero_root())
}

/// Whether Debian's loader and headers are there (`libze1`, `libze-dev`).
pub fn loader_available() -> bool {
    has_level_zero(&level_zero_root())
}

/// Fails the test with install instructions when the loader is missing.
pub fn require_loader() {
    assert!(
        loader_available(),
        "Debian's Level Zero loader is missing: run `cargo xtask test` (it fetches libze1/libze-dev into target/) \
         or apt-get install libze1 libze-dev"
    );
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
        .args(loader_lib_dir().map(|d| format!("-L{}", d.display())))
        .args(["-lze_loader", "-o"])
        .arg(&exe)
        .output()
        .expect("run cc");
    assert!(out.status.success(), "cc failed for {name}:\n{}", String::from_utf8_lossy(&out.stderr));
    exe
}

/// A command running `exe` through the loader with `ZE_ENABLE_ALT_DRIVERS` naming `icds`
/// (and the loader's folder on `LD_LIBRARY_PATH` when it is not installed system-wide).
pub fn loader_command(exe: &Path, icds: &[&Path]) -> Command {
    let list: Vec<String> = icds.iter().map(|p| p.display().to_string()).collect();
    let mut cmd = Command::new(exe);
    cmd.env("ZE_ENABLE_ALT_DRIVERS", list.join(","));
    if let Some(d) = loader_lib_dir() {
        cmd.env("LD_LIBRARY_PATH", d);
    }
    cmd
}

/// Runs an executable through the loader with `ZE_ENABLE_ALT_DRIVERS` naming `icds`.
pub fn run_with_icds(exe: &Path, icds: &[&Path], env: &[(&str, &str)]) -> Output {
    let mut cmd = loader_command(exe, icds);
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
