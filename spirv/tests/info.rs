//! The kernel-info query (`check`): what the mock driver reads from a module. Runs with and
//! without the `jit` feature (`cargo test -p zekit-spirv --no-default-features --test info`).

use std::collections::HashMap;

use zekit_spirv::{check, AddressSpace, ArgKind};

fn load(name: &str) -> Vec<u8> {
    std::fs::read(format!("{}/kernels/{name}.spv", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

#[test]
fn vector_add_reports_three_global_buffers() {
    let infos = check(&load("vector_add"), &HashMap::new()).unwrap();
    assert_eq!(infos.len(), 1);
    let k = &infos[0];
    assert_eq!(k.name, "vector_add");
    assert_eq!(k.args.len(), 3);
    for a in &k.args {
        assert_eq!(
            (a.kind, a.size, a.space),
            (ArgKind::Buffer, 8, AddressSpace::Global)
        );
    }
    assert_eq!(k.reqd_work_group_size, None);
    assert!(!k.barriers);
}

#[test]
fn required_group_size_local_arguments_and_structs() {
    let reqd = check(&load("reqd"), &HashMap::new()).unwrap();
    assert_eq!(reqd[0].reqd_work_group_size, Some([8, 2, 1]));
    let reduce = check(&load("reduce"), &HashMap::new()).unwrap();
    let kinds: Vec<ArgKind> = reduce[0].args.iter().map(|a| a.kind).collect();
    assert_eq!(
        kinds,
        [
            ArgKind::Buffer,
            ArgKind::Buffer,
            ArgKind::Local,
            ArgKind::Buffer
        ]
    );
    assert!(reduce[0].barriers);
    let s = check(&load("struct_arg"), &HashMap::new()).unwrap();
    assert_eq!(s[0].args[0].kind, ArgKind::ByValue);
    assert_eq!(s[0].args[0].size, 24);
}

#[test]
fn malformed_input_is_an_invalid_error() {
    let e = check(&[1, 2, 3, 4, 5], &HashMap::new()).unwrap_err();
    assert!(e.is_invalid(), "{e}");
    let mut b = load("vector_add");
    b.truncate(b.len() / 2);
    assert!(check(&b, &HashMap::new()).is_err());
}

#[test]
fn inspect_reports_exported_globals_with_their_initial_bytes() {
    let m = zekit_spirv::inspect(&load("globals"), &HashMap::new()).unwrap();
    let (_, off, size) = m.globals.iter().find(|g| g.0 == "table").unwrap().clone();
    assert_eq!(size, 16);
    let bytes = &m.data[off as usize..(off + size) as usize];
    let ints: Vec<i32> = bytes
        .chunks(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(ints, [1, 2, 3, 4]);
}
