//! AIntern's `file-read` tool ("Read File"): `path` (workspace-relative), inclusive
//! `start_line`..`end_line`, `max_lines` (default 1000), `include_line_numbers` (default
//! true; the number right-aligned to the width of the last one shown, then ` | `), a 10 MB
//! limit and encoding detection. Answers `{ success: true, output, data, message }` or
//! `{ success: false, error }` with the document's messages.
//!
//! As the document does: an absolute path is read as relative to the workspace (leading
//! `/` removed); lines are the text split on `\n` (so a final `\n` gives a last, empty line,
//! and a `\r` before `\n` stays). Unlike the document's path helper, names containing
//! `..`, `~`, `|`, `<`, `>` or `$(` are not refused by pattern: the kernel-confined sandbox
//! decides what is inside the workspace.

use serde::Serialize;
use serde_json::Value;

use super::DialectCall;
use crate::encoding::detect_and_decode;
use crate::error::{ErrorCode, ReadFileError};
use crate::file_guard::Span;
use crate::render::{LineNumbers, Rendering, render};
use crate::sandbox::Root;
use crate::source::Reader;
use crate::window::count_newlines;

/// Lines returned when `max_lines` is not given.
pub const DEFAULT_MAX_LINES: i64 = 1000;
/// The largest file read (10 MB).
pub const MAX_FILE_SIZE_BYTES: u64 = 10 * 1024 * 1024;

/// One problem `validate` found with the arguments: `{ parameterName, message, code }`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ValidationError {
    pub parameter_name: &'static str,
    pub message: String,
    pub code: &'static str,
}

/// The document's `Validate`: a required, non-blank `path`; line numbers at least 1 and
/// `end_line >= start_line` (`INVALID_RANGE`); integers and a boolean where the schema
/// says so (`INVALID_TYPE`, which the document leaves to its JSON layer).
pub fn validate(args: &Value) -> Vec<ValidationError> {
    let mut errors = Vec::new();
    let path_ok = args
        .get("path")
        .and_then(Value::as_str)
        .is_some_and(|path| !path.trim().is_empty());
    if !path_ok {
        errors.push(ValidationError {
            parameter_name: "path",
            message: "path is required".into(),
            code: "REQUIRED",
        });
    }
    let start = integer(args, "start_line", &mut errors);
    let end = integer(args, "end_line", &mut errors);
    let max = integer(args, "max_lines", &mut errors);
    let range = |name, message: &str| ValidationError {
        parameter_name: name,
        message: message.into(),
        code: "INVALID_RANGE",
    };
    if start.is_some_and(|start| start < 1) {
        errors.push(range("start_line", "Start line must be at least 1"));
    }
    if let Some(end) = end {
        if end < 1 {
            errors.push(range("end_line", "End line must be at least 1"));
        }
        if start.is_some_and(|start| end < start) {
            errors.push(range("end_line", "End line must be >= start line"));
        }
    }
    if max.is_some_and(|max| max < 1) {
        errors.push(range("max_lines", "Max lines must be at least 1"));
    }
    if args
        .get("include_line_numbers")
        .is_some_and(|value| !value.is_null() && !value.is_boolean())
    {
        errors.push(ValidationError {
            parameter_name: "include_line_numbers",
            message: "include_line_numbers must be a boolean".into(),
            code: "INVALID_TYPE",
        });
    }
    errors
}

/// An integer argument, if present; a value that is not one is an `INVALID_TYPE` error.
fn integer(args: &Value, name: &'static str, errors: &mut Vec<ValidationError>) -> Option<i64> {
    let value = args.get(name).filter(|value| !value.is_null())?;
    let integer = value.as_i64().filter(|n| i32::try_from(*n).is_ok());
    if integer.is_none() {
        errors.push(ValidationError {
            parameter_name: name,
            message: format!("{name} must be an integer"),
            code: "INVALID_TYPE",
        });
    }
    integer
}

/// The document's `GetExecutionSummary`: what the call will do, in a few words.
pub fn execution_summary(args: &Value) -> String {
    let path = args
        .get("path")
        .and_then(Value::as_str)
        .unwrap_or("unknown");
    let chars: Vec<char> = path.chars().collect();
    let short: String = if chars.len() > 40 {
        format!(
            "...{}",
            chars[chars.len() - 37..].iter().collect::<String>()
        )
    } else {
        path.to_owned()
    };
    let line = |name| args.get(name).and_then(Value::as_i64);
    match (line("start_line"), line("end_line")) {
        (Some(start), Some(end)) => format!("Read '{short}' lines {start}-{end}"),
        (Some(start), None) => format!("Read '{short}' from line {start}"),
        _ => format!("Read file '{short}'"),
    }
}

/// The document's `FormatFileSize`: `B` below 1 KB, then `KB` and `MB` with one decimal,
/// `GB` with two (1 KB = 1024 bytes).
pub fn format_file_size(bytes: u64) -> String {
    const KB: u64 = 1024;
    match bytes {
        b if b < KB => format!("{b} B"),
        b if b < KB * KB => format!("{:.1} KB", b as f64 / KB as f64),
        b if b < KB * KB * KB => format!("{:.1} MB", b as f64 / (KB * KB) as f64),
        b => format!("{:.2} GB", b as f64 / (KB * KB * KB) as f64),
    }
}

/// The document's `ToolResult`: a read, or a failure.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Answer {
    Read(ReadAnswer),
    Failed(Failure),
}

/// `{ success: true, output, data, message }`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReadAnswer {
    /// Always `true`.
    pub success: bool,
    pub output: String,
    pub data: ReadFileResultData,
    pub message: String,
}

/// The document's `ReadFileResultData`, with its computed properties.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadFileResultData {
    pub path: String,
    pub total_lines: i64,
    pub start_line: i64,
    pub end_line: i64,
    pub lines_returned: usize,
    pub was_truncated: bool,
    pub encoding: String,
    pub file_size: u64,
    pub last_modified: String,
    pub remaining_lines: i64,
    pub percentage_read: f64,
}

/// `{ success: false, error }`, with `validationErrors` when the arguments were invalid.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Failure {
    /// Always `false`.
    pub success: bool,
    pub error: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub validation_errors: Option<Vec<ValidationError>>,
}

impl Failure {
    fn new(error: String, validation_errors: Option<Vec<ValidationError>>) -> Failure {
        Failure {
            success: false,
            error,
            validation_errors,
        }
    }
}

/// Runs one call beneath `root`: validation, then the read through `reader`. Never `Err`:
/// AIntern answers failures as `success: false`.
pub fn execute(
    root: Result<&Root, ReadFileError>,
    call: &DialectCall,
    reader: &Reader,
) -> Result<Answer, ReadFileError> {
    let args = call.args.value();
    let errors = validate(&args);
    if !errors.is_empty() {
        let messages: Vec<&str> = errors.iter().map(|e| e.message.as_str()).collect();
        let error = format!("Invalid parameters: {}", messages.join("; "));
        return Ok(Answer::Failed(Failure::new(error, Some(errors))));
    }
    Ok(match read(root, reader, &args) {
        Ok(answer) => Answer::Read(answer),
        Err(message) => Answer::Failed(Failure::new(message, None)),
    })
}

fn read(
    root: Result<&Root, ReadFileError>,
    reader: &Reader,
    args: &Value,
) -> Result<ReadAnswer, String> {
    let path = args["path"].as_str().unwrap_or_default();
    let line = |name| args.get(name).and_then(Value::as_i64);
    let max_lines = line("max_lines").unwrap_or(DEFAULT_MAX_LINES);
    let numbered = args
        .get("include_line_numbers")
        .and_then(Value::as_bool)
        .unwrap_or(true);
    if path.contains('\0') {
        return Err("Path contains invalid characters or patterns.".into());
    }
    // As the document's ResolvePath: a rooted path is taken relative to the workspace.
    let relative = path.trim_start_matches(['/', '\\']);
    let file = root
        .and_then(|root| {
            reader.read(
                root,
                relative,
                Span::Whole {
                    max: MAX_FILE_SIZE_BYTES,
                },
            )
        })
        .map_err(|err| failure_message(&err, path))?
        .1;
    let decoded = detect_and_decode(&file.bytes);
    // Lines as the document's `Split('\n')` makes them: one more than the `\n`s.
    let total = count_newlines(decoded.text.as_bytes()) as i64 + 1;
    let filter = apply_line_filter(total, line("start_line"), line("end_line"), max_lines);
    let shown: Vec<&str> = decoded
        .text
        .split('\n')
        .skip(filter.first_index)
        .take(filter.count)
        .collect();
    let output = format_output(&shown, filter.start, numbered);
    let message = if filter.truncated {
        format!(
            "Read lines {}-{} of {total} (truncated to {max_lines} lines)",
            filter.start, filter.end
        )
    } else {
        format!("Read {} lines from {path}", filter.count)
    };
    let percentage_read = if total > 0 {
        filter.count as f64 / total as f64 * 100.0
    } else {
        100.0
    };
    let data = ReadFileResultData {
        path: path.to_owned(),
        total_lines: total,
        start_line: filter.start,
        end_line: filter.end,
        lines_returned: filter.count,
        was_truncated: filter.truncated,
        encoding: decoded.encoding,
        file_size: file.file_len,
        last_modified: iso8601_utc(file.mtime_ms),
        remaining_lines: total - filter.end,
        percentage_read,
    };
    Ok(ReadAnswer {
        success: true,
        output,
        data,
        message,
    })
}

/// The document's failure messages for what the sandbox and the file guard report.
fn failure_message(err: &ReadFileError, path: &str) -> String {
    match err.code {
        ErrorCode::OutsideWorkspace => {
            "Path is outside the workspace. Only files within the workspace can be accessed.".into()
        }
        ErrorCode::NotFound | ErrorCode::NotFile => format!("File not found: {path}"),
        ErrorCode::SizeLimitExceeded => {
            let size = err.file_size.unwrap_or(MAX_FILE_SIZE_BYTES + 1);
            format!(
                "File too large ({}). Maximum size: {}. Consider using start_line/end_line parameters to read a portion.",
                format_file_size(size),
                format_file_size(MAX_FILE_SIZE_BYTES)
            )
        }
        ErrorCode::PermissionDenied => format!("Access denied: {path}"),
        ErrorCode::InvalidArgument => "No workspace configured".into(),
        _ => format!("Failed to read file: {}", err.reason),
    }
}

/// The document's `ApplyLineFilter`, on line indices.
#[derive(Debug, PartialEq, Eq)]
struct LineFilter {
    first_index: usize,
    count: usize,
    start: i64,
    end: i64,
    truncated: bool,
}

fn apply_line_filter(
    total: i64,
    start: Option<i64>,
    end: Option<i64>,
    max_lines: i64,
) -> LineFilter {
    let start = start.unwrap_or(1).max(1);
    let mut end = end.unwrap_or(total).min(total);
    if start > total {
        return LineFilter {
            first_index: 0,
            count: 0,
            start,
            end: start,
            truncated: false,
        };
    }
    let mut count = (end.min(total) - start + 1).max(0);
    let truncated = count > max_lines;
    if truncated {
        count = max_lines;
        end = start + max_lines - 1;
    }
    LineFilter {
        first_index: (start - 1) as usize,
        count: count as usize,
        start,
        end,
        truncated,
    }
}

/// The document's `FormatOutput`: numbered lines joined with `\n`, trailing whitespace of
/// the whole output trimmed; without numbers, the lines joined as they are.
fn format_output(lines: &[&str], start: i64, numbered: bool) -> String {
    if !numbered {
        return lines.join("\n");
    }
    let rendering = Rendering {
        numbers: LineNumbers::Piped,
        max_line_bytes: None,
    };
    render(lines, start as usize, rendering)
        .trim_end()
        .to_owned()
}

/// `ms` since the epoch as an ISO 8601 UTC timestamp with milliseconds.
fn iso8601_utc(ms: i64) -> String {
    let (days, ms_of_day) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let (h, m, s, milli) = (
        ms_of_day / 3_600_000,
        ms_of_day / 60_000 % 60,
        ms_of_day / 1000 % 60,
        ms_of_day % 1000,
    );
    format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{milli:03}Z")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn file_sizes_read_as_the_document_formats_them() {
        assert_eq!(format_file_size(0), "0 B");
        assert_eq!(format_file_size(1023), "1023 B");
        assert_eq!(format_file_size(1024), "1.0 KB");
        assert_eq!(format_file_size(1536), "1.5 KB");
        assert_eq!(format_file_size(10 * 1024 * 1024), "10.0 MB");
        assert_eq!(format_file_size(15_728_640), "15.0 MB");
        assert_eq!(format_file_size(3 * 1024 * 1024 * 1024), "3.00 GB");
    }

    #[test]
    fn line_filter_follows_the_document() {
        // 10 lines, no range, max 1000: everything.
        assert_eq!(
            apply_line_filter(10, None, None, 1000),
            LineFilter {
                first_index: 0,
                count: 10,
                start: 1,
                end: 10,
                truncated: false
            }
        );
        // Lines 3..=5.
        assert_eq!(
            apply_line_filter(10, Some(3), Some(5), 1000),
            LineFilter {
                first_index: 2,
                count: 3,
                start: 3,
                end: 5,
                truncated: false
            }
        );
        // Truncated to 4 lines from 3: end becomes 6.
        assert_eq!(
            apply_line_filter(10, Some(3), None, 4),
            LineFilter {
                first_index: 2,
                count: 4,
                start: 3,
                end: 6,
                truncated: true
            }
        );
        // Start past the end: nothing, start = end = start.
        assert_eq!(
            apply_line_filter(10, Some(12), None, 1000),
            LineFilter {
                first_index: 0,
                count: 0,
                start: 12,
                end: 12,
                truncated: false
            }
        );
        // end_line past the end is clamped.
        assert_eq!(apply_line_filter(10, Some(8), Some(50), 1000).end, 10);
    }

    #[test]
    fn numbers_are_padded_to_the_last_shown_number() {
        let lines: Vec<String> = (1..=12).map(|n| format!("line {n}")).collect();
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        let output = format_output(&refs[7..], 8, true);
        assert_eq!(
            output,
            " 8 | line 8\n 9 | line 9\n10 | line 10\n11 | line 11\n12 | line 12"
        );
        assert_eq!(format_output(&["a", ""], 1, true), "1 | a\n2 |");
        assert_eq!(format_output(&["a", "b"], 1, false), "a\nb");
        assert_eq!(format_output(&[], 1, true), "");
    }

    #[test]
    fn validation_codes() {
        let codes = |args: Value| -> Vec<(&'static str, &'static str)> {
            validate(&args)
                .iter()
                .map(|e| (e.parameter_name, e.code))
                .collect()
        };
        assert_eq!(codes(json!({})), [("path", "REQUIRED")]);
        assert_eq!(codes(json!({"path": "  "})), [("path", "REQUIRED")]);
        assert_eq!(
            codes(json!({"path": "a", "start_line": 0})),
            [("start_line", "INVALID_RANGE")]
        );
        assert_eq!(
            codes(json!({"path": "a", "start_line": 5, "end_line": 3})),
            [("end_line", "INVALID_RANGE")]
        );
        assert_eq!(
            codes(json!({"path": "a", "end_line": 0})),
            [("end_line", "INVALID_RANGE")]
        );
        assert_eq!(
            codes(json!({"path": "a", "max_lines": 0})),
            [("max_lines", "INVALID_RANGE")]
        );
        assert_eq!(
            codes(json!({"path": "a", "max_lines": "9"})),
            [("max_lines", "INVALID_TYPE")]
        );
        assert!(codes(json!({"path": "a", "start_line": 2, "end_line": 2})).is_empty());
    }

    #[test]
    fn summaries() {
        assert_eq!(
            execution_summary(&json!({"path": "src/a.rs"})),
            "Read file 'src/a.rs'"
        );
        assert_eq!(
            execution_summary(&json!({"path": "a", "start_line": 3})),
            "Read 'a' from line 3"
        );
        assert_eq!(
            execution_summary(&json!({"path": "a", "start_line": 3, "end_line": 9})),
            "Read 'a' lines 3-9"
        );
        let long = format!("{}/end.rs", "d".repeat(50));
        let summary = execution_summary(&json!({ "path": long }));
        assert_eq!(
            summary,
            format!("Read file '...{}'", &long[long.len() - 37..])
        );
        assert_eq!(execution_summary(&json!({})), "Read file 'unknown'");
    }

    #[test]
    fn timestamps() {
        assert_eq!(iso8601_utc(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601_utc(1_700_000_000_987), "2023-11-14T22:13:20.987Z");
        assert_eq!(iso8601_utc(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(iso8601_utc(-1), "1969-12-31T23:59:59.999Z");
    }
}
