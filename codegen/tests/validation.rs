//! The validation emitter (`codegen/src/emit_validate.rs`) on the real spec: every function has
//! a table entry in the generated test, every spec condition translates, and translations
//! follow C (conversions, null guards, constants). `generated/zekit-icd/tests/validation.rs`
//! itself runs the generated cases (`cargo test -p zekit-icd`).

use std::path::{Path, PathBuf};

use zekit_codegen::emit_validate::{condition_rust, test_summary, try_emit_tests};
use zekit_codegen::load::NAMESPACES;
use zekit_codegen::spec::Function;
use zekit_codegen::Api;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn api() -> Api {
    zekit_codegen::load_api(&root().join("spec")).unwrap_or_else(|d| panic!("spec does not load: {d:?}"))
}

fn functions(api: &Api) -> Vec<Function> {
    NAMESPACES.iter().flat_map(|ns| api.functions(ns).map(|(_, f)| f.clone())).collect()
}

fn function(api: &Api, name: &str) -> Function {
    functions(api).into_iter().find(|f| f.name == name).unwrap_or_else(|| panic!("no function {name}"))
}

#[track_caller]
fn assert_translates(api: &Api, func: &str, when: &str, rust: &str) {
    let got = condition_rust(api, &function(api, func), when).unwrap_or_else(|e| panic!("{func}: `{when}`: {e}"));
    assert_eq!(got, rust, "{func}: `{when}`");
}

#[test]
fn every_function_is_in_the_generated_test() {
    let api = api();
    let (tokens, _, _, _) = try_emit_tests(&api).unwrap_or_else(|e| panic!("{e}"));
    let fresh = zekit_codegen::emit_rust::render("validation.rs", tokens).unwrap();
    let committed = std::fs::read_to_string(root().join("generated/zekit-icd/tests/validation.rs"))
        .expect("generated/zekit-icd/tests/validation.rs (run `cargo xtask gen`)");
    let funcs = functions(&api);
    assert!(funcs.len() >= 480, "only {} functions", funcs.len());
    let squash = |t: &str| t.split_whitespace().collect::<String>();
    for (what, text) in [("emitted", squash(&fresh)), ("committed", squash(&committed))] {
        let missing: Vec<&str> = funcs
            .iter()
            .map(|f| f.name.as_str())
            .filter(|n| {
                !(text.contains(&format!("(\"{n}\",t_{n}"))
                    && text.contains(&format!("unsafefnt_{n}("))
                    && text.contains(&format!("validate::{n}(")))
            })
            .collect();
        assert!(missing.is_empty(), "{what} test file lacks {} functions: {missing:?}", missing.len());
    }
    let (nf, cases, notes) = test_summary(&api).unwrap();
    eprintln!("generated validation test: {nf} functions, {cases} cases; conditions without a case:");
    for n in &notes {
        eprintln!("  {n}");
    }
    assert_eq!(nf, funcs.len());
    // Every function has the valid case, and most have several.
    assert!(cases >= 4 * nf, "{cases} cases for {nf} functions");
}

#[test]
fn every_spec_condition_translates() {
    let api = api();
    let mut n = 0;
    for f in functions(&api) {
        for r in &f.returns {
            for w in &r.when {
                condition_rust(&api, &f, w).unwrap_or_else(|e| panic!("{e}"));
                n += 1;
            }
        }
    }
    assert!(n >= 50, "only {n} conditions");
}

#[test]
fn translations_follow_c() {
    let api = api();
    // Literals take the other operand's type (usual arithmetic conversions).
    assert_translates(&api, "zeMemAllocDevice", "0 == size", "0usize == size");
    assert_translates(
        &api,
        "zeMemAllocDevice",
        "0 != (alignment & (alignment - 1))",
        "0usize != (alignment & alignment.wrapping_sub(1usize))",
    );
    // `x % 0` does not trap.
    assert_translates(
        &api,
        "zeCommandListAppendMemoryFill",
        "size % pattern_size != 0",
        "size.checked_rem(pattern_size).unwrap_or(size) != 0usize",
    );
    assert_translates(
        &api,
        "zeCommandListAppendBarrier",
        "(nullptr == phWaitEvents) && (0 < numWaitEvents)",
        "phWaitEvents.is_null() && (0u32 < numWaitEvents)",
    );
    // `desc` is non-optional: rule 2 already guarantees it, no guard.
    assert_translates(&api, "zeEventPoolCreate", "0 == desc->count", "0u32 == (*desc).count");
    assert_translates(&api, "zeKernelCreate", "nullptr == desc->pKernelName", "(*desc).pKernelName.is_null()");
    // `-1` converted to `uint32_t` is 0xffffffff, as in C.
    assert_translates(&api, "zeEventPoolCreate", "-1 < numDevices", "4294967295u32 < numDevices");
    assert_translates(&api, "zeEventPoolCreate", "numDevices + 1 > 2", "numDevices.wrapping_add(1u32) > 2u32");
    // Constants: macros, enumerators, sizeof.
    assert_translates(&api, "zeEventPoolCreate", "numDevices == ZE_BIT(3)", "numDevices == 8u32");
    assert_translates(&api, "zeEventPoolCreate", "numDevices == ZE_EVENT_POOL_FLAG_IPC", "numDevices == 2u32");
    let size = api.layouts["ze_device_mem_alloc_desc_t"].size;
    assert_translates(
        &api,
        "zeMemAllocDevice",
        "size < sizeof(ze_device_mem_alloc_desc_t)",
        &format!("size < {size}usize"),
    );
    // Enum members read through the newtype.
    assert_translates(
        &api,
        "zeCommandQueueCreate",
        "desc->mode == ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS",
        "(*desc).mode.0 == 2u32",
    );
    assert_translates(&api, "zeCommandQueueCreate", "!(desc->flags & 1)", "!(((*desc).flags.0 & 1u32) != 0)");
}

#[test]
fn dereferences_of_unchecked_pointers_are_guarded() {
    let api = api();
    // `pCount` is non-optional in the spec: no guard.
    assert_translates(&api, "zeDeviceGet", "0 == *pCount", "0u32 == (*pCount)");
    // Made optional, a null `pCount` makes the condition false.
    let mut f = function(&api, "zeDeviceGet");
    f.params.iter_mut().find(|p| p.name == "pCount").unwrap().optional = true;
    assert_eq!(condition_rust(&api, &f, "0 == *pCount").unwrap(), "!pCount.is_null() && 0u32 == (*pCount)");
    // A non-optional `[range]` pointer may be null while its count is 0: guarded too.
    assert_translates(
        &api,
        "zeCommandListAppendMemoryRangesBarrier",
        "0 == *pRangeSizes",
        "!pRangeSizes.is_null() && 0usize == (*pRangeSizes)",
    );
    // Only integers can be read through `*`.
    assert_eq!(
        condition_rust(&api, &function(&api, "zeEventPoolCreate"), "0 == *phDevices").unwrap_err(),
        "zeEventPoolCreate: condition `0 == *phDevices`: `*phDevices` is not an integer"
    );
}

#[test]
fn untranslatable_conditions_fail_with_a_clear_message() {
    let api = api();
    let f = function(&api, "zeEventPoolCreate");
    let err = |w: &str| condition_rust(&api, &f, w).unwrap_err();
    assert_eq!(
        err("phDevices[0] == 0"),
        "zeEventPoolCreate: condition `phDevices[0] == 0`: cannot translate `phDevices[0]`: indexing is not supported"
    );
    assert_eq!(
        err("0 == numDevicez"),
        "zeEventPoolCreate: condition `0 == numDevicez`: cannot translate `numDevicez`: neither a parameter nor a known constant"
    );
    assert_eq!(
        err("phDevices == phEventPool"),
        "zeEventPoolCreate: condition `phDevices == phEventPool`: cannot translate `phDevices == phEventPool`: pointers may only be compared with nullptr"
    );
    assert_eq!(
        err("desc->nope == 0"),
        "zeEventPoolCreate: condition `desc->nope == 0`: `ze_event_pool_desc_t` has no member `nope`"
    );
    // The generator refuses such a spec.
    let mut api2 = api.clone();
    for file in &mut api2.loaded.files {
        for d in &mut file.docs {
            if let zekit_codegen::spec::Entry::Function(g) = &mut d.entry {
                if g.name == "zeEventPoolCreate" {
                    g.returns[0].when.push("phDevices[0] == 0".into());
                }
            }
        }
    }
    let e = try_emit_tests(&api2).map(|_| ()).expect_err("generation must fail");
    assert!(e.contains("zeEventPoolCreate") && e.contains("indexing is not supported"), "{e}");
    let e = zekit_codegen::emit_validate::try_emit(&api2).map(|_| ()).expect_err("generation must fail");
    assert!(e.contains("phDevices[0] == 0"), "{e}");
}

/// Rule 6 on the chains the spec gives extensions (`extends`): for every parameter heading one
/// (a struct pointer, or a function's own `pNext`), the committed generated test has an allowed
/// extension accepted, a misplaced known structure rejected (alone and behind an unknown
/// link), and an unknown structure type skipped.
#[test]
fn every_extended_chain_has_its_cases() {
    use zekit_codegen::model::CType;
    let api = api();
    let committed = std::fs::read_to_string(root().join("generated/zekit-icd/tests/validation.rs")).unwrap();
    let chains = api.chains();
    let mut checked = 0;
    for f in functions(&api) {
        let start = committed.find(&format!("unsafe fn t_{}(", f.name)).unwrap();
        let end = committed[start + 1..].find("unsafe fn t_").map_or(committed.len(), |e| start + 1 + e);
        let body = &committed[start..end];
        for p in &f.params {
            let t = CType::parse(&p.ty);
            let (head, arrow) = if p.name == "pNext" && t.base == "void" {
                (f.name.clone(), format!("{} ->", p.name))
            } else if t.ptrs.len() == 1 && p.range.is_none() {
                // (`[range]` arrays are not validated element by element.)
                (t.base.clone(), format!("{}->pNext ->", p.name))
            } else {
                continue;
            };
            let Some(h) = chains.head(&head).filter(|h| !h.extensions.is_empty()) else { continue };
            let first = &h.extensions[0];
            for label in [
                format!("\"{arrow} {first} (extends it)\""),
                "(known, not allowed here)\"".to_string(),
                format!("\"{arrow} unknown stype -> "),
                format!("\"{arrow} unknown stype 0x7ffffffe (skipped)\""),
            ] {
                assert!(body.contains(&label), "{}: no case {label}", f.name);
            }
            checked += 1;
        }
    }
    assert!(checked >= 30, "only {checked} parameters head a chain with extensions");
}
