//! One function's context: its parameters and conditions, and the operands (leaves) a test
//! can set.

use super::*;

/// A value a test argument set gives to one condition operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum MVal {
    Int(i128),
    /// Non-null?
    Ptr(bool),
}

/// An operand of a condition: something a test can set.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Leaf {
    Param(usize),
    Deref(usize),
    Arrow(usize, String),
    Dot(usize, String),
}

#[derive(Debug, Clone)]
pub(super) enum LK {
    Int { ty: IntTy, newtype: Option<String> },
    Ptr,
}

pub(super) type Model = BTreeMap<Leaf, MVal>;

/// The first check that fails for an argument set (rules 1, 2 and 8; the tests keep rules 3-6
/// satisfied unless they break one on purpose).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Fire {
    Handle(usize),
    Null(usize),
    Range(usize),
    Cond(usize),
}

/// A translated condition.
pub(super) struct Translated {
    /// The Rust condition (without its guards).
    pub(super) tokens: TokenStream,
    /// Its value, when evaluated over a test argument set.
    pub(super) value: Option<bool>,
    /// Pointer parameters to test for null first (a null one makes the condition false).
    pub(super) guards: Vec<usize>,
    /// The operands it reads, in order (with repeats).
    pub(super) leaves: Vec<Leaf>,
}

pub(super) struct Cond {
    pub(super) code: String,
    pub(super) text: String,
    pub(super) expr: Expr,
    /// Why the condition is checked only at the strict level ([`LENIENT_CONDITIONS`]).
    pub(super) lenient: Option<&'static str>,
}

pub(super) struct FnCx<'a> {
    pub(super) sh: &'a Shared<'a>,
    pub(super) f: &'a Function,
    pub(super) ps: Vec<PInfo<'a>>,
    pub(super) conds: Vec<Cond>,
}

impl<'a> FnCx<'a> {
    pub(super) fn new(sh: &'a Shared<'a>, f: &'a Function) -> Result<FnCx<'a>, String> {
        let api = sh.api;
        let model = params::of_function(api, f);
        let mut ps = vec![];
        for m in model {
            let (ct, base, tk) = (&m.ct, m.base.clone(), m.kind.clone());
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
                    Some(Ok(r)) => Some(*r),
                    Some(Err(e)) => return Err(e.clone()),
                };
                PK::Ptr { range, pointee, single }
            };
            ps.push(PInfo { model: m, kind });
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

    pub(super) fn api(&self) -> &'a Api {
        self.sh.api
    }

    pub(super) fn param(&self, n: &str) -> Option<usize> {
        self.ps.iter().position(|p| p.field.name == n)
    }

    // ---- leaves

    pub(super) fn member_kind(&self, s: &str, m: &str) -> Result<LK, String> {
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

    pub(super) fn leaf_kind(&self, l: &Leaf) -> Result<LK, String> {
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
    pub(super) fn leaf_default(&self, l: &Leaf) -> MVal {
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
                    _ if self.ps[*i].input => match self.sh.enum_members(st).into_iter().find(|(n, _)| n == m) {
                        Some((_, e)) => MVal::Int(e.first() as i128),
                        None => MVal::Int(0),
                    },
                    _ => MVal::Int(0),
                }
            }
        }
    }

    pub(super) fn get(&self, m: &Model, l: &Leaf) -> MVal {
        m.get(l).copied().unwrap_or_else(|| self.leaf_default(l))
    }

    pub(super) fn leaf_label(&self, l: &Leaf) -> String {
        match l {
            Leaf::Param(i) => self.ps[*i].field.name.clone(),
            Leaf::Deref(i) => format!("*{}", self.ps[*i].field.name),
            Leaf::Arrow(i, m) => format!("{}->{m}", self.ps[*i].field.name),
            Leaf::Dot(i, m) => format!("{}.{m}", self.ps[*i].field.name),
        }
    }

    /// Rust access of a leaf in `validate.rs` (enum newtypes read through `.0`).
    pub(super) fn leaf_access(&self, l: &Leaf, kind: &LK) -> TokenStream {
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

}
