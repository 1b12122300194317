//! Snapshot of the full spec: what `cargo xtask gen` works from (items per namespace
//! and kind, every DDI table and its size). A change to spec/ shows up here for review.

use std::path::Path;

#[test]
fn full_spec_summary() {
    let api = zekit_codegen::load_api(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec")).unwrap();
    insta::assert_snapshot!(zekit_codegen::summary(&api));
}
