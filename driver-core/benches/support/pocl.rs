//! The yardstick: PoCL (Debian's `pocl-opencl-icd`) through the OpenCL ICD loader
//! (`libOpenCL.so.1`, loaded at run time with `libloading`, so the bench builds without it).
//! Only what the comparisons need: a context and an in-order queue on PoCL's CPU device, two
//! buffers, `clEnqueueCopyBuffer` and `clFinish`.

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

type GetPlatformIds = unsafe extern "C" fn(ClUint, *mut Handle, *mut ClUint) -> ClInt;
type GetPlatformInfo = unsafe extern "C" fn(Handle, ClUint, usize, *mut c_void, *mut usize) -> ClInt;
type GetDeviceIds = unsafe extern "C" fn(Handle, u64, ClUint, *mut Handle, *mut ClUint) -> ClInt;
type CreateContext =
    unsafe extern "C" fn(*const isize, ClUint, *const Handle, *const c_void, *mut c_void, *mut ClInt) -> Handle;
type CreateCommandQueue = unsafe extern "C" fn(Handle, Handle, u64, *mut ClInt) -> Handle;
type CreateBuffer = unsafe extern "C" fn(Handle, u64, usize, *mut c_void, *mut ClInt) -> Handle;
type EnqueueCopyBuffer =
    unsafe extern "C" fn(Handle, Handle, Handle, usize, usize, usize, ClUint, *const Handle, *mut Handle) -> ClInt;
type Finish = unsafe extern "C" fn(Handle) -> ClInt;
type Release = unsafe extern "C" fn(Handle) -> ClInt;

/// PoCL's CPU device, a queue on it and two buffers.
pub struct Pocl {
    _lib: Library,
    copy: EnqueueCopyBuffer,
    finish: Finish,
    release_mem: Release,
    release_queue: Release,
    release_context: Release,
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

impl Pocl {
    /// Opens the OpenCL loader and finds the PoCL platform; `size`-byte buffers.
    pub fn open(size: usize) -> Result<Pocl, String> {
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

            let mut n = 0;
            check("clGetPlatformIDs", get_platforms(0, null_mut(), &mut n))?;
            let mut platforms = vec![null_mut(); n as usize];
            check("clGetPlatformIDs", get_platforms(n, platforms.as_mut_ptr(), null_mut()))?;
            let platform = platforms
                .into_iter()
                .find(|&p| {
                    let mut name = [0 as c_char; 256];
                    platform_info(p, CL_PLATFORM_NAME, name.len(), name.as_mut_ptr().cast(), null_mut()) == CL_SUCCESS
                        && std::ffi::CStr::from_ptr(name.as_ptr()).to_string_lossy().contains("Portable Computing Language")
                })
                .ok_or("no PoCL platform (apt-get install pocl-opencl-icd)")?;
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
            Ok(Pocl { _lib: lib, copy, finish, release_mem, release_queue, release_context, context, queue, src, dst })
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

impl Drop for Pocl {
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
