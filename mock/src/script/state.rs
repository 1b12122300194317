//! The state behind the script: rules (programmed results), expectations, sequences, and
//! what each function has programmed.

use std::collections::HashMap;

use zekit_sys::ze_result_t;

use super::call::*;
use super::Pred;

/// Which calls a programmed result applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Count {
    /// Every matching call.
    Always,
    /// Only the n-th matching call (1-based) since the rule was added.
    Nth(u64),
    /// The next k matching calls.
    Times(u64),
}

/// Identifies a programmed result (see [`Script::rule_hits`](super::Script::rule_hits),
/// [`Script::remove_rule`](super::Script::remove_rule)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RuleId(pub(super) u64);

/// Handle of an in-order sequence of expectations (see
/// [`Script::sequence`](super::Script::sequence)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sequence {
    pub(super) id: u64,
    pub(super) number: u64,
}

impl Sequence {
    /// The sequence's number in messages (`sequence #1`).
    pub fn number(&self) -> u64 {
        self.number
    }
}

pub(super) struct Rule {
    pub(super) id: u64,
    pub(super) count: Count,
    pub(super) preds: Vec<Pred>,
    pub(super) result: ze_result_t,
    /// Matching calls seen since the rule was added.
    pub(super) seen: u64,
    /// Calls the rule answered.
    pub(super) hits: u64,
}

impl Rule {
    /// Counts a matching call; whether the rule answers it.
    pub(super) fn advance(&mut self) -> bool {
        self.seen += 1;
        let fire = match self.count {
            Count::Always => true,
            Count::Nth(n) => self.seen == n,
            Count::Times(k) => self.seen <= k,
        };
        if fire {
            self.hits += 1;
        }
        fire
    }
}

pub(super) struct Exp {
    pub(super) id: u64,
    pub(super) function: String,
    pub(super) description: Option<String>,
    pub(super) preds: Vec<Pred>,
    pub(super) min: u64,
    pub(super) max: u64,
    pub(super) count: u64,
    /// Ids of the sequences this expectation belongs to.
    pub(super) seqs: Vec<u64>,
}

impl Exp {
    pub(super) fn label(&self) -> String {
        match (&self.description, self.preds.is_empty()) {
            (Some(d), _) => format!("{} [{d}]", self.function),
            (None, true) => self.function.clone(),
            (None, false) => format!("{} [with predicate]", self.function),
        }
    }
    pub(super) fn bounds(&self) -> String {
        bounds_text(self.min, self.max)
    }
}

pub(super) fn calls_text(n: u64) -> String {
    if n == 1 {
        "1 call".to_string()
    } else {
        format!("{n} calls")
    }
}

pub(super) fn times_text(n: u64) -> String {
    match n {
        1 => "once".to_string(),
        n => format!("{n} times"),
    }
}

pub(super) fn bounds_text(min: u64, max: u64) -> String {
    if max == 0 {
        "no calls".to_string()
    } else if min == max {
        format!("exactly {}", calls_text(min))
    } else if max == u64::MAX {
        format!("at least {}", calls_text(min))
    } else if min == 0 {
        format!("at most {}", calls_text(max))
    } else {
        format!("between {min} and {}", calls_text(max))
    }
}

pub(super) struct SeqState {
    pub(super) id: u64,
    pub(super) number: u64,
    /// Expectation ids in order.
    pub(super) members: Vec<u64>,
    /// Index in `members` of the expectation currently being satisfied.
    pub(super) cursor: usize,
}

#[derive(Default)]
pub(super) struct FnEntry {
    pub(super) rules: Vec<Rule>,
    /// Ids of the expectations on this function, oldest first.
    pub(super) exps: Vec<u64>,
}

#[derive(Default)]
pub(super) struct Inner {
    pub(super) next_id: u64,
    pub(super) next_seq_number: u64,
    pub(super) funcs: HashMap<String, FnEntry>,
    /// All expectations, ids increasing.
    pub(super) exps: Vec<Exp>,
    pub(super) seqs: Vec<SeqState>,
    pub(super) violations: Vec<String>,
}

impl Inner {
    pub(super) fn id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }
    pub(super) fn exp(&self, id: u64) -> Option<&Exp> {
        self.exps
            .binary_search_by_key(&id, |e| e.id)
            .ok()
            .map(|i| &self.exps[i])
    }
    pub(super) fn exp_mut(&mut self, id: u64) -> Option<&mut Exp> {
        match self.exps.binary_search_by_key(&id, |e| e.id) {
            Ok(i) => Some(&mut self.exps[i]),
            Err(_) => None,
        }
    }
    pub(super) fn check_function(&mut self, what: &str, function: &str) {
        if !is_known_function(function) {
            self.violations.push(format!(
                "{what}(\"{function}\"): unknown Level Zero function"
            ));
        }
    }
    pub(super) fn prune(&mut self) {
        self.funcs
            .retain(|_, e| !e.rules.is_empty() || !e.exps.is_empty());
    }
}

/// What phase 1 of `before_call` found for a function: ids and predicates to evaluate unlocked.
pub(super) struct Plan {
    pub(super) rules: Vec<(u64, Vec<Pred>)>,
    pub(super) exps: Vec<(u64, Vec<Pred>)>,
}
