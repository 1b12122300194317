//! HostInfo parsing from fixtures, and detection on this machine.

// The driver's library (`zekit-cpu`), which the ICD exports.
extern crate zekit_cpu as zekit_driver_core;

use zekit_driver_core::host::*;

const INTEL_2S: &str = "\
processor\t: 0
vendor_id\t: GenuineIntel
cpu family\t: 6
model name\t: Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz
cpu MHz\t\t: 1000.123
cache size\t: 28160 KB
physical id\t: 0
siblings\t: 2
core id\t\t: 0
cpu cores\t: 2
flags\t\t: fpu sse sse2 avx avx2 fma avx512f
clflush size\t: 64
cache_alignment\t: 64

processor\t: 1
vendor_id\t: GenuineIntel
model name\t: Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz
physical id\t: 0
core id\t\t: 1
cpu cores\t: 2

processor\t: 2
vendor_id\t: GenuineIntel
model name\t: Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz
physical id\t: 1
core id\t\t: 0
cpu cores\t: 2

processor\t: 3
vendor_id\t: GenuineIntel
model name\t: Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz
physical id\t: 1
core id\t\t: 1
cpu cores\t: 2
";

const AMD: &str = "\
processor\t: 0
vendor_id\t: AuthenticAMD
model name\t: AMD EPYC
cpu MHz\t\t: 2445.404
cache size\t: 512 KB
physical id\t: 0
core id\t\t: 0
cpu cores\t: 2
flags\t\t: fpu sse sse2 avx fma avx2
";

const ARM: &str = "\
processor\t: 0
BogoMIPS\t: 50.00
Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics
CPU implementer\t: 0x41
CPU part\t: 0xd0c

processor\t: 1
Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics
CPU implementer\t: 0x41
";

const MEMINFO: &str = "\
MemTotal:       24683656 kB
MemFree:        21115376 kB
MemAvailable:   24085868 kB
Buffers:          123 kB
";

fn cache(level: &str, kind: &str, size: &str, line: &str) -> CacheSource {
    CacheSource {
        level: Some(format!("{level}\n")),
        kind: Some(format!("{kind}\n")),
        size: Some(format!("{size}\n")),
        line_size: Some(format!("{line}\n")),
    }
}

fn intel_sources() -> Sources {
    Sources {
        cpuinfo: Some(INTEL_2S.into()),
        meminfo: Some(MEMINFO.into()),
        cpu_online: Some("0-3\n".into()),
        available_parallelism: Some(3),
        caches: vec![
            cache("1", "Data", "32K", "64"),
            cache("1", "Instruction", "32K", "64"),
            cache("2", "Unified", "1024K", "64"),
            cache("3", "Unified", "28160K", "64"),
        ],
        cpufreq_max_khz: Some("3700000\n".into()),
        cpufreq_base_khz: Some("2400000\n".into()),
        sysconf_page_size: Some(4096),
        machine_id: Some("3d1219c7c4c5404aaa1f6d2a48adfda4\n".into()),
        ..Sources::default()
    }
}

#[test]
fn intel_two_sockets() {
    let h = HostInfo::from_sources(&intel_sources());
    assert_eq!(h.model_name, "Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz");
    assert_eq!(h.vendor, CpuVendor::Intel);
    assert_eq!(h.vendor.pci_vendor_id(), 0x8086);
    assert_eq!(h.logical_cores, 4);
    assert_eq!(h.usable_cores, 3);
    assert_eq!(h.sockets, Some(2));
    assert_eq!(h.physical_cores, Some(4));
    assert_eq!(h.caches.len(), 4);
    assert_eq!(
        h.caches[0],
        CacheInfo {
            level: 1,
            kind: CacheKind::Data,
            size: 32 * 1024,
            line_size: 64
        }
    );
    assert_eq!(h.caches[1].kind, CacheKind::Instruction);
    assert_eq!(h.caches[3].size, 28160 * 1024);
    assert_eq!(h.cache_line_size(), 64);
    assert_eq!(h.total_memory, 24683656 * 1024);
    assert_eq!(h.available_memory, 24085868 * 1024);
    assert_eq!(h.max_clock_mhz, 3700);
    assert_eq!(h.base_clock_mhz, 2400);
    assert_eq!(h.page_size, 4096);
    assert_eq!(h.simd_width_f32, 16);
    assert!(h.has_flag("fma"));
    assert_eq!(h.memory_name, "DDR");
    assert_eq!(h.memory_speed_mts, 0);
    assert_eq!(h.memory_bus_width, DEFAULT_MEMORY_BUS_WIDTH);
}

#[test]
fn amd_without_cpufreq_or_sysfs_caches() {
    let src = Sources {
        cpuinfo: Some(AMD.into()),
        meminfo: Some("MemTotal: 2048 kB\nMemFree: 1024 kB\n".into()),
        ..Sources::default()
    };
    let h = HostInfo::from_sources(&src);
    assert_eq!(h.vendor, CpuVendor::Amd);
    assert_eq!(h.vendor.pci_vendor_id(), 0x1022);
    assert_eq!(h.model_name, "AMD EPYC");
    // No online list, no available_parallelism: count of `processor` lines.
    assert_eq!(h.logical_cores, 1);
    assert_eq!(h.usable_cores, 1);
    assert_eq!(h.sockets, Some(1));
    assert_eq!(h.physical_cores, Some(1));
    // `cpu MHz` rounds; no base frequency: the same.
    assert_eq!(h.max_clock_mhz, 2445);
    assert_eq!(h.base_clock_mhz, 2445);
    // Fallback cache from `cache size`.
    assert_eq!(
        h.caches,
        vec![CacheInfo {
            level: 0,
            kind: CacheKind::Unified,
            size: 512 * 1024,
            line_size: 64
        }]
    );
    assert_eq!(h.simd_width_f32, 8);
    assert_eq!(h.total_memory, 2048 * 1024);
    // No MemAvailable: MemFree.
    assert_eq!(h.available_memory, 1024 * 1024);
}

#[test]
fn arm_features() {
    let src = Sources {
        cpuinfo: Some(ARM.into()),
        cpu_online: Some("0-1".into()),
        ..Sources::default()
    };
    let h = HostInfo::from_sources(&src);
    assert_eq!(h.vendor, CpuVendor::Other);
    assert_eq!(h.vendor_id, "0x41");
    assert_eq!(h.model_name, format!("{} CPU", std::env::consts::ARCH));
    assert_eq!(h.logical_cores, 2);
    assert_eq!(h.sockets, None);
    assert_eq!(h.physical_cores, None);
    assert_eq!(h.simd_width_f32, 4);
    assert_eq!(h.max_clock_mhz, 0);
}

#[test]
fn empty_sources_give_documented_defaults() {
    let h = HostInfo::from_sources(&Sources::default());
    assert_eq!(h.model_name, format!("{} CPU", std::env::consts::ARCH));
    assert_eq!(h.vendor_id, "");
    assert_eq!(h.vendor, CpuVendor::Other);
    assert_eq!(h.logical_cores, 1);
    assert_eq!(h.usable_cores, 1);
    assert_eq!(h.physical_cores, None);
    assert_eq!(h.sockets, None);
    assert!(h.caches.is_empty());
    assert_eq!(h.cache_line_size(), DEFAULT_CACHE_LINE);
    assert_eq!(h.total_memory, DEFAULT_TOTAL_MEMORY);
    assert_eq!(h.available_memory, DEFAULT_TOTAL_MEMORY);
    assert_eq!(h.max_clock_mhz, 0);
    assert_eq!(h.base_clock_mhz, 0);
    assert_eq!(h.page_size, DEFAULT_PAGE_SIZE);
    assert_eq!(h.simd_width_f32, 1);
    assert_eq!(h.memory_name, "DDR");
}

#[test]
fn garbage_sources_do_not_panic() {
    let junk = "::::\n\0\u{fffd}:\nmodel name:\ncpu MHz: NaN\ncpu MHz: -5\nflags:\n\nprocessor\n";
    let src = Sources {
        cpuinfo: Some(junk.into()),
        meminfo: Some("MemTotal: lots kB\nMemAvailable: 99999999999999999999999 kB\n".into()),
        cpu_online: Some("3-1,x".into()),
        available_parallelism: Some(0),
        caches: vec![
            cache("x", "Weird", "12Q", "0"),
            CacheSource::default(),
            cache("2", "Unified", "18446744073709551615K", "64"),
        ],
        cpufreq_max_khz: Some("-1".into()),
        cpufreq_base_khz: Some("".into()),
        sysconf_page_size: Some(3000),
        smaps: Some("KernelPageSize:  16 kB\n".into()),
        sysconf_total_memory: Some(0),
        machine_id: Some("".into()),
        dmi_memory_devices: vec![vec![], vec![17], vec![17, 0xFF], vec![17, 0x40, 0, 0]],
    };
    let h = HostInfo::from_sources(&src);
    assert_eq!(h.logical_cores, 1);
    assert!(h.caches.is_empty());
    assert_eq!(h.total_memory, DEFAULT_TOTAL_MEMORY);
    assert_eq!(h.page_size, 16 * 1024); // sysconf value not a power of two: smaps
    assert_eq!(h.max_clock_mhz, 0);
}

#[test]
fn cpu_lists_and_sizes() {
    assert_eq!(parse_cpu_list("0"), Some(1));
    assert_eq!(parse_cpu_list("0-3,8,10-11\n"), Some(7));
    assert_eq!(parse_cpu_list(""), None);
    assert_eq!(parse_cpu_list("3-1"), None);
    assert_eq!(parse_size("32K"), Some(32 << 10));
    assert_eq!(parse_size("512 KB"), Some(512 << 10));
    assert_eq!(parse_size("2M"), Some(2 << 20));
    assert_eq!(parse_size("1 GiB"), Some(1 << 30));
    assert_eq!(parse_size("4096"), Some(4096));
    assert_eq!(parse_size("K"), None);
    assert_eq!(parse_size("12 parsecs"), None);
}

/// SMBIOS type 17 with length 0x28: width 64, size 16 GiB, DDR4, 3200 MT/s.
fn dmi_ddr4(speed: u16) -> Vec<u8> {
    let mut e = vec![0u8; 0x28];
    e[0] = 17;
    e[1] = 0x28;
    e[0x0A..0x0C].copy_from_slice(&64u16.to_le_bytes());
    e[0x0C..0x0E].copy_from_slice(&0x4000u16.to_le_bytes());
    e[0x12] = 0x1A;
    e[0x15..0x17].copy_from_slice(&speed.to_le_bytes());
    e
}

#[test]
fn smbios_memory_devices() {
    let mut empty_slot = dmi_ddr4(4800);
    empty_slot[0x0C] = 0;
    empty_slot[0x0D] = 0;
    let src = Sources {
        dmi_memory_devices: vec![dmi_ddr4(2933), empty_slot, dmi_ddr4(3200)],
        ..Sources::default()
    };
    let h = HostInfo::from_sources(&src);
    assert_eq!(h.memory_name, "DDR4");
    assert_eq!(h.memory_speed_mts, 3200);
    assert_eq!(h.memory_bus_width, 64);
}

#[test]
fn uuid_is_stable_and_input_dependent() {
    let a = HostInfo::from_sources(&intel_sources()).uuid;
    assert_eq!(a, HostInfo::from_sources(&intel_sources()).uuid);
    // RFC 9562 version 8, variant 10xx.
    assert_eq!(a[6] >> 4, 8);
    assert_eq!(a[8] >> 6, 0b10);
    let mut other = intel_sources();
    other.machine_id = Some("ffffffffffffffffffffffffffffffff".into());
    assert_ne!(a, HostInfo::from_sources(&other).uuid);
    // FNV-1a 128 reference values.
    assert_eq!(fnv1a_128(b""), 0x6c62272e07bb014262b821756295c58d);
    assert_eq!(fnv1a_128(b"a"), 0xd228cb696f1a8caf78912b704e4a8964);
}

#[test]
fn detect_on_this_machine() {
    let h = host();
    assert!(std::ptr::eq(h, host()), "host() is cached");
    // A second reading agrees, but for what moves between two moments: the free memory, and
    // the clocks where only `cpu MHz` of /proc/cpuinfo (the current frequency) tells them.
    let mut again = HostInfo::detect();
    again.available_memory = h.available_memory;
    again.max_clock_mhz = h.max_clock_mhz;
    again.base_clock_mhz = h.base_clock_mhz;
    assert_eq!(*h, again);
    assert!(h.logical_cores >= 1);
    assert!(h.usable_cores >= 1);
    assert!(h.total_memory > 0);
    assert!(h.available_memory <= h.total_memory);
    assert!(h.page_size.is_power_of_two() && h.page_size >= 4096);
    assert!(!h.model_name.is_empty());
    assert!([1, 4, 8, 16].contains(&h.simd_width_f32));
    let line = h.cache_line_size();
    assert!(
        line.is_power_of_two() && (16..=256).contains(&line),
        "cache line {line}"
    );
    if cfg!(target_os = "linux") {
        assert!(
            !h.caches.is_empty()
                || std::fs::metadata("/sys/devices/system/cpu/cpu0/cache").is_err()
        );
    }
    eprintln!(
        "{} ({}) logical {} usable {} physical {:?} sockets {:?} caches {:?} mem {}/{} clock {}/{} MHz \
         page {} simd {} memory {} {} MT/s {} bits uuid {:02x?}",
        h.model_name,
        h.vendor_id,
        h.logical_cores,
        h.usable_cores,
        h.physical_cores,
        h.sockets,
        h.caches,
        h.available_memory,
        h.total_memory,
        h.base_clock_mhz,
        h.max_clock_mhz,
        h.page_size,
        h.simd_width_f32,
        h.memory_name,
        h.memory_speed_mts,
        h.memory_bus_width,
        h.uuid
    );
}

#[test]
fn clock() {
    assert_eq!(timer_resolution_ns(), 1);
    assert_eq!(timer_frequency_hz(), 1_000_000_000);
    assert_eq!(timestamp_valid_bits(), 64);
    let a = now_ns();
    std::thread::sleep(std::time::Duration::from_millis(2));
    let b = now_ns();
    assert!(b > a);
    assert!(b - a >= 1_000_000, "slept 2 ms, clock moved {} ns", b - a);
}
