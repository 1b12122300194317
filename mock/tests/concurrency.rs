//! Calls from several threads are all logged, numbered uniquely, and counted exactly.

use std::collections::HashSet;
use std::sync::Arc;
use std::thread;

use zekit_mock::script::{Args, Script};
use zekit_sys::*;

const THREADS: usize = 4;
const PER_THREAD: usize = 2000;

#[test]
fn four_threads_lose_no_calls() {
    let s = Arc::new(Script::new());
    let nth = s
        .on("zeMemAllocDevice")
        .nth(1234)
        .returns(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
    let times = s
        .on("zeMemAllocHost")
        .times(10)
        .returns(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY);
    let odd = s
        .on("zeMemFree")
        .when(|a: &Args| a.u64("thread") == Some(3))
        .returns(ZE_RESULT_ERROR_INVALID_ARGUMENT);
    s.expect("zeMemAllocDevice")
        .times((THREADS * PER_THREAD) as u64);
    s.expect("zeMemFree")
        .with(|a: &Args| a.u64("thread") == Some(0))
        .times(PER_THREAD as u64);
    s.expect("zeMemFree").at_least(1);

    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let s = s.clone();
            thread::spawn(move || {
                let mut results = Vec::new();
                for i in 0..PER_THREAD {
                    let render = move || {
                        vec![
                            ("thread".to_string(), t.to_string()),
                            ("i".to_string(), i.to_string()),
                        ]
                    };
                    let f = match i % 3 {
                        0 => "zeMemAllocDevice",
                        1 => "zeMemAllocHost",
                        _ => "zeMemFree",
                    };
                    // Every thread makes PER_THREAD device allocations (plus the others).
                    results.push((f, s.invoke(f, &render, || ZE_RESULT_SUCCESS)));
                    if f != "zeMemAllocDevice" {
                        s.invoke("zeMemAllocDevice", &render, || ZE_RESULT_SUCCESS);
                    }
                    if f != "zeMemFree" {
                        s.invoke("zeMemFree", &render, || ZE_RESULT_SUCCESS);
                    }
                }
                results
            })
        })
        .collect();
    for h in handles {
        h.join().expect("thread");
    }

    let calls = s.calls();
    let device = THREADS * PER_THREAD;
    let free = THREADS * PER_THREAD;
    let host = THREADS * PER_THREAD.div_ceil(3);
    assert_eq!(calls.len(), device + free + host);
    let seqs: HashSet<u64> = calls.iter().map(|c| c.seq).collect();
    assert_eq!(seqs.len(), calls.len(), "numbers are unique");
    assert_eq!(
        seqs.iter().max().copied(),
        Some(calls.len() as u64),
        "and dense"
    );
    assert!(
        calls.windows(2).all(|w| w[0].seq < w[1].seq),
        "calls() is ordered"
    );

    // Each thread's own calls appear in its program order.
    for t in 0..THREADS {
        let mine: Vec<u64> = calls
            .iter()
            .filter(|c| c.arg("thread") == Some(&t.to_string()) && c.function == "zeMemAllocDevice")
            .map(|c| c.arg("i").unwrap().parse().unwrap())
            .collect();
        assert_eq!(mine, (0..PER_THREAD as u64).collect::<Vec<_>>());
    }

    assert_eq!(s.call_count("zeMemAllocDevice"), device);
    assert_eq!(s.rule_hits(nth), Some(1));
    assert_eq!(
        calls
            .iter()
            .filter(|c| c.result == ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY)
            .count(),
        1
    );
    assert_eq!(s.rule_hits(times), Some(10));
    assert_eq!(
        calls
            .iter()
            .filter(|c| c.result == ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY)
            .count(),
        10
    );
    assert_eq!(s.rule_hits(odd), Some(PER_THREAD as u64));
    assert_eq!(s.verify(), Ok(()));
}
