//! A toolkit's `view`: one read for every file an agent meets. A text file answers as
//! [`read_file`] does; an image, a notebook or a PDF (told by its content, in [`media`])
//! answers typed parts. Decoding may hold a thread and hundreds of megabytes, so a caller
//! runs a view in two stages: [`Stage::Text`], where nothing is decoded, answers every text
//! file, and says when the file needs [`Stage::Media`], which may decode.

use crate::attempt::{Attempt, Stop};
use crate::error::{ErrorCode, ReadFileError};
use crate::media::{self, MediaLimits, MediaOutput, MediaRequest};
use crate::read_file::{Read, ReadOptions, read_file, read_file_from_memory};
use crate::request::ReadRequest;
use crate::sandbox::Root;
use crate::version::FileVersion;

/// What a view gives.
#[derive(Debug)]
pub enum Viewed {
    /// A text window, as [`read_file`] gives it.
    Text(Read),
    /// An image, a notebook or a PDF as typed parts, and the version read.
    Media(MediaOutput, FileVersion),
    /// The file is (or may be) an image, a notebook or a PDF, which this stage may not
    /// decode: view it again in [`Stage::Media`].
    NeedsDecoding,
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
pub fn view(
    root: &Root,
    request: &ReadRequest,
    media: &MediaRequest<'_>,
    options: ReadOptions,
    limits: &MediaLimits,
    stage: Stage,
) -> Result<Viewed, ReadFileError> {
    if stage == Stage::Media {
        return match media::read_media(root, media, options.policy, limits)? {
            Some((output, version)) => Ok(Viewed::Media(output, version)),
            None => read_file(root, request, options).map(Viewed::Text),
        };
    }
    match read_file(root, request, options) {
        Ok(read) if media::window_may_be_media(&read.0) => Ok(Viewed::NeedsDecoding),
        Ok(read) => Ok(Viewed::Text(read)),
        Err(error) if !refused_as_text(&error) => Err(error),
        // A binary file, or one over the text limit, may be an image or a PDF: its first
        // bytes say (a sniff that fails leaves the text read's refusal standing).
        Err(error) => match media::sniff(root, &request.path, options.policy) {
            Ok(Some(_)) => Ok(Viewed::NeedsDecoding),
            _ => Err(error),
        },
    }
}

/// [`view`] in [`Stage::Text`] for a thread that must not wait (see
/// [`read_file_from_memory`]): a text window, or [`Stop::WouldBlock`] for anything that
/// needs more (a sniff of a file refused as text, or a decode).
pub fn view_text_from_memory(
    root: &Root,
    request: &ReadRequest,
    options: ReadOptions,
) -> Attempt<Read> {
    match read_file_from_memory(root, request, options) {
        Ok(read) if media::window_may_be_media(&read.0) => Err(Stop::WouldBlock),
        Err(Stop::Failed(error)) if refused_as_text(&error) => Err(Stop::WouldBlock),
        attempt => attempt,
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
        let request = ReadRequest::for_path(path.to_owned()).unwrap();
        let media = MediaRequest {
            path,
            pages: None,
            max_text_bytes: 64 * 1024,
            stop: None,
        };
        let limits = MediaLimits::default();
        view(
            root,
            &request,
            &media,
            ReadOptions::default(),
            &limits,
            stage,
        )
    }

    fn kind(viewed: Result<Viewed, ReadFileError>) -> &'static str {
        match viewed {
            Ok(Viewed::Text(_)) => "text",
            Ok(Viewed::Media(output, _)) => output.kind.as_str(),
            Ok(Viewed::NeedsDecoding) => "needs decoding",
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
    fn on_a_thread_that_must_not_wait_only_a_text_window_is_answered() {
        let image = png();
        let (_dir, root) = workspace(&[
            ("main.rs", b"fn main() {}\n"),
            ("shot.dat", &image),
            ("notes.txt", b"%PDF-1.4\n"),
        ]);
        let attempt = |path: &str| {
            let request = ReadRequest::for_path(path.to_owned()).unwrap();
            view_text_from_memory(&root, &request, ReadOptions::default())
        };
        // The kernel may not have the file in memory yet: a second attempt finds it there.
        let _ = attempt("main.rs");
        assert!(matches!(attempt("main.rs"), Ok(_) | Err(Stop::WouldBlock)));
        for path in ["shot.dat", "notes.txt"] {
            let _ = attempt(path);
            assert_eq!(attempt(path).err(), Some(Stop::WouldBlock), "{path}");
        }
    }
}
