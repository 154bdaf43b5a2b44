//! What a toolkit reads besides text: images, Jupyter notebooks and PDFs, each decided by
//! its content and answered as typed parts (text and images) within the providers' limits.
//! [`read_media`] opens the file as `read_file` does (sandbox, policy), tells its kind from
//! its first bytes, and hands a text file back to `read_file`.
//!
//! - [`image`]: PNG, JPEG, GIF and WebP made to fit a model's image limits,
//! - [`notebook`]: `.ipynb` cells, their text outputs and their images,
//! - [`pdf`]: the text of a PDF's pages.

pub mod image;
pub mod notebook;
pub mod pdf;

use std::sync::atomic::AtomicBool;

use crate::attempt::{Access, waited};
use crate::error::{ErrorCode, ReadFileError, SizeLimit};
use crate::file_guard::{self, BINARY_SCAN_BYTES, GuardError};
use crate::policy::Policy;
use crate::read_file::{self, ReadFileOutput};
use crate::render;
use crate::sandbox::{OpenedFile, Root};
use crate::source;
use crate::version::FileVersion;

use self::image::{FittedImage, ImageError, ImageFormat, ImageLimits};
use self::notebook::{NotebookBudget, NotebookError, NotebookPart};
use self::pdf::PdfError;

/// The largest image or PDF read by default: what the providers take in one request
/// (Anthropic's and OpenAI's PDF inputs, Gemini's inline data), so nothing larger could be
/// sent whole anyway.
pub const MAX_MEDIA_FILE_BYTES: u64 = 20 * 1024 * 1024;

/// What a media read may take and give: the largest file, the image parts' limits, and how
/// much a notebook's answer shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MediaLimits {
    /// The largest image, notebook or PDF read; a larger one is `SIZE_LIMIT_EXCEEDED` before
    /// anything is decoded.
    pub max_file_bytes: u64,
    pub image: ImageLimits,
    /// The most image parts one answer carries (a notebook's image outputs beyond it are
    /// named, not sent).
    pub max_images: u32,
}

impl Default for MediaLimits {
    fn default() -> Self {
        MediaLimits {
            max_file_bytes: MAX_MEDIA_FILE_BYTES,
            image: ImageLimits::default(),
            max_images: NotebookBudget::default().max_images,
        }
    }
}

/// What a file is, as its content says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MediaKind {
    Image(ImageFormat),
    Notebook,
    Pdf,
}

impl MediaKind {
    /// `"image"`, `"notebook"` or `"pdf"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            MediaKind::Image(_) => "image",
            MediaKind::Notebook => "notebook",
            MediaKind::Pdf => "pdf",
        }
    }
}

/// Which pages of a PDF or cells of a notebook to show: `first..=last`, 1-based; `last`
/// absent: as many as fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PartRange {
    pub first: u32,
    pub last: Option<u32>,
}

impl PartRange {
    /// `pages` as a model writes it: `"3"`, `"3-7"` or `"3-"`; anything else is
    /// `INVALID_ARGUMENT` (about `path`). The numbers are written as the tool's definition
    /// shows them: digits only, no sign, no leading zero, no spaces.
    pub fn parse(pages: &str, path: &str) -> Result<PartRange, ReadFileError> {
        let number = |text: &str| {
            let digits = !text.is_empty() && text.bytes().all(|byte| byte.is_ascii_digit());
            let leading_zero = text.starts_with('0');
            (digits && !leading_zero).then(|| text.parse::<u32>().ok())?
        };
        let range = match pages.split_once('-') {
            None => number(pages).map(|page| PartRange {
                first: page,
                last: Some(page),
            }),
            Some((first, "")) => number(first).map(|first| PartRange { first, last: None }),
            Some((first, last)) => match (number(first), number(last)) {
                (Some(first), Some(last)) if first <= last => Some(PartRange {
                    first,
                    last: Some(last),
                }),
                _ => None,
            },
        };
        range.ok_or_else(|| {
            let shown: String = pages.chars().take(40).collect();
            ReadFileError::new(
                ErrorCode::InvalidArgument,
                path,
                format!(
                    "pages must be a page (or cell) number or range like \"3\" or \"3-7\" (got {shown:?})"
                ),
            )
        })
    }
}

/// Pages of a PDF or cells of a notebook an answer shows, of how many.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shown {
    pub first: u32,
    pub last: u32,
    pub total: u32,
}

/// One part of an answer, in the order a model reads them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MediaPart {
    Text(String),
    Image(FittedImage),
}

/// A media file's answer.
#[derive(Clone, Debug, PartialEq)]
pub struct MediaOutput {
    /// The normalized workspace-relative path.
    pub path: String,
    pub kind: MediaKind,
    pub parts: Vec<MediaPart>,
    /// The file's size in bytes and modification time.
    pub byte_length: u64,
    pub mtime_ms: i64,
    /// For a PDF its pages, for a notebook its cells; `None` for an image.
    pub shown: Option<Shown>,
    /// A notebook's image outputs left out for [`MediaLimits::max_images`].
    pub images_left_out: u32,
}

/// What a media read asks.
#[derive(Clone, Copy, Debug)]
pub struct MediaRequest<'a> {
    pub path: &'a str,
    pub pages: Option<PartRange>,
    /// The most bytes of text the answer carries (the toolkit's content budget).
    pub max_text_bytes: usize,
    /// Set when the caller gives up on the read (its signal fired): an image's decode stops
    /// ([`image::fit_or_stop`]), and the read is `ABORT_ERR`.
    pub stop: Option<&'a AtomicBool>,
}

/// The file `request.path` names beneath `root` as typed parts, with the version read, when
/// its content is an image, a notebook or a PDF; `None` when it is anything else (read it as
/// text). A file whose name claims an image or a PDF but whose content is not one is
/// `INVALID_MEDIA`; one over `limits.max_file_bytes` is `SIZE_LIMIT_EXCEEDED`, refused
/// before it is read. A toolkit's `NOT_FOUND` and `NOT_FILE` say what to read next, as a text
/// read's do.
pub fn read_media(
    root: &Root,
    request: &MediaRequest<'_>,
    policy: Option<&Policy>,
    limits: &MediaLimits,
) -> Result<Option<(MediaOutput, FileVersion)>, ReadFileError> {
    let opened = waited(source::open(root, request.path, policy, Access::MayWait))
        .map_err(|error| read_file::with_next_steps(error, root, request.path, policy))?;
    read_opened_media(request, (&opened.0, &opened.1), limits)
}

/// [`read_media`] of the file `request.path` names, already opened (by `relative`).
pub(crate) fn read_opened_media(
    request: &MediaRequest<'_>,
    (relative, opened): (&str, &OpenedFile),
    limits: &MediaLimits,
) -> Result<Option<(MediaOutput, FileVersion)>, ReadFileError> {
    let requested = request.path;
    let file = MediaFile {
        requested,
        relative,
        opened,
    };
    let Some(kind) = kind_of(&file.head()?, relative)? else {
        return Ok(None);
    };
    let bytes = file
        .read_within(limits.max_file_bytes)?
        .map_err(|len| too_large(requested, len, limits.max_file_bytes))?;
    let answer = match kind {
        MediaKind::Image(_) => image_answer(&bytes, limits, request)?,
        MediaKind::Pdf => match pdf_answer(&bytes, request, requested) {
            // Text that happens to start like a PDF, under another name, is read as text.
            Err(err) if claimed_kind(relative).is_none() && err.code == ErrorCode::InvalidMedia => {
                return Ok(None);
            }
            answer => answer?,
        },
        MediaKind::Notebook => match notebook_answer(&bytes, request, limits, requested) {
            Err(err) if !claims_notebook(relative) && err.code == ErrorCode::InvalidMedia => {
                return Ok(None);
            }
            answer => answer?,
        },
    };
    let version = file.version(&bytes);
    let output = MediaOutput {
        path: relative.to_owned(),
        kind,
        parts: answer.parts,
        byte_length: bytes.len() as u64,
        mtime_ms: version.mtime_ms,
        shown: answer.shown,
        images_left_out: answer.images_left_out,
    };
    Ok(Some((output, version)))
}

/// Whether the path asked for names an image, a PDF or a notebook: such a file is read as
/// media first, and its content must be the kind its name claims (else `INVALID_MEDIA`).
pub fn claims_media(requested: &str) -> bool {
    claimed_kind(requested).is_some() || claims_notebook(requested)
}

/// What the file `requested` names, opened (by `relative`), is, as its first bytes (and its
/// name) say: `None` for text and any other file.
pub(crate) fn sniff(
    requested: &str,
    (relative, opened): (&str, &OpenedFile),
) -> Result<Option<MediaKind>, ReadFileError> {
    let file = MediaFile {
        requested,
        relative,
        opened,
    };
    kind_of(&file.head()?, relative)
}

/// Whether a text window may be a PDF or a notebook read as text: it starts at the file's
/// first line, and its first bytes are what [`read_media`] tells a PDF or a notebook by.
/// (An image is never a text window: its bytes are binary.)
pub(crate) fn window_may_be_media(output: &ReadFileOutput) -> bool {
    let content = output.content.as_str().as_bytes();
    let head = &content[..content.len().min(BINARY_SCAN_BYTES)];
    output.first_line() == 1 && (pdf::has_header_line(head) || looks_like_notebook(head))
}

/// The version of the file `requested` names beneath `root` when it is an image, a notebook
/// or a PDF of at most `limits.max_file_bytes` (the one [`read_media`] records: a hash of all
/// its bytes), `None` when it is not one; refused as [`read_media`] refuses it. For a toolkit's
/// freshness check of a media file over the text size limit.
pub fn media_version(
    root: &Root,
    requested: &str,
    policy: Option<&Policy>,
    limits: &MediaLimits,
) -> Result<Option<FileVersion>, ReadFileError> {
    let (relative, opened) = waited(source::open(root, requested, policy, Access::MayWait))?;
    let file = MediaFile {
        requested,
        relative: &relative,
        opened: &opened,
    };
    if kind_of(&file.head()?, &relative).ok().flatten().is_none() {
        return Ok(None);
    }
    let bytes = file.read_within(limits.max_file_bytes)?;
    Ok(bytes.ok().map(|bytes| file.version(&bytes)))
}

/// A file opened beneath the root for a media read, its policy asked.
struct MediaFile<'a> {
    requested: &'a str,
    relative: &'a str,
    opened: &'a OpenedFile,
}

impl MediaFile<'_> {
    fn len(&self) -> u64 {
        u64::try_from(self.opened.stat.st_size).unwrap_or(0)
    }

    /// Its first bytes, where every kind shows itself.
    fn head(&self) -> Result<Vec<u8>, ReadFileError> {
        let len = self.len().min(BINARY_SCAN_BYTES as u64);
        file_guard::read_range(&self.opened.file, 0, len, len).map_err(|err| self.guard_error(err))
    }

    /// All its bytes, or `Err(len)` when it is over `max` bytes (refused before it is read,
    /// or, when it grew since it was measured, once a byte more than `max` was read).
    fn read_within(&self, max: u64) -> Result<Result<Vec<u8>, u64>, ReadFileError> {
        match file_guard::read_whole(&self.opened.file, self.len(), max) {
            Ok(bytes) => Ok(Ok(bytes)),
            Err(GuardError::TooLarge { len, .. }) => Ok(Err(len)),
            Err(GuardError::Io(err)) => Err(self.guard_error(err)),
        }
    }

    fn version(&self, bytes: &[u8]) -> FileVersion {
        FileVersion::of(
            self.relative.to_owned(),
            bytes,
            file_guard::mtime_ms(&self.opened.stat),
        )
    }

    fn guard_error(&self, err: std::io::Error) -> ReadFileError {
        source::guard_error(err.into(), self.requested)
    }
}

/// What one kind's reader gives.
struct Answer {
    parts: Vec<MediaPart>,
    shown: Option<Shown>,
    images_left_out: u32,
}

/// The kind `head` (the file's first bytes) shows, `None` for text and other files; a name
/// that claims an image or a PDF for other content is `INVALID_MEDIA`. A notebook is told
/// by a JSON object that names its cells or format near its start, or by its `.ipynb`
/// name; either way its whole content decides (see [`read_media`]).
fn kind_of(head: &[u8], relative: &str) -> Result<Option<MediaKind>, ReadFileError> {
    if let Some(format) = ImageFormat::sniff(head) {
        return Ok(Some(MediaKind::Image(format)));
    }
    if pdf::has_header_line(head) {
        return Ok(Some(MediaKind::Pdf));
    }
    if looks_like_notebook(head) || claims_notebook(relative) {
        return Ok(Some(MediaKind::Notebook));
    }
    match claimed_kind(relative) {
        Some(claimed) => Err(ReadFileError::new(
            ErrorCode::InvalidMedia,
            relative,
            format!("the file is named like {claimed} but its content is not one"),
        )),
        None => Ok(None),
    }
}

/// The lower-case extension of `relative`'s file name.
fn extension(relative: &str) -> Option<String> {
    let name = relative.rsplit('/').next()?;
    let (_, extension) = name.rsplit_once('.')?;
    Some(extension.to_ascii_lowercase())
}

/// What a file's name says it is, for the kinds whose content is checked against it.
fn claimed_kind(relative: &str) -> Option<&'static str> {
    match extension(relative)?.as_str() {
        "png" => Some("a PNG image"),
        "jpg" | "jpeg" => Some("a JPEG image"),
        "gif" => Some("a GIF image"),
        "webp" => Some("a WebP image"),
        "pdf" => Some("a PDF"),
        _ => None,
    }
}

fn claims_notebook(relative: &str) -> bool {
    extension(relative).as_deref() == Some("ipynb")
}

/// A JSON object whose first bytes name `cells` or `nbformat`.
fn looks_like_notebook(head: &[u8]) -> bool {
    let text = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let Some(start) = text.iter().position(|byte| !byte.is_ascii_whitespace()) else {
        return false;
    };
    text[start] == b'{'
        && (memchr::memmem::find(text, b"\"nbformat\"").is_some()
            || memchr::memmem::find(text, b"\"cells\"").is_some())
}

fn too_large(requested: &str, len: u64, max: u64) -> ReadFileError {
    let mut error = ReadFileError::new(
        ErrorCode::SizeLimitExceeded,
        requested,
        format!("file is {len} bytes, over the {max}-byte limit for images, notebooks and PDFs"),
    );
    error.file_size = Some(len);
    error.size_limit = Some(SizeLimit::Media);
    error
}

fn image_answer(
    bytes: &[u8],
    limits: &MediaLimits,
    request: &MediaRequest<'_>,
) -> Result<Answer, ReadFileError> {
    let image = image::fit_or_stop(bytes, &limits.image, request.stop)
        .map_err(|err| image_error(err, request.path))?;
    Ok(Answer {
        parts: vec![MediaPart::Image(image)],
        shown: None,
        images_left_out: 0,
    })
}

fn image_error(err: ImageError, requested: &str) -> ReadFileError {
    let code = match err {
        ImageError::TooManyPixels { .. }
        | ImageError::TooManyScans { .. }
        | ImageError::CannotFit { .. } => ErrorCode::ImageTooLarge,
        ImageError::NotAnImage | ImageError::Corrupt(_) => ErrorCode::InvalidMedia,
        ImageError::Stopped => ErrorCode::Aborted,
    };
    ReadFileError::new(code, requested, err.to_string())
}

fn pdf_answer(
    bytes: &[u8],
    request: &MediaRequest<'_>,
    requested: &str,
) -> Result<Answer, ReadFileError> {
    let range = request.pages.unwrap_or(PartRange {
        first: 1,
        last: None,
    });
    let last = range.last.unwrap_or(u32::MAX);
    let text = pdf::pdf_text(bytes, range.first, last).map_err(|err| {
        let code = match err {
            PdfError::Encrypted => ErrorCode::PdfEncrypted,
            PdfError::Corrupt(_) => ErrorCode::InvalidMedia,
            PdfError::TooComplex => ErrorCode::SizeLimitExceeded,
            PdfError::PageOutOfRange { .. } => ErrorCode::InvalidArgument,
        };
        ReadFileError::new(code, requested, err.to_string())
    })?;
    let mut body = String::new();
    let mut last_shown = range.first;
    for page in &text.pages {
        let block = page_block(page.number, &page.text);
        // The first page is always shown (cut when it alone is over the budget): an answer
        // that shows nothing would leave the model nowhere to go on from.
        if !body.is_empty() && body.len() + block.len() > request.max_text_bytes {
            break;
        }
        body.push_str(&block);
        last_shown = page.number;
    }
    cut_to(&mut body, request.max_text_bytes);
    Ok(Answer {
        parts: vec![MediaPart::Text(body)],
        shown: Some(Shown {
            first: range.first,
            last: last_shown,
            total: text.page_count,
        }),
        images_left_out: 0,
    })
}

/// One page as the model reads it: a line naming it, then its text; a page without text
/// says so, since a scanned page looks empty to a text reader.
fn page_block(number: u32, text: &str) -> String {
    let text = text.trim_end();
    if text.is_empty() {
        format!("[page {number}: no text layer (a scanned page?)]\n")
    } else {
        format!("[page {number}]\n{text}\n")
    }
}

/// `text` cut to at most `max` bytes at a character boundary, with a marker saying so.
fn cut_to(text: &mut String, max: usize) {
    if text.len() <= max {
        return;
    }
    let marker = format!(
        "\n[cut: {} bytes of this page left out]\n",
        text.len() - max
    );
    let end = render::cut_at_char_boundary(text, max.saturating_sub(marker.len())).len();
    text.truncate(end);
    text.push_str(&marker);
}

fn notebook_answer(
    bytes: &[u8],
    request: &MediaRequest<'_>,
    limits: &MediaLimits,
    requested: &str,
) -> Result<Answer, ReadFileError> {
    let budget = NotebookBudget {
        max_text_bytes: request.max_text_bytes,
        max_images: limits.max_images,
        ..NotebookBudget::default()
    };
    let (first, last) = match request.pages {
        Some(range) => (range.first, range.last),
        None => (1, None),
    };
    let window = notebook::notebook_window(bytes, first, last, &budget).map_err(|err| {
        let code = match err {
            NotebookError::CellOutOfRange { .. } => ErrorCode::InvalidArgument,
            NotebookError::Malformed(_) | NotebookError::UnsupportedVersion(_) => {
                ErrorCode::InvalidMedia
            }
        };
        ReadFileError::new(code, requested, err.to_string())
    })?;
    let mut parts = Vec::with_capacity(window.parts.len());
    for part in window.parts {
        parts.push(match part {
            NotebookPart::Text(text) => MediaPart::Text(text),
            NotebookPart::Image { bytes, .. } => {
                match image::fit_or_stop(&bytes, &limits.image, request.stop) {
                    Ok(image) => MediaPart::Image(image),
                    Err(ImageError::Stopped) => {
                        return Err(image_error(ImageError::Stopped, requested));
                    }
                    // One bad plot does not hide the notebook: the model is told which.
                    Err(err) => MediaPart::Text(format!("[image output not shown: {err}]\n")),
                }
            }
        });
    }
    Ok(Answer {
        parts: merged_text(parts),
        shown: Some(Shown {
            first: window.first,
            last: window.last,
            total: window.cell_count,
        }),
        images_left_out: window.images_left_out,
    })
}

/// `parts` with adjacent text parts joined into one.
fn merged_text(parts: Vec<MediaPart>) -> Vec<MediaPart> {
    let mut merged: Vec<MediaPart> = Vec::with_capacity(parts.len());
    for part in parts {
        match (merged.last_mut(), part) {
            (Some(MediaPart::Text(before)), MediaPart::Text(text)) => before.push_str(&text),
            (_, part) => merged.push(part),
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read_file::{Content, ReadFileMeta};

    /// A window of `content`, `returned` lines of a file of `line_count` that goes on from
    /// `next` (`None`: the window ends it).
    fn window(content: &str, line_count: u64, returned: u32, next: Option<u64>) -> ReadFileOutput {
        ReadFileOutput {
            path: "f".to_owned(),
            content: Content::owned(content.to_owned()),
            truncated: next.is_some(),
            next_start_line: next,
            meta: ReadFileMeta {
                byte_length: content.len() as u64,
                line_count,
                returned_line_count: returned,
                mtime_ms: 0,
            },
            continuation: None,
            note: None,
        }
    }

    #[test]
    fn a_window_from_the_first_line_naming_a_pdf_or_notebook_may_be_media() {
        let from_start = |content: &str| window_may_be_media(&window(content, 1, 1, None));
        assert!(from_start("%PDF-1.7\n"));
        assert!(from_start("{\n \"cells\": []\n"));
        assert!(from_start(" {\"nbformat\": 4}\n"));
        assert!(from_start("\u{feff}\n\t{\"cells\": []}\n"));
        assert!(!from_start("fn main() {}\n"));
        // Only a window from line 1 shows the file's first bytes.
        assert!(!window_may_be_media(&window("%PDF-1.7\n", 9, 1, Some(3))));
        assert!(window_may_be_media(&window("%PDF-1.7\n", 9, 1, Some(2))));
        // As the media read tells them: within the first 8 KiB, in a text that opens an object,
        // after ASCII white space only (a U+3000 first is text to the media read too).
        assert!(!from_start(&format!(
            "{}\"cells\"\n",
            "x".repeat(40 * 1024)
        )));
        assert!(!from_start("let x = {\"cells\": []}\n"));
        assert!(!from_start("\u{3000}{\"cells\": []}\n"));
        assert!(
            kind_of("\u{3000}{\"cells\": []}\n".as_bytes(), "f")
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn the_kind_is_the_contents() {
        let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
        assert_eq!(
            kind_of(png, "notes.txt"),
            Ok(Some(MediaKind::Image(ImageFormat::Png)))
        );
        assert_eq!(
            kind_of(b"%PDF-1.7\n%\xe2\xe3", "a.bin"),
            Ok(Some(MediaKind::Pdf))
        );
        // After a little junk, at the start of a line, as readers accept.
        assert_eq!(
            kind_of(b"junk\r\n%PDF-2.0\n", "a"),
            Ok(Some(MediaKind::Pdf))
        );
        assert_eq!(
            kind_of(b" {\n \"cells\": [", "data.json"),
            Ok(Some(MediaKind::Notebook))
        );
        assert_eq!(kind_of(b"plain text\n", "notes.txt"), Ok(None));
    }

    #[test]
    fn text_that_mentions_a_pdf_header_is_text() {
        let source =
            b"//! True when `bytes` begin like a PDF (`%PDF-` within the first 1024 bytes)\n";
        assert_eq!(kind_of(source, "engine/src/media/pdf.rs"), Ok(None));
        assert_eq!(kind_of(b"%PDF-\nno version\n", "notes.txt"), Ok(None));
    }

    #[test]
    fn a_name_that_claims_a_kind_the_content_is_not_is_invalid_media() {
        for (name, claimed) in [
            ("shot.PNG", "a PNG image"),
            ("photo.jpeg", "a JPEG image"),
            ("spec.pdf", "a PDF"),
        ] {
            let error = kind_of(b"hello\n", name).unwrap_err();
            assert_eq!(error.code, ErrorCode::InvalidMedia);
            assert_eq!(
                error.reason,
                format!("the file is named like {claimed} but its content is not one")
            );
        }
        // A notebook's name makes its content checked as a notebook.
        assert_eq!(
            kind_of(b"hello\n", "a.ipynb"),
            Ok(Some(MediaKind::Notebook))
        );
    }

    #[test]
    fn pages_are_a_number_or_a_range() {
        let parse = |pages: &str| PartRange::parse(pages, "a.pdf");
        let range = |first, last| PartRange { first, last };
        assert_eq!(parse("3"), Ok(range(3, Some(3))));
        assert_eq!(parse("3-7"), Ok(range(3, Some(7))));
        assert_eq!(parse("21-"), Ok(range(21, None)));
        assert_eq!(parse("4294967295"), Ok(range(u32::MAX, Some(u32::MAX))));
        let not_as_documented = ["+1", " 1 ", "01", "1 - 1", " 3 - 7 ", "1-+2", "1-02", "1 -"];
        let malformed = [
            "",
            "0",
            "-3",
            "7-3",
            "1-2-3",
            "x",
            "3.5",
            "99999999999",
            "-",
        ];
        for bad in not_as_documented.into_iter().chain(malformed) {
            let error = parse(bad).unwrap_err();
            assert_eq!(error.code, ErrorCode::InvalidArgument, "{bad:?}");
            assert!(error.reason.starts_with("pages must be"), "{bad:?}");
        }
    }

    #[test]
    fn a_cut_page_ends_with_its_marker_within_the_budget() {
        let mut text = "é".repeat(100);
        cut_to(&mut text, 64);
        assert!(text.len() <= 64, "{}", text.len());
        assert!(text.ends_with(" bytes of this page left out]\n"), "{text}");
        let mut short = "short".to_owned();
        cut_to(&mut short, 64);
        assert_eq!(short, "short");
    }

    #[test]
    fn adjacent_text_parts_are_one() {
        let text = |t: &str| MediaPart::Text(t.to_owned());
        let merged = merged_text(vec![text("a"), text("b"), text("c")]);
        assert_eq!(merged, vec![text("abc")]);
    }
}
