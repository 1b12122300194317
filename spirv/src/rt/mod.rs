//! Host functions that generated code calls: the math shims (`math`), the slow paths of lockstep
//! memory accesses (`lanes`), `printf` ([`crate::printf`]) and image access
//! ([`crate::image::zekit_image`]).

pub mod image;
#[cfg(feature = "jit")]
pub(crate) mod lanes;
#[cfg(feature = "jit")]
pub(crate) mod math;
#[cfg(feature = "jit")]
pub mod printf;
