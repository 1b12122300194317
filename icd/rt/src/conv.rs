//! Level Zero conventions every driver follows, in one place.

use std::ffi::{c_char, CStr};

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

/// The size-query protocol of string outputs (`size_t* pSize` + `char* p`): with a null `out`
/// or `*p_size == 0`, sets `*p_size` to the length of `text` with its NUL; otherwise copies at
/// most `*p_size` bytes of it, always ending in a NUL, and sets `*p_size` to the bytes written.
///
/// # Safety
/// A non-null `out` points to `*p_size` writable bytes.
pub unsafe fn copy_c_string(text: &CStr, p_size: &mut usize, out: *mut c_char) {
    let bytes = text.to_bytes_with_nul();
    if out.is_null() || *p_size == 0 {
        *p_size = bytes.len();
        return;
    }
    let n = (*p_size).min(bytes.len());
    // SAFETY: the caller provides `*p_size` writable bytes at `out`, and `n <= *p_size`.
    let dst = unsafe { std::slice::from_raw_parts_mut(out.cast::<u8>(), n) };
    dst.copy_from_slice(&bytes[..n]);
    dst[n - 1] = 0;
    *p_size = n;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_query_of_strings() {
        let text = c"kernel";
        let mut size = 0;
        // SAFETY: a null buffer only asks the size.
        unsafe { copy_c_string(text, &mut size, std::ptr::null_mut()) };
        assert_eq!(size, 7);
        let mut buf = [b'x' as c_char; 8];
        let mut size = 8;
        // SAFETY: `buf` has `size` writable bytes.
        unsafe { copy_c_string(text, &mut size, buf.as_mut_ptr()) };
        assert_eq!(size, 7);
        assert_eq!(&buf[..7], c"kernel".to_bytes_with_nul().iter().map(|&b| b as c_char).collect::<Vec<_>>());
        let mut size = 4;
        // SAFETY: `buf` has at least `size` writable bytes.
        unsafe { copy_c_string(text, &mut size, buf.as_mut_ptr()) };
        assert_eq!((size, buf[3]), (4, 0), "cut to the room, still NUL-terminated");
        assert_eq!(&buf[..3], [b'k' as c_char, b'e' as c_char, b'r' as c_char]);
    }

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
