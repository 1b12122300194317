//! The spec linter (codegen/src/lint.rs) and the condition parser (codegen/src/expr.rs).
//!
//! Each rule has a failing fixture under `tests/fixtures/lint/<rule>/` (a complete tiny spec
//! folder) whose diagnostics are pinned exactly; `allowed/` exercises every exemption and must
//! lint clean, like the real spec.

use std::path::{Path, PathBuf};

use zekit_codegen::expr::{self, BinOp, Expr, UnOp};
use zekit_codegen::lint::{lint, undocumented};
use zekit_codegen::spec::Entry;

fn spec_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec")
}

/// Loads and lints `tests/fixtures/lint/<name>/`; loader errors count as diagnostics.
fn lint_fixture(name: &str) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/lint").join(name);
    let diags = match zekit_codegen::load_api(&root) {
        Ok(api) => lint(&api),
        Err(d) => d,
    };
    diags.iter().map(|d| d.to_string()).collect()
}

#[track_caller]
fn assert_diags(fixture: &str, expected: &[&str]) {
    let got = lint_fixture(fixture);
    assert_eq!(got, expected, "\nfixture {fixture}:\n{}\n", got.join("\n"));
}

// ---------------------------------------------------------------------------------------------
// The real spec

#[test]
fn real_spec_describes_every_item() {
    let api = zekit_codegen::load_api(&spec_root()).expect("spec loads");
    let diags: Vec<String> = undocumented(&api).iter().map(|d| d.to_string()).collect();
    assert!(diags.is_empty(), "{} items without a description:\n{}", diags.len(), diags.join("\n"));
}

#[test]
fn real_spec_lints_clean() {
    let api = zekit_codegen::load_api(&spec_root()).expect("spec loads");
    let diags: Vec<String> = lint(&api).iter().map(|d| d.to_string()).collect();
    assert!(diags.is_empty(), "{} lint errors:\n{}", diags.len(), diags.join("\n"));
}

/// Every code condition (and every expression range bound) of the real spec parses, prints
/// back, and parses again to the same tree.
#[test]
fn real_spec_expressions_round_trip() {
    let api = zekit_codegen::load_api(&spec_root()).expect("spec loads");
    let mut exprs = vec![];
    for f in &api.loaded.files {
        for d in &f.docs {
            let (fields, returns) = match &d.entry {
                Entry::Function(func) => (&func.params, &func.returns[..]),
                Entry::Struct(s) | Entry::Union(s) => (&s.members, &[][..]),
                Entry::Callback(cb) => (&cb.params, &[][..]),
                _ => continue,
            };
            for r in returns {
                exprs.extend(r.when.iter().map(|w| (d.loc.to_string(), w.clone())));
            }
            for field in fields {
                for b in field.range.iter().flat_map(|(a, b)| [a, b]) {
                    let b = b.trim_matches('`');
                    if b.parse::<f64>().is_err() {
                        exprs.push((d.loc.to_string(), b.to_string()));
                    }
                }
            }
        }
    }
    let conditions = api
        .loaded
        .files
        .iter()
        .flat_map(|f| &f.docs)
        .filter_map(|d| match &d.entry {
            Entry::Function(f) => Some(f.returns.iter().map(|r| r.when.len()).sum::<usize>()),
            _ => None,
        })
        .sum::<usize>();
    assert!(conditions >= 40, "only {conditions} code conditions in the spec");
    for (loc, text) in &exprs {
        let e = expr::parse(text).unwrap_or_else(|err| panic!("{loc}: `{text}`: {err}"));
        let printed = e.to_string();
        let again = expr::parse(&printed).unwrap_or_else(|err| panic!("{loc}: `{text}` printed as `{printed}`: {err}"));
        assert_eq!(e, again, "{loc}: `{text}` printed as `{printed}`");
    }
}

// ---------------------------------------------------------------------------------------------
// One failing fixture per rule

#[test]
fn dangling_type() {
    assert_diags(
        "dangling-type",
        &[
            "ze/bad.yml:12: error[dangling-type]: handle `zet_device_handle_t` is an alias of `ze_gadget_handle_t`, which is not a handle declared in the spec",
            "ze/bad.yml:16: error[dangling-type]: typedef `ze_size_alias_t` names `ze_sizes_t`: `ze_sizes_t` is neither a scalar nor declared in the spec",
            "ze/bad.yml:20: error[dangling-type]: struct `ze_thing_t` has base `ze_base_thing_t`, which is not a struct declared in the spec",
            "ze/bad.yml:24: error[dangling-type]: member `pOther` of `ze_thing_t` has type `const ze_missing_t*`: `ze_missing_t` is neither a scalar nor declared in the spec",
            "ze/bad.yml:29: error[dangling-type]: callback `ze_thing_callback_t` returns `ze_outcome_t`: `ze_outcome_t` is neither a scalar nor declared in the spec",
            "ze/bad.yml:41: error[dangling-type]: parameter `pThing` of `zeThingGet` has type `zeThingGet*`: `zeThingGet` is a function, not a type",
        ],
    );
}

#[test]
fn duplicate_name() {
    assert_diags(
        "duplicate-name",
        &[
            "ze/a.yml:20: error[duplicate-name]: member `x` of `ze_point_t` appears twice (first at ze/a.yml:16)",
            "ze/b.yml:6: error[duplicate-name]: macro `ZE_COLOR_RED` repeats the name of enumerator `ZE_COLOR_RED` of `ze_color_t` (ze/a.yml:8)",
            "ze/b.yml:14: error[duplicate-name]: enumerator `ZE_COLOR_GREEN` of `ze_light_t` repeats the name of enumerator `ZE_COLOR_GREEN` of `ze_color_t` (ze/a.yml:10)",
            "ze/b.yml:18: error[duplicate-name]: struct `ze_point_t` repeats the name of struct `ze_point_t` (ze/a.yml:14)",
        ],
    );
}

#[test]
fn duplicate_value() {
    // ZE_MODE_FAST is the `_EXP` twin of ZE_MODE_FAST_EXP but not newer, so not an alias.
    assert_diags(
        "duplicate-value",
        &[
            "ze/bad.yml:12: error[duplicate-value]: enumerator `ZE_COLOR_BLUE` of `ze_color_t` repeats the value 1 of `ZE_COLOR_GREEN` (ze/bad.yml:10)",
            "ze/bad.yml:22: error[duplicate-value]: enumerator `ZE_THING_FLAG_C` of `ze_thing_flags_t` repeats the bit 1 of `ZE_THING_FLAG_B` (ze/bad.yml:20)",
            "ze/bad.yml:31: error[duplicate-value]: enumerator `ZE_MODE_FAST` of `ze_mode_t` repeats the value 0 of `ZE_MODE_FAST_EXP` (ze/bad.yml:29)",
        ],
    );
}

#[test]
fn in_after_out() {
    assert_diags(
        "in-after-out",
        &["ze/bad.yml:22: error[in-after-out]: parameter `flags` of `zeDeviceGetThing` is `dir: in` but follows the `dir: out` parameter `pThing`"],
    );
}

#[test]
fn version_backwards() {
    assert_diags(
        "version-backwards",
        &[
            "ze/bad.yml:11: error[version-backwards]: member `b` (since 1.1) is older than its struct `ze_thing_t` (since 1.2)",
            "ze/bad.yml:17: error[version-backwards]: member `d` of `ze_thing_t` (since 1.9) follows `c` (since 1.10): members are appended in version order",
            "ze/bad.yml:25: error[version-backwards]: enumerator `ZE_COLOR_RED` (since 1.0) is older than its enum `ze_color_t` (since 1.3)",
        ],
    );
}

#[test]
fn missing_base() {
    assert_diags(
        "missing-base",
        &[
            "ze/bad.yml:14: error[missing-base]: struct `ze_thing_desc_t` is a `*_desc_t` without a base; it needs one ending in `base_desc_t`",
            "ze/bad.yml:20: error[missing-base]: struct `ze_thing_properties_t` is a `*_properties_t` but its base `ze_base_desc_t` does not lead to a `*base_properties_t`",
        ],
    );
}

#[test]
fn first_param_handle() {
    assert_diags(
        "first-param-handle",
        &[
            "ze/bad.yml:13: error[first-param-handle]: non-static function `zeDeviceGetCount` must take a handle first, but its first parameter `count` has type `uint32_t`",
            "ze/bad.yml:18: error[first-param-handle]: non-static function `zeDeviceGetNone` has no parameters; its first must be a handle",
            "ze/bad.yml:26: error[first-param-handle]: non-static function `zeDeviceGetOther` must take a handle first, but its first parameter `phDevice` has type `ze_device_handle_t*`",
        ],
    );
}

#[test]
fn bad_condition() {
    assert_diags(
        "bad-condition",
        &[
            "ze/bad.yml:22: error[bad-condition]: condition `0 == (size` of `ZE_RESULT_ERROR_INVALID_SIZE` in `zeDeviceFill` does not parse: column 11: expected `)`, found end of input",
            "ze/bad.yml:23: error[bad-condition]: condition `0 == sizee` of `ZE_RESULT_ERROR_INVALID_SIZE` references `sizee`, which is neither a parameter of `zeDeviceFill` nor an enumerator or macro",
            "ze/bad.yml:26: error[bad-condition]: condition `size > ZE_MAX_FILL || pad(size) != 0` of `ZE_RESULT_ERROR_UNSUPPORTED_SIZE` calls `pad`, which is neither `sizeof` nor a function-like macro",
            "ze/bad.yml:26: error[bad-condition]: condition `size > ZE_MAX_FILL || pad(size) != 0` of `ZE_RESULT_ERROR_UNSUPPORTED_SIZE` references `ZE_MAX_FILL`, which is neither a parameter of `zeDeviceFill` nor an enumerator or macro",
        ],
    );
}

#[test]
fn bad_range() {
    assert_diags(
        "bad-range",
        &[
            "ze/bad.yml:24: error[bad-range]: range bound `*pCnt` of `pThings` references `pCnt`, which is not a parameter of `zeDeviceGetThings`",
            "ze/bad.yml:29: error[bad-range]: range bound `0 +` of `pMore` in `zeDeviceGetThings` does not parse: column 4: expected an expression, found end of input",
            "ze/bad.yml:31: error[bad-range]: count `numMore` of `pMore` references `numMore`, which is not a parameter of `zeDeviceGetThings`",
        ],
    );
}

#[test]
fn bad_version() {
    assert_diags(
        "bad-version",
        &[
            "ze/bad.yml:7: error[bad-version]: since `1.2.3` of struct `ze_thing_t` is not `major.minor`",
            "ze/bad.yml:9: error[bad-version]: since `v1` of member `a` of `ze_thing_t` is not `major.minor`",
            "ze/bad.yml:16: error[bad-version]: since `2` of enumerator `ZE_COLOR_RED` is not `major.minor`",
        ],
    );
}

#[test]
fn bad_extends() {
    assert_diags(
        "bad-extends",
        &[
            "ze/bad.yml:53: error[bad-extends]: struct `ze_thing_ext_desc_t` extends `ze_thing_dsec_t`: `ze_thing_dsec_t` is neither a struct nor a function declared in the spec",
            "ze/bad.yml:54: error[bad-extends]: struct `ze_thing_ext_desc_t` extends `ze_point_t`: `ze_point_t` has no `pNext` member",
            "ze/bad.yml:55: error[bad-extends]: struct `ze_thing_ext_desc_t` extends `zeDeviceDoThing`: function `zeDeviceDoThing` has no `pNext` parameter",
            "ze/bad.yml:56: error[bad-extends]: struct `ze_thing_ext_desc_t` extends `ze_device_handle_t`: `ze_device_handle_t` is a handle, not a struct or function",
            "ze/bad.yml:63: error[bad-extends]: struct `ze_plain_t` lists `extends` but has no `pNext` member to continue a chain with",
            "ze/bad.yml:63: error[bad-extends]: struct `ze_plain_t` lists `extends` but has no structure type (`stype`) to be recognised in a chain by",
        ],
    );
}

#[test]
fn unknown_key() {
    assert_diags(
        "unknown-key",
        &["ze/bad.yml:10: error[unknown-key]: unknown field `optinal`, expected one of `name`, `type`, `array`, `dir`, `optional`, `range`, `release`, `mbz`, `or_all_ones`, `count`, `deprecated`, `init`, `since`, `doc`"],
    );
}

#[test]
fn unknown_kind() {
    assert_diags(
        "unknown-kind",
        &["ze/bad.yml:5: error[unknown-kind]: kind: unknown variant `structure`, expected one of `file`, `macro`, `typedef`, `handle`, `class`, `enum`, `flags`, `struct`, `union`, `function`, `callback`, `env`, `default_struct`"],
    );
}

/// Every exemption the real spec needs, in one clean fixture: conditional macro definitions,
/// `legacy` / `*_CURRENT` / `_EXP` twin / stype rename / namespace-stutter aliases, a desc based
/// on a desc, a base-less `*_properties_t` used only as a ranged array, Markdown-quoted and
/// floating-point range bounds, a struct range counted by its filling function's parameter,
/// the generated `ze_callbacks_t`, a handle-less function of the global class `ze`, and a struct
/// that `extends` another and itself.
#[test]
fn allowed_exemptions_lint_clean() {
    assert_diags("allowed", &[]);
}

// ---------------------------------------------------------------------------------------------
// expr.rs

fn id(n: &str) -> Box<Expr> {
    Box::new(Expr::Ident(n.into()))
}

fn bin(op: BinOp, a: Box<Expr>, b: Box<Expr>) -> Box<Expr> {
    Box::new(Expr::Binary(op, a, b))
}

#[test]
fn expr_parses_the_spec_forms() {
    let p: fn(&str) -> Expr = |s| expr::parse(s).unwrap_or_else(|e| panic!("`{s}`: {e}"));
    assert_eq!(p("nullptr == hDevice"), *bin(BinOp::Eq, Box::new(Expr::Null), id("hDevice")));
    assert_eq!(
        p("(nullptr == phWaitEvents) && (0 < numWaitEvents)"),
        *bin(
            BinOp::And,
            bin(BinOp::Eq, Box::new(Expr::Null), id("phWaitEvents")),
            bin(BinOp::Lt, Box::new(Expr::Int(0)), id("numWaitEvents"))
        )
    );
    assert_eq!(
        p("0 != (alignment & (alignment - 1))"),
        *bin(
            BinOp::Ne,
            Box::new(Expr::Int(0)),
            bin(BinOp::BitAnd, id("alignment"), bin(BinOp::Sub, id("alignment"), Box::new(Expr::Int(1))))
        )
    );
    assert_eq!(
        p("size % pattern_size != 0"),
        *bin(BinOp::Ne, bin(BinOp::Rem, id("size"), id("pattern_size")), Box::new(Expr::Int(0)))
    );
    assert_eq!(
        p("nullptr == desc->pKernelName"),
        *bin(BinOp::Eq, Box::new(Expr::Null), Box::new(Expr::Member(id("desc"), "pKernelName".into(), true)))
    );
    assert_eq!(p("ZE_X_FLAGS_MASK < flags"), *bin(BinOp::Lt, id("ZE_X_FLAGS_MASK"), id("flags")));
    assert_eq!(p("!x"), Expr::Unary(UnOp::Not, id("x")));
    assert_eq!(p("*pCount"), Expr::Unary(UnOp::Deref, id("pCount")));
    assert_eq!(p("a[0]"), Expr::Index(id("a"), Box::new(Expr::Int(0))));
    assert_eq!(p("a.b"), Expr::Member(id("a"), "b".into(), false));
    assert_eq!(p("sizeof(x)"), Expr::Call("sizeof".into(), vec![Expr::Ident("x".into())]));
    assert_eq!(p("0x10u + 010"), *bin(BinOp::Add, Box::new(Expr::Int(16)), Box::new(Expr::Int(8))));
    assert_eq!(p("NULL"), Expr::Null);
    // Precedence and associativity.
    assert_eq!(p("a + b * c"), *bin(BinOp::Add, id("a"), bin(BinOp::Mul, id("b"), id("c"))));
    assert_eq!(p("a - b - c"), *bin(BinOp::Sub, bin(BinOp::Sub, id("a"), id("b")), id("c")));
    assert_eq!(p("a || b && c"), *bin(BinOp::Or, id("a"), bin(BinOp::And, id("b"), id("c"))));
    assert_eq!(p("*p->x"), Expr::Unary(UnOp::Deref, Box::new(Expr::Member(id("p"), "x".into(), true))));
    assert_eq!(p("-a * b"), *bin(BinOp::Mul, Box::new(Expr::Unary(UnOp::Neg, id("a"))), id("b")));
}

#[test]
fn expr_prints_canonical_c() {
    for (src, canon) in [
        ("(nullptr == phWaitEvents) && (0 < numWaitEvents)", "(nullptr == phWaitEvents) && (0 < numWaitEvents)"),
        ("nullptr==phWaitEvents&&0<numWaitEvents", "(nullptr == phWaitEvents) && (0 < numWaitEvents)"),
        ("0 != (alignment & (alignment - 1))", "0 != (alignment & (alignment - 1))"),
        ("size % pattern_size != 0", "size % pattern_size != 0"),
        ("((a))", "a"),
        ("a - (b - c)", "a - (b - c)"),
        ("(a - b) - c", "a - b - c"),
        ("a || b && c", "a || (b && c)"),
        ("a && b && c", "a && b && c"),
        ("(*p)->x", "(*p)->x"),
        ("(*pp)[i + 1].y", "(*pp)[i + 1].y"),
        ("- -x", "-(-x)"),
        ("!(a == b)", "!(a == b)"),
        ("ZE_BIT( 3 ) | x", "ZE_BIT(3) | x"),
        ("sizeof(ze_foo_t)<size", "sizeof(ze_foo_t) < size"),
        ("NULL != p", "nullptr != p"),
    ] {
        let e = expr::parse(src).unwrap_or_else(|err| panic!("`{src}`: {err}"));
        assert_eq!(e.to_string(), canon, "`{src}`");
        assert_eq!(expr::parse(canon).unwrap(), e, "`{canon}` parses back");
    }
}

#[test]
fn expr_errors_name_the_column() {
    for (src, err) in [
        ("0 == (size", "column 11: expected `)`, found end of input"),
        ("a $ b", "column 3: unexpected character `$`"),
        ("a b", "column 3: expected an operator or end of input, found `b`"),
        ("0.5 < x", "column 1: floating-point literals are not supported"),
        ("a. 3", "column 4: expected a member name, found `3`"),
        ("(a)(b)", "column 4: expected an operator (only a name can be called), found `(`"),
        ("x == 99999999999999999999", "column 6: invalid integer literal `99999999999999999999`"),
        ("x == 0xffffffffffffffff", "column 6: integer literal `0xffffffffffffffff` does not fit in 64-bit signed"),
        ("", "column 1: expected an expression, found end of input"),
        ("a ? b : c", "column 3: the conditional operator `?:` is not supported"),
    ] {
        assert_eq!(expr::parse(src), Err(err.to_string()), "`{src}`");
    }
}

#[test]
fn expr_idents_are_the_roots() {
    let e = expr::parse("(nullptr == desc->pKernelName) && (0 < n[i].count) && sizeof(desc) < ZE_BIT(k) && n").unwrap();
    assert_eq!(e.idents(), ["desc", "n", "i", "k"]);
    assert_eq!(e.calls(), ["sizeof", "ZE_BIT"]);
}

// ---------------------------------------------------------------------------------------------
// missing-doc (its own pass: the other fixtures carry no descriptions)

#[test]
fn missing_doc_names_every_undescribed_item() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/lint/missing-doc");
    let api = zekit_codegen::load_api(&root).expect("fixture loads");
    let other: Vec<String> = lint(&api).iter().map(|d| d.to_string()).collect();
    assert!(other.is_empty(), "the fixture is otherwise clean: {other:?}");
    let got: Vec<String> = undocumented(&api).iter().map(|d| d.to_string()).collect();
    let expected = [
        "ze/docs.yml:1: error[missing-doc]: file `docs` has no description",
        "ze/docs.yml:17: error[missing-doc]: enumerator `ZE_THING_TWO` of `ze_thing_t` has no description",
        "ze/docs.yml:21: error[missing-doc]: struct `ze_thing_spec_t` has no description",
        "ze/docs.yml:28: error[missing-doc]: member `count` of `ze_thing_spec_t` has no description",
        "ze/docs.yml:33: error[missing-doc]: function `zeDeviceMakeThing` has no description",
        "ze/docs.yml:40: error[missing-doc]: parameter `desc` of `zeDeviceMakeThing` has no description",
    ];
    assert_eq!(got, expected, "\n{}\n", got.join("\n"));
}
