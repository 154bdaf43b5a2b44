//! Values kept by path for the files used most recently, at most a fixed number: the
//! ledger's versions ([`Ledger`](crate::Ledger)) and the lines a model was given
//! ([`ReadMemory`](crate::read_memory::ReadMemory)).

use std::collections::{BTreeMap, HashMap};

/// At most `CAPACITY` values by path; past it, the one used least recently is forgotten.
/// Each operation costs a hash lookup and a step in an ordered map, whatever the count.
#[derive(Debug)]
pub(crate) struct Recent<V, const CAPACITY: usize> {
    by_path: HashMap<String, (V, u64)>,
    /// Paths by the tick of their last use, oldest first.
    by_age: BTreeMap<u64, String>,
    tick: u64,
}

impl<V, const CAPACITY: usize> Default for Recent<V, CAPACITY> {
    fn default() -> Self {
        Recent {
            by_path: HashMap::new(),
            by_age: BTreeMap::new(),
            tick: 0,
        }
    }
}

impl<V, const CAPACITY: usize> Recent<V, CAPACITY> {
    /// The value of `path`, not counted as a use.
    pub(crate) fn get(&self, path: &str) -> Option<&V> {
        self.by_path.get(path).map(|(value, _)| value)
    }

    /// The value of `path`, counted as a use.
    pub(crate) fn used(&mut self, path: &str) -> Option<&mut V> {
        self.tick += 1;
        let (value, last_use) = self.by_path.get_mut(path)?;
        let path = self.by_age.remove(last_use)?;
        *last_use = self.tick;
        self.by_age.insert(self.tick, path);
        Some(value)
    }

    /// Keeps `value` as `path`'s, a use, replacing what `path` had; forgets the path used
    /// least recently when that makes more than `CAPACITY`.
    pub(crate) fn insert(&mut self, path: String, value: V) {
        self.tick += 1;
        if let Some((_, old)) = self.by_path.insert(path.clone(), (value, self.tick)) {
            self.by_age.remove(&old);
        }
        self.by_age.insert(self.tick, path);
        if self.by_path.len() > CAPACITY
            && let Some((_, oldest)) = self.by_age.pop_first()
        {
            self.by_path.remove(&oldest);
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.by_path.len()
    }

    pub(crate) fn clear(&mut self) {
        self.by_path.clear();
        self.by_age.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn past_capacity_the_least_recently_used_goes_first_and_a_get_is_no_use() {
        let mut recent: Recent<u32, 3> = Recent::default();
        for (n, path) in ["a", "b", "c"].into_iter().enumerate() {
            recent.insert(path.to_owned(), n as u32);
        }
        assert_eq!(recent.used("a"), Some(&mut 0));
        assert_eq!(recent.get("b"), Some(&1));
        recent.insert("d".to_owned(), 3);
        assert_eq!(recent.len(), 3);
        assert_eq!(recent.get("b"), None, "b was used least recently");
        recent.insert("c".to_owned(), 9);
        recent.insert("e".to_owned(), 4);
        assert_eq!(recent.get("a"), None, "then a");
        assert_eq!(recent.get("c"), Some(&9), "replaced, and used");
        assert_eq!(recent.used("gone"), None);
        recent.clear();
        assert_eq!(recent.len(), 0);
    }
}
