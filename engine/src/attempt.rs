//! Reads that must not wait: work done on a thread that may not block (an event loop),
//! which either finishes without waiting for a disk or a network, or says so and is done
//! again where waiting is allowed. Such a read is said to be done *from memory* (from what
//! the kernel holds: its dentry cache, its page cache), everywhere in the engine and the
//! binding, and asked for by one value, [`Access`], carried in the read's options.
//!
//! An attempt is a `Result` whose error is a [`Stop`]: a failure, or
//! [`Stop::WouldBlock`]. So `?` passes both on, and a failure of another type converts
//! into one with [`Stop::map`].

use crate::error::{ErrorCode, ReadFileError};

/// Whether a read may wait for the disk. Every layer (sandbox, policy, guard, use case)
/// takes it and runs one pipeline for both.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Access {
    /// It may wait (a pool thread, a synchronous call): it never ends in
    /// [`Stop::WouldBlock`].
    #[default]
    MayWait,
    /// It must not (an event loop): done only from what the kernel holds in memory, else
    /// [`Stop::WouldBlock`], and done again with [`Access::MayWait`] where waiting is
    /// allowed.
    FromMemory,
}

/// Why an attempt gave no value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop<E = ReadFileError> {
    /// It failed, without waiting for anything.
    Failed(E),
    /// Going on could wait: do it again where waiting is allowed.
    WouldBlock,
}

/// What an attempt that must not wait came to: its value, its failure, or
/// [`Stop::WouldBlock`].
pub type Attempt<T, E = ReadFileError> = Result<T, Stop<E>>;

impl<E> From<E> for Stop<E> {
    fn from(error: E) -> Stop<E> {
        Stop::Failed(error)
    }
}

impl<E> Stop<E> {
    /// The failure mapped by `map`; [`Stop::WouldBlock`] stays.
    pub fn map<F>(self, map: impl FnOnce(E) -> F) -> Stop<F> {
        match self {
            Stop::Failed(error) => Stop::Failed(map(error)),
            Stop::WouldBlock => Stop::WouldBlock,
        }
    }
}

/// The attempt's answer, done or failed; `None` when it would have waited.
pub fn answered<T, E>(attempt: Attempt<T, E>) -> Option<Result<T, E>> {
    match attempt {
        Ok(value) => Some(Ok(value)),
        Err(Stop::Failed(error)) => Some(Err(error)),
        Err(Stop::WouldBlock) => None,
    }
}

/// The answer of an attempt made with [`Access::MayWait`], which never would block (an
/// [`ErrorCode::Internal`] error if it said so, never a panic).
pub fn waited<T>(attempt: Attempt<T>) -> Result<T, ReadFileError> {
    attempt.map_err(|stop| match stop {
        Stop::Failed(error) => error,
        Stop::WouldBlock => {
            ReadFileError::new(ErrorCode::Internal, "", "a read that may wait would block")
        }
    })
}
