//! What the mock driver and its C users share, emitted twice from one definition:
//!
//! * the C control header `include/zekit/zekit_mock.h` (tera template
//!   `templates/zekit_mock.h.tera`), and
//! * the Rust module `zekit-mock/mock.rs`, which the mock compiles (`include!` in
//!   `mock/src/generated.rs`).
//!
//! Both carry:
//!
//! * the control functions `libze_zekit_mock.so` exports ([`CONTROL_API`]: `zekitMockReset`,
//!   ...): in the header, declarations for programs that link the library and `zekit_pfn*_t`
//!   pointer types for `dlsym`; in Rust, the `#[no_mangle] extern "C"` definitions themselves,
//!   each calling the function of `mock/src/capi.rs` of the same name in snake case
//!   (`zekitMockSetResult` → `capi::set_result`) with the same parameters, so a signature that
//!   drifts from the header does not compile;
//! * what every API function returns when the mock has no behaviour of its own for it (see
//!   [`fallback_result`]): `ZEKIT_MOCK_FALLBACK_RESULTS(X)` in C, `FALLBACK_RESULTS` in Rust;
//! * in Rust only, `OUTPUTS`: the `[out]` and `[in,out]` parameters of every function ([`outputs`]),
//!   which the mock's plausibility sweep checks against what the mock wrote.

use serde::Serialize;

use crate::emit_rust::{rust_type_tokens, scalar_tokens};
use crate::load::NAMESPACES;
use crate::model::{Api, CType};
use crate::spec::{Dir, Function};

const TEMPLATE: &str = include_str!("../templates/zekit_mock.h.tera");

/// Path of the header, relative to `generated/`.
pub const HEADER_PATH: &str = "include/zekit/zekit_mock.h";

/// Path of the Rust module the mock includes, relative to `generated/`.
pub const RUST_PATH: &str = "zekit-mock/mock.rs";

/// One exported control function: name, C return type, C parameters (type, name), doc lines,
/// and what a caller must guarantee (empty when it takes no pointer; else the Rust definition
/// is an `unsafe extern "C" fn` with this as its `# Safety` section).
pub struct ControlFn {
    pub name: &'static str,
    pub ret: &'static str,
    pub params: &'static [(&'static str, &'static str)],
    pub doc: &'static [&'static str],
    pub safety: &'static str,
}

/// The control API of the mock (implemented in `mock/src/capi.rs`).
pub const CONTROL_API: &[ControlFn] = &[
    ControlFn {
        name: "zekitMockReset",
        ret: "void",
        params: &[],
        doc: &[
            "Forgets every programmed result, expectation and sequence, empties the call log",
            "(call numbers restart at 1), clears the log path, removes every kernel callback",
            "and restores the default device profile. Objects the application created stay",
            "valid.",
        ],
        safety: "",
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
        safety: "`function` is NULL or a NUL-terminated string.",
    },
    ControlFn {
        name: "zekitMockCallCount",
        ret: "uint32_t",
        params: &[("const char*", "function")],
        doc: &[
            "Number of logged calls to `function`; every logged call when `function` is NULL.",
            "Calls to unknown names count 0.",
        ],
        safety: "`function` is NULL or a NUL-terminated string.",
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
        safety: "`path` is NULL or a NUL-terminated string.",
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
        safety: "`path` is NULL or a NUL-terminated string.",
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
        safety: "`buf` is NULL or points to `len` writable bytes.",
    },
    ControlFn {
        name: "zekitMockOnKernel",
        ret: "ze_result_t",
        params: &[("const char*", "kernel"), ("zekit_mock_kernel_callback_t", "callback"), ("void*", "user")],
        doc: &[
            "Registers `callback` for launches of the kernel named `kernel` (replacing an earlier",
            "one; NULL removes it): when such a launch runs, the mock calls",
            "`callback(launch, user)` on the thread that made it run, with the launch's group",
            "counts, group size and argument values, so the callback can emulate the kernel's",
            "effect on memory. Without a callback a launch does nothing. The callback must not",
            "call the mock's queue, command list, event or fence functions. zekitMockReset",
            "removes every callback. Returns ZE_RESULT_ERROR_INVALID_NULL_POINTER for a NULL",
            "name and ZE_RESULT_ERROR_INVALID_ARGUMENT for a name that is not valid UTF-8.",
        ],
        safety: "`kernel` is NULL or a NUL-terminated string; `callback` is NULL or a function of the `zekit_mock_kernel_callback_t` signature, callable from any thread with `user`.",
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
    /// The `[out]` and `[in,out]` parameters (see [`outputs`]); not in the header.
    #[serde(skip)]
    outputs: Vec<Output>,
}

/// One output parameter of a function: name, C type, `[out]` or `[in,out]`, optional.
#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    pub name: String,
    pub ty: String,
    pub dir: &'static str,
    pub optional: bool,
}

/// The `[out]` and `[in,out]` parameters of `f`, in order: what a success hands back, and
/// so what the mock's plausibility sweep (`mock/tests/plausible.rs`) must have seen written.
pub fn outputs(f: &Function) -> Vec<Output> {
    f.params
        .iter()
        .filter_map(|p| match p.dir {
            Some(d @ (Dir::Out | Dir::Inout)) => Some(Output {
                name: p.name.clone(),
                ty: p.ty.clone(),
                dir: d.annotation(),
                optional: p.optional,
            }),
            _ => None,
        })
        .collect()
}

/// The named (non-scalar) C types the control API uses, and what the generated module makes
/// of each: imported from zekit-sys, or declared as the header's typedef is.
const NAMED_TYPES: &[(&str, &str)] = &[
    ("ze_result_t", "use ::zekit_sys::ze_result_t;"),
    (
        "zekit_mock_kernel_callback_t",
        "/// `zekit_mock_kernel_callback_t`: a kernel callback, or none (NULL).\n\
         #[allow(non_camel_case_types)]\n\
         pub type zekit_mock_kernel_callback_t = ::core::option::Option<crate::kernels::CCallbackFn>;",
    ),
];

/// The Rust type of a C type of the control API: the one C-to-Rust mapping of the Rust
/// emitters ([`rust_type_tokens`]), whose named base types must be in [`NAMED_TYPES`].
fn rust_type(c: &str) -> Result<String, String> {
    let base = CType::parse(c).base;
    if scalar_tokens(&base).is_none() && !NAMED_TYPES.iter().any(|(n, _)| *n == base) {
        return Err(format!("emit_mock: no Rust type for the C type `{c}`"));
    }
    Ok(type_text(&rust_type_tokens(c)))
}

/// A type's tokens as a Rust programmer writes them (`*const c_char`, `a::b`).
fn type_text(t: &proc_macro2::TokenStream) -> String {
    t.to_string().replace(" :: ", "::").replace(":: ", "::").replace("* const ", "*const ").replace("* mut ", "*mut ")
}

/// `zekitMockSetResult` → `set_result`: the function of `mock/src/capi.rs` that implements it.
pub fn implementation_name(f: &ControlFn) -> String {
    heck::ToSnakeCase::to_snake_case(f.name.trim_start_matches("zekitMock"))
}

/// Every API function with its fallback result and the reason, in spec order.
fn fallbacks(api: &Api) -> Vec<FallbackView> {
    let mut fallback = vec![];
    for ns in NAMESPACES {
        for (_, f) in api.functions(ns) {
            let (result, why) = fallback_result(f);
            fallback.push(FallbackView {
                name: f.name.clone(),
                pad: String::new(),
                result: result.to_string(),
                why,
                outputs: outputs(f),
            });
        }
    }
    let width = fallback.iter().map(|f| f.name.len()).max().unwrap_or(0);
    for f in &mut fallback {
        f.pad = " ".repeat(width - f.name.len() + 1);
    }
    fallback
}

/// `[(HEADER_PATH, C header), (RUST_PATH, Rust module)]`.
pub fn emit(api: &Api) -> Result<Vec<(String, String)>, String> {
    let fallback = fallbacks(api);
    Ok(vec![(HEADER_PATH.to_string(), emit_header(&fallback)?), (RUST_PATH.to_string(), emit_rust(&fallback)?)])
}

fn emit_header(fallback: &[FallbackView]) -> Result<String, String> {
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
    let mut tera = tera::Tera::default();
    tera.add_raw_template("zekit_mock.h", TEMPLATE).map_err(|e| format!("zekit_mock.h.tera: {e:?}"))?;
    tera.autoescape_on(vec![]);
    let mut ctx = tera::Context::new();
    ctx.insert("control", &control);
    ctx.insert("fallback", &fallback);
    ctx.insert("count", &fallback.len());
    tera.render("zekit_mock.h", &ctx).map_err(|e| format!("zekit_mock.h: {e:?}"))
}

/// The Rust module: `FALLBACK_RESULTS`, `OUTPUTS`, `CONTROL_FUNCTIONS` and the exported control
/// functions. Plain text (no inner attributes or `//!` docs: it is `include!`d).
fn emit_rust(fallback: &[FallbackView]) -> Result<String, String> {
    use std::fmt::Write as _;
    let mut s = String::new();
    let w = &mut s;
    let _ = writeln!(
        w,
        "// @generated by zekit `cargo xtask gen` from spec/ via codegen/src/emit_mock.rs. Do not edit.\n\
         // The mock's share of what include/zekit/zekit_mock.h declares, from the same definitions;\n\
         // compiled into the mock by mock/src/generated.rs.\n"
    );
    let _ = writeln!(
        w,
        "/// What each of the {} API functions returns when the mock has no behaviour of its own\n\
         /// for it (and no programmed result applies), in spec order: `ZE_RESULT_ERROR_UNSUPPORTED_FEATURE`\n\
         /// when it has an `[out]` or `[in,out]` parameter or an `hSignalEvent` (a success would be a\n\
         /// lie), `ZE_RESULT_SUCCESS` otherwise. The header's `ZEKIT_MOCK_FALLBACK_RESULTS(X)`.\n\
         pub const FALLBACK_RESULTS: &[(&str, ::zekit_sys::ze_result_t)] = &[",
        fallback.len()
    );
    for f in fallback {
        let why = if f.why.is_empty() { String::new() } else { format!(" // {}", f.why) };
        let _ = writeln!(w, "    (\"{}\", ::zekit_sys::{}),{why}", f.name, f.result);
    }
    let _ = writeln!(w, "];\n");
    let with_outputs: Vec<&FallbackView> = fallback.iter().filter(|f| !f.outputs.is_empty()).collect();
    let _ = writeln!(
        w,
        "/// An output parameter of an API function: name, C type, direction (`[out]` or\n\
         /// `[in,out]`), optional.\n\
         pub type OutputParam = (&'static str, &'static str, &'static str, bool);\n"
    );
    let _ = writeln!(
        w,
        "/// The output parameters (`[out]`, `[in,out]`) of each of the {} API functions that have\n\
         /// any, in spec order: `(function, [(parameter, C type, direction, optional)])`. What a\n\
         /// successful call hands back; the mock's plausibility sweep (`mock/tests/plausible.rs`)\n\
         /// checks that it saw each modeled one succeed and what it wrote.\n\
         pub const OUTPUTS: &[(&str, &[OutputParam])] = &[",
        with_outputs.len()
    );
    for f in with_outputs {
        let params: Vec<String> = f
            .outputs
            .iter()
            .map(|o| format!("(\"{}\", \"{}\", \"{}\", {})", o.name, o.ty, o.dir, o.optional))
            .collect();
        let _ = writeln!(w, "    (\"{}\", &[{}]),", f.name, params.join(", "));
    }
    let _ = writeln!(w, "];\n");
    let _ = writeln!(w, "/// The control functions the mock exports, in the header's order.");
    let names: Vec<String> = CONTROL_API.iter().map(|f| format!("\"{}\"", f.name)).collect();
    let _ = writeln!(w, "pub const CONTROL_FUNCTIONS: &[&str] = &[{}];", names.join(", "));
    let _ = writeln!(w, "\nuse ::core::ffi::{{c_char, c_void}};");
    for (_, decl) in NAMED_TYPES {
        let _ = writeln!(w, "{decl}");
    }
    for f in CONTROL_API {
        let params = f
            .params
            .iter()
            .map(|(t, n)| Ok(format!("{n}: {}", rust_type(t)?)))
            .collect::<Result<Vec<_>, String>>()?
            .join(", ");
        let args = f.params.iter().map(|(_, n)| *n).collect::<Vec<_>>().join(", ");
        let ret = match f.ret {
            "void" => String::new(),
            t => format!(" -> {}", rust_type(t)?),
        };
        let imp = implementation_name(f);
        let _ = writeln!(w);
        for line in f.doc {
            let _ = writeln!(w, "/// {line}");
        }
        if f.safety.is_empty() {
            let _ = writeln!(w, "#[no_mangle]\npub extern \"C\" fn {}({params}){ret} {{", f.name);
            let _ = writeln!(w, "    crate::capi::{imp}({args})\n}}");
        } else {
            let _ = writeln!(w, "///\n/// # Safety\n/// {}", f.safety);
            let _ = writeln!(w, "#[no_mangle]\npub unsafe extern \"C\" fn {}({params}){ret} {{", f.name);
            let _ = writeln!(w, "    // SAFETY: the caller keeps this function's contract, which is `{imp}`'s.");
            let _ = writeln!(w, "    unsafe {{ crate::capi::{imp}({args}) }}\n}}");
        }
    }
    Ok(s)
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
    fn outputs_are_the_out_and_in_out_parameters() {
        let f = function(
            "- {name: hThing, type: ze_thing_handle_t, dir: in}\n- {name: pCount, type: uint32_t*, dir: inout}\n- {name: phOther, type: ze_other_handle_t*, dir: out, optional: true}\n",
        );
        let o = outputs(&f);
        assert_eq!(o.len(), 2);
        assert_eq!((o[0].name.as_str(), o[0].ty.as_str(), o[0].dir, o[0].optional), ("pCount", "uint32_t*", "[in,out]", false));
        assert_eq!((o[1].name.as_str(), o[1].dir, o[1].optional), ("phOther", "[out]", true));
        assert!(outputs(&function("- {name: hThing, type: ze_thing_handle_t, dir: in}\n")).is_empty());
    }

    #[test]
    fn control_api_names_and_pointer_types() {
        for f in CONTROL_API {
            assert!(f.name.starts_with("zekitMock"), "{}", f.name);
            assert!(!f.doc.is_empty(), "{} is documented", f.name);
            let pointers = f.params.iter().any(|(t, _)| t.contains('*'));
            assert_eq!(pointers, !f.safety.is_empty(), "{}: a pointer parameter needs a safety contract", f.name);
            for (t, _) in f.params {
                rust_type(t).unwrap();
            }
            rust_type(f.ret).unwrap();
        }
        assert_eq!(implementation_name(&CONTROL_API[1]), "set_result");
        assert_eq!(rust_type("const char*").unwrap(), "*const c_char");
        assert_eq!(rust_type("void*").unwrap(), "*mut c_void");
        assert_eq!(rust_type("ze_result_t").unwrap(), "ze_result_t");
        assert!(rust_type("ze_device_handle_t").is_err(), "a type the module does not declare");
    }
}
