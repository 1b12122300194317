//! EventApi: Events from pools and counter-based events (see `crate::model::event`).

use super::*;

/// `ze_kernel_timestamp_result_t` of a command that ran from `start` to `end`: the device has
/// one clock, so global and context timestamps are the same ticks.
fn kernel_timestamp((start, end): (u64, u64)) -> ze_kernel_timestamp_result_t {
    let data = ze_kernel_timestamp_data_t {
        kernelStart: start,
        kernelEnd: end,
    };
    ze_kernel_timestamp_result_t {
        global: data,
        context: data,
    }
}

#[zekit_icd::implement]
impl EventApi for CpuDriver {
    fn ze_event_create(
        &self,
        h_event_pool: Handle<kinds::EventPool>,
        desc: &ze_event_desc_t,
        ph_event: &mut Option<Handle<kinds::Event>>,
    ) -> ZeResult<()> {
        let pool = event_pool(h_event_pool)?;
        *ph_event = Some(Handle::new(EventObject::from_pool(pool, h_event_pool, desc)?));
        Ok(())
    }

    fn ze_event_counter_based_create(
        &self,
        h_context: Handle<kinds::Context>,
        h_device: Handle<kinds::Device>,
        desc: &ze_event_counter_based_desc_t,
        ph_event: &mut Option<Handle<kinds::Event>>,
    ) -> ZeResult<()> {
        context(h_context)?;
        ordinal(h_device)?;
        *ph_event = Some(Handle::new(EventObject::counter_based(desc)?));
        Ok(())
    }

    fn ze_event_counter_based_get_ipc_handle(
        &self,
        h_event: Handle<kinds::Event>,
        ph_ipc: &mut ze_ipc_event_counter_based_handle_t,
    ) -> ZeResult<()> {
        *ph_ipc = event(h_event)?.counter_ipc_handle()?;
        Ok(())
    }

    fn ze_event_counter_based_open_ipc_handle(
        &self,
        h_context: Handle<kinds::Context>,
        h_ipc: ze_ipc_event_counter_based_handle_t,
        ph_event: &mut Option<Handle<kinds::Event>>,
    ) -> ZeResult<()> {
        context(h_context)?;
        *ph_event = Some(Handle::new(EventObject::counter_open_ipc(&h_ipc)?));
        Ok(())
    }

    fn ze_event_counter_based_close_ipc_handle(&self, h_event: Handle<kinds::Event>) -> ZeResult<()> {
        // `[release]`: the entry layer takes the handle out once this returns Ok.
        event(h_event)?.counter_close_ipc()
    }

    fn ze_event_destroy(&self, h_event: Handle<kinds::Event>) -> ZeResult<()> {
        // `[release]`: the entry layer takes the handle out once this returns Ok.
        event(h_event)?.destroy()
    }

    fn ze_event_host_signal(&self, h_event: Handle<kinds::Event>) -> ZeResult<()> {
        event(h_event)?.host_signal()
    }

    fn ze_event_host_synchronize(&self, h_event: Handle<kinds::Event>, timeout: u64) -> ZeResult<()> {
        event(h_event)?.host_synchronize(timeout)
    }

    fn ze_event_query_status(&self, h_event: Handle<kinds::Event>) -> ZeResult<()> {
        event(h_event)?.query_status()
    }

    fn ze_event_host_reset(&self, h_event: Handle<kinds::Event>) -> ZeResult<()> {
        event(h_event)?.host_reset()
    }

    fn ze_event_query_kernel_timestamp(
        &self,
        h_event: Handle<kinds::Event>,
        dstptr: &mut ze_kernel_timestamp_result_t,
    ) -> ZeResult<()> {
        *dstptr = kernel_timestamp(event(h_event)?.kernel_timestamp()?);
        Ok(())
    }

    fn ze_event_query_kernel_timestamps_ext(
        &self,
        h_event: Handle<kinds::Event>,
        h_device: Handle<kinds::Device>,
        p_count: &mut u32,
        p_results: Option<&mut ze_event_query_kernel_timestamps_results_ext_properties_t>,
    ) -> ZeResult<()> {
        ordinal(h_device)?;
        let e = event(h_event)?;
        // One result per event (no sub-devices). `pResults` is one structure whose buffers hold
        // `*pCount` results.
        match p_results {
            Some(r) if *p_count > 0 => {
                let ts = e.kernel_timestamp()?;
                let result = kernel_timestamp(ts);
                if !r.pKernelTimestampsBuffer.is_null() {
                    // SAFETY: the application's buffer of `*pCount` (≥ 1) results.
                    unsafe { *r.pKernelTimestampsBuffer = result };
                }
                if !r.pSynchronizedTimestampsBuffer.is_null() {
                    // The device clock is the host clock: the synchronized timestamps are the
                    // same nanoseconds.
                    let data = ze_synchronized_timestamp_data_ext_t {
                        kernelStart: ts.0,
                        kernelEnd: ts.1,
                    };
                    // SAFETY: as above.
                    unsafe {
                        *r.pSynchronizedTimestampsBuffer = ze_synchronized_timestamp_result_ext_t {
                            global: data,
                            context: data,
                        }
                    };
                }
                *p_count = 1;
            }
            _ => *p_count = 1,
        }
        Ok(())
    }

    fn ze_event_query_timestamps_exp(
        &self,
        h_event: Handle<kinds::Event>,
        h_device: Handle<kinds::Device>,
        p_count: &mut u32,
        p_timestamps: Option<&mut [ze_kernel_timestamp_result_t]>,
    ) -> ZeResult<()> {
        ordinal(h_device)?;
        let e = event(h_event)?;
        match p_timestamps {
            Some(out) if *p_count > 0 => {
                let ts = kernel_timestamp(e.kernel_timestamp()?);
                props::fill_counted(&[ts], p_count, Some(out), |t, o| *o = *t);
            }
            _ => *p_count = 1,
        }
        Ok(())
    }

    fn ze_event_get_event_pool(
        &self,
        h_event: Handle<kinds::Event>,
        ph_event_pool: &mut Option<Handle<kinds::EventPool>>,
    ) -> ZeResult<()> {
        *ph_event_pool = event(h_event)?.pool();
        Ok(())
    }

    fn ze_event_get_signal_scope(
        &self,
        h_event: Handle<kinds::Event>,
        p_signal_scope: &mut ze_event_scope_flags_t,
    ) -> ZeResult<()> {
        *p_signal_scope = event(h_event)?.signal_scope();
        Ok(())
    }

    fn ze_event_get_wait_scope(
        &self,
        h_event: Handle<kinds::Event>,
        p_wait_scope: &mut ze_event_scope_flags_t,
    ) -> ZeResult<()> {
        *p_wait_scope = event(h_event)?.wait_scope();
        Ok(())
    }

    fn ze_event_get_counter_based_flags(
        &self,
        h_event: Handle<kinds::Event>,
        p_flags: &mut ze_event_counter_based_flags_t,
    ) -> ZeResult<()> {
        *p_flags = event(h_event)?.counter_based_flags();
        Ok(())
    }
}
