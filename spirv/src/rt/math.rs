//! The math functions generated code calls (a shim per OpenCL.std function and float width,
//! rounding to half precision), `memmove` for memory copies and the clock of `OpReadClockKHR`.

use crate::ir::MathFn;
use crate::spv::rounding;

/// Math functions called from kernels: for each [`MathFn`] a shim per float width, and its
/// table (`math_shim`).
macro_rules! shims {
    ($($f:ident: |$($a:ident),*| $e:expr;)*) => {
        mod shims32 {
            #[allow(dead_code)]
            type F = f32;
            $(#[allow(non_snake_case)]
            pub extern "C" fn $f($($a: f32),*) -> f32 { $e })*
        }
        mod shims64 {
            #[allow(dead_code)]
            type F = f64;
            $(#[allow(non_snake_case)]
            pub extern "C" fn $f($($a: f64),*) -> f64 { $e })*
        }
        /// Every shim: its symbol name, address, parameter count and float width.
        pub(crate) fn shim_table() -> Vec<(&'static str, usize, usize, bool)> {
            vec![$(
                (concat!("zekit_f32_", stringify!($f)), shims32::$f as *const () as usize, [$(stringify!($a)),*].len(), false),
                (concat!("zekit_f64_", stringify!($f)), shims64::$f as *const () as usize, [$(stringify!($a)),*].len(), true),
            )*]
        }
        pub(crate) fn math_shim(f: MathFn, double: bool) -> Option<usize> {
            match f {
                $(MathFn::$f => Some(if double {
                    shims64::$f as *const () as usize
                } else {
                    shims32::$f as *const () as usize
                }),)*
                _ => None,
            }
        }
    };
}

shims! {
    Exp: |x| x.exp();
    Log: |x| x.ln();
    Sin: |x| x.sin();
    Cos: |x| x.cos();
    Tan: |x| x.tan();
    Asin: |x| x.asin();
    Acos: |x| x.acos();
    Atan: |x| x.atan();
    Sinh: |x| x.sinh();
    Cosh: |x| x.cosh();
    Tanh: |x| x.tanh();
    Exp2: |x| x.exp2();
    Exp10: |x| (10.0 as F).powf(x);
    Expm1: |x| x.exp_m1();
    Log2: |x| x.log2();
    Log10: |x| x.log10();
    Log1p: |x| x.ln_1p();
    Cbrt: |x| x.cbrt();
    Floor: |x| x.floor();
    Ceil: |x| x.ceil();
    Trunc: |x| x.trunc();
    Round: |x| x.round();
    Rint: |x| x.round_ties_even();
    Fmin: |x, y| x.min(y);
    Fmax: |x, y| x.max(y);
    Pow: |x, y| x.powf(y);
    Fmod: |x, y| x % y;
    Atan2: |y, x| y.atan2(x);
    Hypot: |x, y| x.hypot(y);
    Copysign: |x, y| x.copysign(y);
    Fdim: |x, y| if x > y { x - y } else if x.is_nan() || y.is_nan() { x + y } else { 0.0 };
    Maxmag: |x, y| if x.abs() > y.abs() { x } else if y.abs() > x.abs() { y } else { x.max(y) };
    Minmag: |x, y| if x.abs() < y.abs() { x } else if y.abs() < x.abs() { y } else { x.min(y) };
    Fma: |x, y, z| x.mul_add(y, z);
    // Through `libm` in double precision, rounded once to the width (see `ext` below).
    Acosh: |x| super::ext(x, libm::acosh);
    Asinh: |x| super::ext(x, libm::asinh);
    Atanh: |x| super::ext(x, libm::atanh);
    Acospi: |x| super::ext(x, |x| libm::acos(x) / std::f64::consts::PI);
    Asinpi: |x| super::ext(x, |x| libm::asin(x) / std::f64::consts::PI);
    Atanpi: |x| super::ext(x, |x| libm::atan(x) / std::f64::consts::PI);
    Atan2pi: |y, x| super::ext2(y, x, |y, x| libm::atan2(y, x) / std::f64::consts::PI);
    Cospi: |x| super::ext(x, super::stdx::cospi);
    Sinpi: |x| super::ext(x, super::stdx::sinpi);
    Tanpi: |x| super::ext(x, super::stdx::tanpi);
    Erf: |x| super::ext(x, libm::erf);
    Erfc: |x| super::ext(x, libm::erfc);
    Tgamma: |x| super::ext(x, libm::tgamma);
    Lgamma: |x| super::ext(x, libm::lgamma);
    LgammaSign: |x| super::ext(x, |x| f64::from(libm::lgamma_r(x).1));
    Logb: |x| super::ext(x, super::stdx::logb);
    Ilogb: |x| super::ext(x, super::stdx::ilogb);
    Ldexp: |x, k| super::ext2(x, k, |x, k| libm::scalbn(x, k.clamp(-4000.0, 4000.0) as i32));
    Pown: |x, n| super::ext2(x, n, super::stdx::pown);
    Rootn: |x, n| super::ext2(x, n, super::stdx::rootn);
    Nextafter: |x, y| super::stdx::Next::next_after(x, y);
    Remainder: |x, y| super::stdx::Next::remainder(x, y);
    RemquoQ: |x, y| super::stdx::Next::remquo_q(x, y);
    FrexpMant: |x| super::stdx::Next::frexp(x).0;
    FrexpExp: |x| super::stdx::Next::frexp(x).1;
    Fract: |x| super::stdx::Next::fract(x);
    ModfFrac: |x| if x.is_infinite() { (0.0 as F).copysign(x) } else { x - x.trunc() };
}

/// A one-argument function of `f64` applied to a float of either width (for `f32` the result
/// is rounded once from the double result).
fn ext<F: stdx::Next>(x: F, f: impl Fn(f64) -> f64) -> F {
    F::from_f64(f(x.to_f64()))
}

/// [`ext`] for two arguments.
fn ext2<F: stdx::Next>(x: F, y: F, f: impl Fn(f64, f64) -> f64) -> F {
    F::from_f64(f(x.to_f64(), y.to_f64()))
}

/// Helpers of the OpenCL.std shims that `std` and `libm` do not have as such.
mod stdx {
    /// The width-specific functions.
    pub trait Next: Copy {
        fn to_f64(self) -> f64;
        fn from_f64(x: f64) -> Self;
        fn next_after(self, y: Self) -> Self;
        fn remainder(self, y: Self) -> Self;
        /// The low 7 bits of the quotient rounded to even, with its sign.
        fn remquo_q(self, y: Self) -> Self;
        fn frexp(self) -> (Self, Self);
        fn fract(self) -> Self;
    }
    macro_rules! next {
        ($t:ty, $nextafter:path, $remquo:path, $frexp:path, $below_one:expr) => {
            impl Next for $t {
                fn to_f64(self) -> f64 {
                    f64::from(self)
                }
                fn from_f64(x: f64) -> Self {
                    x as $t
                }
                fn next_after(self, y: Self) -> Self {
                    $nextafter(self, y)
                }
                fn remainder(self, y: Self) -> Self {
                    $remquo(self, y).0
                }
                fn remquo_q(self, y: Self) -> Self {
                    let q = $remquo(self, y).1;
                    // libm keeps at least 3 low bits with the sign; OpenCL asks for 7.
                    let m = (q.unsigned_abs() & 0x7f) as i32;
                    (if q < 0 { -m } else { m }) as $t
                }
                fn frexp(self) -> (Self, Self) {
                    let (m, e) = $frexp(self);
                    (m, e as $t)
                }
                fn fract(self) -> Self {
                    if self.is_nan() {
                        return self;
                    }
                    if self.is_infinite() {
                        return (0.0 as $t).copysign(self);
                    }
                    (self - self.floor()).min($below_one)
                }
            }
        };
    }
    next!(f32, libm::nextafterf, libm::remquof, libm::frexpf, 1.0 - f32::EPSILON / 2.0);
    next!(f64, libm::nextafter, libm::remquo, libm::frexp, 1.0 - f64::EPSILON / 2.0);

    /// `x - round(x)`-based reduction: `sin(pi x)` exact at integers and half-integers.
    pub fn sinpi(x: f64) -> f64 {
        if !x.is_finite() {
            return f64::NAN;
        }
        let r = x % 2.0; // exact, in (-2, 2) with x's sign
        let a = r.abs();
        let s = if a == 0.0 || a == 1.0 {
            0.0
        } else if a == 0.5 {
            1.0
        } else if a == 1.5 {
            -1.0
        } else {
            (std::f64::consts::PI * a).sin()
        };
        if r < 0.0 || (r == 0.0 && x.is_sign_negative()) {
            -s
        } else {
            s
        }
    }

    pub fn cospi(x: f64) -> f64 {
        if !x.is_finite() {
            return f64::NAN;
        }
        let a = (x % 2.0).abs();
        if a == 0.5 || a == 1.5 {
            0.0
        } else if a == 0.0 {
            1.0
        } else if a == 1.0 {
            -1.0
        } else {
            (std::f64::consts::PI * a).cos()
        }
    }

    pub fn tanpi(x: f64) -> f64 {
        let (s, c) = (sinpi(x), cospi(x));
        if c == 0.0 {
            // Odd multiples of 1/2: infinity with the sign OpenCL's C99 rules give.
            return f64::INFINITY.copysign(s);
        }
        s / c
    }

    /// `ilogb` as a float with OpenCL's FP_ILOGB0 (i32::MIN) and FP_ILOGBNAN (i32::MAX).
    pub fn ilogb(x: f64) -> f64 {
        if x.is_nan() {
            f64::from(i32::MAX)
        } else {
            f64::from(libm::ilogb(x))
        }
    }

    /// The exponent of `x` as a float: -infinity for 0, infinity for infinities.
    pub fn logb(x: f64) -> f64 {
        if x.is_nan() {
            x
        } else if x == 0.0 {
            f64::NEG_INFINITY
        } else if x.is_infinite() {
            f64::INFINITY
        } else {
            f64::from(libm::ilogb(x))
        }
    }

    /// `x^n` for an integer `n` (held in a float).
    pub fn pown(x: f64, n: f64) -> f64 {
        x.powf(n)
    }

    /// `x^(1/n)` for an integer `n`: NaN for n = 0 or an even root of a negative.
    pub fn rootn(x: f64, n: f64) -> f64 {
        if n == 0.0 {
            return f64::NAN;
        }
        let odd = n % 2.0 != 0.0;
        if x < 0.0 {
            if !odd {
                return f64::NAN;
            }
            return -(-x).powf(1.0 / n);
        }
        if x == 0.0 && n < 0.0 {
            // x = ±0: ±infinity for odd n, +infinity for even.
            return if odd { f64::INFINITY.copysign(x) } else { f64::INFINITY };
        }
        if x == 0.0 && odd {
            return x;
        }
        x.powf(1.0 / n)
    }
}

/// Rounds a double to the nearest IEEE half in `mode` (0 to nearest even, 1 toward zero, 2
/// toward +infinity, 3 toward -infinity) and returns the half's bits: one rounding, so exact
/// for `f32` inputs too (promoted first, exactly).
pub(crate) extern "C" fn f64_to_f16(x: f64, mode: u32) -> u32 {
    let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
    if x.is_nan() {
        return sign | 0x7e00;
    }
    let a = x.abs();
    // Rounding away from zero in magnitude: toward +inf for positives, -inf for negatives.
    let away = match mode {
        rounding::RTP => sign == 0,
        rounding::RTN => sign != 0,
        _ => false,
    };
    let overflow = |to_inf: bool| if to_inf { sign | 0x7c00 } else { sign | 0x7bff };
    if a.is_infinite() {
        return sign | 0x7c00;
    }
    // The quantum at a's binade: 2^-24 below 2^-14 (subnormals), else 2^(e - 10).
    let e = ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    let quantum_exp = e.max(-14) - 10;
    let q = a * 2f64.powi(-quantum_exp); // exact: a power-of-two scaling within range
    let r = match mode {
        rounding::RTZ => q.trunc(),
        rounding::RTP | rounding::RTN => {
            if away {
                q.ceil()
            } else {
                q.trunc()
            }
        }
        _ => q.round_ties_even(),
    };
    let v = r * 2f64.powi(quantum_exp);
    if v > 65504.0 {
        return overflow(mode == 0 || away);
    }
    // v is a half value: encode it.
    if v < 2f64.powi(-14) {
        return sign | (v * 2f64.powi(24)) as u32;
    }
    let ve = ((v.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    let mant = ((v.to_bits() >> 42) & 0x3ff) as u32;
    sign | (((ve + 15) as u32) << 10) | mant
}

/// `memmove` for `Op::Copy`.
pub(crate) extern "C" fn copy_bytes(dst: *mut u8, src: *const u8, n: u64) {
    // SAFETY: the kernel asked for this copy between its own pointers (OpCopyMemorySized);
    // like any kernel access, their validity is the application's promise.
    unsafe { std::ptr::copy(src, dst, n as usize) }
}

/// `OpReadClockKHR`: nanoseconds since the first call in this process (monotonic).
pub(crate) extern "C" fn read_clock() -> u64 {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    START.get_or_init(std::time::Instant::now).elapsed().as_nanos() as u64
}
