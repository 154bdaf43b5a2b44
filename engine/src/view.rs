//! A toolkit's `view`: one read for every file an agent meets. A text file answers as
//! [`read_file`](crate::read_file::read_file) does; an image, a notebook or a PDF (told by
//! its content, in [`media`]) answers typed parts. Decoding may hold a thread and hundreds
//! of megabytes, so a caller runs a view in two stages: [`Stage::Text`], where nothing is
//! decoded, answers every text file, and says when the file needs [`Stage::Media`], which
//! may decode. The file is opened once: the text stage hands the file it opened to the
//! media stage ([`Opened`]), and a media stage that finds text reads it as text from the
//! same file.

use crate::attempt::{Access, Attempt, Stop};
use crate::code::{self, CodeMode, CodeRead};
use crate::error::{ErrorCode, ReadFileError};
use crate::media::{self, MediaLimits, MediaOutput, MediaRequest};
use crate::read_file::{Read, ReadOptions, read_opened_file, with_next_steps_as_allowed};
use crate::request::ReadRequest;
use crate::sandbox::{OpenedFile, Root};
use crate::source;
use crate::version::FileVersion;

/// A file a view opened (its policy asked), and the workspace-relative path it was opened
/// by: what the text stage hands to the media stage, so that the file is not looked up again.
#[derive(Debug)]
pub struct Opened {
    relative: String,
    file: OpenedFile,
}

/// What a view gives.
#[derive(Debug)]
pub enum Viewed {
    /// A text window, as [`read_file`](crate::read_file::read_file) gives it.
    Text(Read),
    /// An image, a notebook or a PDF as typed parts, and the version read.
    Media(MediaOutput, FileVersion),
    /// The file is (or may be) an image, a notebook or a PDF, which this stage may not
    /// decode: view it again in [`Stage::Media`], with the file opened.
    NeedsDecoding(Opened),
    /// Code read as code ([`CodeMode`]): an outline, a definition's window, or ranges.
    Code(CodeRead),
}

/// Which part of a view a caller runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Text only: a file that is not text, or whose first bytes say PDF or notebook, is
    /// [`Viewed::NeedsDecoding`] (told by its content, never by its name alone).
    Text,
    /// Media first: the file's content decides, and anything but an image, a notebook or a
    /// PDF is read as text.
    Media,
}

impl Stage {
    /// Where a view of `request` starts: a name that claims an image, a notebook or a PDF is
    /// decoded (its content must be what it claims); any other is read as text first.
    pub fn first_for(request: &ReadRequest) -> Stage {
        match media::claims_media(&request.path) {
            true => Stage::Media,
            false => Stage::Text,
        }
    }
}

/// The file `request` names beneath `root`, viewed in `stage`: `media` says which pages or
/// cells and how much text (its path is the request's), `limits` what a media read may take.
/// `opened`: the file a text stage opened and found needs decoding, viewed in the media
/// stage without being looked up again. From memory ([`ReadOptions::access`]), only the
/// text stage is done, and a file it cannot tell by its window alone (one refused as text,
/// which may be an image) is [`Stop::WouldBlock`]. `code`: whether the text stage reads
/// code as code (an outline asked for, or given unasked, a definition, ranges).
pub fn view(
    root: &Root,
    request: &ReadRequest,
    media: &MediaRequest<'_>,
    (options, limits): (ReadOptions, &MediaLimits),
    (stage, code): (Stage, CodeMode),
    opened: Option<&Opened>,
) -> Attempt<Viewed> {
    if (stage == Stage::Media || opened.is_some()) && options.access == Access::FromMemory {
        return Err(Stop::WouldBlock);
    }
    if let Some(opened) = opened {
        return media_stage(root, request, media, (options, limits), opened);
    }
    let open = source::open(root, &request.path, options.policy, options.access);
    let (relative, file) = with_next_steps_as_allowed(root, request, options, open)?;
    let opened = Opened { relative, file };
    match (stage, code) {
        (_, CodeMode::Asked(ask)) => {
            let as_opened = (opened.relative.as_str(), &opened.file);
            code::read_code(root, request, ask, options, as_opened).map(Viewed::Code)
        }
        (Stage::Media, _) => media_stage(root, request, media, (options, limits), &opened),
        (Stage::Text, code) => text_stage(root, request, (options, code), opened),
    }
}

/// The media stage: the file's content decides; anything but an image, a notebook or a PDF
/// is read as text.
fn media_stage(
    root: &Root,
    request: &ReadRequest,
    media: &MediaRequest<'_>,
    (options, limits): (ReadOptions, &MediaLimits),
    Opened { relative, file }: &Opened,
) -> Attempt<Viewed> {
    match media::read_opened_media(media, (relative, file), limits)? {
        Some((output, version)) => Ok(Viewed::Media(output, version)),
        None => read_opened_file(root, request, options, (relative, file)).map(Viewed::Text),
    }
}

/// The text stage: a text window (or, `code` being [`CodeMode::Unasked`], the outline of a
/// long source file instead of its first page), or, for a file whose window or refusal says
/// it may be an image, a notebook or a PDF, that it needs decoding.
fn text_stage(
    root: &Root,
    request: &ReadRequest,
    (options, code): (ReadOptions, CodeMode),
    opened: Opened,
) -> Attempt<Viewed> {
    let as_opened = (opened.relative.as_str(), &opened.file);
    match read_opened_file(root, request, options, as_opened) {
        Ok(read) if media::window_may_be_media(&read.0) => Ok(Viewed::NeedsDecoding(opened)),
        Ok(read) if code == CodeMode::Unasked => {
            code::unasked_outline(request, options, as_opened, read).map(|read| match read {
                CodeRead::Window(read) => Viewed::Text(read),
                code => Viewed::Code(code),
            })
        }
        Ok(read) => Ok(Viewed::Text(read)),
        Err(Stop::Failed(error)) if refused_as_text(&error) => {
            if options.access == Access::FromMemory {
                return Err(Stop::WouldBlock);
            }
            // A binary file, or one over the text limit, may be an image or a PDF: its first
            // bytes say (a sniff that fails leaves the text read's refusal standing).
            match media::sniff(&request.path, as_opened) {
                Ok(Some(_)) => Ok(Viewed::NeedsDecoding(opened)),
                _ => Err(Stop::Failed(error)),
            }
        }
        Err(stop) => Err(stop),
    }
}

/// Whether a text read's `error` is one a media read may answer: the file is binary, or
/// over the text size limit.
fn refused_as_text(error: &ReadFileError) -> bool {
    matches!(
        error.code,
        ErrorCode::BinaryNotSupported | ErrorCode::SizeLimitExceeded
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attempt::waited;
    use crate::media::MediaKind;

    /// A workspace holding `files`, opened as a root.
    fn workspace(files: &[(&str, &[u8])]) -> (tempfile::TempDir, Root) {
        let dir = tempfile::tempdir().unwrap();
        for (name, bytes) in files {
            std::fs::write(dir.path().join(name), bytes).unwrap();
        }
        let root = Root::open(dir.path().to_str().unwrap()).unwrap();
        (dir, root)
    }

    /// A 2x2 grey PNG.
    fn png() -> Vec<u8> {
        let mut out = Vec::new();
        let mut encoder = png::Encoder::new(&mut out, 2, 2);
        encoder.set_color(png::ColorType::Grayscale);
        let mut writer = encoder.write_header().unwrap();
        writer.write_image_data(&[0, 64, 128, 255]).unwrap();
        writer.finish().unwrap();
        out
    }

    /// `path` viewed in `stage` with the defaults of a toolkit without options.
    fn viewed(root: &Root, path: &str, stage: Stage) -> Result<Viewed, ReadFileError> {
        viewed_opened(root, path, stage, None)
    }

    /// [`viewed`], with the file an earlier stage `opened`.
    fn viewed_opened(
        root: &Root,
        path: &str,
        stage: Stage,
        opened: Option<&Opened>,
    ) -> Result<Viewed, ReadFileError> {
        let request = ReadRequest::for_path(path.to_owned()).unwrap();
        let media = MediaRequest {
            path,
            pages: None,
            max_text_bytes: 64 * 1024,
            stop: None,
        };
        let limits = MediaLimits::default();
        let options = ReadOptions::default();
        waited(view(
            root,
            &request,
            &media,
            (options, &limits),
            (stage, CodeMode::Off),
            opened,
        ))
    }

    fn kind(viewed: Result<Viewed, ReadFileError>) -> &'static str {
        match viewed {
            Ok(Viewed::Text(_)) => "text",
            Ok(Viewed::Media(output, _)) => output.kind.as_str(),
            Ok(Viewed::NeedsDecoding(_)) => "needs decoding",
            Ok(Viewed::Code(_)) => "code",
            Err(error) => error.code.as_str(),
        }
    }

    #[test]
    fn a_name_that_claims_media_starts_with_the_decode_and_any_other_with_text() {
        let stage = |path: &str| Stage::first_for(&ReadRequest::for_path(path.into()).unwrap());
        for path in [
            "shot.png", "a/b.JPG", "x.jpeg", "y.gif", "z.webp", "spec.pdf", "nb.ipynb",
        ] {
            assert_eq!(stage(path), Stage::Media, "{path}");
        }
        for path in ["main.rs", "png", "notes.pdf.txt", "Makefile"] {
            assert_eq!(stage(path), Stage::Text, "{path}");
        }
    }

    #[test]
    fn a_text_file_is_answered_in_the_text_stage() {
        let (_dir, root) = workspace(&[("main.rs", b"fn main() {}\n")]);
        let Ok(Viewed::Text((output, _))) = viewed(&root, "main.rs", Stage::Text) else {
            panic!("not a text window");
        };
        assert_eq!(output.content.as_str(), "fn main() {}\n");
    }

    #[test]
    fn an_image_under_any_name_is_told_by_its_bytes_and_decoded_only_in_the_media_stage() {
        let image = png();
        let (_dir, root) = workspace(&[("shot.dat", &image), ("shot.png", &image)]);
        assert_eq!(
            kind(viewed(&root, "shot.dat", Stage::Text)),
            "needs decoding"
        );
        assert_eq!(kind(viewed(&root, "shot.dat", Stage::Media)), "image");
        assert_eq!(kind(viewed(&root, "shot.png", Stage::Media)), "image");
        let Ok(Viewed::Media(output, version)) = viewed(&root, "shot.dat", Stage::Media) else {
            panic!("not media");
        };
        assert_eq!(
            output.kind,
            MediaKind::Image(crate::media::image::ImageFormat::Png)
        );
        assert_eq!(version.byte_length, image.len() as u64);
    }

    #[test]
    fn the_media_stage_reads_the_file_the_text_stage_opened_never_the_name_again() {
        let image = png();
        let (dir, root) = workspace(&[("shot.dat", &image), ("notes.txt", b"%PDF-1.4\n")]);
        for (path, answer) in [("shot.dat", "image"), ("notes.txt", "text")] {
            let Ok(Viewed::NeedsDecoding(opened)) = viewed(&root, path, Stage::Text) else {
                panic!("{path} does not need decoding");
            };
            // The name now names nothing: only the file opened can be read.
            std::fs::remove_file(dir.path().join(path)).unwrap();
            let viewed = viewed_opened(&root, path, Stage::Media, Some(&opened));
            assert_eq!(kind(viewed), answer, "{path}");
            assert_eq!(kind(self::viewed(&root, path, Stage::Media)), "NOT_FOUND");
        }
    }

    #[test]
    fn text_that_starts_like_a_pdf_or_a_notebook_goes_to_the_media_stage_which_reads_it_as_text() {
        let (_dir, root) = workspace(&[
            ("notes.txt", b"%PDF-1.4\nnot a PDF at all\n"),
            ("data.json", b"{\"cells\": 3}\n"),
            ("later.txt", b"first\n%PDF-1.4\n"),
            ("mention.md", b"see `%PDF-1.4` in the spec\n"),
        ]);
        for path in ["notes.txt", "data.json"] {
            assert_eq!(
                kind(viewed(&root, path, Stage::Text)),
                "needs decoding",
                "{path}"
            );
            assert_eq!(kind(viewed(&root, path, Stage::Media)), "text", "{path}");
        }
        // A header anywhere but at the start of a line of the first bytes is text at once.
        assert_eq!(kind(viewed(&root, "mention.md", Stage::Text)), "text");
        assert_eq!(
            kind(viewed(&root, "later.txt", Stage::Text)),
            "needs decoding"
        );
    }

    #[test]
    fn a_binary_file_that_is_no_media_keeps_the_text_reads_refusal() {
        let (_dir, root) = workspace(&[("blob.bin", b"\x7fELF\0\0\0\x01")]);
        assert_eq!(
            kind(viewed(&root, "blob.bin", Stage::Text)),
            "BINARY_NOT_SUPPORTED"
        );
        assert_eq!(
            kind(viewed(&root, "blob.bin", Stage::Media)),
            "BINARY_NOT_SUPPORTED"
        );
    }

    #[test]
    fn from_memory_a_window_is_answered_and_nothing_is_decoded_or_sniffed() {
        let image = png();
        let (_dir, root) = workspace(&[
            ("main.rs", b"fn main() {}\n"),
            ("shot.dat", &image),
            ("notes.txt", b"%PDF-1.4\n"),
            ("shot.png", &image),
        ]);
        let attempt = |path: &str, stage| {
            let request = ReadRequest::for_path(path.to_owned()).unwrap();
            let media = MediaRequest {
                path,
                pages: None,
                max_text_bytes: 64 * 1024,
                stop: None,
            };
            let options = ReadOptions::default().from_memory();
            let limits = MediaLimits::default();
            view(
                &root,
                &request,
                &media,
                (options, &limits),
                (stage, CodeMode::Off),
                None,
            )
        };
        // The kernel may not have a file in memory yet: a second attempt finds it there.
        for path in ["main.rs", "shot.dat", "notes.txt"] {
            let _ = attempt(path, Stage::Text);
        }
        let answered = |path, stage| match attempt(path, stage) {
            Ok(Viewed::Text(_)) => "text",
            Ok(Viewed::NeedsDecoding(_)) => "needs decoding",
            Ok(Viewed::Media(..)) => "media",
            Ok(Viewed::Code(..)) => "code",
            Err(Stop::WouldBlock) => "would block",
            Err(Stop::Failed(_)) => "failed",
        };
        let text = answered("main.rs", Stage::Text);
        assert!(matches!(text, "text" | "would block"), "{text}");
        let pdf = answered("notes.txt", Stage::Text);
        assert!(matches!(pdf, "needs decoding" | "would block"), "{pdf}");
        // Telling an image refused as text needs a sniff, and a decode waits.
        assert_eq!(answered("shot.dat", Stage::Text), "would block");
        assert_eq!(answered("shot.png", Stage::Media), "would block");
    }
}
