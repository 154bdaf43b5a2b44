//! `readFile` answered on the JS thread, without the pool, when the kernel proves the read
//! cannot wait (the engine's `read_file_from_memory`: path in the dentry cache, bytes in the
//! page cache, a local file system, at most 256 KiB). Anything else goes to the pool as
//! before; the promise is the same either way, settled sooner.
//!
//! How calls are scheduled here:
//! - The calls of one synchronous run of JS (one call, or a `Promise.all` of many) are
//!   collected and answered in a microtask once the run is over. Then it is known how many
//!   came: up to [`MAX_CALLS_READ_HERE`] are read here; a larger burst goes to the pool
//!   whole, whose threads read in parallel while this one settles (measured on two cores:
//!   64 concurrent reads took 680-700 µs that way, 790-870 µs with half or a quarter
//!   read here).
//! - Reads here in a row are bounded by time: once they have taken [`MAX_STREAK`] with the
//!   event loop given no chance to turn (a loop awaiting one read after another settles
//!   its promises in microtasks, without the loop turning), calls go to the pool until one
//!   of its results comes back through the loop (timers and I/O run meanwhile), or the
//!   thread has been idle. (Waiting for the loop's next turn instead, by a thread-safe
//!   function's async event, was tried: Node dispatches up to 1,000 of those in one turn,
//!   so the loop did not turn at all.)
//! - A read that would wait is sent to the pool from here.
//!
//! Nothing here uses `setImmediate`, `setTimeout` or `queueMicrotask`: test suites replace
//! those with fake timers, under which a read must still settle. The microtask is the
//! reaction of an already-resolved promise.

use std::cell::{Cell, OnceCell, RefCell};
use std::ptr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use napi::{Env, sys};

use crate::batch::{self, Queued};
use crate::env_state::EnvState;
use crate::js::{self, Reference};

/// The most calls of one run of JS read here: a pool round trip costs more than a few
/// reads here, and less than many.
const MAX_CALLS_READ_HERE: usize = 4;

/// How long reads here may hold the event loop in a row (about 70 reads of a small cached
/// file), before a call goes to the pool and the loop turns: a pool trip after idle costs
/// ~280 µs here, so a shorter streak makes awaited reads in a row slower (0.5 ms: ~21 µs a
/// read in the benchmark's loop, against ~14 µs each read here).
const MAX_STREAK: Duration = Duration::from_millis(1);

/// A pause this long since the last read here means the thread did other work (or
/// slept): a new streak starts.
const STREAK_GAP: Duration = Duration::from_millis(1);

/// How many calls (`readFile`, a dialect's) this process answered on the JS thread, and how
/// many (those, `readFiles`, `fileVersion`) it sent to the pool (see `readPathCounts`).
pub static ANSWERED_INLINE: AtomicU64 = AtomicU64::new(0);
pub static SENT_TO_POOL: AtomicU64 = AtomicU64::new(0);

/// One env's calls for the JS thread, and its current streak of reads here.
#[derive(Default)]
pub struct InlineQueue {
    /// Calls of the current run of JS, for the microtask.
    collected: RefCell<Vec<Queued>>,
    microtask_due: Cell<bool>,
    /// The microtask's function, made once.
    on_run_end: OnceCell<Reference>,
    /// Time spent reading here since the streak began, and when its last read ended.
    streak: Cell<Option<(Duration, Instant)>>,
}

impl InlineQueue {
    /// Whether reads here may go on: the streak is short, or over.
    fn may_read(&self) -> bool {
        match self.streak.get() {
            None => true,
            Some((spent, last)) => spent < MAX_STREAK || last.elapsed() > STREAK_GAP,
        }
    }

    /// Adds a read here, from `started` until now, to the streak.
    fn count(&self, started: Instant) {
        let now = Instant::now();
        let spent = match self.streak.get() {
            Some((spent, last)) if now.duration_since(last) <= STREAK_GAP => spent,
            _ => Duration::ZERO,
        };
        self.streak
            .set(Some((spent + now.duration_since(started), now)));
    }

    /// A pool result came back through the event loop: the loop has turned.
    pub fn loop_turned(&self) {
        self.streak.set(None);
    }

    /// `read` done here, if the streak allows and nothing in it would wait (`read` answers
    /// `None` then): counted into the streak and as answered here. `None`: the call goes to
    /// the pool.
    fn attempt<T>(&self, read: impl FnOnce() -> Option<T>) -> Option<T> {
        if !self.may_read() {
            return None;
        }
        let started = Instant::now();
        let outcome = read();
        self.count(started);
        if outcome.is_some() {
            ANSWERED_INLINE.fetch_add(1, Ordering::Relaxed);
        }
        outcome
    }
}

/// `read` (a dialect's call) done here now, as [`InlineQueue::attempt`] allows.
pub fn try_now<T>(env: sys::napi_env, read: impl FnOnce() -> Option<T>) -> Option<T> {
    EnvState::of(env).ok()?.inline.attempt(read)
}

/// Counts `calls` sent to the pool.
pub fn count_sent_to_pool(calls: usize) {
    SENT_TO_POOL.fetch_add(calls as u64, Ordering::Relaxed);
}

/// Takes `queued` to be answered here, or gives it back for the pool (when the microtask
/// that would answer it cannot be scheduled).
pub fn collect(env: sys::napi_env, state: &EnvState, queued: Queued) -> Result<(), Queued> {
    let queue = &state.inline;
    if !queue.microtask_due.get() {
        if schedule_microtask(env, &queue.on_run_end).is_err() {
            return Err(queued);
        }
        queue.microtask_due.set(true);
    }
    queue.collected.borrow_mut().push(queued);
    Ok(())
}

/// The microtask: the calls of the run of JS that ended, read here or sent to the pool.
unsafe extern "C" fn on_run_end(env: sys::napi_env, _info: sys::napi_callback_info) -> js::Value {
    if let Ok(state) = EnvState::of(env) {
        state.inline.microtask_due.set(false);
        let collected = std::mem::take(&mut *state.inline.collected.borrow_mut());
        let env = Env::from_raw(env);
        if collected.len() > MAX_CALLS_READ_HERE {
            batch::send_to_pool(&env, &state.calls, collected);
        } else {
            read_here(&env, state, collected);
        }
    }
    ptr::null_mut()
}

/// Reads `calls` here while the streak allows; what would wait, or comes past the
/// streak, goes to the pool.
fn read_here(env: &Env, state: &EnvState, calls: Vec<Queued>) {
    let mut for_pool = Vec::new();
    for queued in calls {
        if !state.calls.is_unsettled(queued.id) {
            continue; // aborted meanwhile: its promise is already rejected
        }
        match state.inline.attempt(|| queued.call.run_from_memory()) {
            // Settling runs JS, which may make more calls: nothing here is borrowed.
            Some(answer) => batch::settle_answered(env.raw(), &state.calls, queued.id, answer),
            None => for_pool.push(queued),
        }
    }
    batch::send_to_pool(env, &state.calls, for_pool);
}

/// Runs [`on_run_end`] as a microtask: the reaction of a promise resolved now. Its
/// function is made on first use and kept in `made`.
fn schedule_microtask(env: sys::napi_env, made: &OnceCell<Reference>) -> napi::Result<()> {
    let callback = match made.get() {
        Some(callback) => callback.value(env)?,
        None => {
            let callback = js::function(env, c"readFileRunEnded", on_run_end, 0)?;
            let kept = Reference::new(env, callback)?;
            made.get_or_init(|| kept);
            callback
        }
    };
    let (deferred, promise) = js::promise(env)?;
    deferred.settle(env, Ok(js::undefined(env)?));
    let then = js::named_property(env, promise, c"then")?;
    js::call(env, promise, then, &[callback]).map(drop)
}
