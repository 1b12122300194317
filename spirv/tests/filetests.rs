//! File tests of the frontend, in the style of Cranelift's filetests: each
//! `kernels/filetests/NAME.spvasm` (assembled to the committed `NAME.spv` by
//! `kernels/dpcpp/assemble.py kernels/filetests`) says in comment lines what the IR the frontend
//! makes of it must hold ([`zekit_spirv::ir_text`]), so that a pass is tested without running
//! native code:
//!
//! - `; check: TEXT`: TEXT appears in the IR, after the previous check's match;
//! - `; not: TEXT`: TEXT appears nowhere in the IR;
//! - `; count: TEXT N`: TEXT appears exactly N times;
//! - `; error: TEXT`: the module is refused, with TEXT in the error.
//!
//! Builds without the `jit` feature.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("kernels/filetests")
}

/// Runs file test `name` of `folder`; `Err` says what failed, with the IR.
fn run(folder: &Path, name: &str) -> Result<usize, String> {
    let src = std::fs::read_to_string(folder.join(format!("{name}.spvasm"))).map_err(|e| e.to_string())?;
    let spv = std::fs::read(folder.join(format!("{name}.spv"))).map_err(|e| format!("{e} (assemble it)"))?;
    let directives: Vec<(&str, &str)> = src
        .lines()
        .filter_map(|l| l.trim().strip_prefix(';'))
        .filter_map(|l| l.trim().split_once(": "))
        .filter(|(d, _)| matches!(*d, "check" | "not" | "count" | "error"))
        .collect();
    if directives.is_empty() {
        return Err("no directive".into());
    }
    let result = zekit_spirv::ir_text(&spv, &HashMap::new());
    let mut at = 0usize;
    for (d, text) in &directives {
        match (*d, &result) {
            ("error", Err(e)) if e.to_string().contains(text) => {}
            ("error", Err(e)) => return Err(format!("error `{e}` does not contain `{text}`")),
            ("error", Ok(ir)) => return Err(format!("compiled, expected an error `{text}`:\n{ir}")),
            (_, Err(e)) => return Err(format!("refused: {e}")),
            ("check", Ok(ir)) => match ir[at..].find(text) {
                Some(i) => at += i + text.len(),
                None => return Err(format!("`{text}` not found after byte {at}:\n{ir}")),
            },
            ("not", Ok(ir)) if ir.contains(text) => return Err(format!("`{text}` found:\n{ir}")),
            ("not", Ok(_)) => {}
            (_, Ok(ir)) => {
                let (what, n) = text.rsplit_once(' ').ok_or("count: TEXT N")?;
                let n: usize = n.parse().map_err(|_| format!("count: `{n}` is not a number"))?;
                let found = ir.matches(what).count();
                if found != n {
                    return Err(format!("`{what}` appears {found} times, not {n}:\n{ir}"));
                }
            }
        }
    }
    Ok(directives.len())
}

#[test]
fn every_file_test_passes() {
    let mut names: Vec<String> = std::fs::read_dir(dir())
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "spvasm"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.len() >= 4, "{names:?}");
    let failed: Vec<String> = names
        .iter()
        .filter_map(|n| run(&dir(), n).err().map(|e| format!("{n}: {e}")))
        .collect();
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}

/// The runner itself fails: a check that is not there, a `not` that is, a wrong count.
#[test]
fn the_directives_can_fail() {
    let spv = std::fs::read(dir().join("arith.spv")).unwrap();
    let ir = zekit_spirv::ir_text(&spv, &HashMap::new()).unwrap();
    assert!(ir.starts_with("kernel arith (private 0 bytes, sub-groups of 8)\nblock0("), "{ir}");
    assert!(ir.contains("Bin(FAdd, v"), "{ir}");
    assert!(!ir.contains("Value("), "values print as vN: {ir}");
    let tmp = std::env::temp_dir().join(format!("zekit-filetest-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    for (directive, want) in [
        ("; check: Bin(FDiv,", "not found"),
        ("; not: Bin(FAdd,", "found"),
        ("; count: Store 2", "appears 1 times"),
        ("; error: anything", "expected an error"),
    ] {
        let name = "probe";
        std::fs::write(tmp.join(format!("{name}.spvasm")), directive).unwrap();
        std::fs::write(tmp.join(format!("{name}.spv")), &spv).unwrap();
        let e = run(&tmp, name).unwrap_err();
        assert!(e.contains(want), "{directive}: {e}");
    }
    std::fs::remove_dir_all(&tmp).unwrap();
}
