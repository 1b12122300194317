//! `cargo xtask package [--test] [--debug-driver]`: a Debian package of the CPU driver,
//! `target/zekit-package/zekit-cpu-driver_<version>_<arch>.deb`:
//!
//! | path | what |
//! |---|---|
//! | `/usr/lib/<multiarch>/libze_zekit_cpu.so` | the driver (release build) |
//! | `/usr/lib/zekit/loader/` | the Level Zero loader 1.32 (built from `shared/vendor/`, as `cargo xtask sycl` does): Debian 12's 1.8 is too old for Intel's SYCL runtime |
//! | `/usr/bin/zekit-run` | `zekit-run [--as-gpu] -- PROGRAM ARGS...`: runs a program on zekit (`packaging/zekit-run`) |
//! | `/usr/share/doc/zekit-cpu-driver/copyright` | the licenses (zekit's and the loader's: MIT) |
//!
//! `--test` then installs the package (`dpkg -i` as root; otherwise `dpkg -x` into a folder,
//! which `zekit-run` handles the same way since it finds its files relative to itself), runs a
//! C program (`packaging/smoke.c`) and a dpnp program through `zekit-run`, and removes it again.
//! `--debug-driver` packages the dev-profile driver instead (CI: `cargo xtask test` has built
//! it, a release build would add minutes).

use std::path::{Path, PathBuf};
use std::process::Command;

const PACKAGE: &str = "zekit-cpu-driver";

fn run(cmd: &mut Command) -> Result<String, String> {
    let shown = format!("{cmd:?}");
    let out = cmd.output().map_err(|e| format!("{shown}: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() {
        return Err(format!("{shown} failed ({}):\n{stdout}{}", out.status, String::from_utf8_lossy(&out.stderr)));
    }
    Ok(stdout)
}

fn copy(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::copy(from, to).map(drop).map_err(|e| format!("{} -> {}: {e}", from.display(), to.display()))
}

fn mkdir(d: &Path) -> Result<(), String> {
    std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))
}

/// Builds the package; its path.
fn build(root: &Path, stack: &crate::sycl::Stack) -> Result<PathBuf, String> {
    let arch = run(Command::new("dpkg").arg("--print-architecture"))?.trim().to_string();
    let multiarch = run(Command::new("gcc").arg("-print-multiarch"))?.trim().to_string();
    let version = env!("CARGO_PKG_VERSION");
    let out = root.join("target/zekit-package");
    let stage = out.join("root");
    std::fs::remove_dir_all(&stage).ok();
    let lib = stage.join("usr/lib").join(&multiarch);
    let loader = stage.join("usr/lib/zekit/loader");
    let bin = stage.join("usr/bin");
    let doc = stage.join(format!("usr/share/doc/{PACKAGE}"));
    for d in [&lib, &loader, &bin, &doc, &stage.join("DEBIAN")] {
        mkdir(d)?;
    }
    copy(&stack.driver, &lib.join("libze_zekit_cpu.so"))?;
    run(Command::new("strip").arg("--strip-debug").arg(lib.join("libze_zekit_cpu.so")))?;
    // `cp -a` keeps the loader's symlinks (libze_loader.so.1 -> .so.1.32.0).
    for e in std::fs::read_dir(&stack.loader_lib).map_err(|e| e.to_string())?.flatten() {
        run(Command::new("cp").arg("-a").arg(e.path()).arg(&loader))?;
    }
    let script = std::fs::read_to_string(root.join("packaging/zekit-run")).map_err(|e| e.to_string())?;
    let zekit_run = bin.join("zekit-run");
    std::fs::write(&zekit_run, script.replace("@MULTIARCH@", &multiarch)).map_err(|e| e.to_string())?;
    run(Command::new("chmod").arg("0755").arg(&zekit_run))?;
    let license = std::fs::read_to_string(root.join("LICENSE")).unwrap_or_else(|_| "MIT License\n".into());
    std::fs::write(
        doc.join("copyright"),
        format!("zekit CPU driver: MIT.\n\n{license}\nThe Level Zero loader in /usr/lib/zekit/loader (oneapi-src/level-zero v1.32.0): MIT.\n"),
    )
    .map_err(|e| e.to_string())?;
    let size_kib = run(Command::new("du").arg("-sk").arg(stage.join("usr")))?
        .split_whitespace()
        .next()
        .unwrap_or("0")
        .to_string();
    let control = format!(
        "Package: {PACKAGE}\nVersion: {version}\nArchitecture: {arch}\nMaintainer: zekit developers <zekit@localhost>\n\
         Installed-Size: {size_kib}\nDepends: libc6, libgcc-s1, libstdc++6\nSection: libs\nPriority: optional\n\
         Description: Level Zero driver that runs programs and kernels on the CPU\n \
         zekit's CPU driver (libze_zekit_cpu.so) runs Level Zero programs, SPIR-V kernels\n \
         included, on any Linux machine without a GPU. zekit-run runs a program on it,\n \
         with the Level Zero loader 1.32 the package carries.\n"
    );
    std::fs::write(stage.join("DEBIAN/control"), control).map_err(|e| e.to_string())?;
    let deb = out.join(format!("{PACKAGE}_{version}_{arch}.deb"));
    run(Command::new("dpkg-deb").args(["--root-owner-group", "--build"]).arg(&stage).arg(&deb))?;
    println!("xtask: {}", deb.display());
    Ok(deb)
}

fn is_root() -> bool {
    run(Command::new("id").arg("-u")).is_ok_and(|u| u.trim() == "0")
}

/// Installs `deb`, runs the two programs through `zekit-run`, uninstalls.
fn test(root: &Path, stack: &crate::sycl::Stack, deb: &Path) -> Result<(), String> {
    let out = root.join("target/zekit-package");
    // Installed for real where we may (CI runs as root), else unpacked.
    let (zekit_run, installed) = if is_root() {
        run(Command::new("dpkg").arg("-i").arg(deb))?;
        (PathBuf::from("/usr/bin/zekit-run"), true)
    } else {
        let unpacked = out.join("unpacked");
        std::fs::remove_dir_all(&unpacked).ok();
        run(Command::new("dpkg").arg("-x").arg(deb).arg(&unpacked))?;
        (unpacked.join("usr/bin/zekit-run"), false)
    };
    let result = (|| {
        // A C program, built against zekit's headers and linked with the loader the package
        // carries (so no libze-dev is needed).
        let loader = zekit_run.parent().unwrap().parent().unwrap().join("lib/zekit/loader");
        let smoke = out.join("smoke");
        run(Command::new("gcc")
            .arg(root.join("packaging/smoke.c"))
            .arg("-I")
            .arg(root.join("generated/include"))
            .arg(loader.join("libze_loader.so.1"))
            .arg("-o")
            .arg(&smoke))?;
        let c = run(Command::new(&zekit_run).arg("--").arg(&smoke))?;
        if !c.contains("device = zekit CPU") || !c.contains("(cpu)") || !c.ends_with("smoke ok\n") {
            return Err(format!("zekit-run -- smoke printed:\n{c}"));
        }
        let g = run(Command::new(&zekit_run).args(["--as-gpu", "--"]).arg(&smoke))?;
        if !g.contains("(gpu)") {
            return Err(format!("zekit-run --as-gpu -- smoke printed:\n{g}"));
        }
        print!("{c}");
        // A dpnp program through Intel's SYCL runtime.
        let py = "import dpctl, dpnp, numpy\n\
                  d = dpctl.select_default_device()\n\
                  assert d.backend.name == 'level_zero' and d.name.startswith('zekit CPU'), d\n\
                  a = dpnp.arange(1000, dtype=dpnp.float32)\n\
                  b = (a * 2 + 1).asnumpy()\n\
                  assert (b == numpy.arange(1000, dtype=numpy.float32) * 2 + 1).all()\n\
                  print('dpnp on', d.name, 'ok')\n";
        let p = run(Command::new(&zekit_run).args(["--as-gpu", "--"]).arg(&stack.python).args(["-c", py]).env("ZEKIT_LOG", "0"))?;
        print!("{p}");
        if !p.contains("ok") {
            return Err(format!("the dpnp program printed:\n{p}"));
        }
        Ok(())
    })();
    if installed {
        run(Command::new("dpkg").args(["-r", PACKAGE]))?;
    }
    result?;
    println!("xtask: package tested ({})", if installed { "installed with dpkg -i, then removed" } else { "unpacked with dpkg -x: not root" });
    Ok(())
}

/// `cargo xtask package [--test] [--debug-driver]`.
pub fn main(root: &Path, args: &[String]) -> Result<(), String> {
    if let Some(a) = args.iter().find(|a| !["--test", "--debug-driver"].contains(&a.as_str())) {
        return Err(format!("unknown option {a}: cargo xtask package [--test] [--debug-driver]"));
    }
    let how = crate::sycl::DriverBuild { debug: args.iter().any(|a| a == "--debug-driver"), llvm: false };
    let stack = crate::sycl::setup(root, how)?;
    let deb = build(root, &stack)?;
    if args.iter().any(|a| a == "--test") {
        test(root, &stack, &deb)?;
    }
    Ok(())
}
