//! Device queries filled from fixtures and from this machine.

// The driver's library (`zekit-cpu`), which the ICD exports.
extern crate zekit_cpu as zekit_driver_core;

use zekit_driver_core::host::*;
use zekit_driver_core::properties::*;
use zekit_sys::*;

fn fixture() -> HostInfo {
    let src = Sources {
        cpuinfo: Some(
            "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Test CPU\nflags\t: sse2 avx avx2 fma\n\
             physical id\t: 0\ncore id\t: 0\n"
                .into(),
        ),
        meminfo: Some("MemTotal: 8388608 kB\nMemAvailable: 4194304 kB\n".into()),
        cpu_online: Some("0-7".into()),
        available_parallelism: Some(8),
        caches: vec![
            CacheSource {
                level: Some("1".into()),
                kind: Some("Data".into()),
                size: Some("48K".into()),
                line_size: Some("64".into()),
            },
            CacheSource {
                level: Some("1".into()),
                kind: Some("Instruction".into()),
                size: Some("32K".into()),
                line_size: Some("64".into()),
            },
            CacheSource {
                level: Some("3".into()),
                kind: Some("Unified".into()),
                size: Some("16M".into()),
                line_size: Some("64".into()),
            },
            CacheSource {
                level: Some("2".into()),
                kind: Some("Unified".into()),
                size: Some("1280K".into()),
                line_size: Some("64".into()),
            },
        ],
        cpufreq_max_khz: Some("4500000".into()),
        sysconf_page_size: Some(4096),
        machine_id: Some("0123456789abcdef0123456789abcdef".into()),
        ..Sources::default()
    };
    HostInfo::from_sources(&src)
}

fn c_name(name: &[std::ffi::c_char]) -> String {
    let bytes: Vec<u8> = name
        .iter()
        .map(|&c| c as u8)
        .take_while(|&b| b != 0)
        .collect();
    String::from_utf8(bytes).unwrap()
}

#[test]
fn device_properties() {
    let h = fixture();
    let mut sentinel = 0u8;
    let mut p = ze_device_properties_t {
        pNext: (&raw mut sentinel).cast(),
        ..Default::default()
    };
    fill_device_properties(&h, &mut p);
    assert_eq!(p.stype, ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES);
    assert_eq!(p.pNext, (&raw mut sentinel).cast());
    assert_eq!(p.r#type, ze_device_type_t::CPU);
    assert_eq!(p.vendorId, 0x8086);
    assert_eq!(p.deviceId, 0);
    assert_eq!(p.flags, ze_device_property_flags_t::empty());
    assert_eq!(p.coreClockRate, 4500);
    assert_eq!(p.maxMemAllocSize, 8 << 30);
    assert_eq!(p.maxHardwareContexts, 8);
    assert_eq!(p.maxCommandQueuePriority, 0);
    assert_eq!(p.numThreadsPerEU, 1);
    assert_eq!(p.physicalEUSimdWidth, 8);
    assert_eq!(p.numEUsPerSubslice, 1);
    assert_eq!(p.numSubslicesPerSlice, 8);
    assert_eq!(p.numSlices, 1);
    assert_eq!(p.timerResolution, 1);
    assert_eq!(p.timestampValidBits, 64);
    assert_eq!(p.kernelTimestampValidBits, 64);
    assert_eq!(p.uuid.id, h.uuid);
    assert_eq!(c_name(&p.name), "zekit CPU: Test CPU");

    let mut p12 = ze_device_properties_t {
        stype: ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2,
        ..Default::default()
    };
    fill_device_properties(&h, &mut p12);
    assert_eq!(p12.stype, ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2);
    assert_eq!(p12.timerResolution, 1_000_000_000);
}

#[test]
fn long_names_are_truncated_with_nul() {
    let mut h = fixture();
    h.model_name = "é".repeat(300); // 2 bytes each: a cut may not split one
    let mut p = ze_device_properties_t {
        name: [b'x' as std::ffi::c_char; 256],
        ..Default::default()
    };
    fill_device_properties(&h, &mut p);
    assert_eq!(p.name[255], 0);
    let name = c_name(&p.name);
    assert!(name.len() <= 255 && name.len() >= 254, "{}", name.len());
    assert!(name.starts_with("zekit CPU: é"));

    let mut tiny = [1 as std::ffi::c_char; 3];
    write_c_string(&mut tiny, "abc");
    assert_eq!(tiny, [b'a' as _, b'b' as _, 0]);
    write_c_string(&mut [], "abc"); // no room at all: nothing written, no panic
}

#[test]
fn compute_and_module() {
    let h = fixture();
    let mut c = ze_device_compute_properties_t::default();
    fill_compute_properties(&h, &mut c);
    assert_eq!(c.maxTotalGroupSize, 1024);
    assert_eq!(c.maxGroupCountX, u32::MAX);
    assert_eq!(c.numSubGroupSizes, 2);
    assert_eq!(c.subGroupSizes, [8, 16, 0, 0, 0, 0, 0, 0]);

    let mut m = ze_device_module_properties_t::default();
    fill_module_properties(&h, &mut m);
    assert_eq!(m.stype, ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES);
    assert_eq!(m.spirvVersionSupported, ZE_MAKE_VERSION(1, 6));
    assert_eq!(m.flags, ze_device_module_flags_t::FP16 | ze_device_module_flags_t::FP64 | ze_device_module_flags_t::INT64_ATOMICS);
    // Half arithmetic is computed in single precision and rounded once to nearest: no other
    // rounding mode, no single-rounding FMA.
    assert_eq!(
        m.fp16flags,
        ze_device_fp_flags_t::DENORM | ze_device_fp_flags_t::INF_NAN | ze_device_fp_flags_t::ROUND_TO_NEAREST | ze_device_fp_flags_t::ROUNDED_DIVIDE_SQRT
    );
    assert_eq!(m.fp64flags, m.fp32flags);
    assert!(m.fp32flags.contains(ze_device_fp_flags_t::FMA));
    assert!(m.fp32flags.contains(ze_device_fp_flags_t::ROUND_TO_NEAREST));
    assert!(!m.fp32flags.contains(ze_device_fp_flags_t::SOFT_FLOAT));
    assert_eq!(m.maxArgumentsSize, MAX_ARGUMENTS_SIZE);
}

#[test]
fn counted_queries() {
    let h = fixture();

    // Caches: data/unified only, sorted by level.
    let caches = cache_properties(&h);
    let sizes: Vec<usize> = caches.iter().map(|c| c.cache_size).collect();
    assert_eq!(sizes, vec![48 << 10, 1280 << 10, 16 << 20]);

    let mut count = 0;
    fill_cache_properties(&h, &mut count, None);
    assert_eq!(count, 3);
    let mut out = vec![ze_device_cache_properties_t::default(); 5];
    let mut count = 5;
    fill_cache_properties(&h, &mut count, Some(&mut out));
    assert_eq!(count, 3);
    assert_eq!(out[2].cacheSize, 16 << 20);
    assert_eq!(out[3].cacheSize, 0);
    assert_eq!(out[0].stype, ZE_STRUCTURE_TYPE_DEVICE_CACHE_PROPERTIES);
    let mut out = vec![ze_device_cache_properties_t::default(); 1];
    let mut count = 1;
    fill_cache_properties(&h, &mut count, Some(&mut out));
    assert_eq!(count, 1);
    assert_eq!(out[0].cacheSize, 48 << 10);
    let mut count = 0;
    fill_cache_properties(&h, &mut count, Some(&mut out));
    assert_eq!(count, 3, "count 0 with an array still asks for the count");

    // Queue groups: compute (one index per usable core) and copy.
    let mut count = 0;
    fill_command_queue_group_properties(&h, &mut count, None);
    assert_eq!(count, 2);
    let mut g = [ze_command_queue_group_properties_t::default(); 2];
    fill_command_queue_group_properties(&h, &mut count, Some(&mut g));
    assert_eq!(
        g[0].flags,
        ze_command_queue_group_property_flags_t::COMPUTE
            | ze_command_queue_group_property_flags_t::COPY
            | ze_command_queue_group_property_flags_t::COOPERATIVE_KERNELS
    );
    assert_eq!(g[0].numQueues, h.usable_cores);
    assert_eq!(g[1].flags, ze_command_queue_group_property_flags_t::COPY);
    assert_eq!(g[1].numQueues, 1);
    for g in &g {
        assert_eq!(g.maxMemoryFillPatternSize, MAX_FILL_PATTERN_SIZE);
    }

    // Memory.
    let mut count = 7;
    let mut m = [ze_device_memory_properties_t::default()];
    fill_memory_properties(&h, &mut count, Some(&mut m));
    assert_eq!(count, 1);
    assert_eq!(m[0].totalSize, 8 << 30);
    assert_eq!(m[0].maxBusWidth, 64);
    assert_eq!(m[0].maxClockRate, 0);
    assert_eq!(c_name(&m[0].name), "DDR");
}

#[test]
fn access_image_external_p2p() {
    let h = fixture();
    let mut a = ze_device_memory_access_properties_t::default();
    fill_memory_access_properties(&h, &mut a);
    let all = ze_memory_access_cap_flags_t::all_known();
    assert_eq!(a.hostAllocCapabilities, all);
    assert_eq!(a.deviceAllocCapabilities, all);
    assert_eq!(a.sharedSingleDeviceAllocCapabilities, all);
    assert_eq!(a.sharedCrossDeviceAllocCapabilities, all);
    assert_eq!(a.sharedSystemAllocCapabilities, all);

    let mut i = ze_device_image_properties_t {
        maxImageDims1D: 9,
        maxSamplers: 9,
        ..Default::default()
    };
    fill_image_properties(&h, &mut i);
    assert_eq!(
        (
            i.maxImageDims1D,
            i.maxImageDims2D,
            i.maxImageDims3D,
            i.maxImageBufferSize
        ),
        (16384, 16384, 2048, h.total_memory)
    );
    assert_eq!(
        (
            i.maxImageArraySlices,
            i.maxSamplers,
            i.maxReadImageArgs,
            i.maxWriteImageArgs
        ),
        (2048, 16, 128, 128)
    );

    let mut e = ze_device_external_memory_properties_t {
        memoryAllocationImportTypes: ze_external_memory_type_flags_t::DMA_BUF,
        ..Default::default()
    };
    fill_external_memory_properties(&h, &mut e);
    // Allocations: OPAQUE_FD both ways (a memfd), no DMA_BUF (no udmabuf); images: nothing.
    let fd = ze_external_memory_type_flags_t::OPAQUE_FD;
    assert_eq!(
        (e.memoryAllocationImportTypes, e.memoryAllocationExportTypes),
        (fd, fd)
    );
    assert!(e.imageImportTypes.is_empty() && e.imageExportTypes.is_empty());

    let mut p = ze_device_p2p_properties_t::default();
    fill_p2p_properties(false, &mut p);
    assert!(p.flags.is_empty());
    fill_p2p_properties(true, &mut p);
    assert_eq!(p.flags, ze_device_p2p_property_flags_t::all_known());
    assert!(can_access_peer(true));
    assert!(!can_access_peer(false));
}

#[test]
fn scalar_queries() {
    assert_eq!(device_count(), 1);
    assert_eq!(sub_device_count(), 0);
    assert_eq!(device_status(), ZE_RESULT_SUCCESS);
    assert_eq!(synchronize_result(), ZE_RESULT_SUCCESS);
    assert_eq!(root_device(), None);
    assert_eq!(aggregated_copy_offload_increment_value(), 1);
    assert_eq!(counter_based_event_max_value(), u64::MAX);
    let (h1, d1) = global_timestamps();
    assert_eq!(h1, d1);
    let (h2, _) = global_timestamps();
    assert!(h2 >= h1);
    assert_eq!(
        compiler_info(ZE_DEVICE_COMPILER_INFO_SPIRV_CAPABILITIES),
        Some(&[][..])
    );
    assert_eq!(
        compiler_info(ZE_DEVICE_COMPILER_INFO_DRIVER_OPTIONS),
        Some(&[][..])
    );
    assert_eq!(compiler_info(ze_device_compiler_info_t(99)), None);
}

#[test]
fn runtime_requirements_roundtrip() {
    type R = ze_validate_runtime_requirements_result_t;
    let h = fixture();
    assert_eq!(runtime_requirements_key(), c"ZEKIT.L0.CPU");
    let req = runtime_requirements(&h);
    assert_eq!(
        req,
        format!("ZEKIT.L0.CPU;arch={};simd=8", std::env::consts::ARCH)
    );
    assert_eq!(
        validate_runtime_requirements(&h, req.as_bytes()),
        R::REQUIREMENTS_MET
    );
    let with_nul = format!("{req}\0");
    assert_eq!(
        validate_runtime_requirements(&h, with_nul.as_bytes()),
        R::REQUIREMENTS_MET
    );
    let narrow = req.replace("simd=8", "simd=4");
    assert_eq!(
        validate_runtime_requirements(&h, narrow.as_bytes()),
        R::REQUIREMENTS_MET_RECOMPILATION_ADVISABLE
    );
    let wide = req.replace("simd=8", "simd=16");
    assert_eq!(
        validate_runtime_requirements(&h, wide.as_bytes()),
        R::REQUIREMENTS_NOT_MET
    );
    assert_eq!(
        validate_runtime_requirements(&h, b"ZEKIT.L0.CPU;arch=mips"),
        R::REQUIREMENTS_NOT_MET
    );
    assert_eq!(
        validate_runtime_requirements(&h, b"INTEL.L0.GPU;whatever"),
        R::NOT_APPLICABLE
    );
    assert_eq!(
        validate_runtime_requirements(&h, b"\xff\xfe"),
        R::NOT_APPLICABLE
    );
    assert_eq!(validate_runtime_requirements(&h, b""), R::NOT_APPLICABLE);
}

/// Prints what every query answers on this machine (run with `--nocapture`).
#[test]
fn this_machine() {
    let h = host();
    let mut p = ze_device_properties_t::default();
    fill_device_properties(h, &mut p);
    assert_eq!(p.r#type, ze_device_type_t::CPU);
    assert!(p.numSubslicesPerSlice >= 1);
    assert!(p.maxMemAllocSize > 0);
    assert!(!c_name(&p.name).is_empty());
    let mut c = ze_device_compute_properties_t::default();
    fill_compute_properties(h, &mut c);
    let mut m = ze_device_module_properties_t::default();
    fill_module_properties(h, &mut m);
    let mut n = 0;
    fill_memory_properties(h, &mut n, None);
    let mut mem = vec![ze_device_memory_properties_t::default(); n as usize];
    fill_memory_properties(h, &mut n, Some(&mut mem));
    let mut a = ze_device_memory_access_properties_t::default();
    fill_memory_access_properties(h, &mut a);
    let mut p12 = ze_device_properties_t {
        stype: ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2,
        ..Default::default()
    };
    fill_device_properties(h, &mut p12);
    eprintln!("{p:#?}\ntimerResolution(1_2) = {}", p12.timerResolution);
    eprintln!("{c:#?}\n{m:#?}\n{mem:#?}\n{a:#?}");
    eprintln!("caches = {:?}", cache_properties(h));
    eprintln!("queue groups = {:?}", command_queue_groups(h));
    eprintln!("runtime requirements = {}", runtime_requirements(h));
    eprintln!("global timestamps = {:?}", global_timestamps());
}
