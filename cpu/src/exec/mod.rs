//! The executor: runs what command queues and immediate command lists are given.
//!
//! - Each command queue and each immediate command list has an [`Engine`]: its submissions run
//!   asynchronously and in order on a thread of its own (synchronous ones on the submitting
//!   thread). A command that waits for an event parks only its engine's thread, so dependencies
//!   between queues, lists and the host are plain event waits.
//! - Host waits (queue, list, event, fence synchronize) spin for at most [`wait::SPIN`], then
//!   park on a `Mutex` + `Condvar` ([`wait::Waiter`]); timeouts follow Level Zero
//!   ([`wait::Timeout`]).
//! - One [`WorkerPool`] per driver, sized to the device's cores, runs the parallel part of
//!   commands: copies and fills of [`memory::PARALLEL_MIN`] bytes or more are split over it,
//!   and the work-groups of kernel launches ([`launch`]).
//! - A kernel or copy that faults ends its command with `DEVICE_LOST` ([`fault`]), not the
//!   process.
//!
//! Nothing here checks the application's input: [`crate::model`] decides what is valid and
//! builds the [`Command`]s.

pub mod command;
pub mod engine;
pub mod event;
pub mod fault;
pub mod launch;
pub mod memory;
pub mod pool;
pub mod semaphore;
pub mod ipc_events;
pub mod wait;

pub use command::{Command, HostFunction, ListBody, Op, Work};
pub use engine::{synchronize_device, Blocked, Drain, Engine, Helper, Mode};
pub use event::EventState;
pub use launch::{Groups, Launch, LaunchMany};
pub use pool::WorkerPool;
pub use semaphore::ExternalSemaphore;
pub use wait::{Flag, Timeout};

/// Called first on every thread the driver starts. The thread-local value it touches has a
/// destructor, which makes glibc keep the driver's shared library mapped while the thread
/// lives (`__cxa_thread_atexit_impl` holds a reference), so a loader that unloads the driver at
/// exit cannot pull the code from under a parked thread. It also gives the thread an alternate
/// signal stack for the fault handler (`fault::prepare_thread`).
pub(crate) fn pin_library() {
    fault::prepare_thread();
    struct Pin;
    impl Drop for Pin {
        fn drop(&mut self) {}
    }
    thread_local! {
        static PIN: Pin = const { Pin };
    }
    PIN.with(|_| {});
}
