//! Where a long source text is cut to be parsed in pieces at once, one a thread: at lines
//! that look like the start of a top-level item. Found lexically, so a cut may fall inside a
//! string or a comment; the parse of each piece tells (`grammar`), and the text is then
//! parsed whole.

/// Texts from this many bytes on are parsed in pieces (a parse takes about 0.1-0.2 ms a
/// KiB: below this, a few tens of ms, and the threads would gain little).
const PIECES_FROM: usize = 256 * 1024;
/// A piece holds at least this many bytes.
const MIN_PIECE_BYTES: usize = 128 * 1024;
/// At most this many pieces: past it the threads cost more than they give.
const MAX_PIECES: usize = 4;

/// How many pieces a text of `len` bytes is parsed in on this machine: one a core, four at
/// most, none under [`MIN_PIECE_BYTES`]; a text under [`PIECES_FROM`] is one piece.
pub(crate) fn piece_count(len: usize) -> usize {
    if len < PIECES_FROM {
        return 1;
    }
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    cores.min(MAX_PIECES).min(len / MIN_PIECE_BYTES).max(1)
}

/// Where the pieces of `text` start when it is cut in `pieces` (at most): 0, then for each
/// share of the text the first line after it that follows an empty line, starts with a
/// letter or `_`, and lies outside every `{` by a count of the braces before it. A share
/// with no such line before the next one is not cut.
pub(crate) fn piece_starts(text: &str, pieces: usize) -> Vec<usize> {
    let bytes = text.as_bytes();
    let mut starts = vec![0];
    let mut braces = Braces::new(bytes);
    for share in 1..pieces {
        let from = bytes.len() / pieces * share;
        let until = bytes.len() / pieces * (share + 1);
        let cut = top_level_starts(bytes, from)
            .take_while(|&at| at < until)
            .find(|&at| braces.depth_at(at) == 0);
        starts.extend(cut);
    }
    starts
}

/// The offsets from `from` on of lines that follow an empty line and start with a letter or
/// `_` (a `\r` before a line break counts as part of it).
fn top_level_starts(bytes: &[u8], from: usize) -> impl Iterator<Item = usize> + '_ {
    memchr::memchr_iter(b'\n', &bytes[from..]).filter_map(move |newline| {
        let start = from + newline + 1;
        let starts_item = bytes
            .get(start)
            .is_some_and(|&first| first.is_ascii_alphabetic() || first == b'_');
        let before = &bytes[..from + newline];
        let after_empty_line = before.ends_with(b"\n") || before.ends_with(b"\n\r");
        (starts_item && after_empty_line).then_some(start)
    })
}

/// The depth of `{` at offsets asked in increasing order, counted from the text's start.
struct Braces<'a> {
    bytes: &'a [u8],
    counted_to: usize,
    depth: i64,
}

impl<'a> Braces<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Braces {
            bytes,
            counted_to: 0,
            depth: 0,
        }
    }

    /// The depth at `at` (not before the last offset asked).
    fn depth_at(&mut self, at: usize) -> i64 {
        let counted = self.bytes.get(self.counted_to..at).unwrap_or_default();
        for brace in memchr::memchr2_iter(b'{', b'}', counted) {
            self.depth += if counted[brace] == b'{' { 1 } else { -1 };
        }
        self.counted_to = self.counted_to.max(at);
        self.depth
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_is_cut_at_top_level_lines_after_an_empty_line() {
        let item = "fn f() {\n    g();\n\n    h();\n}\n\n";
        let text = item.repeat(8);
        let starts = piece_starts(&text, 4);
        assert_eq!(starts.len(), 4, "{starts:?}");
        assert_eq!(starts[0], 0);
        for &start in &starts[1..] {
            assert!(text[start..].starts_with("fn f()"), "{start}");
            assert!(text[..start].ends_with("}\n\n"), "{start}");
        }
        assert!(starts.windows(2).all(|pair| pair[0] < pair[1]));
    }

    #[test]
    fn no_cut_inside_braces_nor_at_an_indented_line() {
        // Inside a namespace whose items are not indented: every candidate is within a brace.
        let text = format!("namespace std {{\n\n{}}}\n", "int f();\n\n".repeat(100));
        assert_eq!(piece_starts(&text, 4), vec![0]);
        let indented = "def f():\n\n    return 1\n\n".repeat(100);
        assert_eq!(piece_starts(&indented, 4)[1..].len(), 3);
        let only_indented = format!(
            "class A:\n{}",
            "\n    def f(self):\n        pass\n".repeat(100)
        );
        assert_eq!(piece_starts(&only_indented, 4), vec![0]);
    }

    #[test]
    fn carriage_returns_count_in_empty_lines() {
        let text = "fn f() {}\r\n\r\n".repeat(20);
        let starts = piece_starts(&text, 2);
        assert_eq!(starts.len(), 2);
        assert!(text[..starts[1]].ends_with("\r\n\r\n"));
    }

    #[test]
    fn short_texts_are_one_piece() {
        assert_eq!(piece_count(PIECES_FROM - 1), 1);
        assert!((1..=MAX_PIECES).contains(&piece_count(64 << 20)));
    }
}
