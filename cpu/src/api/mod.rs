//! The CPU driver's C-ABI side: one file per spec class, each an `#[zekit_icd::implement]`
//! block of the generated class trait. It turns handles into objects, walks `pNext` chains and
//! calls [`crate::model`]; it makes no decisions of its own. A failure of the core
//! (a [`ZeError`] with its reason) is the returned error, which the generated entry layer logs
//! once and records as the thread's last error.
//!
//! Which functions the DDI tables offer follows from the methods these blocks define.

mod command_list;
mod command_queue;
mod context;
mod device;
mod driver;
mod event;
mod event_pool;
mod fabric;
mod fence;
mod global;
mod graph;
mod image;
mod intel;
mod kernel;
mod mem;
mod module;
mod mutable;
mod virtual_mem;

use std::ffi::{c_char, c_void, CStr, CString};
use std::sync::{Arc, OnceLock};

use zekit_icd::kinds;
use zekit_icd::{
    CommandListApi, CommandQueueApi, ContextApi, DeviceApi, DriverApi, EventApi, EventPoolApi,
    ExecutableGraphApi, FabricEdgeApi, FabricVertexApi, FenceApi, GlobalApi, GraphApi, ImageApi, KernelApi, MemApi, ModuleApi, ModuleBuildLogApi, PhysicalMemApi, SamplerApi, VirtualMemApi,
};
use zekit_icd::{Handle, ZeError, ZeResult};
use zekit_icd_rt::Obj;
use zekit_sys::chain;
use zekit_sys::*;

use crate::model::alloc::{AllocKind, SizeLimit, SUPPORTED_FREE_POLICIES};
use crate::model::event::{EventObject, EventPoolObject};
use crate::model::fence::FenceObject;
use crate::model::list::ListObject;
use crate::model::objects::*;
use crate::model::properties as props;
use crate::model::queue::{QueueConfig, QueueObject};
use crate::exec::{Command, ExternalSemaphore, Op, WorkerPool};
use crate::host::{host, HostInfo};

/// The CPU driver: the host, the init state and its (lazily made) handles.
pub struct CpuDriver {
    host: &'static HostInfo,
    init: InitState,
    handles: OnceLock<Handles>,
    pool: OnceLock<Arc<WorkerPool>>,
}

struct Handles {
    driver: Handle<kinds::Driver>,
    devices: Vec<Handle<kinds::Device>>,
    /// One fabric vertex per device (`fabric.rs`).
    vertices: Vec<Handle<kinds::FabricVertex>>,
}

impl CpuDriver {
    /// A driver for `host`. Handles are made on first use, so that they carry the dispatch tables
    /// `zekit_icd::install` records.
    pub fn new(host: &'static HostInfo) -> CpuDriver {
        let setting = std::env::var(DEVICE_TYPE_VAR).ok();
        let kind = DeviceKind::from_setting(setting.as_deref()).unwrap_or_else(|why| {
            zekit_icd_rt::log_error(DEVICE_TYPE_VAR, &why);
            DeviceKind::Cpu
        });
        Self::with_kind(host, kind)
    }

    /// A driver for `host` whose device reports itself as a `kind` (whatever
    /// `ZEKIT_DEVICE_TYPE` says).
    pub fn with_kind(host: &'static HostInfo, kind: DeviceKind) -> CpuDriver {
        CpuDriver {
            host,
            init: InitState::of(kind),
            handles: OnceLock::new(),
            pool: OnceLock::new(),
        }
    }

    fn handles(&self) -> &Handles {
        self.handles.get_or_init(|| Handles {
            driver: Handle::new(DriverObject),
            devices: (0..NUM_DEVICES).map(|ordinal| Handle::new(DeviceObject { ordinal })).collect(),
            vertices: (0..NUM_DEVICES).map(|ordinal| Handle::new(fabric::VertexObject { device: ordinal })).collect(),
        })
    }

    /// The driver handle.
    pub fn driver_handle(&self) -> Handle<kinds::Driver> {
        self.handles().driver
    }

    /// The handle of device `ordinal`.
    pub fn device_handle(&self, ordinal: usize) -> Option<Handle<kinds::Device>> {
        self.handles().devices.get(ordinal).copied()
    }

    /// The host this driver describes.
    pub fn host(&self) -> &'static HostInfo {
        self.host
    }

    /// The worker pool, one thread per usable core but one (the thread that submits a job
    /// runs pieces too), started on first use.
    pub fn pool(&self) -> Arc<WorkerPool> {
        self.pool
            .get_or_init(|| {
                let cores = self.host.usable_cores as usize;
                Arc::new(WorkerPool::new(cores.saturating_sub(1)))
            })
            .clone()
    }
}

/// The process's CPU driver (what the exported tables of `libze_zekit_cpu.so`, the `zekit-cpu-icd`
/// crate, dispatch to).
pub fn instance() -> &'static CpuDriver {
    static D: OnceLock<CpuDriver> = OnceLock::new();
    D.get_or_init(|| CpuDriver::new(host()))
}

/// The dispatch table of the process's CPU driver (what `zekit_icd::install` takes).
pub fn dispatch() -> zekit_icd::Dispatch {
    zekit_icd::dispatch!(CpuDriver, instance())
}

// ---------------------------------------------------------------- helpers

fn null_pointer(what: &str) -> ZeError {
    zekit_icd_rt::fail(ZeError::INVALID_NULL_POINTER, format_args!("{what} is null"))
}

fn check_driver(h: Handle<kinds::Driver>) -> ZeResult<()> {
    h.get::<DriverObject>().map(|_| ())
}

fn ordinal(h: Handle<kinds::Device>) -> ZeResult<usize> {
    h.get::<DeviceObject>().map(|d| d.ordinal)
}

fn context(h: Handle<kinds::Context>) -> ZeResult<Obj<ContextObject>> {
    h.get::<ContextObject>()
}

fn queue(h: Handle<kinds::CommandQueue>) -> ZeResult<Obj<QueueObject>> {
    h.get::<QueueObject>()
}

fn list(h: Handle<kinds::CommandList>) -> ZeResult<Obj<ListObject>> {
    h.get::<ListObject>()
}

fn event(h: Handle<kinds::Event>) -> ZeResult<Obj<EventObject>> {
    h.get::<EventObject>()
}

fn event_pool(h: Handle<kinds::EventPool>) -> ZeResult<Obj<EventPoolObject>> {
    h.get::<EventPoolObject>()
}

/// Value of an external semaphore handle (shared with the commands that use it).
#[derive(Debug)]
pub struct SemaphoreObject(pub Arc<ExternalSemaphore>);

fn semaphore(h: Handle<kinds::ExternalSemaphoreExt>) -> ZeResult<Obj<SemaphoreObject>> {
    h.get::<SemaphoreObject>()
}

fn fence(h: Handle<kinds::Fence>) -> ZeResult<Obj<FenceObject>> {
    h.get::<FenceObject>()
}

/// `op` with the signal and wait events of an append to `list`.
fn command(
    list: &ListObject,
    op: Op,
    signal: Option<Handle<kinds::Event>>,
    waits: &[Handle<kinds::Event>],
) -> ZeResult<Command> {
    let kind = list.kind();
    let signal = match signal {
        Some(h) => Some(event(h)?.for_list(kind)?),
        None => None,
    };
    let waits = waits
        .iter()
        .map(|&h| event(h)?.for_list(kind))
        .collect::<ZeResult<Vec<_>>>()?;
    Ok(Command::new(op, signal, waits))
}

/// Appends `op` (with its events) to the list `h`.
fn append(
    h: Handle<kinds::CommandList>,
    op: impl FnOnce() -> ZeResult<Op>,
    signal: Option<Handle<kinds::Event>>,
    waits: &[Handle<kinds::Event>],
) -> ZeResult<()> {
    let list = list(h)?;
    let op = op()?;
    let command = command(&list, op, signal, waits)?;
    list.append(command)
}

/// The size limit asked for by the relaxed-limits descriptors (`flags` of each) chained to an
/// allocation's descriptors: any `MAX_SIZE` lifts it; an unknown bit is an error.
fn alloc_limit(flags: impl IntoIterator<Item = u32>) -> ZeResult<SizeLimit> {
    let mut limit = SizeLimit::Strict;
    for f in flags {
        if relaxed_limit(f)? == SizeLimit::Relaxed {
            limit = SizeLimit::Relaxed;
        }
    }
    Ok(limit)
}

/// The relaxed-limits flags chained to a device allocation descriptor.
fn device_desc_limits(d: &ze_device_mem_alloc_desc_t) -> impl Iterator<Item = u32> + '_ {
    use chain::ZeDeviceMemAllocDescNext as N;
    // SAFETY: the application's descriptor chain, read-only for this call.
    unsafe { chain::next_of_ze_device_mem_alloc_desc_t(d.pNext) }.filter_map(|e| match e {
        N::RelaxedAllocationLimitsExtDesc(r) => Some(r.flags.0),
        N::RelaxedAllocationLimitsExpDesc(r) => Some(r.flags.0),
        _ => None,
    })
}

/// The relaxed-limits flags chained to a host allocation descriptor.
fn host_desc_limits(d: &ze_host_mem_alloc_desc_t) -> impl Iterator<Item = u32> + '_ {
    use chain::ZeHostMemAllocDescNext as N;
    // SAFETY: the application's descriptor chain, read-only for this call.
    unsafe { chain::next_of_ze_host_mem_alloc_desc_t(d.pNext) }.filter_map(|e| match e {
        N::RelaxedAllocationLimitsExtDesc(r) => Some(r.flags.0),
        N::RelaxedAllocationLimitsExpDesc(r) => Some(r.flags.0),
        _ => None,
    })
}

/// The application's output buffer of `size` bytes, viewed only as far as the `needed` bytes
/// the driver may write (`None` when null).
fn output_bytes<'a>(ptr: *mut u8, size: usize, needed: usize) -> Option<&'a mut [u8]> {
    if ptr.is_null() {
        return None;
    }
    // SAFETY: the application provides `size` writable bytes at `ptr`; the view covers at most
    // that many.
    Some(unsafe { std::slice::from_raw_parts_mut(ptr, size.min(needed)) })
}

fn fill_handles<K: zekit_icd_rt::HandleKind>(
    items: &[Handle<K>],
    count: &mut u32,
    out: Option<&mut [Option<Handle<K>>]>,
) {
    props::fill_counted(items, count, out, |h, slot| *slot = Some(*h));
}

// ---------------------------------------------------------------- the trait
