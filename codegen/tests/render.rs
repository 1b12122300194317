//! `emit_rust::render` prints a file item by item (and `jobs::run` spreads the emitters over
//! the cores): the text must be byte for byte what one pass over the whole file gives, for
//! every Rust file of the real spec.

use std::path::{Path, PathBuf};

use zekit_codegen::emit_rust::{render, render_whole_file};
use zekit_codegen::jobs::Output;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn api() -> zekit_codegen::Api {
    zekit_codegen::load_api(&root().join("spec")).unwrap_or_else(|d| panic!("spec does not load: {d:?}"))
}

#[test]
fn render_by_item_equals_whole_file() {
    let api = api();
    let mut rust_files = 0;
    // In job order: a gathering job's data is ready once the jobs before it have run.
    for job in zekit_codegen::generate_jobs(&api).unwrap() {
        let name = job.name.clone();
        for (path, out) in job.build().unwrap_or_else(|e| panic!("{name}: {e}")) {
            let Output::Rust(tokens) = out else { continue };
            let by_item = render(&path, tokens.clone()).unwrap();
            let whole = render_whole_file(&path, tokens).unwrap();
            assert!(by_item == whole, "{path}: rendering item by item differs from the whole file");
            rust_files += 1;
        }
    }
    assert!(rust_files >= 17, "only {rust_files} Rust files");
}

#[test]
fn items_are_cut_where_they_end() {
    let tokens: proc_macro2::TokenStream = r#"
        #![doc = " inner"]
        use a::b;
        /// S
        pub struct S { x: u8 }
        pub const C: S = S { x: 1 };
        impl S { fn f(&self) -> [u8; 2] { [0; 2] } }
        #[derive(Debug)] struct T(u8);
        macro_rules! m { () => {}; }
        m!();
        unsafe extern "C" fn g() {}
        const D: u32 = { 1 } + 2;
    "#
    .parse()
    .unwrap();
    let by_item = render("t.rs", tokens.clone()).unwrap();
    assert_eq!(by_item, render_whole_file("t.rs", tokens).unwrap());
    assert!(by_item.contains("pub const C: S = S { x: 1 };\n"), "{by_item}");
}
