//! How strictly calls are checked: the validation level, and the notes of the leniencies taken.
//!
//! | level | set by | what it does |
//! |---|---|---|
//! | compatible (default) | `ZEKIT_VALIDATION` unset, or `compatible` | the generated checks run, but what Intel's compute-runtime accepts, wherever its meaning is unambiguous, is accepted too (an `stype` left at 0, a kernel argument given more bytes than it has, a GPU-shaped memory ordinal, ...); each such leniency is logged once, at debug level (`ZEKIT_LOG=debug`) |
//! | strict | `ZEKIT_VALIDATION=strict` | the letter of the spec: every leniency above is refused with its error code |
//! | off | `ZEKIT_VALIDATION=0` (`off`, `false`, `no`) | the generated parameter checks are skipped (what the drivers check themselves stays, at the compatible level) |
//!
//! Where a program contradicts the spec itself (an alignment that is not a power of two, say),
//! every level keeps the spec's answer.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Mutex;

/// How strictly calls are checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// The generated parameter checks are skipped.
    Off,
    /// The spec's checks, with what the reference driver accepts accepted too (the default).
    Compatible,
    /// The letter of the spec.
    Strict,
}

impl Level {
    /// Reads a `ZEKIT_VALIDATION` value; `None` for the default.
    pub fn parse(v: Option<&str>) -> Level {
        match v.map(str::trim) {
            Some("0" | "off" | "false" | "no") => Level::Off,
            Some("strict") => Level::Strict,
            _ => Level::Compatible,
        }
    }

    fn code(self) -> u8 {
        match self {
            Level::Off => 1,
            Level::Compatible => 2,
            Level::Strict => 3,
        }
    }
}

// 0 = not read yet.
static LEVEL: AtomicU8 = AtomicU8::new(0);

/// The validation level of this process (`ZEKIT_VALIDATION`, read once).
#[inline]
pub fn level() -> Level {
    match LEVEL.load(Ordering::Relaxed) {
        1 => Level::Off,
        2 => Level::Compatible,
        3 => Level::Strict,
        _ => {
            let l = Level::parse(std::env::var("ZEKIT_VALIDATION").ok().as_deref());
            LEVEL.store(l.code(), Ordering::Relaxed);
            l
        }
    }
}

/// Sets the validation level of this process.
pub fn set_level(l: Level) {
    LEVEL.store(l.code(), Ordering::Relaxed);
}

/// True when the letter of the spec is asked for (`ZEKIT_VALIDATION=strict`).
#[inline]
pub fn strict() -> bool {
    level() == Level::Strict
}

static NOTED: Mutex<Option<HashSet<String>>> = Mutex::new(None);

/// Notes that `function` accepted what only the compatible level accepts (`what`): logged
/// once per distinct text, at debug level.
#[cold]
pub fn lenient(function: &str, what: &str) {
    if !crate::debug_log() {
        return;
    }
    let line = format!("{function}: accepted ({what}); ZEKIT_VALIDATION=strict refuses it");
    let mut noted = NOTED.lock().unwrap_or_else(|p| p.into_inner());
    if noted.get_or_insert_with(HashSet::new).insert(line.clone()) {
        crate::log_debug(&line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_parse() {
        assert_eq!(Level::parse(None), Level::Compatible);
        assert_eq!(Level::parse(Some("compatible")), Level::Compatible);
        assert_eq!(Level::parse(Some("strict")), Level::Strict);
        for off in ["0", "off", "false", "no"] {
            assert_eq!(Level::parse(Some(off)), Level::Off);
        }
    }
}
