//! Calls read on the libuv thread pool.
//!
//! One pool work item per call costs a pool wake-up, a completion wake-up and a work
//! allocation each, which on a busy event loop outweighs the read itself. So a call gets a
//! work item of its own only while fewer than [`MAX_IN_FLIGHT`] are running; otherwise it
//! waits in a queue that the running work items take from before they finish, up to
//! [`MAX_CALLS_PER_WORK_ITEM`] calls each, and whatever is still waiting when one finishes
//! goes to the pool together.
//!
//! Media reads (`view` of an image, notebook or PDF) take a lane of their own: a decode can
//! hold a pool thread for seconds, so at most [`MEDIA_IN_FLIGHT`] of an env's run at once,
//! one call a work item, and a text read never waits in a queue behind one. One, because the
//! pool may be small: Node's libuv has 4 threads, Bun's pool one per CPU (2 on a 2-core
//! machine), and a text read must find a thread free. And one in the whole process: a media
//! work item goes to the pool only with the process's [`DecodePermit`], which the envs of
//! all threads share; the lane of an env that finds it taken is woken when it is free.

use std::cell::Cell;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use napi::bindgen_prelude::Undefined;
use napi::{Env, Task};

use super::decode_permit::{self, DecodePermit};
use super::{EnvState, Queued};
use crate::call::{OpenedRoots, Reply};
use agent_read_file_engine::error::ReadFileError;
use agent_read_file_engine::{Access, waited};

/// Work items of one env on the pool at once (libuv's default pool has 4 threads).
const MAX_IN_FLIGHT: usize = 4;
/// Calls one work item carries at most, so results keep flowing back while others run.
const MAX_CALLS_PER_WORK_ITEM: usize = 16;
/// Media work items of one env on the pool at once, each of one call.
const MEDIA_IN_FLIGHT: usize = 1;
/// Content one work item hands back at most (plus one read), so settling its results,
/// which turns every one into a JS string at once, never holds up the event loop for long.
const MAX_WORK_ITEM_CONTENT_BYTES: usize = 1 << 20;

/// One env's calls for the pool, in one lane: waiting, and how many work items run.
pub(super) struct Pool {
    lane: Lane,
    waiting: Waiting,
    in_flight: Cell<usize>,
    /// Whether this env is among those the decode permit wakes when it is given back.
    waiting_for_permit: Cell<bool>,
}

/// Which calls a [`Pool`] runs, and so how many work items of how many calls.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Lane {
    /// Every call but a media read.
    Text,
    /// Media reads, which decode.
    Media,
}

impl Lane {
    fn max_in_flight(self) -> usize {
        match self {
            Lane::Text => MAX_IN_FLIGHT,
            Lane::Media => MEDIA_IN_FLIGHT,
        }
    }

    fn max_calls_per_work_item(self) -> usize {
        match self {
            Lane::Text => MAX_CALLS_PER_WORK_ITEM,
            Lane::Media => 1,
        }
    }
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

impl Pool {
    /// An empty lane.
    pub(super) fn new(lane: Lane) -> Pool {
        Pool {
            lane,
            waiting: Waiting::default(),
            in_flight: Cell::new(0),
            waiting_for_permit: Cell::new(false),
        }
    }

    /// Queues `calls` and starts work items for them.
    pub(super) fn send(&self, env: &Env, calls: Vec<Queued>) {
        self.waiting.lock().extend(calls);
        self.start(env);
    }

    /// Sends waiting calls to the pool while fewer than the lane's work items run.
    fn start(&self, env: &Env) {
        let max_calls = self.lane.max_calls_per_work_item();
        while self.in_flight.get() < self.lane.max_in_flight() {
            let mut waiting = self.waiting.lock();
            let count = waiting.len().min(max_calls);
            if count == 0 {
                return;
            }
            let permit = match self.lane {
                Lane::Text => None,
                Lane::Media => match self.decode_permit(env) {
                    Some(permit) => Some(permit),
                    None => return, // woken when it is given back
                },
            };
            let mut calls = Vec::with_capacity(max_calls);
            calls.extend(waiting.drain(..count));
            drop(waiting);
            let item = WorkItem {
                lane: self.lane,
                calls,
                waiting: self.waiting.clone(),
                permit,
            };
            if env.spawn(item).is_err() {
                // The env is shutting down: nothing is left to settle the promises for.
                return;
            }
            self.in_flight.set(self.in_flight.get() + 1);
        }
    }

    /// The process's decode permit, or `None` while another work item holds it: then this
    /// env waits for it (once, however often it asks) and is woken on its JS thread.
    fn decode_permit(&self, env: &Env) -> Option<DecodePermit> {
        let mut now_waiting = false;
        let permit = DecodePermit::take_or_wait(|| {
            if self.waiting_for_permit.get() {
                return None;
            }
            let waker = decode_permit::waker(env, wake_media_lane);
            now_waiting = waker.is_some();
            waker
        });
        if now_waiting {
            self.waiting_for_permit.set(true);
        }
        permit
    }

    /// A work item came back; `left_over`, the calls it did not run, go back to the head of
    /// the queue.
    fn finished(&self, left_over: Vec<Queued>) {
        self.in_flight.set(self.in_flight.get() - 1);
        let mut waiting = self.waiting.lock();
        for call in left_over.into_iter().rev() {
            waiting.push_front(call);
        }
    }
}

/// The decode permit was given back: `env`'s media lane sends what waits, if it can.
fn wake_media_lane(env: &Env) {
    if let Ok(state) = EnvState::of(env) {
        let pool = state.pool(Lane::Media);
        pool.waiting_for_permit.set(false);
        pool.start(env);
    }
}

/// Calls run together on one pool thread.
struct WorkItem {
    lane: Lane,
    calls: Vec<Queued>,
    /// Where more calls wait; the work item takes them while it has room.
    waiting: Waiting,
    /// A media work item's right to decode, given back as soon as its call has run.
    permit: Option<DecodePermit>,
}

impl Task for WorkItem {
    type Output = Vec<Result<Reply, ReadFileError>>;
    type JsValue = Undefined;

    /// Runs its calls, then waiting ones, until its lane's calls a work item have run, none
    /// is waiting, or [`MAX_WORK_ITEM_CONTENT_BYTES`] of content is ready. Calls of its own
    /// left over go back to the head of the queue when it is resolved.
    fn compute(&mut self) -> napi::Result<Self::Output> {
        let mut roots = OpenedRoots::default();
        let mut replies = Vec::with_capacity(self.lane.max_calls_per_work_item());
        let mut content_bytes = 0;
        while content_bytes < MAX_WORK_ITEM_CONTENT_BYTES && self.take_next(replies.len()) {
            let call = &self.calls[replies.len()].call;
            let reply = waited(call.run_with(&mut roots, Access::MayWait));
            content_bytes += reply.as_ref().map_or(0, Reply::content_len);
            replies.push(reply);
        }
        drop(self.permit.take());
        Ok(replies)
    }

    fn resolve(&mut self, env: Env, replies: Self::Output) -> napi::Result<Undefined> {
        let state = EnvState::of(&env)?;
        let pool = state.pool(self.lane);
        // Put the queue right before settling anything: settling runs JS, which may start
        // more calls.
        pool.finished(self.calls.split_off(replies.len()));
        // A view whose text stage found a file to decode goes to the media lane, unsettled.
        let (mut answered, mut to_decode) = (Vec::with_capacity(replies.len()), Vec::new());
        for (queued, reply) in self.calls.drain(..).zip(replies) {
            match reply {
                Ok(Reply::NeedsDecoding(opened)) => to_decode.push(queued.decoding(opened)),
                reply => answered.push((queued.id, reply)),
            }
        }
        super::pool_answered(&env, state, answered.into_iter());
        pool.start(&env);
        // A call whose signal fired meanwhile was settled as aborted: it goes no further.
        to_decode.retain(|queued| state.promises.is_unsettled(queued.id));
        if !to_decode.is_empty() {
            state.pool(Lane::Media).send(&env, to_decode);
        }
        Ok(())
    }
}

impl WorkItem {
    /// Whether call number `ran` is there to run, taking a waiting call if need be.
    fn take_next(&mut self, ran: usize) -> bool {
        if ran < self.calls.len() {
            return true;
        }
        if ran == self.lane.max_calls_per_work_item() {
            return false;
        }
        let next = self.waiting.lock().pop_front();
        next.map(|call| self.calls.push(call)).is_some()
    }
}
