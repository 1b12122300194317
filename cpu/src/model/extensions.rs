//! The extensions the CPU driver reports (`zeDriverGetExtensionProperties`), each with where
//! it is honoured.

use zekit_sys::*;

/// One extension the driver reports in `zeDriverGetExtensionProperties`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Extension {
    /// Extension name (`ZE_extension_...`).
    pub name: &'static str,
    /// `ZE_MAKE_VERSION(major, minor)`.
    pub version: u32,
}

/// Every extension the driver implements, with where it is honoured.
///
/// | extension | honoured by |
/// |---|---|
/// | `ZE_extension_driver_ddi_handles` 1.1 | every handle starts with the `ze_handle_t` dispatch pointers; `zeDriverGetProperties` sets `DDI_HANDLE_EXT_SUPPORTED` |
/// | `ZE_extension_memory_free_policies` 1.0 | `zeMemFreeExt`; `ze_driver_memory_free_ext_properties_t` reports BLOCKING_FREE \| DEFER_FREE |
/// | `ZE_experimental_relaxed_allocation_limits` 1.0, `ZE_extension_relaxed_allocation_limits` 1.0 | `MAX_SIZE` in the allocation descriptors' `pNext` |
/// | `ZE_extension_eu_count` 1.0 | `ze_eu_count_ext_t` on `zeDeviceGetProperties` |
/// | `ZE_extension_device_usablemem_size_properties` 1.0 | `ze_device_usablemem_size_ext_properties_t` on `zeDeviceGetProperties` |
/// | `ZE_extension_device_cache_line_size` 1.0 | `ze_device_cache_line_size_ext_t` on `zeDeviceGetCacheProperties` |
/// | `ZE_extension_event_query_kernel_timestamps` 1.0 | `zeEventQueryKernelTimestampsExt` (kernel and synchronized timestamps); `ze_event_query_kernel_timestamps_ext_properties_t` on `zeDeviceGetProperties` |
/// | `ZE_experimental_event_query_timestamps` 1.0 | `zeEventQueryTimestampsExp` |
/// | `ZE_experimental_immediate_command_list_append` 1.0 | `zeCommandListImmediateAppendCommandListsExp` |
/// | `ZE_extension_image_copy` 1.0 | `zeCommandListAppendImageCopyToMemoryExt` / `FromMemoryExt` (pitches) |
/// | `ZE_extension_image_format_support` 1.0 | `ze_image_format_support_ext_properties_t` on `zeImageGetProperties` |
/// | `ZE_extension_image_query_alloc_properties` 1.0 | `zeImageGetAllocPropertiesExt` |
/// | `ZE_experimental_image_memory_properties` 1.0 | `zeImageGetMemoryPropertiesExp` |
/// | `ZE_extension_image_view` 1.0, `ZE_experimental_image_view` 1.0 | `zeImageViewCreateExt` / `Exp` (same element size, no planar views) |
/// | `ZE_extension_external_semaphores` 1.0 | `zeDeviceImportExternalSemaphoreExt` of `OPAQUE_FD` (an eventfd) and `VK_TIMELINE_SEMAPHORE_FD` (a memfd counter), see `crate::exec::semaphore`; other types `UNSUPPORTED_ENUMERATION` |
/// | `ZE_extension_record_replay_graph` 1.0 | graph capture and replay, see [`super::graph`]; `ze_record_replay_graph_ext_properties_t` reports IMMUTABLE_GRAPH \| SUBGRAPHS \| APPEND_COMMANDLIST |
/// | `ZE_extension_kernel_binary_exp` 1.0 | `zeKernelGetBinaryExp`: the kernel's machine code (see [`super::kernel`]) |
/// | `ZE_experimental_scheduling_hints` 1.0 | `zeKernelSchedulingHintExp` recorded; `ze_scheduling_hint_exp_properties_t` reports no hint supported (none changes anything on the CPU) |
/// | `ZE_extension_kernel_max_group_size_properties` 1.0 | `ze_kernel_max_group_size_properties_ext_t` on `zeKernelGetProperties` |
/// | `ZE_experimental_kernel_allocation_properties` 1.0 | `zeKernelGetAllocationPropertiesExp`: the allocations of the buffer arguments |
/// | `ZE_intel_get_driver_version_string` 1.0 | `zeIntelGetDriverVersionString` (Intel's; with the other Intel functions runtimes look up by name: `crate::api` `intel.rs`) |
/// | `ZE_experimental_mutable_command_list` 1.1 | see [`super::mutable`] (graph arguments excepted) |
/// | `ZE_experimental_module_program` 1.0 | `ze_module_program_exp_desc_t` on `zeModuleCreate`: the input with kernels linked against the others (`crate::api` `module.rs`) |
/// | `ZE_experimental_fabric` 1.0 | one vertex per device, no edges (`crate::api` `fabric.rs`) |
/// | `ZE_extension_virtual_mem_readonly_properties` 1.0 | `ze_device_readonly_memory_ext_properties_t` reports ENFORCED: read-only pages fault on write, and the command that wrote ends with `DEVICE_LOST` |
pub const EXTENSIONS: &[Extension] = &[
    Extension {
        name: ZE_MUTABLE_COMMAND_LIST_EXP_NAME,
        version: ZE_MUTABLE_COMMAND_LIST_EXP_VERSION_1_1.0,
    },
    Extension {
        name: ZE_MODULE_PROGRAM_EXP_NAME,
        version: ZE_MODULE_PROGRAM_EXP_VERSION_1_0.0,
    },
    Extension {
        name: ZE_FABRIC_EXP_NAME,
        version: ZE_FABRIC_EXP_VERSION_1_0.0,
    },
    Extension {
        name: "ZE_intel_get_driver_version_string",
        version: ZE_MAKE_VERSION(1, 0),
    },
    Extension {
        name: ZE_VIRTUAL_MEM_READONLY_PROPERTIES_EXT_NAME,
        version: ZE_VIRTUAL_MEM_READONLY_PROPERTIES_EXT_VERSION_1_0.0,
    },
    Extension {
        name: ZE_DRIVER_DDI_HANDLES_EXT_NAME,
        version: ZE_DRIVER_DDI_HANDLES_EXT_VERSION_1_1.0,
    },
    Extension {
        name: ZE_MEMORY_FREE_POLICIES_EXT_NAME,
        version: ZE_MEMORY_FREE_POLICIES_EXT_VERSION_1_0.0,
    },
    Extension {
        name: ZE_RELAXED_ALLOCATION_LIMITS_EXP_NAME,
        version: ZE_RELAXED_ALLOCATION_LIMITS_EXP_VERSION_1_0.0,
    },
    Extension {
        name: ZE_RELAXED_ALLOCATION_LIMITS_EXT_NAME,
        version: ZE_RELAXED_ALLOCATION_LIMITS_EXT_VERSION_1_0.0,
    },
    Extension {
        name: ZE_EU_COUNT_EXT_NAME,
        version: ZE_EU_COUNT_EXT_VERSION_1_0.0,
    },
    Extension {
        name: ZE_DEVICE_USABLEMEM_SIZE_PROPERTIES_EXT_NAME,
        version: ZE_DEVICE_USABLEMEM_SIZE_PROPERTIES_EXT_VERSION_1_0.0,
    },
    Extension {
        name: ZE_CACHELINE_SIZE_EXT_NAME,
        version: ZE_DEVICE_CACHE_LINE_SIZE_EXT_VERSION_1_0.0,
    },
    Extension {
        name: ZE_EVENT_QUERY_KERNEL_TIMESTAMPS_EXT_NAME,
        version: ZE_EVENT_QUERY_KERNEL_TIMESTAMPS_EXT_VERSION_1_0.0,
    },
    Extension {
        name: ZE_EVENT_QUERY_TIMESTAMPS_EXP_NAME,
        version: ZE_EVENT_QUERY_TIMESTAMPS_EXP_VERSION_1_0.0,
    },
    Extension {
        name: ZE_IMMEDIATE_COMMAND_LIST_APPEND_EXP_NAME,
        version: ZE_IMMEDIATE_COMMAND_LIST_APPEND_EXP_VERSION_1_0.0,
    },
    Extension {
        name: ZE_IMAGE_COPY_EXT_NAME,
        version: ZE_IMAGE_COPY_EXT_VERSION_1_0.0,
    },
    Extension {
        name: ZE_IMAGE_FORMAT_SUPPORT_EXT_NAME,
        version: ZE_IMAGE_FORMAT_SUPPORT_EXT_VERSION_1_0.0,
    },
    Extension {
        name: ZE_IMAGE_QUERY_ALLOC_PROPERTIES_EXT_NAME,
        version: ZE_IMAGE_QUERY_ALLOC_PROPERTIES_EXT_VERSION_1_0.0,
    },
    Extension {
        name: ZE_IMAGE_MEMORY_PROPERTIES_EXP_NAME,
        version: ZE_IMAGE_MEMORY_PROPERTIES_EXP_VERSION_1_0.0,
    },
    Extension {
        name: ZE_IMAGE_VIEW_EXT_NAME,
        version: ZE_IMAGE_VIEW_EXT_VERSION_1_0.0,
    },
    Extension {
        name: ZE_IMAGE_VIEW_EXP_NAME,
        version: ZE_IMAGE_VIEW_EXP_VERSION_1_0.0,
    },
    Extension {
        name: ZE_EXTERNAL_SEMAPHORES_EXTENSION_NAME,
        version: ZE_EXTERNAL_SEMAPHORE_EXT_VERSION_1_0.0,
    },
    Extension {
        name: ZE_RECORD_REPLAY_GRAPH_EXT_NAME,
        version: ZE_RECORD_REPLAY_GRAPH_EXT_VERSION_1_0.0,
    },
    Extension {
        name: ZE_GET_KERNEL_BINARY_EXP_NAME,
        version: ZE_KERNEL_GET_BINARY_EXP_VERSION_1_0.0,
    },
    Extension {
        name: ZE_KERNEL_SCHEDULING_HINTS_EXP_NAME,
        version: ZE_SCHEDULING_HINTS_EXP_VERSION_1_0.0,
    },
    Extension {
        name: ZE_KERNEL_MAX_GROUP_SIZE_PROPERTIES_EXT_NAME,
        version: ZE_KERNEL_MAX_GROUP_SIZE_PROPERTIES_EXT_VERSION_1_0.0,
    },
    Extension {
        name: ZE_GET_KERNEL_ALLOCATION_PROPERTIES_EXP_NAME,
        version: ZE_KERNEL_GET_ALLOCATION_PROPERTIES_EXP_VERSION_1_0.0,
    },
];
