//! The validated arguments of one `read_file` call.
//!
//! Arguments come from a language model, so every rule is checked here, once, before
//! anything touches the file system. The rules live here so `cargo test` covers them; a
//! front door checks only that each argument is of the right kind (a string path, a number
//! or nothing for the others), and words its refusal with [`Argument::rule`].

use crate::error::{ErrorCode, ReadFileError};

/// The largest file `read_file` returns, in bytes (1 MiB). Code and tests share this value.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;
/// The window length when the caller gives no `max_lines`.
pub const DEFAULT_MAX_LINES: u32 = 200;
/// The largest `max_lines` a caller may ask for.
pub const MAX_MAX_LINES: u32 = 500;
/// What a toolkit's answer says (its `note`) when the `max_lines` asked for was over
/// [`MAX_MAX_LINES`], was read as [`MAX_MAX_LINES`], and the file goes on after the window.
pub const MAX_LINES_CAPPED_NOTE: &str =
    "max_lines is at most 500: 500 lines returned; read on from next_start_line";

/// One numeric argument as it arrived, before validation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NumberArg {
    /// Not given: the default applies.
    Missing,
    /// A number (any double, including NaN and the infinities).
    Number(f64),
}

/// The arguments of a call, for messages about them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Argument {
    Path,
    StartLine,
    MaxLines,
    /// A toolkit's own argument, beside the specification's three.
    StartColumn,
}

impl Argument {
    /// The argument's name in the tool's schema.
    pub const fn name(self) -> &'static str {
        match self {
            Argument::Path => "path",
            Argument::StartLine => "start_line",
            Argument::MaxLines => "max_lines",
            Argument::StartColumn => "start_column",
        }
    }

    /// What the argument must be, in words: "`name` must be `rule`".
    pub const fn rule(self) -> &'static str {
        match self {
            Argument::Path => "a non-empty string",
            Argument::StartLine | Argument::StartColumn => "an integer >= 1",
            // Spelled out as a literal for `const`; a test keeps it equal to the bounds.
            Argument::MaxLines => "an integer from 1 to 500",
        }
    }

    /// The `INVALID_ARGUMENT` error for a value of the wrong kind, `got` naming what was
    /// given instead; `shown_path` is the path the message names.
    pub fn wrong_kind(self, shown_path: &str, got: &str) -> ReadFileError {
        ReadFileError::new(
            ErrorCode::InvalidArgument,
            shown_path,
            format!("{} must be {} (got {got})", self.name(), self.rule()),
        )
    }
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
    /// 1-based column of `start_line` where the window starts, in bytes of the line as
    /// stored (a toolkit's continuation of a cut line; 1 for every specification call).
    /// Saturated like `start_line`.
    pub start_column: u64,
    /// Whether a whole number over [`MAX_MAX_LINES`] was asked for as `max_lines` and taken
    /// as [`MAX_MAX_LINES`] ([`ReadRequest::with_max_lines_capped`], a toolkit's read).
    pub max_lines_capped: bool,
    /// The window ends the file: it starts this many lines before the end (a toolkit's
    /// negative `start_line`, [`ReadRequest::with_start_line_or_tail`]); `start_line` is
    /// then found once the file's lines are counted ([`ReadRequest::from_line_count`]).
    pub lines_from_end: Option<u64>,
}

impl ReadRequest {
    /// Validates the three arguments of a call, in that order.
    pub fn new(
        path: String,
        start_line: NumberArg,
        max_lines: NumberArg,
    ) -> Result<ReadRequest, ReadFileError> {
        ReadRequest::for_path(path)?
            .with_start_line(start_line)?
            .with_max_lines(max_lines)
    }

    /// A request for `path` (validated) with the default window, for a front door that
    /// checks the kind of each argument just before its value.
    pub fn for_path(path: String) -> Result<ReadRequest, ReadFileError> {
        if path.is_empty() {
            return Err(ReadFileError::new(
                ErrorCode::InvalidArgument,
                "",
                format!("path must be {}", Argument::Path.rule()),
            ));
        }
        reject_nul(&path)?;
        Ok(ReadRequest {
            path,
            start_line: 1,
            max_lines: DEFAULT_MAX_LINES,
            start_column: 1,
            max_lines_capped: false,
            lines_from_end: None,
        })
    }

    /// This request with `start_line` validated; the default when missing.
    pub fn with_start_line(self, start_line: NumberArg) -> Result<ReadRequest, ReadFileError> {
        let start_line = self
            .integer_in_range(start_line, Argument::StartLine, 1, None)?
            .map_or(1, saturating_line);
        Ok(ReadRequest { start_line, ..self })
    }

    /// This request with `start_line` validated as a toolkit takes it: a negative whole
    /// number `-n` asks for the window that starts `n` lines before the end (the last `n`
    /// lines, as `max_lines` allows: `-50` reads a log's last 50 lines). Anything else is
    /// [`ReadRequest::with_start_line`]'s, but for what its error says.
    pub fn with_start_line_or_tail(
        self,
        start_line: NumberArg,
    ) -> Result<ReadRequest, ReadFileError> {
        match start_line {
            NumberArg::Number(n) if n.fract() == 0.0 && n < 0.0 => Ok(ReadRequest {
                lines_from_end: Some(saturating_line(-n)),
                ..self
            }),
            other => self.with_start_line(other).map_err(|mut error| {
                error.reason = error.reason.replace(
                    Argument::StartLine.rule(),
                    "an integer >= 1, or negative to count from the end (-50: the last 50 lines)",
                );
                error
            }),
        }
    }

    /// This request for a file of `line_count` lines: a window counted from the end starts
    /// where that count says (at line 1 when the file has fewer lines).
    pub fn from_line_count(&self, line_count: u64) -> ReadRequest {
        let mut request = self.clone();
        if let Some(n) = request.lines_from_end.take() {
            request.start_line = line_count.saturating_sub(n).saturating_add(1);
        }
        request
    }

    /// This request with `max_lines` validated; the default when missing.
    pub fn with_max_lines(self, max_lines: NumberArg) -> Result<ReadRequest, ReadFileError> {
        let max = Some(MAX_MAX_LINES.into());
        let max_lines = self
            .integer_in_range(max_lines, Argument::MaxLines, 1, max)?
            .map_or(DEFAULT_MAX_LINES, |n| n as u32);
        Ok(ReadRequest { max_lines, ..self })
    }

    /// This request with `max_lines` validated as a toolkit takes it: a whole number over
    /// [`MAX_MAX_LINES`] is read as [`MAX_MAX_LINES`] (the window the model would get by
    /// asking again, without the turn), and the answer says so ([`MAX_LINES_CAPPED_NOTE`]).
    /// Anything else is [`ReadRequest::with_max_lines`]'s.
    pub fn with_max_lines_capped(self, max_lines: NumberArg) -> Result<ReadRequest, ReadFileError> {
        match max_lines {
            NumberArg::Number(n) if n.fract() == 0.0 && n > f64::from(MAX_MAX_LINES) => {
                Ok(ReadRequest {
                    max_lines: MAX_MAX_LINES,
                    max_lines_capped: true,
                    ..self
                })
            }
            other => self.with_max_lines(other),
        }
    }

    /// This request with `start_column` validated; 1 when missing.
    pub fn with_start_column(self, start_column: NumberArg) -> Result<ReadRequest, ReadFileError> {
        let start_column = self
            .integer_in_range(start_column, Argument::StartColumn, 1, None)?
            .map_or(1, saturating_line);
        Ok(ReadRequest {
            start_column,
            ..self
        })
    }

    /// `Ok(None)` when missing, `Ok(Some(n))` for an integer in range, else the error.
    fn integer_in_range(
        &self,
        arg: NumberArg,
        argument: Argument,
        min: u64,
        max: Option<u64>,
    ) -> Result<Option<f64>, ReadFileError> {
        let NumberArg::Number(n) = arg else {
            return Ok(None);
        };
        let in_range = n.is_finite()
            && n.fract() == 0.0
            && n >= min as f64
            && max.is_none_or(|max| n <= max as f64);
        if in_range {
            return Ok(Some(n));
        }
        Err(ReadFileError::new(
            ErrorCode::InvalidArgument,
            &self.path,
            format!(
                "{} must be {} (got {})",
                argument.name(),
                argument.rule(),
                shown_number(n)
            ),
        ))
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

/// A whole, finite, positive double as a line number; `as` saturates, never wraps.
fn saturating_line(n: f64) -> u64 {
    n as u64
}

/// A number spelled as the tool's callers print it (JSON numbers, with JavaScript's names
/// for what JSON cannot spell), for error messages.
fn shown_number(n: f64) -> String {
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
        ReadRequest::new("a.txt".to_owned(), start, max)
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
    fn names_the_wrong_kind_with_the_rule_of_the_argument() {
        let message = Argument::StartLine
            .wrong_kind("a.txt", "string")
            .to_string();
        assert_eq!(
            message,
            "INVALID_ARGUMENT: a.txt: start_line must be an integer >= 1 (got string)"
        );
        let message = Argument::Path.wrong_kind("path", "number").to_string();
        assert_eq!(
            message,
            "INVALID_ARGUMENT: path: path must be a non-empty string (got number)"
        );
        let message = reason(request(Missing, Number(f64::NAN)));
        assert!(message.ends_with("(got NaN)"), "{message}");
    }

    #[test]
    fn a_toolkit_s_negative_start_line_counts_from_the_end() {
        let req = ReadRequest::for_path("app.log".into()).unwrap();
        let tail = req.clone().with_start_line_or_tail(Number(-50.0)).unwrap();
        assert_eq!(tail.lines_from_end, Some(50));
        assert_eq!(tail.from_line_count(1_000).start_line, 951);
        assert_eq!(tail.from_line_count(1_000).lines_from_end, None);
        assert_eq!(
            tail.from_line_count(20).start_line,
            1,
            "fewer lines than asked"
        );
        assert_eq!(tail.from_line_count(0).start_line, 1);
        let plain = req.clone().with_start_line_or_tail(Number(7.0)).unwrap();
        assert_eq!((plain.start_line, plain.lines_from_end), (7, None));
        assert_eq!(plain.from_line_count(3).start_line, 7);
        for bad in [0.0, -1.5, f64::NAN] {
            let message = req
                .clone()
                .with_start_line_or_tail(Number(bad))
                .unwrap_err()
                .reason;
            assert!(
                message.contains("or negative to count from the end"),
                "{message}"
            );
        }
        // The specification's start_line stays >= 1.
        assert!(req.with_start_line(Number(-50.0)).is_err());
    }

    #[test]
    fn a_start_column_is_a_whole_number_from_1() {
        let req = request(Missing, Missing).unwrap();
        assert_eq!(req.start_column, 1);
        let column = |n| req.clone().with_start_column(n);
        assert_eq!(column(Missing).unwrap().start_column, 1);
        assert_eq!(column(Number(16_385.0)).unwrap().start_column, 16_385);
        assert_eq!(column(Number(1e300)).unwrap().start_column, u64::MAX);
        for bad in [0.0, -1.0, 1.5, f64::NAN, f64::INFINITY] {
            let message = reason(column(Number(bad)));
            assert!(
                message.contains("start_column must be an integer >= 1"),
                "{message}"
            );
        }
    }

    #[test]
    fn a_toolkit_reads_a_whole_max_lines_over_500_as_500() {
        let capped = |n| {
            let req = ReadRequest::for_path("a.txt".into()).unwrap();
            req.with_max_lines_capped(n)
                .map(|req| (req.max_lines, req.max_lines_capped))
        };
        assert_eq!(capped(Number(1000.0)).unwrap(), (500, true));
        assert_eq!(capped(Number(1e300)).unwrap(), (500, true));
        assert_eq!(capped(Number(501.0)).unwrap(), (500, true));
        assert_eq!(capped(Number(500.0)).unwrap(), (500, false));
        assert_eq!(capped(Missing).unwrap(), (200, false));
        for bad in [0.0, -1.0, 600.5, f64::NAN, f64::INFINITY] {
            let message =
                reason(capped(Number(bad)).map(|_| ReadRequest::for_path("a".into()).unwrap()));
            assert!(
                message.contains("max_lines must be an integer from 1 to 500"),
                "{message}"
            );
        }
        assert!(
            MAX_LINES_CAPPED_NOTE.starts_with(&format!("max_lines is at most {MAX_MAX_LINES}:"))
        );
    }

    #[test]
    fn the_max_lines_rule_states_the_bounds() {
        let rule = format!("an integer from 1 to {MAX_MAX_LINES}");
        assert_eq!(Argument::MaxLines.rule(), rule);
    }

    #[test]
    fn arguments_are_checked_in_order() {
        let message = reason(request(Number(0.0), Number(0.0)));
        assert!(message.contains("start_line"), "{message}");
        let message = reason(ReadRequest::new(String::new(), Number(0.0), Missing));
        assert!(message.contains("path must be"), "{message}");
    }

    #[test]
    fn path_must_be_a_non_empty_string_without_nul() {
        assert!(reason(ReadRequest::for_path(String::new())).contains("\"\""));
        assert!(reason(ReadRequest::for_path("a\0b".into())).contains("NUL"));
    }
}
