//! Expectations: `Script::expect` and its builder `Expectation`, sequences, violations and
//! verification.

use std::sync::Arc;

use super::call::*;
use super::state::*;
use super::{lock, Script};

impl Script {
    /// Expects calls to `function`: exactly one unless refined with [`Expectation::times`],
    /// [`at_least`](Expectation::at_least), [`at_most`](Expectation::at_most) or
    /// [`never`](Expectation::never). Registered immediately. A call counts toward the oldest
    /// matching expectation that is not yet saturated.
    pub fn expect(&self, function: &str) -> Expectation<'_> {
        let mut inner = lock(&self.inner);
        inner.check_function("expect", function);
        let id = inner.id();
        inner.exps.push(Exp {
            id,
            function: function.to_string(),
            description: None,
            preds: Vec::new(),
            min: 1,
            max: 1,
            count: 0,
            seqs: Vec::new(),
        });
        inner
            .funcs
            .entry(function.to_string())
            .or_default()
            .exps
            .push(id);
        self.rearm(&inner);
        Expectation { script: self, id }
    }

    /// A new in-order sequence: expectations added with [`Expectation::in_sequence`] must be
    /// satisfied in the order they were added.
    pub fn sequence(&self) -> Sequence {
        let mut inner = lock(&self.inner);
        let id = inner.id();
        inner.next_seq_number += 1;
        let number = inner.next_seq_number;
        inner.seqs.push(SeqState {
            id,
            number,
            members: Vec::new(),
            cursor: 0,
        });
        Sequence { id, number }
    }

    /// Records a failure for [`verify`](Self::verify) to report (for layers above the script).
    pub fn record_violation(&self, message: impl Into<String>) {
        lock(&self.inner).violations.push(message.into());
    }

    /// Every violation recorded so far and every expectation whose minimum is not reached.
    pub fn verify(&self) -> Result<(), Vec<String>> {
        let inner = lock(&self.inner);
        let mut out = inner.violations.clone();
        for e in &inner.exps {
            if e.count < e.min {
                out.push(format!(
                    "{}: expected {}, got {}",
                    e.label(),
                    e.bounds(),
                    calls_text(e.count)
                ));
            }
        }
        if out.is_empty() {
            Ok(())
        } else {
            Err(out)
        }
    }

    /// [`verify`](Self::verify), then forget every expectation, sequence and violation
    /// (programmed results and the call log stay).
    pub fn checkpoint(&self) -> Result<(), Vec<String>> {
        let result = self.verify();
        let mut inner = lock(&self.inner);
        inner.exps.clear();
        inner.seqs.clear();
        inner.violations.clear();
        for e in inner.funcs.values_mut() {
            e.exps.clear();
        }
        inner.prune();
        self.rearm(&inner);
        result
    }
}

/// A registered expectation, refined by chaining: [`Script::expect`].
pub struct Expectation<'a> {
    pub(super) script: &'a Script,
    pub(super) id: u64,
}

impl Expectation<'_> {
    pub(super) fn edit(self, f: impl FnOnce(&mut Exp)) -> Self {
        {
            let mut inner = lock(&self.script.inner);
            if let Some(e) = inner.exp_mut(self.id) {
                f(e);
            }
        }
        self
    }
    /// Only calls whose arguments satisfy `pred` count toward this expectation.
    pub fn with(self, pred: impl Fn(&Args) -> bool + Send + Sync + 'static) -> Self {
        self.edit(|e| e.preds.push(Arc::new(pred)))
    }
    /// Names the predicate in messages: `zeMemAllocHost [size=64]`.
    pub fn named(self, description: impl Into<String>) -> Self {
        let d = description.into();
        self.edit(|e| e.description = Some(d))
    }
    /// Exactly n calls.
    pub fn times(self, n: u64) -> Self {
        self.edit(|e| (e.min, e.max) = (n, n))
    }
    /// n calls or more.
    pub fn at_least(self, n: u64) -> Self {
        self.edit(|e| (e.min, e.max) = (n, u64::MAX))
    }
    /// n calls or fewer.
    pub fn at_most(self, n: u64) -> Self {
        self.edit(|e| (e.min, e.max) = (0, n))
    }
    /// Between min and max calls, inclusive (swapped if given backwards).
    pub fn between(self, min: u64, max: u64) -> Self {
        self.edit(|e| (e.min, e.max) = (min.min(max), min.max(max)))
    }
    /// No calls at all.
    pub fn never(self) -> Self {
        self.times(0)
    }
    /// Appends this expectation to `seq`: calls to it must come after the earlier expectations
    /// of the sequence are satisfied, and before any later one is called.
    pub fn in_sequence(self, seq: &Sequence) -> Self {
        {
            let mut inner = lock(&self.script.inner);
            match inner.seqs.iter_mut().find(|s| s.id == seq.id) {
                Some(s) => {
                    if !s.members.contains(&self.id) {
                        s.members.push(self.id);
                    }
                    if let Some(e) = inner.exp_mut(self.id) {
                        if !e.seqs.contains(&seq.id) {
                            e.seqs.push(seq.id);
                        }
                    }
                }
                None => inner.violations.push(format!(
                    "in_sequence: sequence #{} no longer exists (cleared by checkpoint or reset)",
                    seq.number
                )),
            }
        }
        self
    }
    /// Calls counted so far.
    pub fn count(&self) -> u64 {
        lock(&self.script.inner).exp(self.id).map_or(0, |e| e.count)
    }
}
