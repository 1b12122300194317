//! What the execution tests share (`exec.rs`, `exec_sync.rs`): queue modes, the three ways a
//! command gets to the device, and a device with a queue and both kinds of immediate list.

use super::*;

pub const ASYNC: ze_command_queue_mode_t = ze_command_queue_mode_t::ASYNCHRONOUS;

pub const SYNC: ze_command_queue_mode_t = ze_command_queue_mode_t::SYNCHRONOUS;

pub const DEFAULT: ze_command_queue_mode_t = ze_command_queue_mode_t::DEFAULT;

/// How a command gets to the device.
#[derive(Clone, Copy, Debug)]
pub enum Via {
    /// A regular list executed on a queue, waited for with a fence.
    Queue,
    /// A synchronous immediate list.
    ImmediateSync,
    /// An asynchronous immediate list, then `zeCommandListHostSynchronize`.
    ImmediateAsync,
}

pub const VIAS: [Via; 3] = [Via::Queue, Via::ImmediateSync, Via::ImmediateAsync];

pub struct Device {
    pub z: Ze,
    pub q: ze_command_queue_handle_t,
    pub sync: ze_command_list_handle_t,
    pub asynchronous: ze_command_list_handle_t,
}

impl Device {
    pub fn new() -> Device {
        let z = Ze::new();
        let q = z.queue(0, DEFAULT);
        let sync = z.immediate(0, SYNC);
        let asynchronous = z.immediate(1, ASYNC);
        Device {
            z,
            q,
            sync,
            asynchronous,
        }
    }

    /// Runs what `append` appends to a list, via `via`, and waits for it.
    pub fn submit(&self, via: Via, append: impl FnOnce(ze_command_list_handle_t)) {
        match via {
            Via::Queue => {
                let l = self.z.list(0);
                append(l);
                run(&self.z, self.q, l);
                ok!(ze::zeCommandListDestroy(l));
            }
            Via::ImmediateSync => append(self.sync),
            Via::ImmediateAsync => {
                append(self.asynchronous);
                ok!(ze::zeCommandListHostSynchronize(self.asynchronous, FOREVER));
            }
        }
    }
}

impl Drop for Device {
    fn drop(&mut self) {
        // SAFETY: handles made by `new`.
        unsafe {
            ze::zeCommandListDestroy(self.sync);
            ze::zeCommandListDestroy(self.asynchronous);
            ze::zeCommandQueueDestroy(self.q);
        }
    }
}
