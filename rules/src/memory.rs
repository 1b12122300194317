//! Allocation sizes and alignments (`zeMemAllocHost`, `zeMemAllocDevice`, `zeMemAllocShared`).

use zekit_sys::ze_result_t;

use crate::{ZeError, Checked, Limits};

/// The alignment of an allocation whose descriptor asks for 0.
pub const DEFAULT_ALIGNMENT: usize = 64;

/// Whether an allocation may pass `maxMemAllocSize` (`ze_relaxed_allocation_limits_exp_desc_t`
/// with `MAX_SIZE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SizeLimit {
    /// At most `maxMemAllocSize`.
    #[default]
    Strict,
    /// `ZE_RELAXED_ALLOCATION_LIMITS_EXP_FLAG_MAX_SIZE`: any size the memory holds.
    Relaxed,
}

/// Checks an allocation's `size` and `alignment` and gives the alignment to use: a size of 0,
/// or one above `maxMemAllocSize` unless relaxed, is `UNSUPPORTED_SIZE`; an alignment that is
/// not 0 or a power of two, or is above the device's largest, `UNSUPPORTED_ALIGNMENT`; 0 is
/// [`DEFAULT_ALIGNMENT`].
pub fn allocation(size: usize, alignment: usize, limit: SizeLimit, l: &Limits) -> Checked<usize> {
    if size == 0 {
        return Err(ZeError::new(ze_result_t::ERROR_UNSUPPORTED_SIZE, "size is 0"));
    }
    if limit == SizeLimit::Strict && u64::try_from(size).map_or(true, |s| s > l.max_mem_alloc_size)
    {
        return Err(ZeError::new(
            ze_result_t::ERROR_UNSUPPORTED_SIZE,
            format!("size {size} exceeds maxMemAllocSize ({})", l.max_mem_alloc_size),
        ));
    }
    match alignment {
        0 => Ok(DEFAULT_ALIGNMENT),
        a if a.is_power_of_two() && a <= l.max_alignment => Ok(a),
        a if a.is_power_of_two() => Err(ZeError::new(
            ze_result_t::ERROR_UNSUPPORTED_ALIGNMENT,
            format!("alignment {a} is above the largest, {}", l.max_alignment),
        )),
        a => Err(ZeError::new(
            ze_result_t::ERROR_UNSUPPORTED_ALIGNMENT,
            format!("alignment {a} is not a power of two"),
        )),
    }
}
