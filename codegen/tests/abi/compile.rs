//! Compiling and running the probe and signature units, and reading the compiler's errors.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use super::probe::*;
use super::sig::*;

pub(super) fn cc() -> String {
    std::env::var("ZEKIT_ABI_CC").unwrap_or_else(|_| "cc".to_string())
}

/// A unique scratch directory, removed on drop unless `ZEKIT_ABI_KEEP_TEMP` is set.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(label: &str) -> TempDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir = std::env::temp_dir().join(format!(
            "zekit-abi-{label}-{}-{nanos}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::SeqCst)
        ));
        fs::create_dir_all(&dir)
            .unwrap_or_else(|e| panic!("cannot create temp dir {}: {e}", dir.display()));
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if std::env::var_os("ZEKIT_ABI_KEEP_TEMP").is_some() {
            eprintln!("keeping ABI scratch files in {}", self.0.display());
        } else {
            let _ = fs::remove_dir_all(&self.0);
        }
    }
}

pub(super) struct Compiled {
    pub(super) ok: bool,
    /// Errors located in (or expanded from) the source, by source line.
    pub(super) errors: BTreeMap<usize, Vec<String>>,
    /// Errors that could not be attributed to a source line.
    pub(super) unattributed: Vec<String>,
    pub(super) stderr: String,
}

pub(super) fn compile(src: &Path, args: &[&str]) -> Result<Compiled, String> {
    let out = Command::new(cc())
        .args(args)
        .arg(src)
        .output()
        .map_err(|e| format!("cannot run `{}` (is a C compiler installed?): {e}", cc()))?;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let src_prefix = format!("{}:", src.display());
    let mut errors: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    let mut unattributed = Vec::new();
    // An error reported inside a header may be followed by "in expansion of macro" notes that
    // point back at the source line that used it.
    let mut pending: Option<String> = None;
    // The last error located in the source: "previous declaration" notes in a header belong to it.
    let mut last_src_error: Option<usize> = None;
    for line in stderr.lines() {
        let (at, kind, msg) = match diag_parts(line) {
            Some(p) => p,
            None => continue,
        };
        let src_line = at
            .strip_prefix(&src_prefix)
            .and_then(|r| r.split(':').next())
            .and_then(|l| l.parse::<usize>().ok());
        match (kind, src_line) {
            ("error" | "fatal error", Some(l)) => {
                if let Some(p) = pending.take() {
                    unattributed.push(p);
                }
                errors.entry(l).or_default().push(msg.to_string());
                last_src_error = Some(l);
            }
            ("error" | "fatal error", None) => {
                if let Some(p) = pending.take() {
                    unattributed.push(p);
                }
                pending = Some(format!("{at}: {msg}"));
                last_src_error = None;
            }
            ("note", Some(l)) => {
                if let Some(p) = pending.take() {
                    errors.entry(l).or_default().push(p);
                } else if last_src_error == Some(l) && msg.starts_with("previous") {
                    errors.entry(l).or_default().push(msg.to_string());
                }
            }
            ("note", None) if msg.starts_with("previous") => {
                if let Some(l) = last_src_error {
                    errors.entry(l).or_default().push(format!("{msg} at {at}"));
                }
            }
            _ => {}
        }
    }
    if let Some(p) = pending.take() {
        unattributed.push(p);
    }
    let ok = out.status.success();
    if !ok && errors.is_empty() && unattributed.is_empty() {
        unattributed.push(format!(
            "compiler failed ({}) without a recognised error",
            out.status
        ));
    }
    Ok(Compiled {
        ok,
        errors,
        unattributed,
        stderr,
    })
}

/// Splits `path:line:col: kind: message`.
pub(super) fn diag_parts(line: &str) -> Option<(&str, &str, &str)> {
    for kind in ["fatal error", "error", "note", "warning"] {
        let pat = format!(": {kind}: ");
        if let Some(p) = line.find(&pat) {
            return Some((&line[..p], kind, &line[p + pat.len()..]));
        }
    }
    None
}

pub(super) fn excerpt(s: &str, lines: usize) -> String {
    let all: Vec<&str> = s.lines().collect();
    let mut out = all[..all.len().min(lines)].join("\n");
    if all.len() > lines {
        write!(out, "\n... ({} more lines)", all.len() - lines).expect("write to String");
    }
    out
}

/// Result of running the probe against one include root.
pub(super) struct ProbeRun {
    pub(super) values: HashMap<String, String>,
    /// Items that did not compile, with the compiler's message.
    pub(super) failed: BTreeMap<usize, String>,
}

pub(super) fn run_probe(probes: &[Probe], root: &Path, work: &Path, label: &str) -> Result<ProbeRun, String> {
    let root_arg = format!("-I{}", root.display());
    let mut excluded: HashSet<usize> = HashSet::new();
    let mut failed = BTreeMap::new();
    for round in 0..8 {
        let (src, lines) = probe_source(probes, &excluded);
        let src_path = work.join(format!("probe_{label}.c"));
        let exe = work.join(format!("probe_{label}"));
        let deps = work.join(format!("probe_{label}.d"));
        fs::write(&src_path, &src)
            .map_err(|e| format!("cannot write {}: {e}", src_path.display()))?;
        let exe_s = exe.display().to_string();
        let deps_s = deps.display().to_string();
        let c = compile(
            &src_path,
            &[
                "-std=c11",
                "-O0",
                "-fdiagnostics-color=never",
                "-fno-diagnostics-show-caret",
                &root_arg,
                "-MD",
                "-MF",
                &deps_s,
                "-o",
                &exe_s,
            ],
        )?;
        if c.ok {
            check_deps(&deps, root)?;
            let out = Command::new(&exe)
                .output()
                .map_err(|e| format!("cannot run probe {}: {e}", exe.display()))?;
            if !out.status.success() {
                return Err(format!("probe {} failed: {}", exe.display(), out.status));
            }
            let mut values = HashMap::new();
            for line in String::from_utf8_lossy(&out.stdout).lines() {
                let mut parts = line.splitn(3, ' ');
                let (kind, name, value) = (parts.next(), parts.next(), parts.next());
                match (kind, name, value) {
                    (Some(k), Some(n), Some(v)) => {
                        values.insert(format!("{k} {n}"), v.to_string());
                    }
                    _ => return Err(format!("malformed probe output line `{line}`")),
                }
            }
            return Ok(ProbeRun { values, failed });
        }
        let mut progress = false;
        let mut stray = c.unattributed.clone();
        for (line, msgs) in &c.errors {
            match lines.get(line) {
                Some(&i) => {
                    excluded.insert(i);
                    failed.insert(i, msgs.join("; "));
                    progress = true;
                }
                None => stray.push(format!("probe line {line}: {}", msgs.join("; "))),
            }
        }
        if !stray.is_empty() || !progress {
            return Err(format!(
                "the probe does not compile against {} (round {round}); errors not tied to a \
                 single item:\n  {}\ncompiler output:\n{}",
                root.display(),
                stray.join("\n  "),
                excerpt(&c.stderr, 60)
            ));
        }
    }
    Err(format!(
        "the probe still does not compile against {} after 8 rounds of removing failing items",
        root.display()
    ))
}

/// Makes sure every Level Zero header the probe used came from `root`, so that a missing
/// generated header cannot silently fall back to the system copy.
pub(super) fn check_deps(deps: &Path, root: &Path) -> Result<(), String> {
    let text =
        fs::read_to_string(deps).map_err(|e| format!("cannot read {}: {e}", deps.display()))?;
    let root = fs::canonicalize(root).map_err(|e| format!("{}: {e}", root.display()))?;
    let body = text.split_once(": ").map_or("", |(_, b)| b);
    for tok in body.split_whitespace().filter(|t| *t != "\\") {
        if tok.contains("/level_zero/") {
            let p = fs::canonicalize(tok).unwrap_or_else(|_| PathBuf::from(tok));
            if !p.starts_with(&root) {
                return Err(format!(
                    "the probe compiled against {} picked up {} from outside that include root",
                    root.display(),
                    p.display()
                ));
            }
        }
    }
    Ok(())
}

/// Compiles the signature unit against `root`; returns the conflicting items with messages.
pub(super) fn run_signatures(
    items: &[SigItem],
    root: &Path,
    work: &Path,
    label: &str,
) -> Result<Vec<(usize, String)>, String> {
    let (src, lines) = sig_source(items);
    let src_path = work.join(format!("signatures_{label}.c"));
    fs::write(&src_path, &src).map_err(|e| format!("cannot write {}: {e}", src_path.display()))?;
    let root_arg = format!("-I{}", root.display());
    let c = compile(
        &src_path,
        &[
            "-std=c11",
            "-fsyntax-only",
            "-Werror",
            "-fdiagnostics-color=never",
            "-fno-diagnostics-show-caret",
            &root_arg,
        ],
    )?;
    if c.ok {
        return Ok(Vec::new());
    }
    let mut stray = c.unattributed.clone();
    let mut out = Vec::new();
    for (line, msgs) in &c.errors {
        match lines.get(line) {
            Some(&i) => out.push((i, msgs.join("; "))),
            None => stray.push(format!("line {line}: {}", msgs.join("; "))),
        }
    }
    if !stray.is_empty() {
        return Err(format!(
            "the signature unit does not compile against {}; errors not tied to a single \
             declaration:\n  {}\ncompiler output:\n{}",
            root.display(),
            stray.join("\n  "),
            excerpt(&c.stderr, 60)
        ));
    }
    Ok(out)
}
