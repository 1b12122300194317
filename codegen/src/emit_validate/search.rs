//! Conditions over test argument sets: translating, evaluating, simulating the checks, and
//! searching for a valid argument set.

use super::*;

impl FnCx<'_> {
    /// Translates a condition, at run time (`model` none) or evaluated over a test argument set.
    pub(super) fn translate(&self, e: &Expr, model: Option<&Model>) -> Result<Translated, String> {
        let mut tr = Tr { fx: self, model, derefs: vec![], leaves: vec![] };
        let v = tr.tr(e).map_err(|err| format!("{}: condition `{e}`: {err}", self.f.name))?;
        let (tokens, value) = truth(v);
        let guards: Vec<usize> = tr.derefs.iter().copied().filter(|i| !self.ps[*i].checked_non_null()).collect();
        Ok(Translated { tokens, value, guards, leaves: tr.leaves })
    }

    pub(super) fn cond_holds(&self, j: usize, m: &Model) -> Result<bool, String> {
        let Translated { value: k, guards, .. } = self.translate(&self.conds[j].expr, Some(m))?;
        if guards.iter().any(|g| self.get(m, &Leaf::Param(*g)) == MVal::Ptr(false)) {
            return Ok(false);
        }
        k.ok_or_else(|| format!("{}: condition `{}` does not evaluate", self.f.name, self.conds[j].text))
    }

    pub(super) fn count(&self, m: &Model, r: &RangeLen) -> i128 {
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

    pub(super) fn simulate(&self, m: &Model) -> Result<Option<Fire>, String> {
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

    pub(super) fn fire_code(&self, f: Fire) -> String {
        match f {
            Fire::Handle(_) => "ZE_RESULT_ERROR_INVALID_NULL_HANDLE".into(),
            Fire::Null(_) | Fire::Range(_) => "ZE_RESULT_ERROR_INVALID_NULL_POINTER".into(),
            Fire::Cond(j) => self.conds[j].code.clone(),
        }
    }

    /// Settable operands of condition `j`.
    pub(super) fn cond_leaves(&self, j: usize) -> Result<Vec<Leaf>, String> {
        let leaves = self.translate(&self.conds[j].expr, None)?.leaves;
        let mut out = vec![];
        for l in leaves {
            if !out.contains(&l) {
                out.push(l);
            }
        }
        Ok(out)
    }

    pub(super) fn candidates(&self, l: &Leaf) -> Vec<MVal> {
        match self.leaf_kind(l) {
            Ok(LK::Ptr) => vec![MVal::Ptr(false), MVal::Ptr(true)],
            _ => INT_CANDIDATES.iter().map(|v| MVal::Int(*v)).collect(),
        }
    }

    /// The valid argument set: defaults, then values that make every condition false.
    pub(super) fn valid_model(&self) -> Result<Model, String> {
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
