//! Fill patterns (`zeCommandListAppendMemoryFill`).

use zekit_sys::ze_result_t;

use crate::{ZeError, Checked};

/// A fill's sizes, checked before its pattern is read: `pattern_size` 0 is `INVALID_SIZE`; one
/// that is not a power of two is `INVALID_SIZE` when `strict` (the spec's rule), else accepted
/// as compute-runtime accepts it (the answer is then `true`: the caller notes the leniency);
/// one above `max_pattern` (`maxMemoryFillPatternSize` of the list's queue group) is
/// `UNSUPPORTED_SIZE`; a `size` that is not a multiple of it is `INVALID_SIZE`.
pub fn check(pattern_size: usize, size: usize, max_pattern: usize, strict: bool) -> Checked<bool> {
    let p = pattern_size;
    if p == 0 {
        return Err(ZeError::new(ze_result_t::ERROR_INVALID_SIZE, "pattern_size 0"));
    }
    let lenient = !p.is_power_of_two();
    if lenient && strict {
        return Err(ZeError::new(
            ze_result_t::ERROR_INVALID_SIZE,
            format!("pattern_size {p} is not a power of two"),
        ));
    }
    if p > max_pattern {
        return Err(ZeError::new(
            ze_result_t::ERROR_UNSUPPORTED_SIZE,
            format!("pattern_size {p} exceeds maxMemoryFillPatternSize ({max_pattern})"),
        ));
    }
    if !size.is_multiple_of(p) {
        return Err(ZeError::new(
            ze_result_t::ERROR_INVALID_SIZE,
            format!("size {size} is not a multiple of pattern_size {p}"),
        ));
    }
    Ok(lenient)
}
