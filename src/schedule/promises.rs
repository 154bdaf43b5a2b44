//! The promises of one env's calls, and the callers' abort signals.
//!
//! Only a call goes to the pool. Its promise stays on the JS thread, here, under the call's
//! id: an answer that comes back settles the promise if it is still here, and an
//! `AbortSignal` that fires first rejects it at once, from its `abort` event, even while the
//! pool is stuck on a hung mount; that call's answer is discarded when it comes.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::ptr;

use napi::bindgen_prelude::ToNapiValue;
use napi::{JsValue, Unknown, sys};

use super::EnvState;
use crate::JsFileVersion;
use crate::call::Reply;
use crate::convert::{error_value, is_aborted};
use crate::js::{self, Deferred, Reference};
use crate::output::{self, Makers};
use agent_read_file_engine::error::{ReadFileError, display_path};

/// `err.code` of the rejection when the caller's `AbortSignal` fires first.
const ABORT_CODE: &str = "ABORT_ERR";

/// The promises of one env's calls that are not settled yet, by call id.
#[derive(Default)]
pub(super) struct Promises {
    /// Borrowed only between calls into JS: settling a promise can run JS (a `then`
    /// getter) that starts another call.
    unsettled: RefCell<HashMap<u64, Unsettled>>,
    last_id: Cell<u64>,
}

/// A promise waiting for its call, and the caller's signal if it gave one.
pub(super) struct Unsettled {
    deferred: Deferred,
    abort: Option<AbortWatch>,
}

/// The caller's `AbortSignal` and the `abort` listener put on it.
struct AbortWatch {
    signal: Reference,
    /// `None` when the signal would not take a listener (a hostile `addEventListener`):
    /// then the signal is only looked at when the answer is ready.
    listener: Option<Reference>,
    path: String,
}

/// How a call ended, before its promise hears of it.
pub(super) enum Outcome {
    Done(Result<Reply, ReadFileError>),
    /// The caller's signal fired first; the requested path, for the message.
    Aborted(String),
}

impl Promises {
    /// Keeps `deferred` under a new call id, watching `signal` (not yet fired) if given.
    pub(super) fn add(
        &self,
        env: sys::napi_env,
        deferred: Deferred,
        signal: Option<&Unknown>,
        path: &str,
    ) -> u64 {
        self.last_id.set(self.last_id.get() + 1);
        let id = self.last_id.get();
        let abort = signal.and_then(|signal| watch(env, signal, id, path));
        let unsettled = Unsettled { deferred, abort };
        self.unsettled.borrow_mut().insert(id, unsettled);
        id
    }

    /// Settles call `id` with `answer`, unless its signal fired first (then its promise is
    /// already rejected).
    pub(super) fn settle(
        &self,
        env: sys::napi_env,
        makers: &Makers,
        id: u64,
        answer: Result<Reply, ReadFileError>,
    ) {
        if let Some(unsettled) = self.take(id) {
            unsettled.settle(env, makers, Outcome::Done(answer));
        }
    }

    /// Whether call `id`'s promise still waits (it does not when its signal fired first).
    pub(super) fn is_unsettled(&self, id: u64) -> bool {
        self.unsettled.borrow().contains_key(&id)
    }

    fn take(&self, id: u64) -> Option<Unsettled> {
        self.unsettled.borrow_mut().remove(&id)
    }
}

/// Puts a listener for `abort` on the caller's signal, for call `id`. `None` when not even
/// a reference to the signal can be had: the call then runs as if it had no signal.
fn watch(env: sys::napi_env, signal: &Unknown, id: u64, path: &str) -> Option<AbortWatch> {
    let signal = signal.raw();
    let listener = (|| {
        let listener = js::function(env, c"onReadFileAbort", on_abort, id as usize)?;
        let add = js::named_property(env, signal, c"addEventListener")?;
        js::call(env, signal, add, &[js::string(env, "abort")?, listener])?;
        Reference::new(env, listener)
    })()
    .ok();
    Some(AbortWatch {
        signal: Reference::new(env, signal).ok()?,
        listener,
        path: path.to_owned(),
    })
}

/// The `abort` listener: rejects call `data`'s promise now, if it is still unsettled.
unsafe extern "C" fn on_abort(env: sys::napi_env, info: sys::napi_callback_info) -> js::Value {
    // SAFETY: Node calls this with the callback info of this call.
    let id = unsafe { js::callback_data(env, info) };
    if let (Ok(id), Ok(state)) = (id, EnvState::of(env))
        && let Some(unsettled) = state.promises.take(id as u64)
    {
        unsettled.settle_aborted(env, &state.makers);
    }
    ptr::null_mut()
}

impl Unsettled {
    /// Settles the promise with `outcome`, or as aborted if the signal has fired by now.
    fn settle(self, env: sys::napi_env, makers: &Makers, outcome: Outcome) {
        let outcome = match self.abort {
            Some(watch) => watch.finish(env).unwrap_or(outcome),
            None => outcome,
        };
        let outcome = match outcome {
            Outcome::Done(Ok(reply)) => Outcome::Done(Ok(reply.delivered())),
            other => other,
        };
        settle(env, makers, self.deferred, outcome);
    }

    /// Rejects the promise as aborted: its signal's `abort` event fired.
    fn settle_aborted(self, env: sys::napi_env, makers: &Makers) {
        let outcome = match self.abort {
            Some(watch) => {
                let path = watch.path.clone();
                watch.finish(env).unwrap_or(Outcome::Aborted(path))
            }
            None => Outcome::Aborted(String::new()),
        };
        settle(env, makers, self.deferred, outcome);
    }
}

impl AbortWatch {
    /// Takes the listener off the signal and lets go of both; `Some(Outcome::Aborted)` when
    /// the signal has fired.
    fn finish(self, env: sys::napi_env) -> Option<Outcome> {
        let signal = self.signal.value(env).ok();
        if let (Some(signal), Some(listener)) = (signal, &self.listener) {
            let _ = (|| {
                let remove = js::named_property(env, signal, c"removeEventListener")?;
                let listener = listener.value(env)?;
                js::call(env, signal, remove, &[js::string(env, "abort")?, listener])
            })();
        }
        let aborted = signal.is_some_and(|signal| {
            // SAFETY: a handle from `Reference::value`, live in the current handle scope.
            let signal = unsafe { Unknown::from_raw_unchecked(env, signal) };
            is_aborted(&signal) == Some(true)
        });
        self.signal.delete(env);
        if let Some(listener) = self.listener {
            listener.delete(env);
        }
        aborted.then_some(Outcome::Aborted(self.path))
    }
}

/// The JS value of a call's reply.
fn reply_value(env: sys::napi_env, makers: &Makers, reply: Reply) -> napi::Result<js::Value> {
    match reply {
        Reply::Output(output, _) => output::output_value(env, makers, output),
        Reply::Version(version) => {
            let version = JsFileVersion::from(version);
            // SAFETY: on the JS thread of `env`, inside a call from Node.
            unsafe { JsFileVersion::to_napi_value(env, version) }
        }
        Reply::Many(results, _) => output::results_value(env, makers, results),
    }
}

/// Resolves or rejects `deferred` with `outcome`. Settles exactly once, whatever JS does
/// meanwhile.
pub(super) fn settle(env: sys::napi_env, makers: &Makers, deferred: Deferred, outcome: Outcome) {
    let settled = match outcome {
        Outcome::Done(Ok(reply)) => reply_value(env, makers, reply).map_err(|error| {
            let message = format!("INTERNAL: the result could not be built ({})", error.reason);
            error_value(env, "INTERNAL", &message, None)
        }),
        Outcome::Done(Err(error)) => Err(error_value(
            env,
            error.code.as_str(),
            &error.to_string(),
            None,
        )),
        Outcome::Aborted(path) => {
            let shown = display_path(&path);
            let message = format!("{ABORT_CODE}: {shown}: the read was aborted");
            Err(error_value(env, ABORT_CODE, &message, Some("AbortError")))
        }
    };
    deferred.settle(env, settled);
}
