//! Project chores: `cargo xtask gen [--check] [--times]`, `cargo xtask lint`, `cargo xtask kernels`, `cargo xtask sycl` (see `sycl`), `cargo xtask import-upstream DIR [--check]`.

mod carry_docs;
mod deps;
mod extends;
mod grammar;
mod import;
mod package;
mod seed_merge;
mod sycl;
mod sycl_sweep;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// `cargo xtask import-upstream DIR [--check]`: rewrites spec/ from the upstream YAML, the seed
/// pages and `xtask/data/seed-facts.yml`; `--check` writes nothing and lists the files a re-import
/// would change (a hand edit of spec/ that is not a description and not a fact would be lost).
fn import_upstream(dir: &Path, check: bool) -> Result<(), String> {
    let mut report = import::Report::default();
    let spec = root().join("spec");
    let mut all = vec![];
    for (up, ns) in import::NAMESPACES {
        let files = import::import_namespace(&dir.join(up), ns, &mut report)?;
        all.extend(files);
    }
    let seeds_dir = root().join("../shared/seeds");
    let seeds = xtask::seeds::parse_dir(&seeds_dir)?;
    let facts_path = root().join("xtask/data/seed-facts.yml");
    let facts: seed_merge::Facts = serde_yaml::from_str(&std::fs::read_to_string(&facts_path).map_err(|e| e.to_string())?)
        .map_err(|e| format!("{}: {e}", facts_path.display()))?;
    seed_merge::merge(&mut all, &seeds, &facts, &mut report)?;
    let data: Vec<(String, Vec<String>, String)> =
        facts.extends.iter().map(|f| (f.struct_name.clone(), f.extends.clone(), f.source.clone())).collect();
    let upstream_sentences = std::mem::take(&mut report.pnext_sentences);
    let counts = extends::apply(
        &mut all,
        &upstream_sentences,
        &seed_merge::seed_pnext_sentences(&seeds),
        &data,
        &mut report,
    )?;
    // Our own descriptions live only in spec/: carry them over (the seeds' text wins).
    match zekit_codegen::load::load_dir(&spec) {
        Ok(current) => {
            let headers: Vec<_> = current.files.iter().map(|f| zekit_codegen::spec::Entry::File(f.header.clone())).collect();
            let docs = carry_docs::collect(
                current.files.iter().zip(&headers).flat_map(|(f, h)| {
                    std::iter::once((f.ns.as_str(), h)).chain(f.docs.iter().map(move |d| (f.ns.as_str(), &d.entry)))
                }),
            );
            let n = carry_docs::apply(&mut all, &docs);
            println!("descriptions carried over from spec/: {n}");
        }
        Err(_) => println!("note: spec/ does not load; no descriptions carried over"),
    }
    let mut differ = vec![];
    for f in &all {
        let d = spec.join(&f.ns);
        let path = d.join(format!("{}.yml", f.stem));
        let text = import::render_file(f)?;
        if check {
            if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
                differ.push(format!("{}/{}.yml", f.ns, f.stem));
            }
            continue;
        }
        std::fs::create_dir_all(&d).map_err(|e| e.to_string())?;
        std::fs::write(&path, text).map_err(|e| e.to_string())?;
    }
    if check {
        let mut expected: Vec<String> = all.iter().map(|f| format!("{}/{}.yml", f.ns, f.stem)).collect();
        expected.sort();
        for ns in ["ze", "zet", "zes", "zer"] {
            for e in std::fs::read_dir(spec.join(ns)).map_err(|e| e.to_string())?.flatten() {
                let rel = format!("{ns}/{}", e.file_name().to_string_lossy());
                if rel.ends_with(".yml") && expected.binary_search(&rel).is_err() {
                    differ.push(format!("{rel} (not made by the import)"));
                }
            }
        }
        if !differ.is_empty() {
            return Err(format!(
                "a re-import would change {} file(s) of spec/:\n  {}\n(move hand edits into xtask/data/seed-facts.yml)",
                differ.len(),
                differ.join("\n  ")
            ));
        }
        println!("import-upstream --check: spec/ is exactly what the import writes ({} files)", all.len());
        return Ok(());
    }
    println!("imported {} files: {:?}", all.len(), import::count_kinds(&all));
    for n in &report.notes {
        println!("note: {n}");
    }
    for (k, n) in &report.unknown_keys {
        println!("unknown upstream key (dropped): {k} x{n}");
    }
    println!("prose return conditions dropped: {}", report.prose_conditions_dropped);
    println!(
        "extends facts: {} from upstream prose, {} from the seeds, {} from xtask/data/seed-facts.yml",
        counts.prose, counts.seeds, counts.data
    );
    Ok(())
}

/// Every lint rule, `missing-doc` included (kept apart in codegen so rule fixtures need no docs).
fn all_diags(api: &zekit_codegen::model::Api) -> Vec<zekit_codegen::load::Diag> {
    let mut d = zekit_codegen::lint::lint(api);
    d.extend(zekit_codegen::lint::undocumented(api));
    d.sort();
    d
}

/// `cargo xtask lint`: prints every diagnostic of spec/ (loader and lint rules).
fn lint() -> Result<(), String> {
    let diags = match zekit_codegen::load_api(&root().join("spec")) {
        Ok(api) => all_diags(&api),
        Err(diags) => diags,
    };
    for d in &diags {
        println!("{d}");
    }
    if diags.is_empty() {
        println!("lint: spec/ is clean");
        Ok(())
    } else {
        Err(format!("{} lint errors in spec/", diags.len()))
    }
}

/// `cargo xtask gen [--check] [--times]`: regenerates generated/ from spec/; `--times` also
/// prints how long each emitter job took and on which worker.
fn gen(check: bool, times: bool) -> Result<(), String> {
    let t0 = std::time::Instant::now();
    let root = root();
    let api = zekit_codegen::load_api(&root.join("spec")).map_err(|diags| {
        diags.iter().map(|d| d.to_string()).collect::<Vec<_>>().join("\n")
    })?;
    let t_load = t0.elapsed();
    let diags = all_diags(&api);
    if !diags.is_empty() {
        let list: Vec<String> = diags.iter().map(|d| d.to_string()).collect();
        return Err(format!("{}\n{} lint errors in spec/", list.join("\n"), diags.len()));
    }
    let t_lint = t0.elapsed();
    let (files, timings) = zekit_codegen::generate_timed(&api);
    let files = files?;
    let t_emit = t0.elapsed();
    if times {
        let mut timings = timings;
        timings.sort_by_key(|t| std::cmp::Reverse(t.time));
        for t in &timings {
            println!("  {:>6.1} ms  worker {}  {}", t.time.as_secs_f64() * 1e3, t.worker, t.name);
        }
    }
    let (mut written, mut unchanged, mut stale) = (0, 0, vec![]);
    for (rel, text) in &files {
        let path = root.join("generated").join(rel);
        let old = std::fs::read_to_string(&path).ok();
        if old.as_deref() == Some(text.as_str()) {
            unchanged += 1;
            continue;
        }
        if check {
            stale.push(rel.clone());
            continue;
        }
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
        written += 1;
    }
    // The compiler's SPIR-V names, from the spirv crate's grammar (beside its code, not under
    // generated/: it is a module of zekit-spirv).
    let grammar = grammar::text(&root)?;
    let path = root.join(grammar::PATH);
    if std::fs::read_to_string(&path).ok().as_deref() == Some(grammar.as_str()) {
        unchanged += 1;
    } else if check {
        stale.push(grammar::PATH.into());
    } else {
        std::fs::write(&path, &grammar).map_err(|e| format!("{}: {e}", path.display()))?;
        written += 1;
    }
    // Files under generated/ that the generator no longer writes are stale too.
    let produced: std::collections::HashSet<PathBuf> = files.iter().map(|(rel, _)| PathBuf::from(rel)).collect();
    let mut removed = 0;
    for rel in files_under(&root.join("generated"))? {
        if produced.contains(&rel) {
            continue;
        }
        if check {
            stale.push(format!("{} (no longer generated)", rel.display()));
        } else {
            let path = root.join("generated").join(&rel);
            std::fs::remove_file(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            removed += 1;
        }
    }
    for ns in zekit_codegen::load::NAMESPACES {
        let mut counts = std::collections::BTreeMap::new();
        for (_, d) in api.docs(ns) {
            *counts.entry(d.entry.kind()).or_insert(0usize) += 1;
        }
        let list: Vec<String> = counts.iter().map(|(k, v)| format!("{v} {k}")).collect();
        println!("{ns:>4}: {}", list.join(", "));
    }
    let ms = t0.elapsed().as_secs_f64() * 1000.0;
    if check {
        if stale.is_empty() {
            println!("gen --check: {} files up to date ({ms:.0} ms)", files.len());
            return Ok(());
        }
        for s in &stale {
            eprintln!("stale: generated/{s}");
        }
        return Err(format!("{} generated files are stale; run `cargo xtask gen`", stale.len()));
    }
    println!(
        "gen: {written} written, {unchanged} unchanged, {removed} removed, {} total in {ms:.0} ms (load {:.0}, lint {:.0}, emit {:.0} ms)",
        files.len(),
        t_load.as_secs_f64() * 1e3,
        (t_lint - t_load).as_secs_f64() * 1e3,
        (t_emit - t_lint).as_secs_f64() * 1e3
    );
    Ok(())
}

/// Every file below `dir` (relative to it), skipping build output (`target/`).
fn files_under(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut out = vec![];
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        let abs = dir.join(&rel);
        for entry in std::fs::read_dir(&abs).map_err(|e| format!("{}: {e}", abs.display()))? {
            let entry = entry.map_err(|e| e.to_string())?;
            let name = rel.join(entry.file_name());
            if entry.file_type().map_err(|e| e.to_string())?.is_dir() {
                if entry.file_name() != "target" {
                    stack.push(name);
                }
            } else {
                out.push(name);
            }
        }
    }
    Ok(out)
}

/// `cargo xtask demo`: regenerates, builds the CPU driver and runs `examples/demo.c`, the same
/// program in Rust (`examples/demo.rs`) and the example crate's binary through the official
/// loader on it.
fn demo() -> Result<(), String> {
    gen(false, false)?;
    let root = root();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = std::process::Command::new(&cargo)
        .args(["build", "--release", "-p", "zekit-cpu-icd", "-p", "zekit-example"])
        .current_dir(&root)
        .status()
        .map_err(|e| format!("cargo build: {e}"))?;
    if !status.success() {
        return Err("building the CPU driver and the Rust examples failed".into());
    }
    let lz_root = deps::level_zero_root(&root)?;
    let lib_dir = deps::loader_lib_dir(&lz_root).ok_or("the loader library vanished")?;
    let release = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from).join("release");
    let icd = release.join("libze_zekit_cpu.so");
    let exe = release.join("zekit-demo");
    let out = std::process::Command::new("cc")
        .args(["-std=c11", "-O1", "-Wall", "-Werror", "-I"])
        .arg(root.join("generated/include"))
        .arg(root.join("examples/demo.c"))
        .arg(format!("-L{}", lib_dir.display()))
        .args(["-lze_loader", "-o"])
        .arg(&exe)
        .output()
        .map_err(|e| format!("cc: {e} (install gcc)"))?;
    if !out.status.success() {
        return Err(format!("compiling examples/demo.c failed:\n{}", String::from_utf8_lossy(&out.stderr)));
    }
    // The C demo, the same program in Rust (`examples/demo.rs`, on `zekit`), and the example
    // crate's binary (`examples/downstream`): all through the loader, on the CPU driver.
    let runs = [
        ("examples/demo.c", exe),
        ("examples/demo.rs", release.join("zekit-demo-rs")),
        ("examples/downstream", release.join("zekit-example")),
    ];
    for (what, exe) in runs {
        println!("running {what} through the Level Zero loader on {}", icd.display());
        let status = std::process::Command::new(&exe)
            .env("LD_LIBRARY_PATH", &lib_dir)
            .env("ZE_ENABLE_ALT_DRIVERS", &icd)
            .env("ZEKIT_LOG", "0")
            .status()
            .map_err(|e| format!("running {what}: {e}"))?;
        if !status.success() {
            return Err(format!("{what} failed ({status})"));
        }
    }
    Ok(())
}

/// `cargo xtask kernels`: compiles `spirv/kernels/*.cl` (OpenCL C 2.0) to the committed `.spv`
/// files with clang-15 and llvm-spirv-15 (installed when missing). The vectorizers are off so
/// that each kernel tests what its source says (vector types are tested by `vectors.cl`).
/// The benchmark kernels `spirv/kernels/bench/*.cl` are compiled the same way; for PoCL, which
/// takes no SPIR-V, each bench `.spv` and each test `.spv` is also translated back to LLVM
/// bitcode with `llvm-spirv-15 -r` (`bench/NAME.bc`, `bench/corpus/NAME.bc`), so both sides of a
/// comparison get the same kernels and neither pays a C front end.
/// `--check` compiles into a scratch folder and fails when a committed `.spv` or `.bc` differs
/// (CI runs it where the tools are installed).
/// Kernels that `llvm-spirv-15 -r` cannot translate back to LLVM (no `.bc` for PoCL):
/// `OpGroupNonUniform*` at Workgroup scope trips an assertion in its reader.
const NO_BITCODE: &[&str] = &["nonuniform_wg"];

fn kernels(check: bool) -> Result<(), String> {
    if !check {
        deps::spirv_tools()?;
    }
    let dir = root().join("spirv/kernels");
    let tmp = std::env::temp_dir().join(format!("zekit-kernels-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).map_err(|e| e.to_string())?;
    let list = |dir: &Path| -> Result<Vec<PathBuf>, String> {
        let mut sources: Vec<_> = std::fs::read_dir(dir)
            .map_err(|e| format!("{}: {e}", dir.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "cl" || x == "ll"))
            .collect();
        sources.sort();
        Ok(sources)
    };
    let bench = dir.join("bench");
    // (source, folder of its .spv, folder of its .bc for PoCL)
    let mut jobs: Vec<(PathBuf, PathBuf, PathBuf)> =
        list(&dir)?.into_iter().map(|s| (s, dir.clone(), bench.join("corpus"))).collect();
    jobs.extend(list(&bench)?.into_iter().map(|s| (s, bench.clone(), bench.clone())));
    // Modules for zeModuleDynamicLink (imports, a library without kernels): not in the corpus.
    let link = dir.join("link");
    jobs.extend(list(&link)?.into_iter().map(|s| (s, link.clone(), link.clone())));
    let run = |cmd: &mut std::process::Command| -> Result<(), String> {
        let out = cmd.output().map_err(|e| format!("{cmd:?}: {e}"))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(format!("{cmd:?} failed:\n{}", String::from_utf8_lossy(&out.stderr)))
        }
    };
    let mut stale = vec![];
    let rel = |p: &Path| p.strip_prefix(root()).unwrap_or(p).display().to_string();
    for (src, spv_dir, bc_dir) in &jobs {
        let stem = src.file_stem().unwrap_or_default().to_string_lossy().to_string();
        let front = tmp.join(format!("{stem}.front.bc"));
        if src.extension().is_some_and(|x| x == "ll") {
            // LLVM IR written by hand: SPIR-V shapes clang's OpenCL C never emits (aggregates
            // as SSA values), still translated by llvm-spirv like every other kernel.
            run(std::process::Command::new("llvm-as-15").arg(src).arg("-o").arg(&front))?;
        } else {
            run(std::process::Command::new("clang-15")
                .args(["-cl-std=CL2.0", "-target", "spir64", "-O2", "-fno-vectorize", "-fno-slp-vectorize"])
                .args(["-emit-llvm", "-c", "-Xclang", "-no-opaque-pointers"])
                .arg(src)
                .arg("-o")
                .arg(&front))?;
        }
        let spv = spv_dir.join(format!("{stem}.spv"));
        let bc = bc_dir.join(format!("{stem}.bc"));
        let (spv_out, bc_out) = if check {
            (tmp.join(format!("{stem}.spv")), tmp.join(format!("{stem}.bc")))
        } else {
            std::fs::create_dir_all(bc_dir).map_err(|e| format!("{}: {e}", bc_dir.display()))?;
            (spv.clone(), bc.clone())
        };
        // Float atomics (`atomic_fetch_add/min/max` on `atomic_float`), sub-group shuffles
        // (`intel_sub_group_shuffle*`) and function pointers (clang's
        // `__cl_clang_function_pointers`, enabled by a pragma in the kernel) need these
        // extensions; a kernel that uses none of them comes out the same.
        run(std::process::Command::new("llvm-spirv-15")
            .arg("--spirv-ext=+SPV_EXT_shader_atomic_float_add,+SPV_EXT_shader_atomic_float_min_max,+SPV_INTEL_subgroups,+SPV_INTEL_function_pointers")
            .arg(&front)
            .arg("-o")
            .arg(&spv_out))?;
        let outputs = if NO_BITCODE.contains(&stem.as_str()) {
            vec![(&spv_out, &spv)]
        } else {
            run(std::process::Command::new("llvm-spirv-15").arg("-r").arg(&spv_out).arg("-o").arg(&bc_out))?;
            vec![(&spv_out, &spv), (&bc_out, &bc)]
        };
        for (out, committed) in outputs {
            if check {
                if std::fs::read(out).ok() != std::fs::read(committed).ok() {
                    stale.push(rel(committed));
                }
            } else {
                println!("xtask: {}", rel(committed));
            }
        }
    }
    std::fs::remove_dir_all(&tmp).ok();
    if !stale.is_empty() {
        return Err(format!("stale kernels (run `cargo xtask kernels`): {}", stale.join(", ")));
    }
    println!("xtask: {} kernels {}", jobs.len(), if check { "up to date" } else { "compiled" });
    Ok(())
}

/// `cargo xtask bench`: the benchmarks, each printing ratios against a baseline measured in the
/// same run (memcpy, PoCL, Intel's OpenCL CPU runtime, validation off, one core); installs PoCL
/// and sets the SYCL stack up first (its venv brings Intel's runtime). `-p zekit-cpu` runs each
/// of its bench targets: `execute` (copies, round trips), `kernels` (SPIR-V kernels against
/// PoCL: module builds, an empty launch, multiply-add GFLOPS, copy bandwidth), `throughput`
/// (many small lists), `scaling` (the kernels on 1, 2, 4, ... cores) and `workloads` (the speed
/// goal's table against Intel's runtime and PoCL, with the machine's limits), `workloads` again
/// with the LLVM tier built in (kernels tiering up), then dpnp on zekit against Intel's runtime
/// (`cargo xtask sycl --bench`).
fn bench() -> Result<(), String> {
    deps::pocl()?;
    let stack = sycl::setup(&root(), sycl::DriverBuild::default())?;
    for package in ["zekit-cpu", "zekit-mock"] {
        let status = std::process::Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args(["bench", "-p", package])
            .current_dir(root())
            .status()
            .map_err(|e| format!("cargo bench: {e}"))?;
        if !status.success() {
            return Err(format!("cargo bench -p {package} failed"));
        }
    }
    // The workloads again with the LLVM tier built in (the default tier, auto: Cranelift's
    // code first, LLVM's once a kernel has run long enough).
    let llvm = deps::llvm()?;
    let status = std::process::Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["bench", "-p", "zekit-cpu", "--features", "llvm", "--bench", "workloads"])
        .env("LLVM_SYS_191_PREFIX", &llvm)
        .current_dir(root())
        .status()
        .map_err(|e| format!("cargo bench: {e}"))?;
    if !status.success() {
        return Err("cargo bench -p zekit-cpu --features llvm --bench workloads failed".into());
    }
    sycl::bench(&root(), &stack)
}

/// `cargo xtask test`: every test of the workspace (the README's test command), the kernel
/// tests with every kernel in lockstep, the kernel tests on the LLVM tier, then zekit-spirv's kernel-info test without the `jit`
/// feature.
fn run_tests() -> Result<(), String> {
    let lz_root = deps::level_zero_root(&root())?;
    let valgrind = deps::valgrind(&root())?;
    let status = std::process::Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["test", "--workspace"])
        .env("ZEKIT_LEVEL_ZERO_ROOT", &lz_root)
        .envs(valgrind)
        .current_dir(root())
        .status()
        .map_err(|e| format!("cargo test: {e}"))?;
    if !status.success() {
        return Err("cargo test --workspace failed".into());
    }
    // The kernel tests again with every kernel that can in lockstep (by default only those
    // that gain from it do), so the per-lane lowering meets every host reference too, and
    // with every launch asking for non-temporal stores (by default only those larger than
    // the largest cache do).
    let status = std::process::Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["test", "-p", "zekit-spirv", "--test", "stdlib", "--test", "compile"])
        .args(["--test", "atomics_groups", "--test", "aggregates", "--test", "native"])
        .args(["--test", "fnptr", "-p", "zekit-cpu", "--test", "kernels", "--test", "fnptr"])
        .args(["--test", "kernel_launches", "--test", "kernel_modules"])
        .env("ZEKIT_LOCKSTEP", "1")
        .env("ZEKIT_STREAM_STORES", "1")
        .current_dir(root())
        .status()
        .map_err(|e| format!("cargo test: {e}"))?;
    if !status.success() {
        return Err("the kernel tests with ZEKIT_LOCKSTEP=1 ZEKIT_STREAM_STORES=1 failed".into());
    }
    // The kernel tests again on the LLVM tier (the `llvm` feature, every kernel compiled by
    // LLVM): zekit-spirv's every test (the fuzz test with fewer mutants: LLVM's O3 takes
    // longer than Cranelift on each) and the CPU driver's kernel tests through the loader.
    let llvm = deps::llvm()?;
    let status = std::process::Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["test", "--features", "zekit-spirv/llvm,zekit-cpu/llvm", "-p", "zekit-spirv", "--tests"])
        .args(["-p", "zekit-cpu", "--test", "kernels", "--test", "fnptr"])
        .args(["--test", "kernel_launches", "--test", "kernel_modules"])
        .env("ZEKIT_TIER", "llvm")
        .env("ZEKIT_FUZZ_ITERS", "300")
        .env("LLVM_SYS_191_PREFIX", &llvm)
        .current_dir(root())
        .status()
        .map_err(|e| format!("cargo test: {e}"))?;
    if !status.success() {
        return Err("the kernel tests with ZEKIT_TIER=llvm failed".into());
    }
    // And tiering up: every kernel starts on Cranelift's code and is queued for LLVM's after
    // its first launch, so that launches switch code while the tests run.
    let status = std::process::Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["test", "--features", "zekit-spirv/llvm,zekit-cpu/llvm", "-p", "zekit-cpu"])
        .args(["--test", "kernels", "--test", "fnptr", "--test", "kernel_launches", "--test", "kernel_modules"])
        .args(["--test", "image_kernels", "--test", "subgroup_nonuniform"])
        .env("ZEKIT_TIER", "auto")
        .env("ZEKIT_TIER_UP_MS", "0")
        .env("LLVM_SYS_191_PREFIX", &llvm)
        .current_dir(root())
        .status()
        .map_err(|e| format!("cargo test: {e}"))?;
    if !status.success() {
        return Err("the kernel tests with ZEKIT_TIER=auto ZEKIT_TIER_UP_MS=0 failed".into());
    }
    // The workspace build unifies features (the CPU driver turns `jit` on): check zekit-spirv
    // without Cranelift too, as the mock uses it.
    let status = std::process::Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["test", "-p", "zekit-spirv", "--no-default-features", "--test", "info"])
        .current_dir(root())
        .status()
        .map_err(|e| format!("cargo test: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err("cargo test -p zekit-spirv --no-default-features failed".into())
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let res = match args.first().map(String::as_str) {
        Some("gen") => gen(args.iter().any(|a| a == "--check"), args.iter().any(|a| a == "--times")),
        Some("lint") => lint(),
        Some("test") => run_tests(),
        Some("demo") => demo(),
        Some("bench") => bench(),
        Some("sycl") => sycl::main(&root(), &args[1..]),
        Some("package") => package::main(&root(), &args[1..]),
        Some("kernels") => kernels(args.iter().any(|a| a == "--check")),
        Some("import-upstream") => match args.get(1) {
            Some(d) => import_upstream(Path::new(d), args.iter().any(|a| a == "--check")),
            None => Err("usage: cargo xtask import-upstream DIR [--check]".into()),
        },
        _ => Err("usage: cargo xtask <gen [--check] [--times] | demo | lint | test | bench | kernels [--check] | sycl [--sweep | --bench] [--debug-driver] [--adapter v1|v2] [--all | --update-known] [-- PYTEST_ARGS] | package [--test] [--debug-driver] | import-upstream DIR [--check]>".into()),
    };
    match res {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
