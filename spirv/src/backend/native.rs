//! Native binaries: a compiled [`Program`] saved as bytes and loaded again without compiling
//! (what `zeModuleGetNativeBinary` returns and `ZE_MODULE_FORMAT_NATIVE` takes).
//!
//! Layout (little-endian): the magic `ZEKITNB\0`, the format version (u32), a 64-bit FNV-1a
//! checksum of everything after it, then the target triple and the CPU features the code was
//! generated for, the initial program-scope data, the exported variables (name, offset,
//! size), and per kernel what it reports ([`KernelInfo`]) and its machine code with its
//! relocations ([`jit::FuncImage`]), then (since version 2) the offsets of the function
//! pointers in the data and the exported functions' pointer slots (name, offset). Since version
//! 3 each kernel's info also holds its `work_group_size_hint` and `vec_type_hint`. Loading checks the magic, version and checksum, refuses
//! code for another target or for CPU features the host lacks, copies the code into executable
//! memory and relocates it (math functions, `memmove` and the program's data are named by
//! symbol, so the binary works in any process of the same build) and the function pointers in
//! the data.

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::jit::{self, FuncImage, RelocImage, Target};
use crate::{AddressSpace, ArgInfo, ArgKind, KernelInfo, Program};

/// The magic number at the start of a native binary.
pub const MAGIC: &[u8; 8] = b"ZEKITNB\0";
/// The format version; a binary of another version is refused.
pub const VERSION: u32 = 6;
/// Most bytes of a section (a guard against corrupt lengths).
const MAX_LEN: u64 = 1 << 30;

/// Why a native binary cannot be made or loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NativeError(pub String);

impl std::fmt::Display for NativeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn err(m: impl Into<String>) -> NativeError {
    NativeError(m.into())
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[derive(Default)]
struct W(Vec<u8>);

impl W {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u32(&mut self, v: u32) {
        self.0.extend(v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend(v.to_le_bytes());
    }
    fn bytes(&mut self, b: &[u8]) {
        self.u64(b.len() as u64);
        self.0.extend(b);
    }
    fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }
}

struct R<'a>(&'a [u8]);

impl<'a> R<'a> {
    fn take(&mut self, n: u64) -> Result<&'a [u8], NativeError> {
        if n > self.0.len() as u64 {
            return Err(err("truncated"));
        }
        let (a, b) = self.0.split_at(n as usize);
        self.0 = b;
        Ok(a)
    }
    fn u8(&mut self) -> Result<u8, NativeError> {
        Ok(self.take(1)?[0])
    }
    fn u32(&mut self) -> Result<u32, NativeError> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn u64(&mut self) -> Result<u64, NativeError> {
        let mut a = [0u8; 8];
        a.copy_from_slice(self.take(8)?);
        Ok(u64::from_le_bytes(a))
    }
    fn bytes(&mut self) -> Result<&'a [u8], NativeError> {
        let n = self.u64()?;
        if n > MAX_LEN {
            return Err(err("a section longer than 1 GiB"));
        }
        self.take(n)
    }
    fn str(&mut self) -> Result<String, NativeError> {
        String::from_utf8(self.bytes()?.to_vec()).map_err(|_| err("a name that is not UTF-8"))
    }
    fn count(&mut self, most: u32) -> Result<usize, NativeError> {
        let n = self.u32()?;
        if n > most {
            return Err(err(format!("a count of {n}, more than {most}")));
        }
        Ok(n as usize)
    }
}

fn kind_code(k: ArgKind) -> u8 {
    match k {
        ArgKind::Buffer => 0,
        ArgKind::Scalar => 1,
        ArgKind::Local => 2,
        ArgKind::ByValue => 3,
        ArgKind::Image => 4,
        ArgKind::Sampler => 5,
    }
}

fn space_code(s: AddressSpace) -> u8 {
    match s {
        AddressSpace::Global => 0,
        AddressSpace::Constant => 1,
        AddressSpace::Local => 2,
        AddressSpace::Private => 3,
        AddressSpace::Generic => 4,
    }
}

impl Program {
    /// The machine code of kernel `index` as generated, before relocation (the absolute
    /// addresses it names are zero): what `zeKernelGetBinaryExp` returns. `None` when the
    /// index is out of range or the code refers to something a saved image cannot name.
    pub fn kernel_code(&self, index: usize) -> Option<&[u8]> {
        // The code its launches run: LLVM's once it has tiered up.
        if let Some(up) = self.kernels.get(index)?.upgraded() {
            return up.images.as_ref()?.first().map(|i| i.bytes.as_slice());
        }
        let images = self._code.images.as_ref()?;
        images.get(index).map(|i| i.bytes.as_slice())
    }

    /// The program as a native binary (see the module documentation). A kernel that has
    /// tiered up ([`crate::jit::tierup`]) is saved with LLVM's code, and the binary then asks
    /// for the CPU features that code was made for too.
    pub fn native_binary(&self) -> Result<Vec<u8>, NativeError> {
        let cannot = || err("this module's code refers to something a native binary cannot name");
        let base_images = self._code.images.as_ref().ok_or_else(cannot)?;
        let (triple, mut features) = self._code.features.clone();
        let mut images = Vec::with_capacity(base_images.len());
        for (k, img) in self.kernels.iter().zip(base_images) {
            match k.upgraded().map(|c| (c.images.as_ref().and_then(|i| i.first()), &c.features)) {
                Some((Some(up), (t, f))) if *t == triple => {
                    images.push(up);
                    for x in f {
                        if !features.contains(x) {
                            features.push(x.clone());
                        }
                    }
                }
                _ => images.push(img),
            }
        }
        let mut w = W::default();
        w.str(&triple);
        w.u32(features.len() as u32);
        for f in &features {
            w.str(f);
        }
        w.bytes(&self.init);
        w.u32(self.globals.len() as u32);
        let base = self.data_address();
        for (name, addr, size) in &self.globals {
            w.str(name);
            w.u64((addr - base) as u64);
            w.u64(*size as u64);
        }
        w.u32(self.kernels.len() as u32);
        for (k, img) in self.kernels.iter().zip(images) {
            let i = &k.info;
            w.str(&i.name);
            w.u32(i.args.len() as u32);
            for a in &i.args {
                w.u8(kind_code(a.kind));
                w.u8(space_code(a.space));
                w.u32(a.size);
                w.u32(a.offset);
            }
            w.u32(i.args_size);
            for size in [i.reqd_work_group_size, i.work_group_size_hint] {
                match size {
                    Some(r) => {
                        w.u8(1);
                        r.iter().for_each(|x| w.u32(*x));
                    }
                    None => w.u8(0),
                }
            }
            match i.reqd_sub_group_size {
                Some(n) => {
                    w.u8(1);
                    w.u32(n);
                }
                None => w.u8(0),
            }
            match &i.vec_type_hint {
                Some(t) => {
                    w.u8(1);
                    w.str(t);
                }
                None => w.u8(0),
            }
            w.u32(i.local_static_size);
            w.u32(i.private_size);
            w.u8(u8::from(i.barriers));
            w.u8(u8::from(i.effects));
            w.u64(img.align);
            w.bytes(&img.bytes);
            w.u32(img.relocs.len() as u32);
            for r in &img.relocs {
                w.u32(r.offset);
                w.u8(r.kind);
                let (tag, name) = match &r.target {
                    Target::Symbol(s) => (0, s),
                    Target::LibCall(s) => (1, s),
                };
                w.u8(tag);
                w.str(name);
                w.u64(r.addend as u64);
            }
        }
        // Function pointers (version 2): relocations of the data, exported functions.
        w.u32(self.data_relocs.len() as u32);
        for r in &self.data_relocs {
            w.u32(*r);
        }
        w.u32(self.functions.len() as u32);
        for (name, addr) in &self.functions {
            w.str(name);
            w.u64((addr - base) as u64);
        }
        let mut out = Vec::with_capacity(w.0.len() + 20);
        out.extend(MAGIC);
        out.extend(VERSION.to_le_bytes());
        out.extend(fnv1a(&w.0).to_le_bytes());
        out.extend(w.0);
        Ok(out)
    }
}

/// Loads a native binary made by [`Program::native_binary`], compiling nothing. Never panics:
/// a bad binary is an error naming the problem (not ours, version, checksum, target, CPU
/// features, structure).
pub fn load(bytes: &[u8]) -> Result<Program, NativeError> {
    match catch_unwind(AssertUnwindSafe(|| load_inner(bytes))) {
        Ok(r) => r,
        Err(_) => Err(err("the loader panicked")),
    }
}

fn load_inner(bytes: &[u8]) -> Result<Program, NativeError> {
    if bytes.len() < 20 || &bytes[..8] != MAGIC {
        return Err(err("not a zekit native binary (no ZEKITNB magic)"));
    }
    let mut r = R(&bytes[8..]);
    let version = r.u32()?;
    if version != VERSION {
        return Err(err(format!(
            "format version {version}, this driver reads version {VERSION}"
        )));
    }
    let sum = r.u64()?;
    if fnv1a(r.0) != sum {
        return Err(err("checksum mismatch (a corrupt binary)"));
    }
    let triple = r.str()?;
    let nf = r.count(4096)?;
    let features = (0..nf).map(|_| r.str()).collect::<Result<Vec<_>, _>>()?;
    let init = r.bytes()?.to_vec();
    let ng = r.count(1 << 20)?;
    let mut globals = Vec::with_capacity(ng);
    for _ in 0..ng {
        let name = r.str()?;
        let (off, size) = (r.u64()?, r.u64()?);
        if off.checked_add(size).is_none_or(|e| e > init.len() as u64) {
            return Err(err(format!("variable `{name}` outside the data")));
        }
        globals.push((name, off as usize, size as usize));
    }
    let nk = r.count(1 << 16)?;
    let mut infos = Vec::with_capacity(nk);
    let mut images = Vec::with_capacity(nk);
    for _ in 0..nk {
        let name = r.str()?;
        let na = r.count(1 << 16)?;
        let mut args = Vec::with_capacity(na);
        for _ in 0..na {
            let kind = match r.u8()? {
                0 => ArgKind::Buffer,
                1 => ArgKind::Scalar,
                2 => ArgKind::Local,
                3 => ArgKind::ByValue,
                4 => ArgKind::Image,
                5 => ArgKind::Sampler,
                k => return Err(err(format!("argument kind {k}"))),
            };
            let space = match r.u8()? {
                0 => AddressSpace::Global,
                1 => AddressSpace::Constant,
                2 => AddressSpace::Local,
                3 => AddressSpace::Private,
                4 => AddressSpace::Generic,
                s => return Err(err(format!("address space {s}"))),
            };
            let (size, offset) = (r.u32()?, r.u32()?);
            args.push(ArgInfo {
                kind,
                size,
                offset,
                space,
            });
        }
        let args_size = r.u32()?;
        if args
            .iter()
            .any(|a| u64::from(a.offset) + u64::from(a.size) > u64::from(args_size))
        {
            return Err(err(format!("kernel `{name}`: an argument outside the block")));
        }
        let reqd = match r.u8()? {
            0 => None,
            _ => Some([r.u32()?, r.u32()?, r.u32()?]),
        };
        let hint = match r.u8()? {
            0 => None,
            _ => Some([r.u32()?, r.u32()?, r.u32()?]),
        };
        let reqd_sub_group_size = match r.u8()? {
            0 => None,
            _ => match r.u32()? {
                n if crate::ir::SUB_GROUP_SIZES.contains(&n) => Some(n),
                n => return Err(err(format!("kernel `{name}`: a sub-group size of {n}"))),
            },
        };
        let vec_type_hint = match r.u8()? {
            0 => None,
            _ => Some(r.str()?),
        };
        let (local_static_size, private_size) = (r.u32()?, r.u32()?);
        let barriers = r.u8()? != 0;
        let effects = r.u8()? != 0;
        let align = r.u64()?;
        let code = r.bytes()?.to_vec();
        let nr = r.count(1 << 20)?;
        let mut relocs = Vec::with_capacity(nr);
        for _ in 0..nr {
            let offset = r.u32()?;
            let kind = r.u8()?;
            let tag = r.u8()?;
            let s = r.str()?;
            let target = match tag {
                0 => Target::Symbol(s),
                1 => Target::LibCall(s),
                t => return Err(err(format!("relocation target kind {t}"))),
            };
            let addend = r.u64()? as i64;
            relocs.push(RelocImage {
                offset,
                kind,
                target,
                addend,
            });
        }
        infos.push(KernelInfo {
            name,
            args,
            args_size,
            reqd_work_group_size: reqd,
            work_group_size_hint: hint,
            vec_type_hint,
            reqd_sub_group_size,
            local_static_size,
            private_size,
            barriers,
            effects,
        });
        images.push(FuncImage {
            align,
            bytes: code,
            relocs,
        });
    }
    let nr = r.count(1 << 24)?;
    let mut data_relocs = Vec::with_capacity(nr);
    for _ in 0..nr {
        let off = r.u32()?;
        if u64::from(off) + 8 > init.len() as u64 {
            return Err(err("a data relocation outside the data"));
        }
        data_relocs.push(off);
    }
    let nf = r.count(1 << 20)?;
    let mut functions = Vec::with_capacity(nf);
    for _ in 0..nf {
        let name = r.str()?;
        let off = r.u64()?;
        if off >= init.len() as u64 {
            return Err(err(format!("function `{name}` outside the data")));
        }
        functions.push((name, off as usize));
    }
    if !r.0.is_empty() {
        return Err(err("bytes after the function pointers"));
    }
    let mut data: Box<[u64]> = {
        let mut d = vec![0u64; init.len().div_ceil(8)];
        for (i, b) in init.iter().enumerate() {
            d[i / 8] |= u64::from(*b) << (8 * (i % 8));
        }
        d.into_boxed_slice()
    };
    let base = data.as_ptr() as usize;
    crate::frontend::fnptr::relocate(&mut data, &data_relocs, base as u64);
    let code = jit::load(&images, &(triple, features), base).map_err(|e| err(e.to_string()))?;
    let globals = globals.into_iter().map(|(n, o, s)| (n, base + o, s)).collect();
    let functions = functions.into_iter().map(|(n, o)| (n, base + o)).collect();
    Program::assemble(infos, code, (data, init, data_relocs), (globals, functions), None)
        .map_err(|e| err(e.to_string()))
}
