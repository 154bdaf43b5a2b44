//! The text a model is given for a text window, across the boundary: the engine's renderer
//! (`agent_read_file_engine::model_text`) is the only one. A toolkit's read hands its text
//! over with its output (`Workspace.view` with text options); these functions render an
//! output object from anywhere else (a caller's own toolkit, an output restored from a stored
//! conversation), and the note for lines the model was given before.

use napi::bindgen_prelude::{Either, Null};
use napi_derive::napi;

use agent_read_file_engine::media::Shown;
use agent_read_file_engine::model_text::{self, ImageFacts, MediaFacts, TextOptions, Window};
use agent_read_file_engine::{Continuation, ReadFileMeta};

use crate::convert::safe_integer;
use crate::output::ToolkitReadFileOutput;

/// What the text of a window depends on beyond the window: each line numbered (default
/// true), and the call's `start_line` and `start_column` as given (an empty window's header
/// names the start; a window from inside a line says so).
#[napi(object)]
pub struct ModelTextOptions {
    pub line_numbers: Option<bool>,
    pub start_line: Option<f64>,
    pub start_column: Option<f64>,
}

impl ModelTextOptions {
    /// The engine's options; a `start_line` or `start_column` that is not a non-negative
    /// safe integer is left out (no read answers a window for one).
    fn text_options(&self) -> TextOptions {
        TextOptions {
            line_numbers: self.line_numbers.unwrap_or(true),
            start_line: self.start_line.and_then(counting_number),
            start_column: self.start_column.and_then(counting_number),
        }
    }
}

/// A `start_line` or `start_column` as the text names it: `Some` of a non-negative safe
/// integer (which `JSON.stringify` writes in digits), `None` for any other.
pub(crate) fn counting_number(number: f64) -> Option<u64> {
    safe_integer(number).and_then(|number| u64::try_from(number).ok())
}

/// The engine's window over `output`, a toolkit's output from anywhere (numbers out of range
/// read as the nearest that is not).
fn window_of(output: &ToolkitReadFileOutput) -> Window<'_> {
    let count = |number: f64| number as u64;
    Window {
        path: &output.path,
        content: &output.content,
        truncated: output.truncated,
        next_start_line: given(&output.next_start_line).map(|&line| count(line)),
        meta: ReadFileMeta {
            byte_length: count(output.meta.byte_length),
            line_count: count(output.meta.line_count),
            returned_line_count: output.meta.returned_line_count as u32,
            mtime_ms: output.meta.mtime_ms as i64,
        },
        continuation: output.continuation.as_ref().map(|at| Continuation {
            start_line: count(at.start_line),
            start_column: count(at.start_column),
            line_bytes: output.cut_line_bytes.map(count),
        }),
        note: output.note.as_deref(),
    }
}

/// `value` unless it is `null`.
fn given<T>(value: &Either<T, Null>) -> Option<&T> {
    match value {
        Either::A(value) => Some(value),
        Either::B(Null) => None,
    }
}

/// The text a model is given for `output`, a toolkit's text window: one header line, the
/// lines (each after its number and a tab unless `options.lineNumbers` is false), the
/// toolkit's note in brackets, and the closing line that reads on when lines are left.
#[napi]
pub fn render_read(output: ToolkitReadFileOutput, options: Option<ModelTextOptions>) -> String {
    model_text::render_read(window_of(&output), text_options(options.as_ref()))
}

/// The engine's options of `options` (absent: lines numbered, no start given).
pub(crate) fn text_options(options: Option<&ModelTextOptions>) -> TextOptions {
    options.map_or(
        TextOptions {
            line_numbers: true,
            ..TextOptions::default()
        },
        ModelTextOptions::text_options,
    )
}

/// A media answer (`MediaOutput`) as any caller may hold it: what its frame says, no data.
#[napi(object, object_to_js = false)]
pub struct MediaWindow {
    pub path: String,
    pub kind: String,
    pub parts: Vec<MediaWindowPart>,
    pub meta: MediaWindowMeta,
}

/// A part of a media answer: its type, and an image part's size and source (its text and
/// data are not read).
#[napi(object, object_to_js = false)]
pub struct MediaWindowPart {
    pub r#type: String,
    pub mime_type: Option<String>,
    pub width: Option<u32>,
    pub height: Option<u32>,
    pub source: Option<MediaWindowSource>,
}

/// An image part's source, as any caller may hold it.
#[napi(object, object_to_js = false)]
pub struct MediaWindowSource {
    pub mime_type: String,
    pub width: u32,
    pub height: u32,
}

/// A media answer's `meta`, as any caller may hold it.
#[napi(object, object_to_js = false)]
pub struct MediaWindowMeta {
    #[napi(js_name = "byte_length")]
    pub byte_length: f64,
    pub shown: Option<Either<MediaWindowShown, Null>>,
    #[napi(js_name = "images_left_out")]
    pub images_left_out: Option<u32>,
}

/// Pages or cells `first` to `last` of `total`, as any caller may hold them.
#[napi(object, object_to_js = false)]
pub struct MediaWindowShown {
    pub first: u32,
    pub last: u32,
    pub total: u32,
}

/// The text a media answer's parts are framed by: `head` before them, `tail` after them.
#[napi(object, object_to_js = false, object_from_js = false)]
#[derive(serde::Serialize)]
pub struct MediaFrame {
    pub head: String,
    pub tail: String,
}

impl From<model_text::MediaFrame> for MediaFrame {
    fn from(frame: model_text::MediaFrame) -> MediaFrame {
        MediaFrame {
            head: frame.head,
            tail: frame.tail,
        }
    }
}

impl MediaWindow {
    /// What the engine's frame of it reads.
    pub(crate) fn facts(&self) -> MediaFacts<'_> {
        let image = self.parts.iter().find(|part| part.r#type == "image");
        let image = image.and_then(|part| {
            let source = part.source.as_ref()?;
            Some(ImageFacts {
                mime_type: part.mime_type.as_deref()?,
                width: part.width?,
                height: part.height?,
                source_mime_type: &source.mime_type,
                source_width: source.width,
                source_height: source.height,
            })
        });
        MediaFacts {
            path: &self.path,
            kind: &self.kind,
            byte_length: self.meta.byte_length as u64,
            image: image.filter(|_| self.kind == "image"),
            shown: self.meta.shown.as_ref().and_then(given).map(|shown| Shown {
                first: shown.first,
                last: shown.last,
                total: shown.total,
            }),
            images_left_out: self.meta.images_left_out.unwrap_or(0),
        }
    }
}
