//! The call log: reading, rendering and writing it (also at process exit).

use std::panic::catch_unwind;
use std::path::{Path, PathBuf};
use std::sync::Once;

use super::call::*;
use super::{lock, script, Script};

impl Script {
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
