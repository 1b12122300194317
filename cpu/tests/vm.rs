//! Virtual memory in process through the C entry points: reservations, physical memory (memfd),
//! aliasing, access attributes (a forked child that writes a read-only page dies of SIGSEGV),
//! and the spec's codes for bad ranges.
#![allow(clippy::macro_metavars_in_unsafe)]

mod zeh;

use std::ffi::c_void;
use std::ptr::{null, null_mut};

use zeh::*;

const RW: ze_memory_access_attribute_t = ze_memory_access_attribute_t::READWRITE;
const RO: ze_memory_access_attribute_t = ze_memory_access_attribute_t::READONLY;
const NONE: ze_memory_access_attribute_t = ze_memory_access_attribute_t::NONE;

fn page(z: &Ze) -> usize {
    let mut p = 0usize;
    ok!(ze::zeVirtualMemQueryPageSize(z.ctx, z.dev, 1, &mut p));
    p
}

fn physical(z: &Ze, size: usize, flags: ze_physical_mem_flags_t) -> ze_physical_mem_handle_t {
    let mut desc = ze_physical_mem_desc_t {
        flags,
        size,
        ..Default::default()
    };
    let mut h = null_mut();
    ok!(ze::zePhysicalMemCreate(z.ctx, z.dev, &raw mut desc, &mut h));
    h
}

fn reserve(z: &Ze, size: usize) -> *mut u8 {
    let mut p = null_mut();
    ok!(ze::zeVirtualMemReserve(z.ctx, null(), size, &mut p));
    p.cast()
}

/// What happens to a forked child that runs `f`: `Ok(exit code)` or `Err(signal)`.
fn in_child(f: impl FnOnce()) -> Result<i32, i32> {
    // SAFETY: the child only touches memory and exits with `_exit`, never returning into the
    // test harness (no allocation, no locks taken by other threads).
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        f();
        // SAFETY: leaves the child at once.
        unsafe { libc::_exit(0) };
    }
    let mut status = 0;
    // SAFETY: waits for our own child.
    let r = unsafe { libc::waitpid(pid, &mut status, 0) };
    assert_eq!(r, pid);
    if libc::WIFSIGNALED(status) {
        Err(libc::WTERMSIG(status))
    } else {
        Ok(libc::WEXITSTATUS(status))
    }
}

#[test]
fn page_size_and_properties() {
    let z = Ze::new();
    let ps = page(&z);
    // SAFETY: sysconf.
    assert_eq!(ps as libc::c_long, unsafe { libc::sysconf(libc::_SC_PAGESIZE) });
    // Size 0 (the spec's UNSUPPORTED_SIZE, strict only: leniency.c) answers the page size, as
    // compute-runtime does; callers divide by it.
    let mut p = 0usize;
    ok!(ze::zeVirtualMemQueryPageSize(z.ctx, z.dev, 0, &mut p));
    assert_eq!(p, ps);
    // No device: physical host memory, mapped and used like any other.
    let mut desc = ze_physical_mem_desc_t { size: 2 * ps, ..Default::default() };
    let mut host_phys: ze_physical_mem_handle_t = std::ptr::null_mut();
    ok!(ze::zePhysicalMemCreate(z.ctx, std::ptr::null_mut(), &raw mut desc, &mut host_phys));
    let mut va: *mut c_void = std::ptr::null_mut();
    ok!(ze::zeVirtualMemReserve(z.ctx, std::ptr::null(), 2 * ps, &mut va));
    ok!(ze::zeVirtualMemMap(z.ctx, va, 2 * ps, host_phys, 0, ze_memory_access_attribute_t::READWRITE));
    // SAFETY: mapped read-write just above.
    unsafe {
        va.cast::<u8>().add(ps + 3).write(42);
        assert_eq!(va.cast::<u8>().add(ps + 3).read(), 42);
    }
    ok!(ze::zeVirtualMemUnmap(z.ctx, va, 2 * ps));
    ok!(ze::zeVirtualMemFree(z.ctx, va, 2 * ps));
    ok!(ze::zePhysicalMemDestroy(z.ctx, host_phys));
    for flags in [
        ze_physical_mem_flags_t(0),
        ze_physical_mem_flags_t::ALLOCATE_ON_DEVICE,
        ze_physical_mem_flags_t::ALLOCATE_ON_HOST,
    ] {
        let a = physical(&z, 3 * ps, flags);
        let b = physical(&z, ps, flags);
        let mut pa = ze_physical_mem_properties_t::default();
        let mut pb = ze_physical_mem_properties_t::default();
        ok!(ze::zePhysicalMemGetProperties(z.ctx, a, &mut pa));
        ok!(ze::zePhysicalMemGetProperties(z.ctx, b, &mut pb));
        assert_eq!(pa.size, 3 * ps as u64);
        assert_eq!(pb.size, ps as u64);
        assert_ne!(pa.id, pb.id);
        ok!(ze::zePhysicalMemDestroy(z.ctx, a));
        ok!(ze::zePhysicalMemDestroy(z.ctx, b));
    }
    let mut h = null_mut();
    let mut desc = ze_physical_mem_desc_t {
        size: 0,
        ..Default::default()
    };
    check!(
        ze::zePhysicalMemCreate(z.ctx, z.dev, &raw mut desc, &mut h),
        ZE_RESULT_ERROR_UNSUPPORTED_SIZE
    );
    desc.size = ps + 1;
    check!(
        ze::zePhysicalMemCreate(z.ctx, z.dev, &raw mut desc, &mut h),
        ZE_RESULT_ERROR_UNSUPPORTED_SIZE
    );
}

#[test]
fn aliasing_through_two_mappings() {
    let z = Ze::new();
    let ps = page(&z);
    let phys = physical(&z, 2 * ps, ze_physical_mem_flags_t::ALLOCATE_ON_DEVICE);
    let a = reserve(&z, 4 * ps);
    let b = reserve(&z, 2 * ps);
    ok!(ze::zeVirtualMemMap(z.ctx, a.cast(), 2 * ps, phys, 0, RW));
    ok!(ze::zeVirtualMemMap(z.ctx, b.cast(), ps, phys, ps, RW));
    // a[ps..2ps] and b[0..ps] are the same physical page.
    // SAFETY: both ranges are mapped read-write above.
    unsafe {
        assert_eq!(*a, 0, "physical memory starts zeroed");
        *a.wrapping_add(ps + 7) = 0x5a;
        assert_eq!(*b.wrapping_add(7), 0x5a);
        *b.wrapping_add(100) = 0xa5;
        assert_eq!(*a.wrapping_add(ps + 100), 0xa5);
        *a.wrapping_add(3) = 1;
        assert_eq!(*b.wrapping_add(3), 0, "page 0 of the physical object is not page 0 of b");
    }
    // Mapping over a mapped range, beyond the physical object, outside the reservation.
    check!(
        ze::zeVirtualMemMap(z.ctx, a.wrapping_add(ps).cast(), 2 * ps, phys, 0, RW),
        ZE_RESULT_ERROR_INVALID_ARGUMENT
    );
    check!(
        ze::zeVirtualMemMap(z.ctx, a.wrapping_add(2 * ps).cast(), 2 * ps, phys, ps, RW),
        ZE_RESULT_ERROR_INVALID_ARGUMENT
    );
    check!(
        ze::zeVirtualMemMap(z.ctx, b.wrapping_add(ps).cast(), 2 * ps, phys, 0, RW),
        ZE_RESULT_ERROR_INVALID_ARGUMENT
    );
    let mut local = 0u8;
    check!(
        ze::zeVirtualMemMap(z.ctx, (&raw mut local).cast(), ps, phys, 0, RW),
        ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT
    );
    // Unaligned sizes and offsets, size 0.
    check!(
        ze::zeVirtualMemMap(z.ctx, a.wrapping_add(2 * ps).cast(), ps + 1, phys, 0, RW),
        ZE_RESULT_ERROR_UNSUPPORTED_SIZE
    );
    check!(
        ze::zeVirtualMemMap(z.ctx, a.wrapping_add(2 * ps).cast(), ps, phys, 1, RW),
        ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT
    );
    check!(
        ze::zeVirtualMemMap(z.ctx, a.wrapping_add(2 * ps + 8).cast(), ps, phys, 0, RW),
        ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT
    );
    check!(
        ze::zeVirtualMemMap(z.ctx, a.wrapping_add(2 * ps).cast(), 0, phys, 0, RW),
        ZE_RESULT_ERROR_UNSUPPORTED_SIZE
    );
    // A mapped physical object cannot be destroyed.
    check!(
        ze::zePhysicalMemDestroy(z.ctx, phys),
        ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE
    );
    // Unmap part of a mapping; unmapping an unmapped page fails.
    ok!(ze::zeVirtualMemUnmap(z.ctx, a.cast(), ps));
    check!(
        ze::zeVirtualMemUnmap(z.ctx, a.cast(), ps),
        ZE_RESULT_ERROR_INVALID_ARGUMENT
    );
    check!(
        ze::zeVirtualMemUnmap(z.ctx, a.wrapping_add(ps).cast(), 0),
        ZE_RESULT_ERROR_UNSUPPORTED_SIZE
    );
    // SAFETY: still mapped.
    unsafe { assert_eq!(*a.wrapping_add(ps + 7), 0x5a) };
    // The unmapped page faults again.
    assert_eq!(
        in_child(|| {
            // SAFETY: deliberately touches an unmapped reserved page, in a child process.
            unsafe { std::ptr::read_volatile(a) };
        }),
        Err(libc::SIGSEGV)
    );
    ok!(ze::zeVirtualMemUnmap(z.ctx, a.wrapping_add(ps).cast(), ps));
    ok!(ze::zeVirtualMemUnmap(z.ctx, b.cast(), ps));
    ok!(ze::zePhysicalMemDestroy(z.ctx, phys));
    // Free takes exactly a reservation.
    check!(
        ze::zeVirtualMemFree(z.ctx, a.cast(), 2 * ps),
        ZE_RESULT_ERROR_INVALID_ARGUMENT
    );
    check!(
        ze::zeVirtualMemFree(z.ctx, a.cast(), ps + 3),
        ZE_RESULT_ERROR_UNSUPPORTED_SIZE
    );
    ok!(ze::zeVirtualMemFree(z.ctx, a.cast(), 4 * ps));
    ok!(ze::zeVirtualMemFree(z.ctx, b.cast(), 2 * ps));
    check!(
        ze::zeVirtualMemFree(z.ctx, b.cast(), 2 * ps),
        ZE_RESULT_ERROR_INVALID_ARGUMENT
    );
}

#[test]
fn access_attributes_are_enforced() {
    let z = Ze::new();
    let ps = page(&z);
    let phys = physical(&z, 4 * ps, ze_physical_mem_flags_t::ALLOCATE_ON_HOST);
    let a = reserve(&z, 4 * ps);
    ok!(ze::zeVirtualMemMap(z.ctx, a.cast(), 4 * ps, phys, 0, RW));
    // SAFETY: mapped read-write.
    unsafe { *a.wrapping_add(ps) = 9 };
    ok!(ze::zeVirtualMemSetAccessAttribute(z.ctx, a.wrapping_add(ps).cast(), ps, RO));
    ok!(ze::zeVirtualMemSetAccessAttribute(z.ctx, a.wrapping_add(2 * ps).cast(), ps, NONE));
    let (mut access, mut n) = (NONE, 0usize);
    ok!(ze::zeVirtualMemGetAccessAttribute(z.ctx, a.cast(), 4 * ps, &mut access, &mut n));
    assert_eq!((access, n), (RW, ps));
    ok!(ze::zeVirtualMemGetAccessAttribute(z.ctx, a.wrapping_add(ps).cast(), 3 * ps, &mut access, &mut n));
    assert_eq!((access, n), (RO, ps));
    ok!(ze::zeVirtualMemGetAccessAttribute(z.ctx, a.wrapping_add(2 * ps).cast(), 2 * ps, &mut access, &mut n));
    assert_eq!((access, n), (NONE, ps));
    ok!(ze::zeVirtualMemGetAccessAttribute(z.ctx, a.wrapping_add(3 * ps).cast(), ps, &mut access, &mut n));
    assert_eq!((access, n), (RW, ps));
    // Reading a read-only page works; writing it kills the (child) process.
    // SAFETY: mapped readable.
    assert_eq!(unsafe { std::ptr::read_volatile(a.wrapping_add(ps)) }, 9);
    let ro = a.wrapping_add(ps) as usize;
    let none = a.wrapping_add(2 * ps) as usize;
    let rw = a.wrapping_add(3 * ps) as usize;
    assert_eq!(
        in_child(|| {
            // SAFETY: deliberately writes a read-only page, in a child process.
            unsafe { std::ptr::write_volatile(ro as *mut u8, 1) };
        }),
        Err(libc::SIGSEGV)
    );
    assert_eq!(
        in_child(|| {
            // SAFETY: deliberately reads a no-access page, in a child process.
            unsafe { std::ptr::read_volatile(none as *const u8) };
        }),
        Err(libc::SIGSEGV)
    );
    assert_eq!(
        in_child(|| {
            // SAFETY: a read-write page.
            unsafe { std::ptr::write_volatile(rw as *mut u8, 1) };
        }),
        Ok(0)
    );
    // The child's write went to the shared physical memory.
    // SAFETY: mapped read-write.
    assert_eq!(unsafe { std::ptr::read_volatile(rw as *const u8) }, 1);
    // Back to read-write: writable again.
    ok!(ze::zeVirtualMemSetAccessAttribute(z.ctx, a.cast(), 4 * ps, RW));
    // SAFETY: mapped read-write.
    unsafe { *a.wrapping_add(ps) = 10 };
    // Access on unmapped or out-of-reservation ranges.
    ok!(ze::zeVirtualMemUnmap(z.ctx, a.wrapping_add(3 * ps).cast(), ps));
    ok!(ze::zeVirtualMemGetAccessAttribute(z.ctx, a.wrapping_add(3 * ps).cast(), ps, &mut access, &mut n));
    assert_eq!((access, n), (NONE, ps));
    check!(
        ze::zeVirtualMemSetAccessAttribute(z.ctx, a.wrapping_add(2 * ps).cast(), 2 * ps, RO),
        ZE_RESULT_ERROR_INVALID_ARGUMENT
    );
    check!(
        ze::zeVirtualMemSetAccessAttribute(z.ctx, a.cast(), 5 * ps, RO),
        ZE_RESULT_ERROR_INVALID_ARGUMENT
    );
    check!(
        ze::zeVirtualMemSetAccessAttribute(z.ctx, a.wrapping_add(1).cast(), ps, RO),
        ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT
    );
    // Freeing the reservation takes its mappings; the physical object is free to go.
    ok!(ze::zeVirtualMemFree(z.ctx, a.cast(), 4 * ps));
    ok!(ze::zePhysicalMemDestroy(z.ctx, phys));
}

/// Whether every byte of `[start, start + len)` lies in some mapping of this process.
fn covered(start: usize, len: usize) -> bool {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    let mut ranges: Vec<(usize, usize)> = maps
        .lines()
        .filter_map(|l| {
            let (a, b) = l.split_whitespace().next()?.split_once('-')?;
            Some((usize::from_str_radix(a, 16).ok()?, usize::from_str_radix(b, 16).ok()?))
        })
        .collect();
    ranges.sort();
    let mut at = start;
    for (a, b) in ranges {
        if a <= at && at < b {
            at = b;
        }
    }
    at >= start + len
}

#[test]
fn context_destroy_releases_reservations() {
    let z = Ze::new();
    let ps = page(&z);
    let mut ctx = null_mut();
    ok!(ze::zeContextCreate(z.drv, &ze_context_desc_t::default(), &mut ctx));
    let mut p: *mut c_void = null_mut();
    ok!(ze::zeVirtualMemReserve(ctx, null(), 16 * ps, &mut p));
    let phys = physical(&z, ps, ze_physical_mem_flags_t(0));
    ok!(ze::zeVirtualMemMap(ctx, p, ps, phys, 0, RW));
    assert!(covered(p as usize, 16 * ps), "reserved");
    // Mapped: the physical memory is in use.
    check!(ze::zePhysicalMemDestroy(z.ctx, phys), ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE);
    ok!(ze::zeContextDestroy(ctx));
    // The reservation went with the context (its address space is no longer mapped: another
    // thread could map part of it since, not all), and so did the mapping.
    assert!(!covered(p as usize, 16 * ps), "the reservation outlived its context");
    ok!(ze::zePhysicalMemDestroy(z.ctx, phys));
}

#[test]
fn atomic_access_attributes_of_ranges() {
    use ze_memory_atomic_attr_exp_flags_t as A;
    let z = Ze::new();
    let p = z.shared(4096);
    let mut got = A(0xdead);
    // Never set: no hint.
    ok!(ze::zeMemGetAtomicAccessAttributeExp(z.ctx, z.dev, p.cast(), 4096, &mut got));
    assert_eq!(got, A(0));
    let both = A(A::DEVICE_ATOMICS.0 | A::HOST_ATOMICS.0);
    ok!(ze::zeMemSetAtomicAccessAttributeExp(z.ctx, z.dev, p.cast(), 1024, both));
    ok!(ze::zeMemSetAtomicAccessAttributeExp(z.ctx, z.dev, p.wrapping_add(2048).cast(), 2048, A::NO_ATOMICS));
    for (off, len, want) in [(0usize, 1024usize, both), (16, 64, both), (2048, 2048, A::NO_ATOMICS), (3000, 8, A::NO_ATOMICS), (1024, 1024, A(0))] {
        ok!(ze::zeMemGetAtomicAccessAttributeExp(z.ctx, z.dev, p.wrapping_add(off).cast(), len, &mut got));
        assert_eq!(got, want, "{len} bytes at +{off}");
    }
    // Outside the allocation, or running past its end.
    let local = 0u64;
    check!(
        ze::zeMemSetAtomicAccessAttributeExp(z.ctx, z.dev, (&raw const local).cast(), 8, both),
        ZE_RESULT_ERROR_INVALID_ARGUMENT
    );
    check!(
        ze::zeMemGetAtomicAccessAttributeExp(z.ctx, z.dev, p.wrapping_add(4000).cast(), 200, &mut got),
        ZE_RESULT_ERROR_INVALID_ARGUMENT
    );
    // A freed allocation's records do not answer for a new one at the same address.
    z.free(p);
    let q = z.shared(4096);
    ok!(ze::zeMemGetAtomicAccessAttributeExp(z.ctx, z.dev, q.cast(), 1024, &mut got));
    assert_eq!(got, A(0));
    z.free(q);
}
