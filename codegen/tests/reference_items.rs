//! Acceptance: every function, struct/union, enum and handle of the upstream reference
//! (v1.17.24, all four namespaces) is declared in the generated headers.
//! The reference is read as text here, independently of the importer.

use std::path::Path;
use std::process::Command;

fn subst(s: &str) -> String {
    s.replace("$x", "ze").replace("$X", "ZE").replace("$t", "zet").replace("$T", "ZET").replace("$s", "zes").replace("$S", "ZES").replace("$r", "zer").replace("$R", "ZER")
}

/// (kind, C name) of every top-level item of one upstream file.
fn items(text: &str) -> Vec<(String, String)> {
    let mut out = vec![];
    for doc in text.split("\n---") {
        let top = |key: &str| {
            doc.lines()
                .find(|l| l.starts_with(&format!("{key}:")))
                .map(|l| subst(l[key.len() + 1..].trim().trim_matches('"')))
        };
        let (Some(kind), Some(name)) = (top("type"), top("name")) else { continue };
        let name = match kind.as_str() {
            "function" => {
                let fname = format!("{}{}", top("class").unwrap_or_default(), name);
                // A function returning something else than ze_result_t: `returns:` is a map with `type:`.
                if let Some(i) = doc.find("\nreturns:\n    type:") {
                    let ret = subst(doc[i..].lines().nth(2).unwrap_or("").trim().trim_start_matches("type:").trim().trim_matches('"'));
                    let nparams = doc.lines().skip_while(|l| !l.starts_with("params:")).skip(1).take_while(|l| l.starts_with(' ') || l.is_empty()).filter(|l| l.trim_start().starts_with("- type:")).count();
                    out.push(("returns".to_string(), format!("{fname}|{ret}|{nparams}")));
                }
                fname
            }
            "struct" | "union" | "enum" | "handle" => name,
            _ => continue,
        };
        out.push((kind, name));
    }
    out
}

#[test]
fn every_reference_item_is_declared() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let reference = root.join("../shared/reference/level-zero-spec-v1.17.24");
    let mut all = vec![];
    for dir in ["core", "tools", "sysman", "runtime"] {
        let mut files: Vec<_> = std::fs::read_dir(reference.join(dir)).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        for f in files.iter().filter(|f| f.extension().is_some_and(|e| e == "yml")) {
            all.extend(items(&std::fs::read_to_string(f).unwrap()));
        }
    }
    let count = |k: &str| all.iter().filter(|(kind, _)| kind == k).count();
    eprintln!(
        "reference: {} functions, {} structs, {} unions, {} enums, {} handles",
        count("function"),
        count("struct"),
        count("union"),
        count("enum"),
        count("handle")
    );
    assert_eq!(count("function"), 478);
    assert_eq!(count("returns"), 4, "functions that do not return ze_result_t");
    assert!(all.len() > 1000);
    let mut c = String::from(
        "#include <level_zero/ze_api.h>\n#include <level_zero/zet_api.h>\n#include <level_zero/zes_api.h>\n#include <level_zero/zer_api.h>\nvoid probe(void) {\n",
    );
    for (kind, name) in &all {
        if kind == "returns" {
            let mut parts = name.split('|');
            let (f, ret, n) = (parts.next().unwrap(), parts.next().unwrap(), parts.next().unwrap().parse::<usize>().unwrap());
            let zeros = vec!["0"; n].join(", ");
            c.push_str(&format!(
                "    _Static_assert(__builtin_types_compatible_p(__typeof__({f}({zeros})), {ret}), \"{f} returns {ret}\");\n"
            ));
        } else if kind == "function" {
            c.push_str(&format!("    (void)&{name};\n"));
        } else {
            c.push_str(&format!("    (void)sizeof({name});\n"));
        }
    }
    c.push_str("}\n");
    let dir = std::env::temp_dir().join(format!("zekit-reference-items-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("reference_items.c");
    std::fs::write(&src, &c).unwrap();
    let out = Command::new("cc")
        .args(["-std=c11", "-fsyntax-only", "-I"])
        .arg(root.join("generated/include"))
        .arg(&src)
        .output()
        .expect("run cc");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(out.status.success(), "reference items missing from the generated headers:\n{}", String::from_utf8_lossy(&out.stderr));
}
