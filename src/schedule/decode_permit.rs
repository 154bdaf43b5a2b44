//! The one media decode a process runs at a time.
//!
//! A decode may hold about 200 MB (4 bytes a pixel of the largest image allowed) and a pool
//! thread for up to a second. Each env runs one at a time (its media lane), but a process
//! may have many envs (workers), and they share one libuv pool: 4 threads in Node, one per
//! CPU in Bun. So a media work item is sent to the pool only with the process's one
//! [`DecodePermit`]: an env that finds it taken keeps its media calls waiting, off the pool,
//! and is woken on its own JS thread when the permit is given back, whichever thread gives
//! it back. Two bounds follow, for the whole process: one decode's memory at a time, and
//! one pool thread held by decoding, so a text read always finds a thread free.

use std::sync::{Mutex, MutexGuard, PoisonError};

use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::{Env, Status};

/// Calls its env's `wake` on that env's JS thread. Made while the env waits, it keeps the
/// env's event loop alive until then (a worker with nothing but a waiting decode would
/// otherwise exit), and goes when called.
pub(super) type Waker = ThreadsafeFunction<(), (), (), Status, false, false, 0>;

/// The process's permit, and the envs waiting for it.
struct Permit {
    taken: bool,
    waiting: Vec<Waker>,
}

static PERMIT: Mutex<Permit> = Mutex::new(Permit {
    taken: false,
    waiting: Vec::new(),
});

fn permit() -> MutexGuard<'static, Permit> {
    // Nothing that holds the lock can panic half-way: a poisoned permit is still whole.
    PERMIT.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The right to decode, given back when dropped.
pub(super) struct DecodePermit(());

impl DecodePermit {
    /// The permit, or `None` when it is taken: then `waker` (when given) is kept, and called
    /// once the permit is given back. Both under one lock, so no give-back is missed.
    pub(super) fn take_or_wait(waker: impl FnOnce() -> Option<Waker>) -> Option<DecodePermit> {
        let mut permit = permit();
        if !permit.taken {
            permit.taken = true;
            return Some(DecodePermit(()));
        }
        permit.waiting.extend(waker());
        None
    }
}

impl Drop for DecodePermit {
    /// Gives the permit back and wakes every env waiting: each tries again, and those that
    /// find it taken wait anew. All of them, so that one whose env is gone cannot leave the
    /// rest waiting.
    fn drop(&mut self) {
        let waiting = {
            let mut permit = permit();
            permit.taken = false;
            std::mem::take(&mut permit.waiting)
        };
        for waker in waiting {
            // An env torn down meanwhile answers `Closing`, and has nothing to wake.
            waker.call((), ThreadsafeFunctionCallMode::NonBlocking);
        }
    }
}

/// A [`Waker`] that runs `wake` on `env`'s JS thread; `None` if the env is shutting down.
pub(super) fn waker(env: &Env, wake: fn(&Env)) -> Option<Waker> {
    let function = env
        .create_function_from_closure::<(), (), _>("wakeMediaLane", move |call| {
            wake(call.env);
            Ok(())
        })
        .ok()?;
    function.build_threadsafe_function::<()>().build().ok()
}
