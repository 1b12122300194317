//! `cargo xtask sycl --sweep`: every SPIR-V module the installed dpnp and dpctl wheels carry,
//! built through the Level Zero loader 1.32 on the CPU driver.
//!
//! `tests/sycl/dump_modules.py` writes the modules (the SYCL runtime's `SYCL_DUMP_IMAGES=1`,
//! each image filed by the library that holds it, plus the few the runtime does not dump,
//! carved out of the library files) under `target/zekit-deps/sycl-modules/`, kept there for the
//! compiler's own tests; it runs again only when the pinned packages or the script change.
//! `tests/sycl/sweep.c` then calls `zeModuleCreate` on each and `zeKernelCreate` on each of its
//! kernels; a module that kills the process is recorded as a crash and the sweep goes on after
//! it. Prints the counts and the refusals grouped by the first line of the driver's build log;
//! writes every module's result to `sycl-modules/sweep.tsv`.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::sycl::Stack;

/// One module's outcome: status (`ok`, `kernel-refused`, `refused`, `error`, `crashed`), kernels, created, reason.
type Outcome = (String, u32, u32, String);

fn dump(root: &Path, stack: &Stack, out: &Path) -> Result<Vec<PathBuf>, String> {
    // Dumped again when the pinned packages or the script change.
    let mut req = std::fs::read_to_string(root.join("tests/sycl/requirements.txt")).map_err(|e| e.to_string())?;
    req += &std::fs::read_to_string(root.join("tests/sycl/dump_modules.py")).map_err(|e| e.to_string())?;
    let stamp = out.join("zekit-requirements.txt");
    let index = out.join("index.tsv");
    if !(index.exists() && std::fs::read_to_string(&stamp).ok().as_deref() == Some(req.as_str())) {
        let t = Instant::now();
        let status = Command::new(&stack.python)
            .arg(root.join("tests/sycl/dump_modules.py"))
            .arg(out)
            .envs(stack.env(false))
            .status()
            .map_err(|e| format!("dump_modules.py: {e}"))?;
        if !status.success() {
            return Err(format!("tests/sycl/dump_modules.py failed ({status})"));
        }
        std::fs::write(&stamp, &req).map_err(|e| e.to_string())?;
        println!("xtask: modules dumped in {:.0} s", t.elapsed().as_secs_f64());
    }
    let text = std::fs::read_to_string(&index).map_err(|e| format!("{}: {e}", index.display()))?;
    // Only what dpnp's and dpctl's own libraries carry (oneMKL's images are under other/).
    Ok(text
        .lines()
        .skip(1)
        .filter_map(|l| {
            let mut f = l.split('\t');
            let (path, lib) = (f.next()?, f.next()?);
            (lib != "other").then(|| out.join(path))
        })
        .collect())
}

fn compile(root: &Path, stack: &Stack, dir: &Path) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let exe = dir.join("sweep");
    let out = Command::new("cc")
        .args(["-std=c11", "-D_POSIX_C_SOURCE=200809L", "-O1", "-Wall", "-Werror", "-I"])
        .arg(root.join("generated/include"))
        .arg(root.join("tests/sycl/sweep.c"))
        .arg(format!("-L{}", stack.loader_lib.display()))
        .args(["-lze_loader", "-o"])
        .arg(&exe)
        .output()
        .map_err(|e| format!("cc: {e} (install gcc)"))?;
    if !out.status.success() {
        return Err(format!("compiling tests/sycl/sweep.c failed:\n{}", String::from_utf8_lossy(&out.stderr)));
    }
    Ok(exe)
}

/// Runs the sweep over `modules`, restarting after a module that kills the process.
fn run_all(exe: &Path, list: &Path, stack: &Stack, n: usize) -> Result<Vec<Option<Outcome>>, String> {
    let mut results: Vec<Option<Outcome>> = vec![None; n];
    let mut first = 0usize;
    while first < n {
        let mut child = Command::new(exe)
            .arg(list)
            .arg(first.to_string())
            .envs(stack.env(false))
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("{}: {e}", exe.display()))?;
        let mut current: Option<usize> = None;
        for line in BufReader::new(child.stdout.take().unwrap()).lines() {
            let line = line.map_err(|e| e.to_string())?;
            if let Some(i) = line.strip_prefix("BEGIN ") {
                current = i.trim().parse().ok();
                if let Some(i) = current {
                    if i % 1000 == 0 {
                        println!("xtask: sweep at module {i} of {n}");
                    }
                }
            } else if let Some(rest) = line.strip_prefix("MODULE ") {
                let f: Vec<&str> = rest.splitn(5, '\t').collect();
                if let [i, status, k, c, reason] = f[..] {
                    let i: usize = i.parse().map_err(|_| format!("bad line from the sweep: {line}"))?;
                    results[i] = Some((status.into(), k.parse().unwrap_or(0), c.parse().unwrap_or(0), reason.into()));
                    current = None;
                }
            }
        }
        let status = child.wait().map_err(|e| e.to_string())?;
        match current {
            Some(i) => {
                use std::os::unix::process::ExitStatusExt;
                let why = match status.signal() {
                    Some(14) => "timed out (SIGALRM after ZEKIT_SWEEP_TIMEOUT, default 120 s)".to_string(),
                    Some(s) => format!("the process died of signal {s}"),
                    None => format!("the process exited ({status})"),
                };
                results[i] = Some(("crashed".into(), 0, 0, why));
                first = i + 1;
            }
            None if status.success() => break,
            None => return Err(format!("the sweep program failed between modules ({status})")),
        }
    }
    Ok(results)
}

/// A refusal's group: the reason with each backquoted name (a kernel's) made `…`, so one
/// missing instruction is one group, whatever kernels it is in.
fn group_of(reason: &str) -> String {
    let mut out = String::new();
    let mut parts = reason.split('`');
    out.push_str(parts.next().unwrap_or_default());
    let mut quoted = true;
    for p in parts {
        out.push('`');
        out.push_str(if quoted { "…" } else { p });
        quoted = !quoted;
    }
    out
}

/// `cargo xtask sycl --sweep`.
pub fn sweep(root: &Path, stack: &Stack) -> Result<(), String> {
    let t = Instant::now();
    let out = stack.deps.join("sycl-modules");
    let modules = dump(root, stack, &out)?;
    if modules.is_empty() {
        return Err(format!("no dpnp/dpctl modules under {}", out.display()));
    }
    let exe = compile(root, stack, &stack.deps.join("sycl-sweep"))?;
    let list = stack.deps.join("sycl-sweep/modules.txt");
    let text: String = modules.iter().map(|p| format!("{}\n", p.display())).collect();
    std::fs::write(&list, text).map_err(|e| e.to_string())?;
    println!("xtask: building {} modules from {} through the loader on {}", modules.len(), out.display(), stack.driver.display());
    let results = run_all(&exe, &list, stack, modules.len())?;
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    let mut reasons: BTreeMap<String, (usize, &Path)> = BTreeMap::new();
    // Per library (the folder a module is filed in): modules, built.
    let mut libs: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let (mut kernels, mut created) = (0u64, 0u64);
    let mut tsv = String::from("path\tstatus\tkernels\tcreated\treason\n");
    for (path, r) in modules.iter().zip(&results) {
        let (status, k, c, reason) = r.as_ref().ok_or_else(|| format!("no result for {}", path.display()))?;
        *counts.entry(status).or_default() += 1;
        kernels += u64::from(*k);
        created += u64::from(*c);
        if status != "ok" {
            let e = reasons.entry(group_of(reason)).or_insert((0, path));
            e.0 += 1;
        }
        let rel = path.strip_prefix(&out).unwrap_or(path);
        let lib = libs.entry(rel.parent().map(|p| p.display().to_string()).unwrap_or_default()).or_default();
        lib.0 += 1;
        lib.1 += usize::from(status == "ok");
        tsv.push_str(&format!("{}\t{status}\t{k}\t{c}\t{reason}\n", rel.display()));
    }
    std::fs::write(out.join("sweep.tsv"), tsv).map_err(|e| e.to_string())?;
    let get = |s: &str| counts.get(s).copied().unwrap_or(0);
    println!(
        "sweep: {} modules: {} built (every kernel created), {} built with kernels refused, {} refused, {} crashed, {} unreadable; \
         {created} of {kernels} kernels of the built modules created ({:.0} s)",
        modules.len(),
        get("ok"),
        get("kernel-refused"),
        get("refused"),
        get("crashed"),
        get("error"),
        t.elapsed().as_secs_f64()
    );
    for (lib, (n, ok)) in &libs {
        println!("  {ok:6} of {n:6} built: {lib}");
    }
    let mut by_count: Vec<_> = reasons.into_iter().collect();
    by_count.sort_by(|(ra, (na, _)), (rb, (nb, _))| nb.cmp(na).then(ra.cmp(rb)));
    println!("sweep: refusals by reason (the first line of the build log):");
    for (reason, (n, example)) in by_count.iter().take(40) {
        println!("  {n:6}  {reason}  (e.g. {})", example.strip_prefix(&out).unwrap_or(example).display());
    }
    if by_count.len() > 40 {
        println!("  ... {} more reasons in {}", by_count.len() - 40, out.join("sweep.tsv").display());
    }
    println!("sweep: modules in {}, results in {}", out.display(), out.join("sweep.tsv").display());
    Ok(())
}
