//! The programmable Level Zero mock driver: the pure-Rust core the generated C-ABI layer consults
//! on every call.
//!
//! - [`script`]: call log, programmed results, expectations and sequences ([`script::script()`]).
//! - [`profile`]: the device the mock reports, YAML with a built-in default.
//! - [`scenario`]: YAML scenario files named by `ZEKIT_MOCK_SCENARIO`.

pub mod profile;
pub mod scenario;
pub mod script;

pub use profile::Profile;
pub use scenario::Scenario;
pub use script::{script, Args, Call, Count, Script, Sequence};
