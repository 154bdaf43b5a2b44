//! Jupyter notebooks (`.ipynb`, nbformat 4), for a model to read: a window of cells, each
//! with its source and its outputs as text, and its image outputs as images.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD_PAD_INDIFFERENT as BASE64;
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::{Map, Value};

/// The raster image types a model can be shown, in the order an output's are preferred.
const IMAGE_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/// True when `bytes` is a JSON object with an integer `nbformat`.
///
/// Cheap on anything else: bytes without `"nbformat"` in them are not parsed at all; the
/// rest are scanned without building the notebook. (A JSON array cannot pass: serde reads
/// a one-field struct from an array only if the array is that one integer.)
pub fn sniff(bytes: &[u8]) -> bool {
    memchr::memmem::find(bytes, b"\"nbformat\"").is_some()
        && serde_json::from_slice::<Probe>(bytes).is_ok_and(|p| p.nbformat.as_u64().is_some())
}

/// Why a notebook could not be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum NotebookError {
    /// Not a notebook: not JSON, or JSON without the notebook's shape; the string says what
    /// is wrong, in a few words.
    #[error("the notebook is malformed: {0}")]
    Malformed(String),
    /// A notebook of another format than 4 (3 and older have worksheets, not cells).
    #[error("the notebook is nbformat {0}; only nbformat 4 is read")]
    UnsupportedVersion(u64),
    /// The first cell asked for is past the last cell.
    #[error("cell {first} is past the end: the notebook has {cell_count} cells")]
    CellOutOfRange {
        /// The first cell asked for, 1-based.
        first: u32,
        /// How many cells the notebook has.
        cell_count: u32,
    },
}

/// What a window of cells shows: text and images, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotebookPart {
    /// Cell headers, sources and text outputs; adjacent text is always one part.
    Text(String),
    /// An image output.
    Image {
        /// `image/png`, `image/jpeg`, `image/gif` or `image/webp`.
        mime_type: String,
        /// The image, decoded from the notebook's base64.
        bytes: Vec<u8>,
    },
}

/// A window of a notebook's cells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotebookWindow {
    /// How many cells the notebook has.
    pub cell_count: u32,
    /// The first cell shown, 1-based.
    pub first: u32,
    /// The last cell shown, 1-based and inclusive: the next window starts after it. 0 when
    /// the notebook has no cells.
    pub last: u32,
    /// The cells' text and images, in order.
    pub parts: Vec<NotebookPart>,
    /// How many image outputs of the cells shown were left out for
    /// [`NotebookBudget::max_images`] (each has a line saying so where it was).
    pub images_left_out: u32,
    /// The notebook's language (`python`, `julia`, ...), when its metadata says.
    pub language: Option<String>,
}

/// How much one window may show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotebookBudget {
    /// The most text, in bytes (UTF-8), of the whole window.
    pub max_text_bytes: usize,
    /// The most text of one output; the rest is left out, with a line saying how much.
    pub max_output_bytes: usize,
    /// The most images one window shows.
    pub max_images: u32,
}

impl Default for NotebookBudget {
    /// 64 KiB of text (about 16k tokens, as much as [`super::pdf::MAX_PAGES_PER_CALL`]
    /// pages of a PDF); 4 KiB per output (about 1k tokens: a whole traceback usually fits,
    /// a training log's progress lines do not need to); 4 images (a model sees an image as
    /// about 1-2k tokens, so 4 cost no more than the text does).
    fn default() -> Self {
        Self {
            max_text_bytes: 64 << 10,
            max_output_bytes: 4 << 10,
            max_images: 4,
        }
    }
}

/// Cells `first..=last` (1-based; `last` clamped to the cell count, `None`: to the end; a
/// `first` of 0 is read as 1), as many as fit the budget: the window stops before the cell
/// whose text would overflow [`NotebookBudget::max_text_bytes`] (but always shows its first
/// cell, cut if needed), so that [`NotebookWindow::last`] says where to continue.
pub fn notebook_window(
    bytes: &[u8],
    first: u32,
    last: Option<u32>,
    budget: &NotebookBudget,
) -> Result<NotebookWindow, NotebookError> {
    let notebook = parse(bytes)?;
    let cell_count = u32::try_from(notebook.cells.len()).unwrap_or(u32::MAX);
    let first = first.max(1);
    let language = notebook.metadata.language();
    if cell_count == 0 && first == 1 {
        return Ok(NotebookWindow {
            cell_count,
            first,
            last: 0,
            parts: Vec::new(),
            images_left_out: 0,
            language,
        });
    }
    if first > cell_count {
        return Err(NotebookError::CellOutOfRange { first, cell_count });
    }
    let last = last.unwrap_or(cell_count).clamp(first, cell_count);

    let mut window = Window::new(budget);
    let mut shown = first - 1;
    for (number, cell) in (first..=last).zip(&notebook.cells[first as usize - 1..]) {
        let mut rendered = Window::new(budget);
        rendered.images_left = budget.max_images.saturating_sub(window.images_shown);
        rendered.cell(number, cell);
        if number > first && window.text_bytes + rendered.text_bytes > budget.max_text_bytes {
            break;
        }
        if number == first {
            rendered.cut_to(budget.max_text_bytes);
        }
        window.append(rendered);
        shown = number;
    }
    Ok(NotebookWindow {
        cell_count,
        first,
        last: shown,
        parts: window.parts,
        images_left_out: window.images_left_out,
        language,
    })
}

/// Only what [`sniff`] needs, the rest of the document skipped without being kept.
#[derive(Deserialize)]
struct Probe {
    nbformat: Value,
}

/// Just enough of a notebook to check its version before reading its cells, whose shape
/// differs in older versions.
#[derive(Deserialize)]
struct Header {
    nbformat: Option<Value>,
    #[serde(default)]
    cells: Option<IgnoredAny>,
}

#[derive(Deserialize)]
struct Notebook {
    #[serde(default)]
    metadata: Metadata,
    cells: Vec<Cell>,
}

#[derive(Deserialize, Default)]
struct Metadata {
    #[serde(default)]
    language_info: Option<Map<String, Value>>,
    #[serde(default)]
    kernelspec: Option<Map<String, Value>>,
}

impl Metadata {
    fn language(&self) -> Option<String> {
        let field = |map: &Option<Map<String, Value>>, key: &str| {
            map.as_ref()?.get(key)?.as_str().map(str::to_owned)
        };
        field(&self.language_info, "name").or_else(|| field(&self.kernelspec, "language"))
    }
}

#[derive(Deserialize)]
struct Cell {
    cell_type: String,
    #[serde(default)]
    source: MultiLine,
    #[serde(default)]
    execution_count: Option<Value>,
    #[serde(default)]
    outputs: Vec<Output>,
}

/// A string that nbformat may also store as a list of strings (its lines).
#[derive(Deserialize)]
#[serde(untagged)]
enum MultiLine {
    One(String),
    Lines(Vec<String>),
}

impl Default for MultiLine {
    fn default() -> Self {
        Self::One(String::new())
    }
}

impl MultiLine {
    fn pieces(&self) -> &[String] {
        match self {
            Self::One(s) => std::slice::from_ref(s),
            Self::Lines(lines) => lines,
        }
    }

    fn is_empty(&self) -> bool {
        self.pieces().iter().all(String::is_empty)
    }

    /// The text, as one string, for values a model reads in full anyway.
    fn joined(&self) -> String {
        self.pieces().concat()
    }
}

#[derive(Deserialize)]
struct Output {
    output_type: String,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    text: MultiLine,
    #[serde(default)]
    data: Map<String, Value>,
    #[serde(default)]
    ename: Option<String>,
    #[serde(default)]
    evalue: Option<String>,
    #[serde(default)]
    traceback: Vec<String>,
}

fn parse(bytes: &[u8]) -> Result<Notebook, NotebookError> {
    let malformed =
        |what: &str, err: serde_json::Error| NotebookError::Malformed(format!("{what} ({err})"));
    // serde would read a struct from a JSON array too.
    let object = bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
    let header: Header = match serde_json::from_slice(bytes) {
        Ok(_) if !object => {
            return Err(NotebookError::Malformed(
                "its top level is not a JSON object".into(),
            ));
        }
        Ok(header) => header,
        Err(err) if err.is_data() => {
            return Err(malformed("its top level is not a JSON object", err));
        }
        Err(err) => return Err(malformed("it is not JSON", err)),
    };
    let Some(version) = header.nbformat else {
        return Err(NotebookError::Malformed("it has no nbformat".into()));
    };
    let Some(version) = version.as_u64() else {
        return Err(NotebookError::Malformed(
            "its nbformat is not an integer".into(),
        ));
    };
    if version != 4 {
        return Err(NotebookError::UnsupportedVersion(version));
    }
    if header.cells.is_none() {
        return Err(NotebookError::Malformed("it has no cells array".into()));
    }
    serde_json::from_slice(bytes)
        .map_err(|err| malformed("its cells do not read as nbformat 4", err))
}

/// The parts of a window, or of one cell, as they are built.
struct Window<'b> {
    budget: &'b NotebookBudget,
    parts: Vec<NotebookPart>,
    text_bytes: usize,
    /// How many more images may be shown.
    images_left: u32,
    images_shown: u32,
    images_left_out: u32,
}

impl<'b> Window<'b> {
    fn new(budget: &'b NotebookBudget) -> Self {
        Self {
            budget,
            parts: Vec::new(),
            text_bytes: 0,
            images_left: budget.max_images,
            images_shown: 0,
            images_left_out: 0,
        }
    }

    fn text(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        self.text_bytes += text.len();
        if let Some(NotebookPart::Text(last)) = self.parts.last_mut() {
            last.push_str(text);
        } else {
            self.parts.push(NotebookPart::Text(text.to_owned()));
        }
    }

    /// Text that ends its line (and ends the line before it, if that was left open).
    fn line(&mut self, text: &str) {
        self.text(text);
        let open = match self.parts.last() {
            Some(NotebookPart::Text(last)) => !last.ends_with('\n'),
            _ => false,
        };
        if open {
            self.text("\n");
        }
    }

    fn append(&mut self, other: Self) {
        for part in other.parts {
            match part {
                NotebookPart::Text(text) => self.text(&text),
                image => self.parts.push(image),
            }
        }
        self.images_shown += other.images_shown;
        self.images_left_out += other.images_left_out;
    }

    /// Cuts the text to `max` bytes, a line saying how much was left out included; images
    /// after the cut go too.
    fn cut_to(&mut self, max: usize) {
        if self.text_bytes <= max {
            return;
        }
        let total = self.text_bytes;
        // Room for the line saying so: "\n[cell cut: N more bytes]\n".
        let max = max.saturating_sub(40);
        let mut kept_bytes = 0;
        let mut kept = Vec::new();
        for part in std::mem::take(&mut self.parts) {
            match part {
                NotebookPart::Text(mut text) => {
                    let room = max - kept_bytes;
                    if text.len() > room {
                        text.truncate(floor_char_boundary(&text, room));
                        kept_bytes += text.len();
                        kept.push(NotebookPart::Text(text));
                        break;
                    }
                    kept_bytes += text.len();
                    kept.push(NotebookPart::Text(text));
                }
                image => kept.push(image),
            }
        }
        self.images_shown = count_images(&kept);
        self.parts = kept;
        self.text_bytes = kept_bytes;
        self.line("");
        self.line(&format!("[cell cut: {} more bytes]", total - kept_bytes));
    }

    fn cell(&mut self, number: u32, cell: &Cell) {
        let header = match cell.cell_type.as_str() {
            "code" => match cell.execution_count.as_ref().and_then(Value::as_u64) {
                Some(run) => format!("[cell {number} code, run {run}]"),
                None => format!("[cell {number} code, not run]"),
            },
            kind => format!("[cell {number} {}]", clean(kind)),
        };
        self.line(&header);
        if !cell.source.is_empty() {
            let mut source = cell.source.joined();
            // A source is a file's text, not a terminal's: a lone CR ends a line.
            if source.contains('\r') {
                source = source.replace("\r\n", "\n").replace('\r', "\n");
            }
            self.line(&clean(&source));
        }
        for output in &cell.outputs {
            self.output(output);
        }
    }

    fn output(&mut self, output: &Output) {
        match output.output_type.as_str() {
            "stream" => {
                let label = match output.name.as_deref() {
                    Some("stderr") => "[stderr]",
                    _ => "[out]",
                };
                self.output_text(label, &output.text.joined());
            }
            "execute_result" | "display_data" => self.rich(&output.data),
            "error" => {
                let mut text = format!(
                    "{}: {}\n",
                    output.ename.as_deref().unwrap_or("Error"),
                    output.evalue.as_deref().unwrap_or("")
                );
                for line in &output.traceback {
                    text.push_str(line);
                    text.push('\n');
                }
                self.output_text("[error]", &text);
            }
            other => self.line(&format!("[{} output not shown]", clean(other))),
        }
    }

    fn rich(&mut self, data: &Map<String, Value>) {
        let image = IMAGE_TYPES
            .iter()
            .find_map(|&mime| Some((mime, data.get(mime)?)));
        if let Some((mime_type, value)) = image {
            if self.images_left == 0 {
                self.images_left_out += 1;
                self.line(&format!(
                    "[{mime_type} output left out: image limit reached]"
                ));
            } else {
                match decode_image(value) {
                    Some(bytes) => {
                        self.images_left -= 1;
                        self.images_shown += 1;
                        self.parts.push(NotebookPart::Image {
                            mime_type: mime_type.to_owned(),
                            bytes,
                        });
                        return;
                    }
                    None => self.line(&format!("[{mime_type} output not shown: bad base64]")),
                }
            }
        }
        // Said even beside a text/plain, which for a figure is only `<Figure size ...>`.
        let svg = image.is_none() && data.contains_key("image/svg+xml");
        if svg {
            self.line("[image/svg+xml output not shown]");
        }
        let text = ["text/plain", "text/markdown", "text/latex"]
            .iter()
            .find_map(|&mime| multiline(data.get(mime)?));
        if let Some(text) = text {
            self.output_text("[out]", &text);
        } else if image.is_some() || svg {
            // Its line above says why it is not shown.
        } else if data.contains_key("text/html") {
            self.line("[text/html output not shown]");
        } else if let Some(mime) = data.keys().next() {
            self.line(&format!("[{} output not shown]", clean(mime)));
        }
    }

    /// An output's text under its label, cleaned and cut to the output budget.
    fn output_text(&mut self, label: &str, raw: &str) {
        let text = clean(raw);
        let text = text.trim_end_matches('\n');
        self.line(label);
        let max = self.budget.max_output_bytes;
        if text.len() <= max {
            self.line(text);
        } else {
            let cut = floor_char_boundary(text, max);
            self.line(&text[..cut]);
            self.line(&format!("[output cut: {} more bytes]", text.len() - cut));
        }
    }
}

fn count_images(parts: &[NotebookPart]) -> u32 {
    let images = parts
        .iter()
        .filter(|p| matches!(p, NotebookPart::Image { .. }))
        .count();
    u32::try_from(images).unwrap_or(u32::MAX)
}

/// A string or a list of strings, as nbformat stores multi-line values.
fn multiline(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Array(items) => items
            .iter()
            .map(|item| item.as_str())
            .collect::<Option<Vec<_>>>()
            .map(|pieces| pieces.concat()),
        _ => None,
    }
}

/// An image's bytes from the notebook's base64, which may be split into lines or into a
/// list of strings.
fn decode_image(value: &Value) -> Option<Vec<u8>> {
    let mut base64 = Vec::new();
    let mut add = |s: &str| {
        base64.extend(s.bytes().filter(|b| !b.is_ascii_whitespace()));
    };
    match value {
        Value::String(s) => add(s),
        Value::Array(items) => {
            for item in items {
                add(item.as_str()?);
            }
        }
        _ => return None,
    }
    BASE64.decode(&base64).ok()
}

/// The largest index at most `at` that is a char boundary of `s`.
fn floor_char_boundary(s: &str, at: usize) -> usize {
    if at >= s.len() {
        return s.len();
    }
    (0..=at).rev().find(|&i| s.is_char_boundary(i)).unwrap_or(0)
}

/// Text as a terminal would show it: ANSI escape sequences (CSI, OSC and the rest) removed,
/// a carriage return overwriting its line (progress bars), and other control characters
/// but tabs and newlines dropped.
fn clean(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut line_start = 0;
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => skip_escape(&mut chars),
            '\u{9b}' => skip_csi(&mut chars),
            '\n' => {
                out.push('\n');
                line_start = out.len();
            }
            '\r' if chars.peek() == Some(&'\n') => {}
            '\r' => out.truncate(line_start),
            '\t' => out.push('\t'),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// Skips the rest of an escape sequence whose ESC was just read.
fn skip_escape(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    match chars.next() {
        Some('[') => skip_csi(chars),
        // OSC, DCS, SOS, PM, APC: a string up to BEL or ST (ESC \).
        Some(']' | 'P' | 'X' | '^' | '_') => {
            while let Some(c) = chars.next() {
                if c == '\u{7}' || c == '\u{9c}' {
                    break;
                }
                if c == '\u{1b}' {
                    if chars.peek() == Some(&'\\') {
                        chars.next();
                    }
                    break;
                }
            }
        }
        // nF sequences (ESC ( B, ...): intermediates, then one final character.
        Some(' '..='/') => {
            while chars.next_if(|c| (' '..='/').contains(c)).is_some() {}
            chars.next();
        }
        // Any other: ESC and one character.
        _ => {}
    }
}

/// Skips a CSI sequence's parameters, intermediates and final byte.
fn skip_csi(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    while chars.next_if(|c| ('0'..='?').contains(c)).is_some() {}
    while chars.next_if(|c| (' '..='/').contains(c)).is_some() {}
    chars.next_if(|c| ('@'..='~').contains(c));
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A 1x1 grey PNG, as a notebook stores it.
    const PNG_BASE64: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNoAAAAggCBd81ytgAAAABJRU5ErkJggg==";
    const PNG: [u8; 67] = [
        137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 73, 72, 68, 82, 0, 0, 0, 1, 0, 0, 0, 1, 8, 0,
        0, 0, 0, 58, 126, 155, 85, 0, 0, 0, 10, 73, 68, 65, 84, 120, 156, 99, 104, 0, 0, 0, 130, 0,
        129, 119, 205, 114, 182, 0, 0, 0, 0, 73, 69, 78, 68, 174, 66, 96, 130,
    ];

    fn notebook(cells: Value) -> Vec<u8> {
        json!({
            "nbformat": 4, "nbformat_minor": 5,
            "metadata": {"kernelspec": {"name": "python3", "language": "python"}},
            "cells": cells,
        })
        .to_string()
        .into_bytes()
    }

    fn code(count: Value, source: Value, outputs: Value) -> Value {
        json!({"cell_type": "code", "execution_count": count, "metadata": {},
               "source": source, "outputs": outputs})
    }

    fn markdown(source: &str) -> Value {
        json!({"cell_type": "markdown", "metadata": {}, "source": source})
    }

    fn png_output(base64: Value) -> Value {
        json!({"output_type": "display_data", "metadata": {},
               "data": {"image/png": base64, "text/plain": "<Figure size 640x480>"}})
    }

    fn window(bytes: &[u8]) -> NotebookWindow {
        notebook_window(bytes, 1, None, &NotebookBudget::default()).unwrap()
    }

    /// The window's text, images shown as `<mime>`.
    fn text(window: &NotebookWindow) -> String {
        window
            .parts
            .iter()
            .map(|part| match part {
                NotebookPart::Text(text) => text.clone(),
                NotebookPart::Image { mime_type, .. } => format!("<{mime_type}>"),
            })
            .collect()
    }

    #[test]
    fn sniff_wants_an_object_with_an_integer_nbformat() {
        assert!(sniff(&notebook(json!([]))));
        assert!(sniff(b" {\"nbformat\": 3, \"worksheets\": []}"));
        assert!(!sniff(b"{\"nbformat\": \"4\", \"cells\": []}"));
        assert!(!sniff(b"[{\"nbformat\": 4}]"));
        assert!(!sniff(b"{\"cells\": []}"));
        assert!(!sniff(b"{\"nbformat\": 4, \"cells\": ["));
        assert!(!sniff(b"print('nbformat')"));
    }

    #[test]
    fn cells_have_a_header_then_their_source() {
        let bytes = notebook(json!([
            markdown("# Title\nSome *text*."),
            code(json!(5), json!(["import os\n", "print(os.name)"]), json!([])),
            code(json!(null), json!("x = 1\n"), json!([])),
            {"cell_type": "raw", "metadata": {}, "source": ["raw ", "text\r\nold mac\rline"]},
            code(json!(null), json!(""), json!([])),
        ]));
        let window = window(&bytes);
        assert_eq!(
            text(&window),
            "[cell 1 markdown]\n# Title\nSome *text*.\n\
             [cell 2 code, run 5]\nimport os\nprint(os.name)\n\
             [cell 3 code, not run]\nx = 1\n\
             [cell 4 raw]\nraw text\nold mac\nline\n\
             [cell 5 code, not run]\n"
        );
        assert_eq!((window.cell_count, window.first, window.last), (5, 1, 5));
        assert_eq!(window.language.as_deref(), Some("python"));
        assert_eq!(window.parts.len(), 1, "adjacent text is one part");
    }

    #[test]
    fn the_language_is_language_info_s_then_the_kernel_s() {
        let bytes = json!({"nbformat": 4, "cells": [],
                           "metadata": {"language_info": {"name": "julia"},
                                        "kernelspec": {"language": "python"}}});
        let window = window(bytes.to_string().as_bytes());
        assert_eq!(window.language.as_deref(), Some("julia"));
        let bare = json!({"nbformat": 4, "cells": []}).to_string();
        assert_eq!(self::window(bare.as_bytes()).language, None);
    }

    #[test]
    fn text_outputs_follow_their_source_labelled() {
        let bytes = notebook(json!([code(
            json!(3),
            json!("f()"),
            json!([
                {"output_type": "stream", "name": "stdout", "text": ["one\n", "two\n"]},
                {"output_type": "stream", "name": "stderr", "text": "careful\n"},
                {"output_type": "execute_result", "execution_count": 3, "metadata": {},
                 "data": {"text/plain": ["42"], "text/html": "<b>42</b>"}},
                {"output_type": "display_data", "metadata": {},
                 "data": {"text/html": "<table></table>"}},
                {"output_type": "display_data", "metadata": {},
                 "data": {"text/html": "<p>hi</p>", "text/markdown": "**hi**"}},
                {"output_type": "display_data", "metadata": {},
                 "data": {"image/svg+xml": "<svg/>"}},
                {"output_type": "display_data", "metadata": {},
                 "data": {"image/svg+xml": "<svg/>", "text/plain": "<Figure>"}},
                {"output_type": "display_data", "metadata": {},
                 "data": {"application/vnd.widget+json": {}}},
                {"output_type": "error", "ename": "ValueError", "evalue": "bad x",
                 "traceback": ["Traceback (most recent call last)", "  in f", "ValueError: bad x"]},
            ])
        )]));
        assert_eq!(
            text(&window(&bytes)),
            "[cell 1 code, run 3]\nf()\n\
             [out]\none\ntwo\n\
             [stderr]\ncareful\n\
             [out]\n42\n\
             [text/html output not shown]\n\
             [out]\n**hi**\n\
             [image/svg+xml output not shown]\n\
             [image/svg+xml output not shown]\n[out]\n<Figure>\n\
             [application/vnd.widget+json output not shown]\n\
             [error]\nValueError: bad x\nTraceback (most recent call last)\n  in f\nValueError: bad x\n"
        );
    }

    #[test]
    fn escape_sequences_and_overwritten_progress_are_removed() {
        let traceback = "\u{1b}[0;31mValueError\u{1b}[0m: \u{1b}[1;32mbad\u{1b}[39;49m \
                         \u{1b}]8;;file:///x.py\u{7}link\u{1b}]8;;\u{1b}\\ \u{1b}(Bdone\u{1b}[2K\u{1b}[?25l";
        let bytes = notebook(json!([code(
            json!(1),
            json!("g()"),
            json!([
                {"output_type": "stream", "name": "stdout",
                 "text": "10%\r50%\r100%\nok\r\nnul\u{0}bell\u{7}\n"},
                {"output_type": "error", "ename": "E", "evalue": "v", "traceback": [traceback]},
            ])
        )]));
        assert_eq!(
            text(&window(&bytes)),
            "[cell 1 code, run 1]\ng()\n[out]\n100%\nok\nnulbell\n\
             [error]\nE: v\nValueError: bad link done\n"
        );
    }

    #[test]
    fn a_long_output_is_cut_at_a_char_boundary_with_a_marker() {
        let long = "é".repeat(30); // 60 bytes
        let bytes = notebook(json!([code(
            json!(1),
            json!("p()"),
            json!([{"output_type": "stream", "name": "stdout", "text": long}])
        )]));
        let budget = NotebookBudget {
            max_output_bytes: 25,
            ..NotebookBudget::default()
        };
        let window = notebook_window(&bytes, 1, None, &budget).unwrap();
        assert_eq!(
            text(&window),
            format!(
                "[cell 1 code, run 1]\np()\n[out]\n{}\n[output cut: 36 more bytes]\n",
                "é".repeat(12)
            )
        );
    }

    #[test]
    fn image_outputs_are_decoded_images() {
        let split = format!("{}\n{}", &PNG_BASE64[..40], &PNG_BASE64[40..]);
        let listed = json!([&PNG_BASE64[..30], &PNG_BASE64[30..]]);
        let bytes = notebook(json!([code(
            json!(1),
            json!("plot()"),
            json!([png_output(json!(split)), png_output(listed)])
        )]));
        let window = window(&bytes);
        let image = NotebookPart::Image {
            mime_type: "image/png".into(),
            bytes: PNG.to_vec(),
        };
        assert_eq!(
            window.parts,
            [
                NotebookPart::Text("[cell 1 code, run 1]\nplot()\n".into()),
                image.clone(),
                image,
            ]
        );
        assert_eq!(window.images_left_out, 0);
    }

    #[test]
    fn images_past_max_images_are_left_out_with_a_line() {
        let cells = json!([
            code(
                json!(1),
                json!("a()"),
                json!([png_output(json!(PNG_BASE64))])
            ),
            code(
                json!(2),
                json!("b()"),
                json!([png_output(json!(PNG_BASE64)), png_output(json!(PNG_BASE64))])
            ),
        ]);
        let budget = NotebookBudget {
            max_images: 2,
            ..NotebookBudget::default()
        };
        let window = notebook_window(&notebook(cells), 1, None, &budget).unwrap();
        assert_eq!(
            text(&window),
            "[cell 1 code, run 1]\na()\n<image/png>[cell 2 code, run 2]\nb()\n<image/png>\
             [image/png output left out: image limit reached]\n[out]\n<Figure size 640x480>\n"
        );
        assert_eq!(window.images_left_out, 1);
    }

    #[test]
    fn bad_base64_says_so() {
        let bytes = notebook(json!([code(
            json!(1),
            json!("a()"),
            json!([png_output(json!("!!"))])
        )]));
        assert_eq!(
            text(&window(&bytes)),
            "[cell 1 code, run 1]\na()\n[image/png output not shown: bad base64]\n\
             [out]\n<Figure size 640x480>\n"
        );
    }

    #[test]
    fn the_window_stops_before_the_cell_that_overflows_the_budget() {
        let cells: Vec<Value> = (1..=6).map(|i| markdown(&format!("text {i}"))).collect();
        let bytes = notebook(Value::Array(cells));
        let cell_bytes = "[cell 1 markdown]\ntext 1\n".len();
        let budget = NotebookBudget {
            max_text_bytes: cell_bytes * 2 + cell_bytes / 2,
            ..NotebookBudget::default()
        };
        let first = notebook_window(&bytes, 1, None, &budget).unwrap();
        assert_eq!((first.first, first.last, first.cell_count), (1, 2, 6));
        let next = notebook_window(&bytes, first.last + 1, None, &budget).unwrap();
        assert_eq!((next.first, next.last), (3, 4));
        assert_eq!(
            text(&next),
            "[cell 3 markdown]\ntext 3\n[cell 4 markdown]\ntext 4\n"
        );

        let asked = notebook_window(&bytes, 2, Some(2), &NotebookBudget::default()).unwrap();
        assert_eq!((asked.first, asked.last), (2, 2));
        let clamped = notebook_window(&bytes, 0, Some(99), &NotebookBudget::default()).unwrap();
        assert_eq!((clamped.first, clamped.last), (1, 6));
    }

    #[test]
    fn a_first_cell_over_the_budget_is_shown_cut() {
        let bytes = notebook(json!([markdown(&"word ".repeat(100)), markdown("next")]));
        let budget = NotebookBudget {
            max_text_bytes: 200,
            ..NotebookBudget::default()
        };
        let window = notebook_window(&bytes, 1, None, &budget).unwrap();
        assert_eq!((window.first, window.last), (1, 1));
        let text = text(&window);
        assert!(text.len() <= 200, "{}", text.len());
        assert!(text.starts_with("[cell 1 markdown]\nword word"));
        let total = "[cell 1 markdown]\n".len() + 500 + 1;
        let kept = text.find("\n[cell cut").unwrap();
        assert!(
            text.ends_with(&format!("\n[cell cut: {} more bytes]\n", total - kept)),
            "{text}"
        );
    }

    #[test]
    fn a_first_cell_past_the_end_is_out_of_range() {
        let bytes = notebook(json!([markdown("a")]));
        assert_eq!(
            notebook_window(&bytes, 2, None, &NotebookBudget::default()),
            Err(NotebookError::CellOutOfRange {
                first: 2,
                cell_count: 1
            })
        );
        let empty = window(&notebook(json!([])));
        assert_eq!((empty.cell_count, empty.first, empty.last), (0, 1, 0));
        assert!(empty.parts.is_empty());
    }

    #[test]
    fn malformed_notebooks_are_clear_errors() {
        let read = |bytes: &[u8]| notebook_window(bytes, 1, None, &NotebookBudget::default());
        let malformed = |bytes: &[u8], says: &str| match read(bytes) {
            Err(NotebookError::Malformed(why)) => assert!(why.contains(says), "{why}"),
            other => panic!("{}: {other:?}", String::from_utf8_lossy(bytes)),
        };
        malformed(b"not json", "not JSON");
        malformed(b"{\"nbformat\": 4, \"cells\": [", "not JSON");
        malformed(b"[1, 2]", "not a JSON object");
        malformed(b"{\"cells\": []}", "no nbformat");
        malformed(b"{\"nbformat\": 4.5, \"cells\": []}", "not an integer");
        malformed(b"{\"nbformat\": 4}", "no cells array");
        malformed(b"{\"nbformat\": 4, \"cells\": {}}", "cells");
        malformed(
            b"{\"nbformat\": 4, \"cells\": [{\"source\": \"x\"}]}",
            "cell_type",
        );
        malformed(
            b"{\"nbformat\": 4, \"cells\": [{\"cell_type\": 1}]}",
            "cells",
        );
        assert_eq!(
            read(b"{\"nbformat\": 3, \"worksheets\": [{\"cells\": []}]}"),
            Err(NotebookError::UnsupportedVersion(3))
        );
        assert_eq!(
            NotebookError::UnsupportedVersion(3).to_string(),
            "the notebook is nbformat 3; only nbformat 4 is read"
        );
    }
}
