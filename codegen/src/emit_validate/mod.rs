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
//!    unless the validation level is strict (`zekit_rt::strict`), and noted once with
//!    `zekit_rt::lenient`: compute-runtime does not read `stype` of a parameter's own struct;
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
use crate::params;
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

// ---------------------------------------------------------------------------------------------
// Spec facts shared by all functions

struct EnumInfo {
    /// Rust type to construct values with (the resolved C name).
    ty: String,
    /// Known values, in spec order, deduplicated.
    values: Vec<u32>,
    /// `kind: flags` (both the `*_flags_t` set and the `*_flag_t` bits).
    flags: bool,
    /// The member is `or_all_ones`: `UINT32_MAX` is valid too (flags: "every kind").
    all_ones: bool,
}

impl EnumInfo {
    fn mask(&self) -> u32 {
        self.values.iter().fold(0, |a, v| a | v)
    }

    fn first(&self) -> u32 {
        if self.flags {
            0
        } else {
            self.values.first().copied().unwrap_or(0)
        }
    }

    /// A value the validation rejects.
    fn bad(&self) -> Option<u32> {
        if self.flags {
            let m = self.mask();
            (0..32).rev().map(|b| 1u32 << b).find(|b| m & b == 0)
        } else {
            (0..0x7fff_ffffu32).rev().find(|v| !self.values.contains(v))
        }
    }
}

struct Shared<'a> {
    api: &'a Api,
    /// Stype values per family (`desc`, `properties`, ...) of the structs whose base is a
    /// `*_base_<family>_t` (rule 5's test picks a wrong but known value from it).
    families: BTreeMap<String, BTreeSet<u32>>,
    /// The spec's chains (`extends`).
    chains: Chains,
    /// Rule 6 per chain head: the checker it uses.
    chain_rule: BTreeMap<String, usize>,
    /// Rule 6 checkers: one per distinct (accepted, rejected) pair of structure type sets.
    rules: Vec<ChainRule>,
}

/// How rule 6 treats the links of one kind of chain.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ChainRule {
    /// `chain_<first head>`, or `chain_<ns>_<family>` for a rule without extensions.
    name: String,
    /// The heads using it, in spec order.
    heads: Vec<String>,
    /// Structure types the chain may hold: its extensions (`extends`, closed over), and the
    /// unplaced extensions of its family (the spec does not say where those go).
    accept: Vec<u32>,
    /// The other structure types of the head's structure type enum: known, not allowed here.
    reject: Vec<u32>,
    /// (struct, stype) of each extension, then of each unplaced extension, for the tests.
    extensions: Vec<(String, u32)>,
    unplaced: Vec<(String, u32)>,
    /// A known structure placed elsewhere (or any known one), for the tests.
    misplaced: Option<(String, u32)>,
}

impl<'a> Shared<'a> {
    fn new(api: &'a Api) -> Shared<'a> {
        let mut families: BTreeMap<String, BTreeSet<u32>> = BTreeMap::new();
        for ns in NAMESPACES {
            for (_, d) in api.docs(ns) {
                if let Entry::Struct(s) = &d.entry {
                    let Some(fam) = s.base.as_deref().and_then(family_of_base) else { continue };
                    let set = families.entry(fam).or_default();
                    for st in &s.stype {
                        if let Some(v) = api.values.get(st) {
                            set.insert(*v as u32);
                        }
                    }
                }
            }
        }
        let chains = api.chains();
        let mut rules: Vec<ChainRule> = vec![];
        let mut chain_rule = BTreeMap::new();
        let first = |api: &Api, n: &str| -> Option<u32> {
            match api.entry(n) {
                Some(Entry::Struct(s)) => s.stype.first().and_then(|st| api.values.get(st)).map(|v| *v as u32),
                _ => None,
            }
        };
        for head in &chains.heads {
            let extensions: Vec<(String, u32)> =
                head.extensions.iter().filter_map(|n| Some((n.clone(), first(api, n)?))).collect();
            let unplaced: Vec<(String, u32)> =
                chains.unplaced_for(head).filter_map(|n| Some((n.to_string(), first(api, n)?))).collect();
            let mut accept = BTreeSet::new();
            for n in head.extensions.iter().map(String::as_str).chain(chains.unplaced_for(head)) {
                if let Some(Entry::Struct(x)) = api.entry(n) {
                    accept.extend(x.stype.iter().filter_map(|st| api.values.get(st)).map(|v| *v as u32));
                }
            }
            let mut reject = BTreeSet::new();
            if let Some(Entry::Enum(e)) = api.entry(&head.stype_enum) {
                for et in e.etors.iter().filter(|et| !et.name.ends_with("_FORCE_UINT32")) {
                    if let Some(v) = api.values.get(&et.name) {
                        if !accept.contains(&(*v as u32)) {
                            reject.insert(*v as u32);
                        }
                    }
                }
            }
            // Prefer a structure the spec places in some other chain.
            let misplaced = api
                .structs()
                .filter(|x| !x.extends.is_empty() && api.stype_enum_of(x).as_deref() == Some(head.stype_enum.as_str()))
                .filter_map(|x| Some((x.name.clone(), first(api, &x.name)?)))
                .find(|(_, v)| reject.contains(v))
                .or_else(|| {
                    api.structs()
                        .filter(|x| api.stype_enum_of(x).as_deref() == Some(head.stype_enum.as_str()))
                        .filter_map(|x| Some((x.name.clone(), first(api, &x.name)?)))
                        .find(|(_, v)| reject.contains(v))
                });
            // Rules without extensions are shared by every head of a structure type enum and
            // family: named after those (`chain_ze_desc`).
            let name = if extensions.is_empty() {
                let ns = head.stype_enum.strip_suffix("_structure_type_t").unwrap_or(&head.stype_enum);
                format!("chain_{ns}_{}", head.family.as_deref().unwrap_or("other"))
            } else {
                format!("chain_{}", head.name)
            };
            let rule = ChainRule {
                name,
                heads: vec![head.name.clone()],
                accept: accept.into_iter().collect(),
                reject: reject.into_iter().collect(),
                extensions,
                unplaced,
                misplaced,
            };
            let same = rules.iter().position(|r| r.accept == rule.accept && r.reject == rule.reject);
            let i = match same {
                Some(i) => {
                    rules[i].heads.push(head.name.clone());
                    i
                }
                None => {
                    rules.push(rule);
                    rules.len() - 1
                }
            };
            chain_rule.insert(head.name.clone(), i);
        }
        Shared { api, families, chains, chain_rule, rules }
    }

    /// The head a parameter starts a chain of, with its rule: a single struct pointer to a
    /// chain head, or a function's own `pNext` parameter.
    fn chain_of(&self, f: &Function, p: &PInfo) -> Option<(&ChainHead, &ChainRule)> {
        let name = match p.single_struct() {
            Some(s) => s.to_string(),
            None if p.field.name == "pNext" && matches!(p.kind, PK::Ptr { .. }) => f.name.clone(),
            None => return None,
        };
        let head = self.chains.head(&name)?;
        if head.function != (p.single_struct().is_none()) {
            return None;
        }
        Some((head, &self.rules[*self.chain_rule.get(&name)?]))
    }

    fn enum_info(&self, name: &str) -> Option<EnumInfo> {
        let resolved = self.api.resolve_typedef(name);
        let kind = self.api.type_kind(resolved)?;
        let (Some(Entry::Enum(e)) | Some(Entry::Flags(e))) = self.api.entry(resolved) else { return None };
        let flags = matches!(kind, TypeKind::Flags | TypeKind::FlagBits);
        if !flags && kind != TypeKind::Enum {
            return None;
        }
        let mut values = vec![];
        for et in &e.etors {
            if et.name.ends_with("_FORCE_UINT32") {
                continue;
            }
            if let Some(v) = self.api.values.get(&et.name) {
                if !values.contains(&(*v as u32)) {
                    values.push(*v as u32);
                }
            }
        }
        Some(EnumInfo { ty: resolved.to_string(), values, flags, all_ones: false })
    }

    fn structure(&self, name: &str) -> Option<&'a Struct> {
        match self.api.entry(self.api.resolve_typedef(name)) {
            Some(Entry::Struct(s)) => Some(s),
            _ => None,
        }
    }

    /// The family of a struct (`desc`, `properties`, ...), from its base or its own name.
    fn family(&self, s: &Struct) -> Option<String> {
        s.base.as_deref().and_then(family_of_base).or_else(|| family_of_base(&s.name))
    }

    fn has_member(&self, s: &Struct, m: &str) -> bool {
        self.api.all_members(s).iter().any(|f| f.name == m)
    }

    /// Values of a struct's own `stype` list.
    fn stypes(&self, s: &Struct) -> Vec<u32> {
        s.stype.iter().filter_map(|n| self.api.values.get(n)).map(|v| *v as u32).collect()
    }

    /// The enum and flags members rule 4 checks: (member name, type).
    fn enum_members(&self, s: &Struct) -> Vec<(String, EnumInfo)> {
        let mut out = vec![];
        for m in self.api.all_members(s) {
            let t = CType::parse(&m.ty);
            if m.name == "stype" || m.array.is_some() || t.is_pointer() {
                continue;
            }
            if let Some(e) = self.enum_info(&t.base) {
                out.push((m.name.clone(), EnumInfo { all_ones: m.or_all_ones, ..e }));
            }
        }
        out
    }

    /// The Rust type of a struct member (for constructing enum newtypes: the resolved name).
    fn member_ty(&self, s: &Struct, m: &str) -> Option<String> {
        self.api.all_members(s).iter().find(|f| f.name == m).map(|f| self.api.resolve_typedef(&CType::parse(&f.ty).base).to_string())
    }
}

// ---------------------------------------------------------------------------------------------
// C integer types

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct IntTy {
    bits: u32,
    signed: bool,
    name: &'static str,
}

impl IntTy {
    const INT: IntTy = IntTy { bits: 32, signed: true, name: "i32" };
    const U32: IntTy = IntTy { bits: 32, signed: false, name: "u32" };
    const I64: IntTy = IntTy { bits: 64, signed: true, name: "i64" };
    const USIZE: IntTy = IntTy { bits: 64, signed: false, name: "usize" };

    fn of_scalar(name: &str) -> Option<IntTy> {
        let (bits, signed, name) = match name {
            "uint8_t" | "unsigned char" => (8, false, "u8"),
            "int8_t" | "signed char" | "char" => (8, true, "i8"),
            "uint16_t" => (16, false, "u16"),
            "int16_t" => (16, true, "i16"),
            "uint32_t" | "unsigned int" | "unsigned" => (32, false, "u32"),
            "int32_t" | "int" => (32, true, "i32"),
            "uint64_t" => (64, false, "u64"),
            "int64_t" => (64, true, "i64"),
            "size_t" | "uintptr_t" => (64, false, "usize"),
            "intptr_t" => (64, true, "isize"),
            _ => return None,
        };
        Some(IntTy { bits, signed, name })
    }

    /// C's integer promotion.
    fn promote(self) -> IntTy {
        if self.bits < 32 {
            IntTy::INT
        } else {
            self
        }
    }

    /// `v` converted to this type (C's modular conversion).
    fn wrap(self, v: i128) -> i128 {
        let m = (1i128 << self.bits) - 1;
        let u = v & m;
        if self.signed && u >= 1i128 << (self.bits - 1) {
            u - (1i128 << self.bits)
        } else {
            u
        }
    }

    fn tokens(self) -> TokenStream {
        let i = format_ident!("{}", self.name);
        quote!(#i)
    }

    /// A typed literal of `v` (already in range).
    fn lit(self, v: i128) -> TokenStream {
        let v = self.wrap(v);
        if v < 0 {
            let name = match self.name {
                "i8" => "u8",
                "i16" => "u16",
                "i32" => "u32",
                "i64" => "u64",
                _ => "usize",
            };
            let unsigned = IntTy { signed: false, name, ..self };
            let u = unsigned.lit(unsigned.wrap(v));
            let t = self.tokens();
            return quote!((#u as #t));
        }
        let l: Literal = format!("{v}{}", self.name).parse().expect("integer literal");
        quote!(#l)
    }
}

/// C's usual arithmetic conversions.
fn common(a: IntTy, b: IntTy) -> IntTy {
    let (a, b) = (a.promote(), b.promote());
    if a.bits == b.bits && a.signed == b.signed {
        return a;
    }
    if a.signed == b.signed {
        return if a.bits > b.bits { a } else { b };
    }
    let (u, s) = if a.signed { (b, a) } else { (a, b) };
    if u.bits >= s.bits {
        u
    } else {
        s
    }
}

/// A literal's C type.
fn literal_ty(v: i64) -> IntTy {
    if i32::try_from(v).is_ok() {
        IntTy::INT
    } else {
        IntTy::I64
    }
}

// ---------------------------------------------------------------------------------------------
// Parameters of one function

#[derive(Debug, Clone)]
enum RangeLen {
    Param(usize),
    Deref(usize),
}

#[derive(Debug, Clone)]
enum Pointee {
    Int(IntTy),
    Enum(String),
    Struct(String),
    Other,
}

#[derive(Debug, Clone)]
enum PK {
    Handle,
    Ptr { range: Option<RangeLen>, pointee: Pointee, single: bool },
    Int(IntTy),
    /// Enum or flags by value (resolved type name).
    Enum(String),
    /// Struct by value (resolved name).
    Struct(String),
    Other,
}

struct PInfo<'a> {
    field: &'a Field,
    ct: CType,
    kind: PK,
    /// `[in]` (or a `const` pointee).
    is_in: bool,
}

impl PInfo<'_> {
    fn ident(&self) -> proc_macro2::Ident {
        ident(&self.field.name)
    }

    /// A pointer rule 2 guarantees non-null.
    fn checked_non_null(&self) -> bool {
        matches!(self.kind, PK::Ptr { range: None, .. } | PK::Handle) && !self.field.optional
    }

    /// Whether the outermost pointer is `*const`.
    fn outer_const(&self) -> bool {
        match self.ct.ptrs.len() {
            0 => false,
            1 => self.ct.konst,
            n => self.ct.ptrs[n - 2],
        }
    }

    /// A single, non-range struct pointer: (struct).
    fn single_struct(&self) -> Option<&str> {
        match &self.kind {
            PK::Ptr { range: None, pointee: Pointee::Struct(s), single: true } => Some(s),
            _ => None,
        }
    }
}

/// A value a test argument set gives to one condition operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MVal {
    Int(i128),
    /// Non-null?
    Ptr(bool),
}

/// An operand of a condition: something a test can set.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Leaf {
    Param(usize),
    Deref(usize),
    Arrow(usize, String),
    Dot(usize, String),
}

#[derive(Debug, Clone)]
enum LK {
    Int { ty: IntTy, newtype: Option<String> },
    Ptr,
}

type Model = BTreeMap<Leaf, MVal>;

/// The first check that fails for an argument set (rules 1, 2 and 8; the tests keep rules 3-6
/// satisfied unless they break one on purpose).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fire {
    Handle(usize),
    Null(usize),
    Range(usize),
    Cond(usize),
}

/// A translated condition.
struct Translated {
    /// The Rust condition (without its guards).
    tokens: TokenStream,
    /// Its value, when evaluated over a test argument set.
    value: Option<bool>,
    /// Pointer parameters to test for null first (a null one makes the condition false).
    guards: Vec<usize>,
    /// The operands it reads, in order (with repeats).
    leaves: Vec<Leaf>,
}

struct Cond {
    code: String,
    text: String,
    expr: Expr,
    /// Why the condition is checked only at the strict level ([`LENIENT_CONDITIONS`]).
    lenient: Option<&'static str>,
}

pub use lenient::{lenient_flags, LENIENT_CONDITIONS, LENIENT_FLAGS};

struct FnCx<'a> {
    sh: &'a Shared<'a>,
    f: &'a Function,
    ps: Vec<PInfo<'a>>,
    conds: Vec<Cond>,
}

impl<'a> FnCx<'a> {
    fn new(sh: &'a Shared<'a>, f: &'a Function) -> Result<FnCx<'a>, String> {
        let api = sh.api;
        let model = params::of_function(api, f);
        let mut ps = vec![];
        for m in &model {
            let (ct, base, tk) = (m.ct.clone(), m.base.clone(), m.kind.clone());
            let kind = if ct.ptrs.is_empty() {
                match tk {
                    Some(TypeKind::Handle) => PK::Handle,
                    Some(TypeKind::Enum | TypeKind::Flags | TypeKind::FlagBits) => PK::Enum(base.clone()),
                    Some(TypeKind::Struct) => PK::Struct(base.clone()),
                    _ => match IntTy::of_scalar(&base) {
                        Some(t) => PK::Int(t),
                        None => PK::Other,
                    },
                }
            } else {
                let single = ct.ptrs.len() == 1;
                let pointee = if !single {
                    Pointee::Other
                } else {
                    match tk {
                        Some(TypeKind::Enum | TypeKind::Flags | TypeKind::FlagBits) => Pointee::Enum(base.clone()),
                        Some(TypeKind::Struct) => Pointee::Struct(base.clone()),
                        _ => match IntTy::of_scalar(&base) {
                            Some(t) if base != "char" => Pointee::Int(t),
                            _ => Pointee::Other,
                        },
                    }
                };
                // Ranges name their count (normalised by the shared parameter model).
                let range = match &m.range {
                    None => None,
                    Some(Ok(params::RangeLen::Param(j))) => Some(RangeLen::Param(*j)),
                    Some(Ok(params::RangeLen::Deref(j))) => Some(RangeLen::Deref(*j)),
                    Some(Err(e)) => return Err(e.clone()),
                };
                PK::Ptr { range, pointee, single }
            };
            ps.push(PInfo { field: m.field, ct, kind, is_in: m.input });
        }
        let mut conds = vec![];
        for r in &f.returns {
            for w in &r.when {
                let e = expr::parse(w).map_err(|e| format!("{}: condition `{w}` does not parse: {e}", f.name))?;
                if !api.values.contains_key(&r.code) {
                    return Err(format!("{}: return code `{}` is not an enumerator", f.name, r.code));
                }
                let lenient = LENIENT_CONDITIONS.iter().find(|l| l.0 == f.name && l.1 == w.trim()).map(|l| l.2);
                conds.push(Cond { code: r.code.clone(), text: w.clone(), expr: e, lenient });
            }
        }
        Ok(FnCx { sh, f, ps, conds })
    }

    fn api(&self) -> &'a Api {
        self.sh.api
    }

    fn param(&self, n: &str) -> Option<usize> {
        self.ps.iter().position(|p| p.field.name == n)
    }

    // ---- leaves

    fn member_kind(&self, s: &str, m: &str) -> Result<LK, String> {
        let st = self.sh.structure(s).ok_or_else(|| format!("`{s}` is not a struct"))?;
        let mem = self.api().all_members(st).into_iter().find(|f| f.name == m).ok_or_else(|| format!("`{s}` has no member `{m}`"))?;
        if mem.array.is_some() {
            return Err(format!("member `{s}.{m}` is an array"));
        }
        let t = CType::parse(&mem.ty);
        let base = self.api().resolve_typedef(&t.base);
        if t.is_pointer() || self.api().type_kind(base) == Some(TypeKind::Handle) {
            return Ok(LK::Ptr);
        }
        if let Some(e) = self.sh.enum_info(base) {
            return Ok(LK::Int { ty: IntTy::U32, newtype: Some(e.ty) });
        }
        match IntTy::of_scalar(base) {
            Some(ty) => Ok(LK::Int { ty, newtype: None }),
            None => Err(format!("member `{s}.{m}` of type `{}` is not an integer or pointer", mem.ty)),
        }
    }

    fn leaf_kind(&self, l: &Leaf) -> Result<LK, String> {
        match l {
            Leaf::Param(i) => match &self.ps[*i].kind {
                PK::Handle | PK::Ptr { .. } => Ok(LK::Ptr),
                PK::Int(ty) => Ok(LK::Int { ty: *ty, newtype: None }),
                PK::Enum(e) => Ok(LK::Int { ty: IntTy::U32, newtype: Some(e.clone()) }),
                _ => Err(format!("parameter `{}` is not an integer or pointer", self.ps[*i].field.name)),
            },
            Leaf::Deref(i) => match &self.ps[*i].kind {
                PK::Ptr { pointee: Pointee::Int(ty), single: true, .. } => Ok(LK::Int { ty: *ty, newtype: None }),
                PK::Ptr { pointee: Pointee::Enum(e), single: true, .. } => {
                    Ok(LK::Int { ty: IntTy::U32, newtype: Some(e.clone()) })
                }
                _ => Err(format!("`*{}` is not an integer", self.ps[*i].field.name)),
            },
            Leaf::Arrow(i, m) => match self.ps[*i].single_struct() {
                Some(s) => self.member_kind(s, m),
                None => Err(format!("`{}` is not a pointer to one struct", self.ps[*i].field.name)),
            },
            Leaf::Dot(i, m) => match &self.ps[*i].kind {
                PK::Struct(s) => self.member_kind(s, m),
                _ => Err(format!("`{}` is not a struct", self.ps[*i].field.name)),
            },
        }
    }

    /// What a test argument set holds for `l` unless it sets it.
    fn leaf_default(&self, l: &Leaf) -> MVal {
        match l {
            Leaf::Param(i) => match &self.ps[*i].kind {
                PK::Handle | PK::Ptr { .. } => MVal::Ptr(true),
                PK::Enum(e) => MVal::Int(self.sh.enum_info(e).map_or(0, |e| e.first()) as i128),
                _ => MVal::Int(0),
            },
            Leaf::Deref(_) => MVal::Int(0),
            Leaf::Arrow(i, m) | Leaf::Dot(i, m) => {
                let s = match &self.ps[*i].kind {
                    PK::Struct(s) => Some(s.as_str()),
                    _ => self.ps[*i].single_struct(),
                };
                let Some(st) = s.and_then(|s| self.sh.structure(s)) else { return MVal::Int(0) };
                match self.leaf_kind(l) {
                    Ok(LK::Ptr) => MVal::Ptr(false),
                    _ if m == "stype" => MVal::Int(self.sh.stypes(st).first().copied().unwrap_or(0) as i128),
                    _ if self.ps[*i].is_in => match self.sh.enum_members(st).into_iter().find(|(n, _)| n == m) {
                        Some((_, e)) => MVal::Int(e.first() as i128),
                        None => MVal::Int(0),
                    },
                    _ => MVal::Int(0),
                }
            }
        }
    }

    fn get(&self, m: &Model, l: &Leaf) -> MVal {
        m.get(l).copied().unwrap_or_else(|| self.leaf_default(l))
    }

    fn leaf_label(&self, l: &Leaf) -> String {
        match l {
            Leaf::Param(i) => self.ps[*i].field.name.clone(),
            Leaf::Deref(i) => format!("*{}", self.ps[*i].field.name),
            Leaf::Arrow(i, m) => format!("{}->{m}", self.ps[*i].field.name),
            Leaf::Dot(i, m) => format!("{}.{m}", self.ps[*i].field.name),
        }
    }

    /// Rust access of a leaf in `validate.rs` (enum newtypes read through `.0`).
    fn leaf_access(&self, l: &Leaf, kind: &LK) -> TokenStream {
        let dot0 = match kind {
            LK::Int { newtype: Some(_), .. } => quote!(.0),
            _ => quote!(),
        };
        match l {
            Leaf::Param(i) => {
                let n = self.ps[*i].ident();
                quote!(#n #dot0)
            }
            Leaf::Deref(i) => {
                let n = self.ps[*i].ident();
                quote!((*#n) #dot0)
            }
            Leaf::Arrow(i, m) => {
                let n = self.ps[*i].ident();
                let m = ident(m);
                quote!((*#n).#m #dot0)
            }
            Leaf::Dot(i, m) => {
                let n = self.ps[*i].ident();
                let m = ident(m);
                quote!(#n.#m #dot0)
            }
        }
    }

    // ---- conditions

    /// Translates a condition, at run time (`model` none) or evaluated over a test argument set.
    fn translate(&self, e: &Expr, model: Option<&Model>) -> Result<Translated, String> {
        let mut tr = Tr { fx: self, model, derefs: vec![], leaves: vec![] };
        let v = tr.tr(e).map_err(|err| format!("{}: condition `{e}`: {err}", self.f.name))?;
        let (tokens, value) = truth(v);
        let guards: Vec<usize> = tr.derefs.iter().copied().filter(|i| !self.ps[*i].checked_non_null()).collect();
        Ok(Translated { tokens, value, guards, leaves: tr.leaves })
    }

    fn cond_holds(&self, j: usize, m: &Model) -> Result<bool, String> {
        let Translated { value: k, guards, .. } = self.translate(&self.conds[j].expr, Some(m))?;
        if guards.iter().any(|g| self.get(m, &Leaf::Param(*g)) == MVal::Ptr(false)) {
            return Ok(false);
        }
        k.ok_or_else(|| format!("{}: condition `{}` does not evaluate", self.f.name, self.conds[j].text))
    }

    fn count(&self, m: &Model, r: &RangeLen) -> i128 {
        match r {
            RangeLen::Param(n) => match self.get(m, &Leaf::Param(*n)) {
                MVal::Int(v) => v,
                MVal::Ptr(_) => 0,
            },
            RangeLen::Deref(n) => match (self.get(m, &Leaf::Param(*n)), self.get(m, &Leaf::Deref(*n))) {
                (MVal::Ptr(true), MVal::Int(v)) => v,
                _ => 0,
            },
        }
    }

    fn simulate(&self, m: &Model) -> Result<Option<Fire>, String> {
        for (i, p) in self.ps.iter().enumerate() {
            if matches!(p.kind, PK::Handle) && !p.field.optional && self.get(m, &Leaf::Param(i)) == MVal::Ptr(false) {
                return Ok(Some(Fire::Handle(i)));
            }
        }
        for (i, p) in self.ps.iter().enumerate() {
            let PK::Ptr { range, .. } = &p.kind else { continue };
            if p.field.optional || self.get(m, &Leaf::Param(i)) != MVal::Ptr(false) {
                continue;
            }
            match range {
                None => return Ok(Some(Fire::Null(i))),
                Some(r) if self.count(m, r) != 0 => return Ok(Some(Fire::Range(i))),
                Some(_) => {}
            }
        }
        // The tests run at the compatible level, where lenient conditions do not fire.
        for j in 0..self.conds.len() {
            if self.conds[j].lenient.is_none() && self.cond_holds(j, m)? {
                return Ok(Some(Fire::Cond(j)));
            }
        }
        Ok(None)
    }

    fn fire_code(&self, f: Fire) -> String {
        match f {
            Fire::Handle(_) => "ZE_RESULT_ERROR_INVALID_NULL_HANDLE".into(),
            Fire::Null(_) | Fire::Range(_) => "ZE_RESULT_ERROR_INVALID_NULL_POINTER".into(),
            Fire::Cond(j) => self.conds[j].code.clone(),
        }
    }

    /// Settable operands of condition `j`.
    fn cond_leaves(&self, j: usize) -> Result<Vec<Leaf>, String> {
        let leaves = self.translate(&self.conds[j].expr, None)?.leaves;
        let mut out = vec![];
        for l in leaves {
            if !out.contains(&l) {
                out.push(l);
            }
        }
        Ok(out)
    }

    fn candidates(&self, l: &Leaf) -> Vec<MVal> {
        match self.leaf_kind(l) {
            Ok(LK::Ptr) => vec![MVal::Ptr(false), MVal::Ptr(true)],
            _ => INT_CANDIDATES.iter().map(|v| MVal::Int(*v)).collect(),
        }
    }

    /// The valid argument set: defaults, then values that make every condition false.
    fn valid_model(&self) -> Result<Model, String> {
        let mut m = Model::new();
        // Size-like integers a condition reads start at 1.
        for j in 0..self.conds.len() {
            for l in self.cond_leaves(j)? {
                if let Leaf::Param(i) = l {
                    if matches!(self.ps[i].kind, PK::Int(_)) && self.ps[i].field.name.to_ascii_lowercase().contains("size") {
                        m.insert(l, MVal::Int(1));
                    }
                }
            }
        }
        for _ in 0..32 {
            match self.simulate(&m)? {
                None => return Ok(m),
                Some(Fire::Cond(j)) => {
                    let mut fixed = false;
                    'search: for l in self.cond_leaves(j)? {
                        for c in self.candidates(&l) {
                            if self.get(&m, &l) == c {
                                continue;
                            }
                            let mut m2 = m.clone();
                            m2.insert(l.clone(), c);
                            if !self.cond_holds(j, &m2)?
                                && !matches!(self.simulate(&m2)?, Some(Fire::Cond(k)) if k < j)
                                && !matches!(self.simulate(&m2)?, Some(Fire::Handle(_) | Fire::Null(_) | Fire::Range(_)))
                            {
                                m = m2;
                                fixed = true;
                                break 'search;
                            }
                        }
                    }
                    if !fixed {
                        return Err(format!(
                            "{}: no valid argument set: condition `{}` holds and no operand value in 0..=3 or null/non-null makes it false",
                            self.f.name, self.conds[j].text
                        ));
                    }
                }
                Some(other) => {
                    return Err(format!("{}: the valid argument set fails {other:?}", self.f.name));
                }
            }
        }
        Err(format!("{}: no valid argument set within 32 steps", self.f.name))
    }
}

/// A translated (sub)expression: tokens, its C type, and its value when constant.
enum TV {
    Int { ts: TokenStream, ty: IntTy, k: Option<i128> },
    Bool { ts: TokenStream, k: Option<bool> },
    /// `k`: non-null?
    Ptr { ts: TokenStream, k: Option<bool> },
}

fn truth(v: TV) -> (TokenStream, Option<bool>) {
    match v {
        TV::Bool { ts, k } => (ts, k),
        TV::Int { ts, k, .. } => (quote!((#ts != 0)), k.map(|v| v != 0)),
        TV::Ptr { ts, k } => (quote!((!#ts.is_null())), k),
    }
}

/// `(x)` → `x` (a condition's outermost parentheses).
fn strip_parens(ts: TokenStream) -> TokenStream {
    let mut it = ts.clone().into_iter();
    match (it.next(), it.next()) {
        (Some(proc_macro2::TokenTree::Group(g)), None) if g.delimiter() == proc_macro2::Delimiter::Parenthesis => g.stream(),
        _ => ts,
    }
}

fn lit_bool(b: bool) -> TokenStream {
    if b {
        quote!(true)
    } else {
        quote!(false)
    }
}

struct Tr<'f, 'a> {
    fx: &'f FnCx<'a>,
    model: Option<&'f Model>,
    derefs: Vec<usize>,
    leaves: Vec<Leaf>,
}

impl Tr<'_, '_> {
    fn err<T>(&self, what: &str) -> Result<T, String> {
        Err(format!("cannot translate {what}"))
    }

    fn leaf(&mut self, l: Leaf) -> Result<TV, String> {
        let kind = self.fx.leaf_kind(&l)?;
        if let Leaf::Deref(i) | Leaf::Arrow(i, _) = &l {
            if !self.derefs.contains(i) {
                self.derefs.push(*i);
            }
        }
        self.leaves.push(l.clone());
        let ts = self.fx.leaf_access(&l, &kind);
        let val = self.model.map(|m| self.fx.get(m, &l));
        Ok(match kind {
            LK::Ptr => TV::Ptr { ts, k: val.map(|v| v == MVal::Ptr(true)) },
            LK::Int { ty, .. } => TV::Int {
                ts,
                ty,
                k: val.map(|v| match v {
                    MVal::Int(x) => ty.wrap(x),
                    MVal::Ptr(_) => 0,
                }),
            },
        })
    }

    fn param(&self, n: &str) -> Result<usize, String> {
        self.fx.param(n).ok_or_else(|| format!("cannot translate `{n}`: not a parameter"))
    }

    fn konst(v: i128, ty: IntTy) -> TV {
        TV::Int { ts: ty.lit(v), ty, k: Some(ty.wrap(v)) }
    }

    fn as_int(v: TV) -> Result<(TokenStream, IntTy, Option<i128>), String> {
        match v {
            TV::Int { ts, ty, k } => Ok((ts, ty, k)),
            TV::Bool { ts, k } => Ok((quote!((#ts as i32)), IntTy::INT, k.map(|b| b as i128))),
            TV::Ptr { .. } => Err("cannot translate a pointer used as an integer".into()),
        }
    }

    fn cast(ts: TokenStream, from: IntTy, k: Option<i128>, to: IntTy) -> (TokenStream, Option<i128>) {
        if let Some(v) = k {
            return (to.lit(v), Some(to.wrap(v)));
        }
        if from.name == to.name {
            return (ts, None);
        }
        let t = to.tokens();
        (quote!((#ts as #t)), None)
    }

    fn tr(&mut self, e: &Expr) -> Result<TV, String> {
        let api = self.fx.api();
        match e {
            Expr::Int(v) => Ok(Self::konst(*v as i128, literal_ty(*v))),
            Expr::Null => Ok(TV::Ptr { ts: quote!(::core::ptr::null::<u8>()), k: Some(false) }),
            Expr::Ident(n) => {
                if let Some(i) = self.fx.param(n) {
                    return self.leaf(Leaf::Param(i));
                }
                match api.values.get(n) {
                    Some(v) => Ok(Self::konst(*v as i128, literal_ty(*v))),
                    None => self.err(&format!("`{n}`: neither a parameter nor a known constant")),
                }
            }
            Expr::Unary(UnOp::Deref, x) => match &**x {
                Expr::Ident(n) => {
                    let i = self.param(n)?;
                    self.leaf(Leaf::Deref(i))
                }
                _ => self.err(&format!("`{e}`: only a parameter can be dereferenced")),
            },
            Expr::Member(b, m, arrow) => match &**b {
                Expr::Ident(n) => {
                    let i = self.param(n)?;
                    if *arrow {
                        self.leaf(Leaf::Arrow(i, m.clone()))
                    } else {
                        self.leaf(Leaf::Dot(i, m.clone()))
                    }
                }
                _ => self.err(&format!("`{e}`: only members of a parameter are supported")),
            },
            Expr::Index(..) => self.err(&format!("`{e}`: indexing is not supported")),
            Expr::Call(name, args) => {
                if name == "sizeof" {
                    if let [Expr::Ident(t)] = args.as_slice() {
                        if let Some((size, _)) = api.size_align(&CType::parse(t)) {
                            return Ok(Self::konst(size as i128, IntTy::USIZE));
                        }
                    }
                    return self.err(&format!("`{e}`: unknown type"));
                }
                match api.eval(&e.to_string()) {
                    Some(v) => Ok(Self::konst(v as i128, literal_ty(v))),
                    None => self.err(&format!("`{e}`: not a constant")),
                }
            }
            Expr::Unary(UnOp::AddrOf, _) => self.err(&format!("`{e}`: `&` is not supported")),
            Expr::Unary(UnOp::Not, x) => {
                let (ts, k) = truth(self.tr(x)?);
                Ok(TV::Bool { ts: quote!((!#ts)), k: k.map(|b| !b) })
            }
            Expr::Unary(op @ (UnOp::Neg | UnOp::BitNot), x) => {
                let (ts, ty, k) = Self::as_int(self.tr(x)?)?;
                let pt = ty.promote();
                let (ts, k) = Self::cast(ts, ty, k, pt);
                if let Some(v) = k {
                    let r = if *op == UnOp::Neg { -v } else { !v };
                    return Ok(Self::konst(r, pt));
                }
                let ts = if *op == UnOp::Neg { quote!(#ts.wrapping_neg()) } else { quote!((!#ts)) };
                Ok(TV::Int { ts, ty: pt, k: None })
            }
            Expr::Binary(op, a, b) => self.binary(*op, a, b),
        }
    }

    fn binary(&mut self, op: BinOp, a: &Expr, b: &Expr) -> Result<TV, String> {
        let va = self.tr(a)?;
        let vb = self.tr(b)?;
        match op {
            BinOp::And | BinOp::Or => {
                let (ta, ka) = truth(va);
                let (tb, kb) = truth(vb);
                let and = op == BinOp::And;
                let k = match (ka, kb) {
                    (Some(x), Some(y)) => Some(if and { x && y } else { x || y }),
                    (Some(x), _) | (_, Some(x)) if x != and => Some(x),
                    _ => None,
                };
                if let Some(k) = k {
                    return Ok(TV::Bool { ts: lit_bool(k), k: Some(k) });
                }
                let ts = match (ka, kb) {
                    (Some(_), _) => tb,
                    (_, Some(_)) => ta,
                    _ if and => quote!((#ta && #tb)),
                    _ => quote!((#ta || #tb)),
                };
                Ok(TV::Bool { ts, k: None })
            }
            BinOp::Eq | BinOp::Ne if matches!(va, TV::Ptr { .. }) || matches!(vb, TV::Ptr { .. }) => {
                let (TV::Ptr { ts: ta, k: ka }, TV::Ptr { ts: tb, k: kb }) = (va, vb) else {
                    return self.err(&format!("`{a} {} {b}`: a pointer compared with an integer", op.symbol()));
                };
                let eq = op == BinOp::Eq;
                // Only `nullptr == p` (either side): p's null-ness decides.
                let (other, ko) = if matches!(a, Expr::Null) {
                    (tb, kb)
                } else if matches!(b, Expr::Null) {
                    (ta, ka)
                } else {
                    let _ = (ka, kb);
                    return self.err(&format!("`{a} {} {b}`: pointers may only be compared with nullptr", op.symbol()));
                };
                if let Some(nonnull) = ko {
                    let r = if eq { !nonnull } else { nonnull };
                    return Ok(TV::Bool { ts: lit_bool(r), k: Some(r) });
                }
                let ts = if eq { quote!(#other.is_null()) } else { quote!((!#other.is_null())) };
                Ok(TV::Bool { ts, k: None })
            }
            BinOp::Shl | BinOp::Shr => {
                let (ta, tya, ka) = Self::as_int(va)?;
                let (tb, tyb, kb) = Self::as_int(vb)?;
                let pt = tya.promote();
                let (ta, ka) = Self::cast(ta, tya, ka, pt);
                let (tb, kb) = Self::cast(tb, tyb, kb, tyb.promote());
                if let (Some(x), Some(y)) = (ka, kb) {
                    let s = (y & (pt.bits as i128 - 1)) as u32;
                    let r = if op == BinOp::Shl { x << s } else { x >> s };
                    return Ok(Self::konst(r, pt));
                }
                let ts = if op == BinOp::Shl {
                    quote!(#ta.wrapping_shl(#tb as u32))
                } else {
                    quote!(#ta.wrapping_shr(#tb as u32))
                };
                Ok(TV::Int { ts, ty: pt, k: None })
            }
            _ => {
                let (ta, tya, ka) = Self::as_int(va)?;
                let (tb, tyb, kb) = Self::as_int(vb)?;
                let ct = common(tya, tyb);
                let (ta, ka) = Self::cast(ta, tya, ka, ct);
                let (tb, kb) = Self::cast(tb, tyb, kb, ct);
                let cmp = |f: fn(&i128, &i128) -> bool, t: TokenStream| -> TV {
                    match (ka, kb) {
                        (Some(x), Some(y)) => {
                            let r = f(&x, &y);
                            TV::Bool { ts: lit_bool(r), k: Some(r) }
                        }
                        _ => TV::Bool { ts: t, k: None },
                    }
                };
                let arith = |f: &dyn Fn(i128, i128) -> i128, t: TokenStream| -> TV {
                    match (ka, kb) {
                        (Some(x), Some(y)) => Self::konst(f(x, y), ct),
                        _ => TV::Int { ts: t, ty: ct, k: None },
                    }
                };
                Ok(match op {
                    BinOp::Eq => cmp(i128::eq, quote!((#ta == #tb))),
                    BinOp::Ne => cmp(i128::ne, quote!((#ta != #tb))),
                    BinOp::Lt => cmp(i128::lt, quote!((#ta < #tb))),
                    BinOp::Le => cmp(i128::le, quote!((#ta <= #tb))),
                    BinOp::Gt => cmp(i128::gt, quote!((#ta > #tb))),
                    BinOp::Ge => cmp(i128::ge, quote!((#ta >= #tb))),
                    BinOp::Add => arith(&|x, y| x.wrapping_add(y), quote!(#ta.wrapping_add(#tb))),
                    BinOp::Sub => arith(&|x, y| x.wrapping_sub(y), quote!(#ta.wrapping_sub(#tb))),
                    BinOp::Mul => arith(&|x, y| x.wrapping_mul(y), quote!(#ta.wrapping_mul(#tb))),
                    BinOp::Div => arith(&|x, y| if y == 0 { 0 } else { x / y }, quote!(#ta.checked_div(#tb).unwrap_or(0))),
                    BinOp::Rem => arith(&|x, y| if y == 0 { x } else { x % y }, quote!(#ta.checked_rem(#tb).unwrap_or(#ta))),
                    BinOp::BitAnd => arith(&|x, y| x & y, quote!((#ta & #tb))),
                    BinOp::BitOr => arith(&|x, y| x | y, quote!((#ta | #tb))),
                    BinOp::BitXor => arith(&|x, y| x ^ y, quote!((#ta ^ #tb))),
                    BinOp::And | BinOp::Or | BinOp::Shl | BinOp::Shr => unreachable!(),
                })
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// validate.rs

/// `matches!` pattern of a set of values, contiguous runs as ranges.
fn value_pattern(values: &[u32]) -> TokenStream {
    let mut v: Vec<u32> = values.to_vec();
    v.sort_unstable();
    v.dedup();
    let mut pats = vec![];
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[j] + 1 {
            j += 1;
        }
        let (a, b) = (hex(v[i]), hex(v[j]));
        pats.push(if i == j { quote!(#a) } else { quote!(#a..=#b) });
        i = j + 1;
    }
    if pats.is_empty() {
        // No known value: nothing matches (`0` with an impossible guard keeps the arm shape).
        return quote!(_ if false);
    }
    quote!(#(#pats)|*)
}

fn hex(v: u32) -> Literal {
    if v > 0xffff {
        format!("{v:#010x}").parse().expect("hex literal")
    } else {
        Literal::u32_unsuffixed(v)
    }
}

/// Enum/flags check of one value (`access` reads the `u32`; `what` names it in the reason).
fn enum_check(e: &EnumInfo, access: TokenStream, what: &str) -> TokenStream {
    if e.flags {
        let not_mask = !e.mask();
        if not_mask == 0 {
            return quote!();
        }
        let nm = format!("{not_mask:#010x}").parse::<Literal>().expect("hex");
        let why = format!("{what} has bits this API version does not define");
        if e.all_ones {
            return quote!(if #access != u32::MAX && #access & #nm != 0 { return Err(bad(ZeError::INVALID_ENUMERATION, #why)); });
        }
        quote!(if #access & #nm != 0 { return Err(bad(ZeError::INVALID_ENUMERATION, #why)); })
    } else {
        let pat = value_pattern(&e.values);
        let why = format!("{what} is not a value of its enumeration");
        quote!(match #access { #pat => {} _ => return Err(bad(ZeError::INVALID_ENUMERATION, #why)), })
    }
}

mod cases;
mod checks;
mod lenient;

pub use checks::{condition_rust, emit, try_emit};
pub use cases::{emit_tests, test_summary, try_emit_tests};
