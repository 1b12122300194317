//! The C control header of the mock driver, `include/zekit/zekit_mock.h` (tera template
//! `templates/zekit_mock.h.tera`):
//!
//! * the control functions `libze_zekit_mock.so` exports (`zekitMockReset`, ...), declared for
//!   programs that link the library and as `zekit_pfn*_t` pointer types for `dlsym`;
//! * `ZEKIT_MOCK_FALLBACK_RESULTS(X)`: what every API function returns when the mock has no
//!   behaviour of its own for it (see [`fallback_result`]). The mock reads this same table.

use serde::Serialize;

use crate::load::NAMESPACES;
use crate::model::Api;
use crate::spec::{Dir, Function};

const TEMPLATE: &str = include_str!("../templates/zekit_mock.h.tera");

/// Path of the header, relative to `generated/`.
pub const HEADER_PATH: &str = "include/zekit/zekit_mock.h";

/// One exported control function: name, C return type, C parameters, doc lines.
pub struct ControlFn {
    pub name: &'static str,
    pub ret: &'static str,
    pub params: &'static [(&'static str, &'static str)],
    pub doc: &'static [&'static str],
}

/// The control API of the mock (implemented in `mock/src/capi.rs`).
pub const CONTROL_API: &[ControlFn] = &[
    ControlFn {
        name: "zekitMockReset",
        ret: "void",
        params: &[],
        doc: &[
            "Forgets every programmed result, expectation and sequence, empties the call log",
            "(call numbers restart at 1), clears the log path and restores the default device",
            "profile. Objects the application created stay valid.",
        ],
    },
    ControlFn {
        name: "zekitMockSetResult",
        ret: "ze_result_t",
        params: &[("const char*", "function"), ("uint32_t", "nth"), ("ze_result_t", "result")],
        doc: &[
            "Programs calls to `function` (a C name such as \"zeMemAllocDevice\") to return",
            "`result` without running the mock's behaviour: only the `nth` call (counted from 1,",
            "from now on), or every call when `nth` is 0.",
            "Returns ZE_RESULT_ERROR_INVALID_NULL_POINTER for a NULL name and",
            "ZE_RESULT_ERROR_INVALID_ARGUMENT for a name that is not a Level Zero function.",
        ],
    },
    ControlFn {
        name: "zekitMockCallCount",
        ret: "uint32_t",
        params: &[("const char*", "function")],
        doc: &[
            "Number of logged calls to `function`; every logged call when `function` is NULL.",
            "Calls to unknown names count 0.",
        ],
    },
    ControlFn {
        name: "zekitMockWriteLog",
        ret: "ze_result_t",
        params: &[("const char*", "path")],
        doc: &[
            "Writes the call log to `path`, one line per call:",
            "`#seq function(arg=value, ...) -> ZE_RESULT_...`. With NULL, writes it to the path a",
            "scenario's `log:` named (ZE_RESULT_ERROR_INVALID_NULL_POINTER if none).",
            "Returns ZE_RESULT_ERROR_UNKNOWN when the file cannot be written.",
        ],
    },
    ControlFn {
        name: "zekitMockLoadScenario",
        ret: "ze_result_t",
        params: &[("const char*", "path")],
        doc: &[
            "Reads a YAML scenario file (the format of ZEKIT_MOCK_SCENARIO) and adds its",
            "profile, results, expectations and log path to the current programming.",
            "An invalid file changes nothing, prints the reason on stderr and returns",
            "ZE_RESULT_ERROR_INVALID_ARGUMENT.",
        ],
    },
    ControlFn {
        name: "zekitMockVerify",
        ret: "int32_t",
        params: &[("char*", "buf"), ("size_t", "len")],
        doc: &[
            "Checks the expectations: returns 0 when they all hold, else the number of",
            "failures, whose messages (one per line) are copied into `buf`, truncated to",
            "`len` bytes including the terminating NUL (`buf` may be NULL when `len` is 0).",
        ],
    },
];

/// What `function` returns when the mock has no behaviour for it, and why:
/// `ZE_RESULT_ERROR_UNSUPPORTED_FEATURE` when it has an `[out]` or `[in,out]` parameter (a
/// success would hand the caller outputs nobody wrote) or an `hSignalEvent` (a success would
/// leave the event unsignaled forever); otherwise `ZE_RESULT_SUCCESS`: nothing to read back.
pub fn fallback_result(f: &Function) -> (&'static str, String) {
    if let Some(p) = f.params.iter().find(|p| matches!(p.dir, Some(Dir::Out | Dir::Inout))) {
        let ann = p.dir.map_or("", |d| d.annotation());
        return ("ZE_RESULT_ERROR_UNSUPPORTED_FEATURE", format!("{ann} {}", p.name));
    }
    if f.params.iter().any(|p| p.name == "hSignalEvent") {
        return ("ZE_RESULT_ERROR_UNSUPPORTED_FEATURE", "hSignalEvent".to_string());
    }
    ("ZE_RESULT_SUCCESS", String::new())
}

#[derive(Serialize)]
struct ControlView {
    name: String,
    ret: String,
    params: String,
    types: String,
    pfn: String,
    doc: Vec<String>,
}

#[derive(Serialize)]
struct FallbackView {
    name: String,
    /// Blanks after the comma that align the result column.
    pad: String,
    result: String,
    why: String,
}

/// `[(HEADER_PATH, text)]`.
pub fn emit(api: &Api) -> Result<Vec<(String, String)>, String> {
    let control: Vec<ControlView> = CONTROL_API
        .iter()
        .map(|f| {
            let params = if f.params.is_empty() {
                "void".to_string()
            } else {
                f.params.iter().map(|(t, n)| format!("{t} {n}")).collect::<Vec<_>>().join(", ")
            };
            let types = if f.params.is_empty() {
                "void".to_string()
            } else {
                f.params.iter().map(|(t, _)| t.to_string()).collect::<Vec<_>>().join(", ")
            };
            ControlView {
                name: f.name.to_string(),
                ret: f.ret.to_string(),
                params,
                types,
                pfn: format!("zekit_pfn{}_t", f.name.trim_start_matches("zekit")),
                doc: f.doc.iter().map(|s| s.to_string()).collect(),
            }
        })
        .collect();
    let mut fallback = vec![];
    for ns in NAMESPACES {
        for (_, f) in api.functions(ns) {
            let (result, why) = fallback_result(f);
            fallback.push(FallbackView { name: f.name.clone(), pad: String::new(), result: result.to_string(), why });
        }
    }
    let width = fallback.iter().map(|f| f.name.len()).max().unwrap_or(0);
    for f in &mut fallback {
        f.pad = " ".repeat(width - f.name.len() + 1);
    }
    let mut tera = tera::Tera::default();
    tera.add_raw_template("zekit_mock.h", TEMPLATE).map_err(|e| format!("zekit_mock.h.tera: {e:?}"))?;
    tera.autoescape_on(vec![]);
    let mut ctx = tera::Context::new();
    ctx.insert("control", &control);
    ctx.insert("fallback", &fallback);
    ctx.insert("count", &fallback.len());
    let text = tera.render("zekit_mock.h", &ctx).map_err(|e| format!("zekit_mock.h: {e:?}"))?;
    Ok(vec![(HEADER_PATH.to_string(), text)])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn function(params: &str) -> Function {
        serde_yaml::from_str(&format!("name: zeThingDo\nclass: zeThing\nparams:\n{params}"))
            .expect("function yaml")
    }

    #[test]
    fn fallback_is_unsupported_when_a_success_would_be_a_lie() {
        let out = function("- {name: hThing, type: ze_thing_handle_t, dir: in}\n- {name: phOther, type: ze_other_handle_t*, dir: out}\n");
        assert_eq!(fallback_result(&out), ("ZE_RESULT_ERROR_UNSUPPORTED_FEATURE", "[out] phOther".to_string()));
        let inout = function("- {name: hThing, type: ze_thing_handle_t, dir: in}\n- {name: pCount, type: uint32_t*, dir: inout}\n");
        assert_eq!(fallback_result(&inout).1, "[in,out] pCount");
        let event = function("- {name: hList, type: ze_command_list_handle_t, dir: in}\n- {name: hSignalEvent, type: ze_event_handle_t, dir: in}\n");
        assert_eq!(fallback_result(&event).0, "ZE_RESULT_ERROR_UNSUPPORTED_FEATURE");
        let plain = function("- {name: hThing, type: ze_thing_handle_t, dir: in}\n- {name: value, type: uint32_t, dir: in}\n");
        assert_eq!(fallback_result(&plain), ("ZE_RESULT_SUCCESS", String::new()));
    }

    #[test]
    fn control_api_names_and_pointer_types() {
        for f in CONTROL_API {
            assert!(f.name.starts_with("zekitMock"), "{}", f.name);
            assert!(!f.doc.is_empty(), "{} is documented", f.name);
        }
    }
}
