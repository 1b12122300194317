//! The programmable core of the mock driver: call log, programmed results, expectations.
//!
//! The generated C-ABI layer consults one [`Script`] on every call:
//!
//! ```text
//! let code = match script.before_call("zeMemAllocDevice", &render_args) {
//!     Some(code) => code,          // a programmed result applies: skip the default behaviour
//!     None => default_behaviour(),
//! };
//! script.after_call("zeMemAllocDevice", &render_args, code);   // always: appends the Call
//! ```
//!
//! ([`Script::invoke`] does exactly that.) Tests program it in the style of mockall:
//!
//! ```
//! use zekit_mock::script::Script;
//! use zekit_sys::*;
//!
//! let script = Script::new();
//! script.on("zeMemAllocDevice").nth(3).returns(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
//! script.expect("zeCommandListClose").times(1);
//! let s = script.sequence();
//! script.expect("zeCommandListCreate").in_sequence(&s);
//! script.expect("zeCommandListDestroy").in_sequence(&s);
//! ```
//!
//! Nothing here panics on bad input: mistakes (an unknown function name, `nth(0)`, a predicate
//! that panics) and expectation violations are recorded and reported by [`Script::verify`].
//!
//! Call numbers (`seq`, printed `#n`) start at 1, are unique for the life of the script (or until
//! [`Script::reset`]) and are taken when the call enters [`Script::before_call`], so a
//! violation message can name the call that caused it.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Once, OnceLock, RwLock};

use zekit_sys::ze_result_t;

use crate::kernels::{KernelCallback, KernelLaunch};
use crate::profile::Profile;

/// A predicate on the rendered arguments of a call.
type Pred = Arc<dyn Fn(&Args) -> bool + Send + Sync>;

/// Renders the arguments of a call as `(name, value)` pairs; called lazily.
pub type RenderArgs<'a> = &'a dyn Fn() -> Vec<(String, String)>;

/// One logged call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Call {
    /// Call number, from 1 (see the module docs).
    pub seq: u64,
    /// C name of the function (`zeMemAllocDevice`).
    pub function: &'static str,
    /// `(name, rendered value)` of each parameter, in declaration order, as rendered after the call.
    pub args: Vec<(String, String)>,
    /// What the call returned.
    pub result: ze_result_t,
}

impl Call {
    /// The rendered value of the argument `name`.
    pub fn arg(&self, name: &str) -> Option<&str> {
        self.args
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

impl fmt::Display for Call {
    /// `#seq function(arg=value, …) -> ZE_RESULT_…`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{} {}(", self.seq, self.function)?;
        for (i, (n, v)) in self.args.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{n}={v}")?;
        }
        write!(f, ") -> {}", self.result)
    }
}

/// The rendered arguments of a call, as predicates see them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Args(Vec<(String, String)>);

impl Args {
    pub fn new(args: Vec<(String, String)>) -> Self {
        Self(args)
    }
    /// The rendered value of `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
    /// The value of `name` as an unsigned integer (decimal or `0x` hex).
    pub fn u64(&self, name: &str) -> Option<u64> {
        self.get(name).and_then(parse_u64)
    }
    /// The value of `name` as a signed integer (decimal, or `0x` hex).
    pub fn i64(&self, name: &str) -> Option<i64> {
        let v = self.get(name)?.trim();
        match v.strip_prefix('-') {
            Some(rest) => parse_u64(rest)
                .and_then(|u| i64::try_from(u).ok())
                .map(|i| -i),
            None => parse_u64(v).and_then(|u| i64::try_from(u).ok()),
        }
    }
    /// The value of `name` as a boolean (`true`/`false`, `1`/`0`).
    pub fn bool(&self, name: &str) -> Option<bool> {
        match self.get(name)?.trim() {
            "true" | "1" => Some(true),
            "false" | "0" => Some(false),
            _ => None,
        }
    }
    /// Whether `name` renders as a null pointer or handle (`0`, `0x0`, `null`, `NULL`, `nullptr`).
    pub fn is_null(&self, name: &str) -> Option<bool> {
        let v = self.get(name)?.trim();
        Some(matches!(v, "null" | "NULL" | "nullptr") || parse_u64(v) == Some(0))
    }
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(n, v)| (n.as_str(), v.as_str()))
    }
    pub fn len(&self) -> usize {
        self.0.len()
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn as_slice(&self) -> &[(String, String)] {
        &self.0
    }
}

impl From<Vec<(String, String)>> for Args {
    fn from(v: Vec<(String, String)>) -> Self {
        Self(v)
    }
}

/// Parses `123` or `0x7b` (surrounding blanks ignored).
pub fn parse_u64(s: &str) -> Option<u64> {
    let s = s.trim();
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
}

/// Whether `name` is a function of the Level Zero API (`ze`, `zet`, `zes`, `zer`) per the DDI tables.
pub fn is_known_function(name: &str) -> bool {
    known_functions().contains(name)
}

/// Every function of the DDI tables.
pub fn known_functions() -> &'static HashSet<&'static str> {
    static SET: OnceLock<HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| {
        zekit_sys::DDI_TABLES
            .iter()
            .flat_map(|(_, tables)| tables.iter())
            .flat_map(|t| t.entries.iter())
            .map(|e| e.name)
            .collect()
    })
}

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

/// Identifies a programmed result (see [`Script::rule_hits`], [`Script::remove_rule`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RuleId(u64);

/// Handle of an in-order sequence of expectations (see [`Script::sequence`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sequence {
    id: u64,
    number: u64,
}

impl Sequence {
    /// The sequence's number in messages (`sequence #1`).
    pub fn number(&self) -> u64 {
        self.number
    }
}

struct Rule {
    id: u64,
    count: Count,
    preds: Vec<Pred>,
    result: ze_result_t,
    /// Matching calls seen since the rule was added.
    seen: u64,
    /// Calls the rule answered.
    hits: u64,
}

impl Rule {
    /// Counts a matching call; whether the rule answers it.
    fn advance(&mut self) -> bool {
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

struct Exp {
    id: u64,
    function: String,
    description: Option<String>,
    preds: Vec<Pred>,
    min: u64,
    max: u64,
    count: u64,
    /// Ids of the sequences this expectation belongs to.
    seqs: Vec<u64>,
}

impl Exp {
    fn label(&self) -> String {
        match (&self.description, self.preds.is_empty()) {
            (Some(d), _) => format!("{} [{d}]", self.function),
            (None, true) => self.function.clone(),
            (None, false) => format!("{} [with predicate]", self.function),
        }
    }
    fn bounds(&self) -> String {
        bounds_text(self.min, self.max)
    }
}

fn calls_text(n: u64) -> String {
    if n == 1 {
        "1 call".to_string()
    } else {
        format!("{n} calls")
    }
}

fn times_text(n: u64) -> String {
    match n {
        1 => "once".to_string(),
        n => format!("{n} times"),
    }
}

fn bounds_text(min: u64, max: u64) -> String {
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

struct SeqState {
    id: u64,
    number: u64,
    /// Expectation ids in order.
    members: Vec<u64>,
    /// Index in `members` of the expectation currently being satisfied.
    cursor: usize,
}

#[derive(Default)]
struct FnEntry {
    rules: Vec<Rule>,
    /// Ids of the expectations on this function, oldest first.
    exps: Vec<u64>,
}

#[derive(Default)]
struct Inner {
    next_id: u64,
    next_seq_number: u64,
    funcs: HashMap<String, FnEntry>,
    /// All expectations, ids increasing.
    exps: Vec<Exp>,
    seqs: Vec<SeqState>,
    violations: Vec<String>,
}

impl Inner {
    fn id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }
    fn exp(&self, id: u64) -> Option<&Exp> {
        self.exps
            .binary_search_by_key(&id, |e| e.id)
            .ok()
            .map(|i| &self.exps[i])
    }
    fn exp_mut(&mut self, id: u64) -> Option<&mut Exp> {
        match self.exps.binary_search_by_key(&id, |e| e.id) {
            Ok(i) => Some(&mut self.exps[i]),
            Err(_) => None,
        }
    }
    fn check_function(&mut self, what: &str, function: &str) {
        if !is_known_function(function) {
            self.violations.push(format!(
                "{what}(\"{function}\"): unknown Level Zero function"
            ));
        }
    }
    fn prune(&mut self) {
        self.funcs
            .retain(|_, e| !e.rules.is_empty() || !e.exps.is_empty());
    }
}

/// What phase 1 of `before_call` found for a function: ids and predicates to evaluate unlocked.
struct Plan {
    rules: Vec<(u64, Vec<Pred>)>,
    exps: Vec<(u64, Vec<Pred>)>,
}

thread_local! {
    /// Calls between `before_call` and `after_call` on this thread: (script address, function, seq).
    static PENDING: RefCell<Vec<(usize, &'static str, u64)>> = const { RefCell::new(Vec::new()) };
}

/// The programmable state of the mock: see the module docs.
pub struct Script {
    inner: Mutex<Inner>,
    /// Whether any rule or expectation exists (fast path for `before_call`).
    armed: AtomicBool,
    seq: AtomicU64,
    calls: Mutex<Vec<Call>>,
    profile: RwLock<Arc<Profile>>,
    log_path: Mutex<Option<PathBuf>>,
    /// Host callbacks by kernel name.
    kernels: Mutex<HashMap<String, KernelCallback>>,
    /// Launches that ran, in order.
    launches: Mutex<Vec<KernelLaunch>>,
}

impl Default for Script {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for Script {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inner = lock(&self.inner);
        f.debug_struct("Script")
            .field("calls", &lock(&self.calls).len())
            .field("functions_programmed", &inner.funcs.len())
            .field("expectations", &inner.exps.len())
            .field("violations", &inner.violations)
            .finish()
    }
}

/// Locks, ignoring poisoning (a panicking test thread must not wedge the mock).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The process-wide script the mock driver consults.
pub fn script() -> &'static Script {
    static GLOBAL: OnceLock<Script> = OnceLock::new();
    GLOBAL.get_or_init(Script::new)
}

impl Script {
    /// An empty script, independent of [`script()`].
    pub fn new() -> Self {
        Self {
            inner: Mutex::new(Inner::default()),
            armed: AtomicBool::new(false),
            seq: AtomicU64::new(0),
            calls: Mutex::new(Vec::new()),
            profile: RwLock::new(Arc::new(Profile::default())),
            log_path: Mutex::new(None),
            kernels: Mutex::new(HashMap::new()),
            launches: Mutex::new(Vec::new()),
        }
    }

    fn addr(&self) -> usize {
        self as *const Self as usize
    }

    fn rearm(&self, inner: &Inner) {
        self.armed.store(!inner.funcs.is_empty(), Ordering::Release);
    }

    // ----- hooks for the generated layer -------------------------------------------------------

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
    fn count_expectation(&self, inner: &mut Inner, function: &str, seq: u64, matched: &[u64]) {
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

    // ----- call log ---------------------------------------------------------------------------

    /// Every logged call, by call number.
    pub fn calls(&self) -> Vec<Call> {
        let mut v = lock(&self.calls).clone();
        v.sort_by_key(|c| c.seq);
        v
    }

    /// The logged calls to `function`, by call number.
    pub fn calls_to(&self, function: &str) -> Vec<Call> {
        let mut v: Vec<Call> = lock(&self.calls)
            .iter()
            .filter(|c| c.function == function)
            .cloned()
            .collect();
        v.sort_by_key(|c| c.seq);
        v
    }

    /// How many calls to `function` are logged.
    pub fn call_count(&self, function: &str) -> usize {
        lock(&self.calls)
            .iter()
            .filter(|c| c.function == function)
            .count()
    }

    /// Empties the call log (call numbers keep counting; [`reset`](Self::reset) restarts them).
    pub fn clear_calls(&self) {
        lock(&self.calls).clear();
    }

    /// The call log as text, one `#seq function(arg=value, …) -> ZE_RESULT_…` line per call.
    pub fn render_log(&self) -> String {
        let mut s = String::new();
        for c in self.calls() {
            s.push_str(&c.to_string());
            s.push('\n');
        }
        s
    }

    /// Writes the call log to `path`.
    pub fn write_log_to(&self, path: &Path) -> Result<(), String> {
        std::fs::write(path, self.render_log())
            .map_err(|e| format!("cannot write call log {}: {e}", path.display()))
    }

    /// Where the call log goes (see [`set_log_path`](Self::set_log_path)).
    pub fn log_path(&self) -> Option<PathBuf> {
        lock(&self.log_path).clone()
    }

    /// Names the file [`write_log`](Self::write_log) writes. For the global [`script()`], the log
    /// is also written there when the process exits (or the mock library is unloaded).
    pub fn set_log_path(&self, path: Option<PathBuf>) {
        let is_some = path.is_some();
        *lock(&self.log_path) = path;
        if is_some && std::ptr::eq(self, script()) {
            install_exit_hook();
        }
    }

    /// Writes the call log to the configured path, if any; `Ok(false)` when none is set.
    pub fn write_log(&self) -> Result<bool, String> {
        match self.log_path() {
            Some(p) => self.write_log_to(&p).map(|()| true),
            None => Ok(false),
        }
    }

    // ----- programmed results ------------------------------------------------------------------

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

    // ----- expectations -----------------------------------------------------------------------

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

    // ----- profile and reset --------------------------------------------------------------------

    /// The device profile the mock reports.
    pub fn profile(&self) -> Arc<Profile> {
        self.profile
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    pub fn set_profile(&self, profile: Profile) {
        *self.profile.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(profile);
    }

    // ----- kernels ----------------------------------------------------------------------------------

    /// Registers `callback` for launches of the kernel `name` (replacing an earlier one): when
    /// such a launch runs, the callback receives it ([`KernelLaunch`]: group counts and sizes,
    /// argument values) and emulates the kernel's effect on memory. Without a callback a
    /// launch does nothing. See [`crate::kernels`] for what a callback may do and what a
    /// panic in it gives.
    pub fn on_kernel(&self, name: &str, callback: impl Fn(&KernelLaunch) + Send + Sync + 'static) {
        self.set_kernel_callback(name, Arc::new(callback));
    }

    /// Registers (or replaces) a callback already in an `Arc`.
    pub fn set_kernel_callback(&self, name: &str, callback: KernelCallback) {
        lock(&self.kernels).insert(name.to_string(), callback);
    }

    /// Removes the callback of kernel `name`; whether there was one.
    pub fn remove_kernel_callback(&self, name: &str) -> bool {
        lock(&self.kernels).remove(name).is_some()
    }

    /// The callback registered for kernel `name`.
    pub fn kernel_callback(&self, name: &str) -> Option<KernelCallback> {
        lock(&self.kernels).get(name).cloned()
    }

    /// Records a launch that ran (the mock's engine does).
    pub fn record_launch(&self, launch: KernelLaunch) {
        lock(&self.launches).push(launch);
    }

    /// Every launch that ran since the last [`reset`](Self::reset) or
    /// [`clear_launches`](Self::clear_launches), in the order they ran (with or without a
    /// callback). Appending a launch is in the call log too, with the kernel's name and
    /// arguments (see the README).
    pub fn launches(&self) -> Vec<KernelLaunch> {
        lock(&self.launches).clone()
    }

    /// The launches of kernel `name` that ran.
    pub fn launches_of(&self, name: &str) -> Vec<KernelLaunch> {
        lock(&self.launches)
            .iter()
            .filter(|l| l.kernel == name)
            .cloned()
            .collect()
    }

    /// Forgets the launches recorded so far.
    pub fn clear_launches(&self) {
        lock(&self.launches).clear();
    }

    /// Clears everything: programmed results, expectations, sequences, violations, the call log
    /// (numbers restart at 1), the log path, kernel callbacks and recorded launches; the
    /// profile returns to [`Profile::default`].
    pub fn reset(&self) {
        {
            let mut inner = lock(&self.inner);
            *inner = Inner::default();
            self.rearm(&inner);
        }
        lock(&self.calls).clear();
        self.seq.store(0, Ordering::Relaxed);
        *lock(&self.log_path) = None;
        lock(&self.kernels).clear();
        lock(&self.launches).clear();
        self.set_profile(Profile::default());
    }
}

/// Builder of a programmed result: [`Script::on`].
#[must_use = "a programmed result is installed by `.returns(code)`"]
pub struct On<'a> {
    script: &'a Script,
    function: String,
    count: Count,
    preds: Vec<Pred>,
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

/// A registered expectation, refined by chaining: [`Script::expect`].
pub struct Expectation<'a> {
    script: &'a Script,
    id: u64,
}

impl Expectation<'_> {
    fn edit(self, f: impl FnOnce(&mut Exp)) -> Self {
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

extern "C" {
    fn atexit(callback: extern "C" fn()) -> std::ffi::c_int;
}

extern "C" fn write_global_log_at_exit() {
    let _ = catch_unwind(|| {
        if let Err(e) = script().write_log() {
            eprintln!("zekit-mock: {e}");
        }
    });
}

fn install_exit_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: `atexit` is the C library's; the callback is a plain `extern "C"` function that
        // catches every panic.
        unsafe {
            atexit(write_global_log_at_exit);
        }
    });
}
