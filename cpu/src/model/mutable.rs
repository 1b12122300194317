//! Mutable command lists (`ZE_experimental_mutable_command_list`, version 1.1): commands of a
//! closed regular list changed before it runs again.
//!
//! A mutable list keeps, per command id, what rebuilds that command: the kernel state of a
//! launch ([`Snapshot`]: arguments, group size, offset) with its group count, and the events.
//! An update rebuilds the commands it changes into a new [`ListBody`]; submissions already
//! running keep the body they were given.
//!
//! | topic | behaviour |
//! |---|---|
//! | `zeCommandListCreate` + `ze_mutable_command_list_exp_desc_t` | a mutable regular list; `flags` must be 0 (`RESERVED` or any other bit: `INVALID_ENUMERATION`) |
//! | `ze_mutable_command_list_exp_properties_t` | `mutableCommandListFlags` 0; `mutableCommandFlags` [`SUPPORTED`]: kernel arguments, group count, group size, global offset, signal event, wait events, kernel instruction (not graph arguments) |
//! | `zeCommandListIsMutableExp` | true for a list created with the descriptor (immediate lists: false) |
//! | `zeCommandListGetNextCommandIdExp` / `...WithKernelsExp` | a mutable list (else `INVALID_ARGUMENT`) that is open (a closed one: `INVALID_ARGUMENT`, reset it first); ids count up from 1 over the list's life (a reset does not reuse them); the id names the next command appended; a second call before that append replaces the reservation (the earlier id names nothing). `GRAPH_ARGUMENTS`: `UNSUPPORTED_FEATURE`. The kernels of `...WithKernelsExp` (any number, whatever the flags) must be live kernels of the list's context (`INVALID_ARGUMENT`); a null `phKernels` with a non-zero count: `INVALID_NULL_POINTER` |
//! | the append after an id | any command takes an id; with a kernel part in the flags (arguments, group count, group size, offset, instruction) it must be a kernel launch, and with `GROUP_COUNT` a direct one (not indirect): else the append fails with `INVALID_ARGUMENT` and the id stays reserved |
//! | updates (all four calls) | a mutable list (`INVALID_ARGUMENT`) that is closed (`INVALID_ARGUMENT`); an id never given to a command of the list since its last reset: `INVALID_ARGUMENT`; a change the id's flags did not allow: `INVALID_ARGUMENT`. Each call is all or nothing, and applies at once: the next execution runs the changed commands (`zeCommandListClose` after updates, as the spec asks, finds the list closed and has nothing to do). Running submissions keep the commands they were given |
//! | `ze_mutable_kernel_argument_exp_desc_t` | the rules of `zeKernelSetArgumentValue` (`INVALID_KERNEL_ARGUMENT_INDEX`, `INVALID_KERNEL_ARGUMENT_SIZE`, ...); the kernel object itself is not changed |
//! | `ze_mutable_group_count_exp_desc_t` | a null `pGroupCount`: `INVALID_NULL_POINTER` |
//! | `ze_mutable_group_size_exp_desc_t` | the rules of `zeKernelSetGroupSize` (`INVALID_GROUP_SIZE_DIMENSION`) |
//! | `ze_mutable_global_offset_exp_desc_t` | any offset |
//! | other structures in the chain | `ze_mutable_graph_argument_exp_desc_t` and unknown types: `UNSUPPORTED_FEATURE`; the head's `flags` must be 0 (`INVALID_ENUMERATION`) |
//! | rebuilt launches | checked as an append checks them (local and private memory: `OUT_OF_DEVICE_MEMORY`) |
//! | `zeCommandListUpdateMutableCommandSignalEventExp` | the new event (or none) must be usable by a regular list, as at an append |
//! | `zeCommandListUpdateMutableCommandWaitEventsExp` | at most as many events as the command was appended with (`INVALID_SIZE`), each usable by a regular list; a null `phWaitEvents` with a non-zero count: `INVALID_NULL_POINTER`; the command then waits for those given (none: it waits for nothing) |
//! | `zeCommandListUpdateMutableCommandKernelsExp` | each kernel must be the one the command was appended with or one given to `...WithKernelsExp` for its id (`INVALID_KERNEL_HANDLE`); the launch takes that kernel's state now (arguments, group size, offset, as an append would) and keeps its group count; arguments the kernel never had set must then be given by `zeCommandListUpdateMutableCommandsExp`: until they are, executing the list is `INVALID_ARGUMENT` |

use std::collections::BTreeMap;
use std::sync::Arc;

use zekit_icd::kinds;
use zekit_icd_rt::Handle;
use zekit_sys::*;

use super::graph;
use super::kernel::{KernelObject, Snapshot};
use super::list::{Kind, ListObject, Recording};
use super::objects::{ZeError, ZeResult};
use crate::exec::{Command, EventState, Groups, ListBody, Op};

type Flags = ze_mutable_command_exp_flags_t;

/// The parts of a command this driver changes (`mutableCommandFlags`).
pub const SUPPORTED: Flags = Flags::from_bits_retain(
    Flags::KERNEL_ARGUMENTS.0
        | Flags::GROUP_COUNT.0
        | Flags::GROUP_SIZE.0
        | Flags::GLOBAL_OFFSET.0
        | Flags::SIGNAL_EVENT.0
        | Flags::WAIT_EVENTS.0
        | Flags::KERNEL_INSTRUCTION.0,
);

/// The parts only a kernel launch has.
const KERNEL_PARTS: u32 = Flags::KERNEL_ARGUMENTS.0
    | Flags::GROUP_COUNT.0
    | Flags::GROUP_SIZE.0
    | Flags::GLOBAL_OFFSET.0
    | Flags::KERNEL_INSTRUCTION.0;

fn invalid(reason: String) -> ZeError {
    ZeError::new(ZE_RESULT_ERROR_INVALID_ARGUMENT, reason)
}

/// One change of `zeCommandListUpdateMutableCommandsExp`.
#[derive(Debug, Clone)]
pub enum Change {
    /// `ze_mutable_kernel_argument_exp_desc_t` (`value`: `None` for a null `pArgValue`).
    Argument {
        /// Command id.
        id: u64,
        /// Argument index.
        index: u32,
        /// `argSize`.
        size: usize,
        /// The bytes of the value, copied from the application.
        value: Option<Vec<u8>>,
    },
    /// `ze_mutable_group_count_exp_desc_t`.
    GroupCount(u64, [u32; 3]),
    /// `ze_mutable_group_size_exp_desc_t`.
    GroupSize(u64, [u32; 3]),
    /// `ze_mutable_global_offset_exp_desc_t`.
    GlobalOffset(u64, [u32; 3]),
}

/// An id reserved by `zeCommandListGetNextCommandIdExp` for the next append.
#[derive(Debug)]
struct Reservation {
    id: u64,
    flags: Flags,
    kernels: Vec<Handle<kinds::Kernel>>,
}

/// A launch as a mutable command keeps it.
#[derive(Debug, Clone)]
struct LaunchRecord {
    /// The kernel state the launch is made of.
    state: Snapshot,
    groups: Groups,
    /// The state the command was appended with (its kernel may always be switched back to).
    first: Snapshot,
}

/// What rebuilds one identified command.
#[derive(Debug, Clone)]
struct Entry {
    /// Position in the list.
    index: usize,
    flags: Flags,
    /// The kernels the launch may be switched to.
    kernels: Vec<Handle<kinds::Kernel>>,
    launch: Option<LaunchRecord>,
    signal: Option<Arc<EventState>>,
    waits: Vec<Arc<EventState>>,
    /// How many events the command was appended with.
    wait_capacity: usize,
    /// Why the command cannot run yet (a switched kernel lacking arguments).
    incomplete: Option<String>,
}

impl Entry {
    fn allows(&self, id: u64, part: Flags, name: &str) -> ZeResult<()> {
        if self.flags.contains(part) {
            Ok(())
        } else {
            Err(invalid(format!(
                "command {id} was not given ZE_MUTABLE_COMMAND_EXP_FLAG_{name} (its flags: {:#x})",
                self.flags.0
            )))
        }
    }

    fn launch(&mut self, id: u64) -> ZeResult<&mut LaunchRecord> {
        self.launch
            .as_mut()
            .ok_or_else(|| invalid(format!("command {id} is not a kernel launch")))
    }

    /// The command as it now stands; `None` while it is incomplete.
    fn command(&mut self, id: u64, old: &Command) -> ZeResult<Option<Command>> {
        self.incomplete = None;
        let op = match &self.launch {
            Some(l) => {
                if let Some(i) = l.state.unset() {
                    self.incomplete = Some(format!(
                        "command {id} launches kernel `{}`, whose argument {i} has no value: give it with zeCommandListUpdateMutableCommandsExp",
                        l.state.info().name
                    ));
                    return Ok(None);
                }
                Op::Launch(Box::new(l.state.launch(l.groups)?))
            }
            None => old.op.clone(),
        };
        let c = Command::new(op, self.signal.clone(), self.waits.clone());
        graph::check_outside_use(&c, true)?;
        Ok(Some(c))
    }
}

/// The ids and commands of a mutable list (kept with its recording, under its lock).
#[derive(Debug, Default)]
pub struct Mutable {
    /// The last id given.
    last_id: u64,
    reserved: Option<Reservation>,
    entries: BTreeMap<u64, Entry>,
}

impl Mutable {
    /// The state of a list created with `ze_mutable_command_list_exp_desc_t` of `flags`.
    pub fn new(flags: ze_mutable_command_list_exp_flags_t) -> ZeResult<Mutable> {
        if flags.0 != 0 {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ENUMERATION,
                format!(
                    "ze_mutable_command_list_exp_desc_t flags {:#x}: none are defined (RESERVED must stay clear)",
                    flags.0
                ),
            ));
        }
        Ok(Mutable::default())
    }

    /// Called by an append to the open list: gives the reserved id (if any) to `command`,
    /// the `index`th of the list.
    pub(super) fn bind(&mut self, index: usize, command: &Command) -> ZeResult<()> {
        let Some(r) = self.reserved.take() else {
            return Ok(());
        };
        let launch = match &command.op {
            Op::Launch(l) => Some(l),
            _ => None,
        };
        let refuse = if r.flags.0 & KERNEL_PARTS != 0 && launch.is_none() {
            Some("its flags name parts of a kernel launch, and the command is not one")
        } else if r.flags.contains(Flags::GROUP_COUNT)
            && launch.is_some_and(|l| matches!(l.groups, Groups::Indirect(_)))
        {
            Some("it may change the group count, which an indirect launch reads from memory")
        } else {
            None
        };
        if let Some(why) = refuse {
            let id = r.id;
            self.reserved = Some(r);
            return Err(invalid(format!("command id {id}: {why}")));
        }
        let launch = launch.map(|l| {
            let s = Snapshot::of_launch(l);
            LaunchRecord {
                first: s.clone(),
                state: s,
                groups: l.groups,
            }
        });
        self.entries.insert(
            r.id,
            Entry {
                index,
                flags: r.flags,
                kernels: r.kernels,
                launch,
                signal: command.signal.clone(),
                waits: command.waits.clone(),
                wait_capacity: command.waits.len(),
                incomplete: None,
            },
        );
        Ok(())
    }

    /// `zeCommandListReset`: the ids given so far name nothing any more.
    pub(super) fn reset(&mut self) {
        self.reserved = None;
        self.entries.clear();
    }

    /// Fails while a command cannot run (see the module docs).
    pub(super) fn check_runnable(&self) -> ZeResult<()> {
        match self.entries.values().find_map(|e| e.incomplete.as_ref()) {
            Some(why) => Err(invalid(why.clone())),
            None => Ok(()),
        }
    }
}

/// The changes of one update call: entries copied on first touch, stored only when every
/// change and every rebuilt command succeeded.
struct Edit<'a> {
    entries: &'a BTreeMap<u64, Entry>,
    touched: BTreeMap<u64, Entry>,
}

impl Edit<'_> {
    fn entry(&mut self, id: u64) -> ZeResult<&mut Entry> {
        use std::collections::btree_map::Entry as Slot;
        match self.touched.entry(id) {
            Slot::Occupied(o) => Ok(o.into_mut()),
            Slot::Vacant(v) => {
                let e = self.entries.get(&id).ok_or_else(|| {
                    invalid(format!(
                        "command id {id} names no command of this list (ids come from zeCommandListGetNextCommandIdExp, and a reset forgets them)"
                    ))
                })?;
                Ok(v.insert(e.clone()))
            }
        }
    }
}

impl ListObject {
    /// `zeCommandListIsMutableExp`.
    pub fn is_mutable(&self) -> bool {
        match &self.kind {
            Kind::Regular(m) => Self::recording(m).mutable.is_some(),
            Kind::Immediate { .. } => false,
        }
    }

    /// `zeCommandListGetNextCommandIdExp` / `...WithKernelsExp`: `kernels` are the kernels
    /// the launch may be switched to.
    pub fn next_command_id(&self, flags: Flags, kernels: &[(Handle<kinds::Kernel>, &KernelObject)]) -> ZeResult<u64> {
        if flags.contains(Flags::GRAPH_ARGUMENTS) {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
                "ZE_MUTABLE_COMMAND_EXP_FLAG_GRAPH_ARGUMENTS: this driver's mutable lists cannot change graph arguments",
            ));
        }
        if let Some((_, k)) = kernels.iter().find(|(_, k)| k.context != self.context) {
            return Err(invalid(format!("kernel `{}` is of another context", k.info().name)));
        }
        let Kind::Regular(m) = &self.kind else {
            return Err(not_mutable());
        };
        let mut r = Self::recording(m);
        let r = &mut *r;
        let Some(mutable) = r.mutable.as_mut() else {
            return Err(not_mutable());
        };
        if matches!(r.recording, Recording::Closed(_)) {
            return Err(invalid(
                "the command list is closed: command ids are for commands still to be appended (reset it first)".into(),
            ));
        }
        mutable.last_id += 1;
        let id = mutable.last_id;
        mutable.reserved = Some(Reservation {
            id,
            flags,
            kernels: kernels.iter().map(|(h, _)| *h).collect(),
        });
        Ok(id)
    }

    /// Runs `change` on the entries of this closed mutable list, then rebuilds the commands
    /// it touched into a new body (all or nothing).
    fn mutate(&self, change: impl FnOnce(&mut Edit<'_>) -> ZeResult<()>) -> ZeResult<()> {
        let Kind::Regular(m) = &self.kind else {
            return Err(not_mutable());
        };
        let mut r = Self::recording(m);
        let r = &mut *r;
        let Some(mutable) = r.mutable.as_mut() else {
            return Err(not_mutable());
        };
        let Recording::Closed(body) = &mut r.recording else {
            return Err(invalid(
                "the command list is open: commands are changed once it is closed".into(),
            ));
        };
        let mut edit = Edit {
            entries: &mutable.entries,
            touched: BTreeMap::new(),
        };
        change(&mut edit)?;
        let mut touched = edit.touched;
        let mut commands = body.commands.clone();
        for (id, e) in touched.iter_mut() {
            if let Some(c) = e.command(*id, &body.commands[e.index])? {
                commands[e.index] = c;
            }
        }
        *body = Arc::new(ListBody::new(commands));
        mutable.entries.extend(touched);
        Ok(())
    }

    /// `zeCommandListUpdateMutableCommandsExp`.
    pub fn update_commands(&self, changes: &[Change]) -> ZeResult<()> {
        self.mutate(|edit| {
            for c in changes {
                match c.clone() {
                    Change::Argument { id, index, size, value } => {
                        let e = edit.entry(id)?;
                        e.allows(id, Flags::KERNEL_ARGUMENTS, "KERNEL_ARGUMENTS")?;
                        e.launch(id)?.state.set_arg(index, size, value.as_deref())?;
                    }
                    Change::GroupCount(id, count) => {
                        let e = edit.entry(id)?;
                        e.allows(id, Flags::GROUP_COUNT, "GROUP_COUNT")?;
                        e.launch(id)?.groups = Groups::Direct(count);
                    }
                    Change::GroupSize(id, size) => {
                        let e = edit.entry(id)?;
                        e.allows(id, Flags::GROUP_SIZE, "GROUP_SIZE")?;
                        e.launch(id)?.state.set_group_size(size)?;
                    }
                    Change::GlobalOffset(id, offset) => {
                        let e = edit.entry(id)?;
                        e.allows(id, Flags::GLOBAL_OFFSET, "GLOBAL_OFFSET")?;
                        e.launch(id)?.state.set_offset(offset);
                    }
                }
            }
            Ok(())
        })
    }

    /// `zeCommandListUpdateMutableCommandSignalEventExp` (the event already checked for a
    /// regular list).
    pub fn update_signal(&self, id: u64, signal: Option<Arc<EventState>>) -> ZeResult<()> {
        self.mutate(|edit| {
            let e = edit.entry(id)?;
            e.allows(id, Flags::SIGNAL_EVENT, "SIGNAL_EVENT")?;
            e.signal = signal;
            Ok(())
        })
    }

    /// `zeCommandListUpdateMutableCommandWaitEventsExp` (the events already checked for a
    /// regular list).
    pub fn update_waits(&self, id: u64, waits: Vec<Arc<EventState>>) -> ZeResult<()> {
        self.mutate(|edit| {
            let e = edit.entry(id)?;
            e.allows(id, Flags::WAIT_EVENTS, "WAIT_EVENTS")?;
            if waits.len() > e.wait_capacity {
                return Err(ZeError::new(
                    ZE_RESULT_ERROR_INVALID_SIZE,
                    format!(
                        "{} wait events for command {id}, which was appended with {}",
                        waits.len(),
                        e.wait_capacity
                    ),
                ));
            }
            e.waits = waits;
            Ok(())
        })
    }

    /// `zeCommandListUpdateMutableCommandKernelsExp`: each command id with its new kernel.
    pub fn update_kernels(&self, switches: &[(u64, Handle<kinds::Kernel>, &KernelObject)]) -> ZeResult<()> {
        self.mutate(|edit| {
            for &(id, h, k) in switches {
                let e = edit.entry(id)?;
                e.allows(id, Flags::KERNEL_INSTRUCTION, "KERNEL_INSTRUCTION")?;
                let allowed = e.kernels.contains(&h);
                let l = e.launch(id)?;
                if !allowed && !l.first.is_of(k) {
                    return Err(ZeError::new(
                        ZE_RESULT_ERROR_INVALID_KERNEL_HANDLE,
                        format!(
                            "kernel `{}` is neither the kernel command {id} was appended with nor one given to zeCommandListGetNextCommandIdWithKernelsExp for it",
                            k.info().name
                        ),
                    ));
                }
                l.state = k.snapshot();
            }
            Ok(())
        })
    }
}

fn not_mutable() -> ZeError {
    invalid(
        "not a mutable command list (create a regular list with ze_mutable_command_list_exp_desc_t in pNext)".into(),
    )
}
