//! A toolkit's media reads (`toolkit.view`) across the boundary: the limits a toolkit's
//! options set, and the typed answer (`MediaOutput`: text and image parts; built as every
//! result is, `output/literal.rs`).

use napi_derive::napi;
use serde::Serialize;

use crate::model_text::MediaFrame;

use agent_read_file_engine::media::image::FittedImage;
use agent_read_file_engine::media::{self, MediaPart, Shown};

/// Whether `path` is named like an image, a notebook or a PDF (`.png`, `.jpg`, `.jpeg`,
/// `.gif`, `.webp`, `.pdf`, `.ipynb`, in any case): a toolkit's `view` of it decodes, and
/// fails with `INVALID_MEDIA` when its content is not what the name claims. For a caller
/// that schedules decodes apart (`agent-read-file mcp`); the content decides any other file.
#[napi]
pub fn claims_media(path: String) -> bool {
    media::claims_media(&path)
}

/// An image, a notebook or a PDF as a model reads it: text and image parts in order.
#[napi(object, object_to_js = false, object_from_js = false)]
#[derive(Serialize)]
pub struct MediaOutput {
    /// The requested path, normalized and relative to the workspace root.
    pub path: String,
    /// What the content says the file is.
    #[napi(ts_type = "'image' | 'notebook' | 'pdf'")]
    pub kind: String,
    #[napi(ts_type = "Array<TextPart | ImagePart>")]
    pub parts: Vec<Part>,
    pub meta: MediaMeta,
}

/// A media answer and the text its parts are framed by, for the model (a toolkit's `view`
/// asked for the model's text).
#[napi(object, object_to_js = false, object_from_js = false)]
#[derive(Serialize)]
pub struct FramedMediaOutput {
    pub output: MediaOutput,
    pub frame: MediaFrame,
}

/// The most pages of a PDF one `view` reads: `pages: "21-40"` reads on.
#[napi]
pub const MAX_PDF_PAGES: u32 = 20;
const _: () = assert!(MAX_PDF_PAGES == media::pdf::MAX_PAGES_PER_CALL);

/// What the file is and what of it is shown, beside the parts.
#[napi(object, object_to_js = false, object_from_js = false)]
#[derive(Serialize)]
pub struct MediaMeta {
    /// The file's size on disk, in bytes.
    #[napi(js_name = "byte_length")]
    pub byte_length: f64,
    /// Last modification, in milliseconds since the epoch.
    #[napi(js_name = "mtime_ms")]
    pub mtime_ms: f64,
    /// For a PDF the pages shown, for a notebook the cells; absent for an image.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shown: Option<ShownRange>,
    /// A notebook's image outputs not sent (over the toolkit's `maxImages`).
    #[napi(js_name = "images_left_out")]
    pub images_left_out: u32,
}

/// Pages or cells `first` to `last` (1-based, inclusive) of `total`.
#[napi(object, object_to_js = false, object_from_js = false)]
#[derive(Serialize)]
pub struct ShownRange {
    pub first: u32,
    pub last: u32,
    pub total: u32,
}

/// Text for the model.
#[napi(object, object_to_js = false, object_from_js = false)]
#[derive(Serialize)]
pub struct TextPart {
    #[napi(ts_type = "'text'")]
    pub r#type: String,
    pub text: String,
}

/// An image for the model, within the toolkit's image limits.
#[napi(object, object_to_js = false, object_from_js = false)]
#[derive(Serialize)]
pub struct ImagePart {
    #[napi(ts_type = "'image'")]
    pub r#type: String,
    #[napi(ts_type = "'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp'")]
    #[serde(rename = "mimeType")]
    pub mime_type: String,
    /// The encoded image, base64.
    pub data: String,
    pub width: u32,
    pub height: u32,
    /// The image in the file, before it was made to fit.
    pub source: ImageSource,
}

/// An image as its file has it.
#[napi(object, object_to_js = false, object_from_js = false)]
#[derive(Serialize)]
pub struct ImageSource {
    #[napi(ts_type = "'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp'")]
    #[serde(rename = "mimeType")]
    pub mime_type: String,
    pub width: u32,
    pub height: u32,
    /// Its size in bytes, encoded as the file (or the notebook output) has it.
    pub bytes: f64,
}

impl From<media::MediaOutput> for MediaOutput {
    fn from(output: media::MediaOutput) -> MediaOutput {
        MediaOutput {
            path: output.path,
            kind: output.kind.as_str().to_owned(),
            parts: output.parts.into_iter().map(part).collect(),
            meta: MediaMeta {
                byte_length: output.byte_length as f64,
                mtime_ms: output.mtime_ms as f64,
                shown: output.shown.map(|Shown { first, last, total }| ShownRange {
                    first,
                    last,
                    total,
                }),
                images_left_out: output.images_left_out,
            },
        }
    }
}

/// A part of a media answer: text or an image.
#[derive(Serialize)]
#[serde(untagged)]
pub enum Part {
    Text(TextPart),
    Image(ImagePart),
}

fn part(part: MediaPart) -> Part {
    match part {
        MediaPart::Text(text) => Part::Text(TextPart {
            r#type: "text".to_owned(),
            text,
        }),
        MediaPart::Image(image) => Part::Image(image_part(image)),
    }
}

fn image_part(image: FittedImage) -> ImagePart {
    ImagePart {
        r#type: "image".to_owned(),
        mime_type: image.format.mime_type().to_owned(),
        data: image.data,
        width: image.width,
        height: image.height,
        source: ImageSource {
            mime_type: image.source_format.mime_type().to_owned(),
            width: image.source_width,
            height: image.source_height,
            bytes: image.source_bytes as f64,
        },
    }
}
