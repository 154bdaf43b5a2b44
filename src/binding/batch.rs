//! How `readFile` runs on the libuv thread pool.
//!
//! One pool work item per call costs a pool wake-up, a completion wake-up and a work
//! allocation each, which on a busy event loop outweighs the read itself. So a call
//! gets a work item of its own only while fewer than [`MAX_IN_FLIGHT`] are running;
//! otherwise it waits in a queue that the running work items take from before they
//! finish, up to [`MAX_BATCH`] calls each, and whatever is still waiting when one
//! finishes goes to the pool together. Each call keeps its own promise, settled on the JS
//! thread when its batch completes; invalid arguments and an already-aborted signal settle
//! without the pool.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::ptr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use napi::bindgen_prelude::{FromNapiValue, Object, ObjectRef, ToNapiValue, Undefined};
use napi::{Env, JsError, JsValue, Task, Unknown, sys};

use super::output::JsOutput;
use super::{OpenedRoots, ReadCall, check, error_value, is_aborted, type_of};
use crate::error::{ErrorCode, ReadFileError};
use crate::read_file::ReadFileOutput;

/// Work items of this JS thread on the pool at once (libuv's default pool has 4 threads).
const MAX_IN_FLIGHT: usize = 4;
/// Calls one work item carries at most, so results keep flowing back while others run.
const MAX_BATCH: usize = 16;
/// Content one work item hands back at most (plus one read), so settling a batch, which
/// turns every result into a JS string at once, never holds up the event loop for long.
const MAX_BATCH_CONTENT_BYTES: usize = 1 << 20;

/// `err.code` of the rejection when the caller's `AbortSignal` fires first.
const ABORT_CODE: &str = "ABORT_ERR";

/// One `readFile` call waiting for its result.
struct PendingRead {
    deferred: Deferred,
    call: Result<ReadCall, ReadFileError>,
    /// The caller's signal, looked at again when the result is ready.
    signal: Option<ObjectRef<false>>,
}

/// A promise's resolver. Created, settled and dropped on the JS thread only; it rides to
/// the pool and back inside its batch without being touched there.
struct Deferred(sys::napi_deferred);

// SAFETY: see `Deferred`: the pool thread only moves it.
unsafe impl Send for Deferred {}

#[derive(Default)]
struct Scheduler {
    waiting: Waiting,
    in_flight: usize,
}

/// Calls that no work item has taken yet, shared with the running ones.
#[derive(Clone, Default)]
struct Waiting(Arc<Mutex<VecDeque<PendingRead>>>);

impl Waiting {
    fn lock(&self) -> MutexGuard<'_, VecDeque<PendingRead>> {
        // Nothing that holds the lock can panic half-way: a poisoned queue is still whole.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

thread_local! {
    /// One scheduler per JS thread (the main thread and each worker have their own env).
    static SCHEDULER: RefCell<Scheduler> = RefCell::default();
}

/// Starts a `readFile` call: returns its promise, settled later on this thread.
pub(super) fn enqueue<'env>(
    env: &'env Env,
    call: Result<ReadCall, ReadFileError>,
    signal: Option<Unknown>,
) -> napi::Result<Unknown<'env>> {
    let mut deferred = ptr::null_mut();
    let mut promise = ptr::null_mut();
    check(unsafe { sys::napi_create_promise(env.raw(), &mut deferred, &mut promise) })?;
    let promise = unsafe { Unknown::from_raw_unchecked(env.raw(), promise) };
    let mut read = PendingRead {
        deferred: Deferred(deferred),
        call,
        signal: None,
    };
    match (&read.call, signal.filter(is_given)) {
        (Err(_), _) => settle(env, read, None),
        (Ok(_), Some(signal)) => match is_aborted(&signal) {
            Some(true) => settle(env, read, Some(Outcome::Aborted)),
            Some(false) => {
                read.signal = unsafe { Object::from_napi_value(env.raw(), signal.raw()) }
                    .and_then(|object| object.create_ref())
                    .ok();
                wait(env, read)
            }
            None => {
                read.call = Err(ReadFileError::new(
                    ErrorCode::InvalidArgument,
                    read.path(),
                    "signal must be an AbortSignal",
                ));
                settle(env, read, None)
            }
        },
        (Ok(_), None) => wait(env, read),
    }
    Ok(promise)
}

fn is_given(value: &Unknown) -> bool {
    !matches!(type_of(value), "undefined" | "null")
}

fn wait(env: &Env, read: PendingRead) {
    SCHEDULER.with_borrow(|scheduler| scheduler.waiting.lock().push_back(read));
    start_batches(env);
}

/// Sends waiting calls to the pool while fewer than [`MAX_IN_FLIGHT`] batches run.
fn start_batches(env: &Env) {
    loop {
        let batch = SCHEDULER.with_borrow_mut(|scheduler| {
            if scheduler.in_flight == MAX_IN_FLIGHT {
                return None;
            }
            let mut waiting = scheduler.waiting.lock();
            let count = waiting.len().min(MAX_BATCH);
            if count == 0 {
                return None;
            }
            let mut reads = Vec::with_capacity(MAX_BATCH);
            reads.extend(waiting.drain(..count));
            drop(waiting);
            scheduler.in_flight += 1;
            Some(Batch {
                reads,
                waiting: scheduler.waiting.clone(),
            })
        });
        let Some(batch) = batch else { return };
        if env.spawn(batch).is_err() {
            // The env is shutting down: nothing is left to settle the promises for.
            SCHEDULER.with_borrow_mut(|scheduler| scheduler.in_flight -= 1);
            return;
        }
    }
}

/// Calls run together on one pool thread.
struct Batch {
    reads: Vec<PendingRead>,
    /// Where more calls wait; the batch takes them while it has room.
    waiting: Waiting,
}

impl Task for Batch {
    type Output = Vec<Result<ReadFileOutput, ReadFileError>>;
    type JsValue = Undefined;

    /// Runs its calls, then waiting ones, until [`MAX_BATCH`] calls have run, none is
    /// waiting, or [`MAX_BATCH_CONTENT_BYTES`] of content is ready. Calls of its own left
    /// over go back to the head of the queue when the batch settles.
    fn compute(&mut self) -> napi::Result<Self::Output> {
        let mut roots = OpenedRoots::default();
        let mut outputs = Vec::with_capacity(MAX_BATCH);
        let mut content_bytes = 0;
        while content_bytes < MAX_BATCH_CONTENT_BYTES && self.take_next(outputs.len()) {
            let output = self.reads[outputs.len()].run(&mut roots);
            content_bytes += output.as_ref().map_or(0, |o| o.content.as_str().len());
            outputs.push(output);
        }
        Ok(outputs)
    }

    fn resolve(&mut self, env: Env, outputs: Self::Output) -> napi::Result<Undefined> {
        let left_over = self.reads.split_off(outputs.len());
        for (read, output) in self.reads.drain(..).zip(outputs) {
            settle(&env, read, Some(Outcome::Done(output)));
        }
        SCHEDULER.with_borrow_mut(|scheduler| {
            scheduler.in_flight -= 1;
            let mut waiting = scheduler.waiting.lock();
            for read in left_over.into_iter().rev() {
                waiting.push_front(read);
            }
        });
        start_batches(&env);
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

impl PendingRead {
    fn run(&self, roots: &mut OpenedRoots) -> Result<ReadFileOutput, ReadFileError> {
        match &self.call {
            Ok(call) => call.run_with(roots),
            Err(error) => Err(error.clone()),
        }
    }

    fn path(&self) -> &str {
        match &self.call {
            Ok(call) => &call.request.path,
            Err(error) => &error.path,
        }
    }

    /// Whether the caller's signal has fired by now.
    fn aborted(&self, env: &Env) -> bool {
        let Some(signal) = &self.signal else {
            return false;
        };
        let signal = signal.get_value(env).map(|object| object.to_unknown());
        signal.ok().and_then(|signal| is_aborted(&signal)) == Some(true)
    }
}

/// How a call ended, before its promise hears of it.
enum Outcome {
    Done(Result<ReadFileOutput, ReadFileError>),
    Aborted,
}

/// Resolves or rejects the call's promise. `None`: the call failed before it could run.
fn settle(env: &Env, read: PendingRead, outcome: Option<Outcome>) {
    let outcome = match outcome {
        Some(Outcome::Done(_)) if read.aborted(env) => Outcome::Aborted,
        Some(outcome) => outcome,
        None => Outcome::Done(read.run(&mut OpenedRoots::default())),
    };
    let raw_env = env.raw();
    let settled = match outcome {
        Outcome::Done(Ok(output)) => {
            match unsafe { JsOutput::to_napi_value(raw_env, JsOutput(output)) } {
                Ok(value) => Ok(value),
                Err(error) => Err(unsafe { JsError::from(error).into_value(raw_env) }),
            }
        }
        Outcome::Done(Err(error)) => Err(error_value(
            raw_env,
            error.code.as_str(),
            error.to_string(),
            None,
        )),
        Outcome::Aborted => {
            let message = format!("{ABORT_CODE}: {}: the read was aborted", read.path());
            Err(error_value(
                raw_env,
                ABORT_CODE,
                message,
                Some(c"AbortError"),
            ))
        }
    };
    if let Some(signal) = read.signal {
        let _ = signal.unref(env);
    }
    // A failure here means the env is being torn down; there is no one left to tell.
    let _ = match settled {
        Ok(value) => unsafe { sys::napi_resolve_deferred(raw_env, read.deferred.0, value) },
        Err(error) => unsafe { sys::napi_reject_deferred(raw_env, read.deferred.0, error) },
    };
}
