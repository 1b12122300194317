//! Scenario files: program the mock from YAML, for C/C++ tests that reach it through the loader.
//!
//! The file named by `ZEKIT_MOCK_SCENARIO` ([`ENV_VAR`]):
//!
//! ```yaml
//! profile: { device: { name: my gpu } }     # overrides of the default profile,
//! # profile: path/to/profile.yml            # or a profile file
//! results:
//!   - { function: zeMemAllocDevice, nth: 2, result: ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY }
//!   - { function: zeCommandQueueSynchronize, always: true, result: ZE_RESULT_ERROR_DEVICE_LOST }
//!   - { function: zeMemAllocHost, when: { size: "64" }, result: ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY }
//!   - { function: zeEventHostSynchronize, times: 3, result: 0x1 }   # ZE_RESULT_NOT_READY
//! expect:
//!   - { function: zeCommandListClose, times: 1 }
//!   - { function: zeCommandListCreate, at_least: 1, sequence: setup }
//!   - { function: zeCommandQueueExecuteCommandLists, sequence: setup }
//!   - { function: zeMemFree, when: { ptr: "0x0" }, never: true }
//! log: path/to/call-log.txt   # the call log is written there at exit (and by Script::write_log)
//! kernels:                     # host callbacks: kernel name -> exported C function
//!   vector_add: my_vector_add_cb
//! ```
//!
//! - `results`: `nth` (1-based), `times` (the next k) or `always: true` (the default) matching
//!   calls return `result`: a `ze_result_t` name (`ZE_RESULT_…`, prefix optional) or a number.
//! - `when`: every named argument must equal the value as rendered in the call log (numbers also
//!   compare numerically: `64` matches `0x40`).
//! - `expect`: `times`, `at_least`/`at_most`, or `never: true`; exactly once by default.
//!   Expectations with the same `sequence` name must happen in file order.
//! - `kernels`: for each kernel name, the name of a C function of the process with the
//!   `zekit_mock_kernel_callback_t` signature (`zekit/zekit_mock.h`), looked up with
//!   `dlsym(RTLD_DEFAULT, ...)` when the scenario is read (an executable exports its functions
//!   when linked with `-rdynamic`); it is registered as by `zekitMockOnKernel` with a NULL user
//!   pointer. A name the process does not export is an error.
//! - Relative paths (`profile`, `log`) are relative to the scenario file's directory.
//! - Unknown keys and unknown function names are errors.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde::Deserialize;
use serde_yaml::Value;
use zekit_sys::ze_result_t;

use crate::profile::{is_empty_document, Profile};
use crate::script::{is_known_function, known_functions, parse_u64, Args, Count, Script};

/// The environment variable naming the scenario file.
pub const ENV_VAR: &str = "ZEKIT_MOCK_SCENARIO";

/// A parsed, validated scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// The profile to report, when the scenario sets one.
    pub profile: Option<Profile>,
    pub results: Vec<ResultRule>,
    pub expect: Vec<ExpectRule>,
    /// Where to write the call log.
    pub log: Option<PathBuf>,
    /// Kernel callbacks: (kernel name, exported C function name), checked to exist.
    pub kernels: Vec<(String, String)>,
}

/// One entry of `results`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResultRule {
    pub function: String,
    pub count: Count,
    /// `(argument, value)` pairs that must all match.
    pub when: Vec<(String, String)>,
    pub result: ze_result_t,
}

/// One entry of `expect`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExpectRule {
    pub function: String,
    pub min: u64,
    /// `u64::MAX`: unbounded.
    pub max: u64,
    pub when: Vec<(String, String)>,
    pub sequence: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScenario {
    #[serde(default)]
    profile: Option<ProfileSpec>,
    #[serde(default)]
    results: Vec<RawResult>,
    #[serde(default)]
    expect: Vec<RawExpect>,
    #[serde(default)]
    log: Option<String>,
    #[serde(default)]
    kernels: BTreeMap<String, String>,
}

/// `profile:` is either a mapping of overrides (parsed in place, so errors keep their line and
/// path) or a file path.
enum ProfileSpec {
    Inline(Box<Profile>),
    Path(String),
}

impl<'de> Deserialize<'de> for ProfileSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = ProfileSpec;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a mapping of profile overrides or a profile file path")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<ProfileSpec, E> {
                Ok(ProfileSpec::Path(v.to_string()))
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<ProfileSpec, E> {
                Ok(ProfileSpec::Inline(Box::default()))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<ProfileSpec, A::Error> {
                Profile::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(|p| ProfileSpec::Inline(Box::new(p)))
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawResult {
    function: String,
    nth: Option<u64>,
    times: Option<u64>,
    always: Option<bool>,
    when: Option<BTreeMap<String, Value>>,
    result: Value,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawExpect {
    function: String,
    times: Option<u64>,
    at_least: Option<u64>,
    at_most: Option<u64>,
    never: Option<bool>,
    when: Option<BTreeMap<String, Value>>,
    sequence: Option<String>,
}

impl Scenario {
    /// Parses a scenario; relative paths are taken from the current directory.
    pub fn from_yaml(text: &str) -> Result<Scenario, String> {
        Self::from_yaml_in(text, Path::new(""))
    }

    /// Parses a scenario; relative paths are taken from `base_dir`.
    pub fn from_yaml_in(text: &str, base_dir: &Path) -> Result<Scenario, String> {
        if is_empty_document(text) {
            return Ok(Scenario {
                profile: None,
                results: Vec::new(),
                expect: Vec::new(),
                log: None,
                kernels: Vec::new(),
            });
        }
        Self::convert(text, base_dir).map_err(|e| format!("scenario: {e}"))
    }

    fn convert(text: &str, base_dir: &Path) -> Result<Scenario, String> {
        let raw: RawScenario = serde_yaml::from_str(text).map_err(|e| e.to_string())?;
        let profile = match raw.profile {
            None => None,
            Some(ProfileSpec::Inline(p)) => {
                p.validate()?;
                Some(*p)
            }
            Some(ProfileSpec::Path(p)) => Some(Profile::from_file(&base_dir.join(p))?),
        };
        let results = raw
            .results
            .into_iter()
            .enumerate()
            .map(|(i, r)| convert_result(i, r))
            .collect::<Result<Vec<_>, _>>()?;
        let expect = raw
            .expect
            .into_iter()
            .enumerate()
            .map(|(i, e)| convert_expect(i, e))
            .collect::<Result<Vec<_>, _>>()?;
        for (kernel, symbol) in &raw.kernels {
            if crate::kernels::lookup_symbol(symbol).is_none() {
                return Err(format!(
                    "kernels: {kernel}: the process exports no function `{symbol}` (link the \
                     program with -rdynamic)"
                ));
            }
        }
        Ok(Scenario {
            profile,
            results,
            expect,
            log: raw.log.map(|l| base_dir.join(l)),
            kernels: raw.kernels.into_iter().collect(),
        })
    }

    /// Reads and parses a scenario file; errors name the path.
    pub fn from_file(path: &Path) -> Result<Scenario, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read scenario file {}: {e}", path.display()))?;
        let base = path.parent().unwrap_or(Path::new(""));
        Scenario::from_yaml_in(&text, base).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// The scenario named by `ZEKIT_MOCK_SCENARIO`: `Ok(None)` when unset or empty.
    pub fn from_env() -> Result<Option<Scenario>, String> {
        match std::env::var_os(ENV_VAR) {
            None => Ok(None),
            Some(p) if p.is_empty() => Ok(None),
            Some(p) => Scenario::from_file(Path::new(&p))
                .map(Some)
                .map_err(|e| format!("{ENV_VAR}: {e}")),
        }
    }

    /// Loads the `ZEKIT_MOCK_SCENARIO` scenario into `script`; whether there was one.
    pub fn apply_from_env(script: &Script) -> Result<bool, String> {
        match Scenario::from_env()? {
            Some(s) => {
                s.apply(script);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// Programs `script` (adds to what it already holds): profile, results, expectations, log,
    /// kernel callbacks.
    pub fn apply(&self, script: &Script) {
        for (kernel, symbol) in &self.kernels {
            // Checked when read; a symbol gone since (unloaded library) is skipped.
            if let Some(f) = crate::kernels::lookup_symbol(symbol) {
                let c = crate::kernels::CCallback {
                    f,
                    user: std::ptr::null_mut(),
                };
                script.set_kernel_callback(kernel, std::sync::Arc::new(move |l| c.call(l)));
            }
        }
        if let Some(p) = &self.profile {
            script.set_profile(p.clone());
        }
        for r in &self.results {
            let mut on = script.on(&r.function).count(r.count);
            if !r.when.is_empty() {
                let when = r.when.clone();
                on = on.when(move |args| args_match(args, &when));
            }
            on.returns(r.result);
        }
        let mut sequences = HashMap::new();
        for e in &self.expect {
            let mut x = script.expect(&e.function).between(e.min, e.max);
            if !e.when.is_empty() {
                let when = e.when.clone();
                let desc: Vec<String> = when.iter().map(|(k, v)| format!("{k}={v}")).collect();
                x = x
                    .with(move |args| args_match(args, &when))
                    .named(desc.join(", "));
            }
            if let Some(name) = &e.sequence {
                let s = sequences
                    .entry(name.clone())
                    .or_insert_with(|| script.sequence());
                x.in_sequence(s);
            }
        }
        if let Some(log) = &self.log {
            script.set_log_path(Some(log.clone()));
        }
    }
}

/// Whether every `(name, value)` of `when` matches the call's arguments: equal text, or equal
/// numbers (decimal or hex).
pub fn args_match(args: &Args, when: &[(String, String)]) -> bool {
    when.iter().all(|(k, want)| match args.get(k) {
        Some(got) => {
            got == want || matches!((parse_u64(got), parse_u64(want)), (Some(a), Some(b)) if a == b)
        }
        None => false,
    })
}

fn check_function(what: &str, function: &str) -> Result<(), String> {
    if is_known_function(function) {
        return Ok(());
    }
    let hint = closest_function(function)
        .map(|f| format!(" (did you mean `{f}`?)"))
        .unwrap_or_default();
    Err(format!("{what}: unknown function `{function}`{hint}"))
}

fn closest_function(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    known_functions()
        .iter()
        .map(|f| (edit_distance(&lower, &f.to_ascii_lowercase()), *f))
        .filter(|(d, _)| *d <= 3)
        .min()
        .map(|(_, f)| f)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

fn scalar_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Null => Some("null".to_string()),
        _ => None,
    }
}

fn convert_when(
    what: &str,
    when: Option<BTreeMap<String, Value>>,
) -> Result<Vec<(String, String)>, String> {
    when.unwrap_or_default()
        .into_iter()
        .map(|(k, v)| match scalar_text(&v) {
            Some(t) => Ok((k, t)),
            None => Err(format!("{what}: `when.{k}` must be a scalar value")),
        })
        .collect()
}

fn convert_result(i: usize, r: RawResult) -> Result<ResultRule, String> {
    let what = format!("results[{i}] ({})", r.function);
    check_function(&format!("results[{i}]"), &r.function)?;
    let count = match (r.nth, r.times, r.always) {
        (Some(_), Some(_), _) | (Some(_), _, Some(true)) | (_, Some(_), Some(true)) => {
            return Err(format!("{what}: use only one of `nth`, `times`, `always`"))
        }
        (Some(0), _, _) => return Err(format!("{what}: `nth` counts calls from 1")),
        (Some(n), None, _) => Count::Nth(n),
        (None, Some(k), _) => Count::Times(k),
        (None, None, Some(false)) => {
            return Err(format!("{what}: `always: false` needs `nth` or `times`"))
        }
        (None, None, _) => Count::Always,
    };
    let result = match &r.result {
        Value::Number(n) => n
            .as_u64()
            .and_then(|v| u32::try_from(v).ok())
            .map(ze_result_t)
            .ok_or_else(|| format!("{what}: result code {n} is not a 32-bit unsigned value")),
        Value::String(s) => parse_result(s).map_err(|e| format!("{what}: {e}")),
        _ => Err(format!(
            "{what}: `result` must be a ze_result_t name or a number"
        )),
    }?;
    Ok(ResultRule {
        when: convert_when(&what, r.when)?,
        function: r.function,
        count,
        result,
    })
}

fn convert_expect(i: usize, e: RawExpect) -> Result<ExpectRule, String> {
    let what = format!("expect[{i}] ({})", e.function);
    check_function(&format!("expect[{i}]"), &e.function)?;
    let never = e.never == Some(true);
    let (min, max) = match (e.times, e.at_least, e.at_most, never) {
        (Some(n), None, None, false) => (n, n),
        (None, None, None, true) => (0, 0),
        (None, lo, hi, false) if lo.is_some() || hi.is_some() => {
            (lo.unwrap_or(0), hi.unwrap_or(u64::MAX))
        }
        (None, None, None, false) => (1, 1),
        _ => {
            return Err(format!(
                "{what}: use `times`, `never`, or `at_least`/`at_most` (not several)"
            ))
        }
    };
    if min > max {
        return Err(format!(
            "{what}: `at_least` ({min}) exceeds `at_most` ({max})"
        ));
    }
    Ok(ExpectRule {
        when: convert_when(&what, e.when)?,
        function: e.function,
        min,
        max,
        sequence: e.sequence,
    })
}

/// Every `ze_result_t` enumerator: (name, value), from zekit-sys.
pub fn result_codes() -> &'static [(&'static str, ze_result_t)] {
    static CODES: OnceLock<Vec<(&'static str, ze_result_t)>> = OnceLock::new();
    CODES.get_or_init(|| {
        // The ranges the spec allocates result codes in (success/warning, core errors, permission,
        // dependency, validation errors, experimental, unknown); zekit-sys names each value.
        const BASES: [u32; 6] = [
            0,
            0x7000_0000,
            0x7001_0000,
            0x7002_0000,
            0x7800_0000,
            0x7ff0_0000,
        ];
        BASES
            .iter()
            .flat_map(|&b| (b..b + 0x400).map(ze_result_t))
            .chain([ze_result_t::ERROR_UNKNOWN])
            .filter_map(|r| r.name().map(|n| (n, r)))
            .collect()
    })
}

/// A result code by name (`ZE_RESULT_ERROR_DEVICE_LOST`, or without the `ZE_RESULT_` prefix) or
/// number (`0x70000001`, decimal).
pub fn parse_result(text: &str) -> Result<ze_result_t, String> {
    let t = text.trim();
    if let Some(v) = parse_u64(t) {
        return u32::try_from(v)
            .map(ze_result_t)
            .map_err(|_| format!("result code `{t}` exceeds 32 bits"));
    }
    let full = if t.starts_with("ZE_RESULT_") {
        t.to_string()
    } else {
        format!("ZE_RESULT_{t}")
    };
    result_codes()
        .iter()
        .find(|(n, _)| *n == full)
        .map(|(_, r)| *r)
        .ok_or_else(|| {
            format!("unknown result code `{t}` (expected a ZE_RESULT_… name or a number)")
        })
}
