//! Work-items across SIMD lanes where the work-item loop is not the innermost loop.
//!
//! LLVM's loop vectorizer widens innermost loops only. A kernel whose body has a loop of its
//! own (an FMA chain, a dot product, n-body's loop over the bodies) puts that loop inside the
//! x loop, and is then vectorized along its inner loop (often impossible: a chain of dependent
//! FMAs) or not at all. Such an x loop is marked for LLVM's outer-loop vectorizer (VPlan's
//! "native path", `-enable-vplan-native-path`): the work-items of a row run 16 to a 512-bit
//! vector (8 on AVX2) through the inner loops, which must then take the same trip for every
//! work-item. LLVM checks that itself and leaves the loop as it was where it does not hold.
//!
//! The outer-loop vectorizer takes the work-items' independence as given (no dependence
//! checks). That is OpenCL's rule between barriers, so the mark goes only on kernels whose
//! work-items share nothing but global and local memory: no barriers, no private memory in
//! a shared slot, no atomics, and no calls but the element-wise intrinsics.

use inkwell::basic_block::BasicBlock;
use inkwell::context::Context;
use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::debuginfo as di;
use inkwell::values::{AsValueRef, FunctionValue, InstructionOpcode};

use crate::analysis::regions::Regions;
use crate::ir::{self, BlockId, Op};

/// Intrinsics LLVM widens lane by lane (the families `ops` emits).
const LANEWISE: &[&str] = &[
    "llvm.sqrt.",
    "llvm.fabs.",
    "llvm.fma.",
    "llvm.fmuladd.",
    "llvm.floor.",
    "llvm.ceil.",
    "llvm.trunc.",
    "llvm.rint.",
    "llvm.copysign.",
    "llvm.minnum.",
    "llvm.maxnum.",
    "llvm.fshl.",
    "llvm.fshr.",
    "llvm.ctpop.",
    "llvm.ctlz.",
    "llvm.cttz.",
    "llvm.abs.",
    "llvm.smin.",
    "llvm.smax.",
    "llvm.umin.",
    "llvm.umax.",
    "llvm.bitreverse.",
    "llvm.bswap.",
];

/// True when kernel `k` (private memory `stride` bytes per work-item) may have its x loop
/// vectorized as an outer loop: see the module documentation. `f` is its lowered function.
pub(super) fn eligible(k: &ir::Kernel, r: &Regions, stride: u32, f: FunctionValue<'_>) -> bool {
    if r.barriers() || stride > 0 || !has_loop(k) {
        return false;
    }
    let shared = |op: &Op| {
        matches!(
            op,
            Op::Atomic(..) | Op::AtomicCas(..) | Op::AtomicLoad(_) | Op::AtomicStore(..)
        )
    };
    if k.blocks
        .iter()
        .any(|b| b.insts.iter().any(|i| shared(&i.op)))
    {
        return false;
    }
    // Calls: only lane-wise intrinsics (a runtime function has no vector form).
    f.get_basic_block_iter().all(|bb| {
        bb.get_instructions().all(|i| {
            if i.get_opcode() != InstructionOpcode::Call {
                return true;
            }
            let Ok(call) = inkwell::values::CallSiteValue::try_from(i) else {
                return false;
            };
            call.get_called_fn_value().is_some_and(|callee| {
                let name = callee.get_name().to_string_lossy();
                LANEWISE.iter().any(|p| name.starts_with(p))
            })
        })
    })
}

/// True when some block of `k` is reached again from itself (a back edge in a depth-first walk
/// from the entry).
fn has_loop(k: &ir::Kernel) -> bool {
    let n = k.blocks.len();
    // 0: not seen, 1: on the walk's path, 2: done.
    let mut state = vec![0u8; n];
    let mut stack = vec![(0usize, 0usize)];
    if n == 0 {
        return false;
    }
    state[0] = 1;
    while let Some(&mut (b, ref mut next)) = stack.last_mut() {
        let succ = k.successors(BlockId(b as u32));
        if let Some(s) = succ.get(*next) {
            *next += 1;
            let s = s.0 as usize;
            match state.get(s) {
                Some(1) => return true,
                Some(0) => {
                    state[s] = 1;
                    stack.push((s, 0));
                }
                _ => {}
            }
        } else {
            state[b] = 2;
            stack.pop();
        }
    }
    false
}

thread_local! {
    static MARKED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many kernels this thread had their x loop marked for the outer-loop vectorizer.
pub(crate) fn marked_on_this_thread() -> u64 {
    MARKED.with(|c| c.get())
}

/// Marks the loop whose back edge is `latch`'s terminator with `llvm.loop.vectorize.enable`.
pub(super) fn mark(cx: &Context, latch: BasicBlock<'_>) {
    let Some(br) = latch.get_terminator() else {
        return;
    };
    MARKED.with(|c| c.set(c.get() + 1));
    let key = "llvm.loop.vectorize.enable";
    let kind = "llvm.loop";
    // SAFETY: every reference passed is live (the context outlives this call, and `br` is an
    // instruction of a function in it); the strings are passed with their lengths, so need no
    // terminator. The temporary node is replaced by the loop node and then disposed of, as
    // LLVM's self-referential loop metadata requires.
    unsafe {
        let ctx = cx.raw();
        let on = c::LLVMValueAsMetadata(c::LLVMConstInt(c::LLVMInt1TypeInContext(ctx), 1, 0));
        let name = c::LLVMMDStringInContext2(ctx, key.as_ptr().cast(), key.len());
        let mut hint = [name, on];
        let hint = c::LLVMMDNodeInContext2(ctx, hint.as_mut_ptr(), hint.len());
        let temp = di::LLVMTemporaryMDNode(ctx, std::ptr::null_mut(), 0);
        let mut ops = [temp, hint];
        let node = c::LLVMMDNodeInContext2(ctx, ops.as_mut_ptr(), ops.len());
        di::LLVMMetadataReplaceAllUsesWith(temp, node);
        let id = c::LLVMGetMDKindIDInContext(ctx, kind.as_ptr().cast(), kind.len() as u32);
        c::LLVMSetMetadata(br.as_value_ref(), id, c::LLVMMetadataAsValue(ctx, node));
    }
}

/// Turns on LLVM's outer-loop vectorizer (once per process, before any compilation).
pub(super) fn enable_native_path() {
    let args = [c"zekit".as_ptr(), c"-enable-vplan-native-path".as_ptr()];
    // SAFETY: two NUL-terminated strings that live for the call; LLVM copies what it keeps.
    // Called once, from the tier's one-time initialisation, before any thread compiles.
    unsafe {
        inkwell::llvm_sys::support::LLVMParseCommandLineOptions(
            args.len() as i32,
            args.as_ptr(),
            c"zekit: LLVM options".as_ptr(),
        );
    }
}
