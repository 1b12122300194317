//! CommandListApi: Regular and immediate command lists, every append that needs no kernel
//! (see `crate::model::list`), kernel launches (see `crate::model::kernel`), and mutable lists
//! (`super::mutable`, see `crate::model::mutable`).

use super::*;
use crate::model::list::{self as rules, RegionSide};
use crate::model::queue::{check_ordinal, new_engine};
use crate::exec::Groups;
use zekit_spirv::ArgKind;

#[zekit_icd::implement]
impl CommandListApi for CpuDriver {
    // ------------------------------------------------------------ lifetime

    fn ze_command_list_create(
        &self,
        h_context: Handle<kinds::Context>,
        h_device: Handle<kinds::Device>,
        desc: &ze_command_list_desc_t,
        ph_command_list: &mut Option<Handle<kinds::CommandList>>,
    ) -> ZeResult<()> {
        context(h_context)?;
        let device = ordinal(h_device)?;
        check_ordinal(self.host, desc.commandQueueGroupOrdinal)?;
        let mutable = super::mutable::mutable_flags(desc);
        let l = ListObject::regular(h_context, device, desc.commandQueueGroupOrdinal, desc.flags, mutable)?;
        *ph_command_list = Some(Handle::new(l));
        Ok(())
    }

    fn ze_command_list_create_immediate(
        &self,
        h_context: Handle<kinds::Context>,
        h_device: Handle<kinds::Device>,
        altdesc: &ze_command_queue_desc_t,
        ph_command_list: &mut Option<Handle<kinds::CommandList>>,
    ) -> ZeResult<()> {
        let ctx_id = context(h_context)?.id();
        let device = ordinal(h_device)?;
        let config = QueueConfig::new(
            self.host,
            altdesc.ordinal,
            altdesc.index,
            altdesc.flags,
            altdesc.mode,
            altdesc.priority,
        )?;
        let engine = new_engine(device, ctx_id, &config, self.pool())?;
        *ph_command_list = Some(Handle::new(ListObject::immediate(h_context, device, config, engine)));
        Ok(())
    }

    fn ze_command_list_destroy(&self, h_command_list: Handle<kinds::CommandList>) -> ZeResult<()> {
        // `[release]`: the entry layer takes the handle out once this returns Ok.
        list(h_command_list)?.destroy()
    }

    fn ze_command_list_close(&self, h_command_list: Handle<kinds::CommandList>) -> ZeResult<()> {
        list(h_command_list)?.close();
        Ok(())
    }

    fn ze_command_list_reset(&self, h_command_list: Handle<kinds::CommandList>) -> ZeResult<()> {
        list(h_command_list)?.reset()
    }

    fn ze_command_list_host_synchronize(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        timeout: u64,
    ) -> ZeResult<()> {
        list(h_command_list)?.host_synchronize(timeout)
    }

    // ------------------------------------------------------------ queries

    fn ze_command_list_get_device_handle(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        ph_device: &mut Option<Handle<kinds::Device>>,
    ) -> ZeResult<()> {
        *ph_device = self.device_handle(list(h_command_list)?.device());
        Ok(())
    }

    fn ze_command_list_get_context_handle(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        ph_context: &mut Option<Handle<kinds::Context>>,
    ) -> ZeResult<()> {
        *ph_context = Some(list(h_command_list)?.context());
        Ok(())
    }

    fn ze_command_list_get_ordinal(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        p_ordinal: &mut u32,
    ) -> ZeResult<()> {
        *p_ordinal = list(h_command_list)?.ordinal();
        Ok(())
    }

    fn ze_command_list_immediate_get_index(
        &self,
        h_command_list_immediate: Handle<kinds::CommandList>,
        p_index: &mut u32,
    ) -> ZeResult<()> {
        *p_index = list(h_command_list_immediate)?.immediate_config()?.index;
        Ok(())
    }

    fn ze_command_list_is_immediate(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        p_is_immediate: &mut ze_bool_t,
    ) -> ZeResult<()> {
        let immediate = list(h_command_list)?.kind() == crate::model::event::ListKind::Immediate;
        *p_is_immediate = ze_bool_t::from(immediate);
        Ok(())
    }

    fn ze_command_list_get_flags(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        p_flags: &mut ze_command_list_flags_t,
    ) -> ZeResult<()> {
        *p_flags = list(h_command_list)?.flags();
        Ok(())
    }

    fn ze_command_list_immediate_get_flags(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        p_flags: &mut ze_command_queue_flags_t,
    ) -> ZeResult<()> {
        *p_flags = list(h_command_list)?.immediate_config()?.flags;
        Ok(())
    }

    fn ze_command_list_immediate_get_mode(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        p_mode: &mut ze_command_queue_mode_t,
    ) -> ZeResult<()> {
        *p_mode = list(h_command_list)?.immediate_config()?.mode;
        Ok(())
    }

    fn ze_command_list_immediate_get_priority(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        p_priority: &mut ze_command_queue_priority_t,
    ) -> ZeResult<()> {
        *p_priority = list(h_command_list)?.immediate_config()?.priority;
        Ok(())
    }

    // ------------------------------------------------------------ mutable lists (api/mutable.rs)

    fn ze_command_list_is_mutable_exp(&self, h_command_list: Handle<kinds::CommandList>, p_is_mutable: &mut ze_bool_t) -> ZeResult<()> {
        super::mutable::is_mutable(h_command_list, p_is_mutable)
    }

    fn ze_command_list_get_next_command_id_exp(&self, h_command_list: Handle<kinds::CommandList>, desc: &ze_mutable_command_id_exp_desc_t, p_command_id: &mut u64) -> ZeResult<()> {
        super::mutable::next_command_id(h_command_list, desc, &[], p_command_id)
    }

    fn ze_command_list_get_next_command_id_with_kernels_exp(&self, h_command_list: Handle<kinds::CommandList>, desc: &ze_mutable_command_id_exp_desc_t, num_kernels: u32, ph_kernels: &[Handle<kinds::Kernel>], p_command_id: &mut u64) -> ZeResult<()> {
        if ph_kernels.len() != num_kernels as usize {
            return Err(null_pointer(&format!("phKernels (with numKernels {num_kernels})")));
        }
        super::mutable::next_command_id(h_command_list, desc, ph_kernels, p_command_id)
    }

    fn ze_command_list_update_mutable_commands_exp(&self, h_command_list: Handle<kinds::CommandList>, desc: &ze_mutable_commands_exp_desc_t) -> ZeResult<()> {
        super::mutable::update_commands(h_command_list, desc)
    }

    fn ze_command_list_update_mutable_command_signal_event_exp(&self, h_command_list: Handle<kinds::CommandList>, command_id: u64, h_signal_event: Option<Handle<kinds::Event>>) -> ZeResult<()> {
        super::mutable::update_signal(h_command_list, command_id, h_signal_event)
    }

    fn ze_command_list_update_mutable_command_wait_events_exp(&self, h_command_list: Handle<kinds::CommandList>, command_id: u64, num_wait_events: u32, ph_wait_events: &[Handle<kinds::Event>]) -> ZeResult<()> {
        super::mutable::update_waits(h_command_list, command_id, num_wait_events, ph_wait_events)
    }

    fn ze_command_list_update_mutable_command_kernels_exp(&self, h_command_list: Handle<kinds::CommandList>, _num_kernels: u32, p_command_id: &[u64], ph_kernels: &[Handle<kinds::Kernel>]) -> ZeResult<()> {
        super::mutable::update_kernels(h_command_list, p_command_id, ph_kernels)
    }

    // ------------------------------------------------------------ synchronization

    fn ze_command_list_append_barrier(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        append(h_command_list, || Ok(Op::Nothing), h_signal_event, ph_wait_events)
    }

    fn ze_command_list_append_memory_ranges_barrier(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        _num_ranges: u32,
        _p_range_sizes: &[usize],
        _p_ranges: &[*const c_void],
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        append(h_command_list, || Ok(Op::MemoryFence), h_signal_event, ph_wait_events)
    }

    fn ze_command_list_append_signal_event(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        h_event: Handle<kinds::Event>,
    ) -> ZeResult<()> {
        let l = list(h_command_list)?;
        let e = event(h_event)?.for_explicit(l.kind(), "signaled by zeCommandListAppendSignalEvent")?;
        l.append(Command::new(Op::Nothing, Some(e), Vec::new()))
    }

    fn ze_command_list_append_wait_on_events(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        _num_events: u32,
        ph_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        append(h_command_list, || Ok(Op::Nothing), None, ph_events)
    }

    fn ze_command_list_append_event_reset(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        h_event: Handle<kinds::Event>,
    ) -> ZeResult<()> {
        let l = list(h_command_list)?;
        let e = event(h_event)?.for_explicit(l.kind(), "reset by zeCommandListAppendEventReset")?;
        l.append(Command::new(Op::ResetEvent(e), None, Vec::new()))
    }

    fn ze_command_list_append_write_global_timestamp(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        dstptr: &mut u64,
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        let dst = dstptr as *mut u64 as usize;
        append(h_command_list, || Ok(Op::WriteTimestamp { dst }), h_signal_event, ph_wait_events)
    }

    fn ze_command_list_append_query_kernel_timestamps(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        _num_events: u32,
        ph_events: &[Handle<kinds::Event>],
        dstptr: *mut c_void,
        p_offsets: Option<&[usize]>,
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        let op = || {
            let events = ph_events
                .iter()
                .map(|&h| event(h)?.for_timestamp_query())
                .collect::<ZeResult<Vec<_>>>()?;
            Ok(Op::QueryTimestamps {
                events,
                dst: dstptr as usize,
                // Null offsets: the results are packed.
                offsets: p_offsets.map(<[usize]>::to_vec).unwrap_or_default(),
            })
        };
        append(h_command_list, op, h_signal_event, ph_wait_events)
    }

    fn ze_command_list_append_host_function(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        pfn_host_function: ze_host_function_callback_t,
        p_user_data: *mut c_void,
        _p_next: *const c_void,
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        let Some(function) = pfn_host_function else {
            return Err(null_pointer("pfnHostFunction"));
        };
        let op = || {
            Ok(Op::Host {
                function,
                data: p_user_data as usize,
            })
        };
        append(h_command_list, op, h_signal_event, ph_wait_events)
    }

    fn ze_command_list_immediate_append_command_lists_exp(
        &self,
        h_command_list_immediate: Handle<kinds::CommandList>,
        _num_command_lists: u32,
        ph_command_lists: &[Handle<kinds::CommandList>],
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        let imm = list(h_command_list_immediate)?;
        let ordinal = imm.immediate_config()?.ordinal;
        let bodies = ph_command_lists
            .iter()
            .map(|&h| list(h)?.executable(ordinal))
            .collect::<ZeResult<Vec<_>>>()?;
        let command = command(&imm, Op::Lists(bodies), h_signal_event, ph_wait_events)?;
        imm.append(command)
    }

    fn ze_command_list_immediate_append_command_lists_with_parameters(
        &self,
        h_command_list_immediate: Handle<kinds::CommandList>,
        num_command_lists: u32,
        ph_command_lists: &[Handle<kinds::CommandList>],
        _p_next: *const c_void,
        h_signal_event: Option<Handle<kinds::Event>>,
        num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        self.ze_command_list_immediate_append_command_lists_exp(
            h_command_list_immediate,
            num_command_lists,
            ph_command_lists,
            h_signal_event,
            num_wait_events,
            ph_wait_events,
        )
    }

    // ------------------------------------------------------------ graph capture

    fn ze_command_list_begin_graph_capture_ext(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        _p_next: *const c_void,
    ) -> ZeResult<()> {
        super::graph::begin_capture(h_command_list, None)
    }

    fn ze_command_list_begin_capture_into_graph_ext(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        h_graph: Handle<kinds::Graph>,
        _p_next: *const c_void,
    ) -> ZeResult<()> {
        super::graph::begin_capture(h_command_list, Some(h_graph))
    }

    fn ze_command_list_is_graph_capture_enabled_ext(
        &self,
        h_command_list: Handle<kinds::CommandList>,
    ) -> ZeResult<()> {
        super::graph::is_capturing(h_command_list)
    }

    fn ze_command_list_end_graph_capture_ext(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        _p_next: *const c_void,
        ph_graph: &mut Option<Handle<kinds::Graph>>,
    ) -> ZeResult<()> {
        super::graph::end_capture(h_command_list, ph_graph)
    }

    fn ze_command_list_get_graph_ext(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        ph_graph: &mut Option<Handle<kinds::Graph>>,
    ) -> ZeResult<()> {
        super::graph::get_graph(h_command_list, ph_graph)
    }

    fn ze_command_list_append_graph_ext(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        h_graph: Handle<kinds::ExecutableGraph>,
        _p_next: *const c_void,
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        super::graph::append_graph(h_command_list, h_graph, h_signal_event, ph_wait_events)
    }

    // ------------------------------------------------------------ external semaphores

    fn ze_command_list_append_signal_external_semaphore_ext(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        _num_semaphores: u32,
        ph_semaphores: &[Handle<kinds::ExternalSemaphoreExt>],
        signal_params: &[ze_external_semaphore_signal_params_ext_t],
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        let op = || {
            let values = signal_params.iter().map(|p| p.value);
            Ok(Op::SignalSemaphores(semaphores(h_command_list, ph_semaphores, values)?))
        };
        append(h_command_list, op, h_signal_event, ph_wait_events)
    }

    fn ze_command_list_append_wait_external_semaphore_ext(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        _num_semaphores: u32,
        ph_semaphores: &[Handle<kinds::ExternalSemaphoreExt>],
        wait_params: &[ze_external_semaphore_wait_params_ext_t],
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        let op = || {
            let values = wait_params.iter().map(|p| p.value);
            Ok(Op::WaitSemaphores(semaphores(h_command_list, ph_semaphores, values)?))
        };
        append(h_command_list, op, h_signal_event, ph_wait_events)
    }

    // ------------------------------------------------------------ memory

    fn ze_command_list_append_memory_copy(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        dstptr: *mut c_void,
        srcptr: *const c_void,
        size: usize,
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        let op = || Ok(rules::copy_op(dstptr.cast(), srcptr.cast(), size));
        append(h_command_list, op, h_signal_event, ph_wait_events)
    }

    fn ze_command_list_append_memory_copy_with_parameters(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        dstptr: *mut c_void,
        srcptr: *const c_void,
        size: usize,
        _p_next: *const c_void,
        h_signal_event: Option<Handle<kinds::Event>>,
        num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        self.ze_command_list_append_memory_copy(
            h_command_list,
            dstptr,
            srcptr,
            size,
            h_signal_event,
            num_wait_events,
            ph_wait_events,
        )
    }

    fn ze_command_list_append_memory_copy_from_context(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        dstptr: *mut c_void,
        h_context_src: Handle<kinds::Context>,
        srcptr: *const c_void,
        size: usize,
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        let op = || {
            // Every context's memory is this process's memory.
            context(h_context_src)?;
            Ok(rules::copy_op(dstptr.cast(), srcptr.cast(), size))
        };
        append(h_command_list, op, h_signal_event, ph_wait_events)
    }

    fn ze_command_list_append_memory_copy_region(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        dstptr: *mut c_void,
        dst_region: &ze_copy_region_t,
        dst_pitch: u32,
        dst_slice_pitch: u32,
        srcptr: *const c_void,
        src_region: &ze_copy_region_t,
        src_pitch: u32,
        src_slice_pitch: u32,
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        let op = || {
            let dst = RegionSide {
                ptr: dstptr as usize,
                region: dst_region,
                pitch: dst_pitch,
                slice_pitch: dst_slice_pitch,
            };
            let src = RegionSide {
                ptr: srcptr as usize,
                region: src_region,
                pitch: src_pitch,
                slice_pitch: src_slice_pitch,
            };
            rules::region_op(&dst, &src)
        };
        append(h_command_list, op, h_signal_event, ph_wait_events)
    }

    fn ze_command_list_append_image_copy(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        h_dst_image: Handle<kinds::Image>,
        h_src_image: Handle<kinds::Image>,
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        self.ze_command_list_append_image_copy_region(
            h_command_list,
            h_dst_image,
            h_src_image,
            None,
            None,
            h_signal_event,
            _num_wait_events,
            ph_wait_events,
        )
    }

    fn ze_command_list_append_image_copy_region(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        h_dst_image: Handle<kinds::Image>,
        h_src_image: Handle<kinds::Image>,
        p_dst_region: Option<&ze_image_region_t>,
        p_src_region: Option<&ze_image_region_t>,
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        let op = || {
            let dst = super::image::image(h_dst_image)?;
            let src = super::image::image(h_src_image)?;
            let region = dst.copy_from(&src, p_dst_region, p_src_region)?;
            Ok(image_op(region, &[&dst, &src]))
        };
        append(h_command_list, op, h_signal_event, ph_wait_events)
    }

    fn ze_command_list_append_image_copy_to_memory(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        dstptr: *mut c_void,
        h_src_image: Handle<kinds::Image>,
        p_src_region: Option<&ze_image_region_t>,
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        let op = || {
            let src = super::image::image(h_src_image)?;
            let region = src.to_memory(dstptr as usize, p_src_region, None)?;
            Ok(image_op(region, &[&src]))
        };
        append(h_command_list, op, h_signal_event, ph_wait_events)
    }

    fn ze_command_list_append_image_copy_from_memory(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        h_dst_image: Handle<kinds::Image>,
        srcptr: *const c_void,
        p_dst_region: Option<&ze_image_region_t>,
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        let op = || {
            let dst = super::image::image(h_dst_image)?;
            let region = dst.from_memory(srcptr as usize, p_dst_region, None)?;
            Ok(image_op(region, &[&dst]))
        };
        append(h_command_list, op, h_signal_event, ph_wait_events)
    }

    fn ze_command_list_append_image_copy_to_memory_ext(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        dstptr: *mut c_void,
        h_src_image: Handle<kinds::Image>,
        p_src_region: Option<&ze_image_region_t>,
        dest_row_pitch: u32,
        dest_slice_pitch: u32,
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        let op = || {
            let src = super::image::image(h_src_image)?;
            let pitches = Some((dest_row_pitch, dest_slice_pitch));
            let region = src.to_memory(dstptr as usize, p_src_region, pitches)?;
            Ok(image_op(region, &[&src]))
        };
        append(h_command_list, op, h_signal_event, ph_wait_events)
    }

    fn ze_command_list_append_image_copy_from_memory_ext(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        h_dst_image: Handle<kinds::Image>,
        srcptr: *const c_void,
        p_dst_region: Option<&ze_image_region_t>,
        src_row_pitch: u32,
        src_slice_pitch: u32,
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        let op = || {
            let dst = super::image::image(h_dst_image)?;
            let pitches = Some((src_row_pitch, src_slice_pitch));
            let region = dst.from_memory(srcptr as usize, p_dst_region, pitches)?;
            Ok(image_op(region, &[&dst]))
        };
        append(h_command_list, op, h_signal_event, ph_wait_events)
    }

    fn ze_command_list_append_memory_fill(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        ptr: *mut c_void,
        pattern: *const c_void,
        pattern_size: usize,
        size: usize,
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        let op = || {
            rules::check_fill(pattern_size, size)?;
            if pattern.is_null() {
                return Err(null_pointer("pattern"));
            }
            // SAFETY: the application gives `pattern_size` readable bytes (checked non-zero
            // above); they are copied now, as the pattern may change after the call.
            let bytes = unsafe { std::slice::from_raw_parts(pattern.cast::<u8>(), pattern_size) };
            rules::fill_op(ptr.cast(), bytes, size)
        };
        append(h_command_list, op, h_signal_event, ph_wait_events)
    }

    fn ze_command_list_append_memory_fill_with_parameters(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        ptr: *mut c_void,
        pattern: *const c_void,
        pattern_size: usize,
        size: usize,
        _p_next: *const c_void,
        h_signal_event: Option<Handle<kinds::Event>>,
        num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        self.ze_command_list_append_memory_fill(
            h_command_list,
            ptr,
            pattern,
            pattern_size,
            size,
            h_signal_event,
            num_wait_events,
            ph_wait_events,
        )
    }

    fn ze_command_list_append_memory_prefetch(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        _ptr: *const c_void,
        _size: usize,
    ) -> ZeResult<()> {
        append(h_command_list, || Ok(Op::Nothing), None, &[])
    }

    fn ze_command_list_append_mem_advise(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        h_device: Handle<kinds::Device>,
        _ptr: *const c_void,
        _size: usize,
        advice: ze_memory_advice_t,
    ) -> ZeResult<()> {
        let op = || {
            ordinal(h_device)?;
            rules::check_advice(advice)?;
            Ok(Op::Nothing)
        };
        append(h_command_list, op, None, &[])
    }

    // ------------------------------------------------------------ kernels

    fn ze_command_list_append_launch_kernel(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        h_kernel: Handle<kinds::Kernel>,
        p_launch_func_args: &ze_group_count_t,
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        let g = p_launch_func_args;
        let groups = Groups::Direct([g.groupCountX, g.groupCountY, g.groupCountZ]);
        let op = || {
            Ok(Op::Launch(Box::new(
                super::kernel::kernel(h_kernel)?.launch(groups)?,
            )))
        };
        append(h_command_list, op, h_signal_event, ph_wait_events)
    }

    fn ze_command_list_append_launch_cooperative_kernel(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        h_kernel: Handle<kinds::Kernel>,
        p_launch_func_args: &ze_group_count_t,
        h_signal_event: Option<Handle<kinds::Event>>,
        num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        // No grid-wide synchronization exists in the kernels this driver compiles: a
        // cooperative launch is a launch.
        self.ze_command_list_append_launch_kernel(
            h_command_list,
            h_kernel,
            p_launch_func_args,
            h_signal_event,
            num_wait_events,
            ph_wait_events,
        )
    }

    fn ze_command_list_append_launch_kernel_indirect(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        h_kernel: Handle<kinds::Kernel>,
        p_launch_arguments_buffer: &ze_group_count_t,
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        // The group count is read when the launch runs (it may be written by earlier commands).
        let groups =
            Groups::Indirect(p_launch_arguments_buffer as *const ze_group_count_t as usize);
        let op = || {
            Ok(Op::Launch(Box::new(
                super::kernel::kernel(h_kernel)?.launch(groups)?,
            )))
        };
        append(h_command_list, op, h_signal_event, ph_wait_events)
    }

    fn ze_command_list_append_launch_multiple_kernels_indirect(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        _num_kernels: u32,
        ph_kernels: &[Handle<kinds::Kernel>],
        p_count_buffer: &u32,
        p_launch_arguments_buffer: &[ze_group_count_t],
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        // The count and every group count are read when the command runs; each kernel's
        // arguments and group size are taken now.
        let count = p_count_buffer as *const u32 as usize;
        let base = p_launch_arguments_buffer.as_ptr() as usize;
        let op = || {
            let launches = ph_kernels
                .iter()
                .enumerate()
                .map(|(i, &h)| {
                    let groups =
                        Groups::Indirect(base + i * std::mem::size_of::<ze_group_count_t>());
                    super::kernel::kernel(h)?.launch(groups)
                })
                .collect::<ZeResult<Vec<_>>>()?;
            Ok(Op::LaunchMany(Box::new(crate::exec::LaunchMany {
                count,
                launches,
            })))
        };
        append(h_command_list, op, h_signal_event, ph_wait_events)
    }

    fn ze_command_list_append_launch_kernel_with_parameters(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        h_kernel: Handle<kinds::Kernel>,
        p_group_counts: &ze_group_count_t,
        p_next: *const c_void,
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        launch_params(p_next)?;
        let g = p_group_counts;
        let groups = Groups::Direct([g.groupCountX, g.groupCountY, g.groupCountZ]);
        let op = || {
            Ok(Op::Launch(Box::new(
                super::kernel::kernel(h_kernel)?.launch(groups)?,
            )))
        };
        append(h_command_list, op, h_signal_event, ph_wait_events)
    }

    fn ze_command_list_append_launch_kernel_with_arguments(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        h_kernel: Handle<kinds::Kernel>,
        group_counts: ze_group_count_t,
        group_sizes: ze_group_size_t,
        p_arguments: *mut *mut c_void,
        p_next: *const c_void,
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        launch_params(p_next)?;
        let k = super::kernel::kernel(h_kernel)?;
        let args = &k.info().args;
        if !args.is_empty() && p_arguments.is_null() {
            return Err(null_pointer("pArguments"));
        }
        let pointers = if args.is_empty() {
            &[][..]
        } else {
            // SAFETY: the application gives one pointer per argument of the kernel.
            unsafe { std::slice::from_raw_parts(p_arguments.cast_const(), args.len()) }
        };
        let mut values = Vec::with_capacity(args.len());
        for (i, (a, p)) in args.iter().zip(pointers).enumerate() {
            let p = p.cast_const().cast::<u8>();
            values.push(match a.kind {
                ArgKind::Local => {
                    if p.is_null() {
                        return Err(null_pointer(&format!(
                            "pArguments[{i}] (the size of local argument {i})"
                        )));
                    }
                    // SAFETY: for a local argument the pointer addresses its size in bytes.
                    (unsafe { std::ptr::read_unaligned(p.cast::<usize>()) }, None)
                }
                // A null value pointer sets a null buffer, as zeKernelSetArgumentValue does.
                ArgKind::Buffer | ArgKind::Image | ArgKind::Sampler if p.is_null() => (8, None),
                _ if p.is_null() => (a.size as usize, None),
                _ => {
                    // Buffers, images and samplers: a pointer or a handle.
                    let n = if matches!(a.kind, ArgKind::Buffer | ArgKind::Image | ArgKind::Sampler) {
                        8
                    } else {
                        a.size as usize
                    };
                    // SAFETY: the pointer addresses the argument's value, `n` bytes.
                    (
                        n,
                        Some(unsafe { std::slice::from_raw_parts(p, n) }.to_vec()),
                    )
                }
            });
        }
        let g = group_counts;
        let groups = Groups::Direct([g.groupCountX, g.groupCountY, g.groupCountZ]);
        let size = [
            group_sizes.groupSizeX,
            group_sizes.groupSizeY,
            group_sizes.groupSizeZ,
        ];
        let op = || Ok(Op::Launch(Box::new(k.launch_with(size, &values, groups)?)));
        append(h_command_list, op, h_signal_event, ph_wait_events)
    }
}

/// Checks the `pNext` chain of a launch with parameters or arguments (walked by
/// `zekit_sys::chain::Links`, at most its 64 links): a
/// `ze_command_list_append_launch_kernel_param_cooperative_desc_t` is accepted (either value:
/// the work-groups of every launch of this driver may run at once, as a cooperative launch
/// needs, within `zeKernelSuggestMaxCooperativeGroupCount`); any other structure:
/// `UNSUPPORTED_FEATURE`; a longer (or cyclic) chain: `INVALID_ARGUMENT`.
fn launch_params(p_next: *const c_void) -> ZeResult<()> {
    // SAFETY: the application's pNext chain: each structure starts with stype and pNext.
    let mut links = unsafe { zekit_sys::chain::Links::new(p_next) };
    let cooperative = ze_structure_type_t::COMMAND_LIST_APPEND_PARAM_COOPERATIVE_DESC;
    for link in links.by_ref() {
        if link.stype != cooperative.0 {
            return Err(zekit_icd_rt::fail(
                ZeError::UNSUPPORTED_FEATURE,
                format!(
                    "a launch takes only ze_command_list_append_launch_kernel_param_cooperative_desc_t in pNext, not stype {:?}",
                    ze_structure_type_t(link.stype)
                ),
            ));
        }
    }
    if links.truncated() {
        return Err(zekit_icd_rt::fail(
            ZeError::INVALID_ARGUMENT,
            format!(
                "the launch's pNext chain is longer than {} structures (a cycle?)",
                zekit_sys::chain::MAX_LINKS
            ),
        ));
    }
    Ok(())
}

/// The semaphores of an external-semaphore append, each with its value; immediate lists only
/// (as the spec says).
fn semaphores(
    h: Handle<kinds::CommandList>,
    handles: &[Handle<kinds::ExternalSemaphoreExt>],
    values: impl Iterator<Item = u64>,
) -> ZeResult<Vec<(Arc<ExternalSemaphore>, u64)>> {
    list(h)?.immediate_config()?;
    let values: Vec<u64> = values.collect();
    if values.len() != handles.len() {
        return Err(zekit_icd_rt::fail(
            ZeError::INVALID_NULL_POINTER,
            "one parameter structure per semaphore is needed",
        ));
    }
    handles
        .iter()
        .zip(values)
        .map(|(&h, v)| Ok((semaphore(h)?.0.clone(), v)))
        .collect()
}

/// A copy involving images: the op holds their storage until it has run.
fn image_op(region: crate::exec::memory::Region, images: &[&crate::model::image_objects::ImageObject]) -> Op {
    if region.width == 0 {
        return Op::Nothing;
    }
    let keep = images
        .iter()
        .map(|i| i.storage() as Arc<dyn std::any::Any + Send + Sync>)
        .collect();
    Op::ImageCopy { region, keep }
}
