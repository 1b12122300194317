//! `EventApi`: events signaled by the host or by executed commands; host waits honour the
//! wait limit; kernel timestamps (commands take no time: start = end = the signal time).

use std::sync::atomic::Ordering;
use std::sync::Arc;

use zekit_icd::{kinds, EventApi, Handle, ZeError, ZeResult};
use zekit_icd_rt::fail;
use zekit_sys::*;

use super::{not_ready, MockDriver};
use crate::objects::{engine, EventObj, EventState, PoolObj};

#[zekit_icd::implement]
impl EventApi for MockDriver {
    fn ze_event_create(
        &self,
        h_pool: Handle<kinds::EventPool>,
        desc: &ze_event_desc_t,
        ph_event: &mut Option<Handle<kinds::Event>>,
    ) -> ZeResult<()> {
        let pool = h_pool.get::<PoolObj>()?;
        if desc.index >= pool.shared.count {
            return Err(fail(
                ZeError::INVALID_ARGUMENT,
                format_args!(
                    "index {} is out of range (the pool has {} events)",
                    desc.index, pool.shared.count
                ),
            ));
        }
        // Counted down when the event object drops (`EventObj`'s `Drop`).
        pool.shared.live.fetch_add(1, Ordering::AcqRel);
        *ph_event = Some(Handle::new(EventObj {
            pool: h_pool,
            pool_shared: pool.shared.clone(),
            state: Arc::new(EventState::default()),
            signal_scope: desc.signal,
            wait_scope: desc.wait,
        }));
        Ok(())
    }

    /// The generated layer releases the handle on success; the pool stops counting the event
    /// when the object drops.
    fn ze_event_destroy(&self, h: Handle<kinds::Event>) -> ZeResult<()> {
        h.get::<EventObj>().map(|_| ())
    }

    fn ze_event_host_signal(&self, h: Handle<kinds::Event>) -> ZeResult<()> {
        // Err when a kernel callback of the work the event released panicked.
        engine().signal_event(&h.get::<EventObj>()?.state)
    }

    fn ze_event_host_synchronize(&self, h: Handle<kinds::Event>, timeout: u64) -> ZeResult<()> {
        let e = h.get::<EventObj>()?.state.clone();
        engine().wait("zeEventHostSynchronize", timeout, |_| e.is_signaled())
    }

    fn ze_event_query_status(&self, h: Handle<kinds::Event>) -> ZeResult<()> {
        if h.get::<EventObj>()?.state.is_signaled() {
            Ok(())
        } else {
            Err(not_ready())
        }
    }

    fn ze_event_host_reset(&self, h: Handle<kinds::Event>) -> ZeResult<()> {
        engine().reset_event(&h.get::<EventObj>()?.state);
        Ok(())
    }

    fn ze_event_query_kernel_timestamp(
        &self,
        h: Handle<kinds::Event>,
        dstptr: &mut ze_kernel_timestamp_result_t,
    ) -> ZeResult<()> {
        let ev = h.get::<EventObj>()?;
        if !ev.state.is_signaled() {
            return Err(not_ready());
        }
        // Commands take no time on the mock: start = end = when the event was signaled.
        let t = ev.state.timestamp();
        let data = ze_kernel_timestamp_data_t {
            kernelStart: t,
            kernelEnd: t,
        };
        dstptr.global = data;
        dstptr.context = data;
        Ok(())
    }

    fn ze_event_get_event_pool(
        &self,
        h: Handle<kinds::Event>,
        ph_event_pool: &mut Option<Handle<kinds::EventPool>>,
    ) -> ZeResult<()> {
        *ph_event_pool = Some(h.get::<EventObj>()?.pool);
        Ok(())
    }

    fn ze_event_get_signal_scope(
        &self,
        h: Handle<kinds::Event>,
        p_signal_scope: &mut ze_event_scope_flags_t,
    ) -> ZeResult<()> {
        *p_signal_scope = h.get::<EventObj>()?.signal_scope;
        Ok(())
    }

    fn ze_event_get_wait_scope(
        &self,
        h: Handle<kinds::Event>,
        p_wait_scope: &mut ze_event_scope_flags_t,
    ) -> ZeResult<()> {
        *p_wait_scope = h.get::<EventObj>()?.wait_scope;
        Ok(())
    }
}
