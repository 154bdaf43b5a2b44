//! `readFile` answered on the JS thread, without the pool, when the kernel proves the read
//! cannot wait (the engine's reads from memory, `Access::FromMemory`: path in the dentry
//! cache, bytes in the page cache, a local file system, at most 256 KiB read: a file whole,
//! or the window of a larger one its toolkit remembers). Anything else goes to the pool;
//! the promise is the same either way, settled sooner.
//!
//! - The calls of one synchronous run of JS (one call, or a `Promise.all` of many) are
//!   collected and answered in a microtask once the run is over. Then it is known how many
//!   came: up to [`MAX_CALLS_READ_HERE`] are read here; a larger burst goes to the pool
//!   whole, whose threads read in parallel while this one settles.
//! - Reads here in a row are bounded by time: once they have taken [`MAX_STREAK`] with the
//!   event loop given no chance to turn (a loop awaiting one read after another settles
//!   its promises in microtasks, without the loop turning), calls go to the pool until one
//!   of its answers comes back through the loop (timers and I/O run meanwhile), or the
//!   thread has been idle. (Waiting for the loop's next turn instead, by a thread-safe
//!   function's async event, was tried: Node dispatches up to 1,000 of those in one turn,
//!   so the loop did not turn at all.)
//! - A read that would wait is sent to the pool from here.
//!
//! Nothing here uses `setImmediate`, `setTimeout` or `queueMicrotask`: test suites replace
//! those with fake timers, under which a read must still settle. The microtask is the
//! reaction of an already-resolved promise.

use std::cell::{Cell, OnceCell, RefCell};
use std::time::{Duration, Instant};

use napi::bindgen_prelude::{
    FnArgs, FromNapiValue, Function, JsObjectValue, Object, ObjectRef, ToNapiValue,
};
use napi::{Env, JsValue, Unknown};

use super::Queued;
use crate::js;

/// The most calls of one run of JS read here: a pool round trip costs more than a few
/// reads here, and less than many.
pub(super) const MAX_CALLS_READ_HERE: usize = 4;

/// How long reads here may hold the event loop in a row before a call goes to the pool and
/// the loop turns (the benchmark README has the figures behind it).
const MAX_STREAK: Duration = Duration::from_millis(1);

/// A pause this long since the last read here means the thread did other work (or
/// slept): a new streak starts.
const STREAK_GAP: Duration = Duration::from_millis(1);

/// One env's calls for the JS thread, and its current streak of reads here.
#[derive(Default)]
pub(super) struct JsThread {
    /// Calls of the current run of JS, for the microtask.
    collected: RefCell<Vec<Queued>>,
    microtask_due: Cell<bool>,
    /// The microtask's function, made once.
    on_run_end: OnceCell<ObjectRef<false>>,
    /// Time spent reading here since the streak began, and when its last read ended.
    streak: Cell<Option<(Duration, Instant)>>,
}

/// What the microtask runs, on the env it runs on.
pub(super) type Callback = fn(&Env);

impl JsThread {
    /// Takes `queued` to be answered by `on_run_end` in a microtask after the current run
    /// of JS (`None`), or gives it back for the pool (when the microtask cannot be
    /// scheduled).
    pub(super) fn collect(
        &self,
        env: &Env,
        queued: Queued,
        on_run_end: Callback,
    ) -> Option<Queued> {
        if !self.microtask_due.get() {
            if schedule_microtask(env, &self.on_run_end, on_run_end).is_err() {
                return Some(queued);
            }
            self.microtask_due.set(true);
        }
        self.collected.borrow_mut().push(queued);
        None
    }

    /// The calls of the run of JS that ended (the microtask runs).
    pub(super) fn take_run(&self) -> Vec<Queued> {
        self.microtask_due.set(false);
        std::mem::take(&mut *self.collected.borrow_mut())
    }

    /// `read` done here, if the streak allows and nothing in it would wait (`read` answers
    /// `None` then): counted into the streak. `None`: the call goes to the pool.
    pub(super) fn attempt<T>(&self, read: impl FnOnce() -> Option<T>) -> Option<T> {
        if !self.may_read() {
            return None;
        }
        let started = Instant::now();
        let outcome = read();
        self.count(started);
        outcome
    }

    /// A pool answer came back through the event loop: the loop has turned.
    pub(super) fn loop_turned(&self) {
        self.streak.set(None);
    }

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
}

/// Runs `callback` as a microtask: the reaction of a promise resolved now. Its function is
/// made on first use and kept in `made`. (napi-rs's `PromiseRaw::then` would make a new
/// function every time, measurably slower: see the benchmark README.)
fn schedule_microtask(
    env: &Env,
    made: &OnceCell<ObjectRef<false>>,
    callback: Callback,
) -> napi::Result<()> {
    let function = match made.get() {
        Some(kept) => kept.get_value(env)?,
        None => {
            let function: Function<(), ()> =
                env.create_function_from_closure("readFileRunEnded", move |call| {
                    callback(call.env);
                    Ok(())
                })?;
            let function = Object::from_unknown(function.to_unknown())?;
            let _ = made.set(function.create_ref()?);
            function
        }
    };
    let (deferred, promise) = js::promise(env)?;
    deferred.settle(env, Ok(().into_unknown(env)?));
    let then: Function<FnArgs<(Object,)>, Unknown> = promise.get_named_property("then")?;
    js::cleared(env, then.apply(promise, (function,).into())).map(drop)
}
