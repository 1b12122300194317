//! External memory in process through the C entry points: allocations exported as `OPAQUE_FD`
//! (`ze_external_memory_export_desc_t` at allocation, `ze_external_memory_export_fd_t` on
//! `zeMemGetAllocProperties`) and fds imported (`ze_external_memory_import_fd_t`), checked by
//! mapping the fds in the test; the refusals; `zeDeviceGetExternalMemoryProperties`. Between
//! processes: `tests/c/external_memory.c` through the loader (`tests/loader.rs`).
#![allow(clippy::macro_metavars_in_unsafe)]

mod zeh;

use std::ffi::c_void;
use std::ptr::null_mut;

use zeh::*;

const OPAQUE_FD: ze_external_memory_type_flags_t = ze_external_memory_type_flags_t::OPAQUE_FD;
const DMA_BUF: ze_external_memory_type_flags_t = ze_external_memory_type_flags_t::DMA_BUF;

/// A device allocation of `size` bytes, with an export descriptor of `flags` chained.
fn exportable(z: &Ze, size: usize, flags: ze_external_memory_type_flags_t) -> (ze_result_t, *mut u8) {
    let export = ze_external_memory_export_desc_t {
        flags,
        ..Default::default()
    };
    let desc = ze_device_mem_alloc_desc_t {
        pNext: (&export as *const ze_external_memory_export_desc_t).cast(),
        ..Default::default()
    };
    let mut p = null_mut();
    // SAFETY: valid descriptors and out-pointer.
    let r = unsafe { ze::zeMemAllocDevice(z.ctx, &desc, size, 0, z.dev, &mut p) };
    (r, p.cast())
}

/// `zeMemGetAllocProperties` with `ze_external_memory_export_fd_t` of `flags`: the result and fd.
fn export_fd(z: &Ze, ptr: *const u8, flags: ze_external_memory_type_flags_t) -> (ze_result_t, i32) {
    let mut out = ze_external_memory_export_fd_t {
        flags,
        fd: -1,
        ..Default::default()
    };
    let mut props = ze_memory_allocation_properties_t {
        pNext: (&mut out as *mut ze_external_memory_export_fd_t).cast(),
        ..Default::default()
    };
    // SAFETY: valid out-structures; phDevice may be null.
    let r = unsafe { ze::zeMemGetAllocProperties(z.ctx, ptr.cast(), &mut props, null_mut()) };
    (r, out.fd)
}

/// A host allocation of `size` bytes importing `fd` with `flags` (and a shared one when
/// `shared`: the import descriptor chained to its host descriptor).
fn import(
    z: &Ze,
    ctx: ze_context_handle_t,
    size: usize,
    flags: ze_external_memory_type_flags_t,
    fd: i32,
) -> (ze_result_t, *mut u8) {
    let imp = ze_external_memory_import_fd_t {
        flags,
        fd,
        ..Default::default()
    };
    let desc = ze_host_mem_alloc_desc_t {
        pNext: (&imp as *const ze_external_memory_import_fd_t).cast(),
        ..Default::default()
    };
    let _ = z;
    let mut p = null_mut();
    // SAFETY: valid descriptors and out-pointer.
    let r = unsafe { ze::zeMemAllocHost(ctx, &desc, size, 0, &mut p) };
    (r, p.cast())
}

/// Maps `len` bytes of `fd` shared and writable.
fn map(fd: i32, len: usize) -> *mut u8 {
    // SAFETY: a fresh mapping chosen by the kernel.
    let p = unsafe {
        libc::mmap(null_mut(), len, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_SHARED, fd, 0)
    };
    assert_ne!(p, libc::MAP_FAILED, "mmap: {}", std::io::Error::last_os_error());
    p.cast()
}

fn memfd(len: usize) -> i32 {
    // SAFETY: a literal name; the fd is the test's.
    let fd = unsafe { libc::memfd_create(c"ext".as_ptr(), libc::MFD_CLOEXEC) };
    assert!(fd >= 0);
    // SAFETY: our fd.
    assert_eq!(unsafe { libc::ftruncate(fd, len as libc::off_t) }, 0);
    fd
}

fn is_open(fd: i32) -> bool {
    // SAFETY: F_GETFD only reads the descriptor's flags.
    unsafe { libc::fcntl(fd, libc::F_GETFD) >= 0 }
}

fn close(fd: i32) {
    // SAFETY: an fd the test owns.
    assert_eq!(unsafe { libc::close(fd) }, 0);
}

/// Whether `/dev/udmabuf` opens here and makes a dma-buf of a one-page sealed memfd (probed
/// here on its own): the driver's condition for `DMA_BUF` export.
fn udmabuf() -> bool {
    use std::os::fd::AsRawFd;
    #[repr(C)]
    struct UdmabufCreate {
        memfd: u32,
        flags: u32,
        offset: u64,
        size: u64,
    }
    let Ok(dev) = std::fs::OpenOptions::new().read(true).write(true).open("/dev/udmabuf") else {
        return false;
    };
    // SAFETY: page size query; a memfd the test owns, sized, sealed and closed here; the ioctl
    // reads a `struct udmabuf_create` (u32 memfd, u32 flags, u64 offset, u64 size).
    unsafe {
        let page = libc::sysconf(libc::_SC_PAGESIZE) as u64;
        let fd = libc::memfd_create(c"probe".as_ptr(), libc::MFD_CLOEXEC | libc::MFD_ALLOW_SEALING);
        assert!(fd >= 0);
        assert_eq!(libc::ftruncate(fd, page as libc::off_t), 0);
        assert_eq!(libc::fcntl(fd, libc::F_ADD_SEALS, libc::F_SEAL_SHRINK), 0);
        let arg = UdmabufCreate { memfd: fd as u32, flags: 1, offset: 0, size: page };
        let buf = libc::ioctl(dev.as_raw_fd(), 0x4018_7542, &arg);
        libc::close(fd);
        if buf < 0 {
            return false;
        }
        libc::close(buf);
    }
    true
}

fn page_up(n: usize) -> usize {
    // SAFETY: sysconf only reads a system value.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize;
    n.div_ceil(page) * page
}

#[test]
fn device_reports_opaque_fd_for_allocations_only() {
    let z = Ze::new();
    let mut e = ze_device_external_memory_properties_t::default();
    ok!(ze::zeDeviceGetExternalMemoryProperties(z.dev, &mut e));
    assert_eq!(e.memoryAllocationImportTypes, OPAQUE_FD);
    let export = if udmabuf() { OPAQUE_FD | DMA_BUF } else { OPAQUE_FD };
    assert_eq!(e.memoryAllocationExportTypes, export, "DMA_BUF exactly where /dev/udmabuf opens");
    assert!(e.imageImportTypes.is_empty() && e.imageExportTypes.is_empty());
}

/// `DMA_BUF` export: where `/dev/udmabuf` opens, a dma-buf that maps the allocation's bytes
/// (both ways); elsewhere `UNSUPPORTED_ENUMERATION` and no `DMA_BUF` in the properties.
#[test]
fn dma_buf_export_exactly_where_udmabuf_opens() {
    let z = Ze::new();
    let mut e = ze_device_external_memory_properties_t::default();
    ok!(ze::zeDeviceGetExternalMemoryProperties(z.dev, &mut e));
    if udmabuf() {
        assert!(e.memoryAllocationExportTypes.intersects(DMA_BUF));
        for (size, types) in [(1usize, DMA_BUF), (4096, DMA_BUF), (3 * 4096 + 7, OPAQUE_FD | DMA_BUF)] {
            let (r, p) = exportable(&z, size, types);
            assert_eq!(r, ZE_RESULT_SUCCESS, "{}", last_error());
            // SAFETY: `size` bytes of the allocation.
            let a = unsafe { std::slice::from_raw_parts_mut(p, size) };
            a.iter_mut().enumerate().for_each(|(i, b)| *b = (i % 241) as u8);
            let (r, fd) = export_fd(&z, p.wrapping_add(size / 2), DMA_BUF);
            assert_eq!(r, ZE_RESULT_SUCCESS, "{}", last_error());
            assert!(fd >= 0);
            // SAFETY: an all-zero `stat` is a valid value to be overwritten.
            let mut st: libc::stat = unsafe { std::mem::zeroed() };
            // SAFETY: fstat of the exported fd into `st`.
            assert_eq!(unsafe { libc::fstat(fd, &mut st) }, 0);
            // SAFETY: F_GETFD only reads the descriptor's flags.
            assert_ne!(unsafe { libc::fcntl(fd, libc::F_GETFD) } & libc::FD_CLOEXEC, 0);
            let len = page_up(size);
            let m = map(fd, len);
            // SAFETY: `len >= size` bytes of the dma-buf, mapped.
            let b = unsafe { std::slice::from_raw_parts_mut(m, size) };
            assert_eq!(b, &a[..], "the dma-buf shows the allocation's bytes");
            b[0] = 0xab;
            assert_eq!(a[0], 0xab, "a write through the dma-buf reaches the allocation");
            // SAFETY: the mapping made above.
            assert_eq!(unsafe { libc::munmap(m.cast(), len) }, 0);
            close(fd);
            if types.intersects(OPAQUE_FD) {
                let (r, fd) = export_fd(&z, p, OPAQUE_FD);
                assert_eq!(r, ZE_RESULT_SUCCESS, "{}", last_error());
                close(fd);
            }
            ok!(ze::zeMemFree(z.ctx, p.cast()));
        }
        // An allocation exportable as OPAQUE_FD only is not a dma-buf.
        let (_, p) = exportable(&z, 64, OPAQUE_FD);
        let (r, _) = export_fd(&z, p, DMA_BUF);
        assert_eq!(r, ZE_RESULT_ERROR_INVALID_ARGUMENT);
        ok!(ze::zeMemFree(z.ctx, p.cast()));
    } else {
        assert!(!e.memoryAllocationExportTypes.intersects(DMA_BUF), "no /dev/udmabuf: no DMA_BUF");
        for types in [DMA_BUF, OPAQUE_FD | DMA_BUF] {
            let (r, _) = exportable(&z, 4096, types);
            assert_eq!(r, ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION, "{types:?}");
            assert!(last_error().contains("/dev/udmabuf"), "{}", last_error());
        }
        let (_, p) = exportable(&z, 64, OPAQUE_FD);
        let (r, _) = export_fd(&z, p, DMA_BUF);
        assert_eq!(r, ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION);
        ok!(ze::zeMemFree(z.ctx, p.cast()));
    }
}

#[test]
fn exported_fd_aliases_the_allocation() {
    let z = Ze::new();
    for size in [1usize, 4096, 3 * 4096 + 7, 1 << 20] {
        let (r, p) = exportable(&z, size, OPAQUE_FD);
        assert_eq!(r, ZE_RESULT_SUCCESS, "{}", last_error());
        // SAFETY: `size` bytes of the allocation.
        let a = unsafe { std::slice::from_raw_parts_mut(p, size) };
        a.iter_mut().enumerate().for_each(|(i, b)| *b = (i % 251) as u8);
        // An interior pointer names its allocation too.
        let (r, fd) = export_fd(&z, p.wrapping_add(size / 2), OPAQUE_FD);
        assert_eq!(r, ZE_RESULT_SUCCESS, "{}", last_error());
        assert!(fd >= 0);
        // SAFETY: an all-zero `stat` is a valid value to be overwritten.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: fstat of the exported fd into `st`.
        assert_eq!(unsafe { libc::fstat(fd, &mut st) }, 0);
        assert!(st.st_size as usize >= size);
        let m = map(fd, size);
        // SAFETY: `size` mapped bytes.
        let b = unsafe { std::slice::from_raw_parts_mut(m, size) };
        assert_eq!(a, b);
        b[size - 1] = 0xa5;
        assert_eq!(a[size - 1], 0xa5, "a write through the fd reaches the allocation");
        // Each export is a new descriptor the caller owns.
        let (r, fd2) = export_fd(&z, p, OPAQUE_FD);
        assert_eq!(r, ZE_RESULT_SUCCESS);
        assert_ne!(fd, fd2);
        close(fd2);
        ok!(ze::zeMemFree(z.ctx, p.cast()));
        // The fd and its mapping outlive the allocation.
        assert!(is_open(fd));
        assert_eq!(b[size - 1], 0xa5);
        // SAFETY: the test's mapping.
        unsafe { libc::munmap(m.cast(), size) };
        close(fd);
    }
}

#[test]
fn imported_fd_is_shared_both_ways_and_stays_the_callers() {
    let z = Ze::new();
    let size = 2 * 4096 + 100;
    let fd = memfd(size);
    let m = map(fd, size);
    // SAFETY: `size` mapped bytes.
    let b = unsafe { std::slice::from_raw_parts_mut(m, size) };
    b.iter_mut().enumerate().for_each(|(i, x)| *x = (i % 13) as u8);
    let (r, p) = import(&z, z.ctx, size, OPAQUE_FD, fd);
    assert_eq!(r, ZE_RESULT_SUCCESS, "{}", last_error());
    // SAFETY: the imported allocation's `size` bytes.
    let a = unsafe { std::slice::from_raw_parts_mut(p, size) };
    assert_eq!(a, &b[..], "the import sees the file's bytes");
    a[5] = 200;
    assert_eq!(b[5], 200, "a write through the allocation reaches the file");
    // A smaller import of a larger file is fine.
    let (r, q) = import(&z, z.ctx, 10, OPAQUE_FD, fd);
    assert_eq!(r, ZE_RESULT_SUCCESS, "{}", last_error());
    // SAFETY: the second import's 10 bytes.
    assert_eq!(unsafe { *q.add(5) }, 200);
    // The allocation is a normal one of the context.
    let mut props = ze_memory_allocation_properties_t::default();
    ok!(ze::zeMemGetAllocProperties(z.ctx, p.cast(), &mut props, null_mut()));
    assert_eq!(props.r#type, ze_memory_type_t::HOST);
    // A copy on a queue moves the bytes into the file.
    let src = z.host(size);
    // SAFETY: `size` bytes of a host allocation.
    unsafe { std::ptr::write_bytes(src, 0x3c, size) };
    let l = z.immediate(0, ze_command_queue_mode_t::SYNCHRONOUS);
    ok!(ze::zeCommandListAppendMemoryCopy(l, p.cast(), src.cast(), size, null_mut(), 0, null_mut()));
    assert!(b.iter().all(|&x| x == 0x3c));
    // The driver took no ownership: the caller's fd stays open after the import and the free.
    assert!(is_open(fd));
    ok!(ze::zeMemFree(z.ctx, p.cast()));
    ok!(ze::zeMemFree(z.ctx, q.cast()));
    assert!(is_open(fd));
    ok!(ze::zeCommandListDestroy(l));
    // SAFETY: the test's mapping.
    unsafe { libc::munmap(m.cast(), size) };
    close(fd);
}

#[test]
fn export_then_import_in_another_context() {
    let z = Ze::new();
    let mut c2 = null_mut();
    ok!(ze::zeContextCreate(z.drv, &ze_context_desc_t::default(), &mut c2));
    let size = 5000;
    let (r, p) = exportable(&z, size, OPAQUE_FD);
    assert_eq!(r, ZE_RESULT_SUCCESS);
    let (r, fd) = export_fd(&z, p, OPAQUE_FD);
    assert_eq!(r, ZE_RESULT_SUCCESS);
    let (r, q) = import(&z, c2, size, OPAQUE_FD, fd);
    assert_eq!(r, ZE_RESULT_SUCCESS, "{}", last_error());
    close(fd);
    // SAFETY: `size` bytes of each allocation (the same memory).
    unsafe {
        *p.add(4999) = 7;
        assert_eq!(*q.add(4999), 7);
        *q = 9;
        assert_eq!(*p, 9);
    }
    // The exported fd is also what zeMemGetIpcHandleFromFileDescriptorExp takes.
    let (r, fd) = export_fd(&z, p, OPAQUE_FD);
    assert_eq!(r, ZE_RESULT_SUCCESS);
    let mut h = ze_ipc_mem_handle_t::default();
    ok!(ze::zeMemGetIpcHandleFromFileDescriptorExp(z.ctx, fd as u64, &mut h));
    let mut o: *mut c_void = null_mut();
    ok!(ze::zeMemOpenIpcHandle(c2, z.dev, h, ze_ipc_memory_flags_t(0), &mut o));
    // SAFETY: the opened handle maps the allocation's bytes.
    assert_eq!(unsafe { *o.cast::<u8>() }, 9);
    ok!(ze::zeMemCloseIpcHandle(c2, o));
    close(fd);
    ok!(ze::zeMemFree(c2, q.cast()));
    ok!(ze::zeMemFree(z.ctx, p.cast()));
    ok!(ze::zeContextDestroy(c2));
}

#[test]
fn refusals() {
    let z = Ze::new();
    // Export types: Win32 is known but not offered (DMA_BUF: see above); unknown bits are
    // invalid.
    let (r, _) = exportable(&z, 64, ze_external_memory_type_flags_t::OPAQUE_WIN32);
    assert_eq!(r, ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION);
    let (r, _) = exportable(&z, 64, ze_external_memory_type_flags_t(1 << 30));
    assert_eq!(r, ZE_RESULT_ERROR_INVALID_ENUMERATION);
    // Export flags 0: an ordinary allocation, not exportable.
    let (r, plain) = exportable(&z, 64, ze_external_memory_type_flags_t::empty());
    assert_eq!(r, ZE_RESULT_SUCCESS);
    let (r, fd) = export_fd(&z, plain, OPAQUE_FD);
    assert_eq!((r, fd), (ZE_RESULT_ERROR_INVALID_ARGUMENT, -1));
    assert!(last_error().contains("not made exportable"), "{}", last_error());
    // Exporting a pointer outside every allocation, or as another type.
    let (r, _) = export_fd(&z, 0x1000 as *const u8, OPAQUE_FD);
    assert_eq!(r, ZE_RESULT_ERROR_INVALID_ARGUMENT);
    let (_, p) = exportable(&z, 64, OPAQUE_FD);
    let (r, _) = export_fd(&z, p, ze_external_memory_type_flags_t::OPAQUE_WIN32);
    assert_eq!(r, ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION);
    let (r, _) = export_fd(&z, p, ze_external_memory_type_flags_t::empty());
    assert_eq!(r, ZE_RESULT_ERROR_INVALID_ENUMERATION);

    // Imports: bad, closed, non-file, too small and read-only descriptors.
    let (r, _) = import(&z, z.ctx, 64, OPAQUE_FD, -1);
    assert_eq!(r, ZE_RESULT_ERROR_INVALID_ARGUMENT);
    let closed = memfd(64);
    close(closed);
    let (r, _) = import(&z, z.ctx, 64, OPAQUE_FD, closed);
    assert_eq!(r, ZE_RESULT_ERROR_INVALID_ARGUMENT);
    let mut pipe = [0i32; 2];
    // SAFETY: a two-int out-array.
    assert_eq!(unsafe { libc::pipe(pipe.as_mut_ptr()) }, 0);
    let (r, _) = import(&z, z.ctx, 64, OPAQUE_FD, pipe[0]);
    assert_eq!(r, ZE_RESULT_ERROR_INVALID_ARGUMENT);
    assert!(last_error().contains("not a regular file"), "{}", last_error());
    close(pipe[0]);
    close(pipe[1]);
    let small = memfd(100);
    let (r, _) = import(&z, z.ctx, 101, OPAQUE_FD, small);
    assert_eq!(r, ZE_RESULT_ERROR_INVALID_ARGUMENT);
    assert!(last_error().contains("fewer than"), "{}", last_error());
    let path = std::ffi::CString::new(format!("/proc/self/fd/{small}")).unwrap();
    // SAFETY: a valid path; the fd is the test's.
    let ro = unsafe { libc::open(path.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC) };
    assert!(ro >= 0);
    let (r, _) = import(&z, z.ctx, 100, OPAQUE_FD, ro);
    assert_eq!(r, ZE_RESULT_ERROR_INVALID_ARGUMENT);
    assert!(last_error().contains("cannot be mapped"), "{}", last_error());
    // Import types: none, DMA_BUF, two at once.
    let (r, _) = import(&z, z.ctx, 100, ze_external_memory_type_flags_t::empty(), small);
    assert_eq!(r, ZE_RESULT_ERROR_INVALID_ENUMERATION);
    let (r, _) = import(&z, z.ctx, 100, DMA_BUF, small);
    assert_eq!(r, ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION);
    let (r, _) = import(&z, z.ctx, 100, OPAQUE_FD | DMA_BUF, small);
    assert_eq!(r, ZE_RESULT_ERROR_INVALID_ENUMERATION);
    assert!(is_open(small) && is_open(ro));
    close(small);
    close(ro);
    ok!(ze::zeMemFree(z.ctx, plain.cast()));
    ok!(ze::zeMemFree(z.ctx, p.cast()));
}
