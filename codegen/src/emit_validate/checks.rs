//! Rules 1-8 as generated checks: `validate/mod.rs` and one `validate/<ns>.rs` per namespace.

use super::*;

impl FnCx<'_> {
    fn guard(&self, p: &PInfo, body: TokenStream) -> TokenStream {
        if body.is_empty() {
            return body;
        }
        if p.checked_non_null() {
            body
        } else {
            let n = p.ident();
            quote!(if !#n.is_null() { #body })
        }
    }

    fn checks(&self) -> Result<(Vec<TokenStream>, BTreeSet<String>), String> {
        let sh = self.sh;
        let mut out = vec![];
        let mut fams = BTreeSet::new();
        // 1. handles
        for p in &self.ps {
            if matches!(p.kind, PK::Handle) && !p.field.optional {
                let n = p.ident();
                let why = format!("{} is null", p.field.name);
                out.push(quote!(if #n.is_null() { return Err(bad(ZeError::INVALID_NULL_HANDLE, #why)); }));
            }
        }
        // 2. pointers (7. ranges)
        for p in &self.ps {
            let PK::Ptr { range, .. } = &p.kind else { continue };
            if p.field.optional {
                continue;
            }
            let n = p.ident();
            let null = format!("{} is null", p.field.name);
            let counted = format!("{} is null with a non-zero count", p.field.name);
            out.push(match range {
                None => quote!(if #n.is_null() { return Err(bad(ZeError::INVALID_NULL_POINTER, #null)); }),
                Some(RangeLen::Param(c)) => {
                    let c = self.ps[*c].ident();
                    quote!(if #n.is_null() && #c != 0 { return Err(bad(ZeError::INVALID_NULL_POINTER, #counted)); })
                }
                Some(RangeLen::Deref(c)) => {
                    let c = self.ps[*c].ident();
                    quote!(if #n.is_null() && !#c.is_null() && *#c != 0 { return Err(bad(ZeError::INVALID_NULL_POINTER, #counted)); })
                }
            });
        }
        // 3. enums and flags by value
        for p in &self.ps {
            if let PK::Enum(t) = &p.kind {
                let e = sh.enum_info(t).ok_or_else(|| format!("{}: `{t}` is not an enum", self.f.name))?;
                let n = p.ident();
                let check = enum_check(&e, quote!(#n.0), &p.field.name);
                // Strict only where listed: the driver takes the bits it knows.
                out.push(if lenient_flags(&self.f.name, &p.field.name).is_some() { quote!(if zekit_icd_rt::strict() { #check }) } else { check });
            }
        }
        // 4. enum and flags members of [in] structs
        for p in &self.ps {
            let n = p.ident();
            let (s, by_value) = match (&p.kind, p.single_struct()) {
                (PK::Struct(s), _) => (s.as_str(), true),
                (_, Some(s)) if p.input => (s, false),
                _ => continue,
            };
            let Some(st) = sh.structure(s) else { continue };
            let mut body = vec![];
            for (m, e) in sh.enum_members(st) {
                let what = format!("{}{}{m}", p.field.name, if by_value { "." } else { "->" });
                let m = ident(&m);
                body.push(if by_value { enum_check(&e, quote!(#n.#m.0), &what) } else { enum_check(&e, quote!((*#n).#m.0), &what) });
            }
            let body = quote!(#(#body)*);
            out.push(if by_value { body } else { self.guard(p, body) });
        }
        // 5. stype of [in] struct pointers
        for p in &self.ps {
            let Some(s) = p.single_struct() else { continue };
            let Some(st) = sh.structure(s) else { continue };
            let stypes = sh.stypes(st);
            if !p.input || stypes.is_empty() || !sh.has_member(st, "stype") {
                continue;
            }
            let n = p.ident();
            let pat = value_pattern(&stypes);
            let why = format!("{}->stype is not the structure type of {s}", p.field.name);
            // An `stype` left at 0 is unambiguous (the parameter's type says which structure
            // it is): compute-runtime reads it as that structure, and so does the compatible
            // level.
            let unset = format!("{}->stype left at 0, read as {s}", p.field.name);
            let fname = &self.f.name;
            out.push(self.guard(p, quote!(match (*#n).stype.0 {
                #pat => {}
                0 if !zekit_icd_rt::strict() => zekit_icd_rt::lenient(#fname, #unset),
                _ => return Err(bad(ZeError::INVALID_ARGUMENT, #why)),
            })));
        }
        // 6. pNext chains
        for p in &self.ps {
            let Some((head, rule)) = sh.chain_of(self.f, p) else { continue };
            let n = p.ident();
            let cf = format_ident!("{}", rule.name);
            fams.insert(rule.name.clone());
            let start = if head.function { quote!(#n as *const c_void) } else { quote!((*#n).pNext as *const c_void) };
            let call = quote!(#cf(#start)?;);
            // A function's `pNext` may be null: the chain is empty.
            out.push(if head.function { call } else { self.guard(p, call) });
        }
        // 8. code conditions
        for c in &self.conds {
            let Translated { tokens: ts, guards, .. } = self.translate(&c.expr, None)?;
            let gs = guards.iter().map(|g| {
                let g = self.ps[*g].ident();
                quote!(!#g.is_null() &&)
            });
            let code = ident(&c.code);
            let ts = strip_parens(ts);
            let why = format!("`{}`", c.text.trim());
            out.push(match c.lenient {
                None => quote!(if #(#gs)* #ts { return Err(bad(ZeError::of(#code), #why)); }),
                Some(note) => {
                    let fname = &self.f.name;
                    quote!(if #(#gs)* #ts {
                        if zekit_icd_rt::strict() { return Err(bad(ZeError::of(#code), #why)); }
                        zekit_icd_rt::lenient(#fname, #note);
                    })
                }
            });
        }
        Ok((out, fams))
    }
}


/// `validate.rs`, or why the spec cannot be translated.
pub fn try_emit(api: &Api) -> Result<Vec<(String, TokenStream)>, String> {
    let sh = Shared::new(api);
    let mut fns: BTreeMap<&str, Vec<TokenStream>> = BTreeMap::new();
    let mut fams = BTreeSet::new();
    for f in all_functions(api) {
        let fx = FnCx::new(&sh, f)?;
        let (cs, fs) = fx.checks()?;
        fams.extend(fs);
        let name = ident(&f.name);
        let ps = c_params(f);
        let doc = format!(" Validates the arguments of `{}`.", f.name);
        fns.entry(crate::model::func_ns(&f.name)).or_default().push(quote! {
            #[doc = #doc]
            pub unsafe fn #name(#(#ps),*) -> ZeResult<()> {
                #(#cs)*
                Ok(())
            }
        });
    }
    let chains = sh.rules.iter().filter(|r| fams.contains(&r.name)).map(|r| {
        let cf = format_ident!("{}", r.name);
        let mut doc = vec![format!(" Rule 6 for the `pNext` chain of `{}`", r.heads[0])];
        if r.heads.len() > 1 {
            doc[0].push_str(&format!(" (and of {} other heads with the same structure types)", r.heads.len() - 1));
        }
        doc[0].push('.');
        let names = |v: &[(String, u32)]| v.iter().map(|(n, _)| format!("`{n}`")).collect::<Vec<_>>().join(", ");
        if !r.extensions.is_empty() {
            doc.push(format!(" Its extensions (`extends`): {}.", names(&r.extensions)));
        }
        if !r.unplaced.is_empty() {
            doc.push(format!(" Tolerated, the spec not saying where they go: {}.", names(&r.unplaced)));
        }
        let doc = doc.iter().map(|l| quote!(#[doc = #l]));
        let accept = (!r.accept.is_empty()).then(|| {
            let pat = value_pattern(&r.accept);
            quote!(#pat => {})
        });
        let reject = (!r.reject.is_empty()).then(|| {
            let pat = value_pattern(&r.reject);
            quote!(#pat => return Err(zekit_icd_rt::fail(ZeError::INVALID_ARGUMENT, format_args!("a structure of type {:#x} in a pNext chain does not extend the structure it is chained to", link.stype))),)
        });
        let c = crate::emit_rust::comment("SAFETY: the caller's promise: `p` is null or a chain of structures that start with stype and pNext.");
        quote! {
            #(#doc)*
            unsafe fn #cf(p: *const c_void) -> ZeResult<()> {
                #c
                let mut links = unsafe { chain::Links::new(p) };
                for link in links.by_ref() {
                    match link.stype {
                        #accept
                        #reject
                        _ => {}
                    }
                }
                if links.truncated() {
                    return Err(bad(ZeError::INVALID_ARGUMENT, "a pNext chain is longer than 64 links, or a cycle"));
                }
                Ok(())
            }
        }
    });
    let docs = module_doc_lines().into_iter().map(|l| quote!(#![doc = #l]));
    let namespaces: Vec<&str> = crate::load::NAMESPACES.into_iter().filter(|ns| fns.contains_key(ns)).collect();
    let mods = namespaces.iter().map(|ns| {
        let m = ident(ns);
        quote!(pub mod #m; pub use #m::*;)
    });
    let mut files = vec![(
        "zekit-icd/src/validate/mod.rs".to_string(),
        quote! {
            #(#docs)*
            #![allow(non_snake_case, unused_variables, unused_unsafe, unused_parens, clippy::all)]
            use ::core::ffi::{c_char, c_int, c_void};
            use zekit_icd_rt::{ZeError, ZeResult};
            use zekit_sys::*;

            #(#mods)*

            /// A failed check: the code, with its reason for the entry layer's log line.
            #[cold]
            fn bad(code: ZeError, why: &'static str) -> ZeError {
                zekit_icd_rt::fail(code, why)
            }

            #(#chains)*
            #[allow(unused_imports)]
            use {c_char as _, c_int as _};
        },
    )];
    for ns in namespaces {
        let doc = format!(" Parameter validation of the `{ns}` functions (rules: see the parent module).");
        let fs = &fns[ns];
        files.push((
            format!("zekit-icd/src/validate/{ns}.rs"),
            quote! {
                #![doc = #doc]
                #![allow(non_snake_case, unused_variables, unused_unsafe, unused_parens, unused_imports, clippy::all)]
                use super::*;
                #(#fs)*
            },
        ));
    }
    Ok(files)
}

/// The rules, as the generated module documents them.
fn module_doc_lines() -> Vec<String> {
    [
        "Parameter validation derived from the spec (`codegen/src/emit_validate/`).",
        "",
        "One function per API function; checks in this order, the first failure wins:",
        "",
        "1. a non-optional handle is null: `ZE_RESULT_ERROR_INVALID_NULL_HANDLE`;",
        "2. a non-optional pointer is null: `ZE_RESULT_ERROR_INVALID_NULL_POINTER` (a `[range]` pointer",
        "   may be null while its count is 0; a `*pCount` count is read only when `pCount` is not null);",
        "3. an enum parameter is none of its enumerators, or a flags parameter has a bit outside its",
        "   known bits: `ZE_RESULT_ERROR_INVALID_ENUMERATION`;",
        "4. the same for the enum and flags members of `[in]` struct parameters (one level; not",
        "   arrays, not `stype`): `ZE_RESULT_ERROR_INVALID_ENUMERATION`;",
        "5. `stype` of an `[in]` struct pointer is not one of its struct's structure types:",
        "   `ZE_RESULT_ERROR_INVALID_ARGUMENT` (the spec names no code; zekit's choice); an `stype`",
        "   left at 0 is accepted unless the validation level is strict (`ZEKIT_VALIDATION=strict`);",
        "6. a `pNext` chain (of a struct parameter, or a function's own `pNext`) is longer than 64",
        "   links (or cyclic), or a link is a structure the spec knows but does not let into that chain",
        "   (`extends`, closed over; extensions whose place the spec does not state are tolerated in",
        "   chains of their family): `ZE_RESULT_ERROR_INVALID_ARGUMENT`. A structure type the spec",
        "   does not know is skipped (a newer application's extension). Walked by `zekit_sys::chain`;",
        "7. (`[range]` consistency is rule 2);",
        "8. the spec's code conditions (`returns[].when`), in spec order, with their codes; a",
        "   pointer a condition dereferences is tested first when rules 1-2 do not guarantee it,",
        "   and a null one makes the condition false; `x % 0` is `x` and `x / 0` is 0. Those",
        "   compute-runtime does not enforce (`LENIENT_CONDITIONS` of `codegen/src/emit_validate`)",
        "   fail only at the strict level.",
        "",
        "Each failure notes its reason (`pCount is null`, the condition's text, ...) with",
        "`zekit_icd_rt::fail`, for the entry layer's one log line and last-error record.",
    ]
    .iter()
    .map(|l| if l.is_empty() { String::new() } else { format!(" {l}") })
    .collect()
}

/// The tokens of `validate.rs`.
///
/// # Panics
/// When the spec holds something the rules cannot translate (a condition, a range bound): the
/// message names the function and the condition, and generation fails (`emit_icd` runs the
/// emitters as jobs and reports a panicked one as an error). [`try_emit`] returns the error.
pub fn emit(api: &Api) -> Vec<(String, TokenStream)> {
    try_emit(api).unwrap_or_else(|e| panic!("validation emitter: {e}"))
}

/// The Rust `if` condition rule 8 emits for a spec condition of `f`, with its null guards
/// (for tests and diagnostics).
pub fn condition_rust(api: &Api, f: &Function, when: &str) -> Result<String, String> {
    let sh = Shared::new(api);
    let fx = FnCx::new(&sh, f)?;
    let e = expr::parse(when)?;
    let Translated { tokens: ts, guards, .. } = fx.translate(&e, None)?;
    let gs = guards.iter().map(|g| {
        let g = fx.ps[*g].ident();
        quote!(!#g.is_null() &&)
    });
    let ts = strip_parens(ts);
    let tokens = quote!(fn f() { if #(#gs)* #ts {} });
    let file: syn::File = syn::parse2(tokens).map_err(|e| e.to_string())?;
    let text = prettyplease::unparse(&file);
    let inner = text.trim().strip_prefix("fn f() {").and_then(|t| t.strip_suffix('}')).unwrap_or(&text).trim();
    let inner = inner.strip_prefix("if ").and_then(|t| t.strip_suffix("{}")).unwrap_or(inner).trim();
    Ok(inner.to_string())
}

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

pub(super) fn hex(v: u32) -> Literal {
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
