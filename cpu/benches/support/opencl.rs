//! The yardsticks: an OpenCL CPU device, PoCL's (Debian's `pocl-opencl-icd`) or Intel's
//! (PyPI `intel-opencl-rt`), through the OpenCL ICD loader (`libOpenCL.so.1`, loaded at run
//! time with `libloading`, so the bench builds without it). Only what the comparisons need: a
//! context and an in-order queue on the platform's device, two buffers, `clEnqueueCopyBuffer`,
//! `clEnqueueFillBuffer`, `clEnqueueReadBuffer`, `clEnqueueWriteBuffer` and `clFinish`; programs
//! from LLVM bitcode (`clCreateProgramWithBinary`, PoCL) or from SPIR-V
//! (`clCreateProgramWithIL`, Intel) and `clBuildProgram`; kernels, their arguments and
//! `clEnqueueNDRangeKernel`.
// Each bench target uses part of it.
#![allow(dead_code)]

use std::ffi::{c_char, c_void};
use std::ptr::null_mut;

use libloading::{Library, Symbol};

type ClInt = i32;
type ClUint = u32;
type Handle = *mut c_void;

const CL_SUCCESS: ClInt = 0;
const CL_PLATFORM_NAME: ClUint = 0x0902;
const CL_DEVICE_TYPE_ALL: u64 = 0xFFFF_FFFF;
const CL_MEM_READ_WRITE: u64 = 1;
const CL_PROGRAM_BUILD_LOG: ClUint = 0x1183;

type GetPlatformIds = unsafe extern "C" fn(ClUint, *mut Handle, *mut ClUint) -> ClInt;
type GetPlatformInfo = unsafe extern "C" fn(Handle, ClUint, usize, *mut c_void, *mut usize) -> ClInt;
type GetDeviceIds = unsafe extern "C" fn(Handle, u64, ClUint, *mut Handle, *mut ClUint) -> ClInt;
type CreateContext =
    unsafe extern "C" fn(*const isize, ClUint, *const Handle, *const c_void, *mut c_void, *mut ClInt) -> Handle;
type CreateCommandQueue = unsafe extern "C" fn(Handle, Handle, u64, *mut ClInt) -> Handle;
type CreateBuffer = unsafe extern "C" fn(Handle, u64, usize, *mut c_void, *mut ClInt) -> Handle;
type EnqueueCopyBuffer =
    unsafe extern "C" fn(Handle, Handle, Handle, usize, usize, usize, ClUint, *const Handle, *mut Handle) -> ClInt;
type EnqueueFillBuffer =
    unsafe extern "C" fn(Handle, Handle, *const c_void, usize, usize, usize, ClUint, *const Handle, *mut Handle) -> ClInt;
type EnqueueReadBuffer = unsafe extern "C" fn(
    Handle,
    Handle,
    ClUint,
    usize,
    usize,
    *mut c_void,
    ClUint,
    *const Handle,
    *mut Handle,
) -> ClInt;
type Finish = unsafe extern "C" fn(Handle) -> ClInt;
type Release = unsafe extern "C" fn(Handle) -> ClInt;
type CreateProgramWithBinary = unsafe extern "C" fn(
    Handle,
    ClUint,
    *const Handle,
    *const usize,
    *const *const u8,
    *mut ClInt,
    *mut ClInt,
) -> Handle;
type CreateProgramWithIl = unsafe extern "C" fn(Handle, *const c_void, usize, *mut ClInt) -> Handle;
type BuildProgram =
    unsafe extern "C" fn(Handle, ClUint, *const Handle, *const c_char, *mut c_void, *mut c_void) -> ClInt;
type GetProgramBuildInfo = unsafe extern "C" fn(Handle, Handle, ClUint, usize, *mut c_void, *mut usize) -> ClInt;
type CreateKernel = unsafe extern "C" fn(Handle, *const c_char, *mut ClInt) -> Handle;
type SetKernelArg = unsafe extern "C" fn(Handle, ClUint, usize, *const c_void) -> ClInt;
type EnqueueNdRangeKernel = unsafe extern "C" fn(
    Handle,
    Handle,
    ClUint,
    *const usize,
    *const usize,
    *const usize,
    ClUint,
    *const Handle,
    *mut Handle,
) -> ClInt;

/// The program and kernel entry points.
struct Programs {
    create_buffer: CreateBuffer,
    fill: EnqueueFillBuffer,
    read: EnqueueReadBuffer,
    create_with_binary: CreateProgramWithBinary,
    /// OpenCL 2.1's; `None` where the ICD loader predates it.
    create_with_il: Option<CreateProgramWithIl>,
    write: EnqueueReadBuffer,
    build: BuildProgram,
    build_info: GetProgramBuildInfo,
    create_kernel: CreateKernel,
    set_arg: SetKernelArg,
    enqueue: EnqueueNdRangeKernel,
    release_program: Release,
    release_kernel: Release,
}

/// A built program (released on drop).
pub struct Program<'a> {
    cl: &'a Cl,
    handle: Handle,
}

/// A kernel of a [`Program`] (released on drop).
pub struct Kernel<'a> {
    cl: &'a Cl,
    handle: Handle,
}

/// A buffer of the context (released on drop).
pub struct Buffer<'a> {
    cl: &'a Cl,
    /// The `cl_mem`, to pass as a kernel argument.
    pub mem: Handle,
}

/// The platforms the benches compare with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vendor {
    /// PoCL 3.1, Debian's `pocl-opencl-icd` (takes LLVM bitcode).
    Pocl,
    /// Intel's OpenCL CPU runtime, PyPI `intel-opencl-rt` (takes SPIR-V).
    Intel,
}

impl Vendor {
    /// What its platform's `CL_PLATFORM_NAME` contains.
    fn platform(self) -> &'static str {
        match self {
            Vendor::Pocl => "Portable Computing Language",
            Vendor::Intel => "Intel(R) OpenCL",
        }
    }

    /// How to get it, for the message when it is missing.
    fn hint(self) -> &'static str {
        match self {
            Vendor::Pocl => "apt-get install pocl-opencl-icd",
            Vendor::Intel => "`cargo xtask bench` installs PyPI intel-opencl-rt into target/zekit-deps/sycl-venv",
        }
    }

    /// Its name in the benches' tables.
    pub fn name(self) -> &'static str {
        match self {
            Vendor::Pocl => "PoCL",
            Vendor::Intel => "Intel",
        }
    }
}

/// An OpenCL platform's CPU device, a queue on it and two buffers.
pub struct Cl {
    _lib: Library,
    /// Whose platform this is.
    pub vendor: Vendor,
    copy: EnqueueCopyBuffer,
    finish: Finish,
    release_mem: Release,
    release_queue: Release,
    release_context: Release,
    programs: Programs,
    device: Handle,
    context: Handle,
    queue: Handle,
    src: Handle,
    dst: Handle,
}

fn check(what: &str, r: ClInt) -> Result<(), String> {
    if r == CL_SUCCESS {
        Ok(())
    } else {
        Err(format!("{what} returned {r}"))
    }
}

impl Cl {
    /// Opens the OpenCL loader and finds `vendor`'s platform; `size`-byte buffers.
    pub fn open(vendor: Vendor, size: usize) -> Result<Cl, String> {
        // SAFETY: loading the system's OpenCL ICD loader runs its initializers, as any OpenCL
        // program does.
        let lib = unsafe { Library::new("libOpenCL.so.1") }.map_err(|e| format!("libOpenCL.so.1: {e}"))?;
        // SAFETY: each symbol is looked up with the signature the OpenCL 1.2 headers declare.
        unsafe {
            let sym = |name: &[u8]| -> Result<*mut c_void, String> {
                let s: Symbol<*mut c_void> =
                    lib.get(name).map_err(|e| format!("{}: {e}", String::from_utf8_lossy(name)))?;
                Ok(*s)
            };
            let get_platforms: GetPlatformIds = std::mem::transmute(sym(b"clGetPlatformIDs\0")?);
            let platform_info: GetPlatformInfo = std::mem::transmute(sym(b"clGetPlatformInfo\0")?);
            let get_devices: GetDeviceIds = std::mem::transmute(sym(b"clGetDeviceIDs\0")?);
            let create_context: CreateContext = std::mem::transmute(sym(b"clCreateContext\0")?);
            let create_queue: CreateCommandQueue = std::mem::transmute(sym(b"clCreateCommandQueue\0")?);
            let create_buffer: CreateBuffer = std::mem::transmute(sym(b"clCreateBuffer\0")?);
            let copy: EnqueueCopyBuffer = std::mem::transmute(sym(b"clEnqueueCopyBuffer\0")?);
            let finish: Finish = std::mem::transmute(sym(b"clFinish\0")?);
            let release_mem: Release = std::mem::transmute(sym(b"clReleaseMemObject\0")?);
            let release_queue: Release = std::mem::transmute(sym(b"clReleaseCommandQueue\0")?);
            let release_context: Release = std::mem::transmute(sym(b"clReleaseContext\0")?);
            let programs = Programs {
                create_buffer,
                fill: std::mem::transmute::<*mut c_void, EnqueueFillBuffer>(sym(b"clEnqueueFillBuffer\0")?),
                read: std::mem::transmute::<*mut c_void, EnqueueReadBuffer>(sym(b"clEnqueueReadBuffer\0")?),
                create_with_binary: std::mem::transmute::<*mut c_void, CreateProgramWithBinary>(sym(
                    b"clCreateProgramWithBinary\0",
                )?),
                create_with_il: sym(b"clCreateProgramWithIL\0")
                    .ok()
                    .map(|p| std::mem::transmute::<*mut c_void, CreateProgramWithIl>(p)),
                write: std::mem::transmute::<*mut c_void, EnqueueReadBuffer>(sym(b"clEnqueueWriteBuffer\0")?),
                build: std::mem::transmute::<*mut c_void, BuildProgram>(sym(b"clBuildProgram\0")?),
                build_info: std::mem::transmute::<*mut c_void, GetProgramBuildInfo>(sym(b"clGetProgramBuildInfo\0")?),
                create_kernel: std::mem::transmute::<*mut c_void, CreateKernel>(sym(b"clCreateKernel\0")?),
                set_arg: std::mem::transmute::<*mut c_void, SetKernelArg>(sym(b"clSetKernelArg\0")?),
                enqueue: std::mem::transmute::<*mut c_void, EnqueueNdRangeKernel>(sym(b"clEnqueueNDRangeKernel\0")?),
                release_program: std::mem::transmute::<*mut c_void, Release>(sym(b"clReleaseProgram\0")?),
                release_kernel: std::mem::transmute::<*mut c_void, Release>(sym(b"clReleaseKernel\0")?),
            };

            let mut n = 0;
            check("clGetPlatformIDs", get_platforms(0, null_mut(), &mut n))?;
            let mut platforms = vec![null_mut(); n as usize];
            check("clGetPlatformIDs", get_platforms(n, platforms.as_mut_ptr(), null_mut()))?;
            let platform = platforms
                .into_iter()
                .find(|&p| {
                    let mut name = [0 as c_char; 256];
                    platform_info(p, CL_PLATFORM_NAME, name.len(), name.as_mut_ptr().cast(), null_mut()) == CL_SUCCESS
                        && std::ffi::CStr::from_ptr(name.as_ptr())
                            .to_string_lossy()
                            .contains(vendor.platform())
                })
                .ok_or_else(|| format!("no {} platform ({})", vendor.platform(), vendor.hint()))?;
            let mut device = null_mut();
            check("clGetDeviceIDs", get_devices(platform, CL_DEVICE_TYPE_ALL, 1, &mut device, null_mut()))?;
            let mut err = 0;
            let context = create_context(std::ptr::null(), 1, &device, std::ptr::null(), null_mut(), &mut err);
            check("clCreateContext", err)?;
            let queue = create_queue(context, device, 0, &mut err);
            check("clCreateCommandQueue", err)?;
            let src = create_buffer(context, CL_MEM_READ_WRITE, size, null_mut(), &mut err);
            check("clCreateBuffer", err)?;
            let dst = create_buffer(context, CL_MEM_READ_WRITE, size, null_mut(), &mut err);
            check("clCreateBuffer", err)?;
            Ok(Cl {
                _lib: lib,
                vendor,
                copy,
                finish,
                release_mem,
                release_queue,
                release_context,
                programs,
                device,
                context,
                queue,
                src,
                dst,
            })
        }
    }

    /// `clEnqueueCopyBuffer` of `size` bytes and `clFinish`.
    pub fn copy_and_finish(&self, size: usize) {
        // SAFETY: a live queue and two live buffers of at least `size` bytes.
        unsafe {
            let r = (self.copy)(self.queue, self.src, self.dst, 0, 0, size, 0, std::ptr::null(), null_mut());
            assert_eq!(r, CL_SUCCESS, "clEnqueueCopyBuffer");
            assert_eq!((self.finish)(self.queue), CL_SUCCESS, "clFinish");
        }
    }
}

impl Cl {
    /// `clCreateProgramWithBinary` of LLVM bitcode (SPIR, from `llvm-spirv -r`) and
    /// `clBuildProgram`; the build log in the error.
    pub fn build(&self, bitcode: &[u8]) -> Result<Program<'_>, String> {
        let (mut status, mut err) = (0, 0);
        let ptr = bitcode.as_ptr();
        // SAFETY: live context and device; the binary outlives the call.
        let handle = unsafe {
            (self.programs.create_with_binary)(self.context, 1, &self.device, &bitcode.len(), &ptr, &mut status, &mut err)
        };
        check("clCreateProgramWithBinary", err)?;
        self.finish_build(Program { cl: self, handle })
    }

    /// `clCreateProgramWithIL` of SPIR-V and `clBuildProgram`; the build log in the error.
    pub fn build_il(&self, spirv: &[u8]) -> Result<Program<'_>, String> {
        let create = self.programs.create_with_il.ok_or("the OpenCL ICD loader has no clCreateProgramWithIL")?;
        let mut err = 0;
        // SAFETY: live context; the SPIR-V outlives the call (OpenCL copies it).
        let handle = unsafe { create(self.context, spirv.as_ptr().cast(), spirv.len(), &mut err) };
        check("clCreateProgramWithIL", err)?;
        self.finish_build(Program { cl: self, handle })
    }

    /// `clBuildProgram` of a created program (released on failure); the build log in the error.
    fn finish_build<'a>(&'a self, program: Program<'a>) -> Result<Program<'a>, String> {
        let p = &self.programs;
        // SAFETY: a live program of this context, for this context's device.
        unsafe {
            let r = (p.build)(program.handle, 1, &self.device, c"".as_ptr(), null_mut(), null_mut());
            if r != CL_SUCCESS {
                let mut log = vec![0u8; 16384];
                (p.build_info)(
                    program.handle,
                    self.device,
                    CL_PROGRAM_BUILD_LOG,
                    log.len(),
                    log.as_mut_ptr().cast(),
                    null_mut(),
                );
                let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
                return Err(format!("clBuildProgram returned {r}: {}", String::from_utf8_lossy(&log[..end])));
            }
        }
        Ok(program)
    }

    /// A read-write buffer of `size` bytes.
    pub fn buffer(&self, size: usize) -> Result<Buffer<'_>, String> {
        let mut err = 0;
        // SAFETY: live context, no host pointer.
        let mem = unsafe { (self.programs.create_buffer)(self.context, CL_MEM_READ_WRITE, size, null_mut(), &mut err) };
        check("clCreateBuffer", err)?;
        Ok(Buffer { cl: self, mem })
    }

    /// Every byte of `b` set to `byte` (`clEnqueueFillBuffer` + `clFinish`), so that its pages
    /// are the buffer's own: a buffer only ever read maps the kernel's shared zero page, and
    /// reading it costs no memory traffic.
    pub fn fill(&self, b: &Buffer<'_>, byte: u8, size: usize) {
        // SAFETY: a live queue and buffer of at least `size` bytes; OpenCL copies the pattern.
        let r = unsafe {
            (self.programs.fill)(self.queue, b.mem, (&byte as *const u8).cast(), 1, 0, size, 0, std::ptr::null(), null_mut())
        };
        assert_eq!(r, CL_SUCCESS, "clEnqueueFillBuffer");
        self.finish();
    }

    /// The first `out.len()` bytes of `b` (a blocking `clEnqueueReadBuffer`).
    pub fn read(&self, b: &Buffer<'_>, out: &mut [u8]) {
        // SAFETY: a live queue and buffer of at least `out.len()` bytes; the read blocks until
        // `out` is written.
        let r = unsafe {
            (self.programs.read)(self.queue, b.mem, 1, 0, out.len(), out.as_mut_ptr().cast(), 0, std::ptr::null(), null_mut())
        };
        assert_eq!(r, CL_SUCCESS, "clEnqueueReadBuffer");
    }

    /// `bytes` into the start of `b` (a blocking `clEnqueueWriteBuffer`).
    pub fn write(&self, b: &Buffer<'_>, bytes: &[u8]) {
        // SAFETY: a live queue and buffer of at least `bytes.len()` bytes; the write blocks
        // until `bytes` is read.
        let r = unsafe {
            (self.programs.write)(self.queue, b.mem, 1, 0, bytes.len(), bytes.as_ptr().cast_mut().cast(), 0, std::ptr::null(), null_mut())
        };
        assert_eq!(r, CL_SUCCESS, "clEnqueueWriteBuffer");
    }

    /// `clEnqueueNDRangeKernel` over `global` work-items in groups of `local` (1D; `None`
    /// lets the platform choose), without waiting.
    pub fn enqueue(&self, k: &Kernel<'_>, global: usize, local: Option<usize>) {
        let local = local.as_ref().map_or(std::ptr::null(), |l| l as *const usize);
        // SAFETY: live queue and kernel whose arguments are all set.
        let r = unsafe {
            (self.programs.enqueue)(
                self.queue,
                k.handle,
                1,
                std::ptr::null(),
                &global,
                local,
                0,
                std::ptr::null(),
                null_mut(),
            )
        };
        assert_eq!(r, CL_SUCCESS, "clEnqueueNDRangeKernel");
    }

    /// [`Cl::enqueue`] of `global` work-items in groups of `local`, then [`Cl::finish`];
    /// seconds.
    pub fn launch_and_wait(&self, k: &Kernel<'_>, global: usize, local: usize) -> f64 {
        let t = std::time::Instant::now();
        self.enqueue(k, global, Some(local));
        self.finish();
        t.elapsed().as_secs_f64()
    }

    /// `clFinish`.
    pub fn finish(&self) {
        // SAFETY: a live queue.
        assert_eq!(unsafe { (self.finish)(self.queue) }, CL_SUCCESS, "clFinish");
    }
}

impl<'a> Program<'a> {
    /// `clCreateKernel`.
    pub fn kernel(&self, name: &str) -> Result<Kernel<'a>, String> {
        let name = std::ffi::CString::new(name).map_err(|e| e.to_string())?;
        let mut err = 0;
        // SAFETY: a built program and a NUL-terminated name.
        let handle = unsafe { (self.cl.programs.create_kernel)(self.handle, name.as_ptr(), &mut err) };
        check("clCreateKernel", err)?;
        Ok(Kernel { cl: self.cl, handle })
    }
}

impl Kernel<'_> {
    /// `clSetKernelArg` of a local argument of `size` bytes.
    pub fn local(&self, i: u32, size: usize) {
        // SAFETY: a local argument takes a size and no value.
        let r = unsafe { (self.cl.programs.set_arg)(self.handle, i, size, std::ptr::null()) };
        assert_eq!(r, CL_SUCCESS, "clSetKernelArg {i} (local)");
    }

    /// `clSetKernelArg` with the bytes of `v` (a `cl_mem` for buffers, a scalar otherwise).
    pub fn arg<T>(&self, i: u32, v: &T) {
        // SAFETY: `v` is `size_of::<T>()` readable bytes.
        let r = unsafe { (self.cl.programs.set_arg)(self.handle, i, std::mem::size_of::<T>(), (v as *const T).cast()) };
        assert_eq!(r, CL_SUCCESS, "clSetKernelArg {i}");
    }
}

impl Drop for Program<'_> {
    fn drop(&mut self) {
        // SAFETY: made by `build`, released once.
        unsafe { (self.cl.programs.release_program)(self.handle) };
    }
}

impl Drop for Kernel<'_> {
    fn drop(&mut self) {
        // SAFETY: made by `kernel`, released once.
        unsafe { (self.cl.programs.release_kernel)(self.handle) };
    }
}

impl Drop for Buffer<'_> {
    fn drop(&mut self) {
        // SAFETY: made by `buffer`, released once (after `finish` by the benches).
        unsafe { (self.cl.release_mem)(self.mem) };
    }
}

impl Drop for Cl {
    fn drop(&mut self) {
        // SAFETY: objects made in `open`, idle after `clFinish`, released once.
        unsafe {
            (self.release_mem)(self.src);
            (self.release_mem)(self.dst);
            (self.release_queue)(self.queue);
            (self.release_context)(self.context);
        }
    }
}
