//! The text a model is given for a toolkit's text window, in every adapter: one header line
//! (the path, the lines shown of how many, the size), the lines after a line-number gutter,
//! the toolkit's note in brackets, and, when lines are left, one closing line naming the call
//! that reads on; the note that stands for a window the model was given already; and the text
//! around a media answer's parts (its header, and the call that reads on). The
//! one renderer: the binding hands a read's text over with its output, renders an output
//! object a caller made, and writes `agent-read-file mcp`'s answers from it.
//! The gutter and the header's words were chosen by counting tokens (benchmark/tokens.mjs).

use crate::media::pdf::MAX_PAGES_PER_CALL;
use crate::media::{MediaKind, MediaOutput, MediaPart, Shown};
use crate::read_file::{Continuation, ReadFileMeta, ReadFileOutput, first_line};

/// A text window as the renderer reads it: a read's output, or one a caller made.
#[derive(Clone, Copy, Debug)]
pub struct Window<'a> {
    pub path: &'a str,
    /// The lines, each ending in `\n` but perhaps the last; when the window is a cut line
    /// (`continuation`), its last line is the marker the engine wrote.
    pub content: &'a str,
    pub truncated: bool,
    pub next_start_line: Option<u64>,
    pub meta: ReadFileMeta,
    pub continuation: Option<Continuation>,
    pub note: Option<&'a str>,
}

impl<'a> From<&'a ReadFileOutput> for Window<'a> {
    fn from(output: &'a ReadFileOutput) -> Window<'a> {
        Window {
            path: &output.path,
            content: output.content.as_str(),
            truncated: output.truncated,
            next_start_line: output.next_start_line,
            meta: output.meta,
            continuation: output.continuation,
            note: output.note,
        }
    }
}

impl Window<'_> {
    /// The first line of the window: worked out from where it ends.
    pub fn first_line(&self) -> u64 {
        first_line(&self.meta, self.next_start_line)
    }

    /// Where its cut line continues: a toolkit's answer with a note carries none (the note
    /// is about `max_lines`, which a cut line's window never hits).
    fn cut(&self) -> Option<Continuation> {
        self.continuation.filter(|_| self.note.is_none())
    }
}

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

/// The model's text for `window` (see the module's documentation).
pub fn render_read<'a>(window: impl Into<Window<'a>>, options: TextOptions) -> String {
    let mut text = String::new();
    render_read_into(&window.into(), options, &mut text);
    text
}

/// [`render_read`]'s text, written into `sink`.
pub fn render_read_into(window: &Window<'_>, options: TextOptions, sink: &mut impl TextSink) {
    let cut = window.cut();
    let body = body_of(window.content, cut.is_some());
    let first = window.first_line();
    let header = header(window, options);
    let lines = u64::from(window.meta.returned_line_count);
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
    if let Some(note) = window.note {
        sink.push_text(&format!("\n[{note}]"));
    }
    if let Some(closing) = closing_line(window, cut) {
        sink.push_text("\n");
        sink.push_text(&closing);
    }
    sink.push_text("\n");
}

/// The note a model is given instead of a window's lines it was given before and that have
/// not changed since, with the closing line that reads on.
pub fn render_unchanged<'a>(window: impl Into<Window<'a>>) -> String {
    let window = window.into();
    let note = format!(
        "{} {} unchanged since your last read\n",
        shown_path(window.path),
        line_span(&window)
    );
    match closing_line(&window, window.cut()) {
        Some(closing) => format!("{note}{closing}\n"),
        None => note,
    }
}

/// The lines of `content` as one text, without the `\n` that ends the last (`None` when it
/// holds none), and, when `cut`, without the cut line's marker (its last line).
fn body_of(content: &str, cut: bool) -> Option<&str> {
    if content.is_empty() {
        return None;
    }
    let body = content.strip_suffix('\n').unwrap_or(content);
    match cut {
        true => body.rsplit_once('\n').map(|(lines, _marker)| lines),
        false => Some(body),
    }
}

/// The path as the header shows it: as it is, or as a JSON string when it holds a control
/// character or a line or paragraph separator.
pub fn shown_path(path: &str) -> String {
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
fn header(window: &Window<'_>, options: TextOptions) -> String {
    let path = shown_path(window.path);
    let meta = &window.meta;
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
            format!(", line {} from column {column}", window.first_line())
        }
        _ => String::new(),
    };
    format!(
        "{path} {} of {total}{column} ({size} bytes)",
        line_span(window)
    )
}

/// The lines a window holds: `line A` or `lines A-B`.
fn line_span(window: &Window<'_>) -> String {
    let first = window.first_line();
    let last = (first + u64::from(window.meta.returned_line_count)).saturating_sub(1);
    match first == last {
        true => format!("line {first}"),
        false => format!("lines {first}-{last}"),
    }
}

/// The closing line: the call that reads on (the rest of a cut line, or the next window).
fn closing_line(window: &Window<'_>, cut: Option<Continuation>) -> Option<String> {
    if let Some(Continuation {
        start_line: line,
        start_column: column,
        line_bytes,
    }) = cut
    {
        let length = line_bytes.map_or(String::new(), |length| format!(" of {length}"));
        return Some(format!(
            "[line {line} continues at column {column}{length}; next: start_line={line} start_column={column}]"
        ));
    }
    let next = window.next_start_line.filter(|_| window.truncated)?;
    Some(format!("[next: start_line={next}]"))
}

/// What a media answer's text around its parts says: the file, its kind and size, the image as
/// the file has it and as it is shown, and which pages or cells are shown of how many.
#[derive(Clone, Copy, Debug)]
pub struct MediaFacts<'a> {
    pub path: &'a str,
    /// `"image"`, `"pdf"` or `"notebook"`.
    pub kind: &'a str,
    pub byte_length: u64,
    /// An image answer's image.
    pub image: Option<ImageFacts<'a>>,
    /// A PDF's pages or a notebook's cells shown.
    pub shown: Option<Shown>,
    /// A notebook's image outputs not sent.
    pub images_left_out: u32,
}

/// An image as it is shown (its MIME type and size) and as its file has it.
#[derive(Clone, Copy, Debug)]
pub struct ImageFacts<'a> {
    pub mime_type: &'a str,
    pub width: u32,
    pub height: u32,
    pub source_mime_type: &'a str,
    pub source_width: u32,
    pub source_height: u32,
}

/// The text a media answer's parts are framed by: `head` before them (one header line:
/// `shot.png PNG image 4000x3000 (2345678 bytes), shown at 1568x1176 as JPEG`, `spec.pdf PDF
/// pages 1-20 of 54 (…)`, `nb.ipynb notebook cells 1-12 of 30 (…)`), `tail` after them (the
/// images left out, and the call that reads on; empty when there is neither).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MediaFrame {
    pub head: String,
    pub tail: String,
}

impl<'a> From<&'a MediaOutput> for MediaFacts<'a> {
    fn from(output: &'a MediaOutput) -> MediaFacts<'a> {
        let image = output.parts.iter().find_map(|part| match part {
            MediaPart::Image(image) => Some(ImageFacts {
                mime_type: image.format.mime_type(),
                width: image.width,
                height: image.height,
                source_mime_type: image.source_format.mime_type(),
                source_width: image.source_width,
                source_height: image.source_height,
            }),
            MediaPart::Text(_) => None,
        });
        MediaFacts {
            path: &output.path,
            kind: output.kind.as_str(),
            byte_length: output.byte_length,
            image: image.filter(|_| matches!(output.kind, MediaKind::Image(_))),
            shown: output.shown,
            images_left_out: output.images_left_out,
        }
    }
}

/// The frame of a media answer's parts (see [`MediaFrame`]).
pub fn media_frame<'a>(facts: impl Into<MediaFacts<'a>>) -> MediaFrame {
    let facts = facts.into();
    MediaFrame {
        head: format!("{}\n", media_header(&facts)),
        tail: media_closing(&facts)
            .into_iter()
            .map(|line| line + "\n")
            .collect(),
    }
}

fn media_header(facts: &MediaFacts<'_>) -> String {
    let path = shown_path(facts.path);
    let size = format!("({} bytes)", facts.byte_length);
    if let Some(image) = facts.image {
        let resized = (image.width, image.height, image.mime_type)
            != (
                image.source_width,
                image.source_height,
                image.source_mime_type,
            );
        let shown_at = match resized {
            true => format!(
                ", shown at {}x{} as {}",
                image.width,
                image.height,
                format_name(image.mime_type)
            ),
            false => String::new(),
        };
        let format = format_name(image.source_mime_type);
        let (width, height) = (image.source_width, image.source_height);
        return format!("{path} {format} image {width}x{height} {size}{shown_at}");
    }
    let (kind, one, many) = match facts.kind {
        "pdf" => ("PDF", "page", "pages"),
        "notebook" => ("notebook", "cell", "cells"),
        other => (other, "part", "parts"),
    };
    match facts.shown {
        Some(Shown { first, last, total }) if first == last => {
            format!("{path} {kind} {one} {first} of {total} {size}")
        }
        Some(Shown { first, last, total }) => {
            format!("{path} {kind} {many} {first}-{last} of {total} {size}")
        }
        None => format!("{path} {kind} {size}"),
    }
}

/// The name of an image type as a header says it: `PNG`, `JPEG`, `GIF`, `WebP`.
fn format_name(mime_type: &str) -> &str {
    match mime_type {
        "image/png" => "PNG",
        "image/jpeg" => "JPEG",
        "image/gif" => "GIF",
        "image/webp" => "WebP",
        other => other,
    }
}

/// The closing lines of a media answer: the images left out, and the call that reads on.
fn media_closing(facts: &MediaFacts<'_>) -> Vec<String> {
    let mut lines = Vec::new();
    let left = facts.images_left_out;
    if left > 0 {
        let plural = if left == 1 { "" } else { "s" };
        lines.push(format!(
            "[note: {left} image output{plural} not shown; read fewer cells at a time to see them]"
        ));
    }
    if let Some(Shown { last, total, .. }) = facts.shown.filter(|shown| shown.last < shown.total) {
        let next = match facts.kind {
            "pdf" => format!("{}-{}", last + 1, (last + MAX_PAGES_PER_CALL).min(total)),
            _ => format!("{}-", last + 1),
        };
        lines.push(format!("[next: pages=\"{next}\"]"));
    }
    lines
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
        // The line's length is the answer's, whatever its marker says (a short marker has no
        // room for it); an answer without it (someone else's) is told without.
        for (content, line_bytes, length) in [
            (long, Some(10), " of 10"),
            (short, Some(10), " of 10"),
            (long, None, ""),
        ] {
            let mut output = going_on(window("f.txt", content, 5, 1), 3);
            output.continuation = Some(Continuation {
                start_line: 2,
                start_column: 4,
                line_bytes,
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
    }

    #[test]
    fn the_note_for_lines_given_before_names_them_and_the_call_that_reads_on() {
        let output = going_on(window("a\tb.txt", "x\ny\n", 9, 2), 6);
        assert_eq!(
            render_unchanged(&output),
            "\"a\\tb.txt\" lines 4-5 unchanged since your last read\n[next: start_line=6]\n"
        );
        let whole = window("f.txt", "x\n", 1, 1);
        assert_eq!(
            render_unchanged(&whole),
            "f.txt line 1 unchanged since your last read\n"
        );
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
            line_bytes: Some(7),
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

    fn media(
        kind: &'static str,
        shown: Option<Shown>,
        images_left_out: u32,
    ) -> MediaFacts<'static> {
        MediaFacts {
            path: "docs/spec.pdf",
            kind,
            byte_length: 5000,
            image: None,
            shown,
            images_left_out,
        }
    }

    #[test]
    fn a_media_answer_is_framed_by_its_header_and_the_call_that_reads_on() {
        let pages = |first, last, total| Some(Shown { first, last, total });
        let frame = media_frame(media("pdf", pages(1, 20, 54), 0));
        assert_eq!(
            frame.head,
            "docs/spec.pdf PDF pages 1-20 of 54 (5000 bytes)\n"
        );
        assert_eq!(frame.tail, "[next: pages=\"21-40\"]\n");
        let end = media_frame(media("pdf", pages(41, 50, 54), 0));
        assert_eq!(end.tail, "[next: pages=\"51-54\"]\n");
        let last = media_frame(media("pdf", pages(54, 54, 54), 0));
        assert_eq!(
            (last.head.as_str(), last.tail.as_str()),
            ("docs/spec.pdf PDF page 54 of 54 (5000 bytes)\n", "")
        );
        let cells = media_frame(media("notebook", pages(1, 12, 30), 1));
        assert_eq!(
            cells.head,
            "docs/spec.pdf notebook cells 1-12 of 30 (5000 bytes)\n"
        );
        assert_eq!(
            cells.tail,
            "[note: 1 image output not shown; read fewer cells at a time to see them]\n\
             [next: pages=\"13-\"]\n"
        );
        let two_left = media_frame(media("notebook", pages(1, 1, 1), 2));
        assert!(
            two_left
                .tail
                .starts_with("[note: 2 image outputs not shown;")
        );
    }

    #[test]
    fn an_image_header_says_how_it_is_shown_when_it_was_made_to_fit() {
        let image = ImageFacts {
            mime_type: "image/png",
            width: 64,
            height: 48,
            source_mime_type: "image/png",
            source_width: 64,
            source_height: 48,
        };
        let facts = MediaFacts {
            path: "shot\n.png",
            kind: "image",
            image: Some(image),
            ..media("image", None, 0)
        };
        assert_eq!(
            media_frame(facts).head,
            "\"shot\\n.png\" PNG image 64x48 (5000 bytes)\n"
        );
        let fitted = ImageFacts {
            mime_type: "image/jpeg",
            width: 1568,
            height: 1176,
            source_width: 4000,
            source_height: 3000,
            ..image
        };
        let facts = MediaFacts {
            path: "photo.png",
            image: Some(fitted),
            ..facts
        };
        assert_eq!(
            media_frame(facts).head,
            "photo.png PNG image 4000x3000 (5000 bytes), shown at 1568x1176 as JPEG\n"
        );
    }
}
