//! `readFile` answered on the JS thread, without the pool, when the kernel proves the read
//! cannot wait (the engine's `read_file_cached`: path in the dentry cache, bytes in the
//! page cache, a local file system, at most 256 KiB). Anything else goes to the pool as
//! before; the promise is the same either way, settled sooner.
//!
//! How calls are scheduled here:
//! - The calls of one synchronous run of JS (one call, or a `Promise.all` of many) are
//!   collected and answered by a microtask once the run is over. Then it is known how many
//!   came: up to [`MAX_CALLS_READ_HERE`] are read here; a larger burst goes to the pool
//!   whole, whose threads read in parallel while this one settles (measured on two cores:
//!   64 concurrent reads took 680-700 µs that way, 790-870 µs with half or a quarter
//!   read here).
//! - A turn of the event loop reads at most [`MAX_READS_PER_TURN`] here. Calls past that
//!   wait for the next turn (`setImmediate`), so that a burst, or a loop awaiting one read
//!   after another (whose promises settle in microtasks, without the loop turning), lets
//!   timers and I/O run between every few reads. They do not go to the pool for that:
//!   waking its threads costs more than the reads.
//! - A read that would wait is sent to the pool from here.

use std::cell::{Cell, OnceCell, RefCell};
use std::collections::VecDeque;
use std::ffi::CStr;
use std::ptr;
use std::sync::atomic::{AtomicU64, Ordering};

use napi::{Env, sys};

use crate::batch::{self, Queued};
use crate::env_state::EnvState;
use crate::js::{self, Reference};

/// Reads one turn of the event loop does here: ~12 µs each for a small cached file (up to
/// ~40 µs for 256 KiB), so a turn holds the loop for about 0.2-0.6 ms at most.
const MAX_READS_PER_TURN: usize = 16;

/// How many `readFile` calls this process answered on the JS thread, and how many calls
/// (`readFile`, `readFiles`, `fileVersion`) it sent to the pool (see `readPathCounts`).
pub static ANSWERED_INLINE: AtomicU64 = AtomicU64::new(0);
pub static SENT_TO_POOL: AtomicU64 = AtomicU64::new(0);

/// The most calls of one run of JS read here: a pool round trip costs more than a few
/// reads here, and less than many.
const MAX_CALLS_READ_HERE: usize = 4;

/// One env's calls for the JS thread, and its reads in the current turn of the loop.
#[derive(Default)]
pub struct InlineQueue {
    /// Calls of the current run of JS, for the microtask.
    collected: RefCell<Vec<Queued>>,
    /// Calls to read here, oldest first, beyond what this turn may read.
    backlog: RefCell<VecDeque<Queued>>,
    /// Reads done here in this turn.
    read_this_turn: Cell<usize>,
    microtask_due: Cell<bool>,
    next_turn_due: Cell<bool>,
    /// `queueMicrotask` and the microtask, made once.
    run_end: OnceCell<Scheduled>,
    /// `setImmediate` and its callback, made once.
    next_turn: OnceCell<Scheduled>,
}

/// A scheduler function of the global object and the native callback it is given.
struct Scheduled {
    scheduler: Reference,
    callback: Reference,
}

/// Takes `queued` to be answered here, or gives it back when the microtask that would
/// answer it cannot be scheduled (the caller sends it to the pool).
pub fn collect(env: sys::napi_env, state: &EnvState, queued: Queued) -> Result<(), Queued> {
    let queue = &state.inline;
    if !queue.microtask_due.get() {
        let run_end = (
            c"queueMicrotask",
            c"readFileRunEnded",
            on_run_end as Callback,
        );
        if schedule(env, &queue.run_end, run_end).is_err() {
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
        let queue = &state.inline;
        queue.microtask_due.set(false);
        let collected = std::mem::take(&mut *queue.collected.borrow_mut());
        let env = Env::from_raw(env);
        if collected.len() > MAX_CALLS_READ_HERE {
            batch::send_to_pool(&env, &state.calls, collected);
        } else {
            queue.backlog.borrow_mut().extend(collected);
            read_backlog(&env, state);
        }
    }
    ptr::null_mut()
}

/// The next turn of the loop: a new count, and the backlog read on.
unsafe extern "C" fn on_next_turn(env: sys::napi_env, _info: sys::napi_callback_info) -> js::Value {
    if let Ok(state) = EnvState::of(env) {
        state.inline.next_turn_due.set(false);
        state.inline.read_this_turn.set(0);
        read_backlog(&Env::from_raw(env), state);
    }
    ptr::null_mut()
}

/// Reads the backlog while this turn may; what would wait goes to the pool, what is left
/// waits for the next turn.
fn read_backlog(env: &Env, state: &EnvState) {
    let queue = &state.inline;
    let mut would_wait = Vec::new();
    while queue.read_this_turn.get() < MAX_READS_PER_TURN {
        let Some(queued) = queue.backlog.borrow_mut().pop_front() else {
            break;
        };
        if !state.calls.is_unsettled(queued.id) {
            continue; // aborted meanwhile: its promise is already rejected
        }
        queue.read_this_turn.set(queue.read_this_turn.get() + 1);
        match queued.call.run_cached().done() {
            Some(answer) => {
                ANSWERED_INLINE.fetch_add(1, Ordering::Relaxed);
                // Settling runs JS, which may make more calls: nothing here is borrowed.
                batch::settle_answered(env.raw(), &state.calls, queued.id, answer);
            }
            None => would_wait.push(queued),
        }
    }
    batch::send_to_pool(env, &state.calls, would_wait);
    if queue.read_this_turn.get() > 0 && !queue.next_turn_due.get() {
        let next_turn = (
            c"setImmediate",
            c"readFileNextTurn",
            on_next_turn as Callback,
        );
        if schedule(env.raw(), &queue.next_turn, next_turn).is_ok() {
            queue.next_turn_due.set(true);
        } else {
            // No next turn can be seen: what is left goes to the pool.
            let left: Vec<Queued> = queue.backlog.borrow_mut().drain(..).collect();
            batch::send_to_pool(env, &state.calls, left);
        }
    }
}

type Callback = unsafe extern "C" fn(sys::napi_env, sys::napi_callback_info) -> js::Value;

/// `globalThis[scheduler](callback)`, `callback` a native function named `name`; both are
/// looked up and made on first use, then kept in `made`.
fn schedule(
    env: sys::napi_env,
    made: &OnceCell<Scheduled>,
    (scheduler, name, callback): (&CStr, &CStr, Callback),
) -> napi::Result<()> {
    let global = js::global(env)?;
    let scheduled = match made.get() {
        Some(scheduled) => scheduled,
        None => {
            let scheduler = js::named_property(env, global, scheduler)?;
            let callback = js::function(env, name, callback, 0)?;
            let scheduled = Scheduled {
                scheduler: Reference::new(env, scheduler)?,
                callback: Reference::new(env, callback)?,
            };
            made.get_or_init(|| scheduled)
        }
    };
    let callback = scheduled.callback.value(env)?;
    js::call(env, global, scheduled.scheduler.value(env)?, &[callback]).map(drop)
}
