//! The checks of the generated validation that run only at the strict level
//! (`zekit_icd_rt::strict`): what Intel's compute-runtime accepts, whose meaning is unambiguous.
//! At the compatible level (the default) the call goes on, noted once with `zekit_icd_rt::lenient`.
//! The table of every leniency, these and the drivers' own: `docs/validation.md`.

/// Flags parameters whose unknown bits are refused (rule 3) only at the strict level: the
/// driver uses the bits it knows. (function, parameter, why.)
pub const LENIENT_FLAGS: &[(&str, &str, &str)] = &[(
    "zeInit",
    "flags",
    "the loader keeps the first zeInit's answer for the process: a refused bad flag would make every later zeInit fail",
)];

/// Why `function`'s flags parameter `param` is checked only at the strict level, if it is.
pub fn lenient_flags(function: &str, param: &str) -> Option<&'static str> {
    LENIENT_FLAGS.iter().find(|l| l.0 == function && l.1 == param).map(|l| l.2)
}

/// Return conditions of the spec that Intel's compute-runtime does not enforce, and whose
/// meaning is unambiguous when they hold: checked only when the validation level is strict
/// (`zekit_icd_rt::strict`); at the compatible level the call goes on, noted once with
/// `zekit_icd_rt::lenient`. (function, condition text as in the spec, why.)
pub const LENIENT_CONDITIONS: &[(&str, &str, &str)] = &[
    (
        "zeVirtualMemQueryPageSize",
        "0 == size",
        "size 0 answered with the page size, as compute-runtime does",
    ),
    (
        "zeModuleCreate",
        "0 == desc->inputSize",
        "inputSize is ignored when a ze_module_program_exp_desc_t is chained (its inputs are the module); the driver checks it otherwise",
    ),
];
