//! Open root handles, reused across calls that name the same workspace root.
//!
//! Opening a root costs an `open` and a `realpath`; a toolkit sends the same root on every
//! call. A cached handle is reused only while the root path still names the same
//! directory (same device and inode), so a workspace deleted and created again at the
//! same path is opened afresh.
//!
//! A cached root unused for [`ROOT_IDLE`] is closed, so a workspace's file system can be
//! unmounted once its calls are over. A janitor thread does it: started when the cache
//! gets its first entry, sleeping until the oldest entry's deadline, and ending when the
//! cache is empty again.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use crate::error::ReadFileError;
use crate::sandbox::Root;

/// Roots kept open at once; the least recently used is closed first.
const CAPACITY: usize = 8;

/// How long an unused root stays open. The cache only has to span a burst of calls (an
/// agent's reads of one step); reopening a root costs microseconds, against seconds
/// between an agent's steps, while a handle held for longer keeps the file system busy.
pub const ROOT_IDLE: Duration = Duration::from_secs(5);

static CACHE: RootCache = RootCache::new(ROOT_IDLE);

/// The open root for `path`, from the cache when it still names the same directory.
pub fn open(path: &str) -> Result<Arc<Root>, ReadFileError> {
    CACHE.open(path)
}

/// [`open`] for a thread that must not wait (an event loop): the cached root for `path`
/// when the path, resolved from the kernel's dentry cache alone, still names its
/// directory; else `None` (opening a root, or resolving its path, may wait for a disk or
/// a server).
pub fn open_from_memory(path: &str) -> Option<Arc<Root>> {
    let identity = crate::sandbox::directory_identity_from_memory(path)?;
    CACHE.lookup(path, identity)
}

/// Roots by path, most recently used first, each closed after `idle` unused.
struct RootCache {
    state: Mutex<State>,
    idle: Duration,
}

struct State {
    entries: Vec<Entry>,
    /// Whether a janitor thread is watching `entries`.
    janitor: bool,
}

struct Entry {
    path: String,
    root: Arc<Root>,
    last_used: Instant,
}

impl RootCache {
    const fn new(idle: Duration) -> RootCache {
        RootCache {
            state: Mutex::new(State {
                entries: Vec::new(),
                janitor: false,
            }),
            idle,
        }
    }

    fn open(&'static self, path: &str) -> Result<Arc<Root>, ReadFileError> {
        let Some(identity) = identity_of(path) else {
            // Let `Root::open` explain what is wrong with the path.
            return Root::open(path).map(Arc::new);
        };
        if let Some(root) = self.lookup(path, identity) {
            return Ok(root);
        }
        let root = Arc::new(Root::open(path)?);
        if root.identity() == identity {
            self.insert(path, root.clone());
        }
        Ok(root)
    }

    fn lookup(&self, path: &str, identity: (u64, u64)) -> Option<Arc<Root>> {
        let mut state = self.lock();
        let index = state
            .entries
            .iter()
            .position(|entry| entry.path == path && entry.root.identity() == identity)?;
        let mut entry = state.entries.remove(index);
        entry.last_used = Instant::now();
        let root = entry.root.clone();
        state.entries.insert(0, entry);
        Some(root)
    }

    fn insert(&'static self, path: &str, root: Arc<Root>) {
        let mut state = self.lock();
        if !state.janitor {
            let spawned = std::thread::Builder::new()
                .name("agent-read-file root janitor".into())
                .spawn(|| self.close_idle_roots());
            if spawned.is_err() {
                // No janitor, nothing cached: nothing may stay open for good.
                return;
            }
            state.janitor = true;
        }
        state.entries.retain(|entry| entry.path != path);
        let entry = Entry {
            path: path.to_owned(),
            root,
            last_used: Instant::now(),
        };
        state.entries.insert(0, entry);
        state.entries.truncate(CAPACITY);
    }

    /// The janitor: closes roots idle for `idle`, sleeping until the next one may be,
    /// and returns once the cache is empty.
    fn close_idle_roots(&self) {
        loop {
            let next_deadline = {
                let mut state = self.lock();
                let idle = self.idle;
                state
                    .entries
                    .retain(|entry| entry.last_used.elapsed() < idle);
                let Some(oldest) = state.entries.iter().map(|entry| entry.last_used).min() else {
                    state.janitor = false;
                    return;
                };
                oldest + idle
            };
            std::thread::sleep(next_deadline.saturating_duration_since(Instant::now()));
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Nothing that holds the lock can panic half-way: a poisoned cache is still whole.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

fn identity_of(path: &str) -> Option<(u64, u64)> {
    if !path.starts_with('/') {
        return None;
    }
    let stat = rustix::fs::stat(path).ok()?;
    Some(crate::sandbox::identity(&stat))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;
    use std::fs;

    #[test]
    fn reuses_a_root_until_its_directory_is_replaced() {
        let tmp = tempfile::tempdir().unwrap();
        let ws = tmp.path().join("ws");
        fs::create_dir(&ws).unwrap();
        let path = ws.to_str().unwrap();
        let first = open(path).unwrap();
        assert!(Arc::ptr_eq(&first, &open(path).unwrap()));
        fs::remove_dir(&ws).unwrap();
        assert_eq!(open(path).unwrap_err().code, ErrorCode::InvalidArgument);
        fs::create_dir(&ws).unwrap();
        let fresh = open(path).unwrap();
        assert!(!Arc::ptr_eq(&first, &fresh));
        assert_ne!(first.identity(), fresh.identity());
    }

    #[test]
    fn an_idle_root_is_closed_without_another_call_and_the_janitor_ends() {
        let cache: &'static RootCache =
            Box::leak(Box::new(RootCache::new(Duration::from_millis(100))));
        let tmp = tempfile::tempdir().unwrap();
        let root = cache.open(tmp.path().to_str().unwrap()).unwrap();
        assert_eq!(Arc::strong_count(&root), 2, "cached");
        assert!(cache.lock().janitor);
        let started = Instant::now();
        while Arc::strong_count(&root) > 1 && started.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(
            Arc::strong_count(&root),
            1,
            "still cached after {:?}",
            started.elapsed()
        );
        assert!(started.elapsed() >= Duration::from_millis(50));
        std::thread::sleep(Duration::from_millis(50));
        let state = cache.lock();
        assert!(state.entries.is_empty() && !state.janitor);
    }

    #[test]
    fn a_root_in_use_stays_open() {
        let cache: &'static RootCache = Box::leak(Box::new(RootCache::new(Duration::from_secs(2))));
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().to_str().unwrap();
        let first = cache.open(path).unwrap();
        for _ in 0..6 {
            std::thread::sleep(Duration::from_millis(100));
            assert!(Arc::ptr_eq(&first, &cache.open(path).unwrap()));
        }
    }
}
