//! The LLVM tier (`backend/llvm`): every kernel of a module compiled by it, not by Cranelift;
//! its code right at group sizes that leave a partial vector in each row; saved in a native
//! binary and loaded without compiling. (Every other kernel test runs on this tier too when
//! `cargo xtask test` sets `ZEKIT_TIER=llvm`.)
#![cfg(feature = "llvm")]

mod common;

use common::{addr, ls_loop_expected, program, run_1d};
use zekit_spirv::jit::{self, Tier};

#[test]
fn every_kernel_is_compiled_by_llvm() {
    jit::set_tier(Tier::Llvm);
    let before = jit::llvm_kernels_on_this_thread();
    let p = program("lockstep");
    let n = jit::llvm_kernels_on_this_thread() - before;
    assert_eq!(n as usize, p.kernels.len());
    assert!(n > 5, "{n}");
    // The other tier's kernels are not counted.
    jit::set_tier(Tier::Cranelift);
    let before = jit::llvm_kernels_on_this_thread();
    let _ = program("lockstep");
    assert_eq!(jit::llvm_kernels_on_this_thread(), before);
}

#[test]
fn vectorized_work_item_loops_are_right_at_every_group_size() {
    jit::set_tier(Tier::Llvm);
    let p = program("lockstep");
    for local in [1u64, 3, 7, 15, 16, 17, 33, 64, 100] {
        let n = (local * 5) as usize;
        let mut a: Vec<f32> = (0..n).map(|i| i as f32 * 0.25).collect();
        let mut b: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2654435761)).collect();
        let mut o = vec![f32::NAN; n + 16];
        let mut u = vec![7u32; n + 16];
        let args = [addr(&mut a), addr(&mut o), addr(&mut b), addr(&mut u)];
        run_1d(&p, "ls_int_index", &args, n as u64, local);
        for i in 0..n {
            assert_eq!(o[i], a[i] * 2.0 + 1.0, "local {local} [{i}]");
            assert_eq!(u[i], b[i] ^ (i as u32 * 3), "local {local} [{i}]");
        }
        assert!(o[n..].iter().all(|v| v.is_nan()) && u[n..].iter().all(|v| *v == 7));
    }
}

#[test]
fn work_items_across_lanes_through_an_inner_loop_are_right() {
    // `ls_loop`'s uniform loop puts the work-item loop outside it: the x loop is marked for
    // LLVM's outer-loop vectorizer (`backend/llvm/outer.rs`). Right at every group size
    // (partial vectors), and at trip counts of 0, 1 and more, for each of its four types.
    jit::set_tier(Tier::Llvm);
    let before = jit::llvm_outer_loops_on_this_thread();
    let p = program("lockstep");
    assert!(
        jit::llvm_outer_loops_on_this_thread() > before,
        "ls_loop's x loop was not marked"
    );
    for local in [1u64, 3, 7, 15, 16, 17, 33, 64, 100] {
        for iters in [0u64, 1, 5] {
            let n = (local * 3) as usize;
            let mut fo = vec![f32::NAN; n + 16];
            let mut lo = vec![-1i64; n + 16];
            let mut d = vec![f64::NAN; n + 16];
            run_1d(
                &p,
                "ls_loop",
                &[addr(&mut fo), addr(&mut lo), addr(&mut d), iters],
                n as u64,
                local,
            );
            for i in 0..n {
                let (f, l, x) = ls_loop_expected(i, iters);
                let at = format!("local {local}, {iters} trips [{i}]");
                assert_eq!(fo[i], f, "{at}");
                assert_eq!(lo[i], l, "{at}");
                assert_eq!(d[i], x, "{at}");
            }
            assert!(fo[n..].iter().all(|v| v.is_nan()) && lo[n..].iter().all(|v| *v == -1));
        }
    }
}

#[test]
fn kernels_with_barriers_are_not_marked() {
    // The outer-loop vectorizer takes work-items as independent: a kernel with barriers
    // keeps its x loop unmarked, loop or not (every kernel of `lockstep_barriers` has them).
    jit::set_tier(Tier::Llvm);
    let before = jit::llvm_outer_loops_on_this_thread();
    let _ = program("lockstep_barriers");
    assert_eq!(jit::llvm_outer_loops_on_this_thread(), before);
}

#[test]
fn llvm_code_is_saved_and_loaded_without_compiling() {
    jit::set_tier(Tier::Llvm);
    let p = program("lockstep");
    let bytes = p.native_binary().unwrap();
    // It names what it needs of the host beside Cranelift's flags.
    assert!(bytes.windows(6).any(|w| w == b"llvm:+"));
    let before = jit::compilations_on_this_thread();
    let q = zekit_spirv::native::load(&bytes).unwrap();
    assert_eq!(jit::compilations_on_this_thread(), before);
    assert_eq!(q.native_binary().unwrap(), bytes);
    let n = 40usize;
    let mut a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let mut b: Vec<u32> = (0..n as u32).collect();
    let (mut o, mut u) = (vec![0f32; n], vec![0u32; n]);
    let args = [addr(&mut a), addr(&mut o), addr(&mut b), addr(&mut u)];
    run_1d(&q, "ls_int_index", &args, n as u64, 8);
    assert!((0..n).all(|i| o[i] == a[i] * 2.0 + 1.0 && u[i] == b[i] ^ (i as u32 * 3)));
}

#[test]
fn kernels_tier_up_to_llvm_once_they_have_run_long_enough() {
    // Auto: Cranelift's code first; past the threshold (here 1 ms of launches) the kernel is
    // compiled by LLVM in the background and later launches run that code, with the same
    // results.
    jit::set_tier(Tier::Auto);
    jit::tierup::set_threshold(1_000_000);
    let llvm_before = jit::llvm_kernels_on_this_thread();
    let p = std::sync::Arc::new(program("lockstep"));
    assert_eq!(jit::llvm_kernels_on_this_thread(), llvm_before, "auto starts on Cranelift");
    let i = p.kernels.iter().position(|k| k.info.name == "ls_loop").unwrap();
    let n = 96usize;
    let run = |p: &zekit_spirv::Program| {
        let mut fo = vec![0f32; n];
        let mut lo = vec![0i64; n];
        let mut d = vec![0f64; n];
        run_1d(p, "ls_loop", &[addr(&mut fo), addr(&mut lo), addr(&mut d), 7], n as u64, 32);
        (fo, lo, d)
    };
    let first = run(&p);
    assert!(!p.kernels[i].tiered_up());
    let saved_before = p.native_binary().unwrap();
    assert!(!saved_before.windows(6).any(|w| w == b"llvm:+"));
    let upgrades = jit::tierup::upgrades();
    // Below the threshold: nothing happens.
    let cranelift_entry = p.kernels[i].launch_entry();
    jit::tierup::ran(&p, i, cranelift_entry, 999_999, n as u64);
    std::thread::sleep(std::time::Duration::from_millis(50));
    assert!(!p.kernels[i].tiered_up());
    jit::tierup::ran(&p, i, cranelift_entry, 1, n as u64);
    let t = std::time::Instant::now();
    while !p.kernels[i].tiered_up() {
        assert!(t.elapsed().as_secs() < 120, "no tier-up after 2 minutes");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert!(jit::tierup::upgrades() > upgrades);
    assert_ne!(p.kernels[i].launch_entry(), cranelift_entry);
    // Other kernels of the module have not run: they keep Cranelift's code.
    assert!(p.kernels.iter().enumerate().all(|(j, k)| j == i || !k.tiered_up()));
    assert_eq!(run(&p), first);
    // Once is enough: more time on Cranelift's code queues nothing.
    jit::tierup::ran(&p, i, cranelift_entry, u64::MAX / 4, n as u64);
    assert_eq!(run(&p), first);
    // A native binary saved now holds LLVM's code for it (and asks for its CPU features);
    // loaded, it runs that code at once.
    let saved = p.native_binary().unwrap();
    assert!(saved.windows(6).any(|w| w == b"llvm:+"));
    assert_ne!(saved, saved_before);
    let q = zekit_spirv::native::load(&saved).unwrap();
    assert_eq!(q.kernel_code(i), p.kernel_code(i));
    assert_ne!(q.kernel_code(i), zekit_spirv::native::load(&saved_before).unwrap().kernel_code(i));
    assert_eq!(run(&q), first);
}

#[test]
fn uniform_loads_in_inner_loops_give_cranelifts_results() {
    // n-body loads every body's position in its inner loop (one address for all work-items)
    // and naive SGEMM a row of A: outer-loop vectorized, those loads are scalar loads and
    // broadcasts (`backend/llvm/uniform.rs`). Same operations in the same order: the same
    // bits as Cranelift's code, at group sizes that leave partial vectors.
    jit::set_tier(Tier::Cranelift);
    let reference = program("bench/workloads");
    jit::set_tier(Tier::Llvm);
    let before = jit::llvm_outer_loops_on_this_thread();
    let p = program("bench/workloads");
    assert!(jit::llvm_outer_loops_on_this_thread() >= before + 2);
    let n = 85usize;
    let mut pos: Vec<f32> = (0..4 * n).map(|i| ((i * 7919) % 113) as f32 * 0.37 - 20.0).collect();
    for local in [1u64, 5, 17, 85] {
        let mut got = [vec![f32::NAN; 4 * n], vec![f32::NAN; 4 * n]];
        for (q, out) in [&reference, &p].into_iter().zip(got.iter_mut()) {
            let args = [n as u64, u64::from(0.01f32.to_bits()), addr(&mut pos), addr(out)];
            run_1d(q, "nbody", &args, n as u64, local);
        }
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&got[1]), bits(&got[0]), "nbody, local {local}");
        assert!(got[1].iter().all(|x| x.is_finite()));
    }
    for (log_n, local) in [(3u64, 8u64), (4, 64), (5, 1024)] {
        let n = 1usize << log_n;
        let mut a: Vec<f32> = (0..n * n).map(|i| (i % 17) as f32 * 0.5 - 3.0).collect();
        let mut b: Vec<f32> = (0..n * n).map(|i| (i % 13) as f32 * 0.25 + 1.0).collect();
        let mut got = [vec![f32::NAN; n * n], vec![f32::NAN; n * n]];
        for (q, out) in [&reference, &p].into_iter().zip(got.iter_mut()) {
            let global = (n * n) as u64;
            run_1d(q, "sgemm_naive", &[log_n, addr(&mut a), addr(&mut b), addr(out)], global, local);
        }
        assert_eq!(got[1], got[0], "sgemm_naive, n {n}, local {local}");
    }
}

#[test]
fn kernels_go_back_to_cranelift_where_llvms_code_is_slower() {
    // After tiering up, LLVM's code runs as long as Cranelift's had to (here 1 ms), then the
    // two are compared per work-item, each code's first launch left out: LLVM's is kept unless
    // it takes more than 1.1 times Cranelift's time. Cranelift's launches here take 1 µs a
    // work-item; LLVM's 1 µs (kept) or 3 µs (given up).
    jit::set_tier(Tier::Auto);
    jit::tierup::set_threshold(1_000_000);
    for (llvm_ns, kept) in [(1_000_000u64, true), (3_000_000, false)] {
        let p = std::sync::Arc::new(program("lockstep"));
        let i = p.kernels.iter().position(|k| k.info.name == "ls_loop").unwrap();
        let cranelift = p.kernels[i].launch_entry();
        for _ in 0..3 {
            jit::tierup::ran(&p, i, cranelift, 1_000_000, 1000);
        }
        let t = std::time::Instant::now();
        while !p.kernels[i].tiered_up() {
            assert!(t.elapsed().as_secs() < 120, "no tier-up after 2 minutes");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let llvm = p.kernels[i].launch_entry();
        assert_ne!(llvm, cranelift);
        let given_up = jit::tierup::given_up();
        jit::tierup::ran(&p, i, llvm, llvm_ns, 1000);
        assert!(!jit::tierup::decided(&p, i), "one launch is not enough to compare");
        jit::tierup::ran(&p, i, llvm, llvm_ns, 1000);
        assert!(jit::tierup::decided(&p, i));
        assert_eq!(p.kernels[i].tiered_up(), kept, "LLVM at {llvm_ns} ns");
        assert_eq!(p.kernels[i].launch_entry(), if kept { llvm } else { cranelift });
        assert_eq!(jit::tierup::given_up() - given_up, u64::from(!kept));
        // Decided for good: more launches change nothing.
        jit::tierup::ran(&p, i, cranelift, 1, 1000);
        assert_eq!(p.kernels[i].tiered_up(), kept);
    }
}

#[test]
fn chunked_x_loops_give_cranelifts_results_whether_or_not_the_values_qualify() {
    // Masks, shifts and divisions of the x id by values known at launch: LLVM's code runs
    // chunks of 16 work-items with those computed from the chunk's first where the values
    // qualify (a mask keeping the low four bits or clearing them, a shift of 4 or more, a
    // divisor that is a nonzero multiple of 16, a group starting at a multiple of 16), and
    // the plain x loop elsewhere (`backend/llvm/tiles.rs`). Both must give Cranelift's bits.
    jit::set_tier(Tier::Cranelift);
    let reference = program("chunks");
    jit::set_tier(Tier::Llvm);
    let (chunked, rewritten) = (jit::llvm_chunked_kernels_on_this_thread(), jit::llvm_consecutive_accesses_on_this_thread());
    let p = program("chunks");
    assert_eq!(jit::llvm_chunked_kernels_on_this_thread() - chunked, 3);
    assert!(jit::llvm_consecutive_accesses_on_this_thread() > rewritten);
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    // n 7 and 24 are no multiples of 16; local 20 starts some groups off a multiple of 16.
    for (n, local) in [(16u64, 16u64), (32, 64), (48, 48), (24, 48), (7, 14), (32, 20), (16, 1)] {
        let global = n * 10;
        let mut a: Vec<f32> = (0..global).map(|i| (i % 29) as f32 * 0.75 - 4.0).collect();
        let mut got = [vec![f32::NAN; global as usize], vec![f32::NAN; global as usize]];
        for (q, out) in [&reference, &p].into_iter().zip(got.iter_mut()) {
            run_1d(q, "chunk_div", &[n, addr(&mut a), addr(out)], global, local);
        }
        assert_eq!(bits(&got[1]), bits(&got[0]), "chunk_div, n {n}, local {local}");
    }
    // Shifts of 3 (no chunks), 4 and 5.
    for (log_n, local) in [(3u64, 8u64), (4, 32), (5, 64), (5, 20), (4, 1)] {
        let (n, rows) = (1u64 << log_n, 3u64);
        let global = n * 6;
        let mut a: Vec<f32> = (0..n * (6 + rows)).map(|i| (i % 31) as f32 * 0.5 - 7.0).collect();
        let mut got = [vec![f32::NAN; global as usize], vec![f32::NAN; global as usize]];
        for (q, out) in [&reference, &p].into_iter().zip(got.iter_mut()) {
            run_1d(q, "chunk_shift", &[log_n, rows, addr(&mut a), addr(out)], global, local);
        }
        assert_eq!(bits(&got[1]), bits(&got[0]), "chunk_shift, log n {log_n}, local {local}");
    }
    // Offsets, masks, divisors and remainders that qualify or not (8, 7, 10, 12), and a zero
    // remainder divisor (0 by the IR's rule).
    let cases = [(0u64, 15u64, 16u64, 32u64), (32, 31, 48, 16), (8, 15, 16, 32), (0, 7, 16, 32), (0, 15, 10, 32), (16, 63, 32, 12), (0, 15, 16, 0)];
    for (off, m, d, e) in cases {
        for local in [64u64, 40, 16] {
            let global = local * 3;
            let mut got = [vec![u32::MAX; global as usize], vec![u32::MAX; global as usize]];
            for (q, out) in [&reference, &p].into_iter().zip(got.iter_mut()) {
                run_1d(q, "chunk_local", &[off, m, d, e, addr(out)], global, local);
            }
            assert_eq!(got[1], got[0], "chunk_local, off {off}, m {m}, d {d}, e {e}, local {local}");
        }
    }
}
