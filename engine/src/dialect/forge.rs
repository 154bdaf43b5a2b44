//! Forge's `Read` tool: `path`, an inclusive `start_line`..`end_line` range or `limit`, or
//! `head`/`tail`; lines numbered `{n:>6}\t{text}` unless `show_line_numbers` is false;
//! binary files answered as base64. `max_file_read_bytes` bounds the bytes of file content
//! returned (the view is cut on a line boundary and marked truncated); `max_scan_bytes`
//! bounds the bytes read to find lines: a larger file can still be read by `head`, and by
//! `tail`, which reads backwards from its end.

use base64::Engine;
use serde::{Deserialize, Serialize};

use super::{DialectCall, byte_limit, config};
use crate::error::{ErrorCode, ReadFileError};
use crate::file_guard::{FileBytes, Span};
use crate::render::{LineNumbers, Rendering, cut_at_char_boundary, render};
use crate::sandbox::Root;
use crate::source::Reader;
use crate::window::{LineRange, count_lines, decode, select_lines, strip_bom};

/// The tool's name and the aliases a toolkit may call it by.
pub const NAMES: [&str; 5] = ["Read", "read", "read_file", "read-file", "ReadFile"];

#[derive(Debug, Deserialize)]
struct ForgeArgs {
    path: String,
    start_line: Option<u64>,
    end_line: Option<u64>,
    limit: Option<u64>,
    head: Option<u64>,
    tail: Option<u64>,
    show_line_numbers: Option<bool>,
}

/// `[tools.read_file]` of Forge's configuration. Byte limits are at most
/// [`super::MAX_CONFIG_BYTES`].
#[derive(Debug, Deserialize)]
#[serde(default)]
struct ForgeConfig {
    max_file_read_bytes: u64,
    max_scan_bytes: u64,
    show_line_numbers: bool,
}

impl Default for ForgeConfig {
    fn default() -> Self {
        ForgeConfig {
            max_file_read_bytes: 204_800,
            max_scan_bytes: 2_097_152,
            show_line_numbers: true,
        }
    }
}

/// Forge's answer: the text read, or a binary file's bytes as base64.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Answer {
    Text(TextAnswer),
    Binary(BinaryAnswer),
}

/// A text file's selected lines. Line numbers are `None` where unknown (a partial tail).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TextAnswer {
    pub path: String,
    /// Always `false`.
    pub binary: bool,
    pub content: String,
    pub start_line: Option<u64>,
    pub end_line: Option<u64>,
    pub total_lines: Option<u64>,
    pub truncated: bool,
}

/// A binary file's first bytes, base64-encoded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BinaryAnswer {
    pub path: String,
    /// Always `true`.
    pub binary: bool,
    pub base64: String,
    pub offset: u64,
    pub byte_length: u64,
    pub truncated: bool,
}

/// Runs one call beneath `root`, reading through `reader`; failures are errors with the
/// contract's codes.
pub fn execute(
    root: Result<&Root, ReadFileError>,
    call: &DialectCall,
    reader: &Reader,
) -> Result<Answer, ReadFileError> {
    let args: ForgeArgs = call.args.parse().map_err(|err| {
        ReadFileError::new(
            ErrorCode::InvalidArgument,
            "path",
            format!("invalid arguments: {err}"),
        )
    })?;
    let invalid =
        |reason: String| ReadFileError::new(ErrorCode::InvalidArgument, &args.path, reason);
    let config: ForgeConfig =
        config(&call.config).map_err(|err| invalid(format!("invalid configuration: {err}")))?;
    byte_limit("max_file_read_bytes", config.max_file_read_bytes)
        .and_then(|_| byte_limit("max_scan_bytes", config.max_scan_bytes))
        .map_err(|reason| invalid(format!("invalid configuration: {reason}")))?;
    let selection = selection(&args).map_err(|reason| invalid(reason.into()))?;
    let root = root?;
    let span = match selection {
        LineRange::Head(_) => Span::Head {
            max: config.max_scan_bytes,
        },
        LineRange::Tail(_) => Span::Tail {
            max: config.max_scan_bytes,
        },
        LineRange::Lines { .. } => Span::Whole {
            max: config.max_scan_bytes,
        },
    };
    let (path, file) = reader
        .read(root, &args.path, span)
        .map_err(|err| scan_hint(err, &config))?;
    if file.binary {
        return Ok(Answer::Binary(binary_answer(
            path,
            &file,
            config.max_file_read_bytes,
        )));
    }
    let numbers = args.show_line_numbers.unwrap_or(config.show_line_numbers);
    Ok(Answer::Text(text_answer(
        path,
        &file,
        selection,
        numbers,
        config.max_file_read_bytes,
    )))
}

fn selection(args: &ForgeArgs) -> Result<LineRange, &'static str> {
    let ranged = args.start_line.is_some() || args.end_line.is_some() || args.limit.is_some();
    let positive = |value: Option<u64>, message| match value {
        Some(0) => Err(message),
        _ => Ok(()),
    };
    positive(args.start_line, "start_line must be at least 1")?;
    positive(args.end_line, "end_line must be at least 1")?;
    positive(args.limit, "limit must be at least 1")?;
    positive(args.head, "head must be at least 1")?;
    positive(args.tail, "tail must be at least 1")?;
    match (args.head, args.tail) {
        (Some(_), Some(_)) => Err("head and tail are mutually exclusive"),
        (Some(_), None) | (None, Some(_)) if ranged => {
            Err("head/tail cannot be combined with start_line, end_line or limit")
        }
        (Some(n), None) => Ok(LineRange::Head(n)),
        (None, Some(n)) => Ok(LineRange::Tail(n)),
        (None, None) => {
            let start = args.start_line.unwrap_or(1);
            if args.end_line.is_some_and(|end| end < start) {
                return Err("end_line must be greater than or equal to start_line");
            }
            let by_limit = args.limit.map(|limit| start.saturating_add(limit - 1));
            let end = match (args.end_line, by_limit) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            Ok(LineRange::Lines { start, end })
        }
    }
}

/// A file over `max_scan_bytes` read as a range: say how it can be read.
fn scan_hint(err: ReadFileError, config: &ForgeConfig) -> ReadFileError {
    if err.code != ErrorCode::SizeLimitExceeded {
        return err;
    }
    let reason = format!(
        "{}; max_scan_bytes is {}: read its start with head or its end with tail",
        err.reason, config.max_scan_bytes
    );
    ReadFileError { reason, ..err }
}

fn binary_answer(path: String, file: &FileBytes, max_bytes: u64) -> BinaryAnswer {
    let shown = &file.bytes[..file.bytes.len().min(max_bytes as usize)];
    BinaryAnswer {
        path,
        binary: true,
        base64: base64::engine::general_purpose::STANDARD.encode(shown),
        offset: file.offset,
        byte_length: file.file_len,
        truncated: (shown.len() as u64) < file.file_len,
    }
}

fn text_answer(
    path: String,
    file: &FileBytes,
    selection: LineRange,
    numbers: bool,
    max_bytes: u64,
) -> TextAnswer {
    let (text, first_line_known) = visible_text(file);
    let total_lines = file.is_whole().then(|| count_lines(&text));
    let (first, chosen) = select_lines(&text, selection);
    let (shown, truncated) = within_budget(chosen, max_bytes as usize);
    let first_number = first_line_known.then_some(first);
    let rendering = Rendering {
        numbers: match (numbers, first_number) {
            (true, Some(_)) => LineNumbers::Tabbed,
            _ => LineNumbers::None,
        },
        max_line_bytes: None,
    };
    let content = render(&shown, first_number.unwrap_or(1) as usize, rendering);
    let end_line = first_number
        .filter(|_| !shown.is_empty())
        .map(|first| first + shown.len() as u64 - 1);
    TextAnswer {
        path,
        binary: false,
        content,
        start_line: first_number.filter(|_| !shown.is_empty()),
        end_line,
        total_lines,
        truncated,
    }
}

/// The file's text, and whether its first line is the file's line 1. A tail that starts
/// mid-file drops its first, partial line.
fn visible_text(file: &FileBytes) -> (String, bool) {
    if file.offset == 0 {
        return (decode(strip_bom(&file.bytes)).into_owned(), true);
    }
    let after_break = memchr::memchr(b'\n', &file.bytes).map_or(file.bytes.len(), |at| at + 1);
    (decode(&file.bytes[after_break..]).into_owned(), false)
}

/// The leading lines whose bytes (with their line breaks) fit in `max_bytes`, and whether
/// any were left out. A first line longer than the budget is cut on a char boundary so
/// the view is never empty for a non-empty selection.
fn within_budget(lines: Vec<&str>, max_bytes: usize) -> (Vec<&str>, bool) {
    let mut used = 0;
    let mut shown = Vec::with_capacity(lines.len());
    for line in &lines {
        let cost = line.len() + 1;
        if used + cost > max_bytes {
            if shown.is_empty() {
                shown.push(cut_at_char_boundary(line, max_bytes));
            }
            return (shown, true);
        }
        used += cost;
        shown.push(*line);
    }
    (shown, false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attempt::Access;
    use serde_json::{Value, json};

    fn args(json: &str) -> ForgeArgs {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn head_and_tail_exclude_ranges_and_each_other() {
        for bad in [
            r#"{"path":"a","head":1,"tail":1}"#,
            r#"{"path":"a","head":1,"start_line":2}"#,
            r#"{"path":"a","tail":1,"limit":2}"#,
            r#"{"path":"a","tail":1,"end_line":2}"#,
        ] {
            assert!(selection(&args(bad)).is_err(), "{bad}");
        }
        assert_eq!(
            selection(&args(r#"{"path":"a","head":3}"#)),
            Ok(LineRange::Head(3))
        );
    }

    #[test]
    fn ranges_combine_end_line_and_limit() {
        let range = |json| selection(&args(json));
        assert_eq!(
            range(r#"{"path":"a","start_line":5,"end_line":20,"limit":3}"#),
            Ok(LineRange::Lines {
                start: 5,
                end: Some(7)
            })
        );
        assert_eq!(
            range(r#"{"path":"a","end_line":4}"#),
            Ok(LineRange::Lines {
                start: 1,
                end: Some(4)
            })
        );
        assert!(range(r#"{"path":"a","start_line":5,"end_line":4}"#).is_err());
        assert!(range(r#"{"path":"a","start_line":0}"#).is_err());
    }

    fn forge(dir: &std::path::Path, args: Value, config: &str) -> Result<Answer, ReadFileError> {
        let root = Root::open(dir.to_str().unwrap()).unwrap();
        let call = DialectCall {
            args: crate::dialect::Args::Value(args),
            config: Ok(serde_json::from_str(config).unwrap()),
        };
        execute(Ok(&root), &call, &Reader::new(Access::MayWait))
    }

    #[test]
    fn byte_limits_past_the_bound_are_invalid_arguments() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
        for name in ["max_file_read_bytes", "max_scan_bytes"] {
            let config = format!(r#"{{"{name}": 18446744073709551615}}"#);
            let err = forge(dir.path(), json!({"path": "a.txt"}), &config).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidArgument);
            assert!(
                err.reason.contains(&format!("{name} must be at most")),
                "{err}"
            );
        }
    }

    #[test]
    fn head_and_tail_of_a_sparse_8_gib_file_read_only_what_they_may() {
        let dir = tempfile::tempdir().unwrap();
        let sparse = std::fs::File::create(dir.path().join("sparse")).unwrap();
        sparse.set_len(8 << 30).unwrap();
        let started = std::time::Instant::now();
        let config = r#"{"max_scan_bytes": 16777216, "max_file_read_bytes": 4096}"#;
        for args in [
            json!({"path": "sparse", "head": 1}),
            json!({"path": "sparse", "tail": 1}),
        ] {
            let Ok(Answer::Binary(answer)) = forge(dir.path(), args, config) else {
                panic!("not a binary answer");
            };
            assert_eq!(answer.base64.len(), 4096 / 3 * 4 + 4);
            assert_eq!(answer.byte_length, 8u64 << 30);
        }
        // 16 MiB read twice from a sparse file; seconds would mean gigabytes were touched.
        assert!(started.elapsed().as_secs() < 10, "{:?}", started.elapsed());
    }

    #[test]
    fn the_byte_budget_cuts_on_a_line_boundary() {
        assert_eq!(
            within_budget(vec!["ab", "cd", "ef"], 6),
            (vec!["ab", "cd"], true)
        );
        assert_eq!(
            within_budget(vec!["ab", "cd"], 6),
            (vec!["ab", "cd"], false)
        );
        assert_eq!(within_budget(vec!["abcdef"], 3), (vec!["abc"], true));
    }
}
