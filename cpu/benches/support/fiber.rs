//! The yardstick for the other way to run work-group barriers: fibers, one stack per work-item,
//! each switching to the next when it reaches a barrier. A ring of fibers on their own stacks
//! switches round and round; what one switch costs is what fibers would add per work-item per
//! barrier before doing any work. The switch is the minimal one (x86-64 System V): push the
//! callee-saved registers, swap stack pointers, pop them, return; no signal mask, no floating-
//! point state.

use std::arch::global_asm;
use std::time::Instant;

// `zekit_bench_fiber_switch(save: *mut usize, to: usize)`: saves the callee-saved registers on
// the current stack, stores the stack pointer at `save`, continues on the stack `to` (as saved
// by an earlier switch, or set up by `Ring::new`).
// `zekit_bench_fiber_start`: where a new fiber begins: calls `fiber_main(ring, index)` with the
// two values `Ring::new` placed in its first frame's rbx and r12 slots.
global_asm!(
    ".globl zekit_bench_fiber_switch",
    "zekit_bench_fiber_switch:",
    "push rbp",
    "push rbx",
    "push r12",
    "push r13",
    "push r14",
    "push r15",
    "mov [rdi], rsp",
    "mov rsp, rsi",
    "pop r15",
    "pop r14",
    "pop r13",
    "pop r12",
    "pop rbx",
    "pop rbp",
    "ret",
    ".globl zekit_bench_fiber_start",
    "zekit_bench_fiber_start:",
    "mov rdi, rbx",
    "mov rsi, r12",
    "call {main}",
    "ud2",
    main = sym fiber_main,
);

extern "C" {
    fn zekit_bench_fiber_switch(save: *mut usize, to: usize);
    fn zekit_bench_fiber_start();
}

struct Ring {
    /// Saved stack pointer of each fiber, then of the thread that started the ring.
    sp: Vec<usize>,
    rounds: usize,
    /// Work done (one increment per fiber per round).
    count: u64,
}

extern "C" fn fiber_main(ring: *mut Ring, me: usize) -> ! {
    // Raw accesses only: every fiber holds the ring's pointer while the others run.
    // SAFETY: `ring` is the live ring `switch_ns` runs (freed only after the last switch back),
    // and one fiber runs at a time; `sp` has `n + 1` slots.
    unsafe {
        let (rounds, sp) = ((*ring).rounds, Vec::as_mut_ptr(&mut (*ring).sp));
        let n = Vec::len(&(*ring).sp) - 1;
        for round in 0..rounds {
            (*ring).count += 1;
            // The last fiber's last switch returns to the thread that started the ring.
            let next = if me == n - 1 && round == rounds - 1 { n } else { (me + 1) % n };
            // A stack pointer saved by a switch (or set up by `switch_ns`) of a fiber that is
            // suspended or not started, on a stack that outlives the ring.
            zekit_bench_fiber_switch(sp.add(me), sp.add(next).read());
        }
    }
    // No fiber is resumed after its last round.
    std::process::abort()
}

/// Nanoseconds per switch of a ring of `fibers` fibers running `rounds` rounds.
pub fn switch_ns(fibers: usize, rounds: usize) -> f64 {
    const STACK: usize = 16 << 10;
    let mut stacks: Vec<Vec<u128>> = (0..fibers).map(|_| vec![0u128; STACK / 16]).collect();
    let ring: *mut Ring = Box::into_raw(Box::new(Ring { sp: vec![0; fibers + 1], rounds, count: 0 }));
    // SAFETY: the ring just made; the reference ends at once (the fibers make their own).
    let sp: *mut usize = unsafe { Vec::as_mut_ptr(&mut (*ring).sp) };
    for (i, s) in stacks.iter_mut().enumerate() {
        let top = s.as_mut_ptr() as usize + STACK;
        // The first frame, as the switch pops it: r15, r14, r13, r12 (the index), rbx (the
        // ring), rbp, then the return address; `frame` ≡ 8 (mod 16) so that `start` calls
        // `fiber_main` with the stack aligned as the ABI wants.
        let frame = top - 72;
        let start = zekit_bench_fiber_start as *const () as usize;
        let words = [0, 0, 0, i, ring as usize, 0, start];
        // SAFETY: 7 words from `frame` lie inside this fiber's stack (72 bytes below its end),
        // 8-byte aligned (the stack is 16-byte aligned); slot `i` of the ring's `fibers + 1`.
        unsafe {
            std::ptr::copy_nonoverlapping(words.as_ptr(), frame as *mut usize, 7);
            sp.add(i).write(frame);
        }
    }
    let t = Instant::now();
    // SAFETY: fiber 0's prepared frame; the fibers run their rounds and the last switches back
    // here, to the stack pointer saved in the ring's last slot. Nothing else runs on them.
    unsafe { zekit_bench_fiber_switch(sp.add(fibers), sp.read()) };
    let s = t.elapsed().as_secs_f64();
    // SAFETY: made by `Box::into_raw` above; no fiber runs any more.
    let ring = unsafe { Box::from_raw(ring) };
    assert_eq!(ring.count, (fibers * rounds) as u64, "every fiber ran every round");
    drop(stacks);
    s * 1e9 / (fibers * rounds) as f64
}
