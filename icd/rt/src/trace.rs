//! Call tracing: `ZEKIT_TRACE=1` logs every call to stderr, `ZEKIT_TRACE=/path` appends
//! to a file. Each line: function, decoded arguments, result, duration. Off, an entry
//! point pays one relaxed atomic load and a branch.

use std::fs::File;
use std::io::Write;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

use zekit_sys::ze_result_t;

// 0 = not read yet, 1 = on, 2 = off.
static STATE: AtomicU8 = AtomicU8::new(0);
static SINK: OnceLock<Mutex<Sink>> = OnceLock::new();

enum Sink {
    Stderr,
    File(File),
}

#[cold]
fn init() -> bool {
    let sink = match std::env::var("ZEKIT_TRACE") {
        Ok(v) if v.is_empty() || v == "0" => None,
        Ok(v) if v == "1" || v == "stderr" => Some(Sink::Stderr),
        Ok(path) => match std::fs::OpenOptions::new().create(true).append(true).open(&path) {
            Ok(f) => Some(Sink::File(f)),
            Err(e) => {
                eprintln!("zekit: ZEKIT_TRACE={path}: {e}; tracing to stderr");
                Some(Sink::Stderr)
            }
        },
        Err(_) => None,
    };
    let on = sink.is_some();
    if let Some(s) = sink {
        let _ = SINK.set(Mutex::new(s));
    }
    STATE.store(if on { 1 } else { 2 }, Ordering::Relaxed);
    on
}

/// Whether tracing is on.
#[inline]
pub fn enabled() -> bool {
    match STATE.load(Ordering::Relaxed) {
        1 => true,
        2 => false,
        _ => init(),
    }
}

/// Starts timing a call when tracing is on.
#[inline]
pub fn start() -> Option<Instant> {
    if enabled() {
        Some(Instant::now())
    } else {
        None
    }
}

/// Writes one trace line.
pub fn emit(start: Instant, function: &str, args: &str, result: ze_result_t) {
    let ns = start.elapsed().as_nanos();
    let line = format!("zekit-trace: {function}({args}) -> {result} [{ns} ns]\n");
    if let Some(sink) = SINK.get() {
        let mut s = sink.lock().unwrap_or_else(|e| e.into_inner());
        let _ = match &mut *s {
            Sink::Stderr => std::io::stderr().write_all(line.as_bytes()),
            Sink::File(f) => f.write_all(line.as_bytes()),
        };
    }
}
