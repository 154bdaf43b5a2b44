//! Open root handles, reused across calls that name the same workspace root.
//!
//! Opening a root costs an `open` and a `realpath`; a toolkit sends the same root on every
//! call. A cached handle is reused only while the root path still names the same
//! directory (same device and inode), so a workspace deleted and created again at the
//! same path is opened afresh.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::error::ReadFileError;
use crate::sandbox::Root;

/// Roots kept open at once; the least recently used is closed first.
const CAPACITY: usize = 8;

static CACHE: Mutex<Vec<(String, Arc<Root>)>> = Mutex::new(Vec::new());

/// The open root for `path`, from the cache when it still names the same directory.
pub fn open(path: &str) -> Result<Arc<Root>, ReadFileError> {
    let Some(identity) = identity_of(path) else {
        // Let `Root::open` explain what is wrong with the path.
        return Root::open(path).map(Arc::new);
    };
    if let Some(root) = lookup(path, identity) {
        return Ok(root);
    }
    let root = Arc::new(Root::open(path)?);
    if root.identity() == identity {
        insert(path, root.clone());
    }
    Ok(root)
}

fn identity_of(path: &str) -> Option<(u64, u64)> {
    if !path.starts_with('/') {
        return None;
    }
    let stat = rustix::fs::stat(path).ok()?;
    Some((stat.st_dev, stat.st_ino))
}

fn lookup(path: &str, identity: (u64, u64)) -> Option<Arc<Root>> {
    let mut cache = cache();
    let index = cache
        .iter()
        .position(|(cached, root)| cached == path && root.identity() == identity)?;
    let entry = cache.remove(index);
    let root = entry.1.clone();
    cache.insert(0, entry);
    Some(root)
}

fn insert(path: &str, root: Arc<Root>) {
    let mut cache = cache();
    cache.retain(|(cached, _)| cached != path);
    cache.insert(0, (path.to_owned(), root));
    cache.truncate(CAPACITY);
}

fn cache() -> MutexGuard<'static, Vec<(String, Arc<Root>)>> {
    // Nothing that holds the lock can panic half-way: a poisoned cache is still whole.
    CACHE.lock().unwrap_or_else(PoisonError::into_inner)
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
}
