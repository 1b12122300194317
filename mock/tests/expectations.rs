//! Expectations: counts, predicates, sequences, verify and checkpoint.

use zekit_mock::script::{Args, Script};
use zekit_sys::*;

fn call(s: &Script, function: &'static str) {
    let none = || Vec::new();
    s.invoke(function, &none, || ZE_RESULT_SUCCESS);
}

fn copy(s: &Script, size: u64) {
    let render = move || vec![("size".to_string(), size.to_string())];
    s.invoke("zeCommandListAppendMemoryCopy", &render, || {
        ZE_RESULT_SUCCESS
    });
}

#[test]
fn met_expectations_verify() {
    let s = Script::new();
    s.expect("zeCommandListClose"); // exactly once by default
    s.expect("zeCommandListAppendMemoryCopy").times(2);
    s.expect("zeMemFree").at_least(1);
    s.expect("zeEventDestroy").at_most(2);
    s.expect("zeFenceDestroy").never();
    s.expect("zeContextDestroy").between(1, 3);
    call(&s, "zeCommandListClose");
    copy(&s, 1);
    copy(&s, 2);
    for _ in 0..5 {
        call(&s, "zeMemFree");
    }
    call(&s, "zeContextDestroy");
    call(&s, "zeContextDestroy");
    assert_eq!(s.verify(), Ok(()));
}

#[test]
fn unmet_expectations_are_reported() {
    let s = Script::new();
    s.expect("zeCommandListClose");
    s.expect("zeCommandListAppendMemoryCopy").times(2);
    s.expect("zeMemFree").at_least(3);
    copy(&s, 1);
    call(&s, "zeMemFree");
    assert_eq!(
        s.verify(),
        Err(vec![
            "zeCommandListClose: expected exactly 1 call, got 0 calls".to_string(),
            "zeCommandListAppendMemoryCopy: expected exactly 2 calls, got 1 call".to_string(),
            "zeMemFree: expected at least 3 calls, got 1 call".to_string(),
        ])
    );
}

#[test]
fn over_calls_are_reported_with_the_call_number() {
    let s = Script::new();
    s.expect("zeCommandListClose").times(1);
    s.expect("zeFenceDestroy").never();
    s.expect("zeEventDestroy").at_most(1);
    call(&s, "zeCommandListClose"); // #1
    call(&s, "zeCommandListClose"); // #2
    call(&s, "zeFenceDestroy"); // #3
    call(&s, "zeEventDestroy"); // #4
    call(&s, "zeEventDestroy"); // #5
    assert_eq!(
        s.verify(),
        Err(vec![
            "zeCommandListClose: expected exactly 1 call, got 2 (the extra one is call #2)"
                .to_string(),
            "zeFenceDestroy: expected no calls, got call #3".to_string(),
            "zeEventDestroy: expected at most 1 call, got 2 (the extra one is call #5)".to_string(),
        ])
    );
}

#[test]
fn predicates_select_which_calls_count() {
    let s = Script::new();
    let big = s
        .expect("zeCommandListAppendMemoryCopy")
        .with(|a: &Args| a.u64("size").is_some_and(|n| n >= 1024))
        .times(2);
    let small = s
        .expect("zeCommandListAppendMemoryCopy")
        .with(|a: &Args| a.get("size") == Some("64"))
        .named("size=64")
        .at_least(1);
    copy(&s, 4096);
    copy(&s, 64);
    copy(&s, 7); // matches neither: not an error
    assert_eq!(big.count(), 1);
    assert_eq!(small.count(), 1);
    assert_eq!(
        s.verify(),
        Err(vec![
            "zeCommandListAppendMemoryCopy [with predicate]: expected exactly 2 calls, got 1 call"
                .to_string()
        ])
    );
    copy(&s, 2048);
    assert_eq!(s.verify(), Ok(()));
    copy(&s, 2048);
    let errs = s.verify().unwrap_err();
    assert_eq!(
        errs,
        ["zeCommandListAppendMemoryCopy [with predicate]: expected exactly 2 calls, got 3 (the extra one is call #5)"]
    );
}

#[test]
fn calls_fill_the_oldest_unsaturated_expectation_first() {
    let s = Script::new();
    let first = s.expect("zeCommandListReset").times(1);
    let second = s.expect("zeCommandListReset").times(2);
    call(&s, "zeCommandListReset");
    call(&s, "zeCommandListReset");
    assert_eq!((first.count(), second.count()), (1, 1));
    call(&s, "zeCommandListReset");
    assert_eq!(s.verify(), Ok(()));
    call(&s, "zeCommandListReset");
    assert_eq!(
        second.count(),
        3,
        "the last matching one takes the over-call"
    );
    assert!(s.verify().is_err());
}

#[test]
fn sequence_in_order_passes() {
    let s = Script::new();
    let seq = s.sequence();
    s.expect("zeCommandListCreate").in_sequence(&seq);
    s.expect("zeCommandListAppendMemoryCopy")
        .times(2)
        .in_sequence(&seq);
    s.expect("zeCommandListClose").in_sequence(&seq);
    call(&s, "zeContextCreate"); // not part of the sequence
    call(&s, "zeCommandListCreate");
    copy(&s, 1);
    call(&s, "zeMemFree");
    copy(&s, 2);
    call(&s, "zeCommandListClose");
    assert_eq!(s.verify(), Ok(()));
}

#[test]
fn sequence_violation_names_expected_and_actual() {
    let s = Script::new();
    let seq = s.sequence();
    s.expect("zeCommandListCreate").in_sequence(&seq);
    s.expect("zeCommandListClose").in_sequence(&seq);
    call(&s, "zeContextCreate"); // #1
    call(&s, "zeCommandListClose"); // #2: too early
    call(&s, "zeCommandListCreate"); // #3: its place has passed
    assert_eq!(
        s.verify(),
        Err(vec![
            "sequence #1: expected zeCommandListCreate, got zeCommandListClose at call #2 \
             (zeCommandListCreate was called 0 times; it expects exactly 1 call)"
                .to_string(),
            "sequence #1: expected zeCommandListClose (or a later step), got zeCommandListCreate \
             at call #3 (its place in the sequence has passed)"
                .to_string(),
        ])
    );
}

#[test]
fn sequence_respects_counts_of_earlier_steps() {
    let s = Script::new();
    let seq = s.sequence();
    s.expect("zeCommandListAppendMemoryCopy")
        .times(2)
        .in_sequence(&seq);
    s.expect("zeCommandListClose").in_sequence(&seq);
    copy(&s, 1);
    call(&s, "zeCommandListClose"); // #2: only one of two copies done
    let errs = s.verify().unwrap_err();
    assert_eq!(errs.len(), 2, "{errs:#?}");
    assert_eq!(
        errs[0],
        "sequence #1: expected zeCommandListAppendMemoryCopy, got zeCommandListClose at call #2 \
         (zeCommandListAppendMemoryCopy was called once; it expects exactly 2 calls)"
    );
    assert_eq!(
        errs[1],
        "zeCommandListAppendMemoryCopy: expected exactly 2 calls, got 1 call"
    );
}

#[test]
fn separate_sequences_are_independent() {
    let s = Script::new();
    let a = s.sequence();
    let b = s.sequence();
    assert_eq!((a.number(), b.number()), (1, 2));
    s.expect("zeCommandListCreate").in_sequence(&a);
    s.expect("zeCommandListClose").in_sequence(&a);
    s.expect("zeEventPoolCreate").in_sequence(&b);
    s.expect("zeEventCreate").in_sequence(&b);
    call(&s, "zeEventPoolCreate");
    call(&s, "zeCommandListCreate");
    call(&s, "zeEventCreate");
    call(&s, "zeCommandListClose");
    assert_eq!(s.verify(), Ok(()));

    let s = Script::new();
    let a = s.sequence();
    let b = s.sequence();
    s.expect("zeCommandListCreate").in_sequence(&a);
    s.expect("zeCommandListClose").in_sequence(&a);
    s.expect("zeEventPoolCreate").in_sequence(&b);
    s.expect("zeEventCreate").in_sequence(&b);
    call(&s, "zeCommandListCreate");
    call(&s, "zeEventCreate");
    call(&s, "zeEventPoolCreate");
    call(&s, "zeCommandListClose");
    let errs = s.verify().unwrap_err();
    assert!(
        errs[0]
            .starts_with("sequence #2: expected zeEventPoolCreate, got zeEventCreate at call #2"),
        "{errs:#?}"
    );
}

#[test]
fn checkpoint_verifies_then_forgets_expectations() {
    let s = Script::new();
    s.on("zeMemAllocDevice")
        .nth(2)
        .returns(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
    s.expect("zeCommandListClose").times(2);
    call(&s, "zeCommandListClose");
    assert_eq!(
        s.checkpoint(),
        Err(vec![
            "zeCommandListClose: expected exactly 2 calls, got 1 call".to_string()
        ])
    );
    // Expectations and violations are gone; rules and the log stay.
    assert_eq!(s.verify(), Ok(()));
    call(&s, "zeCommandListClose");
    assert_eq!(s.verify(), Ok(()), "no expectation on it any more");
    assert_eq!(s.calls().len(), 2);
    let none = || Vec::new();
    s.invoke("zeMemAllocDevice", &none, || ZE_RESULT_SUCCESS);
    assert_eq!(
        s.invoke("zeMemAllocDevice", &none, || ZE_RESULT_SUCCESS),
        ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY
    );

    // A new phase.
    s.expect("zeCommandListDestroy");
    call(&s, "zeCommandListDestroy");
    assert_eq!(s.checkpoint(), Ok(()));
}

#[test]
fn stale_sequence_after_checkpoint_is_reported() {
    let s = Script::new();
    let seq = s.sequence();
    assert_eq!(s.checkpoint(), Ok(()));
    s.expect("zeCommandListCreate").in_sequence(&seq);
    call(&s, "zeCommandListCreate");
    assert_eq!(
        s.verify(),
        Err(vec![
            "in_sequence: sequence #1 no longer exists (cleared by checkpoint or reset)"
                .to_string()
        ])
    );
}

#[test]
fn unknown_function_in_expect_is_reported() {
    let s = Script::new();
    s.expect("zeCommandListClos").never();
    assert_eq!(
        s.verify(),
        Err(vec![
            "expect(\"zeCommandListClos\"): unknown Level Zero function".to_string()
        ])
    );
}

#[test]
fn record_violation_from_outside() {
    let s = Script::new();
    s.record_violation("zeMemFree: pointer 0x10 was never allocated");
    assert_eq!(
        s.verify(),
        Err(vec![
            "zeMemFree: pointer 0x10 was never allocated".to_string()
        ])
    );
}
