//! insta snapshots of the C emitter on the small fixture spec (tests/fixtures/mini).

use std::path::Path;

#[test]
fn c_headers_of_the_mini_fixture() {
    let api = zekit_codegen::load_api(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mini")).unwrap();
    for (name, text) in zekit_codegen::emit_c::emit(&api, "tests/fixtures/mini").unwrap() {
        insta::assert_snapshot!(name, text);
    }
}
