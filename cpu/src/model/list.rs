//! Command lists (regular and immediate) and the rules of the commands they take.
//!
//! | topic | behaviour |
//! |---|---|
//! | `zeCommandListCreate(desc)` | `commandQueueGroupOrdinal` must name a queue group (else `INVALID_ARGUMENT`); every flag accepted and reported back (lists run in order whatever the flags) |
//! | `zeCommandListCreateImmediate(altdesc)` | as `zeCommandQueueCreate`: ordinal, index, mode, priority, flags. Asynchronous (and default) lists run their commands on a thread of their own and each append returns at once; synchronous ones run each command before the append returns |
//! | append to a closed regular list | `INVALID_ARGUMENT` (reset it first) |
//! | a command that faults (`crate::exec::fault`) | its event and those after it in the submission complete as lost (`zeEventHostSynchronize`/`QueryStatus`: `DEVICE_LOST`); the queue or immediate list is lost from then on (`zeCommandQueueSynchronize`, `zeCommandListHostSynchronize`, the queue's fences, and each append to a synchronous immediate list: `DEVICE_LOST`); other queues and contexts go on |
//! | `zeCommandListClose` | closes (an immediate or already closed list: nothing to do) |
//! | `zeCommandListReset` | empties and reopens a regular list; submissions still running keep the commands they were given. An immediate list: waits for its work |
//! | `zeCommandListDestroy` | regular: always allowed (running submissions keep their commands); immediate: as `zeCommandQueueDestroy` (waits, or `HANDLE_OBJECT_IN_USE` when its work waits for an event that is not signaled) |
//! | `zeCommandListHostSynchronize(timeout)` | immediate lists: waits for every command appended so far, `NOT_READY` on expiry; a regular list: `INVALID_ARGUMENT` |
//! | `zeCommandListImmediateAppendCommandListsExp` | immediate lists only (else `INVALID_ARGUMENT`); each list closed, regular and of the same ordinal (as `zeCommandQueueExecuteCommandLists`) |
//! | copies | `size` 0: nothing to copy; any alignment; overlapping ranges behave as `memmove` |
//! | region copies | the regions' width, height and depth must be equal (`INVALID_ARGUMENT`); 0 height or depth counts as 1; with more than one row, a pitch must hold `originX + width` bytes, with more than one slice a slice pitch must hold `(originY + height)` rows (`INVALID_ARGUMENT`); source and destination rows that overlap: `OVERLAPPING_REGIONS` |
//! | fills | any `pattern_size` but 0 (`INVALID_SIZE`); one that is not a power of two is accepted (compute-runtime does) unless `ZEKIT_VALIDATION=strict`, which keeps the spec's power of two (`INVALID_SIZE`); `size` a multiple of it (checked by the generated validation); any alignment; on a closed list, `INVALID_ARGUMENT` like every append |
//! | prefetch, memory advice | accepted (all memory is host memory); the advice must be a known value |
//! | events | see [`super::event`] |
//! | mutable lists (`ze_mutable_command_list_exp_desc_t`) | see [`super::mutable`] |

use std::sync::{Arc, Mutex};

use zekit_icd::kinds;
use zekit_icd_rt::Handle;
use zekit_sys::*;

use super::event::ListKind;
use super::graph::{self, Capture, GraphObject};
use super::objects::{ZeError, ZeResult};
use super::queue::{in_use, not_ready, QueueConfig};
use crate::exec::memory::{Region, Side};
use crate::exec::{Command, Engine, ListBody, Mode, Op, Timeout, Work};
use zekit_icd_rt::Obj;

/// What a regular list holds.
#[derive(Debug)]
pub(super) enum Recording {
    /// Open for appends.
    Open(Vec<Command>),
    /// Closed: ready to execute (any number of times).
    Closed(Arc<ListBody>),
}

/// A regular list's recording, and its command ids when it is mutable
/// ([`super::mutable`]).
#[derive(Debug)]
pub(super) struct Regular {
    pub(super) recording: Recording,
    pub(super) mutable: Option<super::mutable::Mutable>,
}

#[derive(Debug)]
pub(super) enum Kind {
    Regular(Mutex<Regular>),
    Immediate { config: QueueConfig, engine: Engine },
}

/// Value of a command list handle.
#[derive(Debug)]
pub struct ListObject {
    pub(super) context: Handle<kinds::Context>,
    device: usize,
    ordinal: u32,
    flags: ze_command_list_flags_t,
    pub(super) kind: Kind,
    /// The graph capture this (immediate) list takes part in.
    capture: Mutex<Option<Capture>>,
}

impl ListObject {
    /// `zeCommandListCreate` (the ordinal was checked with [`super::queue::check_ordinal`]);
    /// `mutable`: the flags of a chained `ze_mutable_command_list_exp_desc_t`.
    pub fn regular(
        context: Handle<kinds::Context>,
        device: usize,
        ordinal: u32,
        flags: ze_command_list_flags_t,
        mutable: Option<ze_mutable_command_list_exp_flags_t>,
    ) -> ZeResult<ListObject> {
        if flags.0 & !ze_command_list_flags_t::all_known().0 != 0 {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ENUMERATION,
                format!("unknown command list flags {:#x}", flags.0),
            ));
        }
        let mutable = mutable.map(super::mutable::Mutable::new).transpose()?;
        Ok(ListObject {
            context,
            device,
            ordinal,
            flags,
            kind: Kind::Regular(Mutex::new(Regular {
                recording: Recording::Open(Vec::new()),
                mutable,
            })),
            capture: Mutex::new(None),
        })
    }

    /// `zeCommandListCreateImmediate`, with its engine.
    pub fn immediate(
        context: Handle<kinds::Context>,
        device: usize,
        config: QueueConfig,
        engine: Engine,
    ) -> ListObject {
        ListObject {
            context,
            device,
            ordinal: config.ordinal,
            flags: ze_command_list_flags_t::empty(),
            kind: Kind::Immediate { config, engine },
            capture: Mutex::new(None),
        }
    }

    /// `zeCommandListGetContextHandle`.
    pub fn context(&self) -> Handle<kinds::Context> {
        self.context
    }

    /// Device ordinal (`zeCommandListGetDeviceHandle`).
    pub fn device(&self) -> usize {
        self.device
    }

    /// `zeCommandListGetOrdinal`.
    pub fn ordinal(&self) -> u32 {
        self.ordinal
    }

    /// `zeCommandListGetFlags`.
    pub fn flags(&self) -> ze_command_list_flags_t {
        self.flags
    }

    /// Regular or immediate.
    pub fn kind(&self) -> ListKind {
        match self.kind {
            Kind::Regular(_) => ListKind::Regular,
            Kind::Immediate { .. } => ListKind::Immediate,
        }
    }

    /// The queue configuration of an immediate list (`zeCommandListImmediateGet*`);
    /// `INVALID_ARGUMENT` for a regular list.
    pub fn immediate_config(&self) -> ZeResult<&QueueConfig> {
        match &self.kind {
            Kind::Immediate { config, .. } => Ok(config),
            Kind::Regular(_) => Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ARGUMENT,
                "not an immediate command list",
            )),
        }
    }

    pub(super) fn recording(m: &Mutex<Regular>) -> std::sync::MutexGuard<'_, Regular> {
        m.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Appends a command: recorded by a regular list, submitted by an immediate one.
    pub fn append(&self, command: Command) -> ZeResult<()> {
        match &self.kind {
            Kind::Regular(m) => match &mut *Self::recording(m) {
                Regular {
                    recording: Recording::Open(commands),
                    mutable,
                } => {
                    graph::check_outside_use(&command, true)?;
                    if let Some(mutable) = mutable {
                        mutable.bind(commands.len(), &command)?;
                    }
                    commands.push(command);
                    Ok(())
                }
                Regular {
                    recording: Recording::Closed(_),
                    ..
                } => Err(ZeError::new(
                    ZE_RESULT_ERROR_INVALID_ARGUMENT,
                    "the command list is closed; reset it to append",
                )),
            },
            Kind::Immediate { engine, .. } => {
                let mut slot = self.capture_slot();
                if slot.is_none() {
                    if let Some(fork) = graph::fork_of(&command.waits)? {
                        if engine.mode() == Mode::Inline {
                            return Err(ZeError::new(
                                ZE_RESULT_ERROR_GRAPH_CAPTURE_UNSUPPORTED,
                                "a synchronous command list cannot wait on an event of a graph capture",
                            ));
                        }
                        fork.add_member(self.id());
                        *slot = Some(fork);
                    }
                }
                let capture = slot.clone();
                // Not held while the command is submitted: a synchronous list runs it here, and
                // a host function may call back into this list.
                drop(slot);
                match capture {
                    Some(c) => c.record(self.id(), command),
                    None => {
                        graph::check_outside_use(&command, false)?;
                        engine.submit(Work::One(command), None);
                        // A synchronous list ran the command: a fault in it (or before it) is
                        // this call's answer, as compute-runtime's synchronous lists give it.
                        if engine.mode() == Mode::Inline && engine.is_lost() {
                            return Err(super::objects::device_lost("a command of the immediate command list"));
                        }
                        Ok(())
                    }
                }
            }
        }
    }

    /// This list's identity in a capture.
    fn id(&self) -> usize {
        self as *const ListObject as usize
    }

    /// The live capture this list takes part in (a capture that ended is dropped).
    fn capture_slot(&self) -> std::sync::MutexGuard<'_, Option<Capture>> {
        let mut slot = self.capture.lock().unwrap_or_else(|e| e.into_inner());
        if slot.as_ref().is_some_and(|c| !c.is_live()) {
            *slot = None;
        }
        slot
    }

    /// The graph this list is capturing into (`zeCommandListGetGraphExt`), or
    /// `COMMAND_LIST_NOT_CAPTURING`.
    pub fn capturing(&self) -> ZeResult<Handle<kinds::Graph>> {
        self.capture_slot().as_ref().map(Capture::graph).ok_or_else(graph::not_capturing)
    }

    fn refuse_if_capturing(&self, what: &str) -> ZeResult<()> {
        if self.capture_slot().is_some() {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_GRAPH_CAPTURE_UNSUPPORTED,
                format!("{what} while the command list captures a graph"),
            ));
        }
        Ok(())
    }

    /// `zeCommandListBeginGraphCaptureExt` / `BeginCaptureIntoGraphExt`: `this` is the list's
    /// handle; `graph` the (empty) graph to capture into.
    pub fn begin_capture(
        &self,
        this: Handle<kinds::CommandList>,
        graph: &Obj<GraphObject>,
        graph_handle: Handle<kinds::Graph>,
    ) -> ZeResult<()> {
        let Kind::Immediate { engine, config } = &self.kind else {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ARGUMENT,
                "graph capture needs an immediate command list",
            ));
        };
        if engine.mode() == Mode::Inline {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_GRAPH_CAPTURE_UNSUPPORTED,
                "a synchronous immediate command list cannot capture a graph",
            ));
        }
        if graph.context() != self.context {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ARGUMENT,
                "the graph was made in another context",
            ));
        }
        let mut slot = self.capture_slot();
        if slot.is_some() {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ARGUMENT,
                "the command list is already capturing a graph",
            ));
        }
        *slot = Some(GraphObject::begin(graph, graph_handle, this, self.id(), config.ordinal)?);
        Ok(())
    }

    /// `zeCommandListEndGraphCaptureExt`: the captured graph.
    pub fn end_capture(&self) -> ZeResult<Handle<kinds::Graph>> {
        let mut slot = self.capture_slot();
        let Some(c) = slot.as_ref() else {
            return Err(graph::not_capturing());
        };
        c.end(self.id())?;
        let h = c.graph();
        *slot = None;
        Ok(h)
    }

    /// `zeCommandListClose`.
    pub fn close(&self) {
        if let Kind::Regular(m) = &self.kind {
            let mut r = Self::recording(m);
            if let Recording::Open(commands) = &mut r.recording {
                let body = ListBody::new(std::mem::take(commands));
                r.recording = Recording::Closed(Arc::new(body));
            }
        }
    }

    /// `zeCommandListReset`.
    pub fn reset(&self) -> ZeResult<()> {
        self.refuse_if_capturing("zeCommandListReset")?;
        match &self.kind {
            Kind::Regular(m) => {
                let mut r = Self::recording(m);
                r.recording = Recording::Open(Vec::new());
                if let Some(mutable) = &mut r.mutable {
                    mutable.reset();
                }
                Ok(())
            }
            Kind::Immediate { engine, .. } => {
                engine.drain().map_err(|_| in_use("the immediate command list"))
            }
        }
    }

    /// The commands to run when this list is executed by a queue (or appended to an
    /// immediate list) of group `ordinal`.
    pub fn executable(&self, ordinal: u32) -> ZeResult<Arc<ListBody>> {
        let Kind::Regular(m) = &self.kind else {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ARGUMENT,
                "an immediate command list cannot be executed by a queue",
            ));
        };
        if self.ordinal != ordinal {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE,
                format!(
                    "the command list was created for queue group {}, the queue is of group {ordinal}",
                    self.ordinal
                ),
            ));
        }
        let r = Self::recording(m);
        if let Some(mutable) = &r.mutable {
            mutable.check_runnable()?;
        }
        match &r.recording {
            Recording::Closed(body) => Ok(body.clone()),
            Recording::Open(_) => Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ARGUMENT,
                "the command list is not closed",
            )),
        }
    }

    /// `zeCommandListHostSynchronize`.
    pub fn host_synchronize(&self, timeout: u64) -> ZeResult<()> {
        self.refuse_if_capturing("zeCommandListHostSynchronize")?;
        match &self.kind {
            Kind::Immediate { engine, .. } => {
                if engine.synchronize(Timeout::from_ns(timeout)) {
                    if engine.is_lost() {
                        return Err(super::objects::device_lost("a command of the immediate command list"));
                    }
                    Ok(())
                } else {
                    Err(not_ready("the immediate command list's work is", timeout))
                }
            }
            Kind::Regular(_) => Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ARGUMENT,
                "zeCommandListHostSynchronize takes an immediate command list",
            )),
        }
    }

    /// `zeCommandListDestroy`: see the module docs.
    pub fn destroy(&self) -> ZeResult<()> {
        if self.capture_slot().is_some() {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE,
                "the command list is capturing a graph; end the capture first",
            ));
        }
        match &self.kind {
            Kind::Regular(_) => Ok(()),
            Kind::Immediate { engine, .. } => {
                engine.drain().map_err(|_| in_use("the immediate command list"))
            }
        }
    }
}

// ---------------------------------------------------------------- ops

/// A copy of `size` bytes.
pub fn copy_op(dst: *mut u8, src: *const u8, size: usize) -> Op {
    if size == 0 {
        return Op::Nothing;
    }
    Op::Copy {
        dst: dst as usize,
        src: src as usize,
        size,
    }
}

/// Checks a fill's sizes (before its pattern is read), by the shared rule
/// ([`zekit_rules::fill`]): any pattern size but 0 (one that is not a power of two unless
/// strict).
pub fn check_fill(pattern_size: usize, size: usize) -> ZeResult<()> {
    let max = crate::model::properties::MAX_FILL_PATTERN_SIZE;
    if zekit_rules::fill::check(pattern_size, size, max, zekit_icd_rt::strict())? {
        zekit_icd_rt::lenient("zeCommandListAppendMemoryFill", "a pattern_size that is not a power of two");
    }
    Ok(())
}

/// A fill of `size` bytes with `pattern` (copied from the application after [`check_fill`]).
pub fn fill_op(dst: *mut u8, pattern: &[u8], size: usize) -> ZeResult<Op> {
    check_fill(pattern.len(), size)?;
    if size == 0 {
        return Ok(Op::Nothing);
    }
    Ok(Op::Fill {
        dst: dst as usize,
        size,
        pattern: pattern.into(),
    })
}

/// One side of a region copy as the application gives it.
#[derive(Clone, Copy, Debug)]
pub struct RegionSide<'a> {
    /// Base pointer.
    pub ptr: usize,
    /// The region.
    pub region: &'a ze_copy_region_t,
    /// Row pitch.
    pub pitch: u32,
    /// Slice pitch.
    pub slice_pitch: u32,
}

fn side(s: &RegionSide<'_>, name: &str, height: usize, depth: usize) -> ZeResult<Side> {
    let r = s.region;
    let (x, y, z, w) = (
        r.originX as usize,
        r.originY as usize,
        r.originZ as usize,
        r.width as usize,
    );
    let (pitch, slice_pitch) = (s.pitch as usize, s.slice_pitch as usize);
    if (height > 1 || y > 0 || depth > 1 || z > 0) && pitch < x + w {
        return Err(ZeError::new(
            ZE_RESULT_ERROR_INVALID_ARGUMENT,
            format!("{name} pitch {pitch} is smaller than originX + width ({})", x + w),
        ));
    }
    if (depth > 1 || z > 0) && slice_pitch < pitch * (y + height) {
        return Err(ZeError::new(
            ZE_RESULT_ERROR_INVALID_ARGUMENT,
            format!(
                "{name} slice pitch {slice_pitch} is smaller than (originY + height) rows of {pitch} bytes"
            ),
        ));
    }
    let end = (z + depth - 1)
        .checked_mul(slice_pitch)
        .and_then(|v| v.checked_add((y + height - 1).checked_mul(pitch)?))
        .and_then(|v| v.checked_add(x + w))
        .and_then(|v| v.checked_add(s.ptr));
    if end.is_none() {
        return Err(ZeError::new(
            ZE_RESULT_ERROR_INVALID_ARGUMENT,
            format!("the {name} region does not fit in the address space"),
        ));
    }
    Ok(Side {
        base: s.ptr,
        origin: (x, y, z),
        pitch,
        slice_pitch,
    })
}

/// Byte ranges of the rows of one side, in address order.
fn rows(s: &Side, width: usize, height: usize, depth: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
    (0..depth).flat_map(move |z| {
        (0..height).map(move |y| {
            let a = s.row(y, z);
            (a, a + width)
        })
    })
}

fn span(s: &Side, width: usize, height: usize, depth: usize) -> (usize, usize) {
    (s.row(0, 0), s.row(height - 1, depth - 1) + width)
}

/// A region copy (`zeCommandListAppendMemoryCopyRegion`).
pub fn region_op(dst: &RegionSide<'_>, src: &RegionSide<'_>) -> ZeResult<Op> {
    let (d, s) = (dst.region, src.region);
    if (d.width, d.height.max(1), d.depth.max(1)) != (s.width, s.height.max(1), s.depth.max(1)) {
        return Err(ZeError::new(
            ZE_RESULT_ERROR_INVALID_ARGUMENT,
            format!(
                "the regions differ in size: destination {}x{}x{}, source {}x{}x{}",
                d.width, d.height, d.depth, s.width, s.height, s.depth
            ),
        ));
    }
    let (width, height, depth) = (
        d.width as usize,
        d.height.max(1) as usize,
        d.depth.max(1) as usize,
    );
    let dst_side = side(dst, "destination", height, depth)?;
    let src_side = side(src, "source", height, depth)?;
    if width == 0 {
        return Ok(Op::Nothing);
    }
    let (a0, a1) = span(&dst_side, width, height, depth);
    let (b0, b1) = span(&src_side, width, height, depth);
    if a0 < b1 && b0 < a1 {
        // Rows of each side are in address order (the pitches hold them): merge.
        let mut ds = rows(&dst_side, width, height, depth).peekable();
        let mut ss = rows(&src_side, width, height, depth).peekable();
        while let (Some(&(d0, d1)), Some(&(s0, s1))) = (ds.peek(), ss.peek()) {
            if d0 < s1 && s0 < d1 {
                return Err(ZeError::new(
                    ZE_RESULT_ERROR_OVERLAPPING_REGIONS,
                    "source and destination regions overlap",
                ));
            }
            if d1 <= s1 {
                ds.next();
            } else {
                ss.next();
            }
        }
    }
    Ok(Op::CopyRegion(Region {
        dst: dst_side,
        src: src_side,
        width,
        height,
        depth,
    }))
}

/// `zeCommandListAppendMemAdvise`: a known advice (the CPU has nothing to do with it).
pub fn check_advice(advice: ze_memory_advice_t) -> ZeResult<()> {
    if advice.0 > ze_memory_advice_t::CLEAR_SYSTEM_MEMORY_PREFERRED_LOCATION.0 {
        return Err(ZeError::new(
            ZE_RESULT_ERROR_INVALID_ENUMERATION,
            format!("unknown memory advice {}", advice.0),
        ));
    }
    Ok(())
}
