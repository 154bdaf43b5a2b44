//! The error vocabulary of the `read_file` contract.

use std::fmt;

/// The stable machine-readable codes of the contract (`err.code` in JavaScript).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    InvalidArgument,
    NotFound,
    NotFile,
    BinaryNotSupported,
    SizeLimitExceeded,
    OutsideWorkspace,
    PermissionDenied,
    Internal,
    /// Not one of the specification's codes: a toolkit's policy refused the file.
    PolicyDenied,
    /// Not one of the specification's codes: a file too large to read whole changed while
    /// a toolkit read it, and again when the read was tried once more.
    FileChanged,
    /// Not one of the specification's codes: the caller stopped the read
    /// ([`ReadOptions::stop`](crate::ReadOptions::stop)) before it ended. A binding settles
    /// such a call as its caller's abort, so this never reaches a caller there.
    Aborted,
    /// Not one of the specification's codes: a toolkit's media read found an image, a
    /// notebook or a PDF that is corrupt, truncated, or not what its name says.
    InvalidMedia,
    /// Not one of the specification's codes: an image declares more pixels than a toolkit
    /// decodes, or cannot be made small enough for a model.
    ImageTooLarge,
    /// Not one of the specification's codes: a PDF is encrypted.
    PdfEncrypted,
}

impl ErrorCode {
    /// Every code of the specification, in the order it lists them (not
    /// [`ErrorCode::PolicyDenied`], which is this package's own).
    pub const ALL: [ErrorCode; 8] = [
        ErrorCode::InvalidArgument,
        ErrorCode::NotFound,
        ErrorCode::NotFile,
        ErrorCode::BinaryNotSupported,
        ErrorCode::SizeLimitExceeded,
        ErrorCode::OutsideWorkspace,
        ErrorCode::PermissionDenied,
        ErrorCode::Internal,
    ];

    /// The code as it appears in `err.code` and at the head of every message.
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidArgument => "INVALID_ARGUMENT",
            ErrorCode::NotFound => "NOT_FOUND",
            ErrorCode::NotFile => "NOT_FILE",
            ErrorCode::BinaryNotSupported => "BINARY_NOT_SUPPORTED",
            ErrorCode::SizeLimitExceeded => "SIZE_LIMIT_EXCEEDED",
            ErrorCode::OutsideWorkspace => "OUTSIDE_WORKSPACE",
            ErrorCode::PermissionDenied => "PERMISSION_DENIED",
            ErrorCode::Internal => "INTERNAL",
            ErrorCode::PolicyDenied => "POLICY_DENIED",
            ErrorCode::FileChanged => "FILE_CHANGED",
            ErrorCode::Aborted => "ABORT_ERR",
            ErrorCode::InvalidMedia => "INVALID_MEDIA",
            ErrorCode::ImageTooLarge => "IMAGE_TOO_LARGE",
            ErrorCode::PdfEncrypted => "PDF_ENCRYPTED",
        }
    }
}

impl AsRef<str> for ErrorCode {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A refused or failed read: `CODE: <requested path>: <reason>`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {}: {reason}", display_path(.path))]
pub struct ReadFileError {
    pub code: ErrorCode,
    /// The path as the caller gave it (shown shortened and escaped in the message).
    pub path: String,
    pub reason: String,
    /// The file's size, for `SIZE_LIMIT_EXCEEDED` (dialects word their own message).
    pub file_size: Option<u64>,
    /// Which limit a `SIZE_LIMIT_EXCEEDED` is over (a toolkit names the option that lifts it).
    pub size_limit: Option<SizeLimit>,
}

/// The limits of a file's size a read may be refused for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizeLimit {
    /// The text read's (`ReadOptions::max_file_bytes`).
    Text,
    /// The media read's, for images, notebooks and PDFs (`MediaLimits::max_file_bytes`).
    Media,
}

impl ReadFileError {
    pub fn new(code: ErrorCode, path: &str, reason: impl Into<String>) -> Self {
        ReadFileError {
            code,
            path: path.to_owned(),
            reason: reason.into(),
            file_size: None,
            size_limit: None,
        }
    }

    /// The same error, about the requested `path` (a root error is reported against the
    /// path the caller asked for).
    pub fn for_path(mut self, path: &str) -> Self {
        path.clone_into(&mut self.path);
        self
    }
}

/// How much of a requested path an error message repeats: enough to recognise it,
/// never a megabyte of model output.
const SHOWN_PATH_CHARS: usize = 256;

/// The requested path as shown in a message: control characters (NUL included) escaped,
/// long paths cut with an ellipsis, an empty path shown as `""`.
pub fn display_path(path: &str) -> String {
    if path.is_empty() {
        return "\"\"".to_owned();
    }
    let mut shown = String::with_capacity(path.len().min(SHOWN_PATH_CHARS + 8));
    for (count, ch) in path.chars().enumerate() {
        if count == SHOWN_PATH_CHARS {
            shown.push('…');
            break;
        }
        if ch.is_control() {
            shown.extend(ch.escape_default());
        } else {
            shown.push(ch);
        }
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_names_code_path_and_reason() {
        let err = ReadFileError::new(
            ErrorCode::NotFound,
            "src/mian.ts",
            "no such file in the workspace",
        );
        assert_eq!(
            err.to_string(),
            "NOT_FOUND: src/mian.ts: no such file in the workspace"
        );
    }

    #[test]
    fn message_escapes_control_characters_and_shortens_long_paths() {
        let err = ReadFileError::new(ErrorCode::InvalidArgument, "a\0b\n", "bad");
        assert_eq!(err.to_string(), "INVALID_ARGUMENT: a\\u{0}b\\n: bad");
        let long = "x".repeat(1_000_000);
        let message = ReadFileError::new(ErrorCode::NotFound, &long, "gone").to_string();
        assert!(message.len() < 400, "{} bytes", message.len());
        assert!(message.ends_with("…: gone"));
    }

    #[test]
    fn codes_are_the_contract_spelling() {
        let codes: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(
            codes,
            [
                "INVALID_ARGUMENT",
                "NOT_FOUND",
                "NOT_FILE",
                "BINARY_NOT_SUPPORTED",
                "SIZE_LIMIT_EXCEEDED",
                "OUTSIDE_WORKSPACE",
                "PERMISSION_DENIED",
                "INTERNAL"
            ]
        );
    }
}
