//! The generated table-driven tests of the checks: every function with valid arguments, and
//! with each derivable bad one (`zekit-icd/tests/validation.rs`).

use super::*;

// ---------------------------------------------------------------------------------------------
// tests/validation.rs

/// One test case: statements that break (or keep) the valid set, and the expected code.
struct Case {
    rule: u8,
    label: String,
    stmts: Vec<TokenStream>,
    /// `None`: `Ok(())`.
    want: Option<String>,
}

/// What a test function needs to know about where parameters point.
struct Layout {
    /// Scratch offset of each pointer parameter's buffer.
    offsets: Vec<Option<u64>>,
    /// Offset of the buffer the `pNext` cases link to.
    ext: u64,
    size: u64,
}

impl FnCx<'_> {
    /// Bytes behind one element a pointer parameter addresses.
    fn elem_size(&self, p: &PInfo) -> Result<u64, String> {
        if p.ct.ptrs.len() > 1 {
            return Ok(8);
        }
        let base = p.base.as_str();
        Ok(match base {
            "void" => 1,
            "char" => 1,
            // Types outside the model's layouts (the tracing `ze_callbacks_t`): validation never
            // reads them, any buffer does.
            _ => self.api().size_align(&CType { konst: false, base: base.to_string(), ptrs: vec![] }).map_or(64, |s| s.0),
        })
    }

    fn layout(&self) -> Result<Layout, String> {
        let mut off = 0u64;
        let mut offsets = vec![];
        for p in &self.ps {
            let PK::Ptr { range, .. } = &p.kind else {
                offsets.push(None);
                continue;
            };
            let el = self.elem_size(p)?;
            let size = match range {
                Some(_) => el * MAX_COUNT as u64,
                None if p.ct.ptrs.len() == 1 && p.ct.base == "void" => 64,
                None => el,
            };
            offsets.push(Some(off));
            off += size.max(16).div_ceil(16) * 16;
        }
        // The `pNext` cases link here: up to CHAIN_LIMIT + 1 links of 16 bytes.
        Ok(Layout { offsets, ext: off, size: off + 16 * (CHAIN_LIMIT as u64 + 1) })
    }

    fn at(&self, lay: &Layout, i: usize) -> TokenStream {
        let off = Literal::u64_unsuffixed(lay.offsets[i].unwrap_or(0));
        quote!(__s.add(#off))
    }

    /// `(*__p_<param>)`: the struct behind a single struct pointer parameter's buffer (the
    /// setup declares `__p_<param>`).
    fn pointee_struct(&self, i: usize) -> TokenStream {
        let p = format_ident!("__p_{}", self.ps[i].field.name);
        quote!((*#p))
    }

    fn int_value(v: i128, newtype: &Option<String>) -> TokenStream {
        let l = Literal::i128_unsuffixed(v);
        match newtype {
            Some(t) => {
                let t = ident(t);
                let h = hex(v as u32);
                quote!(#t(#h))
            }
            None => quote!(#l),
        }
    }

    /// A statement that gives `l` the value `v`.
    fn assign(&self, lay: &Layout, l: &Leaf, v: MVal) -> Result<TokenStream, String> {
        let kind = self.leaf_kind(l)?;
        let val = match (v, &kind) {
            (MVal::Int(x), LK::Int { newtype, .. }) => Self::int_value(x, newtype),
            (MVal::Ptr(true), _) => quote!(h::<u8>() as _),
            (MVal::Ptr(false), _) => quote!(::core::ptr::null_mut::<u8>() as _),
            (MVal::Int(_), LK::Ptr) => return Err(format!("{}: integer for a pointer", self.f.name)),
        };
        Ok(match l {
            Leaf::Param(i) => {
                let p = &self.ps[*i];
                let n = p.ident();
                match (&p.kind, v) {
                    (PK::Handle, MVal::Ptr(true)) => quote!(#n = h()),
                    (PK::Handle, MVal::Ptr(false)) => quote!(#n = ::core::ptr::null_mut()),
                    (PK::Ptr { .. }, MVal::Ptr(true)) => {
                        let at = self.at(lay, *i);
                        quote!(#n = #at as _)
                    }
                    (PK::Ptr { .. }, MVal::Ptr(false)) if p.pointee_const() => quote!(#n = ::core::ptr::null()),
                    (PK::Ptr { .. }, MVal::Ptr(false)) => quote!(#n = ::core::ptr::null_mut()),
                    _ => quote!(#n = #val),
                }
            }
            Leaf::Deref(i) => {
                let at = self.at(lay, *i);
                let t = match &self.ps[*i].kind {
                    PK::Ptr { pointee: Pointee::Int(ty), .. } => ty.tokens(),
                    PK::Ptr { pointee: Pointee::Enum(e), .. } => {
                        let e = ident(e);
                        quote!(#e)
                    }
                    _ => return Err(format!("{}: `*{}` is not settable", self.f.name, self.ps[*i].field.name)),
                };
                quote!(*#at.cast::<#t>() = #val)
            }
            Leaf::Arrow(i, m) => {
                let ps = self.pointee_struct(*i);
                let m = ident(m);
                quote!(#ps.#m = #val)
            }
            Leaf::Dot(i, m) => {
                let n = self.ps[*i].ident();
                let m = ident(m);
                quote!(#n.#m = #val)
            }
        })
    }

    fn val_label(v: MVal) -> String {
        match v {
            MVal::Int(x) => x.to_string(),
            MVal::Ptr(true) => "non-null".into(),
            MVal::Ptr(false) => "null".into(),
        }
    }

    fn model_case(&self, lay: &Layout, rule: u8, label: String, changes: &[(Leaf, MVal)], want: Option<String>) -> Result<Case, String> {
        let stmts = changes.iter().map(|(l, v)| self.assign(lay, l, *v)).collect::<Result<Vec<_>, _>>()?;
        Ok(Case { rule, label, stmts, want })
    }

    fn changes_label(&self, changes: &[(Leaf, MVal)]) -> String {
        changes.iter().map(|(l, v)| format!("{} = {}", self.leaf_label(l), Self::val_label(*v))).collect::<Vec<_>>().join(", ")
    }

    /// Parameter declarations and setup of the valid argument set.
    fn setup(&self, lay: &Layout, valid: &Model) -> Result<Vec<TokenStream>, String> {
        let sh = self.sh;
        let mut out = vec![];
        let mut later = vec![];
        for (i, p) in self.ps.iter().enumerate() {
            let n = p.ident();
            let t = rust_type_tokens(&p.field.ty);
            let v = self.get(valid, &Leaf::Param(i));
            if let Some(s) = p.single_struct() {
                let at = self.at(lay, i);
                let pn = format_ident!("__p_{}", p.field.name);
                let st = ident(s);
                out.push(quote!(let #pn = #at.cast::<#st>();));
            }
            out.push(match &p.kind {
                PK::Handle => quote!(let mut #n: #t = h();),
                PK::Ptr { .. } => {
                    let at = self.at(lay, i);
                    quote!(let mut #n: #t = #at as _;)
                }
                PK::Int(_) => {
                    let MVal::Int(x) = v else { return Err(format!("{}: bad valid value", self.f.name)) };
                    let l = Literal::i128_unsuffixed(x);
                    quote!(let mut #n: #t = #l;)
                }
                PK::Enum(e) => {
                    let MVal::Int(x) = v else { return Err(format!("{}: bad valid value", self.f.name)) };
                    let val = Self::int_value(x, &Some(e.clone()));
                    quote!(let mut #n: #t = #val;)
                }
                PK::Struct(_) | PK::Other => quote!(let mut #n: #t = ::core::mem::zeroed();),
            });
            // Pointees and by-value members: stype, first enumerators.
            let (s, by_value) = match (&p.kind, p.single_struct()) {
                (PK::Struct(s), _) => (s.as_str(), true),
                (_, Some(s)) => (s, false),
                _ => continue,
            };
            let Some(st) = sh.structure(s) else { continue };
            let target = if by_value { quote!(#n) } else { self.pointee_struct(i) };
            if !by_value && sh.has_member(st, "stype") {
                if let (Some(v), Some(ty)) = (sh.stypes(st).first(), sh.member_ty(st, "stype")) {
                    let val = Self::int_value(*v as i128, &Some(ty));
                    later.push(quote!(#target.stype = #val;));
                }
            }
            if by_value || p.input {
                for (m, e) in sh.enum_members(st) {
                    if e.flags {
                        continue;
                    }
                    let val = Self::int_value(e.first() as i128, &Some(e.ty.clone()));
                    let m = ident(&m);
                    later.push(quote!(#target.#m = #val;));
                }
            }
        }
        out.extend(later);
        for (l, v) in valid {
            if matches!(l, Leaf::Param(_)) {
                continue;
            }
            let a = self.assign(lay, l, *v)?;
            out.push(quote!(#a;));
        }
        Ok(out)
    }

    /// Every case of this function; notes: conditions no case reaches.
    /// `limits`: the families whose chain length limit a case already tests.
    fn cases(&self, lay: &Layout, valid: &Model, notes: &mut Vec<String>, limits: &mut BTreeSet<String>) -> Result<Vec<Case>, String> {
        let sh = self.sh;
        let mut cases = vec![Case { rule: 0, label: "valid arguments".into(), stmts: vec![], want: None }];
        let fire_case = |rule: u8, changes: Vec<(Leaf, MVal)>, expect: Fire, cases: &mut Vec<Case>| -> Result<(), String> {
            let mut m = valid.clone();
            for (l, v) in &changes {
                m.insert(l.clone(), *v);
            }
            let got = self.simulate(&m)?;
            if got != Some(expect) {
                return Err(format!("{}: case {} does not fail as expected ({got:?})", self.f.name, self.changes_label(&changes)));
            }
            let label = self.changes_label(&changes);
            cases.push(self.model_case(lay, rule, label, &changes, Some(self.fire_code(expect)))?);
            Ok(())
        };
        // 1. null handles
        for (i, p) in self.ps.iter().enumerate() {
            if matches!(p.kind, PK::Handle) && !p.field.optional {
                fire_case(1, vec![(Leaf::Param(i), MVal::Ptr(false))], Fire::Handle(i), &mut cases)?;
            }
        }
        // 2. null pointers; null ranges with and without elements
        for (i, p) in self.ps.iter().enumerate() {
            let PK::Ptr { range, .. } = &p.kind else { continue };
            if p.field.optional {
                continue;
            }
            let null = (Leaf::Param(i), MVal::Ptr(false));
            match range {
                None => fire_case(2, vec![null], Fire::Null(i), &mut cases)?,
                Some(r) => {
                    let count_leaf = match r {
                        RangeLen::Param(c) => Leaf::Param(*c),
                        RangeLen::Deref(c) => Leaf::Deref(*c),
                    };
                    if self.count(valid, r) == 0 {
                        let mut m = valid.clone();
                        m.insert(null.0.clone(), null.1);
                        let got = self.simulate(&m)?;
                        let label = format!("{} (count 0: allowed)", self.changes_label(std::slice::from_ref(&null)));
                        cases.push(self.model_case(lay, 2, label, std::slice::from_ref(&null), got.map(|g| self.fire_code(g)))?);
                        fire_case(2, vec![null, (count_leaf, MVal::Int(1))], Fire::Range(i), &mut cases)?;
                    } else {
                        fire_case(2, vec![null], Fire::Range(i), &mut cases)?;
                    }
                }
            }
        }
        let enum_code = || Some("ZE_RESULT_ERROR_INVALID_ENUMERATION".to_string());
        let arg_code = || Some("ZE_RESULT_ERROR_INVALID_ARGUMENT".to_string());
        // 3. enums and flags by value
        for p in &self.ps {
            let PK::Enum(t) = &p.kind else { continue };
            let Some(e) = sh.enum_info(t) else { continue };
            let Some(bad) = e.bad() else { continue };
            if lenient_flags(&self.f.name, &p.field.name).is_some() {
                continue; // strict only; the tests run at the compatible level
            }
            let n = p.ident();
            let val = Self::int_value(bad as i128, &Some(e.ty.clone()));
            cases.push(Case { rule: 3, label: format!("{} = {bad:#x}", p.field.name), stmts: vec![quote!(#n = #val)], want: enum_code() });
        }
        // 4. members of [in] structs
        for (i, p) in self.ps.iter().enumerate() {
            let n = p.ident();
            let (s, by_value) = match (&p.kind, p.single_struct()) {
                (PK::Struct(s), _) => (s.as_str(), true),
                (_, Some(s)) if p.input => (s, false),
                _ => continue,
            };
            let Some(st) = sh.structure(s) else { continue };
            let target = if by_value { quote!(#n) } else { self.pointee_struct(i) };
            for (m, e) in sh.enum_members(st) {
                let Some(bad) = e.bad() else { continue };
                let val = Self::int_value(bad as i128, &Some(e.ty.clone()));
                let mi = ident(&m);
                let sep = if by_value { "." } else { "->" };
                cases.push(Case {
                    rule: 4,
                    label: format!("{}{sep}{m} = {bad:#x}", p.field.name),
                    stmts: vec![quote!(#target.#mi = #val)],
                    want: enum_code(),
                });
            }
        }
        // 5. wrong stype
        for (i, p) in self.ps.iter().enumerate() {
            let Some(s) = p.single_struct() else { continue };
            let Some(st) = sh.structure(s) else { continue };
            let own = sh.stypes(st);
            if !p.input || own.is_empty() || !sh.has_member(st, "stype") {
                continue;
            }
            let known = sh.family(st).and_then(|f| sh.families.get(&f)).and_then(|set| set.iter().find(|v| !own.contains(v)).copied());
            let wrong = known.unwrap_or(BAD_ENUM);
            let target = self.pointee_struct(i);
            let ty = sh.member_ty(st, "stype").unwrap_or_default();
            let val = Self::int_value(wrong as i128, &Some(ty));
            cases.push(Case {
                rule: 5,
                label: format!("{}->stype = {wrong:#x}", p.field.name),
                stmts: vec![quote!(#target.stype = #val)],
                want: arg_code(),
            });
            // Left at 0: accepted at the compatible level (the tests' level).
            let zero = Self::int_value(0, &Some(sh.member_ty(st, "stype").unwrap_or_default()));
            cases.push(Case {
                rule: 5,
                label: format!("{}->stype = 0 (unset: accepted)", p.field.name),
                stmts: vec![quote!(#target.stype = #zero)],
                want: None,
            });
        }
        // 6. pNext chains: an extension accepted, a tolerated unplaced one, a misplaced known
        // structure rejected (also behind an unknown link), an unknown one skipped, the limit,
        // a cycle.
        for (i, p) in self.ps.iter().enumerate() {
            let Some((head, rule)) = sh.chain_of(self.f, p) else { continue };
            let n = &p.field.name;
            let ext = Literal::u64_unsuffixed(lay.ext);
            let ext2 = Literal::u64_unsuffixed(lay.ext + 16);
            let at = self.at(lay, i);
            let pi = p.ident();
            // Where the chain starts: the struct's `pNext`, or the function's `pNext` itself.
            let (start, arrow) = if head.function {
                (quote!(#pi), format!("{n} ->"))
            } else {
                let target = self.pointee_struct(i);
                (quote!(#target.pNext), format!("{n}->pNext ->"))
            };
            let link = |v: u32| {
                let h = hex(v);
                vec![quote!(#start = __s.add(#ext) as _), quote!(*__s.add(#ext).cast::<u32>() = #h)]
            };
            if let Some((x, v)) = rule.extensions.first() {
                cases.push(Case { rule: 6, label: format!("{arrow} {x} (extends it)"), stmts: link(*v), want: None });
            }
            if let Some((x, v)) = rule.unplaced.first() {
                cases.push(Case { rule: 6, label: format!("{arrow} {x} (place unstated: tolerated)"), stmts: link(*v), want: None });
            }
            if let Some((x, v)) = &rule.misplaced {
                cases.push(Case { rule: 6, label: format!("{arrow} {x} (known, not allowed here)"), stmts: link(*v), want: arg_code() });
                let (u, m) = (hex(BAD_ENUM), hex(*v));
                cases.push(Case {
                    rule: 6,
                    label: format!("{arrow} unknown stype -> {x} (known, not allowed here)"),
                    stmts: vec![
                        quote!(#start = __s.add(#ext) as _),
                        quote!(*__s.add(#ext).cast::<u32>() = #u),
                        quote!(*__s.add(#ext).add(8).cast::<*mut u8>() = __s.add(#ext2)),
                        quote!(*__s.add(#ext2).cast::<u32>() = #m),
                    ],
                    want: arg_code(),
                });
            }
            if !rule.accept.contains(&BAD_ENUM) && !rule.reject.contains(&BAD_ENUM) {
                cases.push(Case { rule: 6, label: format!("{arrow} unknown stype {BAD_ENUM:#x} (skipped)"), stmts: link(BAD_ENUM), want: None });
            }
            if limits.insert(rule.name.clone()) {
                let h = hex(BAD_ENUM);
                for (len, want) in [(CHAIN_LIMIT, None), (CHAIN_LIMIT + 1, arg_code())] {
                    let l = Literal::u32_unsuffixed(len);
                    cases.push(Case {
                        rule: 6,
                        label: format!("{arrow} chain of {len} links"),
                        stmts: vec![quote!(#start = chain(__s.add(#ext), #l, #h) as _)],
                        want,
                    });
                }
            }
            let cycle = if head.function {
                // The parameter's own buffer is the first link: point it at itself.
                vec![quote!(*#at.add(8).cast::<*mut u8>() = #at)]
            } else {
                vec![quote!(#start = #at as _)]
            };
            cases.push(Case { rule: 6, label: format!("{arrow} itself (cycle)"), stmts: cycle, want: arg_code() });
        }
        // 8. conditions: change one operand, else two
        for j in 0..self.conds.len() {
            if self.conds[j].lenient.is_some() {
                continue; // strict only; the tests run at the compatible level
            }
            let leaves = self.cond_leaves(j)?;
            let mut tries: Vec<Vec<(Leaf, MVal)>> = vec![];
            for l in &leaves {
                for c in self.candidates(l) {
                    if self.get(valid, l) != c {
                        tries.push(vec![(l.clone(), c)]);
                    }
                }
            }
            for (a, la) in leaves.iter().enumerate() {
                for lb in &leaves[a + 1..] {
                    for ca in self.candidates(la) {
                        for cb in self.candidates(lb) {
                            if self.get(valid, la) != ca && self.get(valid, lb) != cb {
                                tries.push(vec![(la.clone(), ca), (lb.clone(), cb)]);
                            }
                        }
                    }
                }
            }
            let mut found = false;
            for t in tries {
                let mut m = valid.clone();
                for (l, v) in &t {
                    m.insert(l.clone(), *v);
                }
                if self.simulate(&m)? == Some(Fire::Cond(j)) {
                    let label = format!("{} ({})", self.changes_label(&t), self.conds[j].text);
                    cases.push(self.model_case(lay, 8, label, &t, Some(self.conds[j].code.clone()))?);
                    found = true;
                    break;
                }
            }
            if !found {
                notes.push(format!(
                    "{}: `{}` ({}) is never the first failing check: an earlier rule always fails first",
                    self.f.name, self.conds[j].text, self.conds[j].code
                ));
            }
        }
        Ok(cases)
    }

    fn test_fn(&self, notes: &mut Vec<String>, limits: &mut BTreeSet<String>) -> Result<(TokenStream, u64, usize), String> {
        let lay = self.layout()?;
        let valid = self.valid_model()?;
        let setup = self.setup(&lay, &valid)?;
        let cases = self.cases(&lay, &valid, notes, limits)?;
        let n = cases.len();
        let rows = cases.iter().map(|c| {
            let rule = Literal::u8_unsuffixed(c.rule);
            let label = c.label.as_str();
            let code = ident(c.want.as_deref().unwrap_or("ZE_RESULT_SUCCESS"));
            quote!((#rule, #label, #code))
        });
        let arms = cases.iter().enumerate().filter(|(_, c)| !c.stmts.is_empty()).map(|(k, c)| {
            let k = Literal::usize_unsuffixed(k);
            match c.stmts.as_slice() {
                [one] => quote!(#k => #one,),
                more => quote!(#k => { #(#more;)* })
            }
        });
        let tname = format_ident!("t_{}", self.f.name);
        let fname = ident(&self.f.name);
        let args = self.ps.iter().map(|p| p.ident());
        let doc = format!(" `{}`: {n} cases.", self.f.name);
        Ok((
            quote! {
                #[doc = #doc]
                unsafe fn #tname(__cx: &mut Cx) {
                    const CASES: &[(u8, &str, ze_result_t)] = &[#(#rows),*];
                    for (__case, &(__rule, __what, __want)) in CASES.iter().enumerate() {
                        let __s = __cx.fresh();
                        #(#setup)*
                        match __case {
                            #(#arms)*
                            _ => {}
                        }
                        __cx.check(__rule, __what, __want, validate::#fname(#(#args),*));
                    }
                }
            },
            lay.size,
            n,
        ))
    }
}

/// The generated test: (tokens, functions, cases, conditions without a case), or why the spec
/// cannot be translated.
pub fn try_emit_tests(api: &Api) -> Result<(TokenStream, usize, usize, Vec<String>), String> {
    let sh = Shared::new(api);
    let mut fns = vec![];
    let mut table = vec![];
    let mut scratch = 64u64;
    let mut total = 0;
    let mut notes = vec![];
    let mut limits = BTreeSet::new();
    let funcs = all_functions(api);
    for f in &funcs {
        let fx = FnCx::new(&sh, f)?;
        let (t, size, n) = fx.test_fn(&mut notes, &mut limits)?;
        scratch = scratch.max(size);
        total += n;
        fns.push(t);
        let name = f.name.as_str();
        let tname = format_ident!("t_{}", f.name);
        table.push(quote!((#name, #tname)));
    }
    let chunks = Literal::u64_unsuffixed(scratch.div_ceil(16));
    let mut docs = vec![
        " Table-driven tests of `zekit_icd::validate`, generated from the spec by".to_string(),
        " `codegen/src/emit_validate/` (rules in `src/validate/mod.rs`): for every function a valid".to_string(),
        " argument set must pass, and each derivable bad argument must fail with its exact code.".to_string(),
        String::new(),
        format!(" {} functions, {total} cases.", funcs.len()),
    ];
    if !notes.is_empty() {
        docs.push(String::new());
        docs.push(" Spec conditions without a case (an earlier rule always fails first):".to_string());
        docs.push(String::new());
        for n in &notes {
            docs.push(format!(" * {n}"));
        }
    }
    let docs = docs.iter().map(|l| quote!(#![doc = #l]));
    let tokens = quote! {
        #(#docs)*
        #![allow(non_snake_case, unused_mut, unused_unsafe, unused_variables, unused_assignments, unused_parens, clippy::all)]
        use ::core::ffi::{c_char, c_int, c_void};
        use zekit_icd::validate;
        use zekit_icd_rt::{ZeError, ZeResult};
        use zekit_sys::*;

        /// 16 aligned bytes of the scratch area.
        #[repr(C, align(16))]
        #[derive(Clone, Copy)]
        struct Chunk([u8; 16]);

        /// Scratch chunks: room for the largest function's argument buffers.
        const SCRATCH_CHUNKS: usize = #chunks;

        /// What dummy handles (and non-null member pointers) point to: validation only
        /// tests handles for null.
        static DUMMY: [u8; 64] = [0; 64];

        fn h<T>() -> *mut T {
            DUMMY.as_ptr() as *mut T
        }

        /// Builds a `pNext` chain of `n` links (16 bytes each: `stype`, `pNext`) at `at`.
        unsafe fn chain(at: *mut u8, n: u32, stype: u32) -> *mut u8 {
            for i in 0..n as usize {
                let link = at.add(16 * i);
                *link.cast::<u32>() = stype;
                *link.add(8).cast::<*mut u8>() = if i + 1 < n as usize { at.add(16 * (i + 1)) } else { ::core::ptr::null_mut() };
            }
            at
        }

        struct Cx {
            scratch: Vec<Chunk>,
            function: &'static str,
            cases: usize,
            per_rule: [usize; 9],
            failures: Vec<String>,
        }

        impl Cx {
            /// The scratch area, zeroed.
            fn fresh(&mut self) -> *mut u8 {
                self.scratch.fill(Chunk([0; 16]));
                self.scratch.as_mut_ptr() as *mut u8
            }

            fn check(&mut self, rule: u8, what: &str, want: ze_result_t, got: ZeResult<()>) {
                let want = if want == ZE_RESULT_SUCCESS { Ok(()) } else { Err(ZeError::of(want)) };
                self.cases += 1;
                self.per_rule[rule as usize] += 1;
                if got != want {
                    self.failures.push(format!("{}: {what} (rule {rule}): got {got:?}, want {want:?}", self.function));
                }
            }
        }

        /// Every function of the spec with its cases.
        const TABLE: &[(&str, unsafe fn(&mut Cx))] = &[#(#table),*];

        #[test]
        fn validation_table() {
            let mut cx = Cx {
                scratch: vec![Chunk([0; 16]); SCRATCH_CHUNKS],
                function: "",
                cases: 0,
                per_rule: [0; 9],
                failures: vec![],
            };
            for (name, t) in TABLE {
                cx.function = name;
                let before = cx.cases;
                unsafe { (*t)(&mut cx) };
                assert!(cx.cases > before, "{name}: no case ran");
            }
            eprintln!("validation: {} functions, {} cases (valid {}, per rule 1-8: {:?})", TABLE.len(), cx.cases, cx.per_rule[0], &cx.per_rule[1..]);
            assert!(cx.failures.is_empty(), "{} of {} cases failed:\n{}", cx.failures.len(), cx.cases, cx.failures.join("\n"));
        }

        #(#fns)*

        #[allow(unused_imports)]
        use {c_char as _, c_int as _, c_void as _};
    };
    Ok((tokens, funcs.len(), total, notes))
}

/// The tokens of `tests/validation.rs` of `zekit-icd`.
///
/// # Panics
/// As [`emit`]; [`try_emit_tests`] returns the error.
pub fn emit_tests(api: &Api) -> TokenStream {
    try_emit_tests(api).map(|t| t.0).unwrap_or_else(|e| panic!("validation emitter: {e}"))
}

/// (functions, cases, conditions without a case) of the generated test.
pub fn test_summary(api: &Api) -> Result<(usize, usize, Vec<String>), String> {
    let (_, f, c, notes) = try_emit_tests(api)?;
    Ok((f, c, notes))
}
