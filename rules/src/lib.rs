//! Level Zero's rules on arguments, one copy for both drivers (the CPU driver and the mock),
//! parameterised by the device's [`Limits`]: the CPU driver's come from the host, the mock's
//! from its profile. Each rule answers a [`Broken`] (the result code and the sentence the
//! entry layer logs) or what the call may go on with. Where the validation level changes a
//! rule (`ZEKIT_VALIDATION=strict`), the caller passes the level in: this crate reads no
//! environment and logs nothing.
//!
//! | rule | module |
//! |---|---|
//! | `zeKernelSetGroupSize`, `zeKernelSuggestGroupSize` | [`group`] |
//! | `zeKernelSetArgumentValue` against a kernel's layout and the local-memory budget | [`args`] |
//! | allocation sizes and alignments | [`memory`] |
//! | fill patterns (`zeCommandListAppendMemoryFill`) | [`fill`] |

pub mod args;
pub mod fill;
pub mod group;
pub mod memory;

use zekit_sys::ze_result_t;

/// The device limits the rules read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// `maxGroupSizeX/Y/Z`.
    pub max_group_size: [u32; 3],
    /// `maxTotalGroupSize`.
    pub max_total_group_size: u32,
    /// `maxSharedLocalMemory`: bytes of local memory a group may have.
    pub max_shared_local_memory: usize,
    /// `maxMemAllocSize`.
    pub max_mem_alloc_size: u64,
    /// The largest alignment an allocation may ask for.
    pub max_alignment: usize,
}

/// A broken rule: the result code and what was wrong, naming the object and the limit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Broken {
    /// The code the call returns.
    pub code: ze_result_t,
    /// The sentence logged and recorded for `zeDriverGetLastErrorDescription`.
    pub message: String,
}

impl Broken {
    /// A broken rule with its code and sentence.
    pub fn new(code: ze_result_t, message: impl Into<String>) -> Broken {
        Broken {
            code,
            message: message.into(),
        }
    }
}

/// What a rule answers.
pub type Checked<T> = Result<T, Broken>;
