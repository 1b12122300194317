//! The hooks the generated layer calls around every API call: `before_call`, `after_call`,
//! `invoke`.

use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;

use zekit_sys::ze_result_t;

use super::call::*;
use super::state::*;
use super::{lock, Pred, RenderArgs, Script};

thread_local! {

    /// Calls between `before_call` and `after_call` on this thread: (script address, function, seq).
    static PENDING: RefCell<Vec<(usize, &'static str, u64)>> = const { RefCell::new(Vec::new()) };

}

impl Script {
    /// Called on entry of every API call. Takes the call's number, counts it against programmed
    /// results and expectations on `function` (rendering the arguments only when a predicate
    /// needs them), and returns the programmed result if one applies: the call then returns that
    /// code without running its default behaviour. [`after_call`](Self::after_call) must follow
    /// on the same thread, whatever the outcome.
    pub fn before_call(&self, function: &'static str, args: RenderArgs<'_>) -> Option<ze_result_t> {
        let seq = self.seq.fetch_add(1, Ordering::Relaxed) + 1;
        let addr = self.addr();
        let _ = PENDING.try_with(|p| {
            if let Ok(mut p) = p.try_borrow_mut() {
                p.push((addr, function, seq));
            }
        });
        if !self.armed.load(Ordering::Acquire) {
            return None;
        }

        // Phase 1 (locked): what is programmed for this function.
        let plan = {
            let inner = lock(&self.inner);
            let entry = inner.funcs.get(function)?;
            Plan {
                rules: entry
                    .rules
                    .iter()
                    .map(|r| (r.id, r.preds.clone()))
                    .collect(),
                exps: entry
                    .exps
                    .iter()
                    .filter_map(|&id| inner.exp(id))
                    .map(|e| (e.id, e.preds.clone()))
                    .collect(),
            }
        };

        // Phase 2 (unlocked, so predicates may use the script): evaluate predicates.
        let mut rendered: Option<Args> = None;
        let mut problems: Vec<String> = Vec::new();
        let mut eval = |preds: &[Pred], what: &str| -> bool {
            if preds.is_empty() {
                return true;
            }
            let args = rendered.get_or_insert_with(|| match catch_unwind(AssertUnwindSafe(args)) {
                Ok(v) => Args(v),
                Err(_) => {
                    problems.push(format!(
                        "{function}: rendering the arguments of call #{seq} panicked"
                    ));
                    Args::default()
                }
            });
            preds.iter().all(|p| {
                catch_unwind(AssertUnwindSafe(|| p(args))).unwrap_or_else(|_| {
                    problems.push(format!(
                        "{what}(\"{function}\"): predicate panicked at call #{seq}; treated as not matching"
                    ));
                    false
                })
            })
        };
        let rule_hits: Vec<u64> = plan
            .rules
            .iter()
            .filter(|(_, preds)| eval(preds, "on"))
            .map(|(id, _)| *id)
            .collect();
        let exp_hits: Vec<u64> = plan
            .exps
            .iter()
            .filter(|(_, preds)| eval(preds, "expect"))
            .map(|(id, _)| *id)
            .collect();

        // Phase 3 (locked): count.
        let mut inner = lock(&self.inner);
        inner.violations.append(&mut problems);
        let mut result = None;
        if let Some(entry) = inner.funcs.get_mut(function) {
            for rule in entry.rules.iter_mut() {
                if rule_hits.contains(&rule.id) && rule.advance() && result.is_none() {
                    result = Some(rule.result);
                }
            }
        }
        self.count_expectation(&mut inner, function, seq, &exp_hits);
        result
    }

    /// Attributes a call to the oldest matching unsaturated expectation (or, when all are
    /// saturated, to the last matching one, which records the over-call) and checks sequences.
    pub(super) fn count_expectation(&self, inner: &mut Inner, function: &str, seq: u64, matched: &[u64]) {
        let live: Vec<u64> = matched
            .iter()
            .copied()
            .filter(|&id| inner.exp(id).is_some())
            .collect();
        let chosen = live
            .iter()
            .copied()
            .find(|&id| inner.exp(id).is_some_and(|e| e.count < e.max))
            .or_else(|| live.last().copied());
        let Some(id) = chosen else { return };
        let Some(exp) = inner.exp_mut(id) else { return };
        exp.count += 1;
        if exp.count > exp.max {
            let msg = if exp.max == 0 {
                format!("{}: expected no calls, got call #{seq}", exp.label())
            } else {
                format!(
                    "{}: expected {}, got {} (the extra one is call #{seq})",
                    exp.label(),
                    exp.bounds(),
                    exp.count
                )
            };
            inner.violations.push(msg);
            return;
        }
        let seq_ids = exp.seqs.clone();
        for sid in seq_ids {
            let Some(si) = inner.seqs.iter().position(|s| s.id == sid) else {
                continue;
            };
            let Some(pos) = inner.seqs[si].members.iter().position(|&m| m == id) else {
                continue;
            };
            let cursor = inner.seqs[si].cursor;
            let number = inner.seqs[si].number;
            if pos >= cursor {
                let unmet = inner.seqs[si].members[cursor..pos]
                    .iter()
                    .filter_map(|&m| inner.exp(m))
                    .find(|e| e.count < e.min)
                    .map(|e| (e.label(), e.count, e.bounds()));
                if let Some((label, count, bounds)) = unmet {
                    inner.violations.push(format!(
                        "sequence #{number}: expected {label}, got {function} at call #{seq} \
                         ({label} was called {}; it expects {bounds})",
                        times_text(count)
                    ));
                }
                inner.seqs[si].cursor = pos;
            } else {
                let current = inner.seqs[si]
                    .members
                    .get(cursor)
                    .and_then(|&m| inner.exp(m))
                    .map(|e| e.label())
                    .unwrap_or_default();
                inner.violations.push(format!(
                    "sequence #{number}: expected {current} (or a later step), got {function} at \
                     call #{seq} (its place in the sequence has passed)"
                ));
            }
        }
    }

    /// Called on exit of every API call (also when [`before_call`](Self::before_call) returned a
    /// programmed result): appends the call to the log. The arguments are rendered now, so the
    /// log shows output parameters as they were returned.
    pub fn after_call(&self, function: &'static str, args: RenderArgs<'_>, result: ze_result_t) {
        let addr = self.addr();
        let pending = PENDING
            .try_with(|p| {
                let mut p = p.try_borrow_mut().ok()?;
                let i = p
                    .iter()
                    .rposition(|&(a, f, _)| a == addr && f == function)?;
                Some(p.remove(i).2)
            })
            .ok()
            .flatten();
        let seq = pending.unwrap_or_else(|| self.seq.fetch_add(1, Ordering::Relaxed) + 1);
        let args = match catch_unwind(AssertUnwindSafe(args)) {
            Ok(v) => v,
            Err(_) => {
                lock(&self.inner).violations.push(format!(
                    "{function}: rendering the arguments of call #{seq} panicked"
                ));
                Vec::new()
            }
        };
        lock(&self.calls).push(Call {
            seq,
            function,
            args,
            result,
        });
    }

    /// `before_call`, then `default` unless a programmed result applies, then `after_call`.
    pub fn invoke(
        &self,
        function: &'static str,
        args: RenderArgs<'_>,
        default: impl FnOnce() -> ze_result_t,
    ) -> ze_result_t {
        let result = match self.before_call(function, args) {
            Some(code) => code,
            None => default(),
        };
        self.after_call(function, args, result);
        result
    }
}
