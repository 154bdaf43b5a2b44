//! The line model and the line window.
//!
//! The text of a file is its bytes without a leading UTF-8 BOM, with every `\r\n` read
//! as `\n` (a lone `\r` stays) and invalid UTF-8 replaced by U+FFFD the way `TextDecoder`
//! does. A line is a run of bytes ending in `\n`, or the unterminated rest at the end.
//! Each line keeps its `\n`, so consecutive windows concatenate to the whole text.
//!
//! `\r\n` -> `\n` and U+FFFD replacement never move a `\n`, and `\n` never occurs inside a
//! multi-byte sequence, so lines are found on the raw bytes and only the returned window
//! is decoded.

use std::borrow::Cow;
use std::ops::Range;

pub(crate) const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// How a file's lines end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineEnding {
    /// Every `\n` alone.
    Lf,
    /// Every `\n` after a `\r`.
    Crlf,
    /// Both.
    Mixed,
    /// No `\n` at all.
    None,
}

impl LineEnding {
    pub const fn as_str(self) -> &'static str {
        match self {
            LineEnding::Lf => "lf",
            LineEnding::Crlf => "crlf",
            LineEnding::Mixed => "mixed",
            LineEnding::None => "none",
        }
    }

    /// The line ending of `bytes`.
    pub(crate) fn of(bytes: &[u8]) -> LineEnding {
        let newlines = count_newlines(bytes);
        let crlfs = memchr::memmem::find_iter(bytes, b"\r\n").count() as u64;
        LineEnding::from_counts(newlines, crlfs)
    }

    /// The line ending of a text with `newlines` `\n`s, `crlfs` of them after a `\r`.
    pub(crate) fn from_counts(newlines: u64, crlfs: u64) -> LineEnding {
        match (newlines, crlfs) {
            (0, _) => LineEnding::None,
            (_, 0) => LineEnding::Lf,
            (n, c) if n == c => LineEnding::Crlf,
            _ => LineEnding::Mixed,
        }
    }
}

/// The file's bytes without a leading UTF-8 BOM.
pub fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(UTF8_BOM).unwrap_or(bytes)
}

fn ends_unterminated(text: &[u8]) -> bool {
    !text.is_empty() && !text.ends_with(b"\n")
}

/// Where a window of lines lies in the text, and how many lines the text has.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineWindow {
    /// Byte range of the window in the (BOM-less, raw) text.
    pub bytes: Range<usize>,
    /// Lines in the window.
    pub returned_line_count: u32,
    /// The line after the window when lines follow it, else `None`.
    pub next_start_line: Option<u64>,
    /// Lines in the whole text: the `\n`s, plus one for an unterminated last line.
    pub line_count: u64,
}

/// The window of at most `max_lines` lines starting at 1-based `start_line`. A start
/// past the last line gives an empty window with nothing after it.
pub fn line_window(text: &[u8], start_line: u64, max_lines: u32) -> LineWindow {
    let (start, line_count) = locate_line(text, start_line);
    let Some(start) = start else {
        return LineWindow {
            bytes: text.len()..text.len(),
            returned_line_count: 0,
            next_start_line: None,
            line_count,
        };
    };
    // The window ends after its `max_lines`-th newline, when the rest of the text has that
    // many; else it runs to the end. The newlines before `start` are `start_line - 1`.
    let unterminated = u64::from(ends_unterminated(text));
    let newlines_after = line_count - unterminated - (start_line - 1);
    let (end, returned) = if newlines_after >= u64::from(max_lines) {
        let last = nth_newline(&text[start..], u64::from(max_lines) - 1)
            .map_or(text.len() - 1, |last| start + last);
        (last + 1, max_lines)
    } else {
        (text.len(), (newlines_after + unterminated) as u32)
    };
    LineWindow {
        bytes: start..end,
        returned_line_count: returned,
        next_start_line: (end < text.len()).then(|| start_line + u64::from(returned)),
        line_count,
    }
}

/// Bytes counted at a time while looking for a line: a block's newlines are counted with
/// one vectorized pass, and only the block holding the line is searched newline by newline.
const COUNT_BLOCK: usize = 16 * 1024;

/// The blocks of [`nth_newline`], smaller than [`COUNT_BLOCK`]: the newline it looks for is
/// often a window's last, so less is counted past it, and less searched in its block.
const NTH_BLOCK: usize = 2048;

/// In one pass over the text: the byte offset where line `line` (1-based) begins, if the
/// text has that line, and the text's line count.
fn locate_line(text: &[u8], line: u64) -> (Option<usize>, u64) {
    let newlines_before = line.saturating_sub(1);
    let mut start = (newlines_before == 0).then_some(0);
    let mut counted = 0u64;
    for (index, block) in text.chunks(COUNT_BLOCK).enumerate() {
        let in_block = count_newlines(block);
        if start.is_none() && counted + in_block >= newlines_before {
            let nth = (newlines_before - counted - 1) as usize;
            let newline = memchr::memchr_iter(b'\n', block).nth(nth);
            start = newline.map(|at| index * COUNT_BLOCK + at + 1);
        }
        counted += in_block;
    }
    let line_count = counted + u64::from(ends_unterminated(text));
    (start.filter(|&at| at < text.len()), line_count)
}

/// The lines of a decoded text without their terminators, lazily, for the dialects that
/// show lines one by one: each `\n` ends a line and is dropped with one `\r` before it (a
/// `\r` ending the text is dropped too); an empty text has no lines and a final `\n` does
/// not start one. This is the same line count as [`LineWindow::line_count`].
pub fn lines_without_terminators(text: &str) -> impl Iterator<Item = &str> {
    text.split_inclusive('\n')
        .map(|line| line.strip_suffix('\n').unwrap_or(line))
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
}

/// Which lines to show, 1-based.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineRange {
    /// From `start` to `end` inclusive (`None`: to the last line).
    Lines { start: u64, end: Option<u64> },
    /// The first `n` lines.
    Head(u64),
    /// The last `n` lines.
    Tail(u64),
}

/// The lines of `text` in `range` (without terminators, see [`lines_without_terminators`])
/// and the number of the first; a range past the end gives no lines.
pub fn select_lines(text: &str, range: LineRange) -> (u64, Vec<&str>) {
    let total = count_lines(text);
    let (start, end) = match range {
        LineRange::Head(n) => (1, n.min(total)),
        LineRange::Tail(n) => (total.saturating_sub(n) + 1, total),
        LineRange::Lines { start, end } => (start.max(1), end.unwrap_or(total).min(total)),
    };
    if start > end {
        return (start, Vec::new());
    }
    let lines = lines_without_terminators(text)
        .skip((start - 1) as usize)
        .take((end - start + 1) as usize);
    (start, lines.collect())
}

/// How many lines [`lines_without_terminators`] yields, counted without splitting.
pub fn count_lines(text: &str) -> u64 {
    line_count(text.as_bytes())
}

/// How many lines `text` has: its `\n`s, and one more when it ends without one.
pub fn line_count(text: &[u8]) -> u64 {
    count_newlines(text) + u64::from(ends_unterminated(text))
}

/// Number of `\n` bytes.
pub fn count_newlines(bytes: &[u8]) -> u64 {
    memchr::memchr_iter(b'\n', bytes).count() as u64
}

/// Where the `n`-th `\n` of `bytes` is (from 0), or how many there are when fewer. Counted a
/// block at a time, so that the bytes after it are neither counted nor searched.
pub fn nth_newline(bytes: &[u8], mut n: u64) -> Result<usize, u64> {
    let mut counted = 0;
    for (i, block) in bytes.chunks(NTH_BLOCK).enumerate() {
        let in_block = count_newlines(block);
        if n < in_block {
            let at = memchr::memchr_iter(b'\n', block).nth(n as usize);
            return Ok(i * NTH_BLOCK + at.unwrap_or(0));
        }
        n -= in_block;
        counted += in_block;
    }
    Err(counted)
}

/// The window's text, decoded and normalized. Borrowed from the file's bytes when they
/// are already exact (valid UTF-8 without `\r\n`), which is the common case.
pub fn decode(window: &[u8]) -> Cow<'_, str> {
    // `from_utf8` has a fast path for valid text that `from_utf8_lossy` lacks.
    let text = match std::str::from_utf8(window) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(window),
    };
    if memchr::memmem::find(window, b"\r\n").is_none() {
        return text;
    }
    Cow::Owned(text.replace("\r\n", "\n"))
}

/// The smallest content budget accepted: room for a cut line's marker and some text.
pub const MIN_CONTENT_BUDGET: usize = 128;

/// How a window's decoded text fits a budget of bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fit {
    /// All of it fits.
    Whole,
    /// Its first `lines` whole lines, `bytes` long, fit (at least one).
    Lines { bytes: usize, lines: u32 },
    /// Not even its first line fits: it is cut ([`cut_line`]).
    FirstLineCut,
}

/// How `text` (a window's decoded lines, each keeping its `\n`) fits in `budget` bytes.
/// `text` may be only the first bytes of a window: at least `budget + 1` of them, or all.
pub fn fit_window(text: &str, budget: usize) -> Fit {
    if text.len() <= budget {
        return Fit::Whole;
    }
    let bytes = text.as_bytes();
    match memchr::memrchr(b'\n', &bytes[..budget]) {
        Some(newline) => {
            let kept = newline + 1;
            let lines = count_newlines(&bytes[..kept]) as u32;
            Fit::Lines { bytes: kept, lines }
        }
        None => Fit::FirstLineCut,
    }
}

/// Where a window starts in its first line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinePlace {
    /// The line's 1-based number.
    pub line: u64,
    /// The 1-based column (byte of the line as stored) the window starts at.
    pub column: u64,
    /// The bytes of the line's text, its terminator (`\n` or `\r\n`) not counted.
    pub line_len: u64,
}

/// A line cut to fit a budget: the content shown, the column its rest starts at, and the
/// line's length (what its marker says, when it has room to).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CutLine {
    pub content: String,
    pub next_column: u64,
    pub line_len: u64,
}

/// The marker line that follows a cut line, naming the call that reads on:
/// `[line L continues at column C of N: call read_file with start_line L and start_column C]`.
pub fn cut_marker(line: u64, next_column: u64, line_len: u64) -> String {
    format!(
        "[line {line} continues at column {next_column} of {line_len}: call read_file with \
         start_line {line} and start_column {next_column}]\n"
    )
}

/// The marker when numbers too long for [`cut_marker`] would leave too little of a small
/// budget for the line: the call alone.
fn short_cut_marker(line: u64, next_column: u64) -> String {
    format!("[call read_file with start_line {line} and start_column {next_column}]\n")
}

/// Room a cut line keeps for its text at least, before the marker is shortened.
const MIN_CUT_ROOM: usize = 16;

/// The first line of a window cut to fit `budget` (at least [`MIN_CONTENT_BUDGET`]): its
/// first bytes, decoded, `\n`, and a marker naming the call that reads on. `rest` is the
/// line's text from the window's start as stored (its first `budget` bytes at least, or
/// all of it, its terminator not included), `place` where that is. The cut falls between
/// two decoding units (characters, or invalid sequences that decode to one U+FFFD), so the
/// pieces decode to the line's text; the content never exceeds `budget`.
pub fn cut_line(rest: &[u8], budget: usize, place: LinePlace) -> CutLine {
    let full_room =
        budget.saturating_sub(1 + cut_marker(place.line, place.line_len, place.line_len).len());
    let short = full_room < MIN_CUT_ROOM;
    let marker = |next_column| match short {
        true => short_cut_marker(place.line, next_column),
        false => cut_marker(place.line, next_column, place.line_len),
    };
    let room_beside = |next_column| budget.saturating_sub(1 + marker(next_column).len());
    let head = ValidHead::of(rest, budget);
    // The next column is at most the line's length: with the room its marker leaves, the
    // marker written is never longer. That marker may be a few digits shorter: the room it
    // leaves is taken when the column it ends at needs no more digits.
    let mut cut = head.prefix(rest, room_beside(place.line_len));
    let column_after = |cut: usize| place.column.saturating_add(cut as u64);
    let wider = head.prefix(rest, room_beside(column_after(cut)));
    if marker(column_after(wider)).len() == marker(column_after(cut)).len() {
        cut = wider;
    }
    let next_column = column_after(cut);
    let content = format!("{}\n{}", head.decode(rest, cut), marker(next_column));
    CutLine {
        content,
        next_column,
        line_len: place.line_len,
    }
}

/// The valid UTF-8 that a line's text (no `\n` in it, so no `\r\n`) starts with, up to
/// the character boundary at or before `budget + 4` bytes: every cut under `budget` looks
/// at no more, and within it a cut is found and decoded without validating again.
struct ValidHead<'a>(&'a str);

impl<'a> ValidHead<'a> {
    fn of(line: &'a [u8], budget: usize) -> ValidHead<'a> {
        let mut end = line.len().min(budget.saturating_add(4));
        // A character has at most 3 continuation bytes: valid text has a boundary by then.
        for _ in 0..3 {
            if end == 0 || end == line.len() || !is_continuation(line[end]) {
                break;
            }
            end -= 1;
        }
        let head = &line[..end];
        let valid = match std::str::from_utf8(head) {
            Ok(text) => text,
            Err(error) => std::str::from_utf8(&head[..error.valid_up_to()]).unwrap_or_default(),
        };
        ValidHead(valid)
    }

    /// [`decodable_prefix`] of `line`.
    fn prefix(&self, line: &[u8], room: usize) -> usize {
        let valid = self.0;
        if room < valid.len() {
            (0..=room)
                .rev()
                .find(|&at| valid.is_char_boundary(at))
                .unwrap_or(0)
        } else if valid.len() == line.len() {
            line.len()
        } else {
            decodable_prefix(line, room)
        }
    }

    /// [`decode`] of `line[..cut]`.
    fn decode(&self, line: &'a [u8], cut: usize) -> Cow<'a, str> {
        match self.0.get(..cut) {
            Some(text) => Cow::Borrowed(text),
            None => decode(&line[..cut]),
        }
    }
}

/// The longest prefix of `bytes` (a line's text, no `\n` in it) made of whole decoding
/// units that decodes to at most `room` bytes.
fn decodable_prefix(bytes: &[u8], room: usize) -> usize {
    // A unit decodes to at least its own length, so the prefix is at most `room` bytes; the
    // 4 bytes after show whether the unit at `room` is whole.
    let bytes = &bytes[..bytes.len().min(room.saturating_add(4))];
    let (mut raw, mut decoded) = (0, 0);
    loop {
        let rest = &bytes[raw..];
        // `from_utf8`, unlike `utf8_chunks`, checks ASCII many bytes at a time.
        let (valid, invalid) = match std::str::from_utf8(rest) {
            Ok(_) => (rest.len(), None),
            Err(error) => {
                let valid = error.valid_up_to();
                (valid, Some(error.error_len().unwrap_or(rest.len() - valid)))
            }
        };
        if decoded + valid > room {
            let mut cut = room - decoded;
            while is_continuation(rest[cut]) {
                cut -= 1;
            }
            return raw + cut;
        }
        raw += valid;
        decoded += valid;
        match invalid {
            Some(len) if decoded + REPLACEMENT_LEN <= room => {
                raw += len;
                decoded += REPLACEMENT_LEN;
            }
            _ => return raw,
        }
    }
}

const REPLACEMENT_LEN: usize = '\u{FFFD}'.len_utf8();

/// Whether `byte` continues a UTF-8 sequence (never starts a decoding unit).
fn is_continuation(byte: u8) -> bool {
    byte & 0xC0 == 0x80
}

/// Where the decoding unit holding byte `at` of `text` starts: `at` itself, or up to three
/// bytes before it, inside a character (or an invalid sequence decoded as one U+FFFD). Only
/// the three bytes before `at` and the three after it are looked at; a byte that does not
/// continue a sequence always starts a unit.
pub fn unit_start(text: &[u8], at: usize) -> usize {
    let at = at.min(text.len());
    for back in 1..=at.min(3) {
        let lead = at - back;
        if !is_continuation(text[lead]) {
            let unit = first_unit_len(&text[lead..text.len().min(lead + 4)]);
            return if lead + unit > at { lead } else { at };
        }
    }
    at
}

/// The length of the first decoding unit of `bytes` (not empty).
fn first_unit_len(bytes: &[u8]) -> usize {
    let chunk = bytes.utf8_chunks().next();
    chunk.map_or(1, |chunk| match chunk.valid().chars().next() {
        Some(first) => first.len_utf8(),
        None => chunk.invalid().len(),
    })
}

/// The window of `line_window(text, start_line, max_lines)` begun at byte `start_column` of
/// its first line instead (clamped to the line's end, moved back to the start of a
/// character it falls inside), and the column it begins at.
pub fn line_window_from(
    text: &[u8],
    start_line: u64,
    start_column: u64,
    max_lines: u32,
) -> (LineWindow, u64) {
    let mut window = line_window(text, start_line, max_lines);
    if start_column <= 1 {
        return (window, 1);
    }
    let line_start = window.bytes.start;
    let line = &text[line_start..line_text_end(text, line_start)];
    let skip = usize::try_from(start_column - 1).unwrap_or(usize::MAX);
    let column_start = unit_start(line, skip.min(line.len()));
    window.bytes.start = line_start + column_start;
    (window, column_start as u64 + 1)
}

/// Where the text of the line starting at `line_start` ends: at its `\n`, or the `\r`
/// before it, or the end of the text.
pub(crate) fn line_text_end(text: &[u8], line_start: usize) -> usize {
    match memchr::memchr(b'\n', &text[line_start..]) {
        Some(newline) => {
            let end = line_start + newline;
            if end > line_start && text[end - 1] == b'\r' {
                end - 1
            } else {
                end
            }
        }
        None => text.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The window as (content, returned_line_count, next_start_line).
    fn window(text: &str, start: u64, max: u32) -> (String, u32, Option<u64>) {
        let w = line_window(text.as_bytes(), start, max);
        let content = decode(&text.as_bytes()[w.bytes]).into_owned();
        (content, w.returned_line_count, w.next_start_line)
    }

    /// The line count, checked to be the same whichever window is asked for.
    fn line_count(text: &[u8]) -> u64 {
        let count = line_window(text, 1, 1).line_count;
        for start in [2, 3, 1_000] {
            assert_eq!(line_window(text, start, 2).line_count, count);
        }
        count
    }

    #[test]
    fn counts_lines_the_contract_way() {
        assert_eq!(line_count(b""), 0);
        assert_eq!(line_count(b"\n"), 1);
        assert_eq!(line_count(b"a"), 1);
        assert_eq!(line_count(b"a\n"), 1);
        assert_eq!(line_count(b"a\nb"), 2);
        assert_eq!(line_count(b"a\n\n"), 2);
        assert_eq!(line_count(b"a\r\nb\r\n"), 2);
        assert_eq!(line_count(b"a\rb"), 1);
    }

    #[test]
    fn windows_keep_terminators_and_mark_what_follows() {
        assert_eq!(window("a\nb\nc\n", 1, 2), ("a\nb\n".into(), 2, Some(3)));
        assert_eq!(window("a\nb\nc\n", 3, 2), ("c\n".into(), 1, None));
        assert_eq!(window("a\nb\nc", 2, 5), ("b\nc".into(), 2, None));
        assert_eq!(window("a\nb\nc", 1, 3), ("a\nb\nc".into(), 3, None));
        assert_eq!(window("a\nb\nc\n", 1, 3), ("a\nb\nc\n".into(), 3, None));
        assert_eq!(window("\n\n\n", 2, 1), ("\n".into(), 1, Some(3)));
    }

    #[test]
    fn past_the_end_is_empty_and_final() {
        assert_eq!(window("a\nb\n", 3, 10), (String::new(), 0, None));
        assert_eq!(window("a\nb", 3, 10), (String::new(), 0, None));
        assert_eq!(window("", 1, 10), (String::new(), 0, None));
        assert_eq!(window("a\n", u64::MAX, 10), (String::new(), 0, None));
        assert_eq!(
            window("a\n", 9_007_199_254_740_994, 10),
            (String::new(), 0, None)
        );
    }

    #[test]
    fn crlf_becomes_lf_and_a_lone_cr_stays() {
        assert_eq!(window("a\r\nb\r\n", 1, 1), ("a\n".into(), 1, Some(2)));
        assert_eq!(window("a\rb\r\nc", 1, 5), ("a\rb\nc".into(), 2, None));
        assert_eq!(window("a\r", 1, 5), ("a\r".into(), 1, None));
    }

    #[test]
    fn bom_is_not_content_and_invalid_utf8_is_replaced() {
        assert_eq!(strip_bom(b"\xEF\xBB\xBFx\n"), b"x\n");
        assert_eq!(strip_bom(b"\xEF\xBBx"), b"\xEF\xBBx");
        // As TextDecoder: one U+FFFD per maximal invalid subpart.
        assert_eq!(decode(b"a\xFFb\xE2\x82\n"), "a\u{FFFD}b\u{FFFD}\n");
        assert_eq!(decode(b"\xF0\x9F\x98\x80"), "\u{1F600}");
    }

    #[test]
    fn lines_are_found_across_count_blocks() {
        // Lines of 7 bytes, so block boundaries fall inside lines and right after newlines.
        let text: String = (0..20_000).map(|i| format!("{i:06}\n")).collect();
        let bytes = text.as_bytes();
        assert!(bytes.len() > 4 * COUNT_BLOCK);
        for start in [1, 2, 2340, 2341, 2342, 4681, 19_999, 20_000] {
            for max in [1, 2, 500, 5000] {
                let w = line_window(bytes, start, max);
                let end = (start - 1 + u64::from(max)).min(20_000);
                let expected: String = (start - 1..end).map(|i| format!("{i:06}\n")).collect();
                assert_eq!(decode(&bytes[w.bytes]), expected, "start {start} max {max}");
                assert_eq!(w.returned_line_count as u64, end - (start - 1));
                assert_eq!(w.next_start_line, (end < 20_000).then_some(end + 1));
                assert_eq!(w.line_count, 20_000);
            }
        }
        assert_eq!(line_window(bytes, 20_001, 2).returned_line_count, 0);
    }

    #[test]
    fn lines_without_terminators_match_the_line_count() {
        for (text, lines) in [
            ("", vec![]),
            ("\n", vec![""]),
            ("a", vec!["a"]),
            ("a\r\nb\r\n", vec!["a", "b"]),
            ("a\n\nb", vec!["a", "", "b"]),
            ("a\rb\r", vec!["a\rb"]),
        ] {
            let split: Vec<&str> = lines_without_terminators(text).collect();
            assert_eq!(split, lines, "{text:?}");
            assert_eq!(line_count(text.as_bytes()), lines.len() as u64, "{text:?}");
            assert_eq!(count_lines(text), lines.len() as u64, "{text:?}");
        }
    }

    #[test]
    fn selections_clamp_to_the_text() {
        let text = "1\n2\n3\n";
        assert_eq!(select_lines(text, LineRange::Tail(2)), (2, vec!["2", "3"]));
        assert_eq!(
            select_lines(text, LineRange::Tail(9)),
            (1, vec!["1", "2", "3"])
        );
        assert_eq!(select_lines(text, LineRange::Head(2)), (1, vec!["1", "2"]));
        assert_eq!(select_lines(text, LineRange::Head(9)).1.len(), 3);
        let lines = |start, end| select_lines(text, LineRange::Lines { start, end });
        assert_eq!(lines(2, Some(2)), (2, vec!["2"]));
        assert_eq!(lines(2, None), (2, vec!["2", "3"]));
        assert_eq!(lines(4, None), (4, vec![]));
        assert_eq!(lines(3, Some(9)), (3, vec!["3"]));
        assert_eq!(select_lines("", LineRange::Tail(1)), (1, vec![]));
    }

    #[test]
    fn consecutive_windows_concatenate_to_the_whole_text() {
        let text = "one\r\ntwo\n\nfour\rstill four\nfive";
        for max in 1..=6 {
            let mut start = 1;
            let mut joined = String::new();
            let mut lines = 0;
            loop {
                let (content, returned, next) = window(text, start, max);
                assert!(returned <= max);
                joined.push_str(&content);
                lines += u64::from(returned);
                match next {
                    Some(next) => start = next,
                    None => break,
                }
            }
            assert_eq!(joined, text.replace("\r\n", "\n"), "max_lines {max}");
            assert_eq!(lines, line_count(text.as_bytes()));
        }
    }

    /// The content shown for `text` (the window from the start of line 7) under `budget`,
    /// as `read_file` builds it.
    fn shown(text: &str, budget: usize) -> (String, Fit) {
        let fit = fit_window(text, budget);
        let content = match &fit {
            Fit::Whole => text.to_owned(),
            Fit::Lines { bytes, .. } => text[..*bytes].to_owned(),
            Fit::FirstLineCut => {
                let line = &text.as_bytes()[..line_text_end(text.as_bytes(), 0)];
                let place = LinePlace {
                    line: 7,
                    column: 1,
                    line_len: line.len() as u64,
                };
                cut_line(line, budget, place).content
            }
        };
        assert!(content.len() <= budget, "{} > {budget}", content.len());
        (content, fit)
    }

    #[test]
    fn whole_lines_fit_exactly_or_the_last_one_is_dropped() {
        let line = format!("{}\n", "x".repeat(99)); // 100 bytes
        let text = line.repeat(3);
        let lines = |bytes, lines| Fit::Lines { bytes, lines };
        assert_eq!(shown(&text, 300), (text.clone(), Fit::Whole));
        assert_eq!(shown(&text, 299).1, lines(200, 2));
        assert_eq!(shown(&text, 200).1, lines(200, 2));
        assert_eq!(shown(&text, 199).1, lines(100, 1));
        // An unterminated last line fits whole or not at all.
        let unterminated = format!("{line}{}", "y".repeat(150));
        let whole = (unterminated.clone(), Fit::Whole);
        assert_eq!(shown(&unterminated, 250), whole);
        assert_eq!(shown(&unterminated, 249).1, lines(100, 1));
    }

    #[test]
    fn a_first_line_over_the_budget_is_cut_and_names_the_call_that_reads_on() {
        let text = format!("{}\nnext\n", "a".repeat(1000));
        let (content, fit) = shown(&text, 200);
        assert_eq!(fit, Fit::FirstLineCut);
        // Sized for the longest marker this line can need (column 1000, 98 bytes), the cut
        // leaves 200 - 1 - 98 = 101 bytes of the line: column 102, whose marker is 96 bytes.
        // 200 - 1 - 96 = 103 bytes end at column 104, as many digits: the budget is full.
        let marker = "[line 7 continues at column 104 of 1000: \
                      call read_file with start_line 7 and start_column 104]\n";
        assert_eq!(content, format!("{}\n{marker}", "a".repeat(103)));
        assert_eq!(content.len(), 200);
        // One byte over: a 201-byte first line (with its \n) under a 200-byte budget.
        let text = format!("{}\n", "b".repeat(200));
        assert_eq!(shown(&text, 200).1, Fit::FirstLineCut);
        assert_eq!(shown(&text, 201).1, Fit::Whole);
    }

    #[test]
    fn numbers_too_long_for_the_marker_leave_the_call_alone() {
        let place = LinePlace {
            line: 123_456_789_012,
            column: 1,
            line_len: 98_765_432_109_876,
        };
        let cut = cut_line(&[b'z'; 200], 128, place);
        // The full marker would be 149 bytes. The short one, sized for a 14-digit column:
        // 32 + 12 + 18 + 14 + 2 = 78 bytes; 128 - 1 - 78 = 49 bytes of the line, column 50,
        // whose marker is 66 bytes: 128 - 1 - 66 = 61 bytes end at column 62.
        let marker = "[call read_file with start_line 123456789012 and start_column 62]\n";
        assert_eq!(cut.content, format!("{}\n{marker}", "z".repeat(61)));
        assert_eq!(cut.next_column, 62);
    }

    #[test]
    fn a_cut_never_splits_a_character() {
        // 4-byte characters: whichever budget, the cut falls on a boundary before it.
        let text = "\u{1F600}".repeat(100);
        for budget in 128..140 {
            let (content, fit) = shown(&text, budget);
            assert_eq!(fit, Fit::FirstLineCut);
            let (kept, marker) = content.split_once('\n').unwrap();
            assert_eq!(kept.len() % 4, 0, "budget {budget}");
            let column = format!("continues at column {} of 400:", kept.len() + 1);
            assert!(marker.contains(&column), "{marker}");
        }
    }

    proptest::proptest! {
        #[test]
        fn a_cut_found_in_the_valid_head_is_the_one_decoding_finds(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec![
                    &b"abc"[..], "é".as_bytes(), "\u{1F600}".as_bytes(), b"\xFF", b"\xE2\x82", b"\r",
                ]),
                0..40,
            ),
            budget in 0usize..80,
            room_share in 0usize..=100,
        ) {
            let line = pieces.concat();
            let room = budget * room_share / 100;
            let head = ValidHead::of(&line, budget);
            let cut = decodable_prefix(&line, room);
            proptest::prop_assert_eq!(head.prefix(&line, room), cut);
            proptest::prop_assert_eq!(head.decode(&line, cut), decode(&line[..cut]));
        }
    }

    #[test]
    fn a_cut_keeps_invalid_sequences_whole() {
        // "a", then \xFF (one U+FFFD, 3 bytes decoded), then "b".
        assert_eq!(decodable_prefix(b"a\xFFb", 3), 1);
        assert_eq!(decodable_prefix(b"a\xFFb", 4), 2);
        assert_eq!(decodable_prefix(b"a\xFFb", 5), 3);
        // \xE2\x82 is one invalid sequence: never cut between its bytes.
        assert_eq!(decodable_prefix(b"\xE2\x82z", 3), 2);
        assert_eq!(decodable_prefix(b"\xE2\x82z", 2), 0);
        assert_eq!(decodable_prefix("é".as_bytes(), 1), 0);
    }

    #[test]
    fn a_column_inside_a_character_starts_at_the_character() {
        let smile = "\u{1F600}".as_bytes();
        for at in 1..4 {
            assert_eq!(unit_start(smile, at), 0, "at {at}");
        }
        assert_eq!(unit_start(smile, 4), 4);
        assert_eq!(unit_start("aé".as_bytes(), 2), 1);
        // Stray continuation bytes are units of their own; so is one after a whole character.
        assert_eq!(unit_start(b"a\x80\x80b", 2), 2);
        assert_eq!(unit_start(b"\xF0\x9F\x98\x80\x80", 4), 4);
        // A truncated sequence decodes to one U+FFFD: its bytes go together.
        assert_eq!(unit_start(b"\xE2\x82z", 1), 0);
        assert_eq!(unit_start(b"\xE2\x82z", 2), 2);
        assert_eq!(unit_start(b"ab", 0), 0);
        assert_eq!(unit_start(b"ab", 9), 2);
    }

    #[test]
    fn a_window_from_a_column_starts_inside_its_first_line() {
        let text = "abc\r\ndef\naéb\n".as_bytes();
        let from = |line, column| {
            let (window, column) = line_window_from(text, line, column, 2);
            let shown = decode(&text[window.bytes.clone()]).into_owned();
            (shown, column, window.returned_line_count)
        };
        assert_eq!(from(1, 1), ("abc\ndef\n".into(), 1, 2));
        assert_eq!(from(1, 2), ("bc\ndef\n".into(), 2, 2));
        // Past the line's end: its end, the terminator.
        assert_eq!(from(1, 99), ("\ndef\n".into(), 4, 2));
        assert_eq!(from(2, 3), ("f\naéb\n".into(), 3, 2));
        // Column 3 is the second byte of "é": the window starts at "é" (column 2).
        assert_eq!(from(3, 3), ("éb\n".into(), 2, 1));
        assert_eq!(from(4, 2), (String::new(), 1, 0));
        assert_eq!(from(1, u64::MAX).1, 4);
    }
}
