//! Device queries of the CPU driver as pure functions of a [`HostInfo`].
//!
//! Every device query of the Level Zero 1.18 "Device" page has a function here; the C-ABI layer
//! validates handles and pointers, then calls these. Functions filling a `zekit_sys` struct write
//! only `[out]` members: `stype` and `pNext` are left as the application set them.
//!
//! | query | function | what the CPU driver answers |
//! |---|---|---|
//! | `zeDeviceGet` | [`device_count`] | 1 device: the whole host CPU |
//! | `zeDeviceGetSubDevices` | [`sub_device_count`] | 0 sub-devices |
//! | `zeDeviceGetProperties` | [`fill_device_properties`] | type CPU (GPU with `ZEKIT_DEVICE_TYPE=gpu`, [`fill_device_properties_as`]); vendorId 0x8086 (Intel) / 0x1022 (AMD) / 0; deviceId 0; flags 0; coreClockRate = max clock MHz; maxMemAllocSize = total memory; maxHardwareContexts = usable cores; maxCommandQueuePriority 0; numThreadsPerEU 1; physicalEUSimdWidth = f32 SIMD lanes; numEUsPerSubslice 1; numSubslicesPerSlice = usable cores; numSlices 1; timerResolution 1 (ns) for `..._DEVICE_PROPERTIES`, 1e9 (cycles/s) for `..._DEVICE_PROPERTIES_1_2`; timestampValidBits 64; kernelTimestampValidBits 64; uuid = host UUID; name `zekit CPU: <model>` |
//! | `zeDeviceGetComputeProperties` | [`fill_compute_properties`] | maxTotalGroupSize 1024, group size 1024 per dimension, group count `u32::MAX` per dimension, maxSharedLocalMemory 64 KiB, one subgroup size, 8 (the SPIR-V compiler's sub-groups) |
//! | `zeDeviceGetModuleProperties` | [`fill_module_properties`] | spirvVersionSupported 1.6 (`zekit-spirv`), flags FP16 \| FP64 \| INT64_ATOMICS, fp16 flags [`fp16_flags`] (denorm, inf/nan, round to nearest, correctly rounded div/sqrt), fp32 and fp64 flags from the host FPU (denorm, inf/nan, all IEEE rounding modes, correctly rounded div/sqrt, FMA when the CPU has it), maxArgumentsSize 2048, printfBufferSize 4 MiB, no native kernel UUID |
//! | `zeDeviceGetCommandQueueGroupProperties` | [`command_queue_groups`], [`fill_command_queue_group_properties`] | 2 groups: 0 = COMPUTE \| COPY \| COOPERATIVE_KERNELS with one queue index per usable core, 1 = COPY with one; maxMemoryFillPatternSize [`MAX_FILL_PATTERN_SIZE`] (`SIZE_MAX`: any pattern) |
//! | `zeDeviceGetMemoryProperties` | [`memory_properties`], [`fill_memory_properties`] | 1 memory: name from SMBIOS (`DDR4`...) else `DDR`, maxClockRate = SMBIOS speed in MT/s else 0 (unknown), maxBusWidth = SMBIOS data width else 64, totalSize = total memory |
//! | `zeDeviceGetMemoryAccessProperties` | [`fill_memory_access_properties`] | host, device, shared single-device, shared cross-device and shared system allocations: RW \| ATOMIC \| CONCURRENT \| CONCURRENT_ATOMIC (it is all host memory) |
//! | `zeDeviceGetCacheProperties` | [`cache_properties`], [`fill_cache_properties`] | one entry per data/unified cache level of cpu0 (L1d, L2, L3...), cacheSize in bytes, flags 0 |
//! | `zeDeviceGetImageProperties` | [`fill_image_properties`] | the limits `zeImageCreate` enforces (`model::image_objects::LIMITS`): 16384 (1D, 2D), 2048 (3D, array layers), buffers up to `maxMemAllocSize`, 16 samplers, 128 image arguments |
//! | `zeDeviceGetExternalMemoryProperties` | [`fill_external_memory_properties`] | allocations: import and export `OPAQUE_FD` (a memfd); images: 0 (image storage is not exportable) |
//! | `zeDeviceGetP2PProperties` | [`fill_p2p_properties`] | ACCESS \| ATOMICS with itself (same memory), 0 with any other device |
//! | `zeDeviceCanAccessPeer` | [`can_access_peer`] | true for the same device (as the spec requires), false otherwise |
//! | `zeDeviceGetStatus` | [`device_status`] | `ZE_RESULT_SUCCESS`: the host CPU is never lost or reset |
//! | `zeDeviceGetGlobalTimestamps` | [`global_timestamps`] | (host ns, device ticks) from one `CLOCK_MONOTONIC_RAW` sample: equal |
//! | `zeDeviceGetRootDevice` | [`root_device`] | `None` (null): the device is a root device |
//! | `zeDeviceSynchronize` | [`synchronize_result`] | `ZE_RESULT_SUCCESS` once everything submitted to the device's queues and immediate lists before the call has run |
//! | `zeDeviceGetAggregatedCopyOffloadIncrementValue` | [`aggregated_copy_offload_increment_value`] | 1: a copy is never split over several engines |
//! | `zeDeviceGetRuntimeRequirements` | [`runtime_requirements`] | `ZEKIT.L0.CPU;arch=<arch>;simd=<lanes>` |
//! | `zeDeviceGetRuntimeRequirementsKey` | [`runtime_requirements_key`] | `ZEKIT.L0.CPU` |
//! | `zeDeviceValidateRuntimeRequirements` | [`validate_runtime_requirements`] | other key: NOT_APPLICABLE; other arch or wider SIMD: NOT_MET; narrower SIMD: MET_RECOMPILATION_ADVISABLE; same: MET |
//! | `zeDeviceGetCounterBasedEventMaxValue` | [`counter_based_event_max_value`] | `u64::MAX`: counters are 64-bit host words |
//! | `zeDeviceGetCompilerInfo` | [`compiler_info`] | every known parameter: empty (size 0), there is no compiler; unknown: `None` (invalid enumeration) |

use std::ffi::CStr;

use zekit_sys::*;

use crate::model::objects::DeviceKind;
use crate::host::{
    now_ns, timer_frequency_hz, timer_resolution_ns, timestamp_valid_bits, CacheKind, HostInfo,
};

/// Largest pattern `zeCommandListAppendMemoryFill` accepts (bytes): any. A CPU fill is a copy
/// loop with no hardware limit (the pattern is copied into the command), so, as compute-runtime
/// reports for its compute engines, the maximum is `SIZE_MAX`.
pub const MAX_FILL_PATTERN_SIZE: usize = usize::MAX;
/// Largest work-group (items), and per dimension.
pub const MAX_GROUP_SIZE: u32 = 1024;
/// Shared local memory per group: emulated in host memory; 64 KiB like common GPU devices.
pub const MAX_SHARED_LOCAL_MEMORY: u32 = 64 * 1024;
/// The limits the shared Level Zero rules read ([`zekit_rules`]); allocations replace
/// `max_mem_alloc_size` (from the host) and `max_alignment` with their manager's.
pub const LIMITS: zekit_rules::Limits = zekit_rules::Limits {
    max_group_size: [MAX_GROUP_SIZE; 3],
    max_total_group_size: MAX_GROUP_SIZE,
    max_shared_local_memory: MAX_SHARED_LOCAL_MEMORY as usize,
    max_mem_alloc_size: u64::MAX,
    max_alignment: usize::MAX,
};
/// Largest total size of kernel arguments (bytes).
pub const MAX_ARGUMENTS_SIZE: u32 = 2048;
/// Size of the printf buffer of a kernel (bytes).
pub const PRINTF_BUFFER_SIZE: u32 = 4 * 1024 * 1024;
/// Producer key of runtime requirements.
pub const RUNTIME_REQUIREMENTS_KEY: &CStr = c"ZEKIT.L0.CPU";

pub use zekit_icd_rt::conv::{fill_counted, write_c_str as write_c_string};

/// `zeDeviceGet`: the driver exposes one device.
pub const fn device_count() -> u32 {
    1
}

/// `zeDeviceGetSubDevices`: no sub-devices.
pub const fn sub_device_count() -> u32 {
    0
}

/// Device name: `zekit CPU: <model>`.
pub fn device_name(host: &HostInfo) -> String {
    format!("zekit CPU: {}", host.model_name)
}

/// `zeDeviceGetProperties` of the CPU device. `timerResolution` depends on `p.stype`: cycles/s
/// (1e9) for `ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2`, ns per tick (1) otherwise.
pub fn fill_device_properties(host: &HostInfo, p: &mut ze_device_properties_t) {
    fill_device_properties_as(host, DeviceKind::Cpu, p);
}

/// [`fill_device_properties`] for a device that reports itself as a `kind` (`ZEKIT_DEVICE_TYPE`):
/// only `type` differs.
pub fn fill_device_properties_as(host: &HostInfo, kind: DeviceKind, p: &mut ze_device_properties_t) {
    p.r#type = kind.device_type();
    p.vendorId = host.vendor.pci_vendor_id();
    p.deviceId = 0;
    p.flags = ze_device_property_flags_t::empty();
    p.subdeviceId = 0;
    p.coreClockRate = host.max_clock_mhz;
    p.maxMemAllocSize = host.total_memory;
    p.maxHardwareContexts = host.usable_cores;
    p.maxCommandQueuePriority = 0;
    p.numThreadsPerEU = 1;
    p.physicalEUSimdWidth = host.simd_width_f32;
    p.numEUsPerSubslice = 1;
    p.numSubslicesPerSlice = host.usable_cores;
    p.numSlices = 1;
    p.timerResolution = if p.stype == ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2 {
        timer_frequency_hz()
    } else {
        timer_resolution_ns()
    };
    p.timestampValidBits = timestamp_valid_bits();
    p.kernelTimestampValidBits = timestamp_valid_bits();
    p.uuid = ze_device_uuid_t { id: host.uuid };
    write_c_string(&mut p.name, &device_name(host));
}

/// `zeDeviceGetComputeProperties` (nothing in it depends on the host any more: the sub-group
/// size is the compiler's, not the SIMD width).
pub fn fill_compute_properties(_host: &HostInfo, p: &mut ze_device_compute_properties_t) {
    p.maxTotalGroupSize = MAX_GROUP_SIZE;
    p.maxGroupSizeX = MAX_GROUP_SIZE;
    p.maxGroupSizeY = MAX_GROUP_SIZE;
    p.maxGroupSizeZ = MAX_GROUP_SIZE;
    p.maxGroupCountX = u32::MAX;
    p.maxGroupCountY = u32::MAX;
    p.maxGroupCountZ = u32::MAX;
    p.maxSharedLocalMemory = MAX_SHARED_LOCAL_MEMORY;
    // The compiler's sub-groups: consecutive work-items, 8 unless a kernel requires another
    // of these sizes (zekit-spirv).
    let sizes = zekit_spirv::ir::SUB_GROUP_SIZES;
    p.numSubGroupSizes = sizes.len() as u32;
    p.subGroupSizes = [0; 8];
    p.subGroupSizes[..sizes.len()].copy_from_slice(&sizes);
}

/// Single-precision capabilities of the host FPU (IEEE 754: denormals, inf/NaN, all rounding
/// modes, correctly rounded divide and sqrt; FMA when the CPU has it).
pub fn fp32_flags(host: &HostInfo) -> ze_device_fp_flags_t {
    let mut f = ze_device_fp_flags_t::DENORM
        | ze_device_fp_flags_t::INF_NAN
        | ze_device_fp_flags_t::ROUND_TO_NEAREST
        | ze_device_fp_flags_t::ROUND_TO_ZERO
        | ze_device_fp_flags_t::ROUND_TO_INF
        | ze_device_fp_flags_t::ROUNDED_DIVIDE_SQRT;
    // x86: `fma` flag; AArch64: `asimd` implies fused multiply-add.
    if host.has_flag("fma") || host.has_flag("asimd") || host.has_flag("avx512f") {
        f |= ze_device_fp_flags_t::FMA;
    }
    f
}

/// Newest SPIR-V version `zeModuleCreate` takes (`zekit-spirv` reads 1.0 to 1.6 headers).
pub const SPIRV_VERSION: u32 = ZE_MAKE_VERSION(1, 6);

/// Half-precision capabilities: `zekit-spirv` computes half arithmetic in single precision and
/// rounds each result to half (to nearest even). Single precision holds every sum, product,
/// quotient and root of halves exactly enough for that one rounding to be the correct one
/// (24 ≥ 2 × 11 + 2 bits), denormal halves are exact in it, inf and NaN pass through; other
/// rounding modes and a single-rounding fused multiply-add are not offered.
pub fn fp16_flags() -> ze_device_fp_flags_t {
    ze_device_fp_flags_t::DENORM
        | ze_device_fp_flags_t::INF_NAN
        | ze_device_fp_flags_t::ROUND_TO_NEAREST
        | ze_device_fp_flags_t::ROUNDED_DIVIDE_SQRT
}

/// `zeDeviceGetModuleProperties`: SPIR-V up to 1.6 (OpenCL kernels, see `zekit-spirv`); fp16,
/// fp64 and 8/16/64-bit integers are compiled.
pub fn fill_module_properties(host: &HostInfo, p: &mut ze_device_module_properties_t) {
    p.spirvVersionSupported = SPIRV_VERSION;
    p.flags = ze_device_module_flags_t::FP16 | ze_device_module_flags_t::FP64 | ze_device_module_flags_t::INT64_ATOMICS;
    p.fp16flags = fp16_flags();
    p.fp32flags = fp32_flags(host);
    // Doubles run on the same FPU as floats.
    p.fp64flags = fp32_flags(host);
    p.maxArgumentsSize = MAX_ARGUMENTS_SIZE;
    p.printfBufferSize = PRINTF_BUFFER_SIZE;
    p.nativeKernelSupported = ze_native_kernel_uuid_t { id: [0; 16] };
}

/// One command queue group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueGroup {
    /// What the group executes.
    pub flags: ze_command_queue_group_property_flags_t,
    /// Largest fill pattern in bytes.
    pub max_memory_fill_pattern_size: usize,
    /// Queue indices of the group (`0..num_queues`).
    pub num_queues: u32,
}

/// Ordinal of the compute group.
pub const COMPUTE_GROUP: u32 = 0;
/// Ordinal of the copy group.
pub const COPY_GROUP: u32 = 1;

/// Command queue groups, in ordinal order:
///
/// | ordinal | flags | numQueues |
/// |---|---|---|
/// | 0 ([`COMPUTE_GROUP`]) | COMPUTE \| COPY \| COOPERATIVE_KERNELS | usable cores |
/// | 1 ([`COPY_GROUP`]) | COPY | 1 |
///
/// Both fill patterns of any size ([`MAX_FILL_PATTERN_SIZE`]). Every command queue (and immediate
/// command list) gets a thread of its own whatever its index, and large copies and fills of any
/// queue are split over the one worker pool; the index only names the queue
/// (`zeCommandQueueGetIndex`). Compute offers an index per core; copy is memory-bound, so it
/// offers one.
pub fn command_queue_groups(host: &HostInfo) -> Vec<QueueGroup> {
    vec![
        QueueGroup {
            flags: ze_command_queue_group_property_flags_t::COMPUTE
                | ze_command_queue_group_property_flags_t::COPY
                | ze_command_queue_group_property_flags_t::COOPERATIVE_KERNELS,
            max_memory_fill_pattern_size: MAX_FILL_PATTERN_SIZE,
            num_queues: host.usable_cores.max(1),
        },
        QueueGroup {
            flags: ze_command_queue_group_property_flags_t::COPY,
            max_memory_fill_pattern_size: MAX_FILL_PATTERN_SIZE,
            num_queues: 1,
        },
    ]
}

/// `zeDeviceGetCommandQueueGroupProperties` with [`fill_counted`] semantics.
pub fn fill_command_queue_group_properties(
    host: &HostInfo,
    count: &mut u32,
    out: Option<&mut [ze_command_queue_group_properties_t]>,
) {
    fill_counted(&command_queue_groups(host), count, out, |g, p| {
        p.flags = g.flags;
        p.maxMemoryFillPatternSize = g.max_memory_fill_pattern_size;
        p.numQueues = g.num_queues;
    });
}

/// One device memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryEntry {
    /// Memory name (`DDR`, `DDR4`...).
    pub name: String,
    /// Maximum clock (SMBIOS speed, MT/s); 0 when unknown.
    pub max_clock_rate: u32,
    /// Bus width in bits.
    pub max_bus_width: u32,
    /// Total bytes.
    pub total_size: u64,
}

/// Device memories: the system memory.
pub fn memory_properties(host: &HostInfo) -> Vec<MemoryEntry> {
    vec![MemoryEntry {
        name: host.memory_name.clone(),
        max_clock_rate: host.memory_speed_mts,
        max_bus_width: host.memory_bus_width,
        total_size: host.total_memory,
    }]
}

/// `zeDeviceGetMemoryProperties` with [`fill_counted`] semantics.
pub fn fill_memory_properties(
    host: &HostInfo,
    count: &mut u32,
    out: Option<&mut [ze_device_memory_properties_t]>,
) {
    fill_counted(&memory_properties(host), count, out, |m, p| {
        p.flags = ze_device_memory_property_flags_t::empty();
        p.maxClockRate = m.max_clock_rate;
        p.maxBusWidth = m.max_bus_width;
        p.totalSize = m.total_size;
        write_c_string(&mut p.name, &m.name);
    });
}

/// Capabilities of every allocation kind on the CPU device: all of them.
pub fn memory_access_caps() -> ze_memory_access_cap_flags_t {
    ze_memory_access_cap_flags_t::RW
        | ze_memory_access_cap_flags_t::ATOMIC
        | ze_memory_access_cap_flags_t::CONCURRENT
        | ze_memory_access_cap_flags_t::CONCURRENT_ATOMIC
}

/// `zeDeviceGetMemoryAccessProperties`: host, device, shared and system (`malloc`) memory are
/// one and the same host memory, fully accessible (including atomics) from host and device at once.
pub fn fill_memory_access_properties(
    _host: &HostInfo,
    p: &mut ze_device_memory_access_properties_t,
) {
    let caps = memory_access_caps();
    p.hostAllocCapabilities = caps;
    p.deviceAllocCapabilities = caps;
    p.sharedSingleDeviceAllocCapabilities = caps;
    p.sharedCrossDeviceAllocCapabilities = caps;
    p.sharedSystemAllocCapabilities = caps;
}

/// One reported cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheEntry {
    /// Cache flags (no user control).
    pub flags: ze_device_cache_property_flags_t,
    /// Size in bytes.
    pub cache_size: usize,
}

/// Caches as `zeDeviceGetCacheProperties` reports them: data and unified caches of cpu0 in
/// level order (instruction caches left out).
pub fn cache_properties(host: &HostInfo) -> Vec<CacheEntry> {
    let mut caches: Vec<_> = host
        .caches
        .iter()
        .filter(|c| c.kind != CacheKind::Instruction)
        .collect();
    caches.sort_by_key(|c| c.level);
    caches
        .into_iter()
        .map(|c| CacheEntry {
            flags: ze_device_cache_property_flags_t::empty(),
            cache_size: usize::try_from(c.size).unwrap_or(usize::MAX),
        })
        .collect()
}

/// `zeDeviceGetCacheProperties` with [`fill_counted`] semantics.
pub fn fill_cache_properties(
    host: &HostInfo,
    count: &mut u32,
    out: Option<&mut [ze_device_cache_properties_t]>,
) {
    fill_counted(&cache_properties(host), count, out, |c, p| {
        p.flags = c.flags;
        p.cacheSize = c.cache_size;
    });
}

/// `zeDeviceGetImageProperties`: the limits `zeImageCreate` enforces
/// ([`crate::model::image_objects::LIMITS`]); buffer images up to the maximum allocation size.
pub fn fill_image_properties(host: &HostInfo, p: &mut ze_device_image_properties_t) {
    use crate::model::image_objects::{max_buffer_bytes, LIMITS};
    p.maxImageDims1D = LIMITS.dims_1d;
    p.maxImageDims2D = LIMITS.dims_2d;
    p.maxImageDims3D = LIMITS.dims_3d;
    p.maxImageBufferSize = max_buffer_bytes(host.total_memory);
    p.maxImageArraySlices = LIMITS.array_slices;
    p.maxSamplers = LIMITS.samplers;
    p.maxReadImageArgs = LIMITS.image_args;
    p.maxWriteImageArgs = LIMITS.image_args;
}

/// `zeDeviceGetExternalMemoryProperties`: allocations import
/// [`crate::model::objects::EXTERNAL_MEMORY_TYPES`] (`OPAQUE_FD`) and export
/// [`crate::model::objects::export_memory_types`] (`OPAQUE_FD`, and `DMA_BUF` where
/// `/dev/udmabuf` opens); images neither.
pub fn fill_external_memory_properties(
    _host: &HostInfo,
    p: &mut ze_device_external_memory_properties_t,
) {
    p.memoryAllocationImportTypes = crate::model::objects::EXTERNAL_MEMORY_TYPES;
    p.memoryAllocationExportTypes = crate::model::objects::export_memory_types();
    p.imageImportTypes = ze_external_memory_type_flags_t::empty();
    p.imageExportTypes = ze_external_memory_type_flags_t::empty();
}

/// `zeDeviceGetP2PProperties`: with itself the device shares all memory (ACCESS | ATOMICS);
/// with a device of another driver, nothing.
pub fn fill_p2p_properties(same_device: bool, p: &mut ze_device_p2p_properties_t) {
    p.flags = if same_device {
        ze_device_p2p_property_flags_t::ACCESS | ze_device_p2p_property_flags_t::ATOMICS
    } else {
        ze_device_p2p_property_flags_t::empty()
    };
}

/// `zeDeviceCanAccessPeer`: true exactly for the same device.
pub const fn can_access_peer(same_device: bool) -> bool {
    same_device
}

/// `zeDeviceGetStatus`: the host CPU is never lost.
pub const fn device_status() -> ze_result_t {
    ZE_RESULT_SUCCESS
}

/// `zeDeviceGetGlobalTimestamps`: `(host ns, device ticks)` from one sample of the one clock
/// both use (1 tick = 1 ns, 64 valid bits).
pub fn global_timestamps() -> (u64, u64) {
    let t = now_ns();
    (t, t)
}

/// `zeDeviceGetRootDevice`: the CPU device is a root device, so the answer is null.
pub const fn root_device() -> Option<usize> {
    None
}

/// `zeDeviceSynchronize`: the answer once the C layer has waited for every queue of the device
/// (the host CPU does not fail).
pub const fn synchronize_result() -> ze_result_t {
    ZE_RESULT_SUCCESS
}

/// `zeDeviceGetAggregatedCopyOffloadIncrementValue`: a copy is one operation, never split.
pub const fn aggregated_copy_offload_increment_value() -> u32 {
    1
}

/// `ze_event_query_kernel_timestamps_ext_properties_t` on `zeDeviceGetProperties`: kernel
/// timestamps, and synchronized (host) timestamps — the device clock is the host's.
pub fn kernel_timestamp_query_flags() -> ze_event_query_kernel_timestamps_ext_flags_t {
    ze_event_query_kernel_timestamps_ext_flags_t::KERNEL
        | ze_event_query_kernel_timestamps_ext_flags_t::SYNCHRONIZED
}

/// `zeContextSystemBarrier`: every write of the host and of the device (the same cores) is
/// visible to both once a full fence has run.
pub fn system_barrier() {
    std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
}

/// `zeDeviceGetCounterBasedEventMaxValue`: counters are 64-bit host words.
pub const fn counter_based_event_max_value() -> u64 {
    u64::MAX
}

/// `zeDeviceGetRuntimeRequirementsKey`.
pub const fn runtime_requirements_key() -> &'static CStr {
    RUNTIME_REQUIREMENTS_KEY
}

/// `zeDeviceGetRuntimeRequirements`: `ZEKIT.L0.CPU;arch=<arch>;simd=<lanes>`, the requirements of
/// any object built for this device (NUL terminator not included).
pub fn runtime_requirements(host: &HostInfo) -> String {
    format!(
        "{};arch={};simd={}",
        RUNTIME_REQUIREMENTS_KEY.to_string_lossy(),
        std::env::consts::ARCH,
        host.simd_width_f32
    )
}

/// `zeDeviceValidateRuntimeRequirements` for requirements text (without its NUL): another
/// producer key → NOT_APPLICABLE; another arch, a wider SIMD than this host or unreadable fields →
/// NOT_MET; a narrower SIMD → MET_RECOMPILATION_ADVISABLE; otherwise MET.
pub fn validate_runtime_requirements(
    host: &HostInfo,
    text: &[u8],
) -> ze_validate_runtime_requirements_result_t {
    type R = ze_validate_runtime_requirements_result_t;
    let Ok(text) = std::str::from_utf8(text) else {
        return R::NOT_APPLICABLE;
    };
    let mut parts = text.trim_end_matches('\0').trim().split(';');
    if parts.next() != RUNTIME_REQUIREMENTS_KEY.to_str().ok() {
        return R::NOT_APPLICABLE;
    }
    let mut result = R::REQUIREMENTS_MET;
    for part in parts {
        match part.split_once('=') {
            Some(("arch", a)) if a == std::env::consts::ARCH => {}
            Some(("simd", s)) => match s.parse::<u32>() {
                Ok(s) if s == host.simd_width_f32 => {}
                Ok(s) if s < host.simd_width_f32 => {
                    result = R::REQUIREMENTS_MET_RECOMPILATION_ADVISABLE
                }
                _ => return R::REQUIREMENTS_NOT_MET,
            },
            _ => return R::REQUIREMENTS_NOT_MET,
        }
    }
    result
}

/// `zeDeviceGetCompilerInfo`: the data for `param`. The CPU driver has no compiler, so every
/// known parameter (SPIR-V capabilities and extensions, compiler and driver options) is empty
/// (size 0); an unknown parameter gives `None` (`ZE_RESULT_ERROR_INVALID_ENUMERATION`).
pub fn compiler_info(param: ze_device_compiler_info_t) -> Option<&'static [u8]> {
    match param {
        ze_device_compiler_info_t::SPIRV_CAPABILITIES
        | ze_device_compiler_info_t::SPIRV_EXTENSIONS
        | ze_device_compiler_info_t::COMPILER_OPTIONS
        | ze_device_compiler_info_t::DRIVER_OPTIONS => Some(&[]),
        _ => None,
    }
}
