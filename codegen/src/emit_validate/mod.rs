//! Parameter validation of `zekit-icd` (`src/validate.rs`) and its table-driven test
//! (`tests/validation.rs`), both derived from the spec alone.
//!
//! `validate.rs` holds one `pub unsafe fn <function>(<C parameters>) -> ZeResult<()>` per API
//! function. The checks run in this order; the first failure wins:
//!
//! 1. every non-optional handle parameter that is null: `ZE_RESULT_ERROR_INVALID_NULL_HANDLE`;
//! 2. every non-optional pointer parameter that is null: `ZE_RESULT_ERROR_INVALID_NULL_POINTER`.
//!    A `[range(a, n)]` pointer may be null while its count `n` is 0 (a `*pCount` count is read
//!    only when `pCount` is not null); a range bound written in backticks names a parameter;
//! 3. every enum parameter (by value) whose value is none of its type's enumerators (legacy
//!    names included, `*_FORCE_UINT32` excluded), and every flags parameter with a bit outside
//!    the OR of its type's bits: `ZE_RESULT_ERROR_INVALID_ENUMERATION` (the flags of
//!    [`LENIENT_FLAGS`] only at the strict level);
//! 4. the same, one level down, for the enum and flags members (not arrays, not `stype`) of
//!    `[in]` struct parameters: single `[in]` struct pointers (a `const` pointee counts as `[in]`)
//!    and structs by value. Handle and pointer members are not checked (members carry no
//!    reliable `optional`): `ZE_RESULT_ERROR_INVALID_ENUMERATION`;
//! 5. `stype` of single `[in]` struct pointers whose struct lists `stype` values: it must be one
//!    of them. The spec names no code for this and upstream's validation layer does not check
//!    it; zekit answers `ZE_RESULT_ERROR_INVALID_ARGUMENT`. An `stype` left at 0 is accepted
//!    unless the validation level is strict (`zekit_icd_rt::strict`), and noted once with
//!    `zekit_icd_rt::lenient`: compute-runtime does not read `stype` of a parameter's own struct;
//! 6. the `pNext` chain of every single struct pointer whose struct is a chain head (`[in]`
//!    descriptors and the `[out]`/`[in,out]` properties, state, ... structs the caller
//!    initialises), and of every function's own `pNext` parameter, walked with
//!    `zekit_sys::chain::Links`: more than 64 links (or a cycle) fails; a link whose `stype` is
//!    a structure the spec lets into that chain (`extends`, closed over: what extends an
//!    extension may follow it) passes; so does an extension whose place the spec does not state
//!    at all ([`crate::model::Chains::unplaced`]: a structure type and a base, no `extends`,
//!    never a parameter or member type) when it has the head's structure type enum and family,
//!    which was the rule for every link before the spec had `extends`; any other structure type
//!    of the head's enum (`ze_structure_type_t` for `ze` heads, ...) is known and misplaced:
//!    `ZE_RESULT_ERROR_INVALID_ARGUMENT`; a value the enum does not know is skipped (an extension
//!    newer than this spec). A head nothing extends accepts only the unplaced extensions. Heads
//!    with identical rules share one `chain_*` function;
//! 7. (`[range]` consistency is rule 2);
//! 8. every code condition of the spec (`returns[].when`, parsed by [`crate::expr`]), in spec
//!    order, with its `code` (those of [`LENIENT_CONDITIONS`] only at the strict level). Translation: `nullptr == p` → `p.is_null()`, `p->m` → `(*p).m`,
//!    `*p` → `*p`, enumerators and macros → their values, `sizeof(T)` → the model's size;
//!    integer operands follow C's promotions and usual arithmetic conversions (explicit casts,
//!    wrapping `+ - *`, `x % 0` is taken as `x` and `x / 0` as `0` instead of trapping). A pointer
//!    the condition dereferences that rules 1-2 do not already guarantee non-null is tested
//!    first, and a null one makes the condition false. A condition that does not translate
//!    fails generation.
//!
//! Not checked (not derivable from the spec): arrays of structs or enums behind `[range]`
//! pointers, members more than one level down, function-pointer parameters, handle values
//! beyond null (the entry points check handle objects when converting).
//!
//! `tests/validation.rs` is one table: for every function it builds a valid argument set
//! (dummy non-null handles, non-null pointers into a zeroed 16-byte aligned scratch area with
//! `stype` set, first enumerators, zero flags, counts 0, and whatever values make the spec's
//! conditions false, searched in 0..=3), asserts `Ok(())`, then asserts the exact code for each
//! bad argument derivable from the rules above: each non-optional handle or pointer null, each
//! enum (`0x7ffffffe`) and flags (an unknown bit) parameter or `[in]` member, each wrong
//! `stype`, each chain (an extension accepted, an unplaced one tolerated, a misplaced known
//! structure rejected alone and behind an unknown link, an unknown structure type skipped,
//! 64 links accepted and 65 rejected once per rule, a cycle), and each condition made the
//! first failing check by changing at most two of its operands.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::emit_icd::{all_functions, c_params};
use crate::emit_rust::{ident, rust_type_tokens};
use crate::expr::{self, BinOp, Expr, UnOp};
use crate::load::NAMESPACES;
use crate::params::{self, RangeLen};
use crate::model::{family_of_base, Api, CType, ChainHead, Chains, TypeKind};
use crate::spec::*;

/// Longest `pNext` chain accepted.
pub const CHAIN_LIMIT: u32 = 64;
/// The value the tests give an enum to make it unknown.
const BAD_ENUM: u32 = 0x7fff_fffe;
/// Largest element count the tests use (range buffers hold this many elements).
const MAX_COUNT: i128 = 3;
/// Values tried for integer operands when searching argument sets.
const INT_CANDIDATES: [i128; 4] = [1, 2, 3, 0];

mod cases;
mod checks;
mod fncx;
mod int_ty;
mod lenient;
mod param;
mod search;
mod shared;
mod translate;

use checks::hex;
use fncx::*;
use int_ty::*;
use param::*;
use shared::*;
use translate::*;

pub use cases::{emit_tests, test_summary, try_emit_tests};
pub use checks::{condition_rust, emit, try_emit};
pub use lenient::{lenient_flags, LENIENT_CONDITIONS, LENIENT_FLAGS};
