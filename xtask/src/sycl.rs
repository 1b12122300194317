//! `cargo xtask sycl [--sweep | --bench] [--debug-driver] [--llvm] [--update-known] [--all] [--adapter v1|v2] [-- PYTEST_ARGS]`:
//! Intel's SYCL stack (PyPI's `dpctl` and `dpnp`, which bring `intel-sycl-rt` and the Unified
//! Runtime's Level Zero adapters v1 and v2) on the zekit CPU driver, through the Level Zero
//! loader 1.32 built from `shared/vendor/`. Set up without root, all under `target/zekit-deps/`:
//!
//! - `sycl-venv/`: a virtual environment with `tests/sycl/requirements.txt` (every version
//!   pinned; reinstalled only when that file changes);
//! - `level-zero-1.32/lib/`: the loader (and its tracing layer, which it loads), built with the
//!   venv's cmake from the vendored tarball (checked against `SHA256SUMS`);
//! - the CPU driver, `cargo build --release -p zekit-cpu-icd` (`--debug-driver`: the dev
//!   profile, which `cargo xtask test` has mostly built already; `--llvm`: with the LLVM tier,
//!   kernels tiering up to it).
//!
//! Then the pytest suite `tests/sycl/` runs once per adapter, each test in a forked child (a
//! crash fails that test alone). `tests/sycl/known/<adapter>.txt` lists the tests that fail
//! today through known driver bugs (xfail, strict: a listed test that passes fails the run);
//! `--all` runs without that list, `--update-known` rewrites it from the run. `--sweep` builds
//! every SPIR-V module of the installed wheels through the driver instead (see `sycl_sweep`).
//! `--bench` times dpnp operations on zekit against Intel's OpenCL CPU runtime (the venv's
//! `intel-opencl-rt`, which dpnp brings) in one process, with numpy beside them
//! (`tests/sycl/bench/dpnp_bench.py`; `cargo xtask bench` runs it too).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The vendored loader: file name in `shared/vendor/` and the folder it unpacks to.
const LOADER_TARBALL: &str = "level-zero-1.32.0.tar.gz";
const LOADER_VERSION: &str = "1.32.0";

/// What the suite and the sweep run with.
pub struct Stack {
    /// The venv's python.
    pub python: PathBuf,
    /// Folder of `libze_loader.so.1` (1.32).
    pub loader_lib: PathBuf,
    /// The CPU driver, `libze_zekit_cpu.so` (absolute).
    pub driver: PathBuf,
    /// `target/zekit-deps`.
    pub deps: PathBuf,
}

impl Stack {
    /// The environment every SYCL process of ours gets (`v2`: the v2 adapter).
    pub fn env(&self, v2: bool) -> Vec<(&'static str, String)> {
        let mut env = vec![
            ("LD_LIBRARY_PATH", self.loader_lib.display().to_string()),
            ("ZE_ENABLE_ALT_DRIVERS", self.driver.display().to_string()),
            ("ZEKIT_DEVICE_TYPE", "gpu".into()),
            ("ONEAPI_DEVICE_SELECTOR", "level_zero:*".into()),
            ("UR_LOADER_USE_LEVEL_ZERO_V2", if v2 { "1" } else { "0" }.into()),
            ("ZEKIT_SYCL_LOADER_DIR", self.loader_lib.display().to_string()),
            ("ZEKIT_SYCL_ADAPTER", if v2 { "v2" } else { "v1" }.into()),
        ];
        // The driver's log lines (every unimplemented extension function the adapters ask for)
        // drown pytest's report; the build logs still reach each failure's message.
        if std::env::var_os("ZEKIT_LOG").is_none() {
            env.push(("ZEKIT_LOG", "0".into()));
        }
        env
    }
}

fn run(cmd: &mut Command) -> Result<(), String> {
    let shown = format!("{cmd:?}");
    let status = cmd.status().map_err(|e| format!("{shown}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{shown} failed ({status})"))
    }
}

fn secs(t: Instant) -> String {
    format!("{:.0} s", t.elapsed().as_secs_f64())
}

/// The venv with the pinned packages; reinstalled when `tests/sycl/requirements.txt` changes.
fn venv(root: &Path, deps: &Path) -> Result<PathBuf, String> {
    let dir = deps.join("sycl-venv");
    let python = dir.join("bin/python");
    let req_path = root.join("tests/sycl/requirements.txt");
    let req = std::fs::read_to_string(&req_path).map_err(|e| format!("{}: {e}", req_path.display()))?;
    let stamp = dir.join("zekit-requirements.txt");
    if python.exists() && std::fs::read_to_string(&stamp).ok().as_deref() == Some(req.as_str()) {
        return Ok(python);
    }
    let t = Instant::now();
    if !python.exists() {
        std::fs::create_dir_all(deps).map_err(|e| e.to_string())?;
        if run(Command::new("python3").args(["-m", "venv"]).arg(&dir)).is_err() {
            // Debian's python3 makes venvs only with python3-venv (ensurepip).
            std::fs::remove_dir_all(&dir).ok();
            crate::deps::python_venv()?;
            run(Command::new("python3").args(["-m", "venv"]).arg(&dir))?;
        }
    }
    println!("xtask: installing {} into {}", req_path.display(), dir.display());
    run(Command::new(&python).args(["-m", "pip", "install", "-q", "--disable-pip-version-check", "-r"]).arg(&req_path))?;
    std::fs::write(&stamp, &req).map_err(|e| e.to_string())?;
    println!("xtask: venv ready in {}", secs(t));
    Ok(python)
}

/// `shared/` beside the checkout (in CI the clone sits elsewhere, with `shared/` beside it).
fn vendor_dir(root: &Path) -> PathBuf {
    root.join("../shared/vendor")
}

fn check_tarball(vendor: &Path) -> Result<PathBuf, String> {
    let tarball = vendor.join(LOADER_TARBALL);
    let sums = std::fs::read_to_string(vendor.join("SHA256SUMS")).map_err(|e| format!("{}/SHA256SUMS: {e}", vendor.display()))?;
    let want = sums
        .lines()
        .find_map(|l| l.split_whitespace().collect::<Vec<_>>().split_first().and_then(|(h, rest)| {
            rest.iter().any(|f| f.trim_start_matches('*') == LOADER_TARBALL).then(|| h.to_string())
        }))
        .ok_or_else(|| format!("{LOADER_TARBALL} is not in {}/SHA256SUMS", vendor.display()))?;
    let out = Command::new("sha256sum").arg(&tarball).output().map_err(|e| format!("sha256sum: {e}"))?;
    let got = String::from_utf8_lossy(&out.stdout).split_whitespace().next().unwrap_or_default().to_string();
    if !out.status.success() || got != want {
        return Err(format!("{}: sha256 {got}, SHA256SUMS says {want}", tarball.display()));
    }
    Ok(tarball)
}

/// The loader 1.32 (and its tracing layer) built from the vendored tarball with the venv's cmake.
fn loader(root: &Path, deps: &Path, python: &Path) -> Result<PathBuf, String> {
    let prefix = deps.join(format!("level-zero-{}", &LOADER_VERSION[..4]));
    let lib = prefix.join("lib");
    if lib.join(format!("libze_loader.so.{LOADER_VERSION}")).exists() && lib.join("libze_loader.so.1").exists() {
        return Ok(lib);
    }
    let t = Instant::now();
    let tarball = check_tarball(&vendor_dir(root))?;
    let src = deps.join(format!("level-zero-{LOADER_VERSION}-src"));
    let build = deps.join(format!("level-zero-{LOADER_VERSION}-build"));
    for d in [&src, &build] {
        std::fs::remove_dir_all(d).ok();
        std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
    }
    run(Command::new("tar").arg("xzf").arg(&tarball).arg("-C").arg(&src).arg("--strip-components=1"))?;
    let cmake = python.parent().unwrap().join("cmake");
    println!("xtask: building the Level Zero loader {LOADER_VERSION} into {}", prefix.display());
    run(Command::new(&cmake)
        .arg("-S")
        .arg(&src)
        .arg("-B")
        .arg(&build)
        .args(["-DCMAKE_BUILD_TYPE=Release", "-Wno-dev"])
        .stdout(std::process::Stdio::null()))?;
    // Only what a process loads: the validation layer is most of the build and nobody asks for it.
    run(Command::new(&cmake).arg("--build").arg(&build).args(["-j2", "--target", "ze_loader", "ze_tracing_layer"]))?;
    std::fs::create_dir_all(&lib).map_err(|e| e.to_string())?;
    let built = build.join("lib");
    for e in std::fs::read_dir(&built).map_err(|e| format!("{}: {e}", built.display()))?.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        if name.starts_with("libze_loader.so") || name.starts_with("libze_tracing_layer.so") {
            run(Command::new("cp").arg("-a").arg(e.path()).arg(&lib))?;
        }
    }
    if !lib.join("libze_loader.so.1").exists() {
        return Err(format!("the loader build left no libze_loader.so.1 in {}", lib.display()));
    }
    std::fs::remove_dir_all(&src).ok();
    println!("xtask: loader {LOADER_VERSION} built in {}", secs(t));
    Ok(lib)
}

/// How the driver is built: the dev profile (`--debug-driver`), and with the LLVM tier
/// (`--llvm`: kernels tier up to LLVM's code).
#[derive(Clone, Copy, Default)]
pub struct DriverBuild {
    pub debug: bool,
    pub llvm: bool,
}

/// `cargo build --release -p zekit-cpu-icd` (without `--release` for `debug`, with
/// `--features zekit-cpu/llvm` for `llvm`); the driver's absolute path.
fn driver(root: &Path, how: DriverBuild) -> Result<PathBuf, String> {
    let t = Instant::now();
    let debug = how.debug;
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.args(["build", "-p", "zekit-cpu-icd"]).current_dir(root);
    if !debug {
        cmd.arg("--release");
    }
    if how.llvm {
        cmd.args(["--features", "zekit-cpu/llvm"]).env("LLVM_SYS_191_PREFIX", crate::deps::llvm()?);
    }
    run(&mut cmd)?;
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    let profile = if debug { "debug" } else { "release" };
    let so = std::path::absolute(target.join(profile).join("libze_zekit_cpu.so")).map_err(|e| e.to_string())?;
    if !so.exists() {
        return Err(format!("{} is missing after the build", so.display()));
    }
    println!("xtask: CPU driver ready in {}", secs(t));
    Ok(so)
}

/// Venv, loader and driver, each set up when missing or stale.
pub fn setup(root: &Path, how: DriverBuild) -> Result<Stack, String> {
    let t = Instant::now();
    let deps = root.join("target/zekit-deps");
    let python = venv(root, &deps)?;
    let loader_lib = std::path::absolute(loader(root, &deps, &python)?).map_err(|e| e.to_string())?;
    let driver = driver(root, how)?;
    println!("xtask: SYCL setup done in {}", secs(t));
    Ok(Stack { python, loader_lib, driver, deps })
}

/// Options of `cargo xtask sycl`.
#[derive(Default)]
struct Options {
    sweep: bool,
    bench: bool,
    update_known: bool,
    all: bool,
    debug_driver: bool,
    llvm: bool,
    adapters: Vec<bool>,
    pytest: Vec<String>,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut o = Options::default();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--sweep" => o.sweep = true,
            "--bench" => o.bench = true,
            "--update-known" => o.update_known = true,
            "--all" => o.all = true,
            "--debug-driver" => o.debug_driver = true,
            "--llvm" => o.llvm = true,
            "--adapter" => match it.next().map(String::as_str) {
                Some("v1") => o.adapters.push(false),
                Some("v2") => o.adapters.push(true),
                other => return Err(format!("--adapter takes v1 or v2, not {other:?}")),
            },
            "--" => o.pytest.extend(it.by_ref().cloned()),
            other => return Err(format!("unknown option {other}\n{USAGE}")),
        }
    }
    if o.adapters.is_empty() {
        o.adapters = vec![false, true];
    }
    if o.update_known && (o.all || !o.pytest.is_empty()) {
        return Err("--update-known rewrites the whole list: run it with neither --all nor pytest arguments".into());
    }
    Ok(o)
}

pub const USAGE: &str = "usage: cargo xtask sycl [--sweep | --bench] [--debug-driver] [--llvm] [--adapter v1|v2] [--all | --update-known] [-- PYTEST_ARGS]";

/// Counts of one run (`tests/sycl/known.py` writes them): passed, failed, skipped, xfailed.
#[derive(Default, Clone, Copy)]
struct Counts([u64; 4]);

fn read_counts(path: &Path) -> Result<Counts, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e} (pytest wrote no summary)", path.display()))?;
    let mut c = Counts::default();
    for kv in text.split_whitespace() {
        let (k, v) = kv.split_once('=').ok_or_else(|| format!("bad summary {text:?}"))?;
        let i = ["passed", "failed", "skipped", "xfailed"].iter().position(|n| *n == k).ok_or_else(|| format!("bad summary {text:?}"))?;
        c.0[i] = v.parse().map_err(|_| format!("bad summary {text:?}"))?;
    }
    Ok(c)
}

/// One run of the suite on one adapter; Err unless pytest exits 0 (5, no test ran, fails too).
fn suite(root: &Path, stack: &Stack, v2: bool, o: &Options, total: &mut Counts) -> Result<(), String> {
    let name = if v2 { "v2" } else { "v1" };
    let known = root.join(format!("tests/sycl/known/{name}.txt"));
    let t = Instant::now();
    println!("xtask: the SYCL suite on the {name} adapter (Level Zero loader {})", stack.loader_lib.display());
    let mut cmd = Command::new(&stack.python);
    cmd.args(["-m", "pytest", "--isolate", "tests/sycl"])
        .args(&o.pytest)
        .envs(stack.env(v2))
        .current_dir(root);
    if !o.all {
        cmd.env("ZEKIT_SYCL_KNOWN", &known);
    }
    if o.update_known {
        cmd.env("ZEKIT_SYCL_UPDATE_KNOWN", "1");
    }
    let summary = stack.deps.join(format!("sycl-summary-{name}.txt"));
    std::fs::remove_file(&summary).ok();
    cmd.env("ZEKIT_SYCL_SUMMARY", &summary);
    let status = cmd.status().map_err(|e| format!("pytest: {e}"))?;
    println!("xtask: the {name} suite took {}", secs(t));
    let c = read_counts(&summary)?;
    for i in 0..4 {
        total.0[i] += c.0[i];
    }
    match status.code() {
        Some(0) => Ok(()),
        Some(5) => Err(format!("the {name} suite ran no test (pytest exit 5)")),
        _ if o.update_known => Ok(()),
        _ => Err(format!("the SYCL suite failed on the {name} adapter (pytest: {status})")),
    }
}

/// `cargo xtask sycl ...`.
pub fn main(root: &Path, args: &[String]) -> Result<(), String> {
    let o = parse(args)?;
    let stack = setup(root, DriverBuild { debug: o.debug_driver, llvm: o.llvm })?;
    if o.sweep {
        return crate::sycl_sweep::sweep(root, &stack);
    }
    if o.bench {
        return bench_with(root, &stack, o.adapters.first().copied().unwrap_or(false));
    }
    let mut failed = vec![];
    let mut total = Counts::default();
    for &v2 in &o.adapters {
        if let Err(e) = suite(root, &stack, v2, &o, &mut total) {
            eprintln!("error: {e}");
            failed.push(e);
        }
    }
    let [passed, failures, skipped, xfailed] = total.0;
    println!("sycl: {xfailed} known failures (xfail, tests/sycl/known/) over the adapters run");
    println!("sycl: {passed} passed, {failures} failed, {skipped} skipped");
    if failed.is_empty() {
        Ok(())
    } else {
        Err(failed.join("; "))
    }
}

/// `cargo xtask sycl --bench` (and `cargo xtask bench`): dpnp on zekit (the release driver
/// unless `--debug-driver`; `v2`: the v2 adapter) against Intel's OpenCL CPU runtime and numpy,
/// in one process, in alternating rounds (`tests/sycl/bench/dpnp_bench.py`).
fn bench_with(root: &Path, stack: &Stack, v2: bool) -> Result<(), String> {
    let intel = stack.python.parent().and_then(Path::parent).map(|v| v.join("lib/libintelocl.so"));
    let Some(intel) = intel.filter(|p| p.exists()) else {
        return Err("libintelocl.so (PyPI intel-opencl-rt, which dpnp brings) is not in the venv".into());
    };
    let mut cmd = Command::new(&stack.python);
    cmd.arg("tests/sycl/bench/dpnp_bench.py")
        .envs(stack.env(v2))
        .env("ONEAPI_DEVICE_SELECTOR", "opencl:cpu;level_zero:*")
        .env("OCL_ICD_FILENAMES", &intel)
        .current_dir(root);
    run(&mut cmd)
}

/// `cargo xtask bench`'s SYCL part: [`bench_with`] on a stack that [`setup`] made (release
/// driver).
pub fn bench(root: &Path, stack: &Stack) -> Result<(), String> {
    bench_with(root, stack, false)
}
