//! Group sizes: `zeKernelSetGroupSize` (and every call that sets one) and
//! `zeKernelSuggestGroupSize`.

use zekit_sys::ze_result_t;

use crate::{ZeError, Checked, Limits};

/// `zeKernelSetGroupSize`: each size at least 1 and at most `maxGroupSize` in its dimension,
/// their product at most `maxTotalGroupSize`; a kernel with a required size (`reqd`) takes only
/// that one. Else `INVALID_GROUP_SIZE_DIMENSION`.
pub fn check(kernel: &str, reqd: Option<[u32; 3]>, size: [u32; 3], l: &Limits) -> Checked<()> {
    let bad = |m: String| ZeError::new(ze_result_t::ERROR_INVALID_GROUP_SIZE_DIMENSION, m);
    let [x, y, z] = size;
    if let Some(r) = reqd {
        if r != size {
            return Err(bad(format!(
                "kernel `{kernel}` requires the group size {}x{}x{}, not {x}x{y}x{z}",
                r[0], r[1], r[2]
            )));
        }
    }
    let max = l.max_group_size;
    let total: u64 = size.iter().map(|s| u64::from(*s)).product();
    if size.contains(&0)
        || size.iter().zip(max).any(|(s, m)| *s > m)
        || total > u64::from(l.max_total_group_size)
    {
        return Err(bad(format!(
            "group size {x}x{y}x{z}: each must be 1 to maxGroupSize ({}x{}x{}), and their \
             product at most maxTotalGroupSize ({})",
            max[0], max[1], max[2], l.max_total_group_size
        )));
    }
    Ok(())
}

/// `zeKernelSuggestGroupSize`: the required size if any; else, per dimension (x first), the
/// largest divisor of the global size that keeps the product at most 256 (or
/// `maxTotalGroupSize`, if smaller), so that the global size is a whole number of groups.
pub fn suggest(reqd: Option<[u32; 3]>, global: [u32; 3], l: &Limits) -> [u32; 3] {
    if let Some(r) = reqd {
        return r;
    }
    let mut budget = l.max_total_group_size.clamp(1, 256);
    global.map(|g| {
        let g = g.max(1);
        let best = (1..=budget.min(g)).rev().find(|d| g % d == 0).unwrap_or(1);
        budget /= best;
        best
    })
}
