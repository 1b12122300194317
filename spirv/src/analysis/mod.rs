//! Analyses of the IR that the backend plans its code with: [`regions`] splits kernels at their
//! work-group barriers.

pub mod regions;
