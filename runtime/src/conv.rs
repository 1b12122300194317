//! Level Zero conventions every driver follows, in one place.

use std::ffi::c_char;

/// The count protocol of array queries (`uint32_t* pCount` + optional array): with no array or
/// `*count == 0`, sets `*count` to the number of `items`; otherwise fills the first
/// `min(*count, items.len(), out.len())` entries of `out` with `fill` and sets `*count` to that
/// number.
pub fn fill_counted<S, D>(items: &[S], count: &mut u32, out: Option<&mut [D]>, mut fill: impl FnMut(&S, &mut D)) {
    let total = u32::try_from(items.len()).unwrap_or(u32::MAX);
    counted(count, out, total, |out| {
        for (s, d) in items.iter().zip(out.iter_mut()) {
            fill(s, d);
        }
        u32::try_from(out.len()).unwrap_or(u32::MAX)
    });
}

/// The same protocol for `total` entries that `fill` writes as a prefix: it gets the
/// `min(*count, total, out.len())` slots to fill and returns how many it filled.
pub fn counted<D>(count: &mut u32, out: Option<&mut [D]>, total: u32, fill: impl FnOnce(&mut [D]) -> u32) {
    match out {
        Some(out) if *count != 0 => {
            let n = (*count).min(total) as usize;
            let n = n.min(out.len());
            *count = if n == 0 { 0 } else { fill(&mut out[..n]) };
        }
        _ => *count = total,
    }
}

/// Writes `s` into `dst` as a NUL-terminated C string: cut at a character boundary to
/// `dst.len() - 1` bytes and at any interior NUL; the rest of `dst` is zeroed.
pub fn write_c_str(dst: &mut [c_char], s: &str) {
    dst.fill(0);
    let Some(room) = dst.len().checked_sub(1) else {
        return;
    };
    let s = s.split('\0').next().unwrap_or("");
    let mut end = s.len().min(room);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    for (d, &b) in dst.iter_mut().zip(&s.as_bytes()[..end]) {
        *d = b as c_char;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn count_protocol() {
        let items = [1, 2, 3];
        let mut n = 0;
        fill_counted(&items, &mut n, None::<&mut [i32]>, |s, d| *d = *s);
        assert_eq!(n, 3);
        let mut out = [0; 2];
        let mut n = 5;
        fill_counted(&items, &mut n, Some(&mut out[..]), |s, d| *d = *s);
        assert_eq!((n, out), (2, [1, 2]));
        let mut n = 0;
        fill_counted(&items, &mut n, Some(&mut out[..]), |s, d| *d = *s);
        assert_eq!(n, 3);
    }

    #[test]
    fn c_strings() {
        let mut buf = [1 as c_char; 6];
        write_c_str(&mut buf, "héllo");
        assert_eq!(buf.map(|c| c as u8), [b'h', 0xc3, 0xa9, b'l', b'l', 0]);
        write_c_str(&mut buf, "a\0b");
        assert_eq!(buf.map(|c| c as u8), [b'a', 0, 0, 0, 0, 0]);
        write_c_str(&mut [], "x");
    }
}
