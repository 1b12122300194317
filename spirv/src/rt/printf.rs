//! OpenCL `printf` for kernels: the generated code stores the arguments of a call in its
//! private memory (8-byte slots, then a one-byte type code per slot) and calls
//! [`zekit_printf`], which formats into a buffer of the calling thread; [`crate::Kernel::run_group`]
//! writes that buffer out (to stdout, or to the sink of [`set_sink`]) when the group is done,
//! so each work-item's lines come out whole and in order.
//!
//! Formats: `%d %i %o %u %x %X %c %s %p %f %F %e %E %g %G %%` with the flags `- + space # 0`,
//! a width, a precision, the lengths `hh h l` and OpenCL's vector specifier `vN` (with `hh h hl
//! l`): elements separated by commas. `%a`/`%A` and a `*` width or precision are not done:
//! the call returns -1 and prints the rest of the format as it is.

use std::cell::RefCell;
use std::io::Write;
use std::sync::Mutex;

/// Type codes of the argument slots.
pub const I8: u8 = 1;
/// 16-bit integer.
pub const I16: u8 = 2;
/// 32-bit integer.
pub const I32: u8 = 3;
/// 64-bit integer or pointer.
pub const I64: u8 = 4;
/// `float` (and `half`, carried as float).
pub const F32: u8 = 5;
/// `double`.
pub const F64: u8 = 6;

thread_local! {
    static OUT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

type Sink = fn(&[u8]);
static SINK: Mutex<Option<Sink>> = Mutex::new(None);

/// Sends `printf` output to `sink` instead of stdout (`None`: stdout again).
pub fn set_sink(sink: Option<Sink>) {
    *SINK.lock().unwrap_or_else(|e| e.into_inner()) = sink;
}

/// Writes out what this thread's kernels printed.
pub fn flush() {
    OUT.with(|o| {
        let mut o = o.borrow_mut();
        if o.is_empty() {
            return;
        }
        let sink = *SINK.lock().unwrap_or_else(|e| e.into_inner());
        match sink {
            Some(f) => f(&o),
            None => {
                let mut s = std::io::stdout().lock();
                let _ = s.write_all(&o);
                let _ = s.flush();
            }
        }
        o.clear();
    });
}

/// One argument slot: its code and raw bits.
#[derive(Clone, Copy)]
struct Arg {
    code: u8,
    bits: u64,
}

impl Arg {
    fn signed(self) -> i64 {
        match self.code {
            I8 => i64::from(self.bits as u8 as i8),
            I16 => i64::from(self.bits as u16 as i16),
            I32 => i64::from(self.bits as u32 as i32),
            F32 => f64::from(f32::from_bits(self.bits as u32)) as i64,
            F64 => f64::from_bits(self.bits) as i64,
            _ => self.bits as i64,
        }
    }
    fn float(self) -> f64 {
        match self.code {
            F32 => f64::from(f32::from_bits(self.bits as u32)),
            F64 => f64::from_bits(self.bits),
            _ => self.signed() as f64,
        }
    }
}

/// Called by kernels: formats `fmt` with the `count` argument slots at `args`.
///
/// # Safety
/// `fmt` is a NUL-terminated string and `args` holds `count` slots and codes, as the
/// generated code lays them out; `%s` arguments point to NUL-terminated strings.
pub unsafe extern "C" fn zekit_printf(fmt: *const u8, args: *const u8, count: u32) -> i32 {
    if fmt.is_null() || args.is_null() {
        return -1;
    }
    // SAFETY: the kernel passes its format string (module constant data, NUL-terminated).
    let fmt = unsafe { std::ffi::CStr::from_ptr(fmt.cast()) }.to_bytes();
    let n = count as usize;
    let list: Vec<Arg> = (0..n)
        .map(|k| {
            // SAFETY: the generated code stored `count` 8-byte slots, then `count` codes.
            let (bits, code) = unsafe {
                (
                    std::ptr::read_unaligned(args.add(8 * k).cast::<u64>()),
                    *args.add(8 * n + k),
                )
            };
            Arg { code, bits }
        })
        .collect();
    let mut out = Vec::new();
    let r = format(fmt, &list, &mut out);
    OUT.with(|o| o.borrow_mut().extend_from_slice(&out));
    r
}

/// A conversion specification.
#[derive(Default, Clone, Copy)]
struct Spec {
    minus: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
    /// Bytes of the length modifier (1 hh, 2 h, 4 hl / none, 8 l); 0: none.
    len: u8,
}

/// Formats `fmt` with `args` into `out`: 0, or -1 for a conversion it cannot do or too few
/// arguments (the rest of the format then goes out as it is).
fn format(fmt: &[u8], args: &[Arg], out: &mut Vec<u8>) -> i32 {
    let mut next = args.iter().copied();
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        if c != b'%' {
            out.push(c);
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        if fmt.get(i) == Some(&b'%') {
            out.push(b'%');
            i += 1;
            continue;
        }
        let mut s = Spec::default();
        while let Some(&f) = fmt.get(i) {
            match f {
                b'-' => s.minus = true,
                b'+' => s.plus = true,
                b' ' => s.space = true,
                b'#' => s.alt = true,
                b'0' => s.zero = true,
                _ => break,
            }
            i += 1;
        }
        let num = |i: &mut usize| {
            let mut v = 0usize;
            while let Some(d) = fmt.get(*i).filter(|d| d.is_ascii_digit()) {
                v = v
                    .saturating_mul(10)
                    .saturating_add(usize::from(d - b'0'))
                    .min(4096);
                *i += 1;
            }
            v
        };
        s.width = num(&mut i);
        if fmt.get(i) == Some(&b'.') {
            i += 1;
            s.precision = Some(num(&mut i));
        }
        let mut vector = 1;
        if fmt.get(i) == Some(&b'v') {
            i += 1;
            vector = num(&mut i);
        }
        let rest = &fmt[i.min(fmt.len())..];
        let (len, skip) = if rest.starts_with(b"hh") {
            (1, 2)
        } else if rest.starts_with(b"hl") {
            (4, 2)
        } else if rest.starts_with(b"h") {
            (2, 1)
        } else if rest.starts_with(b"l") {
            (8, 1)
        } else {
            (0, 0)
        };
        s.len = len;
        i += skip;
        let conv = fmt.get(i).copied().unwrap_or(0);
        i += 1;
        if !b"diouxXcspfFeEgG".contains(&conv) || ![1, 2, 3, 4, 8, 16].contains(&vector) {
            out.extend_from_slice(&fmt[start..]);
            return -1;
        }
        for k in 0..vector {
            let Some(a) = next.next() else {
                out.extend_from_slice(&fmt[start..]);
                return -1;
            };
            if k > 0 {
                out.push(b',');
            }
            one(&s, conv, a, out);
        }
    }
    0
}

/// Pads `body` (after a sign/prefix `head`) to the width.
fn pad(s: &Spec, head: &str, body: &str, zero_ok: bool, out: &mut Vec<u8>) {
    let n = head.len() + body.len();
    let fill = s.width.saturating_sub(n);
    if s.minus {
        out.extend_from_slice(head.as_bytes());
        out.extend_from_slice(body.as_bytes());
        out.extend(std::iter::repeat_n(b' ', fill));
    } else if s.zero && zero_ok {
        out.extend_from_slice(head.as_bytes());
        out.extend(std::iter::repeat_n(b'0', fill));
        out.extend_from_slice(body.as_bytes());
    } else {
        out.extend(std::iter::repeat_n(b' ', fill));
        out.extend_from_slice(head.as_bytes());
        out.extend_from_slice(body.as_bytes());
    }
}

fn sign(s: &Spec, negative: bool) -> &'static str {
    if negative {
        "-"
    } else if s.plus {
        "+"
    } else if s.space {
        " "
    } else {
        ""
    }
}

/// One conversion of one argument.
fn one(s: &Spec, conv: u8, a: Arg, out: &mut Vec<u8>) {
    match conv {
        b'd' | b'i' => {
            let v = match s.len {
                1 => i64::from(a.signed() as i8),
                2 => i64::from(a.signed() as i16),
                8 => a.signed(),
                _ => i64::from(a.signed() as i32),
            };
            let digits = int_digits(v.unsigned_abs(), 10, false, s.precision);
            pad(s, sign(s, v < 0), &digits, s.precision.is_none(), out);
        }
        b'o' | b'u' | b'x' | b'X' => {
            let raw = a.signed() as u64;
            let v = match s.len {
                1 => raw & 0xff,
                2 => raw & 0xffff,
                8 => raw,
                _ => raw & 0xffff_ffff,
            };
            let (base, upper) = match conv {
                b'o' => (8, false),
                b'u' => (10, false),
                b'x' => (16, false),
                _ => (16, true),
            };
            let mut digits = int_digits(v, base, upper, s.precision);
            let mut head = "";
            if s.alt && conv == b'o' && !digits.starts_with('0') {
                digits.insert(0, '0');
            }
            if s.alt && base == 16 && v != 0 {
                head = if upper { "0X" } else { "0x" };
            }
            pad(s, head, &digits, s.precision.is_none(), out);
        }
        b'c' => pad(s, "", &char::from(a.bits as u8).to_string(), false, out),
        b's' => {
            let p = a.bits as usize as *const std::ffi::c_char;
            let text = if p.is_null() {
                "(null)".to_string()
            } else {
                // SAFETY: a `%s` argument is a NUL-terminated string of the kernel's (the
                // caller's promise, as for every pointer a kernel dereferences).
                let b = unsafe { std::ffi::CStr::from_ptr(p) }.to_bytes();
                let b = &b[..s.precision.map_or(b.len(), |p| p.min(b.len()))];
                String::from_utf8_lossy(b).into_owned()
            };
            pad(s, "", &text, false, out);
        }
        b'p' => pad(s, "", &format!("{:#x}", a.bits), false, out),
        _ => float(s, conv, a.float(), out),
    }
}

fn int_digits(v: u64, base: u32, upper: bool, precision: Option<usize>) -> String {
    let mut d = match base {
        8 => format!("{v:o}"),
        16 if upper => format!("{v:X}"),
        16 => format!("{v:x}"),
        _ => v.to_string(),
    };
    match precision {
        Some(0) if v == 0 => d.clear(),
        Some(p) if p > d.len() => d.insert_str(0, &"0".repeat(p - d.len())),
        _ => {}
    }
    d
}

/// `%e` of a non-negative finite value: mantissa, `e`, sign, at least two exponent digits.
fn exp_form(x: f64, p: usize, alt: bool) -> (String, i32) {
    let t = format!("{x:.p$e}");
    let (m, e) = t.split_once('e').unwrap_or((&t, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    let mut m = m.to_string();
    if alt && p == 0 {
        m.push('.');
    }
    let sign = if e < 0 { '-' } else { '+' };
    (format!("{m}e{sign}{:02}", e.unsigned_abs()), e)
}

fn float(s: &Spec, conv: u8, x: f64, out: &mut Vec<u8>) {
    let upper = conv.is_ascii_uppercase();
    let head = sign(s, x.is_sign_negative() && !x.is_nan());
    if !x.is_finite() {
        let t = if x.is_nan() { "nan" } else { "inf" };
        let t = if upper {
            t.to_uppercase()
        } else {
            t.to_string()
        };
        pad(s, head, &t, false, out);
        return;
    }
    let a = x.abs();
    let p = s.precision.unwrap_or(6);
    let mut body = match conv.to_ascii_lowercase() {
        b'f' => {
            let mut t = format!("{a:.p$}");
            if s.alt && p == 0 {
                t.push('.');
            }
            t
        }
        b'e' => exp_form(a, p, s.alt).0,
        _ => {
            // %g: %e's exponent after rounding to P significant digits picks the form.
            let pp = if p == 0 { 1 } else { p };
            let (e_text, e) = exp_form(a, pp - 1, s.alt);
            let mut t = if (e as i64) < pp as i64 && e >= -4 {
                let q = (pp as i64 - 1 - e as i64) as usize;
                format!("{a:.q$}")
            } else {
                e_text
            };
            if !s.alt {
                let (m, tail) = match t.find('e') {
                    Some(k) => (t[..k].to_string(), t[k..].to_string()),
                    None => (t.clone(), String::new()),
                };
                let m = if m.contains('.') {
                    m.trim_end_matches('0').trim_end_matches('.').to_string()
                } else {
                    m
                };
                t = m + &tail;
            }
            t
        }
    };
    if upper {
        body = body.to_uppercase();
    }
    pad(s, head, &body, true, out);
}
