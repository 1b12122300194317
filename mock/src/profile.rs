//! The mock device profile: what the mock reports from the `zeDeviceGet*Properties` queries.
//!
//! A profile is YAML; every key is optional and falls back to the built-in default
//! ([`Profile::default`], printed by [`Profile::default_yaml`]). Keys are the C member names.
//!
//! ```yaml
//! device:
//!   name: zekit mock device
//!   type: GPU                    # or ZE_DEVICE_TYPE_GPU, or a number
//!   vendorId: 0x8086
//!   deviceId: 0x1234
//!   flags: []                    # e.g. [INTEGRATED, ECC]; or raw bits
//!   coreClockRate: 1500          # MHz
//!   maxMemAllocSize: 4 GiB       # sizes: a number of bytes, or with KiB/MiB/GiB/TiB
//!   numSlices: 4
//!   numSubslicesPerSlice: 16
//!   numEUsPerSubslice: 8
//!   timerResolution: 1           # nanoseconds (reported as cycles/s for DEVICE_PROPERTIES_1_2)
//!   uuid: 86803412-0000-0000-7a65-6b69746d6f63
//! compute: { maxTotalGroupSize: 1024, subGroupSizes: [8, 16, 32] }
//! memory: [ { name: HBM, totalSize: 8 GiB, maxClockRate: 1600, maxBusWidth: 4096 } ]
//! caches: [ { cacheSize: 16 MiB } ]
//! commandQueueGroups:
//!   - { flags: [COMPUTE, COPY, COOPERATIVE_KERNELS, METRICS], numQueues: 4, maxMemoryFillPatternSize: 128 }
//!   - { flags: [COPY], numQueues: 2, maxMemoryFillPatternSize: 4 }
//! memoryAccess:                  # ze_device_memory_access_properties_t
//!   hostAllocCapabilities: [RW, ATOMIC, CONCURRENT, CONCURRENT_ATOMIC]
//!   sharedSystemAllocCapabilities: []
//! module:                        # ze_device_module_properties_t
//!   spirvVersionSupported: "1.2"
//!   flags: [FP16, FP64, INT64_ATOMICS]
//!   maxArgumentsSize: 2 KiB
//! images:                        # ze_device_image_properties_t; all 0: no images
//!   maxImageDims2D: 16384
//!   maxImageBufferSize: 4 GiB
//! ```
//!
//! Lists replace the default list as a whole; omitted keys of a list entry take the value of the
//! built-in first entry of that list.

use std::fmt;
use std::path::Path;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use zekit_sys::*;

const KIB: u64 = 1 << 10;
const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

/// The whole device profile.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct Profile {
    pub device: DeviceProfile,
    pub compute: ComputeProfile,
    pub memory: Vec<MemoryProfile>,
    pub caches: Vec<CacheProfile>,
    pub command_queue_groups: Vec<QueueGroupProfile>,
    pub memory_access: MemoryAccessProfile,
    pub module: ModuleProfile,
    pub images: ImageProfile,
}

/// `ze_device_image_properties_t`: the image limits (a 0 makes that kind of image unsupported;
/// all zeros: a device without images).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct ImageProfile {
    #[serde(rename = "maxImageDims1D")]
    pub max_image_dims_1d: u32,
    #[serde(rename = "maxImageDims2D")]
    pub max_image_dims_2d: u32,
    #[serde(rename = "maxImageDims3D")]
    pub max_image_dims_3d: u32,
    #[serde(deserialize_with = "de_size")]
    pub max_image_buffer_size: u64,
    pub max_image_array_slices: u32,
    pub max_samplers: u32,
    pub max_read_image_args: u32,
    pub max_write_image_args: u32,
}

impl Default for ImageProfile {
    /// The limits of a current GPU.
    fn default() -> Self {
        Self {
            max_image_dims_1d: 16384,
            max_image_dims_2d: 16384,
            max_image_dims_3d: 2048,
            max_image_buffer_size: 4 * GIB,
            max_image_array_slices: 2048,
            max_samplers: 16,
            max_read_image_args: 128,
            max_write_image_args: 128,
        }
    }
}

/// `ze_device_memory_access_properties_t`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct MemoryAccessProfile {
    #[serde(serialize_with = "ser_flags", deserialize_with = "de_flags")]
    pub host_alloc_capabilities: ze_memory_access_cap_flags_t,
    #[serde(serialize_with = "ser_flags", deserialize_with = "de_flags")]
    pub device_alloc_capabilities: ze_memory_access_cap_flags_t,
    #[serde(serialize_with = "ser_flags", deserialize_with = "de_flags")]
    pub shared_single_device_alloc_capabilities: ze_memory_access_cap_flags_t,
    #[serde(serialize_with = "ser_flags", deserialize_with = "de_flags")]
    pub shared_cross_device_alloc_capabilities: ze_memory_access_cap_flags_t,
    #[serde(serialize_with = "ser_flags", deserialize_with = "de_flags")]
    pub shared_system_alloc_capabilities: ze_memory_access_cap_flags_t,
}

/// `ze_device_module_properties_t`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct ModuleProfile {
    /// `ZE_MAKE_VERSION(major, minor)`; YAML `"1.2"` or the encoded number (0 = no SPIR-V).
    #[serde(serialize_with = "ser_version", deserialize_with = "de_version")]
    pub spirv_version_supported: u32,
    #[serde(serialize_with = "ser_flags", deserialize_with = "de_flags")]
    pub flags: ze_device_module_flags_t,
    #[serde(
        rename = "fp16flags",
        serialize_with = "ser_flags",
        deserialize_with = "de_flags"
    )]
    pub fp16_flags: ze_device_fp_flags_t,
    #[serde(
        rename = "fp32flags",
        serialize_with = "ser_flags",
        deserialize_with = "de_flags"
    )]
    pub fp32_flags: ze_device_fp_flags_t,
    #[serde(
        rename = "fp64flags",
        serialize_with = "ser_flags",
        deserialize_with = "de_flags"
    )]
    pub fp64_flags: ze_device_fp_flags_t,
    #[serde(deserialize_with = "de_size_u32")]
    pub max_arguments_size: u32,
    #[serde(deserialize_with = "de_size_u32")]
    pub printf_buffer_size: u32,
}

/// `ze_device_properties_t`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct DeviceProfile {
    pub name: String,
    #[serde(
        rename = "type",
        serialize_with = "ser_device_type",
        deserialize_with = "de_device_type"
    )]
    pub device_type: ze_device_type_t,
    pub vendor_id: u32,
    pub device_id: u32,
    #[serde(serialize_with = "ser_flags", deserialize_with = "de_flags")]
    pub flags: ze_device_property_flags_t,
    pub subdevice_id: u32,
    /// MHz.
    pub core_clock_rate: u32,
    #[serde(deserialize_with = "de_size")]
    pub max_mem_alloc_size: u64,
    pub max_hardware_contexts: u32,
    pub max_command_queue_priority: u32,
    #[serde(rename = "numThreadsPerEU")]
    pub num_threads_per_eu: u32,
    #[serde(rename = "physicalEUSimdWidth")]
    pub physical_eu_simd_width: u32,
    #[serde(rename = "numEUsPerSubslice")]
    pub num_eus_per_subslice: u32,
    pub num_subslices_per_slice: u32,
    pub num_slices: u32,
    /// Nanoseconds per timer tick.
    pub timer_resolution: u64,
    pub timestamp_valid_bits: u32,
    pub kernel_timestamp_valid_bits: u32,
    #[serde(serialize_with = "ser_uuid", deserialize_with = "de_uuid")]
    pub uuid: [u8; 16],
}

/// `ze_device_compute_properties_t`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct ComputeProfile {
    pub max_total_group_size: u32,
    pub max_group_size_x: u32,
    pub max_group_size_y: u32,
    pub max_group_size_z: u32,
    pub max_group_count_x: u32,
    pub max_group_count_y: u32,
    pub max_group_count_z: u32,
    #[serde(deserialize_with = "de_size_u32")]
    pub max_shared_local_memory: u32,
    /// At most `ZE_SUBGROUPSIZE_COUNT` (8) entries.
    pub sub_group_sizes: Vec<u32>,
}

/// One `ze_device_memory_properties_t`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct MemoryProfile {
    pub name: String,
    #[serde(serialize_with = "ser_flags", deserialize_with = "de_flags")]
    pub flags: ze_device_memory_property_flags_t,
    /// MHz.
    pub max_clock_rate: u32,
    /// Bits.
    pub max_bus_width: u32,
    #[serde(deserialize_with = "de_size")]
    pub total_size: u64,
}

/// One `ze_device_cache_properties_t`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct CacheProfile {
    #[serde(serialize_with = "ser_flags", deserialize_with = "de_flags")]
    pub flags: ze_device_cache_property_flags_t,
    #[serde(deserialize_with = "de_size")]
    pub cache_size: u64,
}

/// One `ze_command_queue_group_properties_t`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct QueueGroupProfile {
    #[serde(serialize_with = "ser_flags", deserialize_with = "de_flags")]
    pub flags: ze_command_queue_group_property_flags_t,
    #[serde(deserialize_with = "de_size")]
    pub max_memory_fill_pattern_size: u64,
    pub num_queues: u32,
}

impl Default for DeviceProfile {
    fn default() -> Self {
        Self {
            name: "zekit mock device".to_string(),
            device_type: ZE_DEVICE_TYPE_GPU,
            vendor_id: 0x8086,
            device_id: 0x1234,
            flags: ze_device_property_flags_t::empty(),
            subdevice_id: 0,
            core_clock_rate: 1500,
            max_mem_alloc_size: 4 * GIB,
            max_hardware_contexts: 64,
            max_command_queue_priority: 0,
            num_threads_per_eu: 8,
            physical_eu_simd_width: 8,
            // 4 slices x 16 sub-slices x 8 EUs = 512 EUs.
            num_eus_per_subslice: 8,
            num_subslices_per_slice: 16,
            num_slices: 4,
            timer_resolution: 1,
            timestamp_valid_bits: 64,
            kernel_timestamp_valid_bits: 64,
            // Vendor and device id (little-endian), then "zekitmoc".
            uuid: [
                0x86, 0x80, 0x34, 0x12, 0, 0, 0, 0, b'z', b'e', b'k', b'i', b't', b'm', b'o', b'c',
            ],
        }
    }
}

impl Default for ComputeProfile {
    fn default() -> Self {
        Self {
            max_total_group_size: 1024,
            max_group_size_x: 1024,
            max_group_size_y: 1024,
            max_group_size_z: 1024,
            max_group_count_x: u32::MAX,
            max_group_count_y: u32::MAX,
            max_group_count_z: u32::MAX,
            max_shared_local_memory: 64 * KIB as u32,
            sub_group_sizes: vec![8, 16, 32],
        }
    }
}

impl Default for MemoryProfile {
    fn default() -> Self {
        Self {
            name: "HBM".to_string(),
            flags: ze_device_memory_property_flags_t::empty(),
            max_clock_rate: 1600,
            max_bus_width: 4096,
            total_size: 8 * GIB,
        }
    }
}

impl Default for CacheProfile {
    fn default() -> Self {
        Self {
            flags: ze_device_cache_property_flags_t::empty(),
            cache_size: 16 * MIB,
        }
    }
}

impl Default for QueueGroupProfile {
    /// The compute group.
    fn default() -> Self {
        Self {
            flags: ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE
                | ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY
                | ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COOPERATIVE_KERNELS
                | ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_METRICS,
            max_memory_fill_pattern_size: 128,
            num_queues: 4,
        }
    }
}

impl Default for MemoryAccessProfile {
    /// Every allocation of the mock is host memory: host, device and shared allocations all
    /// allow concurrent, atomic access; system allocations are not USM.
    fn default() -> Self {
        let all = ZE_MEMORY_ACCESS_CAP_FLAG_RW
            | ZE_MEMORY_ACCESS_CAP_FLAG_ATOMIC
            | ZE_MEMORY_ACCESS_CAP_FLAG_CONCURRENT
            | ZE_MEMORY_ACCESS_CAP_FLAG_CONCURRENT_ATOMIC;
        Self {
            host_alloc_capabilities: all,
            device_alloc_capabilities: all,
            shared_single_device_alloc_capabilities: all,
            shared_cross_device_alloc_capabilities: all,
            shared_system_alloc_capabilities: ze_memory_access_cap_flags_t::empty(),
        }
    }
}

impl Default for ModuleProfile {
    /// SPIR-V 1.2, FP16/FP64/64-bit atomics, IEEE rounding, 2 KiB of arguments, 4 MiB printf.
    fn default() -> Self {
        let ieee = ZE_DEVICE_FP_FLAG_DENORM
            | ZE_DEVICE_FP_FLAG_INF_NAN
            | ZE_DEVICE_FP_FLAG_ROUND_TO_NEAREST
            | ZE_DEVICE_FP_FLAG_ROUND_TO_ZERO
            | ZE_DEVICE_FP_FLAG_ROUND_TO_INF
            | ZE_DEVICE_FP_FLAG_FMA;
        Self {
            spirv_version_supported: (1 << 16) | 2,
            flags: ZE_DEVICE_MODULE_FLAG_FP16
                | ZE_DEVICE_MODULE_FLAG_FP64
                | ZE_DEVICE_MODULE_FLAG_INT64_ATOMICS,
            fp16_flags: ieee,
            fp32_flags: ieee | ZE_DEVICE_FP_FLAG_ROUNDED_DIVIDE_SQRT,
            fp64_flags: ieee,
            max_arguments_size: 2 * KIB as u32,
            printf_buffer_size: 4 * MIB as u32,
        }
    }
}

impl Default for Profile {
    /// A believable GPU: 512 EUs at 1500 MHz, 8 GiB, a compute group of 4 queues and a copy
    /// group of 2.
    fn default() -> Self {
        Self {
            device: DeviceProfile::default(),
            compute: ComputeProfile::default(),
            memory: vec![MemoryProfile::default()],
            caches: vec![CacheProfile::default()],
            command_queue_groups: vec![
                QueueGroupProfile::default(),
                QueueGroupProfile {
                    flags: ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY.into(),
                    max_memory_fill_pattern_size: 4,
                    num_queues: 2,
                },
            ],
            memory_access: MemoryAccessProfile::default(),
            module: ModuleProfile::default(),
            images: ImageProfile::default(),
        }
    }
}

impl Profile {
    /// Parses a profile; omitted keys keep their defaults, unknown keys are errors.
    pub fn from_yaml(text: &str) -> Result<Profile, String> {
        if is_empty_document(text) {
            return Ok(Profile::default());
        }
        let p: Profile = serde_yaml::from_str(text).map_err(|e| format!("profile: {e}"))?;
        p.validate()?;
        Ok(p)
    }

    /// Parses a profile from a YAML value (a mapping of overrides).
    pub fn from_value(value: serde_yaml::Value) -> Result<Profile, String> {
        if value.is_null() {
            return Ok(Profile::default());
        }
        let p: Profile = serde_yaml::from_value(value).map_err(|e| format!("profile: {e}"))?;
        p.validate()?;
        Ok(p)
    }

    /// Reads and parses a profile file; errors name the path.
    pub fn from_file(path: &Path) -> Result<Profile, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read profile {}: {e}", path.display()))?;
        Profile::from_yaml(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// The profile as YAML (the format [`from_yaml`](Self::from_yaml) reads).
    pub fn to_yaml(&self) -> Result<String, String> {
        serde_yaml::to_string(self).map_err(|e| format!("profile: {e}"))
    }

    /// The built-in default profile as YAML.
    pub fn default_yaml() -> String {
        Profile::default().to_yaml().unwrap_or_default()
    }

    /// Checks what the types alone cannot.
    pub fn validate(&self) -> Result<(), String> {
        let n = self.compute.sub_group_sizes.len();
        if n > ZE_SUBGROUPSIZE_COUNT as usize {
            return Err(format!(
                "profile: compute.subGroupSizes has {n} entries; at most {ZE_SUBGROUPSIZE_COUNT} (ZE_SUBGROUPSIZE_COUNT)"
            ));
        }
        Ok(())
    }

    /// Total number of EUs (`numSlices * numSubslicesPerSlice * numEUsPerSubslice`).
    pub fn eu_count(&self) -> u64 {
        let d = &self.device;
        u64::from(d.num_slices)
            * u64::from(d.num_subslices_per_slice)
            * u64::from(d.num_eus_per_subslice)
    }

    /// Fills `p` from the profile, leaving `stype` and `pNext` alone. The name is truncated to
    /// `ZE_MAX_DEVICE_NAME - 1` bytes and NUL-terminated; `timerResolution` is nanoseconds, or
    /// cycles per second when `p.stype` is `ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2`.
    pub fn fill_device_properties(&self, p: &mut ze_device_properties_t) {
        let d = &self.device;
        p.r#type = d.device_type;
        p.vendorId = d.vendor_id;
        p.deviceId = d.device_id;
        p.flags = d.flags;
        p.subdeviceId = d.subdevice_id;
        p.coreClockRate = d.core_clock_rate;
        p.maxMemAllocSize = d.max_mem_alloc_size;
        p.maxHardwareContexts = d.max_hardware_contexts;
        p.maxCommandQueuePriority = d.max_command_queue_priority;
        p.numThreadsPerEU = d.num_threads_per_eu;
        p.physicalEUSimdWidth = d.physical_eu_simd_width;
        p.numEUsPerSubslice = d.num_eus_per_subslice;
        p.numSubslicesPerSlice = d.num_subslices_per_slice;
        p.numSlices = d.num_slices;
        p.timerResolution = if p.stype == ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2 {
            1_000_000_000u64
                .checked_div(d.timer_resolution)
                .unwrap_or(0)
        } else {
            d.timer_resolution
        };
        p.timestampValidBits = d.timestamp_valid_bits;
        p.kernelTimestampValidBits = d.kernel_timestamp_valid_bits;
        p.uuid.id = d.uuid;
        write_c_str(&mut p.name, &d.name);
    }

    /// Fills `p`, leaving `stype` and `pNext` alone; `subGroupSizes` beyond the profile's are 0.
    pub fn fill_compute_properties(&self, p: &mut ze_device_compute_properties_t) {
        let c = &self.compute;
        p.maxTotalGroupSize = c.max_total_group_size;
        p.maxGroupSizeX = c.max_group_size_x;
        p.maxGroupSizeY = c.max_group_size_y;
        p.maxGroupSizeZ = c.max_group_size_z;
        p.maxGroupCountX = c.max_group_count_x;
        p.maxGroupCountY = c.max_group_count_y;
        p.maxGroupCountZ = c.max_group_count_z;
        p.maxSharedLocalMemory = c.max_shared_local_memory;
        p.subGroupSizes = [0; ZE_SUBGROUPSIZE_COUNT as usize];
        let n = c.sub_group_sizes.len().min(p.subGroupSizes.len());
        p.subGroupSizes[..n].copy_from_slice(&c.sub_group_sizes[..n]);
        p.numSubGroupSizes = n as u32;
    }

    /// Number of memory entries (`*pCount` of `zeDeviceGetMemoryProperties`).
    pub fn memory_count(&self) -> u32 {
        count_u32(self.memory.len())
    }

    /// Fills the first `min(out.len(), memory_count())` entries of `out` (`stype`/`pNext` kept);
    /// returns how many.
    pub fn fill_memory_properties(&self, out: &mut [ze_device_memory_properties_t]) -> u32 {
        fill_list(&self.memory, out, |m, p| {
            p.flags = m.flags;
            p.maxClockRate = m.max_clock_rate;
            p.maxBusWidth = m.max_bus_width;
            p.totalSize = m.total_size;
            write_c_str(&mut p.name, &m.name);
        })
    }

    /// Number of cache entries (`*pCount` of `zeDeviceGetCacheProperties`).
    pub fn cache_count(&self) -> u32 {
        count_u32(self.caches.len())
    }

    /// Fills the first `min(out.len(), cache_count())` entries of `out`; returns how many.
    pub fn fill_cache_properties(&self, out: &mut [ze_device_cache_properties_t]) -> u32 {
        fill_list(&self.caches, out, |c, p| {
            p.flags = c.flags;
            p.cacheSize = usize::try_from(c.cache_size).unwrap_or(usize::MAX);
        })
    }

    /// Number of command queue groups (`*pCount` of `zeDeviceGetCommandQueueGroupProperties`).
    pub fn command_queue_group_count(&self) -> u32 {
        count_u32(self.command_queue_groups.len())
    }

    /// Fills the first `min(out.len(), command_queue_group_count())` entries; returns how many.
    pub fn fill_command_queue_group_properties(
        &self,
        out: &mut [ze_command_queue_group_properties_t],
    ) -> u32 {
        fill_list(&self.command_queue_groups, out, |g, p| {
            p.flags = g.flags;
            p.maxMemoryFillPatternSize =
                usize::try_from(g.max_memory_fill_pattern_size).unwrap_or(usize::MAX);
            p.numQueues = g.num_queues;
        })
    }
}

impl Profile {
    /// Fills `p` from `memoryAccess`, leaving `stype` and `pNext` alone.
    pub fn fill_memory_access_properties(&self, p: &mut ze_device_memory_access_properties_t) {
        let m = &self.memory_access;
        p.hostAllocCapabilities = m.host_alloc_capabilities;
        p.deviceAllocCapabilities = m.device_alloc_capabilities;
        p.sharedSingleDeviceAllocCapabilities = m.shared_single_device_alloc_capabilities;
        p.sharedCrossDeviceAllocCapabilities = m.shared_cross_device_alloc_capabilities;
        p.sharedSystemAllocCapabilities = m.shared_system_alloc_capabilities;
    }

    /// Fills `p` from `images`, leaving `stype` and `pNext` alone.
    pub fn fill_image_properties(&self, p: &mut ze_device_image_properties_t) {
        let i = &self.images;
        p.maxImageDims1D = i.max_image_dims_1d;
        p.maxImageDims2D = i.max_image_dims_2d;
        p.maxImageDims3D = i.max_image_dims_3d;
        p.maxImageBufferSize = i.max_image_buffer_size;
        p.maxImageArraySlices = i.max_image_array_slices;
        p.maxSamplers = i.max_samplers;
        p.maxReadImageArgs = i.max_read_image_args;
        p.maxWriteImageArgs = i.max_write_image_args;
    }

    /// Fills `p` from `module`, leaving `stype` and `pNext` alone; the native kernel uuid is the
    /// device uuid.
    pub fn fill_module_properties(&self, p: &mut ze_device_module_properties_t) {
        let m = &self.module;
        p.spirvVersionSupported = m.spirv_version_supported;
        p.flags = m.flags;
        p.fp16flags = m.fp16_flags;
        p.fp32flags = m.fp32_flags;
        p.fp64flags = m.fp64_flags;
        p.maxArgumentsSize = m.max_arguments_size;
        p.printfBufferSize = m.printf_buffer_size;
        p.nativeKernelSupported.id = self.device.uuid;
    }

    /// The fill pattern limit of queue group `ordinal` (`None`: no such group).
    pub fn max_fill_pattern_size(&self, ordinal: u32) -> Option<u64> {
        self.command_queue_groups
            .get(usize::try_from(ordinal).ok()?)
            .map(|g| g.max_memory_fill_pattern_size)
    }
}

fn count_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn fill_list<S, T>(src: &[S], out: &mut [T], f: impl Fn(&S, &mut T)) -> u32 {
    let mut n = 0;
    for (s, t) in src.iter().zip(out.iter_mut()) {
        f(s, t);
        n += 1;
    }
    n
}

pub(crate) fn is_empty_document(text: &str) -> bool {
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .all(|l| l.is_empty() || l == "---" || l == "...")
}

pub use zekit_icd_rt::conv::write_c_str;

// ----- serde helpers -------------------------------------------------------------------------

/// A flags set of zekit-sys with per-bit names.
pub trait FlagSet: Copy {
    /// Prefix of the C enumerator names (`ZE_DEVICE_PROPERTY_FLAG_`).
    const PREFIX: &'static str;
    fn bit_name(bit: u32) -> Option<&'static str>;
    fn from_bits(bits: u32) -> Self;
    fn to_bits(self) -> u32;
}

macro_rules! flag_set {
    ($set:ty, $bit:ident, $prefix:literal) => {
        impl FlagSet for $set {
            const PREFIX: &'static str = $prefix;
            fn bit_name(bit: u32) -> Option<&'static str> {
                $bit(bit).name()
            }
            fn from_bits(bits: u32) -> Self {
                Self(bits)
            }
            fn to_bits(self) -> u32 {
                self.0
            }
        }
    };
}

flag_set!(
    ze_device_property_flags_t,
    ze_device_property_flag_t,
    "ZE_DEVICE_PROPERTY_FLAG_"
);
flag_set!(
    ze_device_memory_property_flags_t,
    ze_device_memory_property_flag_t,
    "ZE_DEVICE_MEMORY_PROPERTY_FLAG_"
);
flag_set!(
    ze_device_cache_property_flags_t,
    ze_device_cache_property_flag_t,
    "ZE_DEVICE_CACHE_PROPERTY_FLAG_"
);
flag_set!(
    ze_command_queue_group_property_flags_t,
    ze_command_queue_group_property_flag_t,
    "ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_"
);
flag_set!(
    ze_memory_access_cap_flags_t,
    ze_memory_access_cap_flag_t,
    "ZE_MEMORY_ACCESS_CAP_FLAG_"
);
flag_set!(
    ze_device_module_flags_t,
    ze_device_module_flag_t,
    "ZE_DEVICE_MODULE_FLAG_"
);
flag_set!(
    ze_device_fp_flags_t,
    ze_device_fp_flag_t,
    "ZE_DEVICE_FP_FLAG_"
);

/// Short names (`ECC`) of the known bits of `F`.
fn flag_names<F: FlagSet>() -> Vec<(u32, &'static str)> {
    (0..31)
        .map(|i| 1u32 << i)
        .filter_map(|b| F::bit_name(b).map(|n| (b, n.strip_prefix(F::PREFIX).unwrap_or(n))))
        .collect()
}

fn parse_flag<F: FlagSet>(name: &str) -> Result<u32, String> {
    let name = name.trim();
    let short = name.strip_prefix(F::PREFIX).unwrap_or(name);
    let names = flag_names::<F>();
    if let Some((b, _)) = names.iter().find(|(_, n)| *n == short) {
        return Ok(*b);
    }
    if let Some(v) = crate::script::parse_u64(name).and_then(|v| u32::try_from(v).ok()) {
        return Ok(v);
    }
    let all: Vec<&str> = names.iter().map(|(_, n)| *n).collect();
    Err(format!(
        "unknown flag `{name}`; expected one of: {}",
        all.join(", ")
    ))
}

#[derive(Deserialize)]
#[serde(untagged)]
enum NameOrNum {
    Num(u64),
    Name(String),
}

#[derive(Deserialize)]
#[serde(untagged)]
enum FlagsRepr {
    Bits(u32),
    List(Vec<NameOrNum>),
    Text(String),
}

fn de_flags<'de, D: Deserializer<'de>, F: FlagSet>(d: D) -> Result<F, D::Error> {
    let repr = FlagsRepr::deserialize(d).map_err(|_| {
        D::Error::custom("flags must be a list of names (e.g. [COMPUTE, COPY]) or a number")
    })?;
    let mut bits = 0u32;
    match repr {
        FlagsRepr::Bits(b) => bits = b,
        FlagsRepr::List(items) => {
            for item in items {
                bits |= match item {
                    NameOrNum::Num(n) => u32::try_from(n)
                        .map_err(|_| D::Error::custom(format!("flag value {n} exceeds 32 bits")))?,
                    NameOrNum::Name(s) => parse_flag::<F>(&s).map_err(D::Error::custom)?,
                };
            }
        }
        FlagsRepr::Text(s) => {
            for part in s.split('|').filter(|p| !p.trim().is_empty()) {
                bits |= parse_flag::<F>(part).map_err(D::Error::custom)?;
            }
        }
    }
    Ok(F::from_bits(bits))
}

fn ser_flags<S: Serializer, F: FlagSet>(f: &F, s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let bits = f.to_bits();
    let names = flag_names::<F>();
    let mut rest = bits;
    let mut items: Vec<NameOrNumOut> = Vec::new();
    for (b, n) in names {
        if bits & b != 0 {
            items.push(NameOrNumOut::Name(n));
            rest &= !b;
        }
    }
    if rest != 0 {
        items.push(NameOrNumOut::Num(rest));
    }
    let mut seq = s.serialize_seq(Some(items.len()))?;
    for i in items {
        match i {
            NameOrNumOut::Name(n) => seq.serialize_element(n)?,
            NameOrNumOut::Num(v) => seq.serialize_element(&v)?,
        }
    }
    seq.end()
}

enum NameOrNumOut {
    Name(&'static str),
    Num(u32),
}

fn de_device_type<'de, D: Deserializer<'de>>(d: D) -> Result<ze_device_type_t, D::Error> {
    let known: Vec<(u32, &str)> = (0..64u32)
        .filter_map(|v| ze_device_type_t(v).name().map(|n| (v, n)))
        .filter(|(_, n)| !n.ends_with("FORCE_UINT32"))
        .map(|(v, n)| (v, n.strip_prefix("ZE_DEVICE_TYPE_").unwrap_or(n)))
        .collect();
    match NameOrNum::deserialize(d)
        .map_err(|_| D::Error::custom("device type must be a name (GPU, CPU, …) or a number"))?
    {
        NameOrNum::Num(n) => u32::try_from(n)
            .map(ze_device_type_t)
            .map_err(|_| D::Error::custom(format!("device type {n} exceeds 32 bits"))),
        NameOrNum::Name(s) => {
            let short = s.strip_prefix("ZE_DEVICE_TYPE_").unwrap_or(&s);
            known
                .iter()
                .find(|(_, n)| *n == short)
                .map(|(v, _)| ze_device_type_t(*v))
                .ok_or_else(|| {
                    let all: Vec<&str> = known.iter().map(|(_, n)| *n).collect();
                    D::Error::custom(format!(
                        "unknown device type `{s}`; expected one of: {}",
                        all.join(", ")
                    ))
                })
        }
    }
}

fn ser_device_type<S: Serializer>(t: &ze_device_type_t, s: S) -> Result<S::Ok, S::Error> {
    match t.name() {
        Some(n) => s.serialize_str(n.strip_prefix("ZE_DEVICE_TYPE_").unwrap_or(n)),
        None => s.serialize_u32(t.0),
    }
}

/// Parses `4096`, `0x1000`, `4 KiB`, `16MiB`, `8 GiB`, `1 TiB` (also `K`, `M`, `G`, `T`, `KB`… as
/// binary multiples).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    // A `0x` number is all digits; otherwise the unit starts at the first letter.
    let (num, unit) = if t.starts_with("0x") || t.starts_with("0X") {
        (t, "")
    } else {
        let split = t.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(t.len());
        (t[..split].trim(), t[split..].trim())
    };
    let n = crate::script::parse_u64(num)
        .ok_or_else(|| format!("invalid size `{text}`: expected bytes or e.g. `16 MiB`"))?;
    let mult = match unit {
        "" | "B" => 1,
        "K" | "KB" | "KiB" => KIB,
        "M" | "MB" | "MiB" => MIB,
        "G" | "GB" | "GiB" => GIB,
        "T" | "TB" | "TiB" => 1 << 40,
        _ => {
            return Err(format!(
                "invalid size unit `{unit}` in `{text}`: expected B, KiB, MiB, GiB or TiB"
            ))
        }
    };
    n.checked_mul(mult)
        .ok_or_else(|| format!("size `{text}` overflows 64 bits"))
}

fn de_size<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    match NameOrNum::deserialize(d)
        .map_err(|_| D::Error::custom("size must be a number of bytes or e.g. `16 MiB`"))?
    {
        NameOrNum::Num(n) => Ok(n),
        NameOrNum::Name(s) => parse_size(&s).map_err(D::Error::custom),
    }
}

fn de_size_u32<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    let v = de_size(d)?;
    u32::try_from(v).map_err(|_| D::Error::custom(format!("size {v} exceeds 32 bits")))
}

/// Parses an API version: `"1.2"` (major.minor) or the encoded number (`0x10002`, `65538`).
pub fn parse_version(text: &str) -> Result<u32, String> {
    let t = text.trim();
    if let Some((major, minor)) = t.split_once('.') {
        let major: u16 = major
            .trim()
            .parse()
            .map_err(|_| format!("invalid version `{text}`: expected e.g. `1.2`"))?;
        let minor: u16 = minor
            .trim()
            .parse()
            .map_err(|_| format!("invalid version `{text}`: expected e.g. `1.2`"))?;
        return Ok((u32::from(major) << 16) | u32::from(minor));
    }
    crate::script::parse_u64(t)
        .and_then(|v| u32::try_from(v).ok())
        .ok_or_else(|| format!("invalid version `{text}`: expected e.g. `1.2`"))
}

fn de_version<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    match NameOrNum::deserialize(d)
        .map_err(|_| D::Error::custom("version must be e.g. \"1.2\" or a number"))?
    {
        NameOrNum::Num(n) => {
            u32::try_from(n).map_err(|_| D::Error::custom(format!("version {n} exceeds 32 bits")))
        }
        NameOrNum::Name(s) => parse_version(&s).map_err(D::Error::custom),
    }
}

fn ser_version<S: Serializer>(v: &u32, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(&format_args!("{}.{}", v >> 16, v & 0xffff))
}

/// Parses 32 hex digits, dashes allowed anywhere (`86803412-0000-0000-7a65-6b69746d6f63`).
pub fn parse_uuid(text: &str) -> Result<[u8; 16], String> {
    let hex: Vec<char> = text.chars().filter(|&c| c != '-').collect();
    if hex.len() != 32 || !hex.iter().all(char::is_ascii_hexdigit) {
        return Err(format!(
            "invalid uuid `{text}`: expected 32 hex digits (dashes allowed)"
        ));
    }
    let mut out = [0u8; 16];
    for (i, b) in out.iter_mut().enumerate() {
        let s: String = hex[2 * i..2 * i + 2].iter().collect();
        *b = u8::from_str_radix(&s, 16).map_err(|e| format!("invalid uuid `{text}`: {e}"))?;
    }
    Ok(out)
}

/// `8-4-4-4-12` hex form of a uuid.
pub struct UuidText<'a>(pub &'a [u8; 16]);

impl fmt::Display for UuidText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, b) in self.0.iter().enumerate() {
            if matches!(i, 4 | 6 | 8 | 10) {
                f.write_str("-")?;
            }
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum UuidRepr {
    Text(String),
    Bytes(Vec<u8>),
}

fn de_uuid<'de, D: Deserializer<'de>>(d: D) -> Result<[u8; 16], D::Error> {
    match UuidRepr::deserialize(d).map_err(|_| {
        D::Error::custom("uuid must be 32 hex digits (dashes allowed) or a list of 16 bytes")
    })? {
        UuidRepr::Text(s) => parse_uuid(&s).map_err(D::Error::custom),
        UuidRepr::Bytes(v) => <[u8; 16]>::try_from(v.as_slice())
            .map_err(|_| D::Error::custom(format!("uuid must have 16 bytes, got {}", v.len()))),
    }
}

fn ser_uuid<S: Serializer>(u: &[u8; 16], s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(&UuidText(u))
}
