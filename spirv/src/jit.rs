//! The Cranelift backend: each [`ir::Kernel`] becomes one native function
//! `extern "C" fn(*mut GroupCtx)` that runs a whole work-group: rounds of a loop over the
//! group's work-items (x fastest), each work-item running its segment (see [`crate::regions`])
//! up to its next barrier or its end; another round while any work-item stopped at a barrier.
//! In a round after one where some work-item stopped at a sub-group barrier, the work-items
//! stopped at work-group barriers wait (see [`ir::Op::SubgroupBarrier`]).
//!
//! The code names what it calls (math shims, `memmove`) and the program's data by symbol
//! (`symbols`), through relocations, so each kernel's bytes and relocations
//! ([`FuncImage`]) can be saved and loaded into another process ([`load`]).

use std::collections::HashMap;

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::immediates::{Ieee32, Ieee64};
use cranelift_codegen::ir::{
    types, AbiParam, AtomicRmwOp, BlockArg, InstBuilder, MemFlagsData, Signature, Type,
};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Switch, Variable};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_codegen::binemit::Reloc;
use cranelift_module::{
    DataId, FuncId, FuncOrDataId, Linkage, Module, ModuleReloc, ModuleRelocTarget,
};

use crate::ir::{self, AtomicOp, BinOp, Builtin, CmpOp, ConvOp, MathFn, Op, Round, Term, Ty, UnOp};
use crate::analysis::regions::Regions;
use crate::{Error, GroupCtx};

#[path = "jit_vec.rs"]
mod lockstep;
#[path = "jit_hoist.rs"]
mod hoist;

/// Compiled code; freed when dropped.
pub struct Code {
    /// The JIT modules holding the code (one per piece [`Code::join`] joined).
    modules: Vec<JITModule>,
    /// Entry of each kernel, in order.
    pub entries: Vec<usize>,
    /// The relocatable machine code of each kernel (what a native binary saves); `None` when
    /// some code refers to what an image cannot name.
    pub images: Option<Vec<FuncImage>>,
    /// The target triple and the CPU features the code was generated for.
    pub features: (String, Vec<String>),
}

impl std::fmt::Debug for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Code({} kernels)", self.entries.len())
    }
}

// SAFETY: the module is only touched again by `drop` (freeing the code); the entries are
// addresses of immutable, finalized code that any thread may call.
unsafe impl Send for Code {}
// SAFETY: as above; `&Code` gives access to nothing but the entry addresses.
unsafe impl Sync for Code {}

impl Drop for Code {
    fn drop(&mut self) {
        for m in self.modules.drain(..) {
            // SAFETY: the owner of `Code` (the program) is being dropped, so no kernel of it
            // runs any more (launches hold the program alive).
            unsafe { m.free_memory() };
        }
    }
}

impl Code {
    /// The code of several pieces (kernels compiled apart), their kernels in order. Images are
    /// kept when every piece has them; the features are the first piece's (all pieces are
    /// generated for the host).
    pub fn join(pieces: Vec<Code>) -> Code {
        let mut out = Code {
            modules: Vec::new(),
            entries: Vec::new(),
            images: Some(Vec::new()),
            features: (String::new(), Vec::new()),
        };
        for (n, mut p) in pieces.into_iter().enumerate() {
            out.modules.append(&mut p.modules);
            out.entries.append(&mut p.entries);
            out.images = match (out.images.take(), p.images.take()) {
                (Some(mut a), Some(mut b)) => {
                    a.append(&mut b);
                    Some(a)
                }
                _ => None,
            };
            if n == 0 {
                out.features = std::mem::take(&mut p.features);
            }
        }
        out
    }
}

fn ty(t: Ty) -> Type {
    match t {
        Ty::Bool | Ty::I8 => types::I8,
        Ty::I16 => types::I16,
        Ty::I32 => types::I32,
        Ty::I64 => types::I64,
        Ty::F32 => types::F32,
        Ty::F64 => types::F64,
    }
}

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
        fn shim_table() -> Vec<(&'static str, usize, usize, bool)> {
            vec![$(
                (concat!("zekit_f32_", stringify!($f)), shims32::$f as *const () as usize, [$(stringify!($a)),*].len(), false),
                (concat!("zekit_f64_", stringify!($f)), shims64::$f as *const () as usize, [$(stringify!($a)),*].len(), true),
            )*]
        }
        fn math_shim(f: MathFn, double: bool) -> Option<usize> {
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
extern "C" fn f64_to_f16(x: f64, mode: u32) -> u32 {
    let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
    if x.is_nan() {
        return sign | 0x7e00;
    }
    let a = x.abs();
    // Rounding away from zero in magnitude: toward +inf for positives, -inf for negatives.
    let away = match mode {
        2 => sign == 0,
        3 => sign != 0,
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
        1 => q.trunc(),
        2 | 3 => {
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
extern "C" fn copy_bytes(dst: *mut u8, src: *const u8, n: u64) {
    // SAFETY: the kernel asked for this copy between its own pointers (OpCopyMemorySized);
    // like any kernel access, their validity is the application's promise.
    unsafe { std::ptr::copy(src, dst, n as usize) }
}

/// `OpReadClockKHR`: nanoseconds since the first call in this process (monotonic).
extern "C" fn read_clock() -> u64 {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    START.get_or_init(std::time::Instant::now).elapsed().as_nanos() as u64
}

/// The symbols generated code refers to (through relocations, so that the code can be saved
/// and loaded again, see [`load`]): the math shims, `memmove`, and the program's data.
fn symbols(data: usize) -> Vec<(&'static str, usize)> {
    let mut v: Vec<(&'static str, usize)> =
        shim_table().into_iter().map(|(n, a, _, _)| (n, a)).collect();
    v.push(("zekit_copy_bytes", copy_bytes as *const () as usize));
    v.push(("zekit_read_clock", read_clock as *const () as usize));
    v.push(("zekit_f64_to_f16", f64_to_f16 as *const () as usize));
    v.push(("zekit_printf", crate::printf::zekit_printf as *const () as usize));
    v.push(("zekit_lanes_gather", lockstep::lanes_gather as *const () as usize));
    v.push(("zekit_lanes_scatter", lockstep::lanes_scatter as *const () as usize));
    #[cfg(target_arch = "x86_64")]
    v.extend(lockstep::stream_shims().map(|(n, a, _)| (n, a)));
    v.push(("zekit_image", crate::image::zekit_image as *const () as usize));
    v.push(("zekit_data", data));
    v
}

/// A JIT module with every symbol of `symbols` declared; returns it, the function ids by
/// address, and the data id.
#[allow(clippy::type_complexity)]
fn new_module(
    isa: cranelift_codegen::isa::OwnedTargetIsa,
    data: usize,
) -> Result<(JITModule, HashMap<usize, FuncId>, DataId), Error> {
    let cl = |e: cranelift_module::ModuleError| Error::internal(format!("cranelift: {e}"));
    let mut builder = JITBuilder::with_isa(isa, cranelift_module::default_libcall_names());
    for (name, addr) in symbols(data) {
        builder.symbol(name, addr as *const u8);
    }
    let mut module = JITModule::new(builder);
    let mut funcs = HashMap::new();
    let call_conv = module.isa().default_call_conv();
    // Each function the code calls, declared as an import by name (saved code names it in
    // relocations, not by this process's address).
    let mut import = |name: &str, addr: usize, params: &[Type], ret: Option<Type>| {
        let mut sig = Signature::new(call_conv);
        sig.params.extend(params.iter().map(|t| AbiParam::new(*t)));
        sig.returns.extend(ret.map(AbiParam::new));
        let id = module.declare_function(name, Linkage::Import, &sig).map_err(cl)?;
        funcs.insert(addr, id);
        Ok::<(), Error>(())
    };
    for (name, addr, arity, double) in shim_table() {
        let t = if double { types::F64 } else { types::F32 };
        import(name, addr, &vec![t; arity], Some(t))?;
    }
    let (i32_, i64_) = (types::I32, types::I64);
    import("zekit_copy_bytes", copy_bytes as *const () as usize, &[i64_; 3], None)?;
    import("zekit_read_clock", read_clock as *const () as usize, &[], Some(i64_))?;
    let to_half = f64_to_f16 as *const () as usize;
    import("zekit_f64_to_f16", to_half, &[types::F64, i32_], Some(i32_))?;
    let printf = crate::printf::zekit_printf as *const () as usize;
    import("zekit_printf", printf, &[i64_, i64_, i32_], Some(i32_))?;
    let image = crate::image::zekit_image as *const () as usize;
    import("zekit_image", image, &[i32_, i64_, i64_, i64_, i64_], None)?;
    // The lockstep shims (`jit_vec.rs`).
    let gather = lockstep::lanes_gather as *const () as usize;
    import("zekit_lanes_gather", gather, &[i64_, i64_, i32_], None)?;
    let scatter = lockstep::lanes_scatter as *const () as usize;
    import("zekit_lanes_scatter", scatter, &[i64_, i32_, i64_], None)?;
    #[cfg(target_arch = "x86_64")]
    for (name, addr, t) in lockstep::stream_shims() {
        import(name, addr, &[i64_, t, t, t, t], None)?;
    }
    let data = module
        .declare_data("zekit_data", Linkage::Import, true, false)
        .map_err(cl)?;
    Ok((module, funcs, data))
}

fn host_isa() -> Result<cranelift_codegen::isa::OwnedTargetIsa, Error> {
    let mut flags = settings::builder();
    let set = |f: &mut settings::Builder, k: &str, v: &str| {
        f.set(k, v)
            .map_err(|e| Error::internal(format!("cranelift flag {k}: {e}")))
    };
    set(&mut flags, "opt_level", "speed")?;
    // Cranelift's own IR verifier runs in debug builds (the tests and the fuzzer), not in
    // release ones, where it was a large share of each module's build (`verify.rs` still checks
    // our IR before code generation).
    set(&mut flags, "enable_verifier", if cfg!(debug_assertions) { "true" } else { "false" })?;
    set(&mut flags, "use_colocated_libcalls", "false")?;
    set(&mut flags, "is_pic", "false")?;
    cranelift_native::builder()
        .map_err(|e| Error::internal(format!("this host is not supported by Cranelift: {e}")))?
        .finish(settings::Flags::new(flags))
        .map_err(|e| Error::internal(format!("cranelift: {e}")))
}

/// The target and the CPU features code is generated for: the triple, then the enabled
/// boolean ISA flags, sorted.
fn features_of(isa: &dyn cranelift_codegen::isa::TargetIsa) -> (String, Vec<String>) {
    let mut f: Vec<String> = isa
        .isa_flags()
        .iter()
        .filter(|f| f.as_bool() == Some(true))
        .map(|f| f.name.to_string())
        .collect();
    f.sort();
    (isa.triple().to_string(), f)
}

/// The host's target and CPU features, as [`Code::features`] records them.
pub fn host_features() -> Result<(String, Vec<String>), Error> {
    Ok(features_of(&*host_isa()?))
}

thread_local! {
    static COMPILED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    static LOCKSTEP: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    static POLICY: std::cell::Cell<Option<Lockstep>> = const { std::cell::Cell::new(None) };
}

/// When kernels run several work-items in lockstep (see `jit_vec.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lockstep {
    /// When the kernel allows it and the estimated code stays small (the default).
    Auto,
    /// Whenever the kernel allows it.
    Always,
    /// Never: one work-item after the other.
    Never,
}

/// Sets when the kernels compiled on this thread run in lockstep; the default comes from the
/// environment variable `ZEKIT_LOCKSTEP` (`0`: never, `1`: always, else auto).
pub fn set_lockstep(policy: Lockstep) {
    POLICY.with(|p| p.set(Some(policy)));
}

fn lockstep_policy() -> Lockstep {
    POLICY.with(|p| p.get()).unwrap_or_else(|| match std::env::var("ZEKIT_LOCKSTEP").as_deref() {
        Ok("0") => Lockstep::Never,
        Ok("1") => Lockstep::Always,
        _ => Lockstep::Auto,
    })
}

/// How many kernels [`compile`] made run work-items in lockstep (see `jit_vec.rs`) on this
/// thread.
pub fn lockstep_kernels_on_this_thread() -> u64 {
    LOCKSTEP.with(|c| c.get())
}

/// How many modules this thread compiled or started compiling ([`crate::prepare_linked`],
/// whose code may then be generated on other threads): a test can show that loading a native
/// binary compiles nothing.
pub fn compilations_on_this_thread() -> u64 {
    COMPILED.with(|c| c.get())
}

pub(crate) fn count_compilation() {
    COMPILED.with(|c| c.set(c.get() + 1));
}

/// What a relocation of saved code refers to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A symbol of `symbols`, by name.
    Symbol(String),
    /// A Cranelift library call, by name.
    LibCall(String),
}

/// A relocation of saved code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RelocImage {
    /// Offset in the function's bytes.
    pub offset: u32,
    /// Its kind ([`reloc_code`]).
    pub kind: u8,
    /// What it refers to.
    pub target: Target,
    /// The addend.
    pub addend: i64,
}

/// The machine code of one kernel, relocatable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FuncImage {
    /// Code alignment.
    pub align: u64,
    /// The bytes.
    pub bytes: Vec<u8>,
    /// Where addresses go.
    pub relocs: Vec<RelocImage>,
}

/// The relocation kinds a saved image may hold: absolute 64-bit addresses, what non-PIC code
/// uses for the symbols it names (a PC-relative one could overflow when the loader places the
/// code; code with any other kind is not saved).
const RELOCS: &[Reloc] = &[Reloc::Abs8];

/// The code of a relocation kind in a saved image (`None`: such code cannot be saved).
pub fn reloc_code(r: Reloc) -> Option<u8> {
    RELOCS.iter().position(|x| *x == r).map(|i| i as u8)
}

fn image_of(module: &JITModule, ctx: &cranelift_codegen::Context, id: FuncId) -> Option<FuncImage> {
    let cc = ctx.compiled_code()?;
    let mut relocs = Vec::new();
    for r in cc.buffer.relocs() {
        let m = ModuleReloc::from_mach_reloc(r, &ctx.func, id);
        let target = match m.name {
            ModuleRelocTarget::User { namespace: 0, index } => Target::Symbol(
                module
                    .declarations()
                    .get_function_decl(FuncId::from_u32(index))
                    .name
                    .clone()?,
            ),
            ModuleRelocTarget::User { namespace: 1, index } => Target::Symbol(
                module
                    .declarations()
                    .get_data_decl(DataId::from_u32(index))
                    .name
                    .clone()?,
            ),
            // Library calls (Cranelift's fallbacks for instructions the CPU lacks) are resolved
            // by the system's dynamic linker; such code is not saved.
            _ => return None,
        };
        relocs.push(RelocImage {
            offset: m.offset,
            kind: reloc_code(m.kind)?,
            target,
            addend: m.addend,
        });
    }
    Some(FuncImage {
        align: u64::from(cc.buffer.alignment),
        bytes: cc.code_buffer().to_vec(),
        relocs,
    })
}

/// Compiles kernels; `data` is the address of the module's program-scope variables.
pub fn compile(kernels: &[(ir::Kernel, Regions, u32)], data: usize) -> Result<Code, Error> {
    let isa = host_isa()?;
    let features = features_of(&*isa);
    let fc = isa.frontend_config();
    // A fused multiply-add instruction: `fma` becomes one instruction instead of a call.
    let fma = isa.name() == "aarch64"
        || isa
            .isa_flags()
            .iter()
            .any(|f| f.name == "has_fma" && f.as_bool() == Some(true));
    let (mut module, funcs, data_id) = new_module(isa, data)?;
    let mut ids = Vec::new();
    let mut images = Some(Vec::new());
    let mut fctx = FunctionBuilderContext::new();
    let mut ctx = module.make_context();
    for (n, (k, regions, stride)) in kernels.iter().enumerate() {
        let mut sig = module.make_signature();
        sig.params.push(AbiParam::new(types::I64));
        let id = module
            .declare_function(&format!("zekit_kernel_{n}"), Linkage::Local, &sig)
            .map_err(|e| Error::internal(format!("cranelift: {e}")))?;
        ctx.func.signature = sig;
        {
            let b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
            let syms = Syms {
                module: &mut module,
                funcs: &funcs,
                data: data_id,
                data_gv: None,
            };
            let l = Lower::new(b, k, regions, *stride, syms, fc, fma);
            if l.lockstep() {
                LOCKSTEP.with(|c| c.set(c.get() + 1));
            }
            l.run()?;
        }
        let dump = std::env::var("ZEKIT_SPIRV_DUMP").ok();
        if dump.is_some() {
            eprintln!("{}", ctx.func.display());
        }
        ctx.set_disasm(dump.as_deref() == Some("asm"));
        module.define_function(id, &mut ctx).map_err(|e| {
            Error::internal(format!("cranelift rejected kernel `{}`: {e:?}", k.name))
        })?;
        if let Some(asm) = ctx.compiled_code().and_then(|c| c.vcode.as_ref()) {
            eprintln!("{asm}");
        }
        // Code that refers to something a saved image cannot name is not saved.
        images = images.and_then(|mut v: Vec<FuncImage>| {
            v.push(image_of(&module, &ctx, id)?);
            Some(v)
        });
        module.clear_context(&mut ctx);
        ids.push(id);
    }
    module
        .finalize_definitions()
        .map_err(|e| Error::internal(format!("cranelift: {e}")))?;
    let entries = ids
        .iter()
        .map(|id| module.get_finalized_function(*id) as usize)
        .collect();
    Ok(Code {
        modules: vec![module],
        entries,
        images,
        features,
    })
}

/// Loads saved code ([`Code::images`]) without compiling: the images are copied into
/// executable memory and relocated for this process, `data` being the program's data.
/// `features`: what the code was generated for; a target other than the host's, or a CPU
/// feature the host lacks, is refused.
pub fn load(
    images: &[FuncImage],
    features: &(String, Vec<String>),
    data: usize,
) -> Result<Code, Error> {
    let isa = host_isa()?;
    let host = features_of(&*isa);
    if host.0 != features.0 {
        return Err(Error::unsupported(format!(
            "code for {}, this host is {}",
            features.0, host.0
        )));
    }
    let missing: Vec<&str> = features
        .1
        .iter()
        .filter(|f| !host.1.contains(f))
        .map(|s| s.as_str())
        .collect();
    if !missing.is_empty() {
        return Err(Error::unsupported(format!(
            "code for CPU features this host lacks: {}",
            missing.join(", ")
        )));
    }
    let cl = |e: cranelift_module::ModuleError| Error::internal(format!("cranelift: {e}"));
    let (mut module, _, _) = new_module(isa, data)?;
    let mut ids = Vec::new();
    for (n, img) in images.iter().enumerate() {
        let mut sig = module.make_signature();
        sig.params.push(AbiParam::new(types::I64));
        let id = module
            .declare_function(&format!("zekit_kernel_{n}"), Linkage::Local, &sig)
            .map_err(cl)?;
        let mut relocs = Vec::new();
        for r in &img.relocs {
            let kind = *RELOCS
                .get(usize::from(r.kind))
                .ok_or_else(|| Error::invalid(format!("relocation kind {}", r.kind)))?;
            if u64::from(r.offset) + 8 > img.bytes.len() as u64 {
                return Err(Error::invalid("a relocation outside its code"));
            }
            let name = match &r.target {
                Target::Symbol(s) => match module.get_name(s) {
                    Some(FuncOrDataId::Func(f)) => ModuleRelocTarget::user(0, f.as_u32()),
                    Some(FuncOrDataId::Data(d)) => ModuleRelocTarget::user(1, d.as_u32()),
                    None => return Err(Error::invalid(format!("unknown symbol `{s}`"))),
                },
                Target::LibCall(l) => {
                    return Err(Error::invalid(format!(
                        "a library call (`{l}`): not in native binaries"
                    )))
                }
            };
            // The loader adds the addend to a symbol's address: keep it small.
            if r.addend.unsigned_abs() > 1 << 31 {
                return Err(Error::invalid(format!("relocation addend {}", r.addend)));
            }
            relocs.push(ModuleReloc {
                offset: r.offset,
                kind,
                name,
                addend: r.addend,
            });
        }
        if !img.align.is_power_of_two() || img.align > 4096 {
            return Err(Error::invalid(format!("code alignment {}", img.align)));
        }
        module
            .define_function_bytes(id, img.align, &img.bytes, &relocs)
            .map_err(cl)?;
        ids.push(id);
    }
    module.finalize_definitions().map_err(cl)?;
    let entries = ids
        .iter()
        .map(|id| module.get_finalized_function(*id) as usize)
        .collect();
    Ok(Code {
        modules: vec![module],
        entries,
        images: Some(images.to_vec()),
        features: features.clone(),
    })
}

/// The module and the symbols a kernel's code refers to.
struct Syms<'a> {
    module: &'a mut JITModule,
    funcs: &'a HashMap<usize, FuncId>,
    data: DataId,
    data_gv: Option<cranelift_codegen::ir::GlobalValue>,
}

/// Values read once from the group context.
struct Group {
    gid: [cranelift_codegen::ir::Value; 3],
    lsz: [cranelift_codegen::ir::Value; 3],
    ngr: [cranelift_codegen::ir::Value; 3],
    goff: [cranelift_codegen::ir::Value; 3],
    wdim: cranelift_codegen::ir::Value,
    args: cranelift_codegen::ir::Value,
    local: cranelift_codegen::ir::Value,
    private: cranelift_codegen::ir::Value,
    /// [`GroupCtx::stream`], read when some record store may stream.
    stream: Option<cranelift_codegen::ir::Value>,
}

struct Lower<'a> {
    b: FunctionBuilder<'a>,
    k: &'a ir::Kernel,
    r: &'a Regions,
    stride: u32,
    syms: Syms<'a>,
    vals: HashMap<(u32, ir::Value), cranelift_codegen::ir::Value>,
    blocks: HashMap<(u32, usize), cranelift_codegen::ir::Block>,
    /// Block and position being lowered (for [`Regions::direct`]).
    at: (usize, usize),
    wi: Variable,
    /// Some work-item stopped at a barrier in this round.
    any: Variable,
    /// This is the first round.
    first: Variable,
    /// Some work-item stopped at a sub-group barrier in this round / in the previous round
    /// (work-items stopped at work-group barriers then wait).
    sub_now: Variable,
    sub_prev: Variable,
    lid: [Variable; 3],
    /// Segment being lowered.
    segment: u32,
    latch: cranelift_codegen::ir::Block,
    g: Option<Group>,
    broken: bool,
    fc: cranelift_codegen::isa::TargetFrontendConfig,
    /// The ISA has a fused multiply-add.
    fma: bool,
    /// Set when the kernel runs [`lockstep::W`] work-items at a time.
    vplan: Option<lockstep::Plan>,
    /// The lockstep shape of each value.
    lv: HashMap<(u32, ir::Value), lockstep::Lv>,
    /// The lanes of the current lockstep iteration.
    vmask: Option<lockstep::Mask>,
    /// Constants, by value (for lockstep address arithmetic).
    consts: HashMap<ir::Value, u64>,
    /// Addresses in the argument block, when the kernel never writes there.
    arg_reads: std::collections::HashSet<ir::Value>,
    /// Kernel arguments loaded before the work-item loop, by address value and type.
    arg_words: HashMap<(ir::Value, Type), CValue>,
    /// Values of earlier rounds recomputed, by native block ([`Lower::remat`]).
    remats: HashMap<(Option<cranelift_codegen::ir::Block>, ir::Value), CValue>,
    /// Values the same for every work-item of the group, computed once before the work-item
    /// loop ([`Lower::hoist_uniform`]).
    hoisted: HashMap<ir::Value, CValue>,
    /// Lockstep record groups being lowered: the base, and the rows once loaded.
    records: HashMap<(u32, usize, usize), lockstep::Record>,
    /// Lockstep: the active lanes (an `I8` of bits).
    alive: Variable,
    /// Lockstep: inside a divergent region (nesting depth).
    predicated: u32,
    /// Lockstep: the entry of the copy for turns with every lane active.
    full_entry: Option<cranelift_codegen::ir::Block>,
    /// Lockstep: the lanes' active flags, computed from this `alive` value.
    vactive: Option<(CValue, cranelift_codegen::ir::Block, [CValue; lockstep::W])>,
}

type CValue = cranelift_codegen::ir::Value;

impl<'a> Lower<'a> {
    fn new(
        b: FunctionBuilder<'a>,
        k: &'a ir::Kernel,
        r: &'a Regions,
        stride: u32,
        syms: Syms<'a>,
        fc: cranelift_codegen::isa::TargetFrontendConfig,
        fma: bool,
    ) -> Self {
        let mut b = b;
        let wi = b.declare_var(types::I64);
        let lid = [
            b.declare_var(types::I64),
            b.declare_var(types::I64),
            b.declare_var(types::I64),
        ];
        let any = b.declare_var(types::I8);
        let first = b.declare_var(types::I8);
        let alive = b.declare_var(types::I8);
        let sub_now = b.declare_var(types::I8);
        let sub_prev = b.declare_var(types::I8);
        let latch = b.create_block();
        Lower {
            b,
            k,
            r,
            stride,
            syms,
            vals: HashMap::new(),
            blocks: HashMap::new(),
            at: (0, 0),
            wi,
            any,
            first,
            sub_now,
            sub_prev,
            lid,
            segment: 0,
            latch,
            g: None,
            broken: false,
            fc,
            fma,
            vplan: lockstep::plan(k, r, lockstep_policy()),
            lv: HashMap::new(),
            vmask: None,
            consts: HashMap::new(),
            arg_reads: crate::analysis::regions::arg_reads(k),
            records: HashMap::new(),
            arg_words: HashMap::new(),
            remats: HashMap::new(),
            hoisted: HashMap::new(),
            alive,
            predicated: 0,
            vactive: None,
            full_entry: None,
        }
    }

    fn g(&self) -> &Group {
        self.g.as_ref().expect("group values are read first")
    }

    fn run(mut self) -> Result<(), Error> {
        let entry = self.b.create_block();
        self.b.append_block_params_for_function_params(entry);
        self.b.switch_to_block(entry);
        let ctx = self.b.block_params(entry)[0];
        let f = MemFlagsData::trusted();
        let at = |b: &mut FunctionBuilder, o: i32| b.ins().load(types::I64, f, ctx, o);
        let tri = |b: &mut FunctionBuilder, o: i32| [at(b, o), at(b, o + 8), at(b, o + 16)];
        let gid = tri(&mut self.b, GroupCtx::GROUP_ID);
        let lsz = tri(&mut self.b, GroupCtx::LOCAL_SIZE);
        let ngr = tri(&mut self.b, GroupCtx::NUM_GROUPS);
        let goff = tri(&mut self.b, GroupCtx::GLOBAL_OFFSET);
        let at = |b: &mut FunctionBuilder, o: i32| b.ins().load(types::I64, f, ctx, o);
        let wdim = at(&mut self.b, GroupCtx::WORK_DIM);
        let args = at(&mut self.b, GroupCtx::ARGS);
        let local = at(&mut self.b, GroupCtx::LOCAL_MEM);
        let private = at(&mut self.b, GroupCtx::PRIVATE_MEM);
        let streams = self.vplan.as_ref().is_some_and(|p| !p.streams.is_empty());
        let stream = streams.then(|| at(&mut self.b, GroupCtx::STREAM));
        self.g = Some(Group {
            gid,
            lsz,
            ngr,
            goff,
            wdim,
            args,
            local,
            private,
            stream,
        });
        let t01 = self.b.ins().imul(lsz[0], lsz[1]);
        let total = self.b.ins().imul(t01, lsz[2]);
        self.preload_args();
        if !self.lockstep() {
            self.hoist_uniform()?;
        }
        let r = self.r;
        // One copy of each block per segment that contains it (in lockstep, where there is
        // one segment: one copy for turns with every lane active and one for the others).
        let copies: Vec<(u32, &Vec<usize>)> = if self.lockstep() {
            vec![(lockstep::GENERAL, &r.blocks[0]), (lockstep::FULL, &r.blocks[0])]
        } else {
            r.blocks.iter().enumerate().map(|(s, b)| (s as u32, b)).collect()
        };
        for (seg, blocks) in copies.iter().copied() {
            self.segment = seg;
            for &bi in blocks {
                if self.lockstep_inlined(bi) {
                    continue;
                }
                let cb = self.b.create_block();
                for p in &self.k.blocks[bi].params {
                    if self.lockstep() {
                        self.lockstep_param(cb, *p);
                        continue;
                    }
                    let v = self.b.append_block_param(cb, ty(self.k.ty(*p)));
                    self.vals.insert((seg, *p), v);
                }
                self.blocks.insert((seg, bi), cb);
            }
        }
        let zero = self.b.ins().iconst(types::I64, 0);
        let exit = self.b.create_block();
        let round = self.b.create_block();
        let header = self.b.create_block();
        let dispatch = self.b.create_block();
        let round_end = self.b.create_block();
        self.latch = self.b.create_block();
        let one8 = self.b.ins().iconst(types::I8, 1);
        self.b.def_var(self.first, one8);
        let zero8 = self.b.ins().iconst(types::I8, 0);
        self.b.def_var(self.sub_now, zero8);
        self.b.ins().jump(round, &[]);
        // A round: every work-item, x fastest.
        self.b.switch_to_block(round);
        let zero8 = self.b.ins().iconst(types::I8, 0);
        self.b.def_var(self.any, zero8);
        let sub = self.b.use_var(self.sub_now);
        self.b.def_var(self.sub_prev, sub);
        self.b.def_var(self.sub_now, zero8);
        self.b.def_var(self.wi, zero);
        for l in self.lid {
            self.b.def_var(l, zero);
        }
        self.b.ins().jump(header, &[]);
        self.b.switch_to_block(header);
        let wi = self.b.use_var(self.wi);
        let more = self.b.ins().icmp(IntCC::UnsignedLessThan, wi, total);
        self.b.ins().brif(more, dispatch, &[], round_end, &[]);
        // Where this work-item goes on: segment 0 in the first round, else its recorded segment.
        self.b.switch_to_block(dispatch);
        let entry0 = self.blocks[&(0, r.starts[0].0 as usize)];
        if r.barriers() {
            let first = self.b.use_var(self.first);
            let resume = self.b.create_block();
            self.b.ins().brif(first, entry0, &[], resume, &[]);
            self.b.switch_to_block(resume);
            let a = self.state_addr();
            let state = self.b.ins().load(types::I32, MemFlagsData::trusted(), a, 0);
            if !r.sub_segments.is_empty() {
                self.sub_group_gate(a, state, total);
            }
            let mut sw = Switch::new();
            let mut gates = Vec::new();
            for (seg, start) in r.starts.iter().enumerate() {
                let mut to = self.blocks[&(seg as u32, start.0 as usize)];
                if seg > 0 && !r.sub_segments.is_empty() && !r.sub_segments.contains(&(seg as u32))
                {
                    let gate = self.b.create_block();
                    gates.push((gate, to));
                    to = gate;
                }
                sw.set_entry(seg as u128, to);
            }
            // Finished work-items (state DONE) go straight to the next one.
            sw.emit(&mut self.b, state, self.latch);
            // After a work-group barrier: wait while some work-item is at a sub-group barrier.
            for (gate, to) in gates {
                let wait = self.b.create_block();
                self.b.switch_to_block(gate);
                let sub = self.b.use_var(self.sub_prev);
                self.b.ins().brif(sub, wait, &[], to, &[]);
                self.b.switch_to_block(wait);
                let one = self.b.ins().iconst(types::I8, 1);
                self.b.def_var(self.any, one);
                self.b.ins().jump(self.latch, &[]);
            }
        } else {
            if self.lockstep() {
                let start = r.starts[0].0 as usize;
                let full = self.blocks[&(lockstep::FULL, start)];
                self.lockstep_mask(full, entry0);
            } else {
                self.b.ins().jump(entry0, &[]);
            }
        }
        for (seg, blocks) in copies {
            self.segment = seg;
            for &bi in blocks {
                if self.lockstep_inlined(bi) {
                    continue;
                }
                self.block(bi, &self.k.blocks[bi])?;
            }
        }
        // Next work-item.
        self.b.switch_to_block(self.latch);
        if self.lockstep() {
            self.lockstep_latch(header, dispatch, zero);
        } else {
            self.next_item(header, zero);
        }
        // Another round while some work-item stopped at a barrier.
        self.b.switch_to_block(round_end);
        let any = self.b.use_var(self.any);
        let zero8 = self.b.ins().iconst(types::I8, 0);
        self.b.def_var(self.first, zero8);
        self.b.ins().brif(any, round, &[], exit, &[]);
        self.b.switch_to_block(exit);
        self.b.ins().return_(&[]);
        self.b.seal_all_blocks();
        self.b.finalize(self.fc);
        if self.broken {
            return Err(Error::internal(format!(
                "kernel `{}`: a value used before its definition",
                self.k.name
            )));
        }
        Ok(())
    }

    /// The work-item loop's latch: the next work-item (x fastest), then the loop header.
    fn next_item(&mut self, header: cranelift_codegen::ir::Block, zero: CValue) {
        let lsz = self.g().lsz;
        let wi = self.b.use_var(self.wi);
        let wi = self.b.ins().iadd_imm_s(wi, 1);
        self.b.def_var(self.wi, wi);
        let [x, y, z] = self.lid.map(|l| self.b.use_var(l));
        let nx = self.b.ins().iadd_imm_s(x, 1);
        let wx = self.b.ins().icmp(IntCC::Equal, nx, lsz[0]);
        let x = self.b.ins().select(wx, zero, nx);
        let (y, z) = self.carry(wx, y, z, zero);
        for (l, v) in self.lid.into_iter().zip([x, y, z]) {
            self.b.def_var(l, v);
        }
        self.b.ins().jump(header, &[]);
    }

    /// The local ids `y` and `z` after a step of x that wrapped around when `wx` (an `I8`
    /// boolean): `y + 1`, wrapping around into `z + 1`.
    fn carry(&mut self, wx: CValue, y: CValue, z: CValue, zero: CValue) -> (CValue, CValue) {
        let lsz = self.g().lsz;
        let wx = self.b.ins().uextend(types::I64, wx);
        let ny = self.b.ins().iadd(y, wx);
        let wy = self.b.ins().icmp(IntCC::Equal, ny, lsz[1]);
        let y = self.b.ins().select(wy, zero, ny);
        let wy = self.b.ins().uextend(types::I64, wy);
        (y, self.b.ins().iadd(z, wy))
    }

    /// Loads the kernel arguments the kernel reads (at a constant offset of the argument block)
    /// once, before the work-item loop, when nothing writes to the block.
    fn preload_args(&mut self) {
        let args = self.g().args;
        let mut at: HashMap<ir::Value, u32> = HashMap::new();
        for i in self.k.blocks.iter().flat_map(|b| &b.insts) {
            if let (Op::ArgAddr(o), Some(r)) = (&i.op, i.result) {
                if self.arg_reads.contains(&r) {
                    at.insert(r, *o);
                }
            }
        }
        for i in self.k.blocks.iter().flat_map(|b| &b.insts) {
            let (Op::Load(a), Some(r)) = (&i.op, i.result) else {
                continue;
            };
            let Some(o) = at.get(a) else { continue };
            let t = ty(self.k.ty(r));
            if !self.arg_words.contains_key(&(*a, t)) {
                let fl = MemFlagsData::new().with_notrap().with_readonly();
                let v = self.b.ins().load(t, fl, args, *o as i32);
                self.arg_words.insert((*a, t), v);
            }
        }
    }

    /// The per-work-item area (private variables, then spills, then the resume state).
    fn wi_area(&mut self) -> CValue {
        let p = self.g().private;
        if !self.r.barriers() {
            return p;
        }
        let wi = self.b.use_var(self.wi);
        let off = self.b.ins().imul_imm_s(wi, i64::from(self.stride));
        self.b.ins().iadd(p, off)
    }

    fn spill_addr(&mut self, slot: u32) -> CValue {
        let a = self.wi_area();
        let base = crate::align16(self.k.private_size) + slot;
        self.b.ins().iadd_imm_s(a, i64::from(base))
    }

    /// At the dispatch of a work-item whose recorded segment `state` (at `a`) follows a
    /// sub-group barrier: it waits (another round, with the work-items at work-group barriers
    /// waiting too) while another work-item of its sub-group was, when this round started,
    /// stopped at an earlier sub-group barrier segment (the renumbering in `regions.rs`), so
    /// that only the earliest sub-group barrier of each sub-group goes on in a round. Each
    /// work-item copies its state next to it (`a + 4`) before it runs, so that the work-items
    /// after it in the round see where it was. Leaves the builder in the block that goes on.
    fn sub_group_gate(&mut self, a: CValue, state: CValue, total: CValue) {
        let f = MemFlagsData::trusted();
        self.b.ins().store(f, state, a, 4);
        let (check, wait, go) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let first = i64::from(self.r.sub_first);
        let uge = IntCC::UnsignedGreaterThanOrEqual;
        // Finished work-items (u32::MAX) and those after work-group barriers go on.
        let sub = self.b.ins().icmp_imm_u(uge, state, first);
        let n = self.r.starts.len() as i64;
        let known = self.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, state, n);
        let is_sub = self.b.ins().band(sub, known);
        self.b.ins().brif(is_sub, check, &[], go, &[]);
        self.b.switch_to_block(check);
        let wi = self.b.use_var(self.wi);
        let mask = !(i64::from(self.k.sub_group_size) - 1);
        let start = self.b.ins().band_imm_s(wi, mask);
        let private = self.g().private;
        let off = i64::from(crate::align16(self.k.private_size) + self.r.spill_size);
        let mut blocked = self.b.ins().iconst(types::I8, 0);
        for k in 0..i64::from(self.k.sub_group_size) {
            let p = self.b.ins().iadd_imm_s(start, k);
            let inside = self.b.ins().icmp(IntCC::UnsignedLessThan, p, total);
            let other = self.b.ins().icmp(IntCC::NotEqual, p, wi);
            let valid = self.b.ins().band(inside, other);
            let pc = self.b.ins().select(valid, p, wi);
            let o = self.b.ins().imul_imm_s(pc, i64::from(self.stride));
            let pa = self.b.ins().iadd(private, o);
            let cur = self.b.ins().load(types::I32, f, pa, off as i32);
            let prev = self.b.ins().load(types::I32, f, pa, off as i32 + 4);
            let ran = self.b.ins().icmp(IntCC::UnsignedLessThan, p, wi);
            let st = self.b.ins().select(ran, prev, cur);
            let sub = self.b.ins().icmp_imm_u(uge, st, first);
            let earlier = self.b.ins().icmp(IntCC::UnsignedLessThan, st, state);
            let x = self.b.ins().band(sub, earlier);
            let x = self.b.ins().band(x, valid);
            blocked = self.b.ins().bor(blocked, x);
        }
        self.b.ins().brif(blocked, wait, &[], go, &[]);
        self.b.switch_to_block(wait);
        let one = self.b.ins().iconst(types::I8, 1);
        self.b.def_var(self.any, one);
        self.b.def_var(self.sub_now, one);
        self.b.ins().jump(self.latch, &[]);
        self.b.switch_to_block(go);
    }

    /// Where a work-item records the segment it resumes at (`u32::MAX`: finished).
    fn state_addr(&mut self) -> CValue {
        let slot = self.r.spill_size;
        self.spill_addr(slot)
    }

    /// Records `v`'s native value, spilling it if some segment needs it from an earlier round.
    fn def(&mut self, v: ir::Value, c: CValue) {
        self.vals.insert((self.segment, v), c);
        if let Some(slot) = self.r.spills.get(&v).copied() {
            let a = self.spill_addr(slot);
            self.b.ins().store(MemFlagsData::trusted(), c, a, 0);
        }
    }

    fn v(&mut self, v: ir::Value) -> CValue {
        if let Some(c) = self.hoisted.get(&v) {
            return *c;
        }
        // The lockstep copies of the one segment share its dominance.
        let seg = if self.lockstep() {
            0
        } else {
            self.segment as usize
        };
        if self.r.direct(seg, v, self.at.0, self.at.1) {
            if let Some(c) = self.vals.get(&(self.segment, v)) {
                return *c;
            }
        } else if self.r.remat.contains(&v) {
            return self.remat(v);
        } else if let Some(slot) = self.r.spills.get(&v).copied() {
            let a = self.spill_addr(slot);
            return self
                .b
                .ins()
                .load(ty(self.k.ty(v)), MemFlagsData::trusted(), a, 0);
        }
        self.missing(v)
    }

    /// A value of an earlier round computed again ([`Regions::remat`]), once per native block.
    fn remat(&mut self, v: ir::Value) -> CValue {
        let here = self.b.current_block();
        if let Some(c) = self.remats.get(&(here, v)) {
            return *c;
        }
        let k = self.k;
        let Some(inst) = self
            .r
            .def_of(v)
            .and_then(|(b, pos)| k.blocks[b].insts.get(pos.checked_sub(1)?))
        else {
            return self.missing(v);
        };
        match self.op(Some(k.ty(v)), &inst.op) {
            Ok(Some(c)) => {
                // Where the lowering ended up (it may have added blocks).
                let at = self.b.current_block();
                self.remats.insert((at, v), c);
                c
            }
            _ => self.missing(v),
        }
    }

    /// A value the backend never saw defined (the verifier rules this out): a zero of its type,
    /// and the function is refused when it is finished.
    fn missing(&mut self, v: ir::Value) -> CValue {
        self.broken = true;
        match self.k.ty(v) {
            Ty::F32 => self.b.ins().f32const(0.0),
            Ty::F64 => self.b.ins().f64const(0.0),
            t => self.b.ins().iconst(ty(t), 0),
        }
    }

    fn args(&mut self, a: &[ir::Value]) -> Vec<BlockArg> {
        a.iter().map(|v| BlockArg::Value(self.v(*v))).collect()
    }

    fn target(&self, t: ir::BlockId) -> cranelift_codegen::ir::Block {
        // Targets of inner edges are in the same segment (regions.rs built it so).
        self.blocks[&(self.segment, t.0 as usize)]
    }

    fn block(&mut self, i: usize, blk: &ir::Block) -> Result<(), Error> {
        if self.lockstep() {
            return self.lockstep_block(i, blk);
        }
        let cb = self.blocks[&(self.segment, i)];
        self.b.switch_to_block(cb);
        self.at = (i, 0);
        for p in &blk.params {
            let c = match self.vals.get(&(self.segment, *p)) {
                Some(c) => *c,
                None => self.missing(*p),
            };
            self.def(*p, c);
        }
        for (ii, inst) in blk.insts.iter().enumerate() {
            self.at = (i, ii + 1);
            if inst.result.is_some_and(|r| self.hoisted.contains_key(&r)) {
                continue;
            }
            let r = self.op(inst.result.map(|r| self.k.ty(r)), &inst.op)?;
            if let (Some(res), Some(c)) = (inst.result, r) {
                self.def(res, c);
            }
        }
        self.at = (i, blk.insts.len() + 1);
        match &blk.term {
            Term::Jump(t, a) => {
                let a = self.args(a);
                let t = self.target(*t);
                self.b.ins().jump(t, &a);
            }
            Term::Branch(c, (t, ta), (f, fa)) => {
                let c = self.v(*c);
                let ta = self.args(ta);
                let fa = self.args(fa);
                let (t, f) = (self.target(*t), self.target(*f));
                self.b.ins().brif(c, t, &ta, f, &fa);
            }
            Term::Switch(s, d, cases) => {
                let s = self.v(*s);
                self.switch(s, *d, cases);
            }
            Term::Barrier(t) => {
                // Stop here; resume at the barrier's segment in the next round.
                let next = self.r.segment_of.get(&t.0).copied().unwrap_or(u32::MAX);
                self.resume_at(next);
                let one = self.b.ins().iconst(types::I8, 1);
                self.b.def_var(self.any, one);
                if self.r.sub_segments.contains(&next) {
                    self.b.def_var(self.sub_now, one);
                }
                self.b.ins().jump(self.latch, &[]);
            }
            Term::Return | Term::Unreachable | Term::None => {
                if self.r.barriers() {
                    self.resume_at(u32::MAX);
                }
                self.b.ins().jump(self.latch, &[]);
            }
        }
        Ok(())
    }

    /// A multi-way branch on `s`.
    fn switch(&mut self, s: CValue, d: ir::BlockId, cases: &[(u64, ir::BlockId)]) {
        let width = self.b.func.dfg.value_type(s).bits();
        let mut sw = Switch::new();
        for (v, t) in cases {
            let v = if width >= 64 {
                *v
            } else {
                *v & ((1u64 << width) - 1)
            };
            if sw.entries().contains_key(&u128::from(v)) {
                continue;
            }
            sw.set_entry(u128::from(v), self.target(*t));
        }
        let d = self.target(d);
        sw.emit(&mut self.b, s, d);
    }

    fn resume_at(&mut self, segment: u32) {
        let a = self.state_addr();
        let v = self.b.ins().iconst(types::I32, i64::from(segment as i32));
        self.b.ins().store(MemFlagsData::trusted(), v, a, 0);
    }

    fn builtin(&mut self, b: Builtin, d: usize) -> CValue {
        let g = self.g();
        let (gid, lsz, ngr, goff, wdim) = (g.gid, g.lsz, g.ngr, g.goff, g.wdim);
        match b {
            Builtin::LocalId => self.b.use_var(self.lid[d]),
            Builtin::GroupId => gid[d],
            Builtin::LocalSize => lsz[d],
            Builtin::NumGroups => ngr[d],
            Builtin::GlobalOffset => goff[d],
            Builtin::GlobalSize => self.b.ins().imul(lsz[d], ngr[d]),
            Builtin::GlobalId => {
                let l = self.b.use_var(self.lid[d]);
                let x = self.b.ins().imul(gid[d], lsz[d]);
                let x = self.b.ins().iadd(x, l);
                self.b.ins().iadd(x, goff[d])
            }
            Builtin::WorkDim => wdim,
            Builtin::LocalLinearId => self.b.use_var(self.wi),
            Builtin::GlobalLinearId => {
                let mut acc = self.b.ins().iconst(types::I64, 0);
                for d in (0..3).rev() {
                    let size = self.builtin(Builtin::GlobalSize, d);
                    let id = self.builtin(Builtin::GlobalId, d);
                    let id = self.b.ins().isub(id, goff[d]);
                    let m = self.b.ins().imul(acc, size);
                    acc = self.b.ins().iadd(m, id);
                }
                acc
            }
            Builtin::SubgroupSize
            | Builtin::SubgroupMaxSize
            | Builtin::NumSubgroups
            | Builtin::SubgroupId
            | Builtin::SubgroupLocalId => self.subgroup_builtin(b),
        }
    }

    /// Sub-group built-ins from the linear local id and the group size.
    fn subgroup_builtin(&mut self, b: Builtin) -> CValue {
        let s = i64::from(self.k.sub_group_size);
        let lsz = self.g().lsz;
        let wi = self.b.use_var(self.wi);
        let n = self.b.ins().imul(lsz[0], lsz[1]);
        let n = self.b.ins().imul(n, lsz[2]);
        let c = |me: &mut Self, x: i64| me.b.ins().iconst(types::I64, x);
        let (mask, shift, size) = (c(self, s - 1), c(self, s.trailing_zeros().into()), c(self, s));
        match b {
            Builtin::SubgroupLocalId => self.b.ins().band(wi, mask),
            Builtin::SubgroupId => self.b.ins().ushr(wi, shift),
            Builtin::NumSubgroups => {
                let x = self.b.ins().iadd(n, mask);
                self.b.ins().ushr(x, shift)
            }
            Builtin::SubgroupMaxSize => self.b.ins().umin(n, size),
            _ => {
                let start = self.b.ins().band_not(wi, mask);
                let left = self.b.ins().isub(n, start);
                self.b.ins().umin(left, size)
            }
        }
    }

    /// Calls the function at `addr`, one of `symbols` (through a relocation; any other
    /// address through a pointer).
    fn call(&mut self, addr: usize, params: &[Type], ret: Type, args: &[CValue]) -> CValue {
        if let Some(id) = self.syms.funcs.get(&addr) {
            let fr = self.syms.module.declare_func_in_func(*id, self.b.func);
            let call = self.b.ins().call(fr, args);
            if let Some(r) = self.b.inst_results(call).first().copied() {
                return r;
            }
            return self.b.ins().iconst(types::I64, 0);
        }
        let mut sig = Signature::new(self.b.func.signature.call_conv);
        sig.params.extend(params.iter().map(|t| AbiParam::new(*t)));
        if ret != types::INVALID {
            sig.returns.push(AbiParam::new(ret));
        }
        let sr = self.b.import_signature(sig);
        let f = self.b.ins().iconst(types::I64, addr as i64);
        let call = self.b.ins().call_indirect(sr, f, args);
        self.b.inst_results(call).first().copied().unwrap_or(f)
    }

    fn op(&mut self, rt: Option<Ty>, op: &Op) -> Result<Option<CValue>, Error> {
        let fl = MemFlagsData::new();
        let t = rt.map(ty).unwrap_or(types::INVALID);
        let v = match op {
            Op::Const(bits) => match rt {
                Some(Ty::F32) => self.b.ins().f32const(Ieee32::with_bits(*bits as u32)),
                Some(Ty::F64) => self.b.ins().f64const(Ieee64::with_bits(*bits)),
                Some(r) => {
                    let w = r.bytes() * 8;
                    let bits = if w >= 64 {
                        *bits
                    } else {
                        *bits & ((1u64 << w) - 1)
                    };
                    let bits = if r == Ty::Bool {
                        u64::from(bits != 0)
                    } else {
                        bits
                    };
                    self.b.ins().iconst(t, bits as i64)
                }
                None => return Ok(None),
            },
            Op::Bin(o, a, b) => {
                let (a, b) = (self.v(*a), self.v(*b));
                self.bin(*o, t, a, b)
            }
            Op::Un(o, a) => {
                let a = self.v(*a);
                match o {
                    UnOp::Neg => self.b.ins().ineg(a),
                    UnOp::FNeg => self.b.ins().fneg(a),
                    UnOp::Not if rt == Some(Ty::Bool) => self.b.ins().bxor_imm_s(a, 1),
                    UnOp::Not => self.b.ins().bnot(a),
                    UnOp::Clz => self.b.ins().clz(a),
                    UnOp::Popcnt => self.b.ins().popcnt(a),
                }
            }
            Op::Cmp(c, a, b) => {
                let (a, b) = (self.v(*a), self.v(*b));
                let i = |cc| Some(cc);
                let icc = match c {
                    CmpOp::Eq => i(IntCC::Equal),
                    CmpOp::Ne => i(IntCC::NotEqual),
                    CmpOp::ULt => i(IntCC::UnsignedLessThan),
                    CmpOp::ULe => i(IntCC::UnsignedLessThanOrEqual),
                    CmpOp::UGt => i(IntCC::UnsignedGreaterThan),
                    CmpOp::UGe => i(IntCC::UnsignedGreaterThanOrEqual),
                    CmpOp::SLt => i(IntCC::SignedLessThan),
                    CmpOp::SLe => i(IntCC::SignedLessThanOrEqual),
                    CmpOp::SGt => i(IntCC::SignedGreaterThan),
                    CmpOp::SGe => i(IntCC::SignedGreaterThanOrEqual),
                    _ => None,
                };
                if let Some(cc) = icc {
                    self.b.ins().icmp(cc, a, b)
                } else {
                    let fcc = match c {
                        CmpOp::FEq => FloatCC::Equal,
                        CmpOp::FNe => FloatCC::OrderedNotEqual,
                        CmpOp::FLt => FloatCC::LessThan,
                        CmpOp::FLe => FloatCC::LessThanOrEqual,
                        CmpOp::FGt => FloatCC::GreaterThan,
                        CmpOp::FGe => FloatCC::GreaterThanOrEqual,
                        CmpOp::FUnordEq => FloatCC::UnorderedOrEqual,
                        CmpOp::FUnordNe => FloatCC::NotEqual,
                        CmpOp::FUnordLt => FloatCC::UnorderedOrLessThan,
                        CmpOp::FUnordLe => FloatCC::UnorderedOrLessThanOrEqual,
                        CmpOp::FUnordGt => FloatCC::UnorderedOrGreaterThan,
                        CmpOp::FUnordGe => FloatCC::UnorderedOrGreaterThanOrEqual,
                        CmpOp::FOrd => FloatCC::Ordered,
                        _ => FloatCC::Unordered,
                    };
                    self.b.ins().fcmp(fcc, a, b)
                }
            }
            Op::Select(c, a, b) => {
                let (c, a, b) = (self.v(*c), self.v(*a), self.v(*b));
                self.b.ins().select(c, a, b)
            }
            Op::Conv(c, x) => {
                let from = self.k.ty(*x);
                let x = self.v(*x);
                self.conv(*c, from, rt.unwrap_or(Ty::I64), x)
            }
            Op::Load(a) if self.arg_words.contains_key(&(*a, t)) => self.arg_words[&(*a, t)],
            Op::Load(a) => {
                // The argument block does not change while the group runs: such loads may
                // move out of the work-item loop.
                let fl = if self.arg_reads.contains(a) {
                    fl.with_notrap().with_readonly().with_can_move()
                } else {
                    fl
                };
                let a = self.v(*a);
                self.b.ins().load(t, fl, a, 0)
            }
            Op::Store { addr, value } => {
                let (a, v) = (self.v(*addr), self.v(*value));
                self.b.ins().store(fl, v, a, 0);
                return Ok(None);
            }
            Op::Copy { dst, src, size } => {
                let args = [self.v(*dst), self.v(*src), self.v(*size)];
                self.call(
                    copy_bytes as *const () as usize,
                    &[types::I64; 3],
                    types::INVALID,
                    &args,
                );
                return Ok(None);
            }
            Op::Atomic(o, a, x) => {
                let (a, x) = (self.v(*a), self.v(*x));
                let o = match o {
                    AtomicOp::Add => AtomicRmwOp::Add,
                    AtomicOp::Sub => AtomicRmwOp::Sub,
                    AtomicOp::Xchg => AtomicRmwOp::Xchg,
                    AtomicOp::And => AtomicRmwOp::And,
                    AtomicOp::Or => AtomicRmwOp::Or,
                    AtomicOp::Xor => AtomicRmwOp::Xor,
                    AtomicOp::SMin => AtomicRmwOp::Smin,
                    AtomicOp::SMax => AtomicRmwOp::Smax,
                    AtomicOp::UMin => AtomicRmwOp::Umin,
                    AtomicOp::UMax => AtomicRmwOp::Umax,
                };
                self.b.ins().atomic_rmw(t, fl, o, a, x)
            }
            Op::AtomicCas(a, e, x) => {
                let (a, e, x) = (self.v(*a), self.v(*e), self.v(*x));
                self.b.ins().atomic_cas(fl, a, e, x)
            }
            Op::AtomicLoad(a) => {
                let a = self.v(*a);
                self.b.ins().atomic_load(t, fl, a)
            }
            Op::AtomicStore(a, x) => {
                let (a, x) = (self.v(*a), self.v(*x));
                self.b.ins().atomic_store(fl, x, a);
                return Ok(None);
            }
            Op::Math(f, args) => {
                let args: Vec<CValue> = args.iter().map(|a| self.v(*a)).collect();
                match f {
                    MathFn::Sqrt => self.b.ins().sqrt(args[0]),
                    MathFn::Fabs => self.b.ins().fabs(args[0]),
                    // One instruction where the ISA has it, else `f32::mul_add` through a shim.
                    // (`mad` stays a multiply and an add: OpenCL allows either, and the
                    // kernel tests compare `mad` results with unfused host references.)
                    MathFn::Fma if self.fma => self.b.ins().fma(args[0], args[1], args[2]),
                    MathFn::Mad => {
                        let m = self.b.ins().fmul(args[0], args[1]);
                        self.b.ins().fadd(m, args[2])
                    }
                    MathFn::ReadClock => {
                        self.call(read_clock as *const () as usize, &[], types::I64, &[])
                    }
                    _ => {
                        let addr = math_shim(*f, rt == Some(Ty::F64))
                            .ok_or_else(|| Error::internal(format!("no shim for {f:?}")))?;
                        self.call(addr, &vec![t; args.len()], t, &args)
                    }
                }
            }
            Op::Builtin(b, d) => self.builtin(*b, usize::from(*d).min(2)),
            Op::BuiltinDyn(b, d) => {
                let d = self.v(*d);
                let d = if self.b.func.dfg.value_type(d) == types::I64 {
                    d
                } else {
                    self.b.ins().uextend(types::I64, d)
                };
                let dflt = match b {
                    Builtin::GlobalSize | Builtin::LocalSize | Builtin::NumGroups => 1,
                    _ => 0,
                };
                let mut acc = self.b.ins().iconst(types::I64, dflt);
                for dim in (0..3).rev() {
                    let v = self.builtin(*b, dim);
                    let is = self.b.ins().icmp_imm_s(IntCC::Equal, d, dim as i64);
                    acc = self.b.ins().select(is, v, acc);
                }
                acc
            }
            Op::ArgAddr(o) => {
                let a = self.g().args;
                self.b.ins().iadd_imm_s(a, i64::from(*o))
            }
            Op::PrivateAddr(o) => {
                let a = self.wi_area();
                self.b.ins().iadd_imm_s(a, i64::from(*o))
            }
            Op::LocalAddr(o) => {
                let a = self.g().local;
                self.b.ins().iadd_imm_s(a, i64::from(*o))
            }
            Op::GlobalAddr(o) => {
                let gv = match self.syms.data_gv {
                    Some(gv) => gv,
                    None => {
                        let gv = self
                            .syms
                            .module
                            .declare_data_in_func(self.syms.data, self.b.func);
                        self.syms.data_gv = Some(gv);
                        gv
                    }
                };
                let base = self.b.ins().symbol_value(types::I64, gv);
                self.b.ins().iadd_imm_s(base, i64::from(*o))
            }
            Op::Barrier | Op::SubgroupBarrier => {
                return Err(Error::internal("a barrier left after splitting"))
            }
            Op::Printf { fmt, args, count } => {
                let (f, a) = (self.v(*fmt), self.v(*args));
                let n = self.b.ins().iconst(types::I32, i64::from(*count));
                let addr = crate::printf::zekit_printf as *const () as usize;
                self.call(addr, &[types::I64, types::I64, types::I32], types::I32, &[f, a, n])
            }
            Op::Image {
                flags,
                image,
                sampler,
                coords,
                texel,
            } => {
                let f = self.b.ins().iconst(types::I32, i64::from(*flags));
                let args = [f, self.v(*image), self.v(*sampler), self.v(*coords), self.v(*texel)];
                let addr = crate::image::zekit_image as *const () as usize;
                let params = [types::I32, types::I64, types::I64, types::I64, types::I64];
                self.call(addr, &params, types::INVALID, &args);
                return Ok(None);
            }
        };
        Ok(Some(v))
    }

    fn bin(&mut self, o: BinOp, t: Type, a: CValue, b: CValue) -> CValue {
        match o {
            BinOp::Add => self.b.ins().iadd(a, b),
            BinOp::Sub => self.b.ins().isub(a, b),
            BinOp::Mul => self.b.ins().imul(a, b),
            BinOp::FAdd => self.b.ins().fadd(a, b),
            BinOp::FSub => self.b.ins().fsub(a, b),
            BinOp::FMul => self.b.ins().fmul(a, b),
            BinOp::FDiv => self.b.ins().fdiv(a, b),
            BinOp::FRem => {
                let addr = math_shim(MathFn::Fmod, t == types::F64).unwrap_or(0);
                self.call(addr, &[t, t], t, &[a, b])
            }
            BinOp::And => self.b.ins().band(a, b),
            BinOp::Or => self.b.ins().bor(a, b),
            BinOp::Xor => self.b.ins().bxor(a, b),
            BinOp::SMulHi => self.b.ins().smulhi(a, b),
            BinOp::UMulHi => self.b.ins().umulhi(a, b),
            BinOp::Rotl => self.b.ins().rotl(a, b),
            BinOp::Shl | BinOp::LShr | BinOp::AShr => {
                // Shift amounts of another width are brought to the shifted value's.
                let bt = self.b.func.dfg.value_type(b);
                let b = if bt.bits() > t.bits() {
                    self.b.ins().ireduce(t, b)
                } else if bt.bits() < t.bits() {
                    self.b.ins().uextend(t, b)
                } else {
                    b
                };
                match o {
                    BinOp::Shl => self.b.ins().ishl(a, b),
                    BinOp::LShr => self.b.ins().ushr(a, b),
                    _ => self.b.ins().sshr(a, b),
                }
            }
            BinOp::UDiv | BinOp::URem | BinOp::SDiv | BinOp::SRem | BinOp::SMod => {
                // No trap: a zero divisor gives 0, MIN / -1 wraps (remainder 0).
                let zero = self.b.ins().iconst(t, 0);
                let one = self.b.ins().iconst(t, 1);
                let is0 = self.b.ins().icmp_imm_s(IntCC::Equal, b, 0);
                let signed = matches!(o, BinOp::SDiv | BinOp::SRem | BinOp::SMod);
                let ism1 = if signed {
                    self.b.ins().icmp_imm_s(IntCC::Equal, b, -1)
                } else {
                    self.b.ins().iconst(types::I8, 0)
                };
                let bad = self.b.ins().bor(is0, ism1);
                let d = self.b.ins().select(bad, one, b);
                let r = match o {
                    BinOp::UDiv => self.b.ins().udiv(a, d),
                    BinOp::URem => self.b.ins().urem(a, d),
                    BinOp::SDiv => self.b.ins().sdiv(a, d),
                    _ => self.b.ins().srem(a, d),
                };
                let r = if o == BinOp::SMod {
                    // The remainder takes the divisor's sign.
                    let nz = self.b.ins().icmp_imm_s(IntCC::NotEqual, r, 0);
                    let x = self.b.ins().bxor(r, b);
                    let neg = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, x, 0);
                    let fix = self.b.ins().band(nz, neg);
                    let rb = self.b.ins().iadd(r, b);
                    self.b.ins().select(fix, rb, r)
                } else {
                    r
                };
                // By -1: the quotient is -a, the remainder 0.
                let r = if o == BinOp::SDiv {
                    let na = self.b.ins().ineg(a);
                    self.b.ins().select(ism1, na, r)
                } else if signed {
                    self.b.ins().select(ism1, zero, r)
                } else {
                    r
                };
                self.b.ins().select(is0, zero, r)
            }
        }
    }

    /// The bits of a half (`I16`) to a float of type `tt`, exactly: the exponent and mantissa
    /// shifted into a float's, scaled by 2^112 (which also normalizes subnormals); infinities
    /// and NaNs get the all-ones exponent.
    fn half_to_float(&mut self, h: CValue, tt: Type) -> CValue {
        let fl = MemFlagsData::new();
        let h = self.b.ins().uextend(types::I32, h);
        let sign = self.b.ins().band_imm_u(h, 0x8000);
        let sign = self.b.ins().ishl_imm_u(sign, 16);
        let em = self.b.ins().band_imm_u(h, 0x7fff);
        let shifted = self.b.ins().ishl_imm_u(em, 13);
        let f = self.b.ins().bitcast(types::F32, fl, shifted);
        let scale = self.b.ins().f32const(Ieee32::with_bits(0x7780_0000));
        let f = self.b.ins().fmul(f, scale);
        let fb = self.b.ins().bitcast(types::I32, fl, f);
        let special = self.b.ins().bor_imm_u(shifted, 0x7f80_0000);
        let is_special = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, em, 0x7c00);
        let bits = self.b.ins().select(is_special, special, fb);
        let bits = self.b.ins().bor(bits, sign);
        let f = self.b.ins().bitcast(types::F32, fl, bits);
        if tt == types::F64 {
            self.b.ins().fpromote(types::F64, f)
        } else {
            f
        }
    }

    fn conv(&mut self, c: ConvOp, from: Ty, to: Ty, x: CValue) -> CValue {
        let (ft, tt) = (ty(from), ty(to));
        let resize = |s: &mut Self, signed: bool, x: CValue| {
            if tt.bits() > ft.bits() {
                if signed {
                    s.b.ins().sextend(tt, x)
                } else {
                    s.b.ins().uextend(tt, x)
                }
            } else if tt.bits() < ft.bits() {
                s.b.ins().ireduce(tt, x)
            } else {
                x
            }
        };
        match c {
            ConvOp::UResize | ConvOp::BoolToInt => resize(self, false, x),
            ConvOp::SResize => resize(self, true, x),
            ConvOp::FToS | ConvOp::FToU => {
                let wide = if tt.bits() < 32 { types::I32 } else { tt };
                let v = if c == ConvOp::FToS {
                    self.b.ins().fcvt_to_sint_sat(wide, x)
                } else {
                    self.b.ins().fcvt_to_uint_sat(wide, x)
                };
                if wide == tt {
                    v
                } else {
                    self.b.ins().ireduce(tt, v)
                }
            }
            ConvOp::SToF | ConvOp::UToF => {
                let x = if ft.bits() < 32 {
                    if c == ConvOp::SToF {
                        self.b.ins().sextend(types::I32, x)
                    } else {
                        self.b.ins().uextend(types::I32, x)
                    }
                } else {
                    x
                };
                if c == ConvOp::SToF {
                    self.b.ins().fcvt_from_sint(tt, x)
                } else {
                    self.b.ins().fcvt_from_uint(tt, x)
                }
            }
            ConvOp::FResize => {
                if tt.bits() > ft.bits() {
                    self.b.ins().fpromote(tt, x)
                } else if tt.bits() < ft.bits() {
                    self.b.ins().fdemote(tt, x)
                } else {
                    x
                }
            }
            ConvOp::Bitcast => {
                if ft == tt {
                    x
                } else {
                    self.b.ins().bitcast(tt, MemFlagsData::new(), x)
                }
            }
            ConvOp::F16ToF => self.half_to_float(x, tt),
            ConvOp::FToF16(r) => {
                let x = if ft == types::F32 {
                    self.b.ins().fpromote(types::F64, x)
                } else {
                    x
                };
                let mode = match r {
                    Round::Rte => 0,
                    Round::Rtz => 1,
                    Round::Rtp => 2,
                    Round::Rtn => 3,
                };
                let m = self.b.ins().iconst(types::I32, mode);
                let addr = f64_to_f16 as *const () as usize;
                let h = self.call(addr, &[types::F64, types::I32], types::I32, &[x, m]);
                self.b.ins().ireduce(tt, h)
            }
        }
    }
}
