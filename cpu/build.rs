//! Builds the recovery points of `src/exec/fault.rs` (`csrc/fault.c`: `sigsetjmp` returns twice,
//! which Rust code cannot express).
fn main() {
    println!("cargo:rerun-if-changed=csrc/fault.c");
    cc::Build::new().file("csrc/fault.c").warnings(true).compile("zekit_fault");
}
