//! The part of this crate generated from the spec's annotations by `cargo xtask gen`
//! (`codegen/src/emit_safe/` → `generated/zekit/safe.rs`): one wrapper type per handle kind
//! and every function of the spec as a method (safe, or `unsafe` with raw parameters), and
//! [`REACH`], how each function is reached.
#![allow(non_snake_case, clippy::all)]

use crate::chain::{Chain, Extends};
use crate::object::{Object, RawHandle, Release};
use crate::util::{c_string, copy_c_str, no_chain, same_len, slice_len, string_from_chars, Kept};
use crate::{Api, Error, Reach, Result};
#[allow(unused_imports)]
use std::ffi::{c_char, c_int, c_void};
#[allow(unused_imports)]
use zekit_sys::*;

include!("../../generated/zekit/safe.rs");
