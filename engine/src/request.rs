//! The validated arguments of one `read_file` call.
//!
//! Arguments come from a language model, so every rule is checked here, once, before
//! anything touches the file system. The binding only reports what JavaScript type each
//! argument had; the rules themselves live in this module so `cargo test` covers them.

use crate::error::{ErrorCode, ReadFileError};

/// The largest file `read_file` returns, in bytes (1 MiB). Code and tests share this value.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;
/// The window length when the caller gives no `max_lines`.
pub const DEFAULT_MAX_LINES: u32 = 200;
/// The largest `max_lines` a caller may ask for.
pub const MAX_MAX_LINES: u32 = 500;

/// One numeric argument as it arrived, before validation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NumberArg {
    /// `undefined`, `null` or absent: the default applies.
    Missing,
    /// A JavaScript number (any double, including NaN and the infinities).
    Number(f64),
    /// Any other JavaScript type, by its `typeof` name.
    Other(&'static str),
}

/// A request whose every field obeys the contract.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadRequest {
    /// The path exactly as requested (non-empty, no NUL).
    pub path: String,
    /// 1-based first line of the window. Values beyond any possible line count are kept
    /// saturated at `u64::MAX` rather than wrapped, so they still mean "past the end".
    pub start_line: u64,
    /// Number of lines in the window, 1..=500.
    pub max_lines: u32,
}

impl ReadRequest {
    /// Validates the three arguments of a call. `path` is `Err(type name)` when it was not
    /// a string.
    pub fn new(
        path: Result<String, &'static str>,
        start_line: NumberArg,
        max_lines: NumberArg,
    ) -> Result<ReadRequest, ReadFileError> {
        let path = validate_path(path)?;
        let invalid =
            |reason: String| ReadFileError::new(ErrorCode::InvalidArgument, &path, reason);
        let start_line = integer_in_range(start_line, "start_line", 1, None)
            .map_err(invalid)?
            .map_or(1, saturating_line);
        let max_lines = integer_in_range(max_lines, "max_lines", 1, Some(MAX_MAX_LINES.into()))
            .map_err(invalid)?
            .map_or(DEFAULT_MAX_LINES, |n| n as u32);
        Ok(ReadRequest {
            path,
            start_line,
            max_lines,
        })
    }
}

fn validate_path(path: Result<String, &'static str>) -> Result<String, ReadFileError> {
    let invalid = |shown: &str, reason: String| {
        Err(ReadFileError::new(
            ErrorCode::InvalidArgument,
            shown,
            reason,
        ))
    };
    match path {
        Err(type_name) => invalid(
            "path",
            format!("path must be a non-empty string (got {type_name})"),
        ),
        Ok(path) if path.is_empty() => invalid("", "path must be a non-empty string".to_owned()),
        Ok(path) => reject_nul(&path).map(|()| path),
    }
}

/// A path with a NUL character can name no file: `INVALID_ARGUMENT`, whichever front door
/// it came through.
pub fn reject_nul(path: &str) -> Result<(), ReadFileError> {
    if path.contains('\0') {
        return Err(ReadFileError::new(
            ErrorCode::InvalidArgument,
            path,
            "path must not contain a NUL character",
        ));
    }
    Ok(())
}

/// `Ok(None)` when missing, `Ok(Some(n))` for an integer in range, else the reason.
fn integer_in_range(
    arg: NumberArg,
    name: &str,
    min: u64,
    max: Option<u64>,
) -> Result<Option<f64>, String> {
    // Spelled out only for a message: this runs on the JS thread for every call.
    let range = || match max {
        Some(max) => format!("an integer from {min} to {max}"),
        None => format!("an integer >= {min}"),
    };
    match arg {
        NumberArg::Missing => Ok(None),
        NumberArg::Other(type_name) => Err(format!("{name} must be {} (got {type_name})", range())),
        NumberArg::Number(n) => {
            let in_range = n.is_finite()
                && n.fract() == 0.0
                && n >= min as f64
                && max.is_none_or(|max| n <= max as f64);
            if in_range {
                Ok(Some(n))
            } else {
                Err(format!("{name} must be {} (got {})", range(), js_number(n)))
            }
        }
    }
}

/// A whole, finite, positive double as a line number; `as` saturates, never wraps.
fn saturating_line(n: f64) -> u64 {
    n as u64
}

/// A number spelled as JavaScript would print it, for error messages.
fn js_number(n: f64) -> String {
    if n.is_nan() {
        "NaN".to_owned()
    } else if n.is_infinite() {
        if n > 0.0 { "Infinity" } else { "-Infinity" }.to_owned()
    } else {
        n.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use NumberArg::*;

    fn request(start: NumberArg, max: NumberArg) -> Result<ReadRequest, ReadFileError> {
        ReadRequest::new(Ok("a.txt".to_owned()), start, max)
    }

    fn reason(result: Result<ReadRequest, ReadFileError>) -> String {
        let err = result.unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArgument);
        err.to_string()
    }

    #[test]
    fn defaults_apply_when_missing() {
        let req = request(Missing, Missing).unwrap();
        assert_eq!((req.start_line, req.max_lines), (1, 200));
    }

    #[test]
    fn accepts_the_bounds() {
        let req = request(Number(1.0), Number(500.0)).unwrap();
        assert_eq!((req.start_line, req.max_lines), (1, 500));
        assert_eq!(request(Missing, Number(1.0)).unwrap().max_lines, 1);
    }

    #[test]
    fn huge_start_lines_saturate_instead_of_wrapping() {
        // 2^53 + 2 is exactly representable; a u32 or i32 cast would wrap it to 2.
        let req = request(Number(9_007_199_254_740_994.0), Missing).unwrap();
        assert_eq!(req.start_line, 9_007_199_254_740_994);
        assert_eq!(
            request(Number(1e300), Missing).unwrap().start_line,
            u64::MAX
        );
    }

    #[test]
    fn rejects_out_of_range_and_non_integers() {
        for bad in [0.0, -1.0, 1.5, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let message = reason(request(Number(bad), Missing));
            assert!(
                message.contains("start_line must be an integer >= 1"),
                "{message}"
            );
        }
        for bad in [0.0, 501.0, 2.5, f64::NAN, 4_294_967_297.0] {
            let message = reason(request(Missing, Number(bad)));
            assert!(
                message.contains("max_lines must be an integer from 1 to 500"),
                "{message}"
            );
        }
    }

    #[test]
    fn names_the_wrong_type() {
        let message = reason(request(Other("string"), Missing));
        assert_eq!(
            message,
            "INVALID_ARGUMENT: a.txt: start_line must be an integer >= 1 (got string)"
        );
        let message = reason(request(Missing, Number(f64::NAN)));
        assert!(message.ends_with("(got NaN)"), "{message}");
    }

    #[test]
    fn path_must_be_a_non_empty_string_without_nul() {
        let message = reason(ReadRequest::new(Err("number"), Missing, Missing));
        assert_eq!(
            message,
            "INVALID_ARGUMENT: path: path must be a non-empty string (got number)"
        );
        assert!(reason(ReadRequest::new(Ok(String::new()), Missing, Missing)).contains("\"\""));
        assert!(reason(ReadRequest::new(Ok("a\0b".into()), Missing, Missing)).contains("NUL"));
    }
}
