//! GraphApi, ExecutableGraphApi and the capture functions of CommandListApi: graph capture and
//! replay (see `crate::model::graph`).

use super::*;
use crate::model::graph::{ExecutableGraphObject, GraphObject};

fn graph(h: Handle<kinds::Graph>) -> ZeResult<Obj<GraphObject>> {
    h.get::<GraphObject>()
}

fn executable(h: Handle<kinds::ExecutableGraph>) -> ZeResult<Obj<ExecutableGraphObject>> {
    h.get::<ExecutableGraphObject>()
}

/// Whether a dump descriptor in `p_next` asks for the simple mode.
fn simple_dump(p_next: *const c_void) -> bool {
    use chain::ZeGraphDumpContentsExtNext as N;
    // SAFETY: the application's pNext chain, read-only for this call.
    unsafe { chain::next_of_zeGraphDumpContentsExt(p_next) }.any(|e| {
        matches!(e, N::RecordReplayGraphExtDumpDesc(d)
            if d.mode == ze_record_replay_graph_ext_dump_mode_t::SIMPLE)
    })
}

fn query(answer: bool) -> ZeResult<()> {
    // QUERY_TRUE / QUERY_FALSE are answers, not failures: no reason is recorded.
    Err(ZeError::of(if answer {
        ZE_RESULT_QUERY_TRUE
    } else {
        ZE_RESULT_QUERY_FALSE
    }))
}

#[zekit_icd::implement]
impl GraphApi for CpuDriver {
    fn ze_graph_create_ext(
        &self,
        h_context: Handle<kinds::Context>,
        _p_next: *const c_void,
        ph_graph: &mut Option<Handle<kinds::Graph>>,
    ) -> ZeResult<()> {
        context(h_context)?;
        *ph_graph = Some(Handle::new(GraphObject::new(h_context)));
        Ok(())
    }

    fn ze_graph_get_primary_command_list_ext(
        &self,
        h_graph: Handle<kinds::Graph>,
        ph_command_list: &mut Option<Handle<kinds::CommandList>>,
    ) -> ZeResult<()> {
        *ph_command_list = graph(h_graph)?.primary();
        Ok(())
    }

    fn ze_graph_set_destruction_callback_ext(
        &self,
        h_graph: Handle<kinds::Graph>,
        pfn_callback: zex_mem_graph_free_callback_fn_t,
        p_user_data: *mut c_void,
        _p_next: *const c_void,
    ) -> ZeResult<()> {
        let g = graph(h_graph)?;
        let Some(f) = pfn_callback else {
            return Err(null_pointer("pfnCallback"));
        };
        g.set_callback(f, p_user_data);
        Ok(())
    }

    fn ze_graph_instantiate_ext(
        &self,
        h_graph: Handle<kinds::Graph>,
        _p_next: *const c_void,
        ph_executable_graph: &mut Option<Handle<kinds::ExecutableGraph>>,
    ) -> ZeResult<()> {
        let (body, ordinal) = graph(h_graph)?.instantiate()?;
        *ph_executable_graph = Some(Handle::new(ExecutableGraphObject::new(h_graph, body, ordinal)));
        Ok(())
    }

    fn ze_graph_is_empty_ext(&self, h_graph: Handle<kinds::Graph>) -> ZeResult<()> {
        query(graph(h_graph)?.is_empty())
    }

    fn ze_graph_dump_contents_ext(
        &self,
        h_graph: Handle<kinds::Graph>,
        file_path: &CStr,
        p_next: *const c_void,
    ) -> ZeResult<()> {
        let g = graph(h_graph)?;
        let simple = simple_dump(p_next);
        let text = g.dump(!simple);
        use std::os::unix::ffi::OsStrExt;
        let path = std::path::Path::new(std::ffi::OsStr::from_bytes(file_path.to_bytes()));
        std::fs::write(path, text).map_err(|e| {
            zekit_icd_rt::fail(
                ZeError::INVALID_ARGUMENT,
                format_args!("cannot write {}: {e}", path.display()),
            )
        })
    }

    fn ze_graph_destroy_ext(&self, h_graph: Handle<kinds::Graph>) -> ZeResult<()> {
        // `[release]`: the entry layer takes the handle out once this returns Ok.
        graph(h_graph)?.destroy()
    }
}

#[zekit_icd::implement]
impl ExecutableGraphApi for CpuDriver {
    fn ze_executable_graph_get_source_graph_ext(
        &self,
        h_graph: Handle<kinds::ExecutableGraph>,
        ph_source_graph: &mut Option<Handle<kinds::Graph>>,
    ) -> ZeResult<()> {
        let source = executable(h_graph)?.source;
        graph(source)?;
        *ph_source_graph = Some(source);
        Ok(())
    }

    fn ze_executable_graph_destroy_ext(&self, h_graph: Handle<kinds::ExecutableGraph>) -> ZeResult<()> {
        // `[release]`: the entry layer takes the handle out once this returns Ok; replays
        // still queued keep the commands.
        executable(h_graph)?;
        Ok(())
    }
}

/// The capture functions of `zeCommandList`.
pub(super) fn begin_capture(
    h_command_list: Handle<kinds::CommandList>,
    h_graph: Option<Handle<kinds::Graph>>,
) -> ZeResult<()> {
    let l = list(h_command_list)?;
    let (h, g) = match h_graph {
        Some(h) => (h, graph(h)?),
        None => {
            let (h, g) = Handle::new_obj(GraphObject::new(l.context()));
            (h, g)
        }
    };
    if h_graph.is_none() {
        g.set_implicit();
    }
    match l.begin_capture(h_command_list, &g, h) {
        Ok(()) => Ok(()),
        Err(f) => {
            if h_graph.is_none() {
                // The graph made for this capture is not the application's.
                let _ = h.release();
            }
            Err(f)
        }
    }
}

pub(super) fn is_capturing(h_command_list: Handle<kinds::CommandList>) -> ZeResult<()> {
    query(list(h_command_list)?.capturing().is_ok())
}

pub(super) fn end_capture(
    h_command_list: Handle<kinds::CommandList>,
    ph_graph: &mut Option<Handle<kinds::Graph>>,
) -> ZeResult<()> {
    let l = list(h_command_list)?;
    let capturing = l.capturing().ok();
    match l.end_capture() {
        Ok(h) => {
            *ph_graph = Some(h);
            Ok(())
        }
        Err(f) => {
            if f.code() == ZE_RESULT_ERROR_GRAPH_CAPTURE_INVALIDATED {
                // The capture is over; a graph the driver made for it has no other owner.
                if let Some(h) = capturing {
                    if let Ok(g) = graph(h) {
                        if g.is_implicit() && g.destroy().is_ok() {
                            let _ = h.release();
                        }
                    }
                }
            }
            Err(f)
        }
    }
}

pub(super) fn get_graph(
    h_command_list: Handle<kinds::CommandList>,
    ph_graph: &mut Option<Handle<kinds::Graph>>,
) -> ZeResult<()> {
    *ph_graph = Some(list(h_command_list)?.capturing()?);
    Ok(())
}

pub(super) fn append_graph(
    h_command_list: Handle<kinds::CommandList>,
    h_graph: Handle<kinds::ExecutableGraph>,
    h_signal_event: Option<Handle<kinds::Event>>,
    ph_wait_events: &[Handle<kinds::Event>],
) -> ZeResult<()> {
    let l = list(h_command_list)?;
    let x = executable(h_graph)?;
    let ordinal = match l.immediate_config() {
        Ok(c) => c.ordinal,
        Err(_) => {
            return Err(zekit_icd_rt::fail(
                ZeError::of(ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE),
                "a graph is captured on an immediate command list and replays on one",
            ))
        }
    };
    if ordinal != x.ordinal {
        return Err(zekit_icd_rt::fail(
            ZeError::of(ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE),
            format_args!(
                "the graph was captured on queue group {}, the command list is of group {ordinal}",
                x.ordinal
            ),
        ));
    }
    let command = command(&l, Op::Lists(vec![x.body.clone()]), h_signal_event, ph_wait_events)?;
    // A replay recorded into a capture (a subgraph) is not serialized: it runs when that
    // graph replays.
    let recorded = l.capturing().is_ok() || crate::model::graph::fork_of(&command.waits)?.is_some();
    x.append_replay(command, !recorded, |c| l.append(c))
}
