//! Attempts that must not wait: work done on a thread that may not block (an event loop),
//! which either finishes without waiting for a disk or a network, or says so and is done
//! again where waiting is allowed.

/// What an attempt that must not wait came to.
#[derive(Debug)]
pub enum Attempt<T> {
    /// Done, and nothing waited on a disk, a network or a lock.
    Done(T),
    /// Going on could wait: do it again where waiting is allowed.
    WouldBlock,
}

impl<T> Attempt<T> {
    /// The outcome, or `None` when the attempt would have waited.
    pub fn done(self) -> Option<T> {
        match self {
            Attempt::Done(value) => Some(value),
            Attempt::WouldBlock => None,
        }
    }
}

impl<T, E> Attempt<Result<T, E>> {
    /// A failure as the `Err`, so that `?` passes it on: `Ok(WouldBlock)` or `Ok(Done(value))`.
    pub fn transpose(self) -> Result<Attempt<T>, E> {
        match self {
            Attempt::Done(Ok(value)) => Ok(Attempt::Done(value)),
            Attempt::Done(Err(error)) => Err(error),
            Attempt::WouldBlock => Ok(Attempt::WouldBlock),
        }
    }
}

/// The inverse of [`Attempt::transpose`].
pub fn untranspose<T, E>(result: Result<Attempt<T>, E>) -> Attempt<Result<T, E>> {
    match result {
        Ok(Attempt::Done(value)) => Attempt::Done(Ok(value)),
        Ok(Attempt::WouldBlock) => Attempt::WouldBlock,
        Err(error) => Attempt::Done(Err(error)),
    }
}

/// In a function returning `Result<Attempt<_>, _>`: the value of `Ok(Attempt::Done(_))`,
/// else an early return of the error or of `Ok(Attempt::WouldBlock)`.
macro_rules! done_or_return {
    ($result:expr) => {
        match $result? {
            $crate::attempt::Attempt::Done(value) => value,
            $crate::attempt::Attempt::WouldBlock => {
                return Ok($crate::attempt::Attempt::WouldBlock);
            }
        }
    };
}
pub(crate) use done_or_return;
