//! The CPU driver's objects and the rules of the calls that make and use them, in plain Rust.
//!
//! The C-ABI layer ([`crate::api`]) converts pointers, walks `pNext` chains and turns a
//! [`ZeError`] into a logged, recorded `ze_result_t`; every decision lives here.
//!
//! Decisions (where the specification leaves room):
//!
//! | topic | behaviour |
//! |---|---|
//! | `zeInit(flags)` | success means the driver is initialized and reported (`zeDriverGet` counts 1): `0`; `GPU_ONLY` or `GPU_ONLY\|VPU_ONLY` only when `ZEKIT_DEVICE_TYPE=gpu` ([`DeviceKind::Gpu`]). Flags that ask only for types it is not (`VPU_ONLY`; `GPU_ONLY` on a CPU) → `UNINITIALIZED`, compute-runtime's answer when it is not of the asked type (the CTS takes success to mean at least one driver). Unknown bits are ignored (the known bits decide; `INVALID_ENUMERATION` when strict), so that the loader, which keeps the first answer, does not lose the driver for a later valid call. A refused call changes nothing: an initialized driver stays initialized and reported. |
//! | `zeInitDrivers(desc)` | `UINT32_MAX` (every type) → the driver; a set with `GPU` → the driver only when `ZEKIT_DEVICE_TYPE=gpu`; `0` ("do not init any"), `NPU`, and `GPU`/`GPU\|NPU` on a CPU → `UNINITIALIZED` with `*pCount = 0` (nothing initialized by this call; an already initialized driver stays so); other bits → `INVALID_ENUMERATION`. |
//! | `ZEKIT_DEVICE_TYPE` | unset, empty or `cpu`: the device is `ZE_DEVICE_TYPE_CPU`; `gpu`: `ZE_DEVICE_TYPE_GPU` (for software that only looks for GPUs; nothing else changes); anything else: CPU, and one log line says so. |
//! | `zeDriverGet` before any successful init call | `ZE_RESULT_ERROR_UNINITIALIZED` |
//! | `zeContextCreate(desc)` | flags other than `ZE_CONTEXT_FLAG_TBD` → `INVALID_ENUMERATION`; the context holds every device; `zeContextCreateEx` with devices holds those (0 devices = all). |
//! | `zeContextDestroy` with live allocations | allowed: the allocations are freed with the context (the spec lets the implementation free them immediately). Later use of the handle is `INVALID_ARGUMENT`. |
//! | allocations | belong to one context: freeing or querying a pointer through another context is `INVALID_ARGUMENT` / `ZE_MEMORY_TYPE_UNKNOWN`. Ids are unique in the process. |
//! | allocation flags | host flags above `0xf`, device flags above `0x7` → `INVALID_ENUMERATION`; `device_desc->ordinal` must be 0 (one memory) else `INVALID_ARGUMENT`; a device outside the context → `INVALID_ARGUMENT`. |
//! | relaxed limits | `ze_relaxed_allocation_limits_exp_desc_t` and `..._ext_desc_t` in the `pNext` chain of the device or host descriptor: `MAX_SIZE` lifts `maxMemAllocSize`; unknown bits → `INVALID_ENUMERATION`. |
//! | external memory | import `OPAQUE_FD` ([`EXTERNAL_MEMORY_TYPES`]); export `OPAQUE_FD`, and `DMA_BUF` only where `/dev/udmabuf` opens ([`export_memory_types`], also what `zeDeviceGetExternalMemoryProperties` reports). Export: `ze_external_memory_export_desc_t` chained to the allocation's device or host descriptor makes it a memfd whatever the fd budget; `ze_external_memory_export_fd_t` on `zeMemGetAllocProperties` (any pointer inside it) returns a new close-on-exec descriptor of that memfd (`DMA_BUF`: a dma-buf of the whole allocation from `UDMABUF_CREATE` on a memfd sealed with `F_SEAL_SHRINK`, see [`crate::model::udmabuf`]), the caller's to close; an allocation not made exportable as that type → `INVALID_ARGUMENT`. Import: `ze_external_memory_import_fd_t` (exactly one type) maps a regular file of at least `size` bytes `MAP_SHARED` read-write from offset 0; the driver keeps a duplicate and never closes or owns the caller's fd (the spec gives no transfer of ownership). A bad, non-regular, read-only or too small fd → `INVALID_ARGUMENT`. `DMA_BUF` import, `DMA_BUF` export without `/dev/udmabuf`, Win32 and D3D types → `UNSUPPORTED_ENUMERATION`; unknown bits, or a type count other than one where one is needed → `INVALID_ENUMERATION`. |

use std::os::fd::{AsFd, AsRawFd};

use zekit_sys::*;

use crate::model::alloc::{
    AllocError, AllocKind, AllocManager, Detached, FreePolicy, SizeLimit, Source,
};
use crate::exec::Drain;
use crate::model::ipc::{self, Imports};
use crate::model::vm::VirtualSpace;
use crate::host::{fnv1a_128, HostInfo};

/// Why a call failed (the drivers' one error, shared with the entry layer and the rules): the
/// result code and a one-line reason, carried to whichever thread reports it.
pub use zekit_icd_rt::{ZeError, ZeResult};

/// `DEVICE_LOST`: work of `what` faulted (`crate::exec::fault`).
pub fn device_lost(what: &str) -> ZeError {
    ZeError::new(
        ZE_RESULT_ERROR_DEVICE_LOST,
        format!("{what} faulted (it touched memory it must not: read-only, unmapped or out of bounds)"),
    )
}

// ---------------------------------------------------------------- driver

/// Number of devices the driver exposes (the host CPU).
pub const NUM_DEVICES: usize = 1;

pub use super::extensions::{Extension, EXTENSIONS};

/// API version of the loaders `zeDriverGetExtensionFunctionAddress` serves: Debian's loader
/// (1.8.12) knows API 1.4, so functions of later versions can only be reached by name.
pub const LOADER_API_VERSION: (u32, u32) = (1, 4);

/// Whether `zeDriverGetExtensionFunctionAddress` resolves the function `name`, introduced by API
/// version `since`, when the driver implements it: every function newer than
/// [`LOADER_API_VERSION`], and every extension function (`...Ext`, `...Exp`) whatever its
/// version.
pub fn resolves_by_name(name: &str, since: (u32, u32)) -> bool {
    since > LOADER_API_VERSION || name.ends_with("Ext") || name.ends_with("Exp")
}

/// API version the driver implements (`zeDriverGetApiVersion`).
pub const fn api_version() -> ze_api_version_t {
    ze_api_version_t::CURRENT
}

/// `driverVersion`: `major << 24 | minor << 16 | patch` of this crate.
pub fn driver_version() -> u32 {
    let part = |s: &str| s.parse::<u32>().unwrap_or(0);
    (part(env!("CARGO_PKG_VERSION_MAJOR")) << 24)
        | (part(env!("CARGO_PKG_VERSION_MINOR")) << 16)
        | (part(env!("CARGO_PKG_VERSION_PATCH")) & 0xffff)
}

/// Driver UUID: derived from the host (device) UUID, so stable per machine and distinct from the
/// device UUID (RFC 9562 version 8).
pub fn driver_uuid(host: &HostInfo) -> [u8; 16] {
    let mut input = b"zekit CPU driver ".to_vec();
    input.extend_from_slice(&host.uuid);
    let mut id = fnv1a_128(&input).to_be_bytes();
    id[6] = (id[6] & 0x0F) | 0x80;
    id[8] = (id[8] & 0x3F) | 0x80;
    id
}

/// What the driver's one device reports itself as (`ZEKIT_DEVICE_TYPE`): a CPU (the default) or,
/// for software that only looks for GPUs, a GPU. Only the reported type and which init flags
/// find the driver change; the device is the host CPU either way.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DeviceKind {
    /// `ZE_DEVICE_TYPE_CPU`.
    #[default]
    Cpu,
    /// `ZE_DEVICE_TYPE_GPU`.
    Gpu,
}

/// Environment variable that selects the [`DeviceKind`].
pub const DEVICE_TYPE_VAR: &str = "ZEKIT_DEVICE_TYPE";

impl DeviceKind {
    /// From the value of [`DEVICE_TYPE_VAR`]: unset or empty → CPU; `cpu` or `gpu` (any case);
    /// anything else is an error (the caller falls back to CPU and says so).
    pub fn from_setting(value: Option<&str>) -> Result<DeviceKind, String> {
        match value.map(str::trim) {
            None | Some("") => Ok(DeviceKind::Cpu),
            Some(v) if v.eq_ignore_ascii_case("cpu") => Ok(DeviceKind::Cpu),
            Some(v) if v.eq_ignore_ascii_case("gpu") => Ok(DeviceKind::Gpu),
            Some(v) => Err(format!(
                "{v:?} is neither `cpu` nor `gpu`; the device reports itself as a CPU"
            )),
        }
    }

    /// `ze_device_properties_t::type`.
    pub const fn device_type(self) -> ze_device_type_t {
        match self {
            DeviceKind::Cpu => ze_device_type_t::CPU,
            DeviceKind::Gpu => ze_device_type_t::GPU,
        }
    }
}

/// `UNINITIALIZED`: the init call asked only for driver types this driver is not.
fn not_this_type(call: &str, flags: u32, kind: DeviceKind) -> ZeError {
    let is = match kind {
        DeviceKind::Cpu => "a CPU driver (neither GPU nor VPU/NPU)",
        DeviceKind::Gpu => "a GPU driver (ZEKIT_DEVICE_TYPE=gpu), not a VPU/NPU one",
    };
    ZeError::new(
        ZE_RESULT_ERROR_UNINITIALIZED,
        format!("{call} flags {flags:#x} ask for no driver type this one has: it is {is}"),
    )
}

/// `zeInit(flags)`: `Ok` when the driver is initialized and reported: `0` always; `GPU_ONLY`
/// (alone or with `VPU_ONLY`) when the device is a GPU. A request for types this driver is not
/// (`VPU_ONLY`; `GPU_ONLY` on a CPU) is `UNINITIALIZED`, as compute-runtime answers when it has
/// no device of the asked type: success always means a driver is there. Unknown bits are
/// ignored (the rest decides), unless strict.
pub fn init_flags_report(flags: ze_init_flags_t, kind: DeviceKind) -> ZeResult<()> {
    let unknown = flags.0 & !ze_init_flags_t::all_known().0;
    if unknown != 0 {
        // The loader keeps the first zeInit's answer for the whole process (and drops a driver
        // that refused it): a refused bad flag would make every later, valid zeInit fail. So
        // unknown bits are ignored, unless strict.
        if zekit_icd_rt::strict() {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ENUMERATION,
                format!("unknown zeInit flags {:#x}", flags.0),
            ));
        }
        zekit_icd_rt::lenient("zeInit", &format!("unknown flag bits {unknown:#x} ignored"));
    }
    let known = ze_init_flags_t(flags.0 & ze_init_flags_t::all_known().0);
    if known.is_empty() || (kind == DeviceKind::Gpu && known.intersects(ze_init_flags_t::GPU_ONLY)) {
        Ok(())
    } else {
        Err(not_this_type("zeInit", flags.0, kind))
    }
}

/// `zeInitDrivers` with `desc->flags == flags`: `Ok` when the driver is initialized and
/// reported: `UINT32_MAX` (every type) always; a set with `GPU` when the device is a GPU. `0`
/// ("do not init or retrieve any drivers") and sets of types this driver is not (`NPU`; `GPU`
/// on a CPU) are `UNINITIALIZED` with no handles (compute-runtime's answer when it is not of the
/// asked type); other bits → `INVALID_ENUMERATION`.
pub fn driver_types_report(flags: ze_init_driver_type_flags_t, kind: DeviceKind) -> ZeResult<()> {
    match flags.0 {
        u32::MAX => Ok(()),
        0 => Err(ZeError::new(
            ZE_RESULT_ERROR_UNINITIALIZED,
            "desc->flags is 0: no driver type asked for, none initialized",
        )),
        f if f & !ze_init_driver_type_flags_t::all_known().0 != 0 => Err(ZeError::new(
            ZE_RESULT_ERROR_INVALID_ENUMERATION,
            format!("unknown driver type flags {f:#x}"),
        )),
        _ if kind == DeviceKind::Gpu && flags.intersects(ze_init_driver_type_flags_t::GPU) => Ok(()),
        f => Err(not_this_type("zeInitDrivers", f, kind)),
    }
}

/// Initialization state of the driver: whether an init call that asked for it succeeded (then
/// it is initialized and reported for good). Thread-safe.
#[derive(Debug, Default)]
pub struct InitState {
    // bit 0: initialized
    bits: std::sync::atomic::AtomicU8,
    kind: DeviceKind,
}

impl InitState {
    const INITIALIZED: u8 = 1;

    /// A CPU driver nobody initialized yet.
    pub const fn new() -> InitState {
        Self::of(DeviceKind::Cpu)
    }

    /// A driver whose device is a `kind`, not initialized yet.
    pub const fn of(kind: DeviceKind) -> InitState {
        InitState {
            bits: std::sync::atomic::AtomicU8::new(0),
            kind,
        }
    }

    /// What the device reports itself as.
    pub fn kind(&self) -> DeviceKind {
        self.kind
    }

    fn mark(&self) {
        self.bits
            .fetch_or(Self::INITIALIZED, std::sync::atomic::Ordering::AcqRel);
    }

    /// `zeInit(flags)`. A refused call leaves the state as it was: an initialized driver stays
    /// initialized and reported.
    pub fn init(&self, flags: ze_init_flags_t) -> ZeResult<()> {
        init_flags_report(flags, self.kind)?;
        self.mark();
        Ok(())
    }

    /// `zeInitDrivers`: initializes the driver when `flags` ask for it (then 1 driver), else the
    /// failure (the caller reports 0 handles).
    pub fn init_drivers(&self, flags: ze_init_driver_type_flags_t) -> ZeResult<u32> {
        driver_types_report(flags, self.kind)?;
        self.mark();
        Ok(1)
    }

    /// `zeDriverGet`: how many drivers are reported (`UNINITIALIZED` before a successful init
    /// call).
    pub fn reported_drivers(&self) -> ZeResult<u32> {
        let bits = self.bits.load(std::sync::atomic::Ordering::Acquire);
        if bits & Self::INITIALIZED == 0 {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_UNINITIALIZED,
                "no zeInit or zeInitDrivers call that asked for this driver has succeeded",
            ));
        }
        Ok(1)
    }
}

// ---------------------------------------------------------------- handles' values

/// Value of the driver handle.
#[derive(Debug)]
pub struct DriverObject;

/// Value of a device handle.
#[derive(Debug)]
pub struct DeviceObject {
    /// Device ordinal (0: the host CPU).
    pub ordinal: usize,
}

/// Value of a context handle: its devices and its USM allocations.
#[derive(Debug)]
pub struct ContextObject {
    id: u64,
    devices: Vec<usize>,
    allocs: AllocManager,
    vm: VirtualSpace,
    imports: Imports,
    /// Manifests of the multi-object range handles this context exported (until put).
    manifests: std::sync::Mutex<Vec<std::os::fd::OwnedFd>>,
    /// `DEFER_FREE` allocations and the work they wait for.
    deferred: std::sync::Mutex<Vec<(Detached, Drain)>>,
    /// Atomic access attributes of allocation ranges.
    atomic_attrs: super::atomic_attrs::AtomicAttrs,
}

/// What `zeMemGetAllocProperties` answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AllocProperties {
    /// `HOST`, `DEVICE`, `SHARED`, or `UNKNOWN` for a pointer outside every allocation.
    pub memory_type: ze_memory_type_t,
    /// Allocation id (0 when unknown).
    pub id: u64,
    /// Page size in bytes (0 when unknown).
    pub page_size: u64,
    /// Device ordinal of a device (or device-bound shared) allocation.
    pub device: Option<usize>,
}

/// One allocation request, as decoded from a `zeMemAlloc*` call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AllocRequest {
    /// Host, device or shared.
    pub kind: AllocKind,
    /// Size in bytes.
    pub size: usize,
    /// Alignment (0: default).
    pub alignment: usize,
    /// Device ordinal, when a device was given.
    pub device: Option<usize>,
    /// Relaxed-limits descriptor found in the `pNext` chains.
    pub limit: SizeLimit,
    /// `ze_external_memory_export_desc_t::flags` found in the `pNext` chains (0: none).
    pub export_types: ze_external_memory_type_flags_t,
    /// `ze_external_memory_import_fd_t` found in the `pNext` chains: its flags and fd.
    pub import_fd: Option<(ze_external_memory_type_flags_t, i32)>,
}

/// External memory types this driver imports: `OPAQUE_FD` only (a regular, mappable file; a
/// dma-buf from another exporter need not be mappable by the CPU). The Win32 and D3D types do
/// not exist on Linux.
pub const EXTERNAL_MEMORY_TYPES: ze_external_memory_type_flags_t =
    ze_external_memory_type_flags_t::OPAQUE_FD;

/// External memory types this driver exports: `OPAQUE_FD` (a memfd; see
/// [`ContextObject::alloc`]), and `DMA_BUF` where `/dev/udmabuf` opens
/// ([`crate::model::udmabuf`]).
pub fn export_memory_types() -> ze_external_memory_type_flags_t {
    if crate::model::udmabuf::available() {
        EXTERNAL_MEMORY_TYPES | ze_external_memory_type_flags_t::DMA_BUF
    } else {
        EXTERNAL_MEMORY_TYPES
    }
}

/// Checks external memory type flags against the `supported` ones (`what` names the field for
/// the log line): unknown bits `INVALID_ENUMERATION`; known types outside `supported`
/// `UNSUPPORTED_ENUMERATION`; `single`: exactly one type must be named (imports and exports of
/// an fd).
pub fn check_external_memory_types(
    flags: ze_external_memory_type_flags_t,
    supported: ze_external_memory_type_flags_t,
    what: &str,
    single: bool,
) -> ZeResult<()> {
    let known = ze_external_memory_type_flags_t::all_known().0;
    if flags.0 & !known != 0 {
        return Err(ZeError::new(
            ZE_RESULT_ERROR_INVALID_ENUMERATION,
            format!("{what} {:#x} has unknown bits", flags.0),
        ));
    }
    if single && flags.0.count_ones() != 1 {
        return Err(ZeError::new(
            ZE_RESULT_ERROR_INVALID_ENUMERATION,
            format!("{what} {:#x} must name exactly one memory type", flags.0),
        ));
    }
    let unsupported = flags.0 & !supported.0;
    if unsupported != 0 {
        let why = if unsupported & ze_external_memory_type_flags_t::DMA_BUF.0 == 0 {
            "Win32 and D3D memory types do not exist on Linux"
        } else if supported.intersects(ze_external_memory_type_flags_t::DMA_BUF) {
            "DMA_BUF is exported, not imported"
        } else {
            "DMA_BUF needs /dev/udmabuf, which does not open here"
        };
        return Err(ZeError::new(
            ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION,
            format!("{what} {:#x}: {why}; supported: {:#x}", flags.0, supported.0),
        ));
    }
    Ok(())
}

/// Checks an fd to import as `OPAQUE_FD` memory of `size` bytes: an open regular file (a
/// memfd, a tmpfs or other mappable file) of at least `size` bytes. Returns a duplicate
/// (`F_DUPFD_CLOEXEC`) the allocation keeps; the caller's fd stays the caller's.
fn import_fd(fd: i32, size: usize) -> ZeResult<std::os::fd::OwnedFd> {
    use std::os::fd::{BorrowedFd, OwnedFd};
    let bad = |reason: String| ZeError::new(ZE_RESULT_ERROR_INVALID_ARGUMENT, reason);
    if fd < 0 {
        return Err(bad(format!("import fd {fd} is not a file descriptor")));
    }
    // SAFETY: an all-zero `stat` is a valid value to be overwritten.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `st` is a valid out-pointer; a closed fd gives EBADF.
    if unsafe { libc::fstat(fd, &mut st) } != 0 {
        let e = std::io::Error::last_os_error();
        return Err(bad(format!("import fd {fd}: {e}")));
    }
    if st.st_mode & libc::S_IFMT != libc::S_IFREG {
        return Err(bad(format!(
            "import fd {fd} is not a regular file (a memfd or other mappable file)"
        )));
    }
    let len = u64::try_from(st.st_size).unwrap_or(0);
    if len < size as u64 {
        return Err(bad(format!(
            "import fd {fd} holds {len} bytes, fewer than the {size} bytes asked for"
        )));
    }
    // SAFETY: `fd` is open (fstat succeeded) and stays open for this call: the caller owns it.
    let borrowed = unsafe { BorrowedFd::borrow_raw(fd) };
    let dup: OwnedFd = borrowed
        .try_clone_to_owned()
        .map_err(|e| bad(format!("import fd {fd}: cannot duplicate it: {e}")))?;
    Ok(dup)
}

/// `ze_context_desc_t::flags` check.
pub fn check_context_flags(flags: ze_context_flags_t) -> ZeResult<()> {
    if flags.0 & !ze_context_flags_t::all_known().0 != 0 {
        return Err(ZeError::new(
            ZE_RESULT_ERROR_INVALID_ENUMERATION,
            format!("unknown context flags {:#x}", flags.0),
        ));
    }
    Ok(())
}

/// `ze_host_mem_alloc_desc_t::flags` check (every bias is a hint the CPU ignores).
pub fn check_host_alloc_flags(flags: ze_host_mem_alloc_flags_t) -> ZeResult<()> {
    if flags.0 & !ze_host_mem_alloc_flags_t::all_known().0 != 0 {
        return Err(ZeError::new(
            ZE_RESULT_ERROR_INVALID_ENUMERATION,
            format!("unknown host allocation flags {:#x}", flags.0),
        ));
    }
    Ok(())
}

/// `ze_device_mem_alloc_desc_t` check: known flags (hints the CPU ignores) and memory ordinal 0.
pub fn check_device_alloc_desc(flags: ze_device_mem_alloc_flags_t, ordinal: u32) -> ZeResult<()> {
    if flags.0 & !ze_device_mem_alloc_flags_t::all_known().0 != 0 {
        return Err(ZeError::new(
            ZE_RESULT_ERROR_INVALID_ENUMERATION,
            format!("unknown device allocation flags {:#x}", flags.0),
        ));
    }
    if ordinal != 0 {
        // Programs written for GPUs with two memories pass ordinal 1; compute-runtime does not
        // read the ordinal, and there is one memory to give.
        if zekit_icd_rt::strict() {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ARGUMENT,
                format!("device_desc->ordinal {ordinal}: the device has one memory (ordinal 0)"),
            ));
        }
        zekit_icd_rt::lenient("zeMemAllocDevice", &format!("device_desc->ordinal {ordinal}, read as 0: the device has one memory"));
    }
    Ok(())
}

/// Flags of a relaxed-allocation-limits descriptor (`_exp_` or `_ext_`, same bits).
pub fn relaxed_limit(flags: u32) -> ZeResult<SizeLimit> {
    const MAX_SIZE: u32 = ze_relaxed_allocation_limits_ext_flags_t::MAX_SIZE.0;
    match flags {
        0 => Ok(SizeLimit::Strict),
        MAX_SIZE => Ok(SizeLimit::Relaxed),
        f => Err(ZeError::new(
            ZE_RESULT_ERROR_INVALID_ENUMERATION,
            format!("unknown relaxed allocation limits flags {f:#x}"),
        )),
    }
}

fn alloc_failure(e: AllocError, req: &AllocRequest, max: u64) -> ZeError {
    let reason = match e {
        AllocError::UnsupportedSize if req.size == 0 => "size is 0".to_string(),
        AllocError::UnsupportedSize => format!(
            "size {} exceeds the maximum allocation size {max}{}",
            req.size,
            if req.limit == SizeLimit::Relaxed {
                " even with relaxed limits"
            } else {
                " (pass ze_relaxed_allocation_limits_ext_desc_t to relax it)"
            }
        ),
        AllocError::UnsupportedAlignment if req.alignment.is_power_of_two() => format!(
            "alignment {} exceeds the largest supported alignment {}",
            req.alignment,
            crate::model::alloc::MAX_ALIGNMENT
        ),
        AllocError::UnsupportedAlignment => {
            format!("alignment {} is not 0 or a power of two", req.alignment)
        }
        AllocError::InvalidArgument => "device is not part of this driver".to_string(),
        AllocError::OutOfHostMemory | AllocError::OutOfDeviceMemory => {
            format!("the system allocator failed for {} bytes", req.size)
        }
        AllocError::NoMemfd => {
            "an exportable allocation needs a memfd and the kernel refused one".to_string()
        }
        AllocError::ImportMap(errno) => format!(
            "the imported file cannot be mapped shared and writable: {}",
            std::io::Error::from_raw_os_error(errno)
        ),
        AllocError::NullPointer | AllocError::InvalidEnumeration => e.to_string(),
    };
    ZeError::new(e.to_ze_result(), reason)
}

impl ContextObject {
    /// A context over `devices` (ordinals; empty means every device).
    pub fn new(host: &HostInfo, devices: &[usize]) -> ZeResult<ContextObject> {
        let mut devices = devices.to_vec();
        if devices.is_empty() {
            devices = (0..NUM_DEVICES).collect();
        }
        devices.sort_unstable();
        devices.dedup();
        if let Some(bad) = devices.iter().find(|&&d| d >= NUM_DEVICES) {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ARGUMENT,
                format!("device ordinal {bad} is not a device of this driver"),
            ));
        }
        static NEXT_CONTEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        Ok(ContextObject {
            id: NEXT_CONTEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            devices,
            allocs: AllocManager::new(host.total_memory, NUM_DEVICES),
            vm: VirtualSpace::new(),
            imports: Imports::default(),
            manifests: std::sync::Mutex::new(Vec::new()),
            deferred: std::sync::Mutex::new(Vec::new()),
            atomic_attrs: Default::default(),
        })
    }

    /// The allocation of this context holding `ptr` (`INVALID_ARGUMENT` outside every one).
    fn allocation_of(&self, ptr: *const u8) -> ZeResult<super::atomic_attrs::Alloc> {
        let (base, size) = self.allocs.address_range(ptr).ok_or_else(|| {
            ZeError::new(ZE_RESULT_ERROR_INVALID_ARGUMENT, format!("{ptr:p} is not inside an allocation of this context"))
        })?;
        let id = self.alloc_properties(ptr, 0).id;
        Ok(super::atomic_attrs::Alloc { base: base as usize, size, id })
    }

    /// `zeMemSetAtomicAccessAttributeExp` (see [`super::atomic_attrs`]).
    pub fn set_atomic_attr(&self, ptr: *const u8, size: usize, attr: ze_memory_atomic_attr_exp_flags_t) -> ZeResult<()> {
        self.atomic_attrs.set(self.allocation_of(ptr)?, ptr as usize, size, attr)
    }

    /// `zeMemGetAtomicAccessAttributeExp` (see [`super::atomic_attrs`]).
    pub fn atomic_attr(&self, ptr: *const u8, size: usize) -> ZeResult<ze_memory_atomic_attr_exp_flags_t> {
        self.atomic_attrs.get(self.allocation_of(ptr)?, ptr as usize, size)
    }

    /// Unique id in the process (the tag of its queues' engines).
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Device ordinals of the context.
    pub fn devices(&self) -> &[usize] {
        &self.devices
    }

    /// The context's virtual address space (reservations and mappings).
    pub fn vm(&self) -> &VirtualSpace {
        &self.vm
    }

    /// Live allocations of the context.
    pub fn live_allocations(&self) -> usize {
        self.allocs.len()
    }

    /// `zeMemAlloc{Host,Device,Shared}`.
    pub fn alloc(&self, req: &AllocRequest) -> ZeResult<*mut u8> {
        if let Some(d) = req.device {
            if !self.devices.contains(&d) {
                return Err(ZeError::new(
                    ZE_RESULT_ERROR_INVALID_ARGUMENT,
                    format!("device {d} is not part of this context"),
                ));
            }
        }
        check_external_memory_types(req.export_types, export_memory_types(), "export flags", false)?;
        let source = match req.import_fd {
            Some((flags, fd)) => {
                check_external_memory_types(flags, EXTERNAL_MEMORY_TYPES, "import flags", true)?;
                Source::Import(import_fd(fd, req.size)?)
            }
            None if req.export_types.intersects(ze_external_memory_type_flags_t::DMA_BUF) => Source::DmaBuf,
            None if !req.export_types.is_empty() => Source::Memfd,
            None => Source::Any,
        };
        self.reclaim();
        self.allocs
            .alloc_from(
                req.kind,
                req.size,
                req.alignment,
                req.device,
                req.limit,
                source,
                req.export_types,
            )
            .map_err(|e| alloc_failure(e, req, self.allocs.max_alloc_size()))
    }

    /// `zeMemGetAllocProperties` with `ze_external_memory_export_fd_t`: a new descriptor (the
    /// caller owns it and closes it) of the memfd behind the allocation containing `ptr`, which
    /// must have been allocated exportable as `flags` (exactly one type).
    pub fn export_fd(&self, ptr: *const u8, flags: ze_external_memory_type_flags_t) -> ZeResult<i32> {
        check_external_memory_types(flags, export_memory_types(), "export fd flags", true)?;
        let exported = self.allocs.with_memfd(ptr, |info, fd| {
            if info.export_types.0 & flags.0 != flags.0 {
                return Err(ZeError::new(
                    ZE_RESULT_ERROR_INVALID_ARGUMENT,
                    format!(
                        "allocation {} was not made exportable as {:#x} (chain ze_external_memory_export_desc_t to its allocation)",
                        info.id, flags.0
                    ),
                ));
            }
            let Some(fd) = fd else {
                return Err(ZeError::new(
                    ZE_RESULT_ERROR_INVALID_ARGUMENT,
                    format!("allocation {} has no memfd", info.id),
                ));
            };
            if flags == ze_external_memory_type_flags_t::DMA_BUF {
                let page = crate::model::vm::page_size();
                let len = info.size.div_ceil(page) * page;
                let buf = crate::model::udmabuf::create(fd.as_fd(), 0, len as u64).map_err(|e| {
                    ZeError::new(
                        ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY,
                        format!("/dev/udmabuf made no dma-buf of allocation {} ({len} bytes): {e}", info.id),
                    )
                })?;
                return Ok(std::os::fd::IntoRawFd::into_raw_fd(buf));
            }
            let new = fd.try_clone_to_owned().map_err(|e| {
                ZeError::new(
                    ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY,
                    format!("cannot duplicate the memfd of allocation {}: {e}", info.id),
                )
            })?;
            Ok(std::os::fd::IntoRawFd::into_raw_fd(new))
        });
        exported.unwrap_or_else(|| {
            Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ARGUMENT,
                format!("{ptr:p} is not inside an allocation of this context: nothing to export"),
            ))
        })
    }

    fn free_failure(&self, e: AllocError, ptr: *mut u8) -> ZeError {
        let reason = match e {
            AllocError::NullPointer => "ptr is null".to_string(),
            AllocError::InvalidArgument => match self.allocs.properties(ptr) {
                Some(info) => format!(
                    "{ptr:p} is inside allocation {} (base {:p}): free takes the base address",
                    info.id, info.base
                ),
                None => format!("{ptr:p} is not a live allocation of this context"),
            },
            AllocError::InvalidEnumeration => {
                "freePolicy must be 0 or one of BLOCKING_FREE, DEFER_FREE".to_string()
            }
            other => other.to_string(),
        };
        ZeError::new(e.to_ze_result(), reason)
    }

    /// `zeMemFree`.
    pub fn free(&self, ptr: *mut u8) -> ZeResult<()> {
        self.reclaim();
        self.allocs.free(ptr).map_err(|e| self.free_failure(e, ptr))
    }

    /// `zeMemFreeExt` with `freePolicy`:
    /// - 0: frees at once, like `zeMemFree`;
    /// - `BLOCKING_FREE`: waits until everything submitted to the context's queues and immediate
    ///   lists before the call has run (a superset of the work that may use `ptr`), then frees;
    /// - `DEFER_FREE`: the allocation leaves the context at once (a second free is
    ///   `INVALID_ARGUMENT`), and its memory is released once that work has run: at the
    ///   context's next allocation or free call after it, or when the context is destroyed
    ///   (which then waits for it).
    pub fn free_ext(
        &self,
        ptr: *mut u8,
        policy: ze_driver_memory_free_policy_ext_flags_t,
    ) -> ZeResult<()> {
        let policy = FreePolicy::from_flags(policy).map_err(|e| self.free_failure(e, ptr))?;
        self.reclaim();
        match policy {
            FreePolicy::Immediate => self.free(ptr),
            FreePolicy::Blocking => {
                let detached = self.allocs.detach(ptr).map_err(|e| self.free_failure(e, ptr))?;
                Drain::now(self.id).wait();
                drop(detached);
                Ok(())
            }
            FreePolicy::Defer => {
                let detached = self.allocs.detach(ptr).map_err(|e| self.free_failure(e, ptr))?;
                let drain = Drain::now(self.id);
                if !drain.is_done() {
                    self.deferred_lock().push((detached, drain));
                }
                Ok(())
            }
        }
    }

    fn deferred_lock(&self) -> std::sync::MutexGuard<'_, Vec<(Detached, Drain)>> {
        self.deferred.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Releases the deferred frees whose work has run.
    fn reclaim(&self) {
        let mut d = self.deferred_lock();
        if !d.is_empty() {
            d.retain(|(_, drain)| !drain.is_done());
        }
    }

    /// Deferred frees not released yet.
    pub fn pending_deferred_frees(&self) -> usize {
        self.reclaim();
        self.deferred_lock().len()
    }

    /// `zeMemGetAllocProperties`: a pointer outside the context's allocations is `UNKNOWN`.
    pub fn alloc_properties(&self, ptr: *const u8, page_size: u64) -> AllocProperties {
        let mut p = ze_memory_allocation_properties_t::default();
        let device = self
            .allocs
            .fill_allocation_properties(ptr, page_size, &mut p);
        AllocProperties {
            memory_type: p.r#type,
            id: p.id,
            page_size: p.pageSize,
            device,
        }
    }

    /// `zeMemGetIpcHandle`: a handle for the allocation containing `ptr` (the importer gets its
    /// base); in reserved virtual memory, for the mapped run around `ptr`
    /// ([`VirtualSpace::mapped_run`]).
    pub fn ipc_handle(&self, ptr: *const u8) -> ZeResult<ze_ipc_mem_handle_t> {
        let Some((info, fd)) = self.allocs.export(ptr) else {
            // Reserved virtual memory: the mapped run around `ptr` (the allocation there).
            if let Some((start, len)) = self.vm.mapped_run(ptr as usize) {
                return self.ipc_range_handle(start as *const u8, len);
            }
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ARGUMENT,
                format!("{ptr:p} is not inside an allocation of this context"),
            ));
        };
        let Some(fd) = fd else {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
                format!(
                    "allocation {} could not be made shareable (no memfd: out of file descriptors?)",
                    info.id
                ),
            ));
        };
        let page = crate::model::vm::page_size() as u64;
        let size = info.size as u64;
        ipc::export(fd, 0, size.div_ceil(page) * page, 0, size).map(|w| w.encode())
    }

    /// `zeMemGetIpcHandleWithProperties` with `ze_ipc_phys_mem_handle_range_ext_desc_t`: a handle
    /// for the virtual range `[ptr, ptr + size)`, fully mapped (to one physical memory object: one file; to several: a manifest of the pieces).
    pub fn ipc_range_handle(&self, ptr: *const u8, size: usize) -> ZeResult<ze_ipc_mem_handle_t> {
        if ptr.is_null() {
            return Err(ZeError::new(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "ptr is null"));
        }
        if size == 0 {
            return Err(ZeError::new(ZE_RESULT_ERROR_INVALID_SIZE, "range size is 0"));
        }
        let addr = ptr as usize;
        let Some(end) = addr.checked_add(size) else {
            return Err(ZeError::new(ZE_RESULT_ERROR_INVALID_SIZE, "ptr + size overflows"));
        };
        if self.allocs.properties(ptr).is_some()
            || self.allocs.properties((end - 1) as *const u8).is_some()
        {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ARGUMENT,
                "the range includes a USM allocation: range handles take reserved, mapped virtual memory only",
            ));
        }
        let Some(pieces) = self.vm.pieces(addr, size) else {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_ADDRESS_NOT_FOUND,
                format!("[{addr:#x}, {end:#x}) is not fully mapped to physical memory of this context"),
            ));
        };
        // Adjacent pieces of one object at contiguous offsets are one piece.
        let mut merged: Vec<crate::model::vm::MappedPiece> = Vec::new();
        for p in pieces {
            match merged.last_mut() {
                Some(m) if std::sync::Arc::ptr_eq(&m.phys, &p.phys) && m.offset + m.len == p.offset => {
                    m.len += p.len;
                }
                _ => merged.push(p),
            }
        }
        let page = crate::model::vm::page_size();
        if merged.len() > 1 {
            return self.ipc_multi_range_handle(&merged, size);
        }
        let piece = &merged[0];
        let start = piece.offset & !(page - 1);
        let delta = piece.offset - start;
        let map_len = (delta + piece.len).div_ceil(page) * page;
        ipc::export(
            piece.phys.fd().as_raw_fd(),
            start as u64,
            map_len as u64,
            delta as u64,
            size as u64,
        ).map(|w| w.encode())
    }

    /// A range handle over several physical objects (or one at discontiguous offsets): a
    /// manifest of the pieces, kept by the context until the handle is put.
    fn ipc_multi_range_handle(
        &self,
        merged: &[crate::model::vm::MappedPiece],
        size: usize,
    ) -> ZeResult<ze_ipc_mem_handle_t> {
        let page = crate::model::vm::page_size();
        if merged.len() > ipc::MAX_PIECES as usize {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_UNSUPPORTED_SIZE,
                format!("the range spans {} mappings; a handle holds at most {}", merged.len(), ipc::MAX_PIECES),
            ));
        }
        let mut pieces = Vec::with_capacity(merged.len());
        for m in merged {
            let start = m.offset & !(page - 1);
            let end = (m.offset + m.len).div_ceil(page) * page;
            pieces.push(ipc::Piece {
                file: ipc::Remote::local(m.phys.fd().as_raw_fd())?,
                offset: start as u64,
                len: (end - start) as u64,
            });
        }
        let delta = (merged[0].offset & (page - 1)) as u64;
        let manifest = ipc::write_manifest(&pieces)?;
        let wire = ipc::RangeWire {
            manifest: ipc::Remote::local(manifest.as_raw_fd())?,
            count: pieces.len() as u32,
            delta,
            size: size as u64,
        };
        self.manifests.lock().unwrap_or_else(|e| e.into_inner()).push(manifest);
        Ok(wire.encode())
    }

    /// `zeMemOpenIpcHandle`: maps the memory `handle` names; returns the pointer.
    pub fn ipc_open(&self, handle: &ze_ipc_mem_handle_t) -> ZeResult<*mut u8> {
        let p = match ipc::decode_mem(handle)? {
            ipc::MemHandle::Single(w) => self.imports.open(&w)?,
            ipc::MemHandle::Range(w) => self.imports.open_range(&w)?,
        };
        Ok(p as *mut u8)
    }

    /// `zeMemPutIpcHandle`: checks the handle; a multi-object range handle of this context
    /// releases its manifest (other handles own nothing).
    pub fn ipc_put(&self, handle: &ze_ipc_mem_handle_t) -> ZeResult<()> {
        if let ipc::MemHandle::Range(w) = ipc::decode_mem(handle)? {
            let mut m = self.manifests.lock().unwrap_or_else(|e| e.into_inner());
            m.retain(|fd| ipc::Remote::local(fd.as_raw_fd()) != Ok(w.manifest));
        }
        Ok(())
    }

    /// `zeMemCloseIpcHandle`.
    pub fn ipc_close(&self, ptr: *const u8) -> ZeResult<()> {
        self.imports.close(ptr as usize)
    }

    /// `zeMemGetAddressRange`: base and size of the allocation containing `ptr`.
    pub fn address_range(&self, ptr: *const u8) -> ZeResult<(*mut u8, usize)> {
        if let Some((b, n)) = self.imports.range(ptr as usize) {
            return Ok((b as *mut u8, n));
        }
        self.allocs.address_range(ptr).ok_or_else(|| {
            ZeError::new(
                ZE_RESULT_ERROR_ADDRESS_NOT_FOUND,
                format!("{ptr:p} is not inside an allocation of this context"),
            )
        })
    }
}

impl Drop for ContextObject {
    fn drop(&mut self) {
        // Deferred frees outlive nothing: their work must end before their memory goes.
        for (detached, drain) in std::mem::take(self.deferred.get_mut().unwrap_or_else(|e| e.into_inner())) {
            drain.wait();
            drop(detached);
        }
    }
}

// ---------------------------------------------------------------- sized outputs

/// Size-query protocol of `zeDeviceGetCompilerInfo` and `zeDeviceGetRuntimeRequirements`: with no
/// buffer or `*size == 0`, `*size` becomes the size needed; with a buffer at least that large,
/// `data` is copied and `*size` becomes its length; with a smaller buffer, `*size` becomes the
/// size needed and nothing is written.
pub fn copy_sized(data: &[u8], size: &mut usize, out: Option<&mut [u8]>) {
    match out {
        Some(out) if *size != 0 && *size >= data.len() && out.len() >= data.len() => {
            out[..data.len()].copy_from_slice(data);
            *size = data.len();
        }
        _ => *size = data.len(),
    }
}

/// Runtime requirements as a C string (with its NUL), as `zeDeviceGetRuntimeRequirements`
/// copies them.
pub fn runtime_requirements_c(host: &HostInfo) -> Vec<u8> {
    let mut v = crate::model::properties::runtime_requirements(host).into_bytes();
    v.push(0);
    v
}

/// Object kinds `zeDeviceGetRuntimeRequirements` accepts in `pObjDesc`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RequirementsSource {
    /// `ze_runtime_requirements_module_desc_t`
    Module,
    /// `ze_runtime_requirements_graph_desc_t`
    Graph,
}

/// Decodes the structure type of `pObjDesc`.
pub fn requirements_source(stype: ze_structure_type_t) -> ZeResult<RequirementsSource> {
    match stype {
        ze_structure_type_t::RUNTIME_REQUIREMENTS_MODULE_DESC => Ok(RequirementsSource::Module),
        ze_structure_type_t::RUNTIME_REQUIREMENTS_GRAPH_DESC => Ok(RequirementsSource::Graph),
        other => Err(ZeError::new(
            ZE_RESULT_ERROR_INVALID_ARGUMENT,
            format!("pObjDesc has stype {other}: expected a runtime requirements module or graph descriptor"),
        )),
    }
}
