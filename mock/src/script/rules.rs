//! Programmed results: `Script::on` and its builder `On`.

use std::sync::Arc;

use zekit_sys::ze_result_t;

use super::call::*;
use super::state::*;
use super::{lock, Pred, Script};

impl Script {
    /// Starts programming the result of calls to `function`; finish with
    /// [`On::returns`]. Without `nth`/`times` the rule applies to every matching call.
    pub fn on(&self, function: &str) -> On<'_> {
        On {
            script: self,
            function: function.to_string(),
            count: Count::Always,
            preds: Vec::new(),
        }
    }

    /// How many calls the rule answered so far (`None` once removed).
    pub fn rule_hits(&self, id: RuleId) -> Option<u64> {
        lock(&self.inner)
            .funcs
            .values()
            .flat_map(|e| e.rules.iter())
            .find(|r| r.id == id.0)
            .map(|r| r.hits)
    }

    /// Removes a programmed result; whether it existed.
    pub fn remove_rule(&self, id: RuleId) -> bool {
        let mut inner = lock(&self.inner);
        let mut found = false;
        for e in inner.funcs.values_mut() {
            let before = e.rules.len();
            e.rules.retain(|r| r.id != id.0);
            found |= e.rules.len() != before;
        }
        inner.prune();
        self.rearm(&inner);
        found
    }

    /// Removes every programmed result.
    pub fn clear_rules(&self) {
        let mut inner = lock(&self.inner);
        for e in inner.funcs.values_mut() {
            e.rules.clear();
        }
        inner.prune();
        self.rearm(&inner);
    }
}

/// Builder of a programmed result: [`Script::on`].
#[must_use = "a programmed result is installed by `.returns(code)`"]
pub struct On<'a> {
    pub(super) script: &'a Script,
    pub(super) function: String,
    pub(super) count: Count,
    pub(super) preds: Vec<Pred>,
}

impl On<'_> {
    /// Only the n-th matching call (1-based) since the rule was added.
    pub fn nth(mut self, n: u64) -> Self {
        self.count = Count::Nth(n);
        self
    }
    /// The next k matching calls.
    pub fn times(mut self, k: u64) -> Self {
        self.count = Count::Times(k);
        self
    }
    /// The next matching call only.
    pub fn once(self) -> Self {
        self.times(1)
    }
    /// Every matching call (the default).
    pub fn always(mut self) -> Self {
        self.count = Count::Always;
        self
    }
    /// Sets the count explicitly.
    pub fn count(mut self, count: Count) -> Self {
        self.count = count;
        self
    }
    /// Only calls whose arguments satisfy `pred` match (and are counted by `nth`/`times`).
    /// Several predicates must all hold.
    pub fn when(mut self, pred: impl Fn(&Args) -> bool + Send + Sync + 'static) -> Self {
        self.preds.push(Arc::new(pred));
        self
    }
    /// Installs the rule: matching calls return `code` without running the default behaviour.
    /// When several rules answer the same call, the oldest wins (all of them count it).
    pub fn returns(self, code: ze_result_t) -> RuleId {
        let mut inner = lock(&self.script.inner);
        inner.check_function("on", &self.function);
        if self.count == Count::Nth(0) {
            inner.violations.push(format!(
                "on(\"{}\").nth(0): calls are counted from 1; the rule never applies",
                self.function
            ));
        }
        let id = inner.id();
        inner
            .funcs
            .entry(self.function)
            .or_default()
            .rules
            .push(Rule {
                id,
                count: self.count,
                preds: self.preds,
                result: code,
                seen: 0,
                hits: 0,
            });
        self.script.rearm(&inner);
        RuleId(id)
    }
}
