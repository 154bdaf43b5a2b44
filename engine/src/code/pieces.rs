//! Where a long source text is cut to be parsed in pieces at once, one a thread: at lines
//! that look like the start of a top-level item. Found lexically, so a cut may fall inside a
//! string or a comment; the parse of each piece tells (`grammar`), and the text is then
//! parsed whole.

use super::language::Language;

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

/// Where the pieces of `text`, a source file of `language`, start when it is cut in `pieces`
/// (at most): 0, then for each share of the text the first line after it that follows an
/// empty line, starts with a letter or `_`, and lies outside every `{` by a count of the
/// braces before it that skips comments and quoted text ([`Braces`]). A share with no such
/// line before the next one is not cut.
pub(crate) fn piece_starts(text: &str, pieces: usize, language: Language) -> Vec<usize> {
    let bytes = text.as_bytes();
    let mut starts = vec![0];
    let mut braces = Braces::new(bytes, language);
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

/// What the count of braces is in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Inside {
    Code,
    LineComment,
    BlockComment,
    /// Quoted text, opened by this quote: it ends at the same quote, or at the line's end
    /// but for a backquote's (a template or a raw string).
    Quoted(u8),
}

/// The depth of `{` at offsets asked in increasing order, counted from the text's start
/// outside comments (`//`, `/* */`, Python's `#`) and quoted text (`"…"`, `` `…` ``, `'…'`
/// but in Rust, whose `'` starts a lifetime unless a character follows it and a `'`). Not a
/// lexer: a regular expression or a string over lines can mislead it, and the parse of each
/// piece tells.
struct Braces<'a> {
    bytes: &'a [u8],
    language: Language,
    at: usize,
    inside: Inside,
    depth: i64,
}

impl<'a> Braces<'a> {
    fn new(bytes: &'a [u8], language: Language) -> Self {
        Braces {
            bytes,
            language,
            at: 0,
            inside: Inside::Code,
            depth: 0,
        }
    }

    /// The depth at `to` (not before the last offset asked).
    fn depth_at(&mut self, to: usize) -> i64 {
        while self.at < to.min(self.bytes.len()) {
            let byte = self.bytes[self.at];
            let next = self.bytes.get(self.at + 1).copied();
            self.at += 1;
            self.inside = match (self.inside, byte) {
                (Inside::Code, _) => self.in_code(byte, next),
                (Inside::LineComment, b'\n') => Inside::Code,
                (Inside::BlockComment, b'*') if next == Some(b'/') => {
                    self.at += 1;
                    Inside::Code
                }
                (Inside::Quoted(_), b'\\') => {
                    self.at += 1;
                    self.inside
                }
                (Inside::Quoted(quote), _) if byte == quote => Inside::Code,
                (Inside::Quoted(quote), b'\n') if quote != b'`' => Inside::Code,
                (inside, _) => inside,
            };
        }
        self.depth
    }

    /// What a byte of code opens, its brace counted.
    fn in_code(&mut self, byte: u8, next: Option<u8>) -> Inside {
        match (byte, next) {
            (b'{', _) => self.depth += 1,
            (b'}', _) => self.depth -= 1,
            (b'/', Some(b'/')) => return Inside::LineComment,
            (b'/', Some(b'*')) => {
                self.at += 1;
                return Inside::BlockComment;
            }
            (b'#', _) if self.language == Language::Python => return Inside::LineComment,
            (b'\'', _) if self.language == Language::Rust => self.skip_character(),
            (b'"' | b'`' | b'\'', _) => return Inside::Quoted(byte),
            _ => {}
        }
        Inside::Code
    }

    /// After a `'` in Rust: a character (`'{'`, `'\u{7b}'`) is skipped, a lifetime is not.
    fn skip_character(&mut self) {
        let rest = &self.bytes[self.at..];
        let end = match rest {
            [b'\\', ..] => rest
                .iter()
                .take(12)
                .skip(2)
                .position(|&b| b == b'\'')
                .map(|at| at + 3),
            [_, b'\'', ..] => Some(2),
            _ => None,
        };
        self.at += end.unwrap_or(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_is_cut_at_top_level_lines_after_an_empty_line() {
        let item = "fn f() {\n    g();\n\n    h();\n}\n\n";
        let text = item.repeat(8);
        let starts = piece_starts(&text, 4, Language::Rust);
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
        assert_eq!(piece_starts(&text, 4, Language::Rust), vec![0]);
        let indented = "def f():\n\n    return 1\n\n".repeat(100);
        assert_eq!(piece_starts(&indented, 4, Language::Python)[1..].len(), 3);
        let only_indented = format!(
            "class A:\n{}",
            "\n    def f(self):\n        pass\n".repeat(100)
        );
        assert_eq!(piece_starts(&only_indented, 4, Language::Python), vec![0]);
    }

    #[test]
    fn braces_in_comments_quotes_and_characters_are_not_counted() {
        let items = [
            (
                Language::Rust,
                "fn a<'a>(x: &'a str) -> char {\n    let s = \"{{\"; // {\n    /* { */\n    let c = '{';\n    let d = '\\u{7b}';\n    let e = b'{';\n    '}'\n}\n\n",
            ),
            (
                Language::JavaScript,
                "function a() {\n  const s = '{' + \"{\" // {\n  const t = `\n{ ${s}\n`\n}\n\n",
            ),
            (
                Language::Python,
                "def a():\n    s = '{' + \"{\"  # {\n    return s\n\n",
            ),
        ];
        for (language, item) in items {
            let text = item.repeat(40);
            let starts = piece_starts(&text, 4, language);
            assert_eq!(starts.len(), 4, "{language:?}: {starts:?}");
            let word = &item[..3];
            assert!(
                starts[1..].iter().all(|&at| text[at..].starts_with(word)),
                "{language:?}"
            );
        }
    }

    #[test]
    fn carriage_returns_count_in_empty_lines() {
        let text = "fn f() {}\r\n\r\n".repeat(20);
        let starts = piece_starts(&text, 2, Language::Rust);
        assert_eq!(starts.len(), 2);
        assert!(text[..starts[1]].ends_with("\r\n\r\n"));
    }

    #[test]
    fn short_texts_are_one_piece() {
        assert_eq!(piece_count(PIECES_FROM - 1), 1);
        assert!((1..=MAX_PIECES).contains(&piece_count(64 << 20)));
    }
}
