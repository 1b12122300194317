//! Programmed results, the call log and the hooks the generated layer calls.

use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use zekit_mock::script::{Args, Call, Count, Script};
use zekit_sys::*;

fn args(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect()
}

/// One call through the hooks with `size` as the only argument; the default behaviour succeeds.
fn alloc(s: &Script, function: &'static str, size: u64) -> ze_result_t {
    let render = move || args(&[("size", &size.to_string())]);
    s.invoke(function, &render, || ZE_RESULT_SUCCESS)
}

#[test]
fn nth_fails_only_that_call() {
    let s = Script::new();
    s.on("zeMemAllocDevice")
        .nth(3)
        .returns(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
    let got: Vec<ze_result_t> = (0..5).map(|_| alloc(&s, "zeMemAllocDevice", 8)).collect();
    assert_eq!(
        got,
        [
            ZE_RESULT_SUCCESS,
            ZE_RESULT_SUCCESS,
            ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY,
            ZE_RESULT_SUCCESS,
            ZE_RESULT_SUCCESS
        ]
    );
    // Other functions are not affected.
    assert_eq!(alloc(&s, "zeMemAllocHost", 8), ZE_RESULT_SUCCESS);
    assert_eq!(s.verify(), Ok(()));
}

#[test]
fn nth_counts_from_when_the_rule_was_added() {
    let s = Script::new();
    alloc(&s, "zeMemAllocDevice", 8);
    alloc(&s, "zeMemAllocDevice", 8);
    s.on("zeMemAllocDevice")
        .nth(2)
        .returns(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
    assert_eq!(alloc(&s, "zeMemAllocDevice", 8), ZE_RESULT_SUCCESS);
    assert_eq!(
        alloc(&s, "zeMemAllocDevice", 8),
        ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY
    );
    assert_eq!(alloc(&s, "zeMemAllocDevice", 8), ZE_RESULT_SUCCESS);
}

#[test]
fn times_fails_the_next_k_calls() {
    let s = Script::new();
    let id = s
        .on("zeEventHostSynchronize")
        .times(2)
        .returns(ZE_RESULT_NOT_READY);
    let got: Vec<ze_result_t> = (0..4)
        .map(|_| alloc(&s, "zeEventHostSynchronize", 0))
        .collect();
    assert_eq!(
        got,
        [
            ZE_RESULT_NOT_READY,
            ZE_RESULT_NOT_READY,
            ZE_RESULT_SUCCESS,
            ZE_RESULT_SUCCESS
        ]
    );
    assert_eq!(s.rule_hits(id), Some(2));
}

#[test]
fn always_and_default_fail_every_call() {
    let s = Script::new();
    s.on("zeCommandQueueSynchronize")
        .always()
        .returns(ZE_RESULT_ERROR_DEVICE_LOST);
    s.on("zeFenceHostSynchronize")
        .returns(ZE_RESULT_ERROR_DEVICE_LOST);
    for _ in 0..3 {
        assert_eq!(
            alloc(&s, "zeCommandQueueSynchronize", 0),
            ZE_RESULT_ERROR_DEVICE_LOST
        );
        assert_eq!(
            alloc(&s, "zeFenceHostSynchronize", 0),
            ZE_RESULT_ERROR_DEVICE_LOST
        );
    }
}

#[test]
fn when_predicate_filters_and_nth_counts_matching_calls_only() {
    let s = Script::new();
    s.on("zeMemAllocHost")
        .when(|a: &Args| a.get("size") == Some("64"))
        .returns(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY);
    assert_eq!(alloc(&s, "zeMemAllocHost", 32), ZE_RESULT_SUCCESS);
    assert_eq!(
        alloc(&s, "zeMemAllocHost", 64),
        ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY
    );
    assert_eq!(alloc(&s, "zeMemAllocHost", 128), ZE_RESULT_SUCCESS);

    let s = Script::new();
    s.on("zeMemAllocShared")
        .when(|a: &Args| a.u64("size").is_some_and(|n| n >= 1024))
        .nth(2)
        .returns(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
    let got: Vec<ze_result_t> = [4096, 16, 2048, 4096]
        .iter()
        .map(|&n| alloc(&s, "zeMemAllocShared", n))
        .collect();
    assert_eq!(
        got,
        [
            ZE_RESULT_SUCCESS,
            ZE_RESULT_SUCCESS,
            ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY,
            ZE_RESULT_SUCCESS
        ]
    );
}

#[test]
fn oldest_answering_rule_wins_and_all_rules_count() {
    let s = Script::new();
    let a = s
        .on("zeMemAllocDevice")
        .nth(2)
        .returns(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
    let b = s
        .on("zeMemAllocDevice")
        .times(2)
        .returns(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY);
    assert_eq!(
        alloc(&s, "zeMemAllocDevice", 1),
        ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY
    );
    assert_eq!(
        alloc(&s, "zeMemAllocDevice", 1),
        ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY
    );
    assert_eq!(alloc(&s, "zeMemAllocDevice", 1), ZE_RESULT_SUCCESS);
    assert_eq!(s.rule_hits(a), Some(1));
    assert_eq!(s.rule_hits(b), Some(2), "b counted the call a answered");
    assert!(s.remove_rule(a));
    assert!(!s.remove_rule(a));
    assert_eq!(s.rule_hits(a), None);
}

#[test]
fn clear_rules_and_count_builder() {
    let s = Script::new();
    s.on("zeMemAllocDevice")
        .count(Count::Always)
        .returns(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
    assert_eq!(
        alloc(&s, "zeMemAllocDevice", 1),
        ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY
    );
    s.clear_rules();
    assert_eq!(alloc(&s, "zeMemAllocDevice", 1), ZE_RESULT_SUCCESS);
}

#[test]
fn before_call_skips_default_and_after_call_logs_the_code() {
    let s = Script::new();
    s.on("zeMemAllocDevice")
        .nth(1)
        .returns(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
    let ran = Cell::new(0);
    let render = || args(&[("size", "64"), ("alignment", "0")]);
    let r = s.invoke("zeMemAllocDevice", &render, || {
        ran.set(ran.get() + 1);
        ZE_RESULT_SUCCESS
    });
    assert_eq!(r, ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
    assert_eq!(ran.get(), 0, "default behaviour must not run");
    let r = s.invoke("zeMemAllocDevice", &render, || {
        ran.set(ran.get() + 1);
        ZE_RESULT_SUCCESS
    });
    assert_eq!((r, ran.get()), (ZE_RESULT_SUCCESS, 1));
    let calls = s.calls_to("zeMemAllocDevice");
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0].result, ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
    assert_eq!(calls[1].result, ZE_RESULT_SUCCESS);
    assert_eq!(calls[0].arg("size"), Some("64"));
}

#[test]
fn arguments_are_rendered_only_when_a_predicate_needs_them() {
    let s = Script::new();
    let renders = Arc::new(AtomicUsize::new(0));
    let r2 = renders.clone();
    let render = move || {
        r2.fetch_add(1, Ordering::SeqCst);
        args(&[("size", "64")])
    };
    // Nothing programmed: before_call renders nothing.
    assert_eq!(s.before_call("zeMemAllocHost", &render), None);
    assert_eq!(renders.load(Ordering::SeqCst), 0);
    // A rule without predicate: still nothing.
    s.on("zeMemAllocHost")
        .nth(5)
        .returns(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY);
    assert_eq!(s.before_call("zeMemAllocHost", &render), None);
    assert_eq!(renders.load(Ordering::SeqCst), 0);
    // Two predicates: rendered once.
    s.on("zeMemAllocHost")
        .when(|a: &Args| a.u64("size") == Some(64))
        .when(|a: &Args| a.get("size").is_some())
        .returns(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY);
    s.expect("zeMemAllocHost")
        .with(|a: &Args| a.get("size") == Some("64"))
        .at_least(0);
    assert_eq!(
        s.before_call("zeMemAllocHost", &render),
        Some(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY)
    );
    assert_eq!(renders.load(Ordering::SeqCst), 1);
    // after_call renders for the log.
    s.after_call(
        "zeMemAllocHost",
        &render,
        ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY,
    );
    assert_eq!(renders.load(Ordering::SeqCst), 2);
}

#[test]
fn call_log_numbers_formats_and_clears() {
    let s = Script::new();
    let none = || Vec::new();
    s.invoke("zeInit", &none, || ZE_RESULT_SUCCESS);
    let render = || args(&[("hContext", "0x1000"), ("size", "64")]);
    s.on("zeMemAllocHost")
        .returns(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY);
    s.invoke("zeMemAllocHost", &render, || ZE_RESULT_SUCCESS);
    s.invoke("zeMemAllocHost", &render, || ZE_RESULT_SUCCESS);

    let calls = s.calls();
    assert_eq!(calls.iter().map(|c| c.seq).collect::<Vec<_>>(), [1, 2, 3]);
    assert_eq!(
        calls[1],
        Call {
            seq: 2,
            function: "zeMemAllocHost",
            args: args(&[("hContext", "0x1000"), ("size", "64")]),
            result: ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY,
        }
    );
    assert_eq!(
        s.render_log(),
        "#1 zeInit() -> ZE_RESULT_SUCCESS\n\
         #2 zeMemAllocHost(hContext=0x1000, size=64) -> ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY\n\
         #3 zeMemAllocHost(hContext=0x1000, size=64) -> ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY\n"
    );
    assert_eq!(s.calls_to("zeMemAllocHost").len(), 2);
    assert_eq!(s.call_count("zeInit"), 1);
    assert!(s.calls_to("zeMemFree").is_empty());

    s.clear_calls();
    assert!(s.calls().is_empty());
    s.invoke("zeInit", &none, || ZE_RESULT_SUCCESS);
    assert_eq!(
        s.calls()[0].seq,
        4,
        "numbers keep counting after clear_calls"
    );
    // Unknown codes print as hex.
    s.invoke("zeInit", &none, || ze_result_t(0x1234));
    assert!(
        s.render_log()
            .ends_with("#5 zeInit() -> ze_result_t(0x1234)\n"),
        "{}",
        s.render_log()
    );
}

#[test]
fn nested_calls_keep_their_numbers() {
    let s = Script::new();
    let none = || Vec::new();
    assert_eq!(s.before_call("zeCommandListCreate", &none), None);
    // A call made while the first is in flight (e.g. by its default behaviour).
    s.invoke("zeContextCreate", &none, || ZE_RESULT_SUCCESS);
    s.after_call("zeCommandListCreate", &none, ZE_RESULT_SUCCESS);
    // after_call without before_call takes a new number.
    s.after_call("zeCommandListClose", &none, ZE_RESULT_SUCCESS);
    let calls: Vec<(u64, &str)> = s.calls().iter().map(|c| (c.seq, c.function)).collect();
    assert_eq!(
        calls,
        [
            (1, "zeCommandListCreate"),
            (2, "zeContextCreate"),
            (3, "zeCommandListClose")
        ]
    );
}

#[test]
fn args_helpers() {
    let a = Args::new(args(&[
        ("size", "64"),
        ("ptr", "0x0"),
        ("offset", "-16"),
        ("flag", "true"),
        ("handle", "0xdeadbeef"),
        ("name", "abc"),
    ]));
    assert_eq!(a.get("size"), Some("64"));
    assert_eq!(a.get("missing"), None);
    assert_eq!(a.u64("size"), Some(64));
    assert_eq!(a.u64("handle"), Some(0xdead_beef));
    assert_eq!(a.u64("name"), None);
    assert_eq!(a.i64("offset"), Some(-16));
    assert_eq!(a.bool("flag"), Some(true));
    assert_eq!(a.is_null("ptr"), Some(true));
    assert_eq!(a.is_null("handle"), Some(false));
    assert_eq!(a.len(), 6);
    assert!(!a.is_empty());
    assert_eq!(a.iter().next(), Some(("size", "64")));
}

#[test]
fn mistakes_are_recorded_not_panics() {
    let s = Script::new();
    s.on("zeMemAllocDevic").returns(ZE_RESULT_ERROR_DEVICE_LOST);
    s.on("zeMemAllocDevice")
        .nth(0)
        .returns(ZE_RESULT_ERROR_DEVICE_LOST);
    s.on("zeMemAllocHost")
        .when(|_: &Args| panic!("boom"))
        .returns(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY);
    assert_eq!(alloc(&s, "zeMemAllocDevice", 1), ZE_RESULT_SUCCESS);
    assert_eq!(
        alloc(&s, "zeMemAllocHost", 1),
        ZE_RESULT_SUCCESS,
        "panicking predicate: no match"
    );
    // A panicking argument renderer is survived too.
    let bad = || -> Vec<(String, String)> { panic!("render") };
    s.after_call("zeInit", &bad, ZE_RESULT_SUCCESS);
    let errors = s.verify().unwrap_err();
    assert_eq!(errors.len(), 4, "{errors:#?}");
    assert_eq!(
        errors[0],
        "on(\"zeMemAllocDevic\"): unknown Level Zero function"
    );
    assert!(errors[1].contains("nth(0)"), "{}", errors[1]);
    assert!(
        errors[2].contains("predicate panicked at call #2"),
        "{}",
        errors[2]
    );
    assert!(
        errors[3].contains("rendering the arguments of call #3 panicked"),
        "{}",
        errors[3]
    );
    assert_eq!(s.calls().last().map(|c| c.args.len()), Some(0));
}

#[test]
fn predicates_may_use_the_script() {
    // Predicates run outside the lock: a predicate consulting the log must not deadlock.
    let s = Arc::new(Script::new());
    let s2 = s.clone();
    s.on("zeMemAllocHost")
        .when(move |_: &Args| s2.call_count("zeMemAllocHost") >= 1)
        .returns(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY);
    assert_eq!(alloc(&s, "zeMemAllocHost", 1), ZE_RESULT_SUCCESS);
    assert_eq!(
        alloc(&s, "zeMemAllocHost", 1),
        ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY
    );
}

#[test]
fn reset_clears_everything() {
    let s = Script::new();
    s.on("zeMemAllocDevice")
        .returns(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
    s.expect("zeCommandListClose").times(3);
    s.set_log_path(Some("/nonexistent/log.txt".into()));
    let mut p = zekit_mock::Profile::default();
    p.device.name = "other".into();
    s.set_profile(p);
    alloc(&s, "zeMemAllocDevice", 1);
    assert!(s.verify().is_err());

    s.reset();
    assert!(s.calls().is_empty());
    assert_eq!(s.verify(), Ok(()));
    assert_eq!(s.log_path(), None);
    assert_eq!(s.profile().device.name, "zekit mock device");
    assert_eq!(alloc(&s, "zeMemAllocDevice", 1), ZE_RESULT_SUCCESS);
    assert_eq!(s.calls()[0].seq, 1, "numbers restart");
}

#[test]
fn log_file_on_demand() {
    let dir = std::env::temp_dir().join(format!("zekit-mock-log-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("calls.txt");
    let s = Script::new();
    assert_eq!(s.write_log(), Ok(false));
    s.set_log_path(Some(path.clone()));
    alloc(&s, "zeMemAllocHost", 64);
    assert_eq!(s.write_log(), Ok(true));
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "#1 zeMemAllocHost(size=64) -> ZE_RESULT_SUCCESS\n"
    );
    let err = s.write_log_to(&dir.join("missing-dir/x.txt")).unwrap_err();
    assert!(err.starts_with("cannot write call log "), "{err}");
    assert!(err.contains("missing-dir"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn global_script_is_one_instance() {
    let a = zekit_mock::script() as *const Script;
    let b = zekit_mock::script() as *const Script;
    assert_eq!(a, b);
}
