//! A randomized stress test: 10,000 copies and fills on a random dependency graph over four
//! queues (two compute, one copy, each fed regular lists in chunks, and one asynchronous
//! immediate list). Every command signals its own event and waits for the events of the
//! commands it depends on: the last writer of what it reads, the last writer and the readers
//! since of what it writes, and a few random earlier commands. The final memory must equal a
//! sequential replay of the commands in order. `ZEKIT_SEED` replays a run.

// `ok!`/`check!` call the unsafe C entry points with valid arguments.
#![allow(clippy::macro_metavars_in_unsafe)]

mod zeh;

use std::ptr::null_mut;

use zeh::*;

const COMMANDS: usize = 10_000;
const QUEUES: usize = 4;
const BUFFERS: usize = 24;
const BUFFER: usize = 4096;
const BIG: usize = 2 << 20;

#[derive(Clone, Debug)]
enum Op {
    Copy { dst: (usize, usize), src: (usize, usize), len: usize },
    Fill { dst: (usize, usize), pattern: Vec<u8>, len: usize },
}

#[derive(Clone, Debug)]
struct Cmd {
    queue: usize,
    op: Op,
    deps: Vec<usize>,
}

/// Buffers `0..BUFFERS` are small; `BUFFERS` and `BUFFERS + 1` are big (split over the pool).
fn buffer_size(b: usize) -> usize {
    if b >= BUFFERS {
        BIG
    } else {
        BUFFER
    }
}

fn generate(rng: &mut Rng) -> Vec<Cmd> {
    let mut last_writer: Vec<Option<usize>> = vec![None; BUFFERS + 2];
    let mut readers: Vec<Vec<usize>> = vec![Vec::new(); BUFFERS + 2];
    let mut cmds = Vec::with_capacity(COMMANDS);
    for i in 0..COMMANDS {
        let big = rng.below(400) == 0;
        let (src_buf, dst_buf) = if big {
            let s = BUFFERS + rng.below(2);
            (s, if s == BUFFERS { BUFFERS + 1 } else { BUFFERS })
        } else {
            let s = rng.below(BUFFERS);
            (s, (s + 1 + rng.below(BUFFERS - 1)) % BUFFERS)
        };
        let size = buffer_size(dst_buf);
        let op = if rng.chance(60) {
            let len = if big { rng.range(BIG / 2, BIG - 64) } else { rng.below(BUFFER / 2) };
            let so = rng.below(size - len);
            let d = rng.below(size - len);
            Op::Copy { dst: (dst_buf, d), src: (src_buf, so), len }
        } else {
            let p = 1 << rng.below(9);
            let count = if big { rng.range(BIG / 2 / p, BIG / p) } else { rng.below(BUFFER / 2 / p + 1) };
            let len = count * p;
            let d = rng.below(size - len + 1);
            Op::Fill { dst: (dst_buf, d), pattern: rng.bytes(p), len }
        };
        let mut deps = Vec::new();
        let (read, write) = match &op {
            Op::Copy { dst, src, .. } => (Some(src.0), dst.0),
            Op::Fill { dst, .. } => (None, dst.0),
        };
        if let Some(r) = read {
            deps.extend(last_writer[r]);
        }
        deps.extend(last_writer[write]);
        deps.append(&mut readers[write]);
        if i > 0 && rng.chance(5) {
            deps.push(rng.below(i));
        }
        if let Some(r) = read {
            readers[r].push(i);
        }
        last_writer[write] = Some(i);
        deps.sort_unstable();
        deps.dedup();
        cmds.push(Cmd { queue: rng.below(QUEUES), op, deps });
    }
    cmds
}

fn replay(cmds: &[Cmd], mem: &mut [Vec<u8>]) {
    for c in cmds {
        match &c.op {
            Op::Copy { dst, src, len } => {
                let data = mem[src.0][src.1..src.1 + len].to_vec();
                mem[dst.0][dst.1..dst.1 + len].copy_from_slice(&data);
            }
            Op::Fill { dst, pattern, len } => {
                for chunk in mem[dst.0][dst.1..dst.1 + len].chunks_mut(pattern.len()) {
                    chunk.copy_from_slice(pattern);
                }
            }
        }
    }
}

#[test]
fn random_dependency_graph_matches_sequential_replay() {
    let seed = seed("stress");
    let mut rng = Rng::new(seed);
    let cmds = generate(&mut rng);
    let z = Ze::new();
    // Initial memory, random.
    let initial: Vec<Vec<u8>> = (0..BUFFERS + 2).map(|b| rng.bytes(buffer_size(b))).collect();
    let ptrs: Vec<*mut u8> = (0..BUFFERS + 2)
        .map(|b| {
            let p = if b % 3 == 0 { z.host(buffer_size(b)) } else { z.device_mem(buffer_size(b)) };
            // SAFETY: as allocated.
            unsafe { write(p, &initial[b]) };
            p
        })
        .collect();
    let pool = z.pool(ze_event_pool_flags_t::HOST_VISIBLE, COMMANDS as u32);
    let events: Vec<ze_event_handle_t> = (0..COMMANDS).map(|i| z.event(pool, i as u32)).collect();
    // Queues 0, 1: compute; 2: copy; 3: an asynchronous immediate list.
    let queues: Vec<_> = [0, 0, 1].iter().map(|&o| z.queue(o, ze_command_queue_mode_t::ASYNCHRONOUS)).collect();
    let imm = z.immediate(0, ze_command_queue_mode_t::ASYNCHRONOUS);
    let ordinal = |q: usize| if q == 2 { 1 } else { 0 };
    let mut open: Vec<Option<(ze_command_list_handle_t, usize)>> = vec![None; 3];
    let mut all_lists = Vec::new();
    let mut flush = |q: usize, open: &mut Vec<Option<(ze_command_list_handle_t, usize)>>| {
        if let Some((l, _)) = open[q].take() {
            ok!(ze::zeCommandListClose(l));
            let mut lists = [l];
            ok!(ze::zeCommandQueueExecuteCommandLists(queues[q], 1, lists.as_mut_ptr(), null_mut()));
            all_lists.push(l);
        }
    };
    for (i, c) in cmds.iter().enumerate() {
        let list = if c.queue == 3 {
            imm
        } else {
            let entry = open[c.queue].get_or_insert_with(|| (z.list(ordinal(c.queue)), rng.range(1, 400)));
            entry.1 -= 1;
            entry.0
        };
        let mut waits: Vec<ze_event_handle_t> = c.deps.iter().map(|&d| events[d]).collect();
        let at = |(b, off): (usize, usize)| ptrs[b].wrapping_add(off);
        match &c.op {
            Op::Copy { dst, src, len } => copy(list, at(*dst), at(*src), *len, events[i], &mut waits),
            Op::Fill { dst, pattern, len } => fill(list, at(*dst), pattern, *len, events[i], &mut waits),
        }
        if c.queue < 3 && open[c.queue].is_some_and(|(_, left)| left == 0) {
            flush(c.queue, &mut open);
        }
    }
    for q in 0..3 {
        flush(q, &mut open);
    }
    for &q in &queues {
        ok!(ze::zeCommandQueueSynchronize(q, FOREVER));
    }
    ok!(ze::zeCommandListHostSynchronize(imm, FOREVER));
    for (i, &e) in events.iter().enumerate() {
        assert_eq!(
            // SAFETY: a live event.
            unsafe { ze::zeEventQueryStatus(e) },
            ZE_RESULT_SUCCESS,
            "event {i} not signaled (ZEKIT_SEED={seed})"
        );
    }
    let mut expected = initial.clone();
    replay(&cmds, &mut expected);
    for (b, want) in expected.iter().enumerate() {
        // SAFETY: every command is done.
        let got = unsafe { bytes(ptrs[b], want.len()) };
        if got != &want[..] {
            let at = got.iter().zip(want).position(|(g, w)| g != w).unwrap();
            panic!("buffer {b} differs from the replay at byte {at} (ZEKIT_SEED={seed})");
        }
    }
    let edges: usize = cmds.iter().map(|c| c.deps.len()).sum();
    eprintln!("{COMMANDS} commands, {edges} dependencies, {} lists", all_lists.len());
    for l in all_lists.into_iter().chain([imm]) {
        ok!(ze::zeCommandListDestroy(l));
    }
    for q in queues {
        ok!(ze::zeCommandQueueDestroy(q));
    }
    for e in events {
        ok!(ze::zeEventDestroy(e));
    }
    ok!(ze::zeEventPoolDestroy(pool));
    for p in ptrs {
        z.free(p);
    }
}

/// A regular list on a queue and an immediate list of the same group handing work to each
/// other through two events, step by step, as the conformance suite's mixed-list tests do:
/// regular step `i` waits for A, resets it and copies cell `2i` to `2i + 1` signaling B;
/// immediate step `i` copies cell `2i + 1` to `2i + 2` waiting for B, resets B and signals A.
/// The host appends the immediate steps while the queue already runs (so a queue's thread
/// that runs the immediate list's work itself finds it appended or not yet). Every cell ends
/// with the first one's byte only if each copy ran after the one it reads; A ends signaled,
/// B not. For each immediate mode.
#[test]
fn regular_and_immediate_lists_ping_pong_in_order() {
    let z = Ze::new();
    let steps = 2000usize;
    for mode in [
        ze_command_queue_mode_t::ASYNCHRONOUS,
        ze_command_queue_mode_t::DEFAULT,
        ze_command_queue_mode_t::SYNCHRONOUS,
    ] {
        let (q, l, imm) = (z.queue(0, ze_command_queue_mode_t::ASYNCHRONOUS), z.list(0), z.immediate(0, mode));
        let fence = z.fence(q);
        let pool = z.pool(ze_event_pool_flags_t::HOST_VISIBLE, 2);
        let (a, b) = (z.event(pool, 0), z.event(pool, 1));
        let cells = z.host(2 * steps + 1);
        // SAFETY: `2 * steps + 1` bytes.
        unsafe { std::ptr::write_bytes(cells, 0, 2 * steps + 1) };
        // SAFETY: as above.
        unsafe { *cells = 0x77 };
        // SAFETY: cell offsets below `2 * steps + 1`.
        let cell = |i: usize| unsafe { cells.add(i) };
        for i in 0..steps {
            ok!(ze::zeCommandListAppendWaitOnEvents(l, 1, [a].as_mut_ptr()));
            ok!(ze::zeCommandListAppendEventReset(l, a));
            copy(l, cell(2 * i + 1), cell(2 * i), 1, b, &mut []);
        }
        ok!(ze::zeCommandListClose(l));
        ok!(ze::zeCommandQueueExecuteCommandLists(q, 1, [l].as_mut_ptr(), fence));
        ok!(ze::zeEventHostSignal(a));
        for i in 0..steps {
            copy(imm, cell(2 * i + 2), cell(2 * i + 1), 1, null_event(), &mut [b]);
            ok!(ze::zeCommandListAppendEventReset(imm, b));
            ok!(ze::zeCommandListAppendSignalEvent(imm, a));
        }
        ok!(ze::zeFenceHostSynchronize(fence, FOREVER));
        ok!(ze::zeCommandListHostSynchronize(imm, FOREVER));
        ok!(ze::zeEventQueryStatus(a));
        check!(ze::zeEventQueryStatus(b), ZE_RESULT_NOT_READY);
        // SAFETY: `2 * steps + 1` bytes; the work is done.
        let got = unsafe { std::slice::from_raw_parts(cells, 2 * steps + 1) };
        assert!(got.iter().all(|c| *c == 0x77), "{mode:?}: a copy ran before the one it reads");
        for e in [a, b] {
            ok!(ze::zeEventDestroy(e));
        }
        ok!(ze::zeEventPoolDestroy(pool));
        ok!(ze::zeFenceDestroy(fence));
        ok!(ze::zeCommandListDestroy(imm));
        ok!(ze::zeCommandListDestroy(l));
        ok!(ze::zeCommandQueueDestroy(q));
        z.free(cells);
    }
}
