//! Acceptance: every item named in the seed pages (spec 1.18.31) compiles against
//! the generated `ze_api.h` under its seed name, with the seeds' parameter types.

use std::path::Path;
use std::process::Command;

use xtask::seeds::{parse_dir, SeedItemKind};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

#[test]
fn every_seed_item_compiles_against_generated_ze_api_h() {
    let seeds = parse_dir(&root().join("../shared/seeds")).expect("seed pages parse");
    let items = seeds.item_names();
    assert_eq!(items.len(), 316, "the four seed pages name 316 items");
    let mut c = String::from("#include <stddef.h>\n#include <level_zero/ze_api.h>\nvoid probe(void) {\n");
    for it in &items {
        let line = match it.kind {
            SeedItemKind::Function => format!("(void)&{};", it.name),
            SeedItemKind::Struct | SeedItemKind::Union | SeedItemKind::Enum | SeedItemKind::Typedef | SeedItemKind::Handle => {
                format!("(void)sizeof({});", it.name)
            }
            SeedItemKind::Member => {
                let (s, m) = it.name.split_once('.').unwrap();
                format!("(void)offsetof({s}, {m});")
            }
            SeedItemKind::Enumerator | SeedItemKind::Macro => format!("(void)(long long)({});", it.name),
        };
        c.push_str(&format!("    {line} /* {} {} */\n", it.kind.as_str(), it.name));
    }
    c.push_str("}\n");
    // Each seed signature, redeclared verbatim in its parameter types: a conflicting
    // declaration is a compile error.
    for f in seeds.functions.values() {
        let params: Vec<String> = f.params.iter().map(|p| format!("{} {}", p.ty, p.name)).collect();
        c.push_str(&format!("ZE_APIEXPORT ze_result_t ZE_APICALL {}({});\n", f.name, params.join(", ")));
    }
    let dir = std::env::temp_dir().join(format!("zekit-seed-items-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("seed_items.c");
    std::fs::write(&src, &c).unwrap();
    let out = Command::new("cc")
        .args(["-std=c11", "-fsyntax-only", "-Werror", "-I"])
        .arg(root().join("generated/include"))
        .arg(&src)
        .output()
        .expect("run cc");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        out.status.success(),
        "seed items do not compile against generated/include/level_zero/ze_api.h:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
