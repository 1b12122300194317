//! USM allocation manager: Level Zero rules, lookups, frees, threads.

// The driver's library (`zekit-cpu`), which the ICD exports.
extern crate zekit_cpu as zekit_driver_core;

use std::sync::Arc;

use zekit_driver_core::alloc::*;
use zekit_driver_core::host::{host, HostInfo, Sources};
use zekit_sys::*;

const MIB: usize = 1 << 20;

fn mgr() -> AllocManager {
    AllocManager::new(MIB as u64, 1)
}

#[test]
fn size_rules() {
    let m = mgr();
    assert_eq!(
        m.alloc(AllocKind::Host, 0, 0, None),
        Err(AllocError::UnsupportedSize)
    );
    assert_eq!(
        m.alloc(AllocKind::Host, MIB + 1, 0, None),
        Err(AllocError::UnsupportedSize)
    );
    assert_eq!(
        m.alloc(AllocKind::Host, usize::MAX, 0, None),
        Err(AllocError::UnsupportedSize)
    );
    // Relaxed limits lift the maximum, not the address space.
    let p = m
        .alloc_with(AllocKind::Shared, MIB + 1, 0, None, SizeLimit::Relaxed)
        .unwrap();
    assert_eq!(m.properties(p).unwrap().size, MIB + 1);
    assert_eq!(
        m.alloc_with(AllocKind::Host, usize::MAX, 0, None, SizeLimit::Relaxed),
        Err(AllocError::UnsupportedSize)
    );
    assert_eq!(
        m.alloc_with(AllocKind::Host, 0, 0, None, SizeLimit::Relaxed),
        Err(AllocError::UnsupportedSize)
    );
    let p2 = m.alloc(AllocKind::Host, MIB, 0, None).unwrap();
    m.free(p).unwrap();
    m.free(p2).unwrap();
    assert!(m.is_empty());
}

#[test]
fn alignment_rules() {
    let m = mgr();
    for bad in [3, 6, 12, 100, 65535, usize::MAX, MAX_ALIGNMENT * 2] {
        assert_eq!(
            m.alloc(AllocKind::Host, 16, bad, None),
            Err(AllocError::UnsupportedAlignment),
            "{bad}"
        );
    }
    let p = m.alloc(AllocKind::Host, 1, 0, None).unwrap();
    assert_eq!(p as usize % DEFAULT_ALIGNMENT, 0);
    assert_eq!(m.properties(p).unwrap().alignment, DEFAULT_ALIGNMENT);
    for align in [1, 2, 4, 8, 64, 4096, 65536, 2 * MIB] {
        let q = m.alloc(AllocKind::Device, 24, align, Some(0)).unwrap();
        assert_eq!(q as usize % align, 0, "align {align}");
        // Memory is usable and zeroed.
        // SAFETY: q points to 24 live bytes owned by the manager.
        let bytes = unsafe { std::slice::from_raw_parts_mut(q, 24) };
        assert!(bytes.iter().all(|&b| b == 0));
        bytes.fill(0xAB);
        m.free(q).unwrap();
    }
    m.free(p).unwrap();
}

#[test]
fn device_rules() {
    let m = AllocManager::new(MIB as u64, 2);
    assert_eq!(
        m.alloc(AllocKind::Device, 8, 0, None),
        Err(AllocError::InvalidArgument)
    );
    assert_eq!(
        m.alloc(AllocKind::Device, 8, 0, Some(2)),
        Err(AllocError::InvalidArgument)
    );
    assert_eq!(
        m.alloc(AllocKind::Shared, 8, 0, Some(5)),
        Err(AllocError::InvalidArgument)
    );
    let d = m.alloc(AllocKind::Device, 8, 0, Some(1)).unwrap();
    let s = m.alloc(AllocKind::Shared, 8, 0, None).unwrap();
    let h = m.alloc(AllocKind::Host, 8, 0, Some(1)).unwrap();
    assert_eq!(m.properties(d).unwrap().device, Some(1));
    assert_eq!(m.properties(s).unwrap().device, None);
    assert_eq!(
        m.properties(h).unwrap().device,
        None,
        "host allocations belong to no device"
    );
    assert_eq!(m.len(), 3);
    assert_eq!(m.free_all(), 3);
    assert!(m.is_empty());
}

#[test]
fn interior_lookups() {
    let m = mgr();
    let a = m.alloc(AllocKind::Host, 100, 64, None).unwrap();
    let b = m.alloc(AllocKind::Device, 4096, 4096, Some(0)).unwrap();
    let ia = m.properties(a).unwrap();
    let ib = m.properties(b).unwrap();
    assert_eq!((ia.kind, ia.base, ia.size), (AllocKind::Host, a, 100));
    assert_eq!((ib.kind, ib.base, ib.size), (AllocKind::Device, b, 4096));
    assert!(ib.id > ia.id, "ids increase");

    for off in [0, 1, 50, 99] {
        let p = a.wrapping_add(off);
        assert_eq!(m.properties(p).unwrap().id, ia.id, "offset {off}");
        assert_eq!(m.address_range(p), Some((a, 100)));
    }
    assert_eq!(
        m.properties(a.wrapping_add(100))
            .map(|i| i.id)
            .filter(|&id| id == ia.id),
        None
    );
    assert_eq!(m.address_range(b.wrapping_add(4095)), Some((b, 4096)));
    assert_eq!(
        m.address_range(b.wrapping_add(4096))
            .map(|r| r.0)
            .filter(|&base| base == b),
        None
    );
    assert_eq!(m.properties(std::ptr::null()), None);
    let local = 5u8;
    assert_eq!(m.properties(&raw const local), None);

    // zeMemGetAllocProperties.
    let mut props = ze_memory_allocation_properties_t::default();
    let dev = m.fill_allocation_properties(b.wrapping_add(10), 4096, &mut props);
    assert_eq!(props.stype, ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES);
    assert_eq!(props.r#type, ze_memory_type_t::DEVICE);
    assert_eq!(props.id, ib.id);
    assert_eq!(props.pageSize, 4096);
    assert_eq!(dev, Some(0));
    let dev = m.fill_allocation_properties(&raw const local, 4096, &mut props);
    assert_eq!(
        (props.r#type, props.id, dev),
        (ze_memory_type_t::UNKNOWN, 0, None)
    );

    // Interior pointers cannot be freed.
    assert_eq!(m.free(a.wrapping_add(1)), Err(AllocError::InvalidArgument));
    m.free(a).unwrap();
    m.free(b).unwrap();
    assert_eq!(m.properties(a), None);
}

#[test]
fn ids_are_unique_and_never_reused() {
    let m = mgr();
    let mut last = 0;
    for _ in 0..50 {
        let p = m.alloc(AllocKind::Shared, 32, 0, None).unwrap();
        let id = m.properties(p).unwrap().id;
        assert!(id > last);
        last = id;
        m.free(p).unwrap();
    }
}

#[test]
fn double_free_and_bad_pointers() {
    let m = mgr();
    let p = m.alloc(AllocKind::Host, 64, 0, None).unwrap();
    assert_eq!(m.free(p), Ok(()));
    assert_eq!(m.free(p), Err(AllocError::InvalidArgument));
    assert_eq!(m.free(std::ptr::null_mut()), Err(AllocError::NullPointer));
    let mut local = 0u8;
    assert_eq!(m.free(&raw mut local), Err(AllocError::InvalidArgument));
    assert_eq!(
        AllocError::InvalidArgument.to_ze_result(),
        ZE_RESULT_ERROR_INVALID_ARGUMENT
    );
    assert_eq!(
        AllocError::UnsupportedSize.to_ze_result(),
        ZE_RESULT_ERROR_UNSUPPORTED_SIZE
    );
    assert_eq!(
        AllocError::UnsupportedAlignment.to_ze_result(),
        ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT
    );
    assert_eq!(
        ze_result_t::from(AllocError::NullPointer),
        ZE_RESULT_ERROR_INVALID_NULL_POINTER
    );
    assert_eq!(
        AllocError::UnsupportedSize.to_string(),
        "ZE_RESULT_ERROR_UNSUPPORTED_SIZE"
    );
}

#[test]
fn free_policies_and_detach() {
    type F = ze_driver_memory_free_policy_ext_flags_t;
    let m = mgr();
    // A detached allocation leaves the manager at once; its memory stays usable until the
    // `Detached` goes (the free policies of `zeMemFreeExt` keep it while work may use it).
    let p = m.alloc(AllocKind::Device, 64, 0, Some(0)).unwrap();
    let d = m.detach(p).unwrap();
    assert_eq!(m.properties(p), None);
    assert_eq!(m.free(p), Err(AllocError::InvalidArgument));
    assert_eq!(m.detach(p).unwrap_err(), AllocError::InvalidArgument);
    // SAFETY: still mapped: `d` holds it.
    unsafe { *p = 1 };
    drop(d);
    assert_eq!(m.detach(std::ptr::null_mut()).unwrap_err(), AllocError::NullPointer);
    assert_eq!(FreePolicy::from_flags(F::empty()), Ok(FreePolicy::Immediate));
    assert_eq!(FreePolicy::from_flags(F::BLOCKING_FREE), Ok(FreePolicy::Blocking));
    assert_eq!(FreePolicy::from_flags(F::DEFER_FREE), Ok(FreePolicy::Defer));
    assert_eq!(
        FreePolicy::from_flags(F::from_bits_retain(4)),
        Err(AllocError::InvalidEnumeration)
    );
    assert_eq!(
        FreePolicy::from_flags(F::BLOCKING_FREE | F::DEFER_FREE),
        Err(AllocError::InvalidEnumeration)
    );
    assert_eq!(SUPPORTED_FREE_POLICIES, F::BLOCKING_FREE | F::DEFER_FREE);
    assert!(m.is_empty());
}

#[test]
fn concurrent_alloc_free() {
    let m = Arc::new(AllocManager::new(64 * MIB as u64, 1));
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let m = Arc::clone(&m);
            std::thread::spawn(move || {
                let mut ids = Vec::new();
                for i in 0..500usize {
                    let size = 1 + (i * 37 + t * 11) % 3000;
                    let kind = [AllocKind::Host, AllocKind::Device, AllocKind::Shared][i % 3];
                    let dev = (kind != AllocKind::Host).then_some(0);
                    let p = m.alloc(kind, size, 1 << (i % 8), dev).unwrap();
                    // SAFETY: p points to `size` live bytes that only this thread uses.
                    unsafe { p.write_bytes(t as u8, size) };
                    let info = m.properties(p.wrapping_add(size - 1)).unwrap();
                    assert_eq!((info.base, info.size, info.kind), (p, size, kind));
                    // SAFETY: as above; nobody else writes these bytes.
                    assert_eq!(unsafe { *p.add(size / 2) }, t as u8);
                    ids.push(info.id);
                    if i % 4 != 0 {
                        m.free(p).unwrap();
                    }
                }
                ids
            })
        })
        .collect();
    let mut all: Vec<u64> = threads
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    let n = all.len();
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), n, "ids are unique across threads");
    assert_eq!(m.len(), 8 * 125);
    assert_eq!(m.free_all(), 8 * 125);
}

#[test]
fn for_host_uses_total_memory() {
    let m = AllocManager::for_host(host());
    assert_eq!(m.max_alloc_size(), host().total_memory);
    let small = HostInfo::from_sources(&Sources {
        meminfo: Some("MemTotal: 1024 kB\n".into()),
        ..Sources::default()
    });
    let m = AllocManager::for_host(&small);
    assert_eq!(
        m.alloc(AllocKind::Host, 1024 * 1024 + 1, 0, None),
        Err(AllocError::UnsupportedSize)
    );
    let p = m.alloc(AllocKind::Host, 1024 * 1024, 0, None).unwrap();
    drop(m); // Drop frees what is left.
    let _ = p;
}

/// The inode of the file mapped at `p` (from /proc/self/maps: asking the manager for the memfd
/// would mark it exported).
fn mapped_inode(p: *mut u8) -> u64 {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    let start = format!("{:x}-", p as usize);
    let line = maps.lines().find(|l| l.starts_with(&start)).expect("a mapping at p");
    line.split_whitespace().nth(4).unwrap().parse().unwrap()
}

/// A freed mapping that never left the process is reused for the next allocation of its
/// length, zero-filled again; one whose memfd was exported (IPC) is not.
#[test]
fn freed_mappings_are_reused_zeroed_unless_exported() {
    // A length no other test allocates (the cache is the process's).
    let size = 3 * MIB + 12_345;
    let m = AllocManager::new(64 * MIB as u64, 1);
    let p = m.alloc(AllocKind::Device, size, 0, Some(0)).unwrap();
    let first = mapped_inode(p);
    // SAFETY: `size` writable bytes at `p`.
    unsafe { std::ptr::write_bytes(p, 0xab, size) };
    m.free(p).unwrap();
    let q = m.alloc(AllocKind::Device, size, 0, Some(0)).unwrap();
    assert_eq!((q, mapped_inode(q)), (p, first), "the kept mapping");
    // SAFETY: `size` readable bytes at `q`.
    let bytes = unsafe { std::slice::from_raw_parts(q, size) };
    assert!(bytes.iter().all(|b| *b == 0), "zero-filled again");
    // Exported: its memfd may be mapped elsewhere, so it is unmapped when freed.
    assert!(m.export(q).unwrap().1.is_some());
    m.free(q).unwrap();
    let r = m.alloc(AllocKind::Device, size, 0, Some(0)).unwrap();
    assert_ne!(mapped_inode(r), first, "a fresh memfd");
    m.free(r).unwrap();
}
