//! Level Zero's rules on arguments, one copy for both drivers (the CPU driver and the mock),
//! parameterised by the device's [`Limits`]: the CPU driver's come from the host, the mock's
//! from its profile. Each rule answers a [`ZeError`] (the result code and the sentence the
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

/// A broken rule: the drivers' one error, [`ZeError`], with the code the call returns and a
/// reason that names the object and the limit.
pub use zekit_icd_rt::ZeError;

/// What a rule answers.
pub type Checked<T> = Result<T, ZeError>;
