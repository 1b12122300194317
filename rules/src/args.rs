//! Kernel arguments (`zeKernelSetArgumentValue`, and every call that sets one) against the
//! kernel's layout as the compiler reports it ([`KernelInfo`]), and the local-memory budget.

use zekit_spirv::{ArgKind, KernelInfo};
use zekit_sys::ze_result_t;

use crate::{ZeError, Checked};

/// An argument value that fits its kernel's layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgValue<'a> {
    /// Bytes of local memory.
    Local(usize),
    /// A buffer's address (0: null).
    Pointer(u64),
    /// An image or sampler handle as the application passed it (0: null; the driver looks it
    /// up).
    Handle(u64),
    /// The bytes of a scalar or a struct by value, exactly the argument's size.
    Bytes(&'a [u8]),
    /// A scalar or a struct by value given a null value: the argument's size of zero bytes.
    Zero,
}

/// The local memory an argument may take: at most `max` bytes in all, of which `others` are
/// taken by the kernel's other local arguments; `note` follows the limit in messages (what it
/// is, e.g. ` (maxSharedLocalMemory)`).
#[derive(Clone, Copy, Debug)]
pub struct LocalBudget<'a> {
    /// Bytes of local memory a group may have.
    pub max: usize,
    /// Bytes the other local arguments take.
    pub others: usize,
    /// Said after the limit.
    pub note: &'a str,
}

/// Checks `size` bytes at `value` (`None`: a null pointer) for argument `index` of `info`:
/// - no such argument: `INVALID_KERNEL_ARGUMENT_INDEX`;
/// - local memory: a size of 1 byte or more with a null value, within `local` (the kernel's
///   static local memory counts); a value is `INVALID_ARGUMENT`, a size out of the budget
///   `INVALID_KERNEL_ARGUMENT_SIZE`;
/// - pointers, images and samplers: 8 bytes, a null value is 0;
/// - scalars and structs: their size; a null value is zeros (the spec's "considered null").
///   Unless `strict`, a value given more bytes than it has takes its first bytes when the
///   others only widen it (zero or sign extension: an `int` set from an 8-byte variable, as
///   compute-runtime accepts); strict refuses any other size.
///
/// Other sizes are `INVALID_KERNEL_ARGUMENT_SIZE`.
pub fn check<'a>(
    info: &KernelInfo,
    index: u32,
    size: usize,
    value: Option<&'a [u8]>,
    local: LocalBudget<'_>,
    strict: bool,
) -> Checked<ArgValue<'a>> {
    let name = &info.name;
    let Some(a) = info.args.get(index as usize).copied() else {
        return Err(ZeError::new(
            ze_result_t::ERROR_INVALID_KERNEL_ARGUMENT_INDEX,
            format!(
                "kernel `{name}` has {} arguments, not argument {index}",
                info.args.len()
            ),
        ));
    };
    let size_error = |want: &str| {
        ZeError::new(
            ze_result_t::ERROR_INVALID_KERNEL_ARGUMENT_SIZE,
            format!("argument {index} of kernel `{name}` takes {want}, not {size} bytes"),
        )
    };
    // An 8-byte word (a null value: 0), or the size error naming what it is.
    let word = |what: &str| -> Checked<u64> {
        match value {
            Some(v) if size == 8 => v
                .try_into()
                .map(u64::from_le_bytes)
                .map_err(|_| size_error(&format!("{what} (8 bytes)"))),
            None if size == 8 => Ok(0),
            _ => Err(size_error(&format!("{what} (8 bytes)"))),
        }
    };
    match a.kind {
        ArgKind::Local => {
            if value.is_some() {
                return Err(ZeError::new(
                    ze_result_t::ERROR_INVALID_ARGUMENT,
                    format!(
                        "argument {index} of kernel `{name}` is local memory: give its size \
                         with a null value"
                    ),
                ));
            }
            if size == 0 || size + local.others + info.local_static_size as usize > local.max {
                return Err(size_error(&format!(
                    "1 byte to {} bytes{} of local memory in all",
                    local.max, local.note
                )));
            }
            Ok(ArgValue::Local(size))
        }
        ArgKind::Buffer => word("a pointer").map(ArgValue::Pointer),
        ArgKind::Image => word("an image handle").map(ArgValue::Handle),
        ArgKind::Sampler => word("a sampler handle").map(ArgValue::Handle),
        ArgKind::Scalar | ArgKind::ByValue => {
            let want = a.size as usize;
            if size < want || (size > want && strict) {
                return Err(size_error(&format!("{want} bytes")));
            }
            let Some(v) = value else {
                return Ok(ArgValue::Zero);
            };
            let (keep, extra) = v
                .split_at_checked(want)
                .ok_or_else(|| size_error(&format!("{want} bytes")))?;
            // More bytes than the argument has: taken only when they are the value widened
            // (zero- or sign-extended, little-endian: an `int` from a `size_t`); other bytes
            // (a float's bits for a half, a double for a float) have no one meaning.
            let sign = if keep.last().is_some_and(|b| b & 0x80 != 0) {
                0xff
            } else {
                0
            };
            if !(extra.iter().all(|&b| b == 0) || extra.iter().all(|&b| b == sign)) {
                return Err(size_error(&format!(
                    "{want} bytes (the {} more given are not the value widened)",
                    extra.len()
                )));
            }
            Ok(ArgValue::Bytes(keep))
        }
    }
}
