//! The text a model is given for a toolkit's text window, as `model-text.js`'s `renderRead`
//! writes it: one header line (the path, the lines shown of how many, the size), the lines
//! after a line-number gutter, the toolkit's note in brackets, and, when lines are left, one
//! closing line naming the call that reads on. `agent-read-file mcp` makes its answers' text
//! here, so that a read's answer never becomes a JavaScript string; a test of the package
//! holds this text equal to `renderRead`'s for every kind of window.

use crate::read_file::{Continuation, ReadFileOutput};

/// What the text of a window depends on beyond the window: the call's arguments as given.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TextOptions {
    /// Each line after its number and a tab.
    pub line_numbers: bool,
    /// The call's `start_line`, when it gave one: an empty window's header names it.
    pub start_line: Option<u64>,
    /// The call's `start_column`, when it gave one: a window from inside a line says so.
    pub start_column: Option<u64>,
}

/// Where the model's text goes, piece by piece in order: a `String` takes each piece as it
/// is; a serialiser may escape them on the way (the MCP answer writes the text as a JSON
/// string at once, never as a text of its own first).
pub trait TextSink {
    /// Makes room for about `additional` more bytes.
    fn reserve(&mut self, additional: usize);
    /// Appends `piece` of the text.
    fn push_text(&mut self, piece: &str);

    /// Appends each line of `body` (its lines joined by `\n`) after a `\n`, numbered from
    /// `first` (the number and a tab before the line) when `numbered`.
    fn push_lines(&mut self, body: &str, first: u64, numbered: bool) {
        let mut number = itoa::Buffer::new();
        for (line_number, line) in (first..).zip(body.split('\n')) {
            self.push_text("\n");
            if numbered {
                self.push_text(number.format(line_number));
                self.push_text("\t");
            }
            self.push_text(line);
        }
    }
}

impl TextSink for String {
    fn reserve(&mut self, additional: usize) {
        String::reserve(self, additional);
    }

    fn push_text(&mut self, piece: &str) {
        self.push_str(piece);
    }
}

/// The model's text for `output` (see the module's documentation).
pub fn render_read(output: &ReadFileOutput, options: TextOptions) -> String {
    let mut text = String::new();
    render_read_into(output, options, &mut text);
    text
}

/// [`render_read`]'s text, written into `sink`.
pub fn render_read_into(output: &ReadFileOutput, options: TextOptions, sink: &mut impl TextSink) {
    // A toolkit's answer with a note does not carry its continuation (the note is about
    // `max_lines`, which a cut line's window never hits).
    let cut = output.continuation.filter(|_| output.note.is_none());
    let (body, line_len) = body_of(output.content.as_str(), cut.is_some());
    let first = output.first_line();
    let header = header(output, options);
    let lines = u64::from(output.meta.returned_line_count);
    // Room for every line, its gutter (a number as wide as the last one, and a tab) and
    // the closing line, so that the text is written without being moved.
    let gutter = itoa::Buffer::new().format(first + lines).len() + 1;
    sink.reserve(
        header.len() + body.map_or(0, str::len) + (lines as usize + 1) * (gutter + 1) + 128,
    );
    sink.push_text(&header);
    if let Some(body) = body {
        sink.push_lines(body, first, options.line_numbers);
    }
    if let Some(note) = output.note {
        sink.push_text(&format!("\n[{note}]"));
    }
    if let Some(closing) = closing_line(output, cut, line_len) {
        sink.push_text("\n");
        sink.push_text(&closing);
    }
    sink.push_text("\n");
}

/// The lines of `content` as one text, without the `\n` that ends the last (`None` when it
/// holds none), and, when `cut`, the cut line's marker taken off the end with the line's
/// length it names (the short marker names none).
fn body_of(content: &str, cut: bool) -> (Option<&str>, Option<u64>) {
    if content.is_empty() {
        return (None, None);
    }
    let body = content.strip_suffix('\n').unwrap_or(content);
    let (rest, last) = match body.rsplit_once('\n') {
        Some((rest, last)) => (Some(rest), last),
        None => (None, body),
    };
    match cut.then(|| cut_marker(last)).flatten() {
        Some(length) => (rest, length),
        None => (Some(body), None),
    }
}

/// The cut line's marker the engine writes (`window::cut_marker`, long or short): `None`
/// when `line` is not one, else the line's length it names, if it names one.
fn cut_marker(line: &str) -> Option<Option<u64>> {
    let inner = line.strip_prefix('[')?.strip_suffix(']')?;
    let (length, call) = match inner.strip_prefix("line ") {
        Some(long) => {
            let (_, rest) = split_digits(long)?;
            let (_, rest) = split_digits(rest.strip_prefix(" continues at column ")?)?;
            let (length, rest) = split_digits(rest.strip_prefix(" of ")?)?;
            (Some(length.parse().ok()?), rest.strip_prefix(": ")?)
        }
        None => (None, inner),
    };
    let (_, rest) = split_digits(call.strip_prefix("call read_file with start_line ")?)?;
    let (_, rest) = split_digits(rest.strip_prefix(" and start_column ")?)?;
    rest.is_empty().then_some(length)
}

/// The ASCII digits `text` starts with (at least one), and the rest; `None` when it starts
/// with none.
fn split_digits(text: &str) -> Option<(&str, &str)> {
    let end = text.bytes().take_while(u8::is_ascii_digit).count();
    (end > 0).then(|| text.split_at(end))
}

/// The path as the header shows it: as it is, or as a JSON string when it holds a control
/// character or a line or paragraph separator.
fn shown_path(path: &str) -> String {
    let plain = !path
        .chars()
        .any(|c| c <= '\u{1f}' || matches!(c, '\u{7f}' | '\u{2028}' | '\u{2029}'));
    match plain {
        true => path.to_owned(),
        false => serde_json::to_string(path).unwrap_or_else(|_| path.to_owned()),
    }
}

/// `path lines A-B of T (S bytes)`, `line A of T` for one, the column a window starts at,
/// or the header of a window of no lines.
fn header(output: &ReadFileOutput, options: TextOptions) -> String {
    let path = shown_path(&output.path);
    let meta = &output.meta;
    let (total, size) = (meta.line_count, meta.byte_length);
    if meta.returned_line_count == 0 {
        return match (total, options.start_line) {
            (0, _) => format!("{path} has no lines ({size} bytes)"),
            (_, None) => format!("{path} has {total} lines, none in this window ({size} bytes)"),
            (_, Some(start)) => {
                format!("{path} has {total} lines, none from line {start} on ({size} bytes)")
            }
        };
    }
    let column = match options.start_column {
        Some(column) if column > 1 && meta.returned_line_count == 1 => {
            format!(" from column {column}")
        }
        Some(column) if column > 1 => {
            format!(", line {} from column {column}", output.first_line())
        }
        _ => String::new(),
    };
    format!(
        "{path} {} of {total}{column} ({size} bytes)",
        line_span(output)
    )
}

/// The lines a window holds: `line A` or `lines A-B`.
fn line_span(output: &ReadFileOutput) -> String {
    let first = output.first_line();
    let last = (first + u64::from(output.meta.returned_line_count)).saturating_sub(1);
    match first == last {
        true => format!("line {first}"),
        false => format!("lines {first}-{last}"),
    }
}

/// The closing line: the call that reads on (the rest of a cut line, or the next window).
fn closing_line(
    output: &ReadFileOutput,
    cut: Option<Continuation>,
    line_len: Option<u64>,
) -> Option<String> {
    if let Some(Continuation {
        start_line: line,
        start_column: column,
    }) = cut
    {
        let length = line_len.map_or(String::new(), |length| format!(" of {length}"));
        return Some(format!(
            "[line {line} continues at column {column}{length}; next: start_line={line} start_column={column}]"
        ));
    }
    let next = output.next_start_line.filter(|_| output.truncated)?;
    Some(format!("[next: start_line={next}]"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read_file::{Content, ReadFileMeta};
    use crate::request::MAX_LINES_CAPPED_NOTE;

    /// A window of `content` from a file of `line_count` lines and `byte_length` bytes.
    fn window(path: &str, content: &str, line_count: u64, returned: u32) -> ReadFileOutput {
        ReadFileOutput {
            path: path.to_owned(),
            content: Content::owned(content.to_owned()),
            truncated: false,
            next_start_line: None,
            meta: ReadFileMeta {
                byte_length: 1234,
                line_count,
                returned_line_count: returned,
                mtime_ms: 0,
            },
            continuation: None,
            note: None,
        }
    }

    /// `window`, with lines after it from `next`.
    fn going_on(mut output: ReadFileOutput, next: u64) -> ReadFileOutput {
        output.truncated = true;
        output.next_start_line = Some(next);
        output
    }

    const NUMBERED: TextOptions = TextOptions {
        line_numbers: true,
        start_line: None,
        start_column: None,
    };

    fn numbered_from(start_line: u64) -> TextOptions {
        TextOptions {
            start_line: Some(start_line),
            ..NUMBERED
        }
    }

    #[test]
    fn a_window_with_lines_left_names_the_call_that_reads_on() {
        let output = going_on(window("f.txt", "line 51\nline 52\nline 53\n", 120, 3), 54);
        assert_eq!(
            render_read(&output, numbered_from(51)),
            "f.txt lines 51-53 of 120 (1234 bytes)\n51\tline 51\n52\tline 52\n53\tline 53\n\
             [next: start_line=54]\n"
        );
    }

    #[test]
    fn a_whole_file_has_no_closing_line_and_one_line_is_named_alone() {
        let output = window("a/b.rs", "fn main() {}\n", 1, 1);
        assert_eq!(
            render_read(&output, NUMBERED),
            "a/b.rs line 1 of 1 (1234 bytes)\n1\tfn main() {}\n"
        );
        let no_numbers = TextOptions {
            line_numbers: false,
            ..NUMBERED
        };
        assert_eq!(
            render_read(&output, no_numbers),
            "a/b.rs line 1 of 1 (1234 bytes)\nfn main() {}\n"
        );
    }

    #[test]
    fn an_empty_window_says_why_it_is_empty() {
        assert_eq!(
            render_read(&window("e.txt", "", 0, 0), NUMBERED),
            "e.txt has no lines (1234 bytes)\n"
        );
        let past_end = window("f.txt", "", 3, 0);
        assert_eq!(
            render_read(&past_end, numbered_from(9)),
            "f.txt has 3 lines, none from line 9 on (1234 bytes)\n"
        );
        assert_eq!(
            render_read(&past_end, NUMBERED),
            "f.txt has 3 lines, none in this window (1234 bytes)\n"
        );
    }

    #[test]
    fn a_cut_line_drops_its_marker_and_says_where_it_continues() {
        let long = "abc\n[line 2 continues at column 4 of 10: call read_file with start_line 2 \
                    and start_column 4]\n";
        let short = "abc\n[call read_file with start_line 2 and start_column 4]\n";
        let expected = |length: &str| {
            format!(
                "f.txt line 2 of 5 (1234 bytes)\n2\tabc\n[line 2 continues at column 4{length}; \
                 next: start_line=2 start_column=4]\n"
            )
        };
        for (content, length) in [(long, " of 10"), (short, "")] {
            let mut output = going_on(window("f.txt", content, 5, 1), 3);
            output.continuation = Some(Continuation {
                start_line: 2,
                start_column: 4,
            });
            assert_eq!(render_read(&output, NUMBERED), expected(length));
        }
    }

    #[test]
    fn a_line_like_a_marker_is_kept_unless_the_line_was_cut() {
        let content = "[call read_file with start_line 2 and start_column 4]\n";
        let output = window("f.txt", content, 1, 1);
        assert_eq!(
            render_read(&output, NUMBERED),
            format!("f.txt line 1 of 1 (1234 bytes)\n1\t{content}")
        );
        for not_marker in [
            "[call read_file with start_line 2 and start_column 4]x",
            "[line x continues at column 4 of 10: call read_file with start_line 2 and start_column 4]",
            "[call read_file with start_line  and start_column 4]",
        ] {
            assert_eq!(cut_marker(not_marker), None, "{not_marker}");
        }
    }

    #[test]
    fn a_window_from_a_column_names_it() {
        let options = TextOptions {
            start_column: Some(5),
            ..numbered_from(2)
        };
        let one = going_on(window("f.txt", "efgh\n", 9, 1), 3);
        assert_eq!(
            render_read(&one, options),
            "f.txt line 2 of 9 from column 5 (1234 bytes)\n2\tefgh\n[next: start_line=3]\n"
        );
        let two = going_on(window("f.txt", "efgh\nline 3\n", 9, 2), 4);
        assert!(
            render_read(&two, options)
                .starts_with("f.txt lines 2-3 of 9, line 2 from column 5 (1234 bytes)\n")
        );
        let column_one = TextOptions {
            start_column: Some(1),
            ..options
        };
        assert!(render_read(&two, column_one).starts_with("f.txt lines 2-3 of 9 (1234 bytes)\n"));
    }

    #[test]
    fn a_note_is_in_brackets_before_the_closing_line_and_hides_a_continuation() {
        let mut output = going_on(window("f.txt", "a\nb\n", 900, 2), 3);
        output.note = Some(MAX_LINES_CAPPED_NOTE);
        output.continuation = Some(Continuation {
            start_line: 2,
            start_column: 1,
        });
        assert_eq!(
            render_read(&output, NUMBERED),
            format!(
                "f.txt lines 1-2 of 900 (1234 bytes)\n1\ta\n2\tb\n[{MAX_LINES_CAPPED_NOTE}]\n\
                 [next: start_line=3]\n"
            )
        );
    }

    #[test]
    fn a_path_with_a_control_character_or_separator_is_shown_as_a_json_string() {
        for (path, shown) in [
            ("a\nb.txt", r#""a\nb.txt""#),
            ("a\u{1b}b", r#""a\u001bb""#),
            ("a\u{7f}\"b", "\"a\u{7f}\\\"b\""),
            ("a\u{2028}b", "\"a\u{2028}b\""),
            ("a \"quoted\" b", "a \"quoted\" b"),
        ] {
            let text = render_read(&window(path, "x\n", 1, 1), NUMBERED);
            assert_eq!(text, format!("{shown} line 1 of 1 (1234 bytes)\n1\tx\n"));
        }
    }
}
