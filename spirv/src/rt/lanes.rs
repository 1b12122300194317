//! The host side of lockstep memory accesses: the slow paths of vector loads and stores with
//! some lane inactive, and (on x86-64) the non-temporal record stores.

#[cfg(target_arch = "x86_64")]
use cranelift_codegen::ir::{types, Type};

use crate::analysis::lockstep::W;

/// The slow path of a vector load: copies the 4-byte element of each active lane (lane `i`
/// at `base + 4 i`) to `out[i]`.
pub(crate) extern "C" fn lanes_gather(out: *mut u32, base: u64, alive: u32) {
    for i in 0..W {
        if alive & (1 << i) != 0 {
            // SAFETY: an active lane is a work-item that reads this element itself (the
            // kernel's own access, valid by the application's promise); `out` is the
            // kernel's 16-byte scratch slot.
            unsafe { *out.add(i) = std::ptr::read_unaligned((base + 4 * i as u64) as *const u32) };
        }
    }
}

/// The slow path of a vector store: writes element `i` of `src` for each active lane `i`
/// (at `base + 4 i`).
pub(crate) extern "C" fn lanes_scatter(base: u64, alive: u32, src: *const u32) {
    for i in 0..W {
        if alive & (1 << i) != 0 {
            // SAFETY: as in `lanes_gather`: the active lane's own store; `src` is the
            // scratch slot.
            unsafe { std::ptr::write_unaligned((base + 4 * i as u64) as *mut u32, *src.add(i)) };
        }
    }
}

/// The non-temporal record stores: four 16-byte rows (the lanes' records, consecutive) from
/// `p`, bypassing the caches when `p` is 16-byte aligned (what `movntps` needs), plain stores
/// otherwise. One call per turn: a call per row costs more than the stores save.
#[cfg(target_arch = "x86_64")]
// `__m128`/`__m128i` travel in XMM registers under the System V ABI, as Cranelift passes its
// `f32x4`/`i32x4` arguments (the streaming tests compare every byte written through here).
#[allow(improper_ctypes_definitions)]
pub(crate) extern "C" fn stream_f32x4(
    p: *mut f32,
    a: std::arch::x86_64::__m128,
    b: std::arch::x86_64::__m128,
    c: std::arch::x86_64::__m128,
    d: std::arch::x86_64::__m128,
) {
    use std::arch::x86_64::{_mm_storeu_ps, _mm_stream_ps};
    // SAFETY: the four lanes' own 16-byte stores (each work-item writes its record there
    // itself, valid by the application's promise), consecutive from `p`; `movntps` only where
    // `p` (and so each row) is 16-byte aligned. Both are SSE, which every x86-64 CPU has.
    unsafe {
        if (p as usize).is_multiple_of(16) {
            for (i, r) in [a, b, c, d].into_iter().enumerate() {
                _mm_stream_ps(p.add(4 * i), r);
            }
        } else {
            for (i, r) in [a, b, c, d].into_iter().enumerate() {
                _mm_storeu_ps(p.add(4 * i), r);
            }
        }
    }
}

/// [`stream_f32x4`] for `i32x4` rows (the same registers).
#[cfg(target_arch = "x86_64")]
// `__m128`/`__m128i` travel in XMM registers under the System V ABI, as Cranelift passes its
// `f32x4`/`i32x4` arguments (the streaming tests compare every byte written through here).
#[allow(improper_ctypes_definitions)]
pub(crate) extern "C" fn stream_i32x4(
    p: *mut f32,
    a: std::arch::x86_64::__m128i,
    b: std::arch::x86_64::__m128i,
    c: std::arch::x86_64::__m128i,
    d: std::arch::x86_64::__m128i,
) {
    use std::arch::x86_64::_mm_castsi128_ps as f;
    // SAFETY: bit casts between registers.
    let (a, b, c, d) = unsafe { (f(a), f(b), f(c), f(d)) };
    stream_f32x4(p, a, b, c, d);
}

/// The streaming shims: symbol, address, row type.
#[cfg(target_arch = "x86_64")]
pub(crate) fn stream_shims() -> [(&'static str, usize, Type); 2] {
    [
        ("zekit_stream_f32x4", stream_f32x4 as *const () as usize, types::F32X4),
        ("zekit_stream_i32x4", stream_i32x4 as *const () as usize, types::I32X4),
    ]
}
