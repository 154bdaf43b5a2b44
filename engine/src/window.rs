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
        let last = nth_newline(text, start, u64::from(max_lines) - 1).unwrap_or(text.len() - 1);
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

/// The offset of the `n`-th (0-based) newline at or after `from`, found block by block.
fn nth_newline(text: &[u8], from: usize, n: u64) -> Option<usize> {
    let mut remaining = n;
    let mut offset = from;
    for block in text[from..].chunks(COUNT_BLOCK) {
        let in_block = count_newlines(block);
        if remaining < in_block {
            let at = memchr::memchr_iter(b'\n', block).nth(remaining as usize)?;
            return Some(offset + at);
        }
        remaining -= in_block;
        offset += block.len();
    }
    None
}

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
    count_newlines(text.as_bytes()) + u64::from(ends_unterminated(text.as_bytes()))
}

/// Number of `\n` bytes.
pub fn count_newlines(bytes: &[u8]) -> u64 {
    memchr::memchr_iter(b'\n', bytes).count() as u64
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
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fit {
    /// All of it fits.
    Whole,
    /// Its first `lines` whole lines, `bytes` long, fit (at least one).
    Lines { bytes: usize, lines: u32 },
    /// Not even its first line fits: its first `bytes` (a UTF-8 character boundary) are
    /// kept, and `left_out` bytes of it (its terminator not counted) are not.
    FirstLineCut { bytes: usize, left_out: usize },
}

/// The marker line that follows a cut line: `[read_file: <N> bytes of line <L> left out]`,
/// `<N>` the UTF-8 bytes of the line's text (its terminator not counted) not shown.
pub fn cut_marker(line: u64, left_out: usize) -> String {
    format!("[read_file: {left_out} bytes of line {line} left out]\n")
}

/// [`fit_window`] of `text`, which holds the whole window.
#[cfg(test)]
fn fit(text: &str, budget: usize, first_line: u64) -> Fit {
    fit_window(text, budget, first_line, None)
}

/// How `text` (a window's decoded lines, each keeping its `\n`) fits in `budget` bytes
/// (at least [`MIN_CONTENT_BUDGET`]). A cut first line of line number `first_line` leaves
/// room for `\n` and its [`cut_marker`], so the content shown never exceeds `budget`.
/// `text` may be only the first bytes of a window (at least `budget + 1` of them, or all),
/// `first_line_len` the decoded length of its first line when `text` may hold only part of
/// it (`None`: `text` holds the whole first line).
pub fn fit_window(
    text: &str,
    budget: usize,
    first_line: u64,
    first_line_len: Option<usize>,
) -> Fit {
    if text.len() <= budget {
        return Fit::Whole;
    }
    let bytes = text.as_bytes();
    let kept = memchr::memrchr(b'\n', &bytes[..budget]).map(|newline| newline + 1);
    if let Some(kept) = kept {
        let lines = count_newlines(&bytes[..kept]) as u32;
        return Fit::Lines { bytes: kept, lines };
    }
    // The first line alone is over the budget (it is longer than `budget` bytes).
    let line_len =
        first_line_len.unwrap_or_else(|| memchr::memchr(b'\n', bytes).unwrap_or(bytes.len()));
    // Room for the text is the budget less `\n` and the marker, whose length depends on how
    // much is left out: sized first for the whole line (the most it can say), then once more
    // for what that cut leaves out, which can only be fewer digits.
    let cut_at = |marked: usize| {
        let room = budget.saturating_sub(1 + cut_marker(first_line, marked).len());
        let mut cut = room.min(line_len);
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        cut
    };
    let first = cut_at(line_len);
    let cut = cut_at(line_len - first);
    Fit::FirstLineCut {
        bytes: cut,
        left_out: line_len - cut,
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

    /// The content shown for `text` under `budget`, as `read_file` builds it.
    fn shown(text: &str, budget: usize) -> (String, Fit) {
        let fit = fit(text, budget, 7);
        let content = match &fit {
            Fit::Whole => text.to_owned(),
            Fit::Lines { bytes, .. } => text[..*bytes].to_owned(),
            Fit::FirstLineCut { bytes, left_out } => {
                format!("{}\n{}", &text[..*bytes], cut_marker(7, *left_out))
            }
        };
        assert!(content.len() <= budget, "{} > {budget}", content.len());
        (content, fit)
    }

    #[test]
    fn whole_lines_fit_exactly_or_the_last_one_is_dropped() {
        let line = format!("{}\n", "x".repeat(99)); // 100 bytes
        let text = line.repeat(3);
        assert_eq!(shown(&text, 300), (text.clone(), Fit::Whole));
        assert_eq!(
            shown(&text, 299).1,
            Fit::Lines {
                bytes: 200,
                lines: 2
            }
        );
        assert_eq!(
            shown(&text, 200).1,
            Fit::Lines {
                bytes: 200,
                lines: 2
            }
        );
        assert_eq!(
            shown(&text, 199).1,
            Fit::Lines {
                bytes: 100,
                lines: 1
            }
        );
        // An unterminated last line fits whole or not at all.
        let unterminated = format!("{line}{}", "y".repeat(150));
        assert_eq!(
            shown(&unterminated, 250),
            (unterminated.clone(), Fit::Whole)
        );
        assert_eq!(
            shown(&unterminated, 249).1,
            Fit::Lines {
                bytes: 100,
                lines: 1
            }
        );
    }

    #[test]
    fn a_first_line_over_the_budget_is_cut_and_marked() {
        let text = format!("{}\nnext\n", "a".repeat(1000));
        let (content, fit) = shown(&text, 200);
        let marker = "[read_file: 843 bytes of line 7 left out]\n";
        // 200 = kept + 1 (its \n) + the marker.
        let kept = 200 - 1 - marker.len();
        assert_eq!(
            fit,
            Fit::FirstLineCut {
                bytes: kept,
                left_out: 1000 - kept
            }
        );
        assert_eq!(content, format!("{}\n{marker}", "a".repeat(kept)));
        // One byte over: a 201-byte first line (with its \n) under a 200-byte budget.
        let text = format!("{}\n", "b".repeat(200));
        assert!(matches!(shown(&text, 200).1, Fit::FirstLineCut { .. }));
        assert_eq!(shown(&text, 201).1, Fit::Whole);
    }

    #[test]
    fn a_cut_never_splits_a_character() {
        // 4-byte characters: whichever budget, the cut falls on a boundary before it.
        let text = "\u{1F600}".repeat(100);
        for budget in 128..140 {
            let (content, fit) = shown(&text, budget);
            let Fit::FirstLineCut { bytes, left_out } = fit else {
                panic!("not cut at {budget}");
            };
            assert_eq!(bytes % 4, 0, "budget {budget}");
            assert_eq!(bytes + left_out, 400);
            assert!(content.starts_with(&text[..bytes]));
        }
    }
}
