//! What the CPU driver knows about the machine it runs on.
//!
//! [`HostInfo`] is read once from the Linux host ([`host()`] caches [`HostInfo::detect()`]) and
//! feeds every device query in [`crate::model::properties`]. Reading is split in two so tests can feed
//! fixtures: [`Sources::read_host()`] gathers raw file contents (every file optional), and
//! [`HostInfo::from_sources()`] parses them. Nothing here panics: a missing or malformed source
//! falls back to the default documented on the field it feeds.
//!
//! | field | source (first that works) | default |
//! |---|---|---|
//! | `model_name` | `/proc/cpuinfo` `model name`, `Processor`, `cpu model`, `Hardware` | `"<arch> CPU"` |
//! | `vendor_id`, `vendor` | `/proc/cpuinfo` `vendor_id` (`CPU implementer` on Arm) | `""`, [`CpuVendor::Other`] |
//! | `logical_cores` | `/sys/devices/system/cpu/online`, `processor` lines, `available_parallelism` | 1 |
//! | `usable_cores` | `std::thread::available_parallelism` (affinity and cgroup quota) | `logical_cores` |
//! | `physical_cores`, `sockets` | distinct `physical id`/`core id` pairs in `/proc/cpuinfo` | `None` |
//! | `caches` | `/sys/devices/system/cpu/cpu0/cache/index*/{level,type,size,coherency_line_size}` | `cache size` of `/proc/cpuinfo` as one unified cache of unknown level, else none |
//! | `total_memory`, `available_memory` | `/proc/meminfo` `MemTotal`, `MemAvailable` (`MemFree`) | `sysconf` pages, else 1 GiB / total |
//! | `max_clock_mhz` | `cpufreq/cpuinfo_max_freq` (kHz), `cpu MHz`, `@ x.yzGHz` in the model name | 0 (unknown) |
//! | `base_clock_mhz` | `cpufreq/base_frequency` (kHz), `@ x.yzGHz` in the model name, `cpu MHz` | `max_clock_mhz` |
//! | `page_size` | `sysconf(_SC_PAGESIZE)`, `KernelPageSize` of `/proc/self/smaps` | 4096 |
//! | `simd_width_f32` | cpu flags: `avx512f` 16, `avx2`/`avx` 8, `sse2`/`asimd`/`neon` 4 | 1 |
//! | `memory_*` | SMBIOS type 17 entries in `/sys/firmware/dmi/entries/17-*/raw` (root only) | `"DDR"`, 0 MT/s, 64 bits |
//! | `uuid` | FNV-1a 128 of `/etc/machine-id` (`/var/lib/dbus/machine-id`), vendor and model | hash of vendor and model only |

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;
use std::sync::OnceLock;

/// Total memory assumed when neither `/proc/meminfo` nor `sysconf` answers: 1 GiB.
pub const DEFAULT_TOTAL_MEMORY: u64 = 1 << 30;
/// Page size assumed when neither `sysconf` nor `/proc/self/smaps` answers.
pub const DEFAULT_PAGE_SIZE: u64 = 4096;
/// Cache line size assumed when no source names one.
pub const DEFAULT_CACHE_LINE: u32 = 64;
/// Memory bus width assumed without SMBIOS data: one 64-bit DDR channel.
pub const DEFAULT_MEMORY_BUS_WIDTH: u32 = 64;

/// CPU vendor, from `vendor_id`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CpuVendor {
    /// `GenuineIntel`
    Intel,
    /// `AuthenticAMD`
    Amd,
    /// Anything else (Arm, Hygon, unknown...).
    Other,
}

impl CpuVendor {
    /// PCI vendor id: 0x8086 for Intel, 0x1022 for AMD, 0 otherwise.
    pub const fn pci_vendor_id(self) -> u32 {
        match self {
            CpuVendor::Intel => 0x8086,
            CpuVendor::Amd => 0x1022,
            CpuVendor::Other => 0,
        }
    }
}

/// Kind of one cache, from sysfs `type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CacheKind {
    /// `Data`
    Data,
    /// `Instruction`
    Instruction,
    /// `Unified`
    Unified,
    /// Anything else, or not said.
    Unknown,
}

/// One cache seen by cpu0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CacheInfo {
    /// Cache level (1, 2, 3...); 0 when unknown.
    pub level: u32,
    /// Data, instruction or unified.
    pub kind: CacheKind,
    /// Size in bytes.
    pub size: u64,
    /// Coherency line size in bytes ([`DEFAULT_CACHE_LINE`] when not said).
    pub line_size: u32,
}

/// Raw contents of the files of one `cpu0/cache/index*` folder.
#[derive(Clone, Debug, Default)]
pub struct CacheSource {
    /// `level`
    pub level: Option<String>,
    /// `type`
    pub kind: Option<String>,
    /// `size`, e.g. `32K`
    pub size: Option<String>,
    /// `coherency_line_size`
    pub line_size: Option<String>,
}

/// Raw inputs of [`HostInfo::from_sources`]: file contents and system answers, each optional.
#[derive(Clone, Debug, Default)]
pub struct Sources {
    /// `/proc/cpuinfo`
    pub cpuinfo: Option<String>,
    /// `/proc/meminfo`
    pub meminfo: Option<String>,
    /// `/sys/devices/system/cpu/online`, e.g. `0-3,8-11`
    pub cpu_online: Option<String>,
    /// `std::thread::available_parallelism()`
    pub available_parallelism: Option<usize>,
    /// `cpu0/cache/index*`, in index order
    pub caches: Vec<CacheSource>,
    /// `cpu0/cpufreq/cpuinfo_max_freq` (kHz)
    pub cpufreq_max_khz: Option<String>,
    /// `cpu0/cpufreq/base_frequency` (kHz, intel_pstate only)
    pub cpufreq_base_khz: Option<String>,
    /// `sysconf(_SC_PAGESIZE)`
    pub sysconf_page_size: Option<u64>,
    /// `/proc/self/smaps` (only its first `KernelPageSize` line is read)
    pub smaps: Option<String>,
    /// `sysconf(_SC_PHYS_PAGES) * page size`
    pub sysconf_total_memory: Option<u64>,
    /// `/etc/machine-id`
    pub machine_id: Option<String>,
    /// Raw SMBIOS type 17 (memory device) structures.
    pub dmi_memory_devices: Vec<Vec<u8>>,
}

fn read(path: impl AsRef<Path>) -> Option<String> {
    fs::read_to_string(path).ok()
}

impl Sources {
    /// Reads every source from this host. Missing files stay `None`; never fails.
    pub fn read_host() -> Sources {
        let cpu0 = Path::new("/sys/devices/system/cpu/cpu0");
        let mut caches = Vec::new();
        for i in 0..32 {
            let dir = cpu0.join(format!("cache/index{i}"));
            if !dir.is_dir() {
                break;
            }
            caches.push(CacheSource {
                level: read(dir.join("level")),
                kind: read(dir.join("type")),
                size: read(dir.join("size")),
                line_size: read(dir.join("coherency_line_size")),
            });
        }
        let mut dmi_memory_devices = Vec::new();
        if let Ok(rd) = fs::read_dir("/sys/firmware/dmi/entries") {
            let mut names: Vec<_> = rd
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("17-"))
                .collect();
            names.sort();
            for n in names {
                if let Ok(raw) = fs::read(format!("/sys/firmware/dmi/entries/{n}/raw")) {
                    dmi_memory_devices.push(raw);
                }
            }
        }
        let sysconf_page_size = sysconf_page_size();
        Sources {
            cpuinfo: read("/proc/cpuinfo"),
            meminfo: read("/proc/meminfo"),
            cpu_online: read("/sys/devices/system/cpu/online"),
            available_parallelism: std::thread::available_parallelism().ok().map(|n| n.get()),
            caches,
            cpufreq_max_khz: read(cpu0.join("cpufreq/cpuinfo_max_freq")),
            cpufreq_base_khz: read(cpu0.join("cpufreq/base_frequency")),
            sysconf_page_size,
            // Only consulted when sysconf has no answer: do not read the (large) file otherwise.
            smaps: if sysconf_page_size.is_none() {
                read("/proc/self/smaps")
            } else {
                None
            },
            sysconf_total_memory: sysconf_total_memory(sysconf_page_size),
            machine_id: read("/etc/machine-id").or_else(|| read("/var/lib/dbus/machine-id")),
            dmi_memory_devices,
        }
    }
}

fn sysconf_page_size() -> Option<u64> {
    // SAFETY: sysconf has no preconditions; it only reads a system constant.
    let v = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    u64::try_from(v).ok().filter(|&v| v > 0)
}

fn sysconf_total_memory(page: Option<u64>) -> Option<u64> {
    // SAFETY: sysconf has no preconditions; it only reads a system constant.
    let pages = unsafe { libc::sysconf(libc::_SC_PHYS_PAGES) };
    let pages = u64::try_from(pages).ok().filter(|&v| v > 0)?;
    pages.checked_mul(page?)
}

/// Everything the CPU driver reports about this host. See the module docs for sources and defaults.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostInfo {
    /// CPU model name, e.g. `AMD EPYC 7763 64-Core Processor`.
    pub model_name: String,
    /// Raw vendor string, e.g. `GenuineIntel`.
    pub vendor_id: String,
    /// Vendor decoded from `vendor_id`.
    pub vendor: CpuVendor,
    /// Online logical CPUs (hardware threads).
    pub logical_cores: u32,
    /// Logical CPUs this process may run on (affinity mask, cgroup quota); at least 1.
    pub usable_cores: u32,
    /// Physical cores over all sockets, when `/proc/cpuinfo` tells.
    pub physical_cores: Option<u32>,
    /// Sockets (packages), when `/proc/cpuinfo` tells.
    pub sockets: Option<u32>,
    /// Caches of cpu0, in sysfs index order.
    pub caches: Vec<CacheInfo>,
    /// Total physical memory in bytes.
    pub total_memory: u64,
    /// Memory available for new allocations in bytes (`MemAvailable`).
    pub available_memory: u64,
    /// Maximum core clock in MHz; 0 when unknown.
    pub max_clock_mhz: u32,
    /// Base (nominal) core clock in MHz; 0 when unknown.
    pub base_clock_mhz: u32,
    /// Page size in bytes.
    pub page_size: u64,
    /// f32 lanes of the widest vector unit the cpu flags announce.
    pub simd_width_f32: u32,
    /// CPU flags (`flags` on x86, `Features` on Arm), sorted.
    pub cpu_flags: BTreeSet<String>,
    /// Memory technology from SMBIOS (`DDR4`, `DDR5`...), `DDR` when unknown.
    pub memory_name: String,
    /// Fastest memory device speed from SMBIOS in MT/s; 0 when unknown.
    pub memory_speed_mts: u32,
    /// Memory data width in bits from SMBIOS; [`DEFAULT_MEMORY_BUS_WIDTH`] when unknown.
    pub memory_bus_width: u32,
    /// Stable device UUID (RFC 4122 variant, version 8: hash-derived).
    pub uuid: [u8; 16],
}

/// The host, detected once per process.
pub fn host() -> &'static HostInfo {
    static HOST: OnceLock<HostInfo> = OnceLock::new();
    HOST.get_or_init(HostInfo::detect)
}

impl HostInfo {
    /// Reads this host (uncached; prefer [`host()`]).
    pub fn detect() -> HostInfo {
        HostInfo::from_sources(&Sources::read_host())
    }

    /// Parses raw sources. Never panics; see the module docs for fallbacks.
    pub fn from_sources(src: &Sources) -> HostInfo {
        let cpu = src
            .cpuinfo
            .as_deref()
            .map(parse_cpuinfo)
            .unwrap_or_default();

        let model_name = cpu
            .first("model name")
            .or_else(|| cpu.first("Processor"))
            .or_else(|| cpu.first("cpu model"))
            .or_else(|| cpu.first("Hardware"))
            .map(str::to_owned)
            .unwrap_or_else(|| format!("{} CPU", std::env::consts::ARCH));
        let vendor_id = cpu
            .first("vendor_id")
            .or_else(|| cpu.first("CPU implementer"))
            .unwrap_or("")
            .to_owned();
        let vendor = match vendor_id.as_str() {
            "GenuineIntel" => CpuVendor::Intel,
            "AuthenticAMD" => CpuVendor::Amd,
            _ => CpuVendor::Other,
        };

        let online = src.cpu_online.as_deref().and_then(parse_cpu_list);
        let listed = u32::try_from(
            cpu.blocks
                .iter()
                .filter(|b| b.get("processor").is_some())
                .count(),
        )
        .ok()
        .filter(|&n| n > 0);
        let parallel = src
            .available_parallelism
            .and_then(|n| u32::try_from(n).ok())
            .filter(|&n| n > 0);
        let logical_cores = online.or(listed).or(parallel).unwrap_or(1);
        let usable_cores = parallel.unwrap_or(logical_cores);

        // Topology: distinct (physical id, core id) pairs.
        let mut packages = BTreeSet::new();
        let mut cores = BTreeSet::new();
        for b in &cpu.blocks {
            if let (Some(p), Some(c)) = (b.get("physical id"), b.get("core id")) {
                packages.insert(p.to_owned());
                cores.insert((p.to_owned(), c.to_owned()));
            } else if let Some(p) = b.get("physical id") {
                packages.insert(p.to_owned());
            }
        }
        let sockets = u32::try_from(packages.len()).ok().filter(|&n| n > 0);
        let physical_cores = u32::try_from(cores.len())
            .ok()
            .filter(|&n| n > 0)
            .or_else(|| {
                let per = cpu.first("cpu cores").and_then(|v| v.parse::<u32>().ok())?;
                per.checked_mul(sockets.unwrap_or(1))
            });

        let fallback_line = cpu
            .first("cache_alignment")
            .or_else(|| cpu.first("clflush size"))
            .and_then(|v| v.parse::<u32>().ok())
            .filter(|&v| v > 0)
            .unwrap_or(DEFAULT_CACHE_LINE);
        let mut caches: Vec<CacheInfo> = src
            .caches
            .iter()
            .filter_map(|c| {
                let size = parse_size(c.size.as_deref()?)?;
                let level = c
                    .level
                    .as_deref()
                    .and_then(|v| v.trim().parse().ok())
                    .unwrap_or(0);
                let kind = match c.kind.as_deref().map(str::trim) {
                    Some("Data") => CacheKind::Data,
                    Some("Instruction") => CacheKind::Instruction,
                    Some("Unified") => CacheKind::Unified,
                    _ => CacheKind::Unknown,
                };
                let line_size = c
                    .line_size
                    .as_deref()
                    .and_then(|v| v.trim().parse().ok())
                    .filter(|&v| v > 0)
                    .unwrap_or(fallback_line);
                Some(CacheInfo {
                    level,
                    kind,
                    size,
                    line_size,
                })
            })
            .collect();
        if caches.is_empty() {
            if let Some(size) = cpu.first("cache size").and_then(parse_size) {
                caches.push(CacheInfo {
                    level: 0,
                    kind: CacheKind::Unified,
                    size,
                    line_size: fallback_line,
                });
            }
        }

        let mem = src
            .meminfo
            .as_deref()
            .map(parse_meminfo)
            .unwrap_or_default();
        let total_memory = mem
            .total
            .or(src.sysconf_total_memory)
            .filter(|&v| v > 0)
            .unwrap_or(DEFAULT_TOTAL_MEMORY);
        let available_memory = mem.available.unwrap_or(total_memory).min(total_memory);

        let khz_to_mhz = |s: &Option<String>| -> Option<u32> {
            let khz: u64 = s.as_deref()?.trim().parse().ok()?;
            u32::try_from(khz / 1000).ok().filter(|&v| v > 0)
        };
        let cpuinfo_mhz = cpu
            .first("cpu MHz")
            .and_then(|v| v.parse::<f64>().ok())
            .filter(|v| v.is_finite() && *v >= 1.0 && *v < f64::from(u32::MAX))
            .map(|v| v.round() as u32);
        let model_mhz = model_ghz(&model_name);
        let max_clock_mhz = khz_to_mhz(&src.cpufreq_max_khz)
            .or(cpuinfo_mhz)
            .or(model_mhz)
            .unwrap_or(0);
        let base_clock_mhz = khz_to_mhz(&src.cpufreq_base_khz)
            .or(model_mhz)
            .or(cpuinfo_mhz)
            .unwrap_or(max_clock_mhz);

        let page_size = src
            .sysconf_page_size
            .filter(|v| v.is_power_of_two())
            .or_else(|| src.smaps.as_deref().and_then(parse_smaps_page_size))
            .unwrap_or(DEFAULT_PAGE_SIZE);

        let cpu_flags: BTreeSet<String> = cpu
            .first("flags")
            .or_else(|| cpu.first("Features"))
            .unwrap_or("")
            .split_whitespace()
            .map(str::to_owned)
            .collect();
        let has = |f: &str| cpu_flags.contains(f);
        let simd_width_f32 = if has("avx512f") {
            16
        } else if has("avx2") || has("avx") {
            8
        } else if has("sse2") || has("asimd") || has("neon") {
            4
        } else {
            1
        };

        let dmi = parse_dmi_memory(&src.dmi_memory_devices);

        let mut seed = Vec::new();
        if let Some(id) = src
            .machine_id
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
        {
            seed.extend_from_slice(id.as_bytes());
        }
        seed.push(0);
        seed.extend_from_slice(vendor_id.as_bytes());
        seed.push(0);
        seed.extend_from_slice(model_name.as_bytes());
        let uuid = uuid_from_hash(fnv1a_128(&seed));

        HostInfo {
            model_name,
            vendor_id,
            vendor,
            logical_cores,
            usable_cores,
            physical_cores,
            sockets,
            caches,
            total_memory,
            available_memory,
            max_clock_mhz,
            base_clock_mhz,
            page_size,
            simd_width_f32,
            cpu_flags,
            memory_name: dmi.name.unwrap_or_else(|| "DDR".to_owned()),
            memory_speed_mts: dmi.speed_mts.unwrap_or(0),
            memory_bus_width: dmi.bus_width.unwrap_or(DEFAULT_MEMORY_BUS_WIDTH),
            uuid,
        }
    }

    /// Line size of the first-level data cache (else of the first cache known, else
    /// [`DEFAULT_CACHE_LINE`]).
    pub fn cache_line_size(&self) -> u32 {
        self.caches
            .iter()
            .find(|c| c.level == 1 && c.kind == CacheKind::Data)
            .or_else(|| self.caches.first())
            .map_or(DEFAULT_CACHE_LINE, |c| c.line_size)
    }

    /// Whether the cpu flags list `flag` (e.g. `fma`, `f16c`, `avx512f`).
    pub fn has_flag(&self, flag: &str) -> bool {
        self.cpu_flags.contains(flag)
    }

    /// Memory available right now (`MemAvailable`, else `MemFree`, of a fresh read of
    /// `/proc/meminfo`), at most `total_memory`; [`HostInfo::available_memory`] when unreadable.
    pub fn current_available_memory(&self) -> u64 {
        read("/proc/meminfo")
            .and_then(|text| parse_meminfo(&text).available)
            .unwrap_or(self.available_memory)
            .min(self.total_memory)
    }
}

// ---------------------------------------------------------------- parsers

#[derive(Default)]
struct CpuInfo {
    /// One map per blank-line separated block, keys and values trimmed.
    blocks: Vec<Vec<(String, String)>>,
}

trait Block {
    fn get(&self, key: &str) -> Option<&str>;
}

impl Block for Vec<(String, String)> {
    fn get(&self, key: &str) -> Option<&str> {
        self.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
}

impl CpuInfo {
    fn first(&self, key: &str) -> Option<&str> {
        self.blocks
            .iter()
            .find_map(|b| b.get(key))
            .filter(|v| !v.is_empty())
    }
}

fn parse_cpuinfo(text: &str) -> CpuInfo {
    let mut blocks = Vec::new();
    let mut cur = Vec::new();
    for line in text.lines() {
        if line.trim().is_empty() {
            if !cur.is_empty() {
                blocks.push(std::mem::take(&mut cur));
            }
            continue;
        }
        if let Some((k, v)) = line.split_once(':') {
            cur.push((k.trim().to_owned(), v.trim().to_owned()));
        }
    }
    if !cur.is_empty() {
        blocks.push(cur);
    }
    CpuInfo { blocks }
}

/// Counts the CPUs of a sysfs cpu list such as `0-3,8,10-11`. `None` when malformed or empty.
pub fn parse_cpu_list(text: &str) -> Option<u32> {
    let mut n: u32 = 0;
    for part in text
        .trim()
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
    {
        let count = match part.split_once('-') {
            Some((a, b)) => {
                let a: u32 = a.trim().parse().ok()?;
                let b: u32 = b.trim().parse().ok()?;
                b.checked_sub(a)?.checked_add(1)?
            }
            None => {
                part.parse::<u32>().ok()?;
                1
            }
        };
        n = n.checked_add(count)?;
    }
    (n > 0).then_some(n)
}

/// Parses sizes such as `32K`, `512 KB`, `32768K`, `1M`, `2 GiB`, `4096` into bytes.
pub fn parse_size(text: &str) -> Option<u64> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let num: u64 = num.parse().ok()?;
    let mult: u64 = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 1,
        "K" | "KB" | "KIB" => 1 << 10,
        "M" | "MB" | "MIB" => 1 << 20,
        "G" | "GB" | "GIB" => 1 << 30,
        _ => return None,
    };
    num.checked_mul(mult).filter(|&v| v > 0)
}

#[derive(Default)]
struct MemInfo {
    total: Option<u64>,
    available: Option<u64>,
}

fn parse_meminfo(text: &str) -> MemInfo {
    let mut total = None;
    let mut available = None;
    let mut free = None;
    for line in text.lines() {
        let Some((k, v)) = line.split_once(':') else {
            continue;
        };
        let v = parse_size(v);
        match k.trim() {
            "MemTotal" => total = v,
            "MemAvailable" => available = v,
            "MemFree" => free = v,
            _ => {}
        }
    }
    MemInfo {
        total,
        available: available.or(free),
    }
}

fn parse_smaps_page_size(text: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| l.strip_prefix("KernelPageSize:"))
        .and_then(parse_size)
        .filter(|v| v.is_power_of_two())
}

/// `@ 2.40GHz` at the end of Intel model names, in MHz.
fn model_ghz(model: &str) -> Option<u32> {
    let at = model.rfind('@')?;
    let rest = model[at + 1..].trim();
    let num = rest
        .strip_suffix("GHz")
        .or_else(|| rest.strip_suffix("GHZ"))?
        .trim();
    let ghz: f64 = num.parse().ok()?;
    (ghz.is_finite() && ghz > 0.0 && ghz < 1000.0).then(|| (ghz * 1000.0).round() as u32)
}

#[derive(Default)]
struct DmiMemory {
    name: Option<String>,
    speed_mts: Option<u32>,
    bus_width: Option<u32>,
}

/// SMBIOS type 17 (Memory Device): length at 1, data width at 0x0A (word, bits), size at 0x0C
/// (word; 0 = slot empty), memory type at 0x12 (byte), speed at 0x15 (word, MT/s).
fn parse_dmi_memory(entries: &[Vec<u8>]) -> DmiMemory {
    let word = |e: &[u8], off: usize| -> Option<u16> {
        let len = usize::from(*e.get(1)?);
        if off + 2 > len {
            return None;
        }
        Some(u16::from_le_bytes([*e.get(off)?, *e.get(off + 1)?]))
    };
    let mut out = DmiMemory::default();
    for e in entries {
        if e.first() != Some(&17) {
            continue;
        }
        // An empty slot reports size 0.
        if word(e, 0x0C).unwrap_or(0) == 0 {
            continue;
        }
        if let Some(w) = word(e, 0x0A).filter(|&w| w != 0 && w != 0xFFFF) {
            out.bus_width = Some(u32::from(w).max(out.bus_width.unwrap_or(0)));
        }
        if let Some(s) = word(e, 0x15).filter(|&s| s != 0 && s != 0xFFFF) {
            out.speed_mts = Some(u32::from(s).max(out.speed_mts.unwrap_or(0)));
        }
        let len = usize::from(e.get(1).copied().unwrap_or(0));
        if out.name.is_none() && len > 0x12 {
            out.name = match e.get(0x12) {
                Some(0x12) => Some("DDR"),
                Some(0x13) => Some("DDR2"),
                Some(0x18) => Some("DDR3"),
                Some(0x1A) => Some("DDR4"),
                Some(0x1B) => Some("LPDDR"),
                Some(0x1C) => Some("LPDDR2"),
                Some(0x1D) => Some("LPDDR3"),
                Some(0x1E) => Some("LPDDR4"),
                Some(0x22) => Some("DDR5"),
                Some(0x23) => Some("LPDDR5"),
                Some(0x1F) => Some("Logical non-volatile device"),
                Some(0x20) => Some("HBM"),
                Some(0x21) => Some("HBM2"),
                Some(0x24) => Some("HBM3"),
                _ => None,
            }
            .map(str::to_owned);
        }
    }
    out
}

// ---------------------------------------------------------------- hashing

const FNV128_OFFSET: u128 = 0x6c62272e07bb014262b821756295c58d;
const FNV128_PRIME: u128 = 0x0000000001000000000000000000013B;

/// FNV-1a, 128-bit. Stable across Rust versions and platforms (unlike `DefaultHasher`).
pub fn fnv1a_128(bytes: &[u8]) -> u128 {
    bytes.iter().fold(FNV128_OFFSET, |h, &b| {
        (h ^ u128::from(b)).wrapping_mul(FNV128_PRIME)
    })
}

/// 16 bytes of a hash, marked as an RFC 4122 / RFC 9562 version 8 (custom) UUID.
fn uuid_from_hash(h: u128) -> [u8; 16] {
    let mut id = h.to_be_bytes();
    id[6] = (id[6] & 0x0F) | 0x80;
    id[8] = (id[8] & 0x3F) | 0x80;
    id
}

// ---------------------------------------------------------------- time

/// Nanoseconds of `CLOCK_MONOTONIC_RAW` (not slewed by NTP, not changed by settimeofday).
///
/// The same clock serves as host and device clock, so host and device timestamps agree. If the
/// clock cannot be read (never on Linux), falls back to `std::time::Instant` since first use.
pub fn now_ns() -> u64 {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid, writable timespec for the duration of the call.
        let rc = unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC_RAW, &mut ts) };
        if rc == 0 {
            if let (Ok(s), Ok(ns)) = (u64::try_from(ts.tv_sec), u64::try_from(ts.tv_nsec)) {
                return s.wrapping_mul(1_000_000_000).wrapping_add(ns);
            }
        }
    }
    static START: OnceLock<std::time::Instant> = OnceLock::new();
    let start = START.get_or_init(std::time::Instant::now);
    u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

/// Resolution of [`now_ns`]: one tick is 1 ns.
pub const fn timer_resolution_ns() -> u64 {
    1
}

/// Ticks per second of [`now_ns`] (the `ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2` unit).
pub const fn timer_frequency_hz() -> u64 {
    1_000_000_000
}

/// Valid bits of [`now_ns`] values: all 64 (wraps after ~584 years).
pub const fn timestamp_valid_bits() -> u32 {
    64
}
