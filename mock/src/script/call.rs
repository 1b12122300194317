//! Logged calls and their rendered arguments, and the names of the API functions.

use std::collections::HashSet;
use std::fmt;
use std::sync::OnceLock;

use zekit_sys::ze_result_t;

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
pub struct Args(pub(super) Vec<(String, String)>);

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
