//! Where each call runs and how its promise is settled: on the JS thread, from memory
//! ([`Access::FromMemory`]), when the kernel proves the read cannot wait ([`js_thread`]),
//! else on the libuv pool ([`pool`]), where it may wait; its
//! promise, and the caller's abort signal, wait on the JS thread ([`promises`]). Invalid
//! arguments and an already-aborted signal settle at once, without either.
//!
//! The parts never call each other: each is handed its own state, and what crosses from
//! one to another (a call the JS thread leaves to the pool, an answer that comes back)
//! goes through this module.
//!
//! The state lives per env: an env is one module instance on one JS thread (the main
//! thread, each worker, each extra load of the addon on a thread), and an env can be torn
//! down and a new one made on the same thread (a worker pool recycling workers, an
//! Electron renderer reload). So it lives in the env's Node-API instance data, dropped with
//! the env, never in thread-locals or statics.

mod decode_permit;
mod js_thread;
mod pool;
mod promises;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use napi::{Env, JsValue, Unknown};

use crate::call::{OpenedRoots, ReadCall, Reply};
use crate::convert::{is_aborted, type_of};
use crate::js;
use crate::output::Literals;
use agent_read_file_engine::error::{ErrorCode, ReadFileError};
use agent_read_file_engine::view::Opened;
use agent_read_file_engine::{Access, answered};
use js_thread::JsThread;
use pool::{Lane, Pool};
use promises::{Outcome, Promises};

/// The binding's state for one env.
pub(crate) struct EnvState {
    promises: Promises,
    /// The pool's lane for every call but media reads.
    text_pool: Pool,
    /// The pool's lane for media reads.
    media_pool: Pool,
    js_thread: JsThread,
    /// The compiled object literals that build result objects (see `output/literal.rs`).
    pub(crate) literals: Literals,
}

impl Default for EnvState {
    fn default() -> EnvState {
        EnvState {
            promises: Promises::default(),
            text_pool: Pool::new(Lane::Text),
            media_pool: Pool::new(Lane::Media),
            js_thread: JsThread::default(),
            literals: Literals::default(),
        }
    }
}

impl EnvState {
    /// The pool's lane `lane`.
    fn pool(&self, lane: Lane) -> &Pool {
        match lane {
            Lane::Text => &self.text_pool,
            Lane::Media => &self.media_pool,
        }
    }

    /// This env's state, created on first use.
    pub(crate) fn of(env: &Env) -> napi::Result<&'static EnvState> {
        // SAFETY: this is the only place the binding uses the instance-data slot, always
        // with `EnvState`.
        unsafe { js::instance_data(env, EnvState::default) }
    }
}

/// A call on its way, to the pool or to the JS thread, under the id of its promise.
pub(crate) struct Queued {
    id: u64,
    call: ReadCall,
}

impl Queued {
    /// This call (a `view`), to be run in its media stage on the file its text stage
    /// `opened`.
    fn decoding(self, opened: Box<Opened>) -> Queued {
        let Queued { id, call } = self;
        Queued {
            id,
            call: call.decoding(opened),
        }
    }
}

/// How many calls (`readFile`, a dialect's) this process answered on the JS thread, and
/// how many (those, `readFiles`, `fileVersion`) it sent to the pool.
static ANSWERED_ON_JS_THREAD: AtomicU64 = AtomicU64::new(0);
static SENT_TO_POOL: AtomicU64 = AtomicU64::new(0);

/// `(answered on the JS thread, sent to the pool)` so far in this process.
pub(crate) fn path_counts() -> (u64, u64) {
    (
        ANSWERED_ON_JS_THREAD.load(Ordering::Relaxed),
        SENT_TO_POOL.load(Ordering::Relaxed),
    )
}

/// Counts `calls` sent to the pool (a dialect's task, which is not queued here).
pub(crate) fn count_sent_to_pool(calls: usize) {
    SENT_TO_POOL.fetch_add(calls as u64, Ordering::Relaxed);
}

/// Starts a call: returns its promise, settled on this thread, at once when the read is
/// answered here, else when the pool has read.
pub(crate) fn enqueue<'env>(
    env: &'env Env,
    call: Result<ReadCall, ReadFileError>,
    signal: Option<Unknown>,
) -> napi::Result<Unknown<'env>> {
    enqueue_to(env, call, signal, Route::AfterRun)
}

/// Where a call [`enqueue_to`] starts may be read.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Route {
    /// From memory on the JS thread when it may be, once the run of JS is over; else on
    /// the pool.
    AfterRun,
    /// From memory on the JS thread, at once, when the kernel has it in memory and the
    /// streak of reads there allows (its promise returned settled); else on the pool. For `agent-read-file mcp`'s
    /// answers: its transport serves a few calls at a time and awaits each, so waiting for
    /// the run of JS to end (to see a burst) would only add a promise, a microtask and the
    /// signal's upkeep to every call.
    AtOnce,
}

/// [`enqueue`], to `route`.
pub(crate) fn enqueue_to<'env>(
    env: &'env Env,
    call: Result<ReadCall, ReadFileError>,
    signal: Option<Unknown>,
    route: Route,
) -> napi::Result<Unknown<'env>> {
    let state = EnvState::of(env)?;
    let (deferred, promise) = js::promise(env)?;
    match checked(call, signal) {
        Err(settled) => promises::settle(env, &state.literals, deferred, settled.into()),
        Ok((call, signal)) => {
            // Read now when it may be; one that would wait, or comes once the streak is over
            // (the microtask would find it over too), `start` sends to the pool.
            let call = match run_at_once(env, call, route) {
                FromMemory::Answered(answer) => {
                    let outcome = Outcome::Done(answer.map(Reply::delivered));
                    promises::settle(env, &state.literals, deferred, outcome);
                    return Ok(promise.to_unknown());
                }
                FromMemory::ForPool(call) => call,
            };
            // What the signal's `abort` sets, so that a long scan the call runs stops too.
            let stop = signal.as_ref().map(|_| Arc::new(AtomicBool::new(false)));
            let call = match &stop {
                Some(stop) => call.with_stop(stop.clone()),
                None => call,
            };
            let watched = signal.as_ref().zip(stop);
            let id = state
                .promises
                .add(env, deferred, watched, &call.request.path);
            start(env, state, Queued { id, call }, route);
        }
    }
    Ok(promise.to_unknown())
}

/// Why a call is settled before it starts.
enum SettledAtOnce {
    /// Its arguments are invalid, or its signal is no `AbortSignal`.
    Invalid(ReadFileError),
    /// Its signal had fired; the requested path.
    Aborted(String),
}

impl From<SettledAtOnce> for Outcome {
    fn from(settled: SettledAtOnce) -> Outcome {
        match settled {
            SettledAtOnce::Invalid(error) => Outcome::Done(Err(error)),
            SettledAtOnce::Aborted(path) => Outcome::Aborted(path),
        }
    }
}

/// The call and its signal (given, not fired yet), or why it is settled at once.
fn checked(
    call: Result<ReadCall, ReadFileError>,
    signal: Option<Unknown<'_>>,
) -> Result<(ReadCall, Option<Unknown<'_>>), SettledAtOnce> {
    let call = call.map_err(SettledAtOnce::Invalid)?;
    let Some(signal) = signal.filter(is_given) else {
        return Ok((call, None));
    };
    match is_aborted(&signal) {
        Some(false) => Ok((call, Some(signal))),
        Some(true) => Err(SettledAtOnce::Aborted(call.request.path)),
        None => {
            let path = &call.request.path;
            let reason = "signal must be an AbortSignal";
            let error = ReadFileError::new(ErrorCode::InvalidArgument, path, reason);
            Err(SettledAtOnce::Invalid(error))
        }
    }
}

/// Sends `queued` on its way: to the JS thread's microtask when it may be read from
/// memory and `route` allows, else to the pool.
fn start(env: &Env, state: &EnvState, queued: Queued, route: Route) {
    let for_pool = if route == Route::AfterRun && queued.call.may_run_from_memory() {
        state.js_thread.collect(env, queued, on_run_end)
    } else {
        Some(queued)
    };
    if let Some(queued) = for_pool {
        send_to_pool(env, state, vec![queued]);
    }
}

/// What a call run from memory came to.
// Returned once and matched at once: boxing the call would cost an allocation per call.
#[allow(clippy::large_enum_variant)]
enum FromMemory {
    Answered(Result<Reply, ReadFileError>),
    /// Not answered: the call, for the pool (a `view` that needs decoding, with the file it
    /// opened, to be run in its media stage).
    ForPool(ReadCall),
}

/// `call` run from memory when `route` reads it at once ([`run_from_memory`]).
fn run_at_once(env: &Env, call: ReadCall, route: Route) -> FromMemory {
    match route {
        Route::AtOnce if call.may_run_from_memory() => run_from_memory(env, call),
        _ => FromMemory::ForPool(call),
    }
}

/// `call` run from memory on the JS thread now, as the streak of reads there allows.
fn run_from_memory(env: &Env, call: ReadCall) -> FromMemory {
    let run = || answered(call.run_with(&mut OpenedRoots::default(), Access::FromMemory));
    let Some(answer) = EnvState::of(env)
        .ok()
        .and_then(|state| state.js_thread.attempt(run))
    else {
        return FromMemory::ForPool(call);
    };
    match answer {
        Ok(Reply::NeedsDecoding(opened)) => FromMemory::ForPool(call.decoding(opened)),
        answer => {
            ANSWERED_ON_JS_THREAD.fetch_add(1, Ordering::Relaxed);
            FromMemory::Answered(answer)
        }
    }
}

fn is_given(value: &Unknown) -> bool {
    !matches!(type_of(value), "undefined" | "null")
}

/// Sends `calls` to the pool, each with an `abort` listener on its signal; one whose signal
/// fired already is rejected, and goes no further.
fn send_to_pool(env: &Env, state: &EnvState, mut calls: Vec<Queued>) {
    for queued in &calls {
        state
            .promises
            .watch_on_pool(env, &state.literals, queued.id);
    }
    calls.retain(|queued| state.promises.is_unsettled(queued.id));
    if !calls.is_empty() {
        count_sent_to_pool(calls.len());
        let (media, text): (Vec<_>, Vec<_>) = calls.into_iter().partition(|q| q.call.decodes());
        for (lane, calls) in [(Lane::Text, text), (Lane::Media, media)] {
            if !calls.is_empty() {
                state.pool(lane).send(env, calls);
            }
        }
    }
}

/// The microtask after a run of JS that made calls: up to
/// [`js_thread::MAX_CALLS_READ_HERE`] are read here, a larger burst goes to the pool whole.
fn on_run_end(env: &Env) {
    if let Ok(state) = EnvState::of(env) {
        let calls = state.js_thread.take_run();
        if calls.len() > js_thread::MAX_CALLS_READ_HERE {
            send_to_pool(env, state, calls);
        } else {
            run_collected(env, state, calls);
        }
    }
}

/// Runs `calls` from memory here while the streak allows; what would wait, or comes past
/// the streak, goes to the pool.
fn run_collected(env: &Env, state: &EnvState, calls: Vec<Queued>) {
    let mut for_pool = Vec::new();
    for Queued { id, call } in calls {
        let promises = &state.promises;
        if !promises.is_unsettled(id) || promises.settle_if_aborted(env, &state.literals, id) {
            continue; // aborted meanwhile: its promise is rejected, and it is not read
        }
        match run_from_memory(env, call) {
            // Settling runs JS, which may make more calls: nothing here is borrowed.
            FromMemory::Answered(answer) => state.promises.settle(env, &state.literals, id, answer),
            FromMemory::ForPool(call) => for_pool.push(Queued { id, call }),
        }
    }
    send_to_pool(env, state, for_pool);
}

/// Answers from the pool, by call id: the event loop has turned, and their promises are
/// settled.
fn pool_answered(
    env: &Env,
    state: &EnvState,
    answers: impl Iterator<Item = (u64, Result<Reply, ReadFileError>)>,
) {
    state.js_thread.loop_turned();
    for (id, answer) in answers {
        state.promises.settle(env, &state.literals, id, answer);
    }
}
