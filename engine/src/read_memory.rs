//! What a model was given of each file, for a toolkit made with `dedupeReads`: the lines, as
//! spans of whole lines, and the content hash of the version they came from. A window all of
//! whose lines it holds for the same version need not be sent again
//! ([`model_text::render_unchanged`](crate::model_text::render_unchanged) says so instead).

use crate::read_file::ReadFileOutput;
use crate::recent::Recent;

/// The most files remembered; the one given least recently goes first (as the ledger's).
pub const MAX_REMEMBERED_FILES: usize = 4096;

/// The lines given of each file, by path.
#[derive(Debug, Default)]
pub struct ReadMemory {
    files: Recent<Given, MAX_REMEMBERED_FILES>,
}

/// The lines given of one file.
#[derive(Debug)]
struct Given {
    /// The content hash of the version they came from.
    hash: u128,
    /// Spans of whole lines, first to last, sorted, neither overlapping nor touching.
    spans: Vec<(u64, u64)>,
}

impl ReadMemory {
    /// Whether the model was given every line of `output` (a window of the version whose
    /// content hash is `hash`) before. When it was not, they are remembered as given now,
    /// and lines given of another version of the file are dropped (the model's copy of them
    /// is stale). A window that is not whole lines (none, a cut line, lines read from a
    /// column: `from_column`) is never given before, nor remembered.
    pub fn given_before(&mut self, output: &ReadFileOutput, hash: u128, from_column: bool) -> bool {
        let returned = u64::from(output.meta.returned_line_count);
        if returned == 0 || output.continuation.is_some() || from_column {
            return false;
        }
        let first = output.first_line();
        let last = first + returned - 1;
        if let Some(given) = self
            .files
            .used(&output.path)
            .filter(|given| given.hash == hash)
        {
            if given
                .spans
                .iter()
                .any(|&(from, to)| from <= first && last <= to)
            {
                return true;
            }
            given.spans = merged(&given.spans, (first, last));
            return false;
        }
        let given = Given {
            hash,
            spans: vec![(first, last)],
        };
        self.files.insert(output.path.clone(), given);
        false
    }

    /// Forgets everything given: the next read of any window sends its lines.
    pub fn forget(&mut self) {
        self.files.clear();
    }
}

/// `spans` with `span` added, overlapping or touching spans joined.
fn merged(spans: &[(u64, u64)], span: (u64, u64)) -> Vec<(u64, u64)> {
    let mut sorted = spans.to_vec();
    sorted.push(span);
    sorted.sort_unstable();
    let mut joined: Vec<(u64, u64)> = Vec::with_capacity(sorted.len());
    for (from, to) in sorted {
        match joined.last_mut() {
            Some(last) if from <= last.1.saturating_add(1) => last.1 = last.1.max(to),
            _ => joined.push((from, to)),
        }
    }
    joined
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read_file::{Content, Continuation, ReadFileMeta};

    /// A window of `path`: lines `first`..`first + returned - 1` of a file of 100 lines.
    fn window(path: &str, first: u64, returned: u32) -> ReadFileOutput {
        let last = first + u64::from(returned) - 1;
        ReadFileOutput {
            path: path.to_owned(),
            content: Content::owned("x\n".repeat(returned as usize)),
            truncated: last < 100,
            next_start_line: (last < 100).then_some(last + 1),
            meta: ReadFileMeta {
                byte_length: 200,
                line_count: 100,
                returned_line_count: returned,
                mtime_ms: 0,
            },
            continuation: None,
            note: None,
        }
    }

    #[test]
    fn lines_given_before_of_the_same_version_are_known_and_others_are_remembered() {
        let mut memory = ReadMemory::default();
        assert!(!memory.given_before(&window("a.txt", 1, 3), 7, false));
        assert!(memory.given_before(&window("a.txt", 1, 3), 7, false));
        assert!(
            memory.given_before(&window("a.txt", 2, 1), 7, false),
            "inside a span"
        );
        assert!(
            !memory.given_before(&window("a.txt", 3, 3), 7, false),
            "reaches past it"
        );
        assert!(
            memory.given_before(&window("a.txt", 1, 5), 7, false),
            "joined with 1-3"
        );
        assert!(!memory.given_before(&window("a.txt", 7, 2), 7, false));
        assert!(
            !memory.given_before(&window("a.txt", 5, 3), 7, false),
            "6 was never given"
        );
        assert!(
            memory.given_before(&window("a.txt", 1, 8), 7, false),
            "1-5, 5-7, 7-8 joined"
        );
        assert!(
            !memory.given_before(&window("b.txt", 1, 3), 7, false),
            "another file"
        );
    }

    #[test]
    fn another_version_drops_what_was_given_of_the_old_one() {
        let mut memory = ReadMemory::default();
        memory.given_before(&window("a.txt", 1, 3), 7, false);
        assert!(!memory.given_before(&window("a.txt", 1, 3), 8, false));
        assert!(memory.given_before(&window("a.txt", 1, 3), 8, false));
        assert!(
            !memory.given_before(&window("a.txt", 1, 3), 7, false),
            "7's lines were dropped"
        );
    }

    #[test]
    fn a_cut_line_an_empty_window_or_lines_from_a_column_are_never_known_nor_remembered() {
        let mut memory = ReadMemory::default();
        let mut cut = window("a.txt", 4, 1);
        cut.continuation = Some(Continuation {
            start_line: 4,
            start_column: 100,
            line_bytes: Some(500),
        });
        for _ in 0..2 {
            assert!(!memory.given_before(&cut, 7, false));
            assert!(!memory.given_before(&window("a.txt", 1, 3), 7, true));
        }
        assert!(
            !memory.given_before(&window("a.txt", 1, 3), 7, false),
            "1-3 not remembered"
        );
        let mut empty = window("a.txt", 1, 1);
        empty.meta.returned_line_count = 0;
        assert!(!memory.given_before(&empty, 7, false));
    }

    #[test]
    fn past_its_capacity_the_file_given_least_recently_goes_first() {
        let mut memory = ReadMemory::default();
        memory.given_before(&window("first.txt", 1, 1), 7, false);
        memory.given_before(&window("second.txt", 1, 1), 7, false);
        for n in 0..MAX_REMEMBERED_FILES - 2 {
            memory.given_before(&window(&format!("{n}.txt"), 1, 1), 7, false);
        }
        // first.txt used again: second.txt is now the least recent.
        assert!(memory.given_before(&window("first.txt", 1, 1), 7, false));
        memory.given_before(&window("one-more.txt", 1, 1), 7, false);
        assert_eq!(memory.files.len(), MAX_REMEMBERED_FILES);
        assert!(memory.given_before(&window("first.txt", 1, 1), 7, false));
        assert!(!memory.given_before(&window("second.txt", 1, 1), 7, false));
    }
}
