//! Scenario files: parsing, errors, applying to a script, the log file.

use std::path::{Path, PathBuf};

use zekit_mock::scenario::{parse_result, result_codes, ExpectRule, ResultRule, Scenario};
use zekit_mock::script::{Count, Script};
use zekit_sys::*;

const EXAMPLE: &str = r#"
profile: { device: { name: scenario gpu, deviceId: 0xabcd } }
results:
  - { function: zeMemAllocDevice, nth: 2, result: ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY }
  - { function: zeCommandQueueSynchronize, always: true, result: ZE_RESULT_ERROR_DEVICE_LOST }
  - { function: zeMemAllocHost, when: { size: "64" }, result: ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY }
  - { function: zeEventHostSynchronize, times: 2, result: 0x1 }
  - { function: zeFenceHostSynchronize, result: ERROR_DEVICE_LOST }
expect:
  - { function: zeCommandListClose, times: 1 }
  - { function: zeCommandListCreate, sequence: setup }
  - { function: zeCommandListDestroy, sequence: setup }
  - { function: zeMemFree, when: { ptr: 0 }, never: true }
  - { function: zeEventDestroy, at_least: 1, at_most: 2 }
"#;

fn tmpdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("zekit-mock-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn call(s: &Script, function: &'static str, args: &[(&str, &str)]) -> ze_result_t {
    let v: Vec<(String, String)> = args
        .iter()
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect();
    let render = move || v.clone();
    s.invoke(function, &render, || ZE_RESULT_SUCCESS)
}

#[test]
fn parses_the_documented_format() {
    let sc = Scenario::from_yaml(EXAMPLE).unwrap();
    let p = sc.profile.as_ref().unwrap();
    assert_eq!(p.device.name, "scenario gpu");
    assert_eq!(p.device.device_id, 0xabcd);
    assert_eq!(p.device.vendor_id, 0x8086, "overrides only");
    assert_eq!(
        sc.results[0],
        ResultRule {
            function: "zeMemAllocDevice".into(),
            count: Count::Nth(2),
            when: vec![],
            result: ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY,
        }
    );
    assert_eq!(sc.results[1].count, Count::Always);
    assert_eq!(sc.results[2].when, [("size".to_string(), "64".to_string())]);
    assert_eq!(sc.results[3].count, Count::Times(2));
    assert_eq!(sc.results[3].result, ZE_RESULT_NOT_READY);
    assert_eq!(sc.results[4].result, ZE_RESULT_ERROR_DEVICE_LOST);
    assert_eq!(
        sc.expect[0],
        ExpectRule {
            function: "zeCommandListClose".into(),
            min: 1,
            max: 1,
            when: vec![],
            sequence: None,
        }
    );
    assert_eq!(sc.expect[1].sequence.as_deref(), Some("setup"));
    assert_eq!((sc.expect[3].min, sc.expect[3].max), (0, 0));
    assert_eq!(sc.expect[3].when, [("ptr".to_string(), "0".to_string())]);
    assert_eq!((sc.expect[4].min, sc.expect[4].max), (1, 2));
    assert_eq!(sc.log, None);
}

#[test]
fn applied_scenario_drives_the_script() {
    let s = Script::new();
    Scenario::from_yaml(EXAMPLE).unwrap().apply(&s);
    assert_eq!(s.profile().device.name, "scenario gpu");

    assert_eq!(call(&s, "zeMemAllocDevice", &[]), ZE_RESULT_SUCCESS);
    assert_eq!(
        call(&s, "zeMemAllocDevice", &[]),
        ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY
    );
    assert_eq!(call(&s, "zeMemAllocDevice", &[]), ZE_RESULT_SUCCESS);
    for _ in 0..2 {
        assert_eq!(
            call(&s, "zeCommandQueueSynchronize", &[]),
            ZE_RESULT_ERROR_DEVICE_LOST
        );
    }
    assert_eq!(
        call(&s, "zeMemAllocHost", &[("size", "32")]),
        ZE_RESULT_SUCCESS
    );
    assert_eq!(
        call(&s, "zeMemAllocHost", &[("size", "64")]),
        ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY
    );
    assert_eq!(
        call(&s, "zeMemAllocHost", &[("size", "0x40")]),
        ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY,
        "numbers compare numerically"
    );
    assert_eq!(call(&s, "zeEventHostSynchronize", &[]), ZE_RESULT_NOT_READY);
    assert_eq!(call(&s, "zeEventHostSynchronize", &[]), ZE_RESULT_NOT_READY);
    assert_eq!(call(&s, "zeEventHostSynchronize", &[]), ZE_RESULT_SUCCESS);

    call(&s, "zeCommandListCreate", &[]);
    call(&s, "zeCommandListClose", &[]);
    call(&s, "zeMemFree", &[("ptr", "0x1000")]);
    call(&s, "zeEventDestroy", &[]);
    call(&s, "zeCommandListDestroy", &[]);
    assert_eq!(s.verify(), Ok(()));

    call(&s, "zeMemFree", &[("ptr", "0x0")]);
    let n = s.calls().last().unwrap().seq;
    assert_eq!(
        s.verify(),
        Err(vec![format!(
            "zeMemFree [ptr=0]: expected no calls, got call #{n}"
        )])
    );
}

#[test]
fn scenario_sequences_are_checked() {
    let s = Script::new();
    Scenario::from_yaml(
        "expect:\n  - { function: zeCommandListCreate, sequence: a }\n  - { function: zeCommandListClose, sequence: a }\n",
    )
    .unwrap()
    .apply(&s);
    call(&s, "zeCommandListClose", &[]);
    call(&s, "zeCommandListCreate", &[]);
    let errs = s.verify().unwrap_err();
    assert!(
        errs[0].starts_with(
            "sequence #1: expected zeCommandListCreate, got zeCommandListClose at call #1"
        ),
        "{errs:#?}"
    );
}

#[test]
fn parse_errors_name_the_problem() {
    let cases: &[(&str, &[&str])] = &[
        (
            "bogus: 1",
            &["scenario:", "unknown field `bogus`", "`results`"],
        ),
        (
            "results:\n  - { function: zeMemAllocDevice, nht: 2, result: 0x70000003 }",
            &["results[0]", "unknown field `nht`", "line 2"],
        ),
        (
            "expect:\n  - { function: zeCommandListClose, tmies: 1 }",
            &["expect[0]", "unknown field `tmies`"],
        ),
        (
            "profile: { device: { bogus: 1 } }",
            &["profile.device", "unknown field `bogus`", "line 1"],
        ),
        (
            "results: [ { function: zeMemAllocDevic, result: ERROR_DEVICE_LOST } ]",
            &[
                "results[0]",
                "unknown function `zeMemAllocDevic`",
                "did you mean `zeMemAllocDevice`?",
            ],
        ),
        (
            "results: [ { function: zeMemAllocDevice, result: ERROR_FOO } ]",
            &[
                "results[0] (zeMemAllocDevice)",
                "unknown result code `ERROR_FOO`",
            ],
        ),
        (
            "results: [ { function: zeMemAllocDevice, result: 0x100000000 } ]",
            &["not a 32-bit"],
        ),
        (
            "results: [ { function: zeMemAllocDevice } ]",
            &["missing field `result`"],
        ),
        (
            "results: [ { function: zeMemAllocDevice, nth: 0, result: 1 } ]",
            &["`nth` counts calls from 1"],
        ),
        (
            "results: [ { function: zeMemAllocDevice, nth: 1, times: 2, result: 1 } ]",
            &["only one of `nth`, `times`, `always`"],
        ),
        (
            "results: [ { function: zeMemAllocDevice, always: false, result: 1 } ]",
            &["`always: false` needs"],
        ),
        (
            "results: [ { function: zeMemAllocHost, when: { size: [1] }, result: 1 } ]",
            &["`when.size` must be a scalar"],
        ),
        (
            "expect: [ { function: zeCommandListClose, times: 1, never: true } ]",
            &["expect[0] (zeCommandListClose)", "not several"],
        ),
        (
            "expect: [ { function: zeCommandListClose, at_least: 3, at_most: 1 } ]",
            &["`at_least` (3) exceeds `at_most` (1)"],
        ),
        (
            "profile: 12",
            &[
                "profile",
                "mapping of profile overrides or a profile file path",
            ],
        ),
        ("results: {}", &["results", "invalid type"]),
        ("[1, 2]", &["scenario:"]),
    ];
    for (yaml, needles) in cases {
        let err = Scenario::from_yaml(yaml).expect_err(yaml);
        for n in *needles {
            assert!(err.contains(n), "{yaml:?}: {err:?} lacks {n:?}");
        }
    }
}

#[test]
fn empty_scenario_is_valid() {
    let sc = Scenario::from_yaml("# nothing\n").unwrap();
    assert!(sc.profile.is_none() && sc.results.is_empty() && sc.expect.is_empty());
    let sc = Scenario::from_yaml("results: []\nexpect: []\nprofile:\n").unwrap();
    assert!(sc.results.is_empty());
}

#[test]
fn result_codes_by_name_or_number() {
    assert_eq!(parse_result("ZE_RESULT_SUCCESS"), Ok(ZE_RESULT_SUCCESS));
    assert_eq!(
        parse_result("ERROR_DEVICE_LOST"),
        Ok(ZE_RESULT_ERROR_DEVICE_LOST)
    );
    assert_eq!(
        parse_result("ZE_RESULT_ERROR_UNKNOWN"),
        Ok(ZE_RESULT_ERROR_UNKNOWN)
    );
    assert_eq!(
        parse_result("0x70000003"),
        Ok(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY)
    );
    assert_eq!(parse_result("1"), Ok(ZE_RESULT_NOT_READY));
    assert_eq!(parse_result("0x12345"), Ok(ze_result_t(0x12345)));
    assert!(parse_result("ZE_RESULT_NOPE").is_err());
    assert!(parse_result("0x1ffffffff").is_err());
    // Every named code of zekit-sys is known, by its own name.
    let names: Vec<&str> = result_codes().iter().map(|(n, _)| *n).collect();
    for code in [
        ZE_RESULT_SUCCESS,
        ZE_RESULT_NOT_READY,
        ZE_RESULT_ERROR_DEVICE_LOST,
        ZE_RESULT_ERROR_DEVICE_IN_LOW_POWER_STATE,
        ZE_RESULT_EXP_RTAS_BUILD_DEFERRED,
        ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS,
        ZE_RESULT_WARNING_DROPPED_DATA,
        ZE_RESULT_ERROR_INVALID_ARGUMENT,
        ZE_RESULT_ERROR_GRAPH_INTERNAL_EVENT,
        ZE_RESULT_ERROR_UNKNOWN,
    ] {
        let name = code.name().unwrap();
        assert!(names.contains(&name), "{name}");
        assert_eq!(parse_result(name), Ok(code));
    }
    assert!(!names.contains(&"ZE_RESULT_FORCE_UINT32"));
    assert!(names.len() >= 60, "{}", names.len());
}

#[test]
fn from_file_resolves_paths_next_to_the_scenario_and_writes_the_log() {
    let dir = tmpdir("file");
    std::fs::write(
        dir.join("gpu.yml"),
        "device: { name: file gpu }\ncaches: [ { cacheSize: 1 MiB }, { cacheSize: 32 MiB } ]\n",
    )
    .unwrap();
    let path = dir.join("scenario.yml");
    std::fs::write(
        &path,
        "profile: gpu.yml\nlog: out/calls.txt\nresults:\n  - { function: zeMemAllocHost, when: { size: 64 }, result: ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY }\n",
    )
    .unwrap();
    let sc = Scenario::from_file(&path).unwrap();
    let p = sc.profile.as_ref().unwrap();
    assert_eq!(p.device.name, "file gpu");
    assert_eq!(p.cache_count(), 2);
    assert_eq!(sc.log.as_deref(), Some(dir.join("out/calls.txt").as_path()));

    let s = Script::new();
    sc.apply(&s);
    assert_eq!(s.log_path(), sc.log);
    call(&s, "zeInit", &[("flags", "0")]);
    call(
        &s,
        "zeMemAllocHost",
        &[("hContext", "0x10"), ("size", "64")],
    );
    std::fs::create_dir_all(dir.join("out")).unwrap();
    assert_eq!(s.write_log(), Ok(true));
    assert_eq!(
        std::fs::read_to_string(dir.join("out/calls.txt")).unwrap(),
        "#1 zeInit(flags=0) -> ZE_RESULT_SUCCESS\n\
         #2 zeMemAllocHost(hContext=0x10, size=64) -> ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY\n"
    );

    // Errors name the file.
    std::fs::write(
        dir.join("bad.yml"),
        "results: [ { function: zeInit, reslt: 1 } ]\n",
    )
    .unwrap();
    let err = Scenario::from_file(&dir.join("bad.yml")).unwrap_err();
    assert!(
        err.contains("bad.yml") && err.contains("unknown field `reslt`"),
        "{err}"
    );
    std::fs::write(dir.join("badprofile.yml"), "profile: nope.yml\n").unwrap();
    let err = Scenario::from_file(&dir.join("badprofile.yml")).unwrap_err();
    assert!(
        err.contains("cannot read profile") && err.contains("nope.yml"),
        "{err}"
    );
    let err = Scenario::from_file(Path::new("/nonexistent/zekit.yml")).unwrap_err();
    assert!(
        err.contains("cannot read scenario file /nonexistent/zekit.yml"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
