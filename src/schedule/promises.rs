//! The promises of one env's calls, and the callers' abort signals.
//!
//! Only a call goes to the pool. Its promise stays on the JS thread, here, under the call's
//! id: an answer that comes back settles the promise if it is still here, and an
//! `AbortSignal` that fires first rejects it at once, from its `abort` event, even while the
//! pool is stuck on a hung mount; that call's answer is discarded when it comes. A call
//! answered on the JS thread, before the event loop turns, needs no `abort` listener: its
//! signal is looked at before it is read and when it is settled, so the listener is put on
//! only when the call leaves for the pool (adding and removing one cost a quarter of a small
//! read).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use napi::bindgen_prelude::{
    FnArgs, FromNapiValue, Function, JsObjectValue, Null, Object, ObjectRef, ToNapiValue,
};
use napi::{Env, JsValue, Unknown};

use super::EnvState;
use crate::JsFileVersion;
use crate::call::Reply;
use crate::convert::{error_value, is_aborted};
use crate::js::{self, Deferred};
use crate::output::{self, Literals, literal};
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
    signal: ObjectRef<false>,
    /// Set when the signal fires: the call's read stops at its next chunk.
    stop: Arc<AtomicBool>,
    /// The listener, once the call went to the pool. `None` before, or when the signal would
    /// not take one (a hostile `addEventListener`): then the signal is only looked at when
    /// the answer is ready.
    listener: Option<ObjectRef<false>>,
    path: String,
}

/// `addEventListener` and `removeEventListener`, called as `(type, listener)`.
type ListenerMethod<'env> = Function<'env, FnArgs<(&'static str, Object<'env>)>, Unknown<'env>>;

/// How a call ended, before its promise hears of it.
// Made once a call and settled at once: boxing the reply would cost an allocation a call.
#[allow(clippy::large_enum_variant)]
pub(super) enum Outcome {
    Done(Result<Reply, ReadFileError>),
    /// The caller's signal fired first; the requested path, for the message.
    Aborted(String),
}

impl Promises {
    /// Keeps `deferred` under a new call id, with `signal` (not yet fired) if given, whose
    /// firing sets the stop flag.
    pub(super) fn add(
        &self,
        env: &Env,
        deferred: Deferred,
        signal: Option<(&Unknown, Arc<AtomicBool>)>,
        path: &str,
    ) -> u64 {
        self.last_id.set(self.last_id.get() + 1);
        let id = self.last_id.get();
        let abort = signal.and_then(|(signal, stop)| keep(env, signal, stop, path));
        let unsettled = Unsettled { deferred, abort };
        self.unsettled.borrow_mut().insert(id, unsettled);
        id
    }

    /// Call `id` leaves for the pool: its signal gets an `abort` listener that rejects its
    /// promise at once. A signal that fired meanwhile rejects it now.
    pub(super) fn watch_on_pool(&self, env: &Env, literals: &Literals, id: u64) {
        let signal = match self.unsettled.borrow_mut().get_mut(&id) {
            Some(Unsettled {
                abort: Some(watch), ..
            }) if watch.listener.is_none() => watch.signal.get_value(env).ok(),
            _ => None,
        };
        // Adding a listener runs JS (the signal's own `addEventListener`): nothing is
        // borrowed meanwhile.
        let Some(signal) = signal else { return };
        let listener = js::cleared(env, add_listener(env, &signal, id)).ok();
        if let Some(Unsettled {
            abort: Some(watch), ..
        }) = self.unsettled.borrow_mut().get_mut(&id)
        {
            watch.listener = listener;
        }
        self.settle_if_aborted(env, literals, id);
    }

    /// Rejects call `id`'s promise as aborted if its signal has fired; whether it had.
    pub(super) fn settle_if_aborted(&self, env: &Env, literals: &Literals, id: u64) -> bool {
        let fired = match self.unsettled.borrow().get(&id) {
            Some(Unsettled {
                abort: Some(watch), ..
            }) => watch.signal.get_value(env).ok(),
            _ => None,
        }
        .is_some_and(|signal| is_aborted(&signal.to_unknown()) == Some(true));
        if fired && let Some(unsettled) = self.take(id) {
            unsettled.settle_aborted(env, literals);
        }
        fired
    }

    /// Settles call `id` with `answer`, unless its signal fired first (then its promise is
    /// already rejected).
    pub(super) fn settle(
        &self,
        env: &Env,
        literals: &Literals,
        id: u64,
        answer: Result<Reply, ReadFileError>,
    ) {
        if let Some(unsettled) = self.take(id) {
            unsettled.settle(env, literals, Outcome::Done(answer));
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

/// Keeps the caller's signal for the call. `None` when not even a reference to it can be
/// had: the call then runs as if it had no signal.
fn keep(env: &Env, signal: &Unknown, stop: Arc<AtomicBool>, path: &str) -> Option<AbortWatch> {
    let signal = js::cleared(env, Object::from_unknown(*signal)).ok()?;
    Some(AbortWatch {
        signal: signal.create_ref().ok()?,
        stop,
        listener: None,
        path: path.to_owned(),
    })
}

/// A listener for `abort` that rejects call `id`'s promise, put on `signal` with its own
/// `addEventListener` (never by setting `onabort`, which is the caller's).
fn add_listener(env: &Env, signal: &Object, id: u64) -> napi::Result<ObjectRef<false>> {
    let listener: Function<(), ()> =
        env.create_function_from_closure("onReadFileAbort", move |call| {
            on_abort(call.env, id);
            Ok(())
        })?;
    let listener = Object::from_unknown(listener.to_unknown())?;
    let add: ListenerMethod = signal.get_named_property("addEventListener")?;
    add.apply(signal, ("abort", listener).into())?;
    listener.create_ref()
}

/// The `abort` listener: rejects call `id`'s promise now, if it is still unsettled.
fn on_abort(env: &Env, id: u64) {
    if let Ok(state) = EnvState::of(env)
        && let Some(unsettled) = state.promises.take(id)
    {
        unsettled.settle_aborted(env, &state.literals);
    }
}

impl Unsettled {
    /// Settles the promise with `outcome`, or as aborted if the signal has fired by now.
    fn settle(self, env: &Env, literals: &Literals, outcome: Outcome) {
        let outcome = match self.abort {
            Some(watch) => watch.finish(env).unwrap_or(outcome),
            None => outcome,
        };
        let outcome = match outcome {
            Outcome::Done(Ok(reply)) => Outcome::Done(Ok(reply.delivered())),
            other => other,
        };
        settle(env, literals, self.deferred, outcome);
    }

    /// Rejects the promise as aborted: its signal's `abort` event fired. The call's read,
    /// if it is still running, stops at its next chunk.
    fn settle_aborted(self, env: &Env, literals: &Literals) {
        let outcome = match self.abort {
            Some(watch) => {
                watch.stop.store(true, Ordering::Relaxed);
                let path = watch.path.clone();
                watch.finish(env).unwrap_or(Outcome::Aborted(path))
            }
            None => Outcome::Aborted(String::new()),
        };
        settle(env, literals, self.deferred, outcome);
    }
}

impl AbortWatch {
    /// Takes the listener off the signal and lets go of both; `Some(Outcome::Aborted)` when
    /// the signal has fired.
    fn finish(self, env: &Env) -> Option<Outcome> {
        let signal = self.signal.get_value(env).ok();
        if let (Some(signal), Some(listener)) = (&signal, &self.listener) {
            let removed = (|| {
                let remove: ListenerMethod = signal.get_named_property("removeEventListener")?;
                remove.apply(signal, ("abort", listener.get_value(env)?).into())
            })();
            let _ = js::cleared(env, removed);
        }
        let aborted = signal.is_some_and(|signal| is_aborted(&signal.to_unknown()) == Some(true));
        let _ = self.signal.unref(env);
        if let Some(listener) = self.listener {
            let _ = listener.unref(env);
        }
        aborted.then_some(Outcome::Aborted(self.path))
    }
}

/// The JS value of a call's reply.
fn reply_value<'env>(
    env: &'env Env,
    literals: &Literals,
    reply: Reply,
) -> napi::Result<Unknown<'env>> {
    match reply {
        Reply::Output(output, text, _) => {
            output::output_value(env, literals, output, text.map(|text| text.text))
        }
        Reply::Version(version) => literal::to_js(env, literals, &JsFileVersion::from(version)),
        Reply::Many(results, _) => output::results_value(env, literals, results),
        Reply::Media(output, None, _) => {
            literal::to_js(env, literals, &crate::media::MediaOutput::from(output))
        }
        Reply::Media(output, Some(frame), _) => {
            let framed = crate::media::FramedMediaOutput {
                output: output.into(),
                frame: frame.into(),
            };
            literal::to_js(env, literals, &framed)
        }
        Reply::Dialect(answer) => literal::to_js(env, literals, &answer),
        Reply::Code(answer, None, _) => literal::to_js(env, literals, &answer),
        Reply::Code(answer, Some(text), _) => {
            let with_text = crate::code::CodeWithText {
                output: &answer,
                text: &text,
            };
            literal::to_js(env, literals, &with_text)
        }
        // The pool runs such a call again in its media stage instead of settling it.
        Reply::NeedsDecoding(_) => Err(napi::Error::from_reason(
            "a view's text stage was settled before its media stage ran",
        )),
        Reply::McpAnswer(line, _) => match line {
            Some(line) => env.create_string(&line)?.into_unknown(env),
            None => Null.into_unknown(env),
        },
    }
}

/// Resolves or rejects `deferred` with `outcome`. Settles exactly once, whatever JS does
/// meanwhile; not at all only when not even an error can be made (the env is going away).
pub(super) fn settle(env: &Env, literals: &Literals, deferred: Deferred, outcome: Outcome) {
    let settled = match outcome {
        Outcome::Done(Ok(reply)) => match reply_value(env, literals, reply) {
            Ok(value) => Ok(value),
            Err(error) => {
                let message = format!("INTERNAL: the result could not be built ({})", error.reason);
                Err(error_value(env, "INTERNAL", &message, None))
            }
        },
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
    match settled {
        Ok(value) => deferred.settle(env, Ok(value)),
        Err(Ok(error)) => deferred.settle(env, Err(error)),
        Err(Err(_)) => {}
    }
}
