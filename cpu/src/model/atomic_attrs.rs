//! Atomic access attributes of allocation ranges (`zeMemSetAtomicAccessAttributeExp`,
//! `zeMemGetAtomicAccessAttributeExp`).
//!
//! | topic | behaviour |
//! |---|---|
//! | set | the range must lie inside one allocation of the context (`INVALID_ARGUMENT`); the attribute is recorded for that range of that allocation (replacing one recorded at the same start) |
//! | get | the attribute of the recorded range that holds `[ptr, ptr + size)`; a range never given one: 0 (no hint); outside every allocation: `INVALID_ARGUMENT`. Records are kept by allocation id, so a freed allocation's records never answer for a new one at the same address |
//! | effect | none needed: all memory is host memory, coherent for host and device atomics alike, whatever the attribute says |

use std::collections::BTreeMap;
use std::sync::Mutex;

use zekit_sys::*;

use super::objects::{ZeError, ZeResult};

/// The allocation a range lies in: base address, size, id.
#[derive(Clone, Copy, Debug)]
pub struct Alloc {
    /// Base address.
    pub base: usize,
    /// Size in bytes.
    pub size: usize,
    /// Allocation id (`zeMemGetAllocProperties`).
    pub id: u64,
}

/// Recorded attributes: (allocation id, range start) → (size, flags).
#[derive(Debug, Default)]
pub struct AtomicAttrs(Mutex<BTreeMap<(u64, usize), (usize, ze_memory_atomic_attr_exp_flags_t)>>);

fn inside(a: Alloc, ptr: usize, size: usize) -> ZeResult<usize> {
    ptr.checked_add(size).filter(|&end| ptr >= a.base && end <= a.base + a.size).ok_or_else(|| {
        ZeError::new(
            ZE_RESULT_ERROR_INVALID_ARGUMENT,
            format!("{size} bytes at {ptr:#x} are not inside one allocation of this context"),
        )
    })
}

impl AtomicAttrs {
    /// Records `attr` for `[ptr, ptr + size)` of allocation `a`.
    pub fn set(&self, a: Alloc, ptr: usize, size: usize, attr: ze_memory_atomic_attr_exp_flags_t) -> ZeResult<()> {
        inside(a, ptr, size)?;
        self.0.lock().unwrap_or_else(|e| e.into_inner()).insert((a.id, ptr), (size, attr));
        Ok(())
    }

    /// The attribute of `[ptr, ptr + size)` of allocation `a`.
    pub fn get(&self, a: Alloc, ptr: usize, size: usize) -> ZeResult<ze_memory_atomic_attr_exp_flags_t> {
        let end = inside(a, ptr, size)?;
        let map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let held = map.range((a.id, 0)..=(a.id, ptr)).rev().find(|(&(_, start), &(n, _))| start + n >= end);
        Ok(held.map_or(ze_memory_atomic_attr_exp_flags_t(0), |(_, &(_, attr))| attr))
    }
}
