//! Translation of a spec condition (`crate::expr`) to Rust, with C's integer semantics.

use super::*;

/// A translated (sub)expression: tokens, its C type, and its value when constant.
pub(super) enum TV {
    Int { ts: TokenStream, ty: IntTy, k: Option<i128> },
    Bool { ts: TokenStream, k: Option<bool> },
    /// `k`: non-null?
    Ptr { ts: TokenStream, k: Option<bool> },
}

pub(super) fn truth(v: TV) -> (TokenStream, Option<bool>) {
    match v {
        TV::Bool { ts, k } => (ts, k),
        TV::Int { ts, k, .. } => (quote!((#ts != 0)), k.map(|v| v != 0)),
        TV::Ptr { ts, k } => (quote!((!#ts.is_null())), k),
    }
}

/// `(x)` → `x` (a condition's outermost parentheses).
pub(super) fn strip_parens(ts: TokenStream) -> TokenStream {
    let mut it = ts.clone().into_iter();
    match (it.next(), it.next()) {
        (Some(proc_macro2::TokenTree::Group(g)), None) if g.delimiter() == proc_macro2::Delimiter::Parenthesis => g.stream(),
        _ => ts,
    }
}

pub(super) fn lit_bool(b: bool) -> TokenStream {
    if b {
        quote!(true)
    } else {
        quote!(false)
    }
}

pub(super) struct Tr<'f, 'a> {
    pub(super) fx: &'f FnCx<'a>,
    pub(super) model: Option<&'f Model>,
    pub(super) derefs: Vec<usize>,
    pub(super) leaves: Vec<Leaf>,
}

impl Tr<'_, '_> {
    pub(super) fn err<T>(&self, what: &str) -> Result<T, String> {
        Err(format!("cannot translate {what}"))
    }

    pub(super) fn leaf(&mut self, l: Leaf) -> Result<TV, String> {
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

    pub(super) fn param(&self, n: &str) -> Result<usize, String> {
        self.fx.param(n).ok_or_else(|| format!("cannot translate `{n}`: not a parameter"))
    }

    pub(super) fn konst(v: i128, ty: IntTy) -> TV {
        TV::Int { ts: ty.lit(v), ty, k: Some(ty.wrap(v)) }
    }

    pub(super) fn as_int(v: TV) -> Result<(TokenStream, IntTy, Option<i128>), String> {
        match v {
            TV::Int { ts, ty, k } => Ok((ts, ty, k)),
            TV::Bool { ts, k } => Ok((quote!((#ts as i32)), IntTy::INT, k.map(|b| b as i128))),
            TV::Ptr { .. } => Err("cannot translate a pointer used as an integer".into()),
        }
    }

    pub(super) fn cast(ts: TokenStream, from: IntTy, k: Option<i128>, to: IntTy) -> (TokenStream, Option<i128>) {
        if let Some(v) = k {
            return (to.lit(v), Some(to.wrap(v)));
        }
        if from.name == to.name {
            return (ts, None);
        }
        let t = to.tokens();
        (quote!((#ts as #t)), None)
    }

    pub(super) fn tr(&mut self, e: &Expr) -> Result<TV, String> {
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

    pub(super) fn binary(&mut self, op: BinOp, a: &Expr, b: &Expr) -> Result<TV, String> {
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
