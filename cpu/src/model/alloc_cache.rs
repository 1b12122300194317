//! Freed USM mappings kept for the next allocation of the same size.
//!
//! A fresh allocation is a fresh memfd: every page faults on first touch (shared memory gets
//! no transparent huge pages), and `munmap` of a touched 64 MiB takes milliseconds. Programs
//! (dpnp's temporaries, for one) free and allocate the same sizes over and over, so a freed
//! memfd mapping that never left the process is kept here and handed to the next allocation
//! of its length, zero-filled again (a `memset` of pages already there costs a fraction of
//! faulting them in).
//!
//! What is kept: mappings of our own memfds of 1 MiB to 256 MiB whose descriptor was never
//! exported (no IPC handle, no external-memory fd: another process may still map those), up to
//! `CACHE_BYTES` (512 MiB) in all and `CACHE_ENTRIES` (16) mappings, the oldest going first. Imported
//! files and `std::alloc` memory are never kept.

use std::os::fd::OwnedFd;
use std::ptr::NonNull;
use std::sync::Mutex;

/// Smallest mapping kept (smaller ones fault in quickly enough).
const MIN_LEN: usize = 1 << 20;
/// Largest mapping kept: zero-filling it again must stay cheap next to faulting it in lazily.
const MAX_LEN: usize = 256 << 20;
/// Bytes kept in all.
const CACHE_BYTES: usize = 512 << 20;
/// Mappings kept (each holds a file descriptor).
const CACHE_ENTRIES: usize = 16;

/// A memfd mapped `MAP_SHARED` read-write at `ptr` over `map_len` bytes, no longer in use.
pub struct Kept {
    pub ptr: NonNull<u8>,
    pub fd: OwnedFd,
    pub map_len: usize,
}

// SAFETY: the mapping is process-wide memory no one else refers to (it was freed); moving the
// record between threads moves only its address and descriptor.
unsafe impl Send for Kept {}

/// Kept mappings, oldest first.
pub struct Cache {
    kept: Mutex<Vec<Kept>>,
}

/// The process's cache (memory is the process's, whatever context allocated it).
pub static CACHE: Cache = Cache::new();

/// Whether a mapping of `map_len` bytes may be kept.
pub fn keepable(map_len: usize) -> bool {
    (MIN_LEN..=MAX_LEN).contains(&map_len)
}

impl Cache {
    pub const fn new() -> Cache {
        Cache {
            kept: Mutex::new(Vec::new()),
        }
    }

    fn kept(&self) -> std::sync::MutexGuard<'_, Vec<Kept>> {
        self.kept.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Keeps `m` (a [`keepable`] length) for a later [`Cache::take`]; returns the mappings that
    /// no longer fit, oldest first, for the caller to unmap.
    pub fn keep(&self, m: Kept) -> Vec<Kept> {
        let mut k = self.kept();
        k.push(m);
        let mut out = Vec::new();
        while k.len() > CACHE_ENTRIES || k.iter().map(|m| m.map_len).sum::<usize>() > CACHE_BYTES {
            out.push(k.remove(0));
        }
        out
    }

    /// A kept mapping of exactly `map_len` bytes at an `align`-aligned address, newest first;
    /// its contents are whatever was last written (the caller zero-fills it).
    pub fn take(&self, map_len: usize, align: usize) -> Option<Kept> {
        if !keepable(map_len) {
            return None;
        }
        let mut k = self.kept();
        let i = k
            .iter()
            .rposition(|m| m.map_len == map_len && (m.ptr.as_ptr() as usize).is_multiple_of(align))?;
        Some(k.remove(i))
    }
}

impl Default for Cache {
    fn default() -> Cache {
        Cache::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fake(n: usize, len: usize) -> Kept {
        // A descriptor to own: /dev/null is enough for the bookkeeping tested here.
        let fd = OwnedFd::from(std::fs::File::open("/dev/null").unwrap());
        Kept {
            ptr: NonNull::new((n << 21) as *mut u8).unwrap(),
            fd,
            map_len: len,
        }
    }

    #[test]
    fn sizes_alignment_and_budget() {
        // A cache of its own: these records point at no memory.
        let c = Cache::new();
        assert!(!keepable(4096) && keepable(MIN_LEN) && keepable(MAX_LEN) && !keepable(MAX_LEN + 1));
        assert!(c.keep(fake(1, 8 << 20)).is_empty());
        assert!(c.take(4 << 20, 64).is_none(), "another length");
        assert!(c.take(8 << 20, 1 << 30).is_none(), "not aligned enough");
        let m = c.take(8 << 20, 1 << 21).expect("kept");
        assert_eq!(m.ptr.as_ptr() as usize, 1 << 21);
        assert!(c.take(8 << 20, 64).is_none(), "taken once");
        // Past the byte budget the oldest go back to the caller.
        let mut back = Vec::new();
        for n in 0..3 {
            back.extend(c.keep(fake(10 + n, MAX_LEN)));
        }
        assert_eq!(back.len(), 1);
        assert_eq!(back[0].ptr.as_ptr() as usize, 10 << 21);
        // Past the entry budget too.
        let c = Cache::new();
        let back: Vec<Kept> = (0..CACHE_ENTRIES + 2).flat_map(|n| c.keep(fake(40 + n, MIN_LEN))).collect();
        assert_eq!(back.len(), 2);
        assert_eq!(back[1].ptr.as_ptr() as usize, 41 << 21);
    }
}
