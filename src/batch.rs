//! How `readFile` runs on the libuv thread pool.
//!
//! One pool work item per call costs a pool wake-up, a completion wake-up and a work
//! allocation each, which on a busy event loop outweighs the read itself. So a call
//! gets a work item of its own only while fewer than [`MAX_IN_FLIGHT`] are running;
//! otherwise it waits in a queue that the running work items take from before they
//! finish, up to [`MAX_BATCH`] calls each, and whatever is still waiting when one
//! finishes goes to the pool together.
//!
//! Only the call goes to the pool. Its promise stays on the JS thread, in its env's
//! [`Calls`], under the call's id: a batch that completes settles the promises still
//! there, and an `AbortSignal` that fires first rejects its promise at once, from its
//! `abort` event, even while the pool is stuck on a hung mount; that call's result is
//! discarded when it comes. Invalid arguments and an already-aborted signal settle without
//! the pool, and so do reads the kernel proves cannot wait (see `inline.rs`).

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};
use std::ptr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use napi::bindgen_prelude::{ToNapiValue, Undefined};
use napi::{Env, JsValue, Task, Unknown, sys};

use crate::JsFileVersion;
use crate::call::{Answer, OpenedRoots, ReadCall};
use crate::convert::{error_value, is_aborted, type_of};
use crate::env_state::EnvState;
use crate::inline;
use crate::js::{self, Deferred, Reference};
use crate::output::{JsOutput, JsResults};
use agent_read_file_engine::error::{ErrorCode, ReadFileError, display_path};

/// Work items of one env on the pool at once (libuv's default pool has 4 threads).
const MAX_IN_FLIGHT: usize = 4;
/// Calls one work item carries at most, so results keep flowing back while others run.
const MAX_BATCH: usize = 16;
/// Content one work item hands back at most (plus one read), so settling a batch, which
/// turns every result into a JS string at once, never holds up the event loop for long.
const MAX_BATCH_CONTENT_BYTES: usize = 1 << 20;

/// `err.code` of the rejection when the caller's `AbortSignal` fires first.
const ABORT_CODE: &str = "ABORT_ERR";

/// The `readFile` calls of one env.
#[derive(Default)]
pub struct Calls {
    waiting: Waiting,
    in_flight: Cell<usize>,
    /// Promises not settled yet, by call id. Borrowed only between calls into JS: settling
    /// a promise can run JS (a `then` getter) that starts another call.
    unsettled: RefCell<HashMap<u64, Unsettled>>,
    last_id: Cell<u64>,
}

/// A call on its way, to the pool or to the JS thread (see `inline.rs`).
pub(crate) struct Queued {
    pub(crate) id: u64,
    pub(crate) call: ReadCall,
}

/// Calls that no work item has taken yet, shared with the running ones.
#[derive(Clone, Default)]
struct Waiting(Arc<Mutex<VecDeque<Queued>>>);

impl Waiting {
    fn lock(&self) -> MutexGuard<'_, VecDeque<Queued>> {
        // Nothing that holds the lock can panic half-way: a poisoned queue is still whole.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A promise waiting for its call, and the caller's signal if it gave one.
struct Unsettled {
    deferred: Deferred,
    abort: Option<AbortWatch>,
}

/// The caller's `AbortSignal` and the `abort` listener put on it.
struct AbortWatch {
    signal: Reference,
    /// `None` when the signal would not take a listener (a hostile `addEventListener`):
    /// then the signal is only looked at when the result is ready.
    listener: Option<Reference>,
    path: String,
}

/// How a call ended, before its promise hears of it.
enum Outcome {
    Done(Result<Answer, ReadFileError>),
    /// The caller's signal fired first; the requested path, for the message.
    Aborted(String),
}

/// Starts a `readFile` call: returns its promise, settled on this thread, at once when the
/// read is answered here ([`inline`]), else when the pool has read.
pub(super) fn enqueue<'env>(
    env: &'env Env,
    call: Result<ReadCall, ReadFileError>,
    signal: Option<Unknown>,
) -> napi::Result<Unknown<'env>> {
    let raw = env.raw();
    let state = EnvState::of(raw)?;
    let (deferred, promise) = js::promise(raw)?;
    // SAFETY: `promise` was just created on this env, in the current handle scope.
    let promise = unsafe { Unknown::from_raw_unchecked(raw, promise) };
    let call = match call {
        Ok(call) => call,
        Err(error) => {
            settle(raw, deferred, Outcome::Done(Err(error)));
            return Ok(promise);
        }
    };
    let signal = match signal.filter(is_given) {
        None => None,
        Some(signal) => match is_aborted(&signal) {
            Some(false) => Some(signal),
            Some(true) => {
                settle(raw, deferred, Outcome::Aborted(call.request.path));
                return Ok(promise);
            }
            None => {
                let error = ReadFileError::new(
                    ErrorCode::InvalidArgument,
                    &call.request.path,
                    "signal must be an AbortSignal",
                );
                settle(raw, deferred, Outcome::Done(Err(error)));
                return Ok(promise);
            }
        },
    };
    let id = state.calls.next_id();
    let abort = signal.and_then(|signal| watch(raw, &signal, id, &call.request.path));
    let unsettled = Unsettled { deferred, abort };
    state.calls.unsettled.borrow_mut().insert(id, unsettled);
    let queued = Queued { id, call };
    let for_pool = if queued.call.may_run_from_memory() {
        inline::collect(raw, state, queued).err()
    } else {
        Some(queued)
    };
    if let Some(queued) = for_pool {
        send_to_pool(env, &state.calls, vec![queued]);
    }
    Ok(promise)
}

/// Queues calls for the pool and starts work items for them.
pub(crate) fn send_to_pool(env: &Env, calls: &Calls, queued: Vec<Queued>) {
    if queued.is_empty() {
        return;
    }
    inline::count_sent_to_pool(queued.len());
    calls.waiting.lock().extend(queued);
    start_batches(env, calls);
}

/// Settles call `id` with `answer`, unless its signal fired first.
pub(crate) fn settle_answered(
    env: sys::napi_env,
    calls: &Calls,
    id: u64,
    answer: Result<Answer, ReadFileError>,
) {
    if let Some(unsettled) = calls.take(id) {
        unsettled.settle(env, Outcome::Done(answer));
    }
}

fn is_given(value: &Unknown) -> bool {
    !matches!(type_of(value), "undefined" | "null")
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
        && let Some(unsettled) = state.calls.take(id as u64)
    {
        unsettled.settle_aborted(env);
    }
    ptr::null_mut()
}

impl Calls {
    fn next_id(&self) -> u64 {
        self.last_id.set(self.last_id.get() + 1);
        self.last_id.get()
    }

    fn take(&self, id: u64) -> Option<Unsettled> {
        self.unsettled.borrow_mut().remove(&id)
    }

    /// Whether call `id`'s promise still waits (it is not when its signal fired first).
    pub(crate) fn is_unsettled(&self, id: u64) -> bool {
        self.unsettled.borrow().contains_key(&id)
    }
}

/// Sends waiting calls to the pool while fewer than [`MAX_IN_FLIGHT`] batches run.
fn start_batches(env: &Env, calls: &Calls) {
    while calls.in_flight.get() < MAX_IN_FLIGHT {
        let mut waiting = calls.waiting.lock();
        let count = waiting.len().min(MAX_BATCH);
        if count == 0 {
            return;
        }
        let mut reads = Vec::with_capacity(MAX_BATCH);
        reads.extend(waiting.drain(..count));
        drop(waiting);
        let batch = Batch {
            reads,
            waiting: calls.waiting.clone(),
        };
        if env.spawn(batch).is_err() {
            // The env is shutting down: nothing is left to settle the promises for.
            return;
        }
        calls.in_flight.set(calls.in_flight.get() + 1);
    }
}

/// Calls run together on one pool thread.
struct Batch {
    reads: Vec<Queued>,
    /// Where more calls wait; the batch takes them while it has room.
    waiting: Waiting,
}

impl Task for Batch {
    type Output = Vec<Result<Answer, ReadFileError>>;
    type JsValue = Undefined;

    /// Runs its calls, then waiting ones, until [`MAX_BATCH`] calls have run, none is
    /// waiting, or [`MAX_BATCH_CONTENT_BYTES`] of content is ready. Calls of its own left
    /// over go back to the head of the queue when the batch settles.
    fn compute(&mut self) -> napi::Result<Self::Output> {
        let mut roots = OpenedRoots::default();
        let mut outputs = Vec::with_capacity(MAX_BATCH);
        let mut content_bytes = 0;
        while content_bytes < MAX_BATCH_CONTENT_BYTES && self.take_next(outputs.len()) {
            let output = self.reads[outputs.len()].call.run_with(&mut roots);
            content_bytes += output.as_ref().map_or(0, Answer::content_len);
            outputs.push(output);
        }
        Ok(outputs)
    }

    fn resolve(&mut self, env: Env, outputs: Self::Output) -> napi::Result<Undefined> {
        let raw = env.raw();
        let state = EnvState::of(raw)?;
        state.inline.loop_turned();
        let calls = &state.calls;
        // Put the queue right before settling anything: settling runs JS, which may start
        // more calls.
        calls.in_flight.set(calls.in_flight.get() - 1);
        let left_over = self.reads.split_off(outputs.len());
        let mut waiting = calls.waiting.lock();
        for read in left_over.into_iter().rev() {
            waiting.push_front(read);
        }
        drop(waiting);
        for (read, output) in self.reads.drain(..).zip(outputs) {
            // Gone when its signal fired first: that promise is already rejected.
            if let Some(unsettled) = calls.take(read.id) {
                unsettled.settle(raw, Outcome::Done(output));
            }
        }
        start_batches(&env, calls);
        Ok(())
    }
}

impl Batch {
    /// Whether call number `ran` is there to run, taking a waiting call if need be.
    fn take_next(&mut self, ran: usize) -> bool {
        if ran < self.reads.len() {
            return true;
        }
        if ran == MAX_BATCH {
            return false;
        }
        let next = self.waiting.lock().pop_front();
        next.map(|read| self.reads.push(read)).is_some()
    }
}

impl Unsettled {
    /// Settles the promise with `outcome`, or as aborted if the signal has fired by now.
    fn settle(self, env: sys::napi_env, outcome: Outcome) {
        let outcome = match self.abort {
            Some(watch) => watch.finish(env).unwrap_or(outcome),
            None => outcome,
        };
        let outcome = match outcome {
            Outcome::Done(Ok(answer)) => Outcome::Done(Ok(answer.delivered())),
            other => other,
        };
        settle(env, self.deferred, outcome);
    }

    /// Rejects the promise as aborted: its signal's `abort` event fired.
    fn settle_aborted(self, env: sys::napi_env) {
        let outcome = match self.abort {
            Some(watch) => {
                let path = watch.path.clone();
                watch.finish(env).unwrap_or(Outcome::Aborted(path))
            }
            None => Outcome::Aborted(String::new()),
        };
        settle(env, self.deferred, outcome);
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

/// The JS value of a call's answer.
fn answer_value(env: sys::napi_env, answer: Answer) -> napi::Result<js::Value> {
    match answer {
        // SAFETY: on the JS thread of `env`, inside a call from Node.
        Answer::Output(output, _) => unsafe { JsOutput::to_napi_value(env, JsOutput(output)) },
        Answer::Version(version) => {
            let version = JsFileVersion::from(version);
            // SAFETY: on the JS thread of `env`, inside a call from Node.
            unsafe { JsFileVersion::to_napi_value(env, version) }
        }
        // SAFETY: on the JS thread of `env`, inside a call from Node.
        Answer::Many(results, _) => unsafe { JsResults::to_napi_value(env, JsResults(results)) },
    }
}

/// Resolves or rejects `deferred` with `outcome`. Settles exactly once, whatever JS does
/// meanwhile.
fn settle(env: sys::napi_env, deferred: Deferred, outcome: Outcome) {
    let settled = match outcome {
        // SAFETY: on the JS thread of `env`, inside a call from Node.
        Outcome::Done(Ok(answer)) => answer_value(env, answer).map_err(|error| {
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
