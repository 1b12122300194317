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

#[test]
fn size_hints_and_vector_type_hints() {
    let infos = check(&load("attrs"), &HashMap::new()).unwrap();
    let get = |n: &str| infos.iter().find(|k| k.name == n).unwrap();
    let all = get("attrs_all");
    assert_eq!(all.reqd_work_group_size, Some([8, 1, 1]));
    assert_eq!(all.work_group_size_hint, Some([16, 1, 1]));
    assert_eq!(all.vec_type_hint.as_deref(), Some("float4"));
    let hint = get("attrs_hint");
    assert_eq!(hint.reqd_work_group_size, None);
    assert_eq!(hint.work_group_size_hint, Some([4, 2, 1]));
    assert_eq!(hint.vec_type_hint, None);
    // VecTypeHint keeps no signedness: `uint` is `int`.
    for (n, t) in [
        ("attrs_uint", "int"),
        ("attrs_double2", "double2"),
        ("attrs_char16", "char16"),
    ] {
        assert_eq!(get(n).vec_type_hint.as_deref(), Some(t), "{n}");
        assert_eq!(get(n).work_group_size_hint, None, "{n}");
    }
    let none = get("attrs_none");
    assert_eq!(
        (
            none.reqd_work_group_size,
            none.work_group_size_hint,
            none.vec_type_hint.clone()
        ),
        (None, None, None)
    );
}

/// The words of `attrs.spv` with the VecTypeHint literal of the first such mode replaced.
fn with_vec_type_hint(lit: u32) -> Vec<u8> {
    let b = load("attrs");
    let mut w: Vec<u32> = b
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let mut i = 5;
    loop {
        let (n, op) = ((w[i] >> 16) as usize, w[i] & 0xffff);
        if op == 16 && w[i + 2] == 30 {
            w[i + 3] = lit;
            break;
        }
        i += n;
    }
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn vector_type_hints_decode_every_type_and_refuse_bad_literals() {
    for (lit, want) in [
        (0, "char"),
        (1, "short"),
        (2 | 3 << 16, "int3"),
        (3 | 8 << 16, "long8"),
        (4 | 16 << 16, "half16"),
        (5 | 1 << 16, "float"),
        (6 | 4 << 16, "double4"),
    ] {
        let infos = check(&with_vec_type_hint(lit), &HashMap::new()).unwrap();
        assert_eq!(infos[0].vec_type_hint.as_deref(), Some(want), "{lit:#x}");
    }
    for lit in [7, 0xffff, 5 | 5 << 16, 2 | 32 << 16] {
        let e = check(&with_vec_type_hint(lit), &HashMap::new()).unwrap_err();
        assert!(e.is_invalid(), "{e}");
        assert!(e.to_string().contains("VecTypeHint"), "{e}");
    }
}

#[test]
fn kernels_that_leave_no_trace_say_so() {
    // An empty body, and one that only loads and computes: nothing to run.
    let empty = check(&load("bench/empty"), &HashMap::new()).unwrap();
    assert!(!empty[0].effects, "{:?}", empty[0]);
    let ks = check(&load("dpcpp/no_effects"), &HashMap::new()).unwrap();
    let by_name = |n: &str| ks.iter().find(|k| k.name == n).unwrap();
    assert!(!by_name("reads_only").effects);
    assert!(by_name("writes").effects);
    // Stores, atomics, printf and image accesses are seen.
    for module in ["vector_add", "atomics", "printf", "images"] {
        for k in check(&load(module), &HashMap::new()).unwrap() {
            assert!(k.effects, "{module}: {}", k.name);
        }
    }
}
