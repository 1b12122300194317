//! Memory commands: copies, region copies and fills on host memory. From
//! [`PARALLEL_MIN`] bytes on, a command is split into pieces the [`WorkerPool`] runs in parallel.
//!
//! Addresses are plain `usize`s here: the application promised they are valid when it appended
//! the command (USM or system memory, all host memory on this device), and they are only
//! dereferenced while the command runs.

use super::fault::{guarded, Fault};
use super::pool::WorkerPool;

/// Copies and fills of at least this many bytes are split over the worker pool.
pub const PARALLEL_MIN: usize = 1 << 20;
/// Smallest piece of a split command; pieces start on multiples of it (a fill's pieces are
/// rounded up to whole patterns besides).
const PIECE_ALIGN: usize = 64 << 10;

/// Number of pieces and their size for `size` bytes on `pool`: a few per participant, so a
/// thread that starts late still gets a share.
fn split(size: usize, pool: &WorkerPool) -> (usize, usize) {
    let participants = pool.threads() + 1;
    let piece = size
        .div_ceil(participants * 2)
        .next_multiple_of(PIECE_ALIGN)
        .max(PIECE_ALIGN);
    (size.div_ceil(piece), piece)
}

fn overlap(a: usize, b: usize, size: usize) -> bool {
    a < b.saturating_add(size) && b < a.saturating_add(size)
}

/// `size` bytes from `src` to `dst` (overlapping ranges are copied as by `memmove`); a fault
/// (memory the application's promise did not cover) ends the copy with [`Fault`].
///
/// # Safety
/// `src` must be readable and `dst` writable for `size` bytes.
pub unsafe fn copy(pool: &WorkerPool, dst: usize, src: usize, size: usize) -> Result<(), Fault> {
    if size < PARALLEL_MIN || overlap(dst, src, size) {
        // SAFETY: the caller promises both ranges; `copy` allows overlap.
        return guarded(|| unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, size) });
    }
    let (n, piece) = split(size, pool);
    pool.run(n, &|i| {
        let off = i * piece;
        let len = piece.min(size - off);
        // SAFETY: pieces are disjoint sub-ranges of the caller's non-overlapping ranges.
        unsafe {
            std::ptr::copy_nonoverlapping((src + off) as *const u8, (dst + off) as *mut u8, len)
        };
    })
}

/// Fills `size` bytes at `dst` with repetitions of `pattern` (of any non-zero length; `size` a
/// multiple of it); a fault ends the fill with [`Fault`].
///
/// # Safety
/// `dst` must be writable for `size` bytes.
pub unsafe fn fill(pool: &WorkerPool, dst: usize, size: usize, pattern: &[u8]) -> Result<(), Fault> {
    debug_assert!(!pattern.is_empty() && size.is_multiple_of(pattern.len()));
    if size < PARALLEL_MIN || pattern.len() > size / 2 {
        // SAFETY: forwarded.
        return guarded(|| unsafe { fill_serial(dst, size, pattern) });
    }
    let (_, piece) = split(size, pool);
    // Each piece starts on a whole pattern.
    let piece = piece.next_multiple_of(pattern.len());
    pool.run(size.div_ceil(piece), &|i| {
        let off = i * piece;
        let len = piece.min(size - off);
        // SAFETY: disjoint sub-ranges of the caller's range, each of whole patterns.
        unsafe { fill_serial(dst + off, len, pattern) };
    })
}

/// # Safety
/// As [`fill`].
unsafe fn fill_serial(dst: usize, size: usize, pattern: &[u8]) {
    let p = pattern.len();
    if p == 1 {
        // SAFETY: forwarded.
        unsafe { std::ptr::write_bytes(dst as *mut u8, pattern[0], size) };
        return;
    }
    if p <= 4096 && 4096 % p == 0 {
        // A 4 KiB block of whole patterns, copied over and over.
        let mut block = [0u8; 4096];
        for chunk in block.chunks_exact_mut(p) {
            chunk.copy_from_slice(pattern);
        }
        let mut off = 0;
        while off < size {
            let len = block.len().min(size - off);
            // SAFETY: `off + len <= size`; the block is a local array.
            unsafe { std::ptr::copy_nonoverlapping(block.as_ptr(), (dst + off) as *mut u8, len) };
            off += len;
        }
        return;
    }
    // Any other length: the first pattern, then what is written so far copied after itself,
    // doubling up to a run of whole patterns that stays in cache (at least one pattern).
    let run = (64usize << 10).max(p) / p * p;
    // SAFETY: `size >= p` (a non-empty fill of whole patterns); the pattern is the caller's.
    unsafe { std::ptr::copy_nonoverlapping(pattern.as_ptr(), dst as *mut u8, p.min(size)) };
    let mut done = p.min(size);
    while done < size {
        let len = done.min(run).min(size - done);
        // SAFETY: `[dst, dst + len)` is written and whole patterns (len is a multiple of `p`,
        // or the tail of `size`, itself a multiple); `[dst + done, dst + done + len)` lies in
        // the caller's range and does not overlap it.
        unsafe { std::ptr::copy_nonoverlapping(dst as *const u8, (dst + done) as *mut u8, len) };
        done += len;
    }
}

/// One side of a region copy: base address, origin and pitches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Side {
    /// Base address.
    pub base: usize,
    /// Origin in bytes (x), rows (y) and slices (z).
    pub origin: (usize, usize, usize),
    /// Bytes between rows.
    pub pitch: usize,
    /// Bytes between slices.
    pub slice_pitch: usize,
}

impl Side {
    /// Address of row `y` of slice `z` of the region.
    pub fn row(&self, y: usize, z: usize) -> usize {
        self.base
            + (self.origin.2 + z) * self.slice_pitch
            + (self.origin.1 + y) * self.pitch
            + self.origin.0
    }
}

/// A region copy: `width` bytes × `height` rows × `depth` slices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region {
    /// Where the bytes go.
    pub dst: Side,
    /// Where they come from.
    pub src: Side,
    /// Bytes per row.
    pub width: usize,
    /// Rows per slice.
    pub height: usize,
    /// Slices.
    pub depth: usize,
}

/// Copies a region row by row (rows split over the pool when the region is large); a fault
/// ends the copy with [`Fault`].
///
/// # Safety
/// Every row of both sides must be valid (readable / writable), and no source row may overlap
/// a destination row.
pub unsafe fn copy_region(pool: &WorkerPool, r: &Region) -> Result<(), Fault> {
    let rows = r.height * r.depth;
    let copy_rows = |first: usize, last: usize| {
        for row in first..last {
            let (y, z) = (row % r.height, row / r.height);
            // SAFETY: the caller promises every row.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    r.src.row(y, z) as *const u8,
                    r.dst.row(y, z) as *mut u8,
                    r.width,
                )
            };
        }
    };
    let total = rows.saturating_mul(r.width);
    if total < PARALLEL_MIN || rows < 2 {
        return guarded(|| copy_rows(0, rows));
    }
    let (n, _) = split(total, pool);
    let rows_per_piece = rows.div_ceil(n.min(rows));
    let n = rows.div_ceil(rows_per_piece);
    pool.run(n, &|i| {
        let first = i * rows_per_piece;
        copy_rows(first.min(rows), (first + rows_per_piece).min(rows));
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_copy_and_fill() {
        let pool = WorkerPool::new(2);
        let size = 3 * PARALLEL_MIN + 12345;
        let src: Vec<u8> = (0..size).map(|i| (i * 7 % 251) as u8).collect();
        let mut dst = vec![0u8; size];
        // SAFETY: both vectors hold `size` bytes.
        unsafe { copy(&pool, dst.as_mut_ptr() as usize, src.as_ptr() as usize, size) }.unwrap();
        assert!(dst == src);
        let pattern: Vec<u8> = (1..=16).collect();
        let size = 2 * PARALLEL_MIN + 4096 * 3 + 16;
        let mut dst = vec![0u8; size];
        // SAFETY: `dst` holds `size` bytes.
        unsafe { fill(&pool, dst.as_mut_ptr() as usize, size, &pattern) }.unwrap();
        assert!(dst.chunks(16).all(|c| c == &pattern[..]));
    }
}
