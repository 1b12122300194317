//! What `cargo xtask demo` and `cargo xtask test` need from Debian: the official Level Zero
//! loader (`libze1`) and its headers (`libze-dev`, the ABI reference).
//!
//! Installed system-wide, they are used as they are. Otherwise they are fetched into
//! `target/zekit-deps/` without root: `apt-get` runs with its lists, cache and state in that
//! folder (`apt-get update`, then `apt-get download`), and `dpkg-deb -x` unpacks the packages
//! into `target/zekit-deps/root/`. Nothing outside `target/` is touched. Where that fails and
//! we are root, `apt-get install` is the last resort.
//!
//! The tests and the demo learn where the packages are from `ZEKIT_LEVEL_ZERO_ROOT`, the
//! prefix under which `usr/include/level_zero` and `usr/lib/<multiarch>/libze_loader.so` live
//! (`/` for a system install); see `zekit-testkit`.

use std::path::{Path, PathBuf};
use std::process::Command;

pub use zekit_testkit::{has_level_zero, loader_lib_dir_in as loader_lib_dir};

/// Debian's packages of the loader and its headers.
const PACKAGES: &[&str] = &["libze1", "libze-dev"];

/// The prefix under which Debian's Level Zero packages are unpacked (or `/`).
pub fn level_zero_root(workspace: &Path) -> Result<PathBuf, String> {
    if std::env::var_os("ZEKIT_FETCH_LEVEL_ZERO").is_none() && has_level_zero(Path::new("/")) {
        return Ok(PathBuf::from("/"));
    }
    let deps = workspace.join("target/zekit-deps");
    let root = deps.join("root");
    if has_level_zero(&root) {
        return Ok(root);
    }
    match fetch(&deps, &root, PACKAGES) {
        Ok(()) if has_level_zero(&root) => {
            println!("xtask: Debian's {} unpacked into {}", PACKAGES.join(" and "), root.display());
            Ok(root)
        }
        Ok(()) => Err(format!("{} lacks the loader or its headers after unpacking", root.display())),
        Err(e) if is_root() => {
            println!("xtask: fetching without root failed ({e}); installing with apt-get");
            install(PACKAGES)?;
            if has_level_zero(Path::new("/")) {
                Ok(PathBuf::from("/"))
            } else {
                Err("apt-get installed the packages, but the loader or its headers are still missing".into())
            }
        }
        Err(e) => Err(format!(
            "Debian's Level Zero loader is missing and could not be fetched: {e}\n\
             install it with: sudo apt-get install {}",
            PACKAGES.join(" ")
        )),
    }
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc_geteuid() == 0 }
}

extern "C" {
    #[link_name = "geteuid"]
    fn libc_geteuid() -> u32;
}

fn run(cmd: &mut Command) -> Result<(), String> {
    let shown = format!("{cmd:?}");
    let out = cmd.output().map_err(|e| format!("{shown}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        let err = String::from_utf8_lossy(&out.stderr);
        let last = err.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("no output");
        Err(format!("{shown} failed ({}): {last}", out.status))
    }
}

/// `apt-get` with lists, cache and state of its own under `deps` (no root, no lock on the
/// system's apt).
fn apt(deps: &Path) -> Command {
    let mut c = Command::new("apt-get");
    for (opt, dir) in [
        ("Dir::State", "state"),
        ("Dir::State::Lists", "state/lists"),
        ("Dir::Cache", "cache"),
        ("Dir::Cache::archives", "cache/archives"),
    ] {
        c.arg("-o").arg(format!("{opt}={}", deps.join(dir).display()));
    }
    c.args(["-o", "Debug::NoLocking=1", "-q"]);
    c
}

fn fetch(deps: &Path, root: &Path, packages: &[&str]) -> Result<(), String> {
    for d in ["state/lists/partial", "cache/archives/partial", "debs"] {
        std::fs::create_dir_all(deps.join(d)).map_err(|e| format!("{}: {e}", deps.join(d).display()))?;
    }
    std::fs::write(deps.join("state/status"), "").map_err(|e| e.to_string())?;
    println!("xtask: fetching Debian's {} into {}", packages.join(" and "), deps.display());
    if !deps.join("state/lists").read_dir().is_ok_and(|mut d| d.any(|e| e.is_ok_and(|e| e.path().is_file()))) {
        run(apt(deps).arg("update"))?;
    }
    let debs = deps.join("debs");
    run(apt(deps).arg("download").args(packages).current_dir(&debs))?;
    std::fs::create_dir_all(root).map_err(|e| e.to_string())?;
    let mut found = 0;
    for entry in std::fs::read_dir(&debs).map_err(|e| e.to_string())?.flatten() {
        let p = entry.path();
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if p.extension().is_some_and(|e| e == "deb") && packages.iter().any(|pkg| name.starts_with(&format!("{pkg}_"))) {
            run(Command::new("dpkg-deb").arg("-x").arg(&p).arg(root))?;
            found += 1;
        }
    }
    if found < packages.len() {
        return Err(format!("apt-get download left {found} of {} packages in {}", packages.len(), debs.display()));
    }
    Ok(())
}

fn install(packages: &[&str]) -> Result<(), String> {
    let mut c = Command::new("apt-get");
    c.args(["install", "-y", "-q"]).args(packages).env("DEBIAN_FRONTEND", "noninteractive");
    if run(&mut c).is_ok() {
        return Ok(());
    }
    run(Command::new("apt-get").args(["update", "-q"]))?;
    run(&mut c)
}

/// Valgrind, for the race test under memcheck: the installed one, else Debian's package
/// unpacked into `target/zekit-deps/root` (run with `VALGRIND_LIB` pointing into it).
/// Returns the environment the tests need (`ZEKIT_VALGRIND`, and `VALGRIND_LIB` when fetched).
pub fn valgrind(workspace: &Path) -> Result<Vec<(&'static str, PathBuf)>, String> {
    let installed = Command::new("valgrind").arg("--version").output().is_ok_and(|o| o.status.success());
    if installed && std::env::var_os("ZEKIT_FETCH_LEVEL_ZERO").is_none() {
        return Ok(vec![("ZEKIT_VALGRIND", PathBuf::from("valgrind"))]);
    }
    let deps = workspace.join("target/zekit-deps");
    let root = deps.join("root");
    let bin = root.join("usr/bin/valgrind");
    let lib = root.join("usr/libexec/valgrind");
    if !bin.exists() {
        fetch(&deps, &root, &["valgrind"])?;
    }
    if bin.exists() && lib.exists() {
        Ok(vec![("ZEKIT_VALGRIND", bin), ("VALGRIND_LIB", lib)])
    } else {
        Err(format!("valgrind is missing and could not be unpacked into {}", root.display()))
    }
}

/// Debian's clang-15, llvm-spirv-15 and llvm-as-15 (llvm-15), which compile the test kernels (`cargo xtask kernels`).
pub fn spirv_tools() -> Result<(), String> {
    let present = || {
        ["/usr/bin/clang-15", "/usr/bin/llvm-spirv-15", "/usr/bin/llvm-as-15"].iter().all(|p| Path::new(p).exists())
    };
    ensure_installed(&["clang-15", "llvm-spirv-15", "llvm-15"], "OpenCL C (and LLVM IR) to SPIR-V", present)
}

/// PoCL (Debian's `pocl-opencl-icd`) and the OpenCL ICD loader, the benchmarks' yardstick:
/// installed with `apt-get` when missing (PoCL pulls in LLVM, so there is no unpacking it into
/// `target/` without root).
pub fn pocl() -> Result<(), String> {
    let present = || {
        Path::new("/etc/OpenCL/vendors/pocl.icd").exists()
            && ["/usr/lib/x86_64-linux-gnu/libOpenCL.so.1", "/usr/lib/libOpenCL.so.1"].iter().any(|p| Path::new(p).exists())
    };
    ensure_installed(&["pocl-opencl-icd", "ocl-icd-libopencl1"], "the benchmarks' yardstick", present)
}

/// Debian's `llvm-19-dev`, which the kernel compiler's optional LLVM tier links (its `llvm`
/// feature): installed with `apt-get` when missing. Returns the prefix `llvm-sys` is told of
/// (`LLVM_SYS_191_PREFIX`).
pub fn llvm() -> Result<PathBuf, String> {
    let prefix = PathBuf::from("/usr/lib/llvm-19");
    let present = || prefix.join("bin/llvm-config").exists() && prefix.join("lib/libLLVM.so").exists();
    ensure_installed(&["llvm-19-dev"], "the kernel compiler's LLVM tier", present)?;
    Ok(prefix)
}

/// Debian's `python3-venv` (ensurepip), without which `python3 -m venv` fails (`cargo xtask sycl`).
pub fn python_venv() -> Result<(), String> {
    let present = || Command::new("python3").args(["-c", "import ensurepip"]).output().is_ok_and(|o| o.status.success());
    ensure_installed(&["python3-venv"], "virtual environments for the SYCL suite", present)
}

/// Installs Debian's `packages` with `apt-get` (as root) unless `present` says they are there;
/// checks again after.
fn ensure_installed(packages: &[&str], why: &str, present: impl Fn() -> bool) -> Result<(), String> {
    if present() {
        return Ok(());
    }
    let list = packages.join(" ");
    if !is_root() {
        return Err(format!("missing ({why}): sudo apt-get install {list}"));
    }
    println!("xtask: installing {list} ({why})");
    install(packages)?;
    if present() {
        Ok(())
    } else {
        Err(format!("apt-get installed {list}, but its files are still missing"))
    }
}
