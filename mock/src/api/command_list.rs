//! `CommandListApi`: regular and immediate command lists. Appended copies, region copies,
//! fills, barriers, timestamps, event signals/waits/resets and kernel launches are recorded as
//! commands and really run when executed (immediate lists: when appended); see
//! [`crate::objects`]. A launch runs its kernel's host callback, if any ([`crate::kernels`]).

use std::ffi::c_void;
use std::sync::{Arc, Mutex};

use zekit_icd::{kinds, CommandListApi, Handle, ZeError, ZeResult};
use zekit_icd_rt::fail;
use zekit_sys::*;

use super::{event, events, image, MockDriver};
use crate::objects::*;
use crate::script::script;

impl MockDriver {
    /// Appends `cmd` to a regular list, or runs it on an immediate list's queue (`function`
    /// names the call in the log line of a wait that gives up).
    fn append(&self, function: &str, list: Handle<kinds::CommandList>, cmd: Cmd) -> ZeResult<()> {
        let l = list.get::<ListObj>()?;
        if let Some(imm) = &l.immediate {
            let ran = engine().submit(
                imm.id,
                [Batch {
                    cmds: Arc::from([cmd]),
                    pos: 0,
                    fence: None,
                }],
            );
            if imm.mode == ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS {
                let id = imm.id;
                engine().wait(function, u64::MAX, |s| s.idle(id))?;
            }
            return ran;
        }
        let mut st = lock(&l.state);
        if st.closed {
            return Err(fail(
                ZeError::INVALID_ARGUMENT,
                "the command list is closed (reset it to append again)",
            ));
        }
        st.cmds.push(cmd);
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn append_copy(
        &self,
        function: &str,
        list: Handle<kinds::CommandList>,
        dst: *mut c_void,
        src: *const c_void,
        size: usize,
        signal: Option<Handle<kinds::Event>>,
        waits: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        check_range("dstptr", dst as usize, size)?;
        check_range("srcptr", src as usize, size)?;
        let cmd = Cmd {
            waits: events(waits)?,
            op: Op::Copy {
                dst: dst as usize,
                src: src as usize,
                size,
            },
            signal: event(signal)?,
        };
        self.append(function, list, cmd)
    }

    /// Appends a command that runs `op` (image copies, built by `image.rs`).
    fn append_op(
        &self,
        function: &str,
        list: Handle<kinds::CommandList>,
        op: ZeResult<Op>,
        signal: Option<Handle<kinds::Event>>,
        waits: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        let cmd = Cmd {
            waits: events(waits)?,
            op: op?,
            signal: event(signal)?,
        };
        self.append(function, list, cmd)
    }

    #[allow(clippy::too_many_arguments)]
    fn append_fill(
        &self,
        function: &str,
        list: Handle<kinds::CommandList>,
        ptr: *mut c_void,
        pattern: *const c_void,
        pattern_size: usize,
        size: usize,
        signal: Option<Handle<kinds::Event>>,
        waits: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        let l = list.get::<ListObj>()?;
        let max = script()
            .profile()
            .max_fill_pattern_size(l.ordinal)
            .unwrap_or(0);
        if pattern.is_null() {
            return Err(fail(ZeError::INVALID_NULL_POINTER, "pattern is null"));
        }
        // The mock keeps the spec's power of two at every validation level.
        let max = usize::try_from(max).unwrap_or(usize::MAX);
        zekit_rules::fill::check(pattern_size, size, max, true).map_err(|b| {
            if b.is(ZE_RESULT_ERROR_UNSUPPORTED_SIZE) {
                let why = format!("{} of queue group {}", b.reason(), l.ordinal);
                return b.because(why);
            }
            b
        })?;
        check_range("ptr", ptr as usize, size)?;
        // SAFETY: `pattern` is non-null and the caller promises `pattern_size` readable bytes.
        let bytes = unsafe { std::slice::from_raw_parts(pattern as *const u8, pattern_size) };
        let cmd = Cmd {
            waits: events(waits)?,
            op: Op::Fill {
                dst: ptr as usize,
                pattern: bytes.into(),
                size,
            },
            signal: event(signal)?,
        };
        self.append(function, list, cmd)
    }
}

impl MockDriver {
    /// Appends a launch of `kernel` as it is now: group counts given, or (`indirect`) read
    /// from the application's buffer when the launch runs.
    #[allow(clippy::too_many_arguments)]
    fn append_launch(
        &self,
        function: &'static str,
        list: Handle<kinds::CommandList>,
        kernel: Handle<kinds::Kernel>,
        counts: &ze_group_count_t,
        indirect: bool,
        signal: Option<Handle<kinds::Event>>,
        waits: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        let k = super::kernel::kernel_core(kernel)?;
        let (group_count, counts) = if indirect {
            let p = counts as *const ze_group_count_t as usize;
            check_range(
                "pLaunchArgumentsBuffer",
                p,
                std::mem::size_of::<ze_group_count_t>(),
            )?;
            ([0; 3], Some(p))
        } else {
            (
                [counts.groupCountX, counts.groupCountY, counts.groupCountZ],
                None,
            )
        };
        let launch = k.launch(function, group_count)?;
        let cmd = Cmd {
            waits: events(waits)?,
            op: Op::Launch {
                launch: Box::new(launch),
                counts,
            },
            signal: event(signal)?,
        };
        self.append(function, list, cmd)
    }
}

#[zekit_icd::implement]
#[allow(clippy::too_many_arguments)]
impl CommandListApi for MockDriver {
    fn ze_command_list_append_launch_kernel(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        h_kernel: Handle<kinds::Kernel>,
        p_launch_func_args: &ze_group_count_t,
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        self.append_launch(
            "zeCommandListAppendLaunchKernel",
            h_command_list,
            h_kernel,
            p_launch_func_args,
            false,
            h_signal_event,
            ph_wait_events,
        )
    }

    /// The `pNext` chain (cooperative launches and the like) changes nothing in the mock.
    fn ze_command_list_append_launch_kernel_with_parameters(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        h_kernel: Handle<kinds::Kernel>,
        p_group_counts: &ze_group_count_t,
        _p_next: *const c_void,
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        self.append_launch(
            "zeCommandListAppendLaunchKernelWithParameters",
            h_command_list,
            h_kernel,
            p_group_counts,
            false,
            h_signal_event,
            ph_wait_events,
        )
    }

    fn ze_command_list_append_launch_cooperative_kernel(
        &self,
        h_command_list: Handle<kinds::CommandList>,
        h_kernel: Handle<kinds::Kernel>,
        p_launch_func_args: &ze_group_count_t,
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        self.append_launch(
            "zeCommandListAppendLaunchCooperativeKernel",
            h_command_list,
            h_kernel,
            p_launch_func_args,
            false,
            h_signal_event,
            ph_wait_events,
        )
    }

    /// Group counts and the kernel count are read when the launches run.
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
        const F: &str = "zeCommandListAppendLaunchMultipleKernelsIndirect";
        let count = p_count_buffer as *const u32 as usize;
        let counts = p_launch_arguments_buffer.as_ptr() as usize;
        check_range("pCountBuffer", count, 4)?;
        check_range(
            "pLaunchArgumentsBuffer",
            counts,
            std::mem::size_of_val(p_launch_arguments_buffer),
        )?;
        let launches = ph_kernels
            .iter()
            .map(|k| super::kernel::kernel_core(*k)?.launch(F, [0; 3]))
            .collect::<ZeResult<Vec<_>>>()?;
        let cmd = Cmd {
            waits: events(ph_wait_events)?,
            op: Op::LaunchMultiple {
                launches,
                count,
                counts,
            },
            signal: event(h_signal_event)?,
        };
        self.append(F, h_command_list, cmd)
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
        self.append_launch(
            "zeCommandListAppendLaunchKernelIndirect",
            h_command_list,
            h_kernel,
            p_launch_arguments_buffer,
            true,
            h_signal_event,
            ph_wait_events,
        )
    }

    fn ze_command_list_create(
        &self,
        h_context: Handle<kinds::Context>,
        h_device: Handle<kinds::Device>,
        desc: &ze_command_list_desc_t,
        ph_command_list: &mut Option<Handle<kinds::CommandList>>,
    ) -> ZeResult<()> {
        Self::context_id(h_context)?;
        self.check_device(h_device)?;
        self.queue_group(desc.commandQueueGroupOrdinal, None)?;
        *ph_command_list = Some(Handle::new(ListObj {
            context: h_context,
            device: h_device,
            ordinal: desc.commandQueueGroupOrdinal,
            immediate: None,
            state: Mutex::new(ListState::default()),
        }));
        Ok(())
    }

    fn ze_command_list_create_immediate(
        &self,
        h_context: Handle<kinds::Context>,
        h_device: Handle<kinds::Device>,
        altdesc: &ze_command_queue_desc_t,
        ph_command_list: &mut Option<Handle<kinds::CommandList>>,
    ) -> ZeResult<()> {
        Self::context_id(h_context)?;
        self.check_device(h_device)?;
        self.queue_group(altdesc.ordinal, Some(altdesc.index))?;
        *ph_command_list = Some(Handle::new(ListObj {
            context: h_context,
            device: h_device,
            ordinal: altdesc.ordinal,
            immediate: Some(ImmediateQueue {
                id: next_id(),
                index: altdesc.index,
                mode: altdesc.mode,
            }),
            state: Mutex::new(ListState::default()),
        }));
        Ok(())
    }

    /// The generated layer releases the handle on success; an immediate list's pending work
    /// is dropped with the object (`ListObj`'s `Drop`).
    fn ze_command_list_destroy(&self, h: Handle<kinds::CommandList>) -> ZeResult<()> {
        h.get::<ListObj>().map(|_| ())
    }

    fn ze_command_list_close(&self, h: Handle<kinds::CommandList>) -> ZeResult<()> {
        let l = h.get::<ListObj>()?;
        if l.immediate.is_some() {
            // Nothing to close: immediate lists run what is appended.
            return Ok(());
        }
        let mut st = lock(&l.state);
        if !st.closed {
            let cmds = std::mem::take(&mut st.cmds);
            st.frozen = Some(Arc::from(cmds));
            st.closed = true;
        }
        Ok(())
    }

    fn ze_command_list_reset(&self, h: Handle<kinds::CommandList>) -> ZeResult<()> {
        let l = h.get::<ListObj>()?;
        let mut st = lock(&l.state);
        st.cmds.clear();
        st.frozen = None;
        st.closed = false;
        Ok(())
    }

    fn ze_command_list_host_synchronize(
        &self,
        h: Handle<kinds::CommandList>,
        timeout: u64,
    ) -> ZeResult<()> {
        let l = h.get::<ListObj>()?;
        let Some(imm) = &l.immediate else {
            return Err(fail(
                ZeError::INVALID_ARGUMENT,
                "not an immediate command list",
            ));
        };
        let id = imm.id;
        engine().wait("zeCommandListHostSynchronize", timeout, |s| s.idle(id))
    }

    fn ze_command_list_get_device_handle(
        &self,
        h: Handle<kinds::CommandList>,
        ph_device: &mut Option<Handle<kinds::Device>>,
    ) -> ZeResult<()> {
        *ph_device = Some(h.get::<ListObj>()?.device);
        Ok(())
    }

    fn ze_command_list_get_context_handle(
        &self,
        h: Handle<kinds::CommandList>,
        ph_context: &mut Option<Handle<kinds::Context>>,
    ) -> ZeResult<()> {
        *ph_context = Some(h.get::<ListObj>()?.context);
        Ok(())
    }

    fn ze_command_list_get_ordinal(
        &self,
        h: Handle<kinds::CommandList>,
        p_ordinal: &mut u32,
    ) -> ZeResult<()> {
        *p_ordinal = h.get::<ListObj>()?.ordinal;
        Ok(())
    }

    fn ze_command_list_immediate_get_index(
        &self,
        h: Handle<kinds::CommandList>,
        p_index: &mut u32,
    ) -> ZeResult<()> {
        match &h.get::<ListObj>()?.immediate {
            Some(i) => {
                *p_index = i.index;
                Ok(())
            }
            None => Err(fail(
                ZeError::INVALID_ARGUMENT,
                "not an immediate command list",
            )),
        }
    }

    fn ze_command_list_is_immediate(
        &self,
        h: Handle<kinds::CommandList>,
        p_is_immediate: &mut ze_bool_t,
    ) -> ZeResult<()> {
        *p_is_immediate = ze_bool_t::from(h.get::<ListObj>()?.immediate.is_some());
        Ok(())
    }

    fn ze_command_list_append_barrier(
        &self,
        h: Handle<kinds::CommandList>,
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        let cmd = Cmd {
            waits: events(ph_wait_events)?,
            op: Op::Nop,
            signal: event(h_signal_event)?,
        };
        self.append("zeCommandListAppendBarrier", h, cmd)
    }

    fn ze_command_list_append_memory_ranges_barrier(
        &self,
        h: Handle<kinds::CommandList>,
        _num_ranges: u32,
        _p_range_sizes: &[usize],
        _p_ranges: &[*const c_void],
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        let cmd = Cmd {
            waits: events(ph_wait_events)?,
            op: Op::Nop,
            signal: event(h_signal_event)?,
        };
        self.append("zeCommandListAppendMemoryRangesBarrier", h, cmd)
    }

    fn ze_command_list_append_memory_copy(
        &self,
        h: Handle<kinds::CommandList>,
        dstptr: *mut c_void,
        srcptr: *const c_void,
        size: usize,
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        self.append_copy(
            "zeCommandListAppendMemoryCopy",
            h,
            dstptr,
            srcptr,
            size,
            h_signal_event,
            ph_wait_events,
        )
    }

    fn ze_command_list_append_memory_copy_with_parameters(
        &self,
        h: Handle<kinds::CommandList>,
        dstptr: *mut c_void,
        srcptr: *const c_void,
        size: usize,
        _p_next: *const c_void,
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        self.append_copy(
            "zeCommandListAppendMemoryCopyWithParameters",
            h,
            dstptr,
            srcptr,
            size,
            h_signal_event,
            ph_wait_events,
        )
    }

    fn ze_command_list_append_memory_fill(
        &self,
        h: Handle<kinds::CommandList>,
        ptr: *mut c_void,
        pattern: *const c_void,
        pattern_size: usize,
        size: usize,
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        self.append_fill(
            "zeCommandListAppendMemoryFill",
            h,
            ptr,
            pattern,
            pattern_size,
            size,
            h_signal_event,
            ph_wait_events,
        )
    }

    fn ze_command_list_append_memory_fill_with_parameters(
        &self,
        h: Handle<kinds::CommandList>,
        ptr: *mut c_void,
        pattern: *const c_void,
        pattern_size: usize,
        size: usize,
        _p_next: *const c_void,
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        self.append_fill(
            "zeCommandListAppendMemoryFillWithParameters",
            h,
            ptr,
            pattern,
            pattern_size,
            size,
            h_signal_event,
            ph_wait_events,
        )
    }

    fn ze_command_list_append_memory_copy_region(
        &self,
        h: Handle<kinds::CommandList>,
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
        let (d, s) = (dst_region, src_region);
        if (d.width, d.height, d.depth) != (s.width, s.height, s.depth) {
            return Err(fail(
                ZeError::INVALID_ARGUMENT,
                format_args!(
                    "the regions differ in size ({}x{}x{} vs {}x{}x{})",
                    d.width, d.height, d.depth, s.width, s.height, s.depth
                ),
            ));
        }
        // Byte extent of a region: [first byte, one past the last byte).
        let extent =
            |base: usize, r: &ze_copy_region_t, pitch: u32, slice: u32| -> Option<(usize, usize)> {
                let (pitch, slice) = (pitch as usize, slice as usize);
                let start = base
                    .checked_add(r.originZ as usize * slice)?
                    .checked_add(r.originY as usize * pitch)?
                    .checked_add(r.originX as usize)?;
                if r.width == 0 || r.height == 0 || r.depth == 0 {
                    return Some((start, start));
                }
                let last = start
                    .checked_add((r.depth as usize - 1) * slice)?
                    .checked_add((r.height as usize - 1) * pitch)?
                    .checked_add(r.width as usize)?;
                Some((start, last))
            };
        let too_big = || {
            fail(
                ZeError::INVALID_SIZE,
                "a region's extent overflows the address space",
            )
        };
        let (ds, de) =
            extent(dstptr as usize, d, dst_pitch, dst_slice_pitch).ok_or_else(too_big)?;
        let (ss, se) =
            extent(srcptr as usize, s, src_pitch, src_slice_pitch).ok_or_else(too_big)?;
        check_range("dstptr region", ds, de - ds)?;
        check_range("srcptr region", ss, se - ss)?;
        if ds < se && ss < de {
            return Err(fail(
                ZeError::of(ZE_RESULT_ERROR_OVERLAPPING_REGIONS),
                "the source and destination regions overlap",
            ));
        }
        let cmd = Cmd {
            waits: events(ph_wait_events)?,
            op: Op::CopyRegion(Box::new(Region {
                dst: ds,
                dst_pitch: dst_pitch as usize,
                dst_slice_pitch: dst_slice_pitch as usize,
                src: ss,
                src_pitch: src_pitch as usize,
                src_slice_pitch: src_slice_pitch as usize,
                width: d.width as usize,
                height: d.height as usize,
                depth: d.depth as usize,
                _keep: Vec::new(),
            })),
            signal: event(h_signal_event)?,
        };
        self.append("zeCommandListAppendMemoryCopyRegion", h, cmd)
    }

    fn ze_command_list_append_image_copy(
        &self,
        h: Handle<kinds::CommandList>,
        h_dst_image: Handle<kinds::Image>,
        h_src_image: Handle<kinds::Image>,
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        let op = image::image_to_image(h_dst_image, None, h_src_image, None);
        self.append_op(
            "zeCommandListAppendImageCopy",
            h,
            op,
            h_signal_event,
            ph_wait_events,
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn ze_command_list_append_image_copy_region(
        &self,
        h: Handle<kinds::CommandList>,
        h_dst_image: Handle<kinds::Image>,
        h_src_image: Handle<kinds::Image>,
        p_dst_region: Option<&ze_image_region_t>,
        p_src_region: Option<&ze_image_region_t>,
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        let op = image::image_to_image(h_dst_image, p_dst_region, h_src_image, p_src_region);
        let f = "zeCommandListAppendImageCopyRegion";
        self.append_op(f, h, op, h_signal_event, ph_wait_events)
    }

    fn ze_command_list_append_image_copy_to_memory(
        &self,
        h: Handle<kinds::CommandList>,
        dstptr: *mut c_void,
        h_src_image: Handle<kinds::Image>,
        p_src_region: Option<&ze_image_region_t>,
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        let op = image::to_memory(h_src_image, p_src_region, dstptr);
        let f = "zeCommandListAppendImageCopyToMemory";
        self.append_op(f, h, op, h_signal_event, ph_wait_events)
    }

    fn ze_command_list_append_image_copy_from_memory(
        &self,
        h: Handle<kinds::CommandList>,
        h_dst_image: Handle<kinds::Image>,
        srcptr: *const c_void,
        p_dst_region: Option<&ze_image_region_t>,
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        let op = image::from_memory(h_dst_image, p_dst_region, srcptr);
        let f = "zeCommandListAppendImageCopyFromMemory";
        self.append_op(f, h, op, h_signal_event, ph_wait_events)
    }

    fn ze_command_list_append_write_global_timestamp(
        &self,
        h: Handle<kinds::CommandList>,
        dstptr: &mut u64,
        h_signal_event: Option<Handle<kinds::Event>>,
        _num_wait_events: u32,
        ph_wait_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        let dst = dstptr as *mut u64 as usize;
        check_range("dstptr", dst, 8)?;
        let cmd = Cmd {
            waits: events(ph_wait_events)?,
            op: Op::Timestamp { dst },
            signal: event(h_signal_event)?,
        };
        self.append("zeCommandListAppendWriteGlobalTimestamp", h, cmd)
    }

    fn ze_command_list_append_signal_event(
        &self,
        h: Handle<kinds::CommandList>,
        h_event: Handle<kinds::Event>,
    ) -> ZeResult<()> {
        let e = h_event.get::<EventObj>()?.state.clone();
        let cmd = Cmd {
            waits: Box::new([]),
            op: Op::Signal(e),
            signal: None,
        };
        self.append("zeCommandListAppendSignalEvent", h, cmd)
    }

    fn ze_command_list_append_wait_on_events(
        &self,
        h: Handle<kinds::CommandList>,
        _num_events: u32,
        ph_events: &[Handle<kinds::Event>],
    ) -> ZeResult<()> {
        let cmd = Cmd {
            waits: events(ph_events)?,
            op: Op::Nop,
            signal: None,
        };
        self.append("zeCommandListAppendWaitOnEvents", h, cmd)
    }

    fn ze_command_list_append_event_reset(
        &self,
        h: Handle<kinds::CommandList>,
        h_event: Handle<kinds::Event>,
    ) -> ZeResult<()> {
        let e = h_event.get::<EventObj>()?.state.clone();
        let cmd = Cmd {
            waits: Box::new([]),
            op: Op::Reset(e),
            signal: None,
        };
        self.append("zeCommandListAppendEventReset", h, cmd)
    }
}
