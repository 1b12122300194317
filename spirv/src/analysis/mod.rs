//! Analyses of the IR that the backend plans its code with: [`regions`] splits kernels at their
//! work-group barriers; [`effects`] says whether a kernel leaves any trace; `lockstep` (with `divergence` and `records`) decides which kernels run
//! several work-items at a time and how; `uniform` finds what every work-item of a group
//! computes alike.

#[cfg(feature = "jit")]
pub(crate) mod divergence;
#[cfg(feature = "jit")]
pub(crate) mod lockstep;
#[cfg(feature = "jit")]
pub(crate) mod records;
pub mod effects;
pub mod regions;
#[cfg(feature = "llvm")]
pub(crate) mod uniform;
