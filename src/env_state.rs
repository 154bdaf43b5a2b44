//! What the binding keeps between calls, per env. An env is one module instance on one JS
//! thread: the main thread, each worker, and each extra load of the addon on a thread have
//! their own, and an env can be torn down and a new one made on the same thread (a worker
//! pool recycling workers, an Electron renderer reload). So this state lives in the env's
//! Node-API instance data, dropped with the env, never in thread-locals or statics.

use std::cell::OnceCell;

use napi::sys;

use crate::batch::Calls;
use crate::inline::InlineQueue;
use crate::js;

/// The binding's state for one env.
#[derive(Default)]
pub struct EnvState {
    /// `readFile` calls of this env: waiting, running, and their unsettled promises.
    pub calls: Calls,
    /// The compiled function that builds result objects (see `output.rs`).
    pub output_maker: OnceCell<js::Reference>,
    /// The compiled function that builds `readFiles` result arrays (see `output.rs`).
    pub results_maker: OnceCell<js::Reference>,
    /// `readFile` calls for the JS thread to answer (see `inline.rs`).
    pub inline: InlineQueue,
}

impl EnvState {
    /// This env's state, created on first use.
    pub fn of(env: sys::napi_env) -> napi::Result<&'static EnvState> {
        // SAFETY: this is the only place the binding uses the instance-data slot, always
        // with `EnvState`.
        unsafe { js::instance_data(env, EnvState::default) }
    }
}
