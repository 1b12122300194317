//! What the direct-run kernel tests share: loading a committed kernel and running a launch's
//! groups one after the other on this thread (no driver).
#![allow(dead_code)] // each test crate uses what it needs

use std::collections::HashMap;

use zekit_spirv::{compile, ArgKind, GroupCtx, Kernel, Program};

/// Compiles `kernels/<name>.spv`.
pub fn program(name: &str) -> Program {
    let spv = std::fs::read(format!("{}/kernels/{name}.spv", env!("CARGO_MANIFEST_DIR"))).unwrap();
    compile(&spv, &HashMap::new()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Compiles `kernels/<name>.spv` with every kernel asking for sub-groups of `size`: each
/// entry point's `OpExecutionMode %k SubgroupSize` set to it, or added after the last
/// execution mode (as `intel_reqd_sub_group_size(size)` would).
pub fn program_with_sub_group_size(name: &str, size: u32) -> Program {
    let spv = std::fs::read(format!("{}/kernels/{name}.spv", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let bytes = with_sub_group_size(&spv, size);
    compile(&bytes, &HashMap::new()).unwrap_or_else(|e| panic!("{name} at {size}: {e}"))
}

/// The module `spv` with every entry point's sub-group size set to `size` (see
/// [`program_with_sub_group_size`]).
pub fn with_sub_group_size(spv: &[u8], size: u32) -> Vec<u8> {
    let words: Vec<u32> = spv
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let (mut out, mut entries, mut set, mut after_modes) = (words[..5].to_vec(), vec![], vec![], 0);
    let mut i = 5;
    while i < words.len() {
        let (n, op) = ((words[i] >> 16) as usize, words[i] & 0xffff);
        let mut inst = words[i..i + n].to_vec();
        match op {
            15 => entries.push(inst[2]),
            16 if inst[2] == 35 => {
                inst[3] = size;
                set.push(inst[1]);
            }
            _ => {}
        }
        out.extend(&inst);
        if matches!(op, 15 | 16 | 331) {
            after_modes = out.len();
        }
        i += n;
    }
    let added: Vec<u32> = entries
        .iter()
        .filter(|e| !set.contains(e))
        .flat_map(|&e| [4 << 16 | 16, e, 35, size])
        .collect();
    out.splice(after_modes..after_modes, added);
    out.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// A reduce in the order the compiler combines it (`frontend/groups.rs`, `reduce_slots`; the
/// order of a group reduction is unspecified): with 4 or more values, four partial results over
/// every fourth value, combined as `(p0 + p1) + (p2 + p3)`, then the rest one by one.
pub fn reduce4<T: Copy>(xs: &[T], f: impl Fn(T, T) -> T) -> T {
    let n = xs.len();
    if n < 4 {
        return xs[1..].iter().fold(xs[0], |a, b| f(a, *b));
    }
    let mut p = [xs[0], xs[1], xs[2], xs[3]];
    let mut j = 4;
    while j + 4 <= n {
        for (i, p) in p.iter_mut().enumerate() {
            *p = f(*p, xs[j + i]);
        }
        j += 4;
    }
    let acc = f(f(p[0], p[1]), f(p[2], p[3]));
    xs[j..].iter().fold(acc, |a, b| f(a, *b))
}

/// What `lockstep.cl`'s `ls_loop` computes for work-item `i` after `iters` trips: its float
/// output (the float plus the int), its long and its double.
pub fn ls_loop_expected(i: usize, iters: u64) -> (f32, i64, f64) {
    let (mut f, mut k, mut l, mut x) = (i as f32, i as i32, i as i64 * 3, i as f64);
    for j in 0..iters as i32 {
        f = f * 0.5 + 1.0;
        k = k.wrapping_mul(3).wrapping_add(j);
        l = l.wrapping_add(i64::from(k));
        x = x * 0.75 + 1.0;
    }
    (f + k as f32, l, x)
}

/// Runs every group of a 1D launch sequentially; `args` are 8-byte words (no local arguments).
pub fn run_1d(p: &Program, kernel: &str, args: &[u64], global: u64, local: u64) {
    run_2d(p, kernel, args, [global, 1], [local, 1]);
}

/// Runs every group of a 2D launch sequentially; `args` as for [`run_1d`].
pub fn run_2d(p: &Program, kernel: &str, args: &[u64], global: [u64; 2], local: [u64; 2]) {
    run(p, kernel, args, global, local, &[], false);
}

/// [`run_1d`] with local arguments: each gets a zeroed buffer of the next size of
/// `local_bytes` (its word in `args` is not read).
pub fn run_1d_locals(
    p: &Program,
    kernel: &str,
    args: &[u64],
    global: u64,
    local: u64,
    local_bytes: &[usize],
) {
    run_2d_locals(p, kernel, args, [global, 1], [local, 1], local_bytes);
}

/// [`run_2d`] with local arguments, as [`run_1d_locals`].
pub fn run_2d_locals(
    p: &Program,
    kernel: &str,
    args: &[u64],
    global: [u64; 2],
    local: [u64; 2],
    local_bytes: &[usize],
) {
    run(p, kernel, args, global, local, local_bytes, false);
}

/// [`run_1d`] of a launch that asks for non-temporal stores ([`GroupCtx::stream`]).
pub fn run_1d_streaming(p: &Program, kernel: &str, args: &[u64], global: u64, local: u64) {
    run(p, kernel, args, [global, 1], [local, 1], &[], true);
    zekit_spirv::store_fence();
}

fn run(
    p: &Program,
    kernel: &str,
    args: &[u64],
    global: [u64; 2],
    local: [u64; 2],
    local_bytes: &[usize],
    stream: bool,
) {
    let k = p.kernel(kernel).unwrap();
    let mut block = vec![0u64; (k.info.args_size as usize).div_ceil(8) + 1];
    let mut locals: Vec<Vec<u8>> = Vec::new();
    for (a, v) in k.info.args.iter().zip(args) {
        block[a.offset as usize / 8] = if a.kind == ArgKind::Local {
            let size = *local_bytes
                .get(locals.len())
                .expect("a size for each local argument");
            locals.push(vec![0u8; size]);
            locals.last_mut().unwrap().as_mut_ptr() as u64
        } else {
            *v
        };
    }
    run_groups(k, &block, global, local, stream);
    drop(locals);
}

/// Runs every group of a launch of `k` sequentially with the argument block `block` (laid out
/// as the kernel reports), with local and private memory as large as it reports.
pub fn run_groups<T>(k: &Kernel, block: &[T], global: [u64; 2], local: [u64; 2], stream: bool) {
    let mut local_mem = vec![0u8; k.info.local_static_size as usize + 4096];
    let mut private = vec![0u8; k.info.private_size as usize * (local[0] * local[1]) as usize + 16];
    let groups = [global[0] / local[0], global[1] / local[1]];
    for g in 0..groups[0] * groups[1] {
        let mut ctx = GroupCtx {
            group_id: [g % groups[0], g / groups[0], 0],
            local_size: [local[0], local[1], 1],
            num_groups: [groups[0], groups[1], 1],
            global_offset: [0; 3],
            work_dim: if global[1] > 1 { 2 } else { 1 },
            args: block.as_ptr() as usize,
            local_mem: local_mem.as_mut_ptr() as usize,
            private_mem: private.as_mut_ptr() as usize,
            stream: u64::from(stream),
        };
        // SAFETY: the arguments point to live buffers of the sizes the kernels index (the
        // callers' promise), the local and private blocks are as large as the kernel reports,
        // and `block` outlives the call.
        unsafe { k.run_group(&mut ctx) };
    }
}

/// A buffer's address as a kernel argument word.
pub fn addr<T>(v: &mut [T]) -> u64 {
    v.as_mut_ptr() as u64
}
