//! Graph capture and replay (`ZE_extension_record_replay_graph`).
//!
//! | topic | behaviour |
//! |---|---|
//! | `zeCommandListBeginGraphCaptureExt` / `BeginCaptureIntoGraphExt` | asynchronous immediate lists only: a regular list `INVALID_ARGUMENT`, a synchronous one `GRAPH_CAPTURE_UNSUPPORTED`; a list already capturing, or a graph not empty, `INVALID_ARGUMENT` |
//! | appends while capturing | recorded into the graph, not run; their events are not signaled |
//! | forks | an immediate list that waits on an event signaled by captured work joins that capture (a child); waiting on events of two captures: `GRAPH_CAPTURE_MERGE_ATTEMPT` |
//! | joins | a child is joined once another list of the capture waits on an event the child signaled after its last work (copies, fills, ...); work appended after that unjoins it |
//! | `zeCommandListEndGraphCaptureExt` | primary list only (a child: `INVALID_ARGUMENT`; not capturing: `COMMAND_LIST_NOT_CAPTURING`); a child never joined with work: `GRAPH_UNJOINED_FORKS` and the capture goes on (join it and end again); a child that was joined and then got work: `GRAPH_CAPTURE_INVALIDATED`, the capture ends on every list and the graph is invalid (instantiating it: `GRAPH_CAPTURE_INVALIDATED`; a graph the driver made for `BeginGraphCaptureExt` is released); otherwise ends capture on every list of it |
//! | internal counter-based events | a counter-based event without `GRAPH_EXTERNAL` signaled by work of a live capture is internal to it: `zeEventHostSynchronize`, `zeEventQueryStatus`, a regular list waiting on or signaling it, or a list outside the capture signaling it: `GRAPH_INTERNAL_EVENT` (an immediate list waiting on it forks into the capture) |
//! | replays of one executable graph | serialized: a replay waits for the previous replay of the same executable graph, on whatever list it was appended to |
//! | synchronous calls while capturing | `zeCommandListHostSynchronize` and `zeCommandListReset` of a capturing list, `zeEventHostSynchronize` of an event signaled by captured work: `GRAPH_CAPTURE_UNSUPPORTED`; `zeCommandListDestroy` of a capturing list: `HANDLE_OBJECT_IN_USE` |
//! | replay | the captured commands in capture order (a valid order: a wait is always captured after its signal), on the list the graph is appended to; they hold pointers, so a replay reads memory as it is then |
//! | subgraphs, appended command lists | recorded like any other append |

use std::ffi::c_void;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use zekit_icd::kinds;
use zekit_icd_rt::{Handle, Obj};
use zekit_sys::*;

use super::objects::{ZeError, ZeResult};
use crate::exec::{Command, EventState, HostFunction, ListBody, Op};

/// Identifies one capture session (a graph can only be captured once, but a list may capture
/// many graphs one after the other).
static SESSIONS: AtomicU64 = AtomicU64::new(1);

/// Graphs being captured.
static ACTIVE: Mutex<Vec<Obj<GraphObject>>> = Mutex::new(Vec::new());

fn active() -> MutexGuard<'static, Vec<Obj<GraphObject>>> {
    ACTIVE.lock().unwrap_or_else(|e| e.into_inner())
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Phase {
    #[default]
    Empty,
    Capturing,
    Captured,
    /// The capture ended with work after a join (`GRAPH_CAPTURE_INVALIDATED`).
    Invalid,
}

#[derive(Debug)]
struct Member {
    /// Identity of the list (its address while it lives).
    list: usize,
    /// A child whose last work is followed by a signal another list of the capture waits on.
    joined: bool,
    /// Events the list signaled since its last work.
    since_work: Vec<Arc<EventState>>,
    /// Another list waited on one of its signals at least once (a join happened).
    ever_joined: bool,
}

#[derive(Debug, Default)]
struct State {
    phase: Phase,
    session: u64,
    handle: Option<Handle<kinds::Graph>>,
    primary: Option<Handle<kinds::CommandList>>,
    ordinal: u32,
    members: Vec<Member>,
    commands: Vec<(usize, Command)>,
    /// Events signaled by captured commands (while capturing).
    signaled: Vec<Arc<EventState>>,
    body: Option<Arc<ListBody>>,
    description: Vec<String>,
    callback: Option<(HostFunction, usize)>,
    /// Made by the driver for `zeCommandListBeginGraphCaptureExt` (not the application's).
    implicit: bool,
}

/// Value of a graph handle.
#[derive(Debug)]
pub struct GraphObject {
    context: Handle<kinds::Context>,
    state: Mutex<State>,
}

/// A list's link to the capture it takes part in.
#[derive(Debug, Clone)]
pub struct Capture {
    graph: Obj<GraphObject>,
    handle: Handle<kinds::Graph>,
    session: u64,
}

impl Capture {
    /// Whether the capture is still going on.
    pub fn is_live(&self) -> bool {
        let s = self.graph.lock();
        s.phase == Phase::Capturing && s.session == self.session
    }

    /// The graph.
    pub fn graph(&self) -> Handle<kinds::Graph> {
        self.handle
    }

    /// Ends the capture (from the primary list `list`).
    pub fn end(&self, list: usize) -> ZeResult<()> {
        GraphObject::end(&self.graph, list)
    }

    /// Adds the list `list` to the capture (a fork).
    pub fn add_member(&self, list: usize) {
        self.graph.add_member(list)
    }

    /// Records `command` appended to the list `list`.
    pub fn record(&self, list: usize, command: Command) -> ZeResult<()> {
        if command.waits.iter().chain(&command.signal).any(|e| e.is_ipc_graph_external()) {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_GRAPH_CAPTURE_UNSUPPORTED,
                "an IPC counter-based event created with GRAPH_EXTERNAL cannot be captured (no CB_EXTERNAL_IPC)",
            ));
        }
        for w in &command.waits {
            if let Some(other) = capture_of_event(w) {
                if !Obj::ptr_eq(&other, &self.graph) {
                    return Err(merge_attempt());
                }
            }
        }
        self.graph.record(list, command);
        Ok(())
    }
}

fn merge_attempt() -> ZeError {
    ZeError::new(
        ZE_RESULT_ERROR_GRAPH_CAPTURE_MERGE_ATTEMPT,
        "the command waits on an event signaled in another graph capture",
    )
}

/// The capture whose captured work signals `e`, if any.
pub fn capture_of_event(e: &Arc<EventState>) -> Option<Obj<GraphObject>> {
    active()
        .iter()
        .find(|g| g.lock().signaled.iter().any(|s| Arc::ptr_eq(s, e)))
        .cloned()
}

/// `GRAPH_INTERNAL_EVENT`: `e` is an internal counter-based event (no `GRAPH_EXTERNAL`) of a
/// live capture, used outside it by `what`.
fn internal_event(what: &str) -> ZeError {
    ZeError::new(
        ZE_RESULT_ERROR_GRAPH_INTERNAL_EVENT,
        format!("{what}: the counter-based event is signaled inside a graph capture and was created without GRAPH_EXTERNAL, so it cannot be used outside the graph while the capture is active"),
    )
}

/// Fails with `GRAPH_INTERNAL_EVENT` when `e` is internal to a live capture (see the module
/// docs); `what` names the use.
pub fn check_internal_use(e: &Arc<EventState>, what: &str) -> ZeResult<()> {
    if e.is_graph_internal() && capture_of_event(e).is_some() {
        return Err(internal_event(what));
    }
    Ok(())
}

/// The checks of a command appended outside any capture (a regular list, or an immediate one
/// that does not fork): it may not signal an internal event of a live capture, and a regular
/// list (`waits_too`) may not wait on one either.
pub fn check_outside_use(command: &Command, waits_too: bool) -> ZeResult<()> {
    if let Some(s) = &command.signal {
        check_internal_use(s, "a command outside the capture signals it")?;
    }
    if waits_too {
        for w in &command.waits {
            check_internal_use(w, "a regular command list waits on it")?;
        }
    }
    Ok(())
}

/// Fails when `e` is signaled by captured work (host synchronization on it): an internal
/// counter-based event `GRAPH_INTERNAL_EVENT`, any other `GRAPH_CAPTURE_UNSUPPORTED`.
pub fn check_host_sync(e: &Arc<EventState>) -> ZeResult<()> {
    check_internal_use(e, "zeEventHostSynchronize")?;
    if capture_of_event(e).is_some() {
        return Err(ZeError::new(
            ZE_RESULT_ERROR_GRAPH_CAPTURE_UNSUPPORTED,
            "the event is signaled by work being captured into a graph; it runs only when the graph is replayed",
        ));
    }
    Ok(())
}

/// The capture a non-capturing immediate list joins by waiting on `waits` (a fork), if any.
pub fn fork_of(waits: &[Arc<EventState>]) -> ZeResult<Option<Capture>> {
    let mut found: Option<Obj<GraphObject>> = None;
    for w in waits {
        if let Some(g) = capture_of_event(w) {
            match &found {
                Some(f) if !Obj::ptr_eq(f, &g) => return Err(merge_attempt()),
                _ => found = Some(g),
            }
        }
    }
    Ok(found.and_then(|graph| {
        let (session, handle) = {
            let s = graph.lock();
            (s.session, s.handle)
        };
        handle.map(|handle| Capture {
            graph,
            handle,
            session,
        })
    }))
}

fn is_work(op: &Op) -> bool {
    !matches!(op, Op::Nothing | Op::MemoryFence | Op::ResetEvent(_))
}

fn describe(op: &Op, detailed: bool) -> String {
    let full = format!("{op:?}");
    if detailed {
        full
    } else {
        full.split([' ', '(', '{']).next().unwrap_or_default().to_string()
    }
}

impl GraphObject {
    /// `zeGraphCreateExt`: an empty graph of `context`.
    pub fn new(context: Handle<kinds::Context>) -> GraphObject {
        GraphObject {
            context,
            state: Mutex::new(State::default()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The context the graph was made in.
    pub fn context(&self) -> Handle<kinds::Context> {
        self.context
    }

    /// Starts capturing on the primary list `list` (id `list_id`, queue group `ordinal`). The
    /// graph must be empty.
    pub fn begin(
        graph: &Obj<GraphObject>,
        handle: Handle<kinds::Graph>,
        list: Handle<kinds::CommandList>,
        list_id: usize,
        ordinal: u32,
    ) -> ZeResult<Capture> {
        let mut reg = active();
        let mut s = graph.lock();
        if s.phase != Phase::Empty {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ARGUMENT,
                "the graph is not empty (it was captured, or is being captured)",
            ));
        }
        let session = SESSIONS.fetch_add(1, Ordering::Relaxed);
        *s = State {
            phase: Phase::Capturing,
            session,
            handle: Some(handle),
            primary: Some(list),
            ordinal,
            members: vec![Member {
                list: list_id,
                joined: true,
                since_work: Vec::new(),
                ever_joined: false,
            }],
            callback: s.callback.take(),
            implicit: s.implicit,
            ..State::default()
        };
        drop(s);
        reg.push(graph.clone());
        Ok(Capture {
            graph: graph.clone(),
            handle,
            session,
        })
    }

    /// A child list joins the capture (a fork).
    pub fn add_member(&self, list: usize) {
        let mut s = self.lock();
        if !s.members.iter().any(|m| m.list == list) {
            s.members.push(Member {
                list,
                joined: true,
                since_work: Vec::new(),
                ever_joined: false,
            });
        }
    }

    fn record(&self, list: usize, command: Command) {
        let mut s = self.lock();
        let s = &mut *s;
        for w in &command.waits {
            for m in s.members.iter_mut().filter(|m| m.list != list) {
                if m.since_work.iter().any(|e| Arc::ptr_eq(e, w)) {
                    m.joined = true;
                    m.ever_joined = true;
                }
            }
        }
        let primary = s.members.first().map(|m| m.list) == Some(list);
        if let Some(m) = s.members.iter_mut().find(|m| m.list == list) {
            if is_work(&command.op) {
                m.since_work.clear();
                m.joined = primary;
            }
            if let Some(e) = &command.signal {
                m.since_work.push(e.clone());
            }
        }
        if let Some(e) = &command.signal {
            s.signaled.push(e.clone());
        }
        s.commands.push((list, command));
    }

    /// Ends the capture (called with the primary list `list`).
    pub fn end(graph: &Obj<GraphObject>, list: usize) -> ZeResult<()> {
        let mut reg = active();
        let mut s = graph.lock();
        if s.phase != Phase::Capturing {
            return Err(not_capturing());
        }
        if s.members.first().map(|m| m.list) != Some(list) {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ARGUMENT,
                "only the primary command list of a capture can end it",
            ));
        }
        let invalidated = s.members.iter().filter(|m| !m.joined && m.ever_joined).count();
        if invalidated > 0 {
            s.phase = Phase::Invalid;
            s.members.clear();
            s.signaled.clear();
            s.commands.clear();
            drop(s);
            reg.retain(|g| !Obj::ptr_eq(g, graph));
            return Err(ZeError::new(
                ZE_RESULT_ERROR_GRAPH_CAPTURE_INVALIDATED,
                format!("{invalidated} forked command list(s) got work after they were joined (unjoined work): the capture ended and the graph is invalid"),
            ));
        }
        let unjoined = s.members.iter().filter(|m| !m.joined).count();
        if unjoined > 0 {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_GRAPH_UNJOINED_FORKS,
                format!("{unjoined} forked command list(s) have work no other list of the capture waits for; join them and end again"),
            ));
        }
        let members: Vec<usize> = s.members.iter().map(|m| m.list).collect();
        let commands = std::mem::take(&mut s.commands);
        s.description = commands
            .iter()
            .map(|(l, c)| {
                let lane = members.iter().position(|m| m == l).unwrap_or(0);
                let detail = format!(
                    "list {lane}: waits {} signal {}",
                    c.waits.len(),
                    if c.signal.is_some() { "yes" } else { "no" }
                );
                format!("{detail}: {}\n{}", describe(&c.op, false), describe(&c.op, true))
            })
            .collect();
        s.body = Some(Arc::new(ListBody::new(
            commands.into_iter().map(|(_, c)| c).collect(),
        )));
        s.phase = Phase::Captured;
        s.members.clear();
        s.signaled.clear();
        drop(s);
        reg.retain(|g| !Obj::ptr_eq(g, graph));
        Ok(())
    }

    /// `zeGraphIsEmptyExt`.
    pub fn is_empty(&self) -> bool {
        let s = self.lock();
        match s.phase {
            Phase::Empty => true,
            Phase::Capturing => s.commands.is_empty(),
            Phase::Captured => s.body.as_ref().is_none_or(|b| b.commands.is_empty()),
            Phase::Invalid => true,
        }
    }

    /// `zeGraphGetPrimaryCommandListExt`.
    pub fn primary(&self) -> Option<Handle<kinds::CommandList>> {
        self.lock().primary
    }

    /// `zeGraphInstantiateExt`: the commands and the queue group of the capture.
    pub fn instantiate(&self) -> ZeResult<(Arc<ListBody>, u32)> {
        let s = self.lock();
        match s.phase {
            Phase::Captured => Ok((s.body.clone().unwrap_or_default(), s.ordinal)),
            Phase::Capturing => Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_GRAPH,
                "the graph is being captured; end the capture first",
            )),
            Phase::Empty => Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_GRAPH,
                "the graph was never captured",
            )),
            Phase::Invalid => Err(ZeError::new(
                ZE_RESULT_ERROR_GRAPH_CAPTURE_INVALIDATED,
                "the graph's capture was invalidated (work appended to a forked list after its join)",
            )),
        }
    }

    /// Marks the graph as made by the driver for `zeCommandListBeginGraphCaptureExt`.
    pub fn set_implicit(&self) {
        self.lock().implicit = true;
    }

    /// Whether the driver made the graph (see [`GraphObject::set_implicit`]).
    pub fn is_implicit(&self) -> bool {
        self.lock().implicit
    }

    /// `zeGraphSetDestructionCallbackExt`.
    pub fn set_callback(&self, function: HostFunction, data: *mut c_void) {
        self.lock().callback = Some((function, data as usize));
    }

    /// `zeGraphDestroyExt`: refused while capturing; calls the destruction callback.
    pub fn destroy(&self) -> ZeResult<()> {
        let callback = {
            let mut s = self.lock();
            if s.phase == Phase::Capturing {
                return Err(ZeError::new(
                    ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE,
                    "the graph is being captured; end the capture first",
                ));
            }
            s.callback.take()
        };
        if let Some((f, data)) = callback {
            // SAFETY: the application's callback, called with its own argument as it asked.
            unsafe { f(data as *mut c_void) };
        }
        Ok(())
    }

    /// `zeGraphDumpContentsExt`: one line per command (its list in the capture, waits,
    /// signal, op), with the op's fields unless `detailed` is false.
    pub fn dump(&self, detailed: bool) -> String {
        let s = self.lock();
        let mut out = String::new();
        let phase = match s.phase {
            Phase::Empty => "empty",
            Phase::Capturing => "capturing",
            Phase::Captured => "captured",
            Phase::Invalid => "invalid",
        };
        let _ = writeln!(out, "graph ({phase}), queue group {}, {} command(s)", s.ordinal, s.description.len().max(s.commands.len()));
        if s.phase == Phase::Capturing {
            for (i, (_, c)) in s.commands.iter().enumerate() {
                let _ = writeln!(out, "[{i}] {}", describe(&c.op, detailed));
            }
        } else {
            for (i, d) in s.description.iter().enumerate() {
                let (head, full) = d.split_once('\n').unwrap_or((d, ""));
                if detailed {
                    let head = head.rsplit_once(": ").map_or(head, |(h, _)| h);
                    let _ = writeln!(out, "[{i}] {head}: {full}");
                } else {
                    let _ = writeln!(out, "[{i}] {head}");
                }
            }
        }
        out
    }
}

/// `COMMAND_LIST_NOT_CAPTURING`.
pub fn not_capturing() -> ZeError {
    ZeError::new(
        ZE_RESULT_ERROR_COMMAND_LIST_NOT_CAPTURING,
        "the command list is not capturing a graph",
    )
}

/// Value of an executable graph handle.
#[derive(Debug)]
pub struct ExecutableGraphObject {
    /// The graph it was instantiated from.
    pub source: Handle<kinds::Graph>,
    /// What a replay runs.
    pub body: Arc<ListBody>,
    /// Queue group of the list the graph was captured on.
    pub ordinal: u32,
    /// Completes when the last replay appended has run: the next replay waits for it (one
    /// execution at a time, in the order they were appended).
    done: Arc<EventState>,
    /// Held while a replay is appended (its wait on `done` and its signal of `done` are
    /// submitted together).
    order: Mutex<()>,
}

impl ExecutableGraphObject {
    /// An executable graph of `body` from `source`, for lists of queue group `ordinal`.
    pub fn new(source: Handle<kinds::Graph>, body: Arc<ListBody>, ordinal: u32) -> Self {
        ExecutableGraphObject {
            source,
            body,
            ordinal,
            done: Arc::new(EventState::counter_based_graph_external(false)),
            order: Mutex::new(()),
        }
    }

    /// Appends a replay to a list with `append` (called twice, in order: the replay, which
    /// also waits for the previous replay to end, then a marker that signals this one's end).
    /// `serialize` false (the list captures, or forks into a capture): the replay alone.
    pub fn append_replay(
        &self,
        mut replay: Command,
        serialize: bool,
        mut append: impl FnMut(Command) -> ZeResult<()>,
    ) -> ZeResult<()> {
        if !serialize {
            return append(replay);
        }
        let _order = self.order.lock().unwrap_or_else(|e| e.into_inner());
        replay.waits.push(self.done.clone());
        append(replay)?;
        append(Command::new(Op::Nothing, Some(self.done.clone()), Vec::new()))
    }
}
