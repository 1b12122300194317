//! ABI comparison harness for the Level Zero headers.
//!
//! The reference is Debian's `libze-dev` (API 1.4), installed under `/usr/include/level_zero/`.
//! Those headers are machine-generated and very regular, so they are read with a small text
//! parser: comments are stripped, the handful of `#if` forms they use are evaluated for gcc on
//! Linux, and the remaining code is split into statements at top-level `;`.
//!
//! From the parsed items two C translation units are generated:
//!
//! * a *probe* that prints one `KIND NAME VALUE` line per item (sizes, alignments, member
//!   offsets, enumerator values, macro values, presence of functions). It is compiled and run
//!   once against the reference include root and once against the candidate root, and the two
//!   outputs are compared item by item. Items that do not compile against the candidate (for
//!   example a missing member) are taken out one compile round at a time and reported as
//!   missing, so one missing item does not hide all the others.
//! * a *signature* unit that includes the candidate headers and then repeats, verbatim, every
//!   reference function declaration, function-pointer typedef and plain typedef, a tag check for
//!   every struct/union/enum, and a type check for every struct member. C11 accepts compatible
//!   redeclarations and gcc rejects conflicting ones, so `-fsyntax-only -Werror` proves that the
//!   signatures match. Each redeclaration sits on its own line, so every error maps back to the
//!   item that caused it.

mod compare;
mod compile;
mod model;
mod parse;
mod preproc;
mod probe;
mod sig;

pub use compare::{compare, missing_headers};
pub use compile::TempDir;
pub use parse::parse_headers;

/// The headers compared, in include order. `zer` has no Debian counterpart (API 1.4 predates it).
pub const HEADERS: [&str; 6] = [
    "ze_api.h",
    "ze_ddi.h",
    "zet_api.h",
    "zet_ddi.h",
    "zes_api.h",
    "zes_ddi.h",
];

/// Include root of Debian's `libze-dev` headers (system-wide, or where `cargo xtask test`
/// unpacked them: see `zekit_testkit::level_zero_root`).
pub fn debian_include_root() -> std::path::PathBuf {
    zekit_testkit::debian_include_dir()
}

/// How many difference lines a failure message lists.
pub const MAX_LISTED: usize = 200;

/// Arguments used to probe function-like macros, by position.
const FN_MACRO_ARGS: [&str; 4] = ["3", "5", "7", "11"];

