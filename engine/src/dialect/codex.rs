//! Codex's `read_file`: `file_path` (absolute), `offset`, `limit`, `mode` slice or
//! indentation. Lines are shown as `L{n}: {text}`, each cut to 500 bytes on a char
//! boundary; failures are answered as `{ success: false, content: message }`, never thrown.

use serde::{Deserialize, Serialize};

use super::codex_indentation::{IndentationOptions, indentation_block};
use super::{DialectCall, byte_limit, config};
use crate::error::ReadFileError;
use crate::file_guard::Span;
use crate::render::{LineNumbers, Rendering, render, render_numbered};
use crate::sandbox::Root;
use crate::source::Reader;
use crate::window::{LineRange, decode, lines_without_terminators, select_lines};

/// Longest line shown, in bytes.
pub const MAX_LINE_LENGTH: usize = 500;
const DEFAULT_OFFSET: usize = 1;
const DEFAULT_LIMIT: usize = 2000;
const RENDERING: Rendering = Rendering {
    numbers: LineNumbers::Prefixed,
    max_line_bytes: Some(MAX_LINE_LENGTH),
};

/// The tool's arguments, as Codex parses them.
#[derive(Debug, Deserialize)]
struct CodexArgs {
    file_path: String,
    #[serde(default = "default_offset")]
    offset: usize,
    #[serde(default = "default_limit")]
    limit: usize,
    #[serde(default)]
    mode: Mode,
    #[serde(default)]
    indentation: Option<IndentationArgs>,
}

fn default_offset() -> usize {
    DEFAULT_OFFSET
}

fn default_limit() -> usize {
    DEFAULT_LIMIT
}

#[derive(Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum Mode {
    #[default]
    Slice,
    Indentation,
}

#[derive(Debug, Default, Deserialize)]
struct IndentationArgs {
    anchor_line: Option<usize>,
    #[serde(default)]
    max_levels: usize,
    #[serde(default = "yes")]
    include_siblings: bool,
    #[serde(default = "yes")]
    include_header: bool,
    max_lines: Option<usize>,
}

fn yes() -> bool {
    true
}

/// The dialect's configuration (`ctx.config`).
#[derive(Debug, Deserialize)]
#[serde(default)]
struct CodexConfig {
    /// Largest file read, in bytes, at most [`super::MAX_CONFIG_BYTES`]. Codex itself
    /// streams files of any size; a toolkit needs a bound.
    max_file_bytes: u64,
}

impl Default for CodexConfig {
    fn default() -> Self {
        CodexConfig {
            max_file_bytes: 10 * 1024 * 1024,
        }
    }
}

/// Codex's answer: `{ success, content }`, the message in `content` on failure.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Answer {
    pub success: bool,
    pub content: String,
}

/// Runs one call beneath `root`. Never `Err`: Codex answers failures as `success: false`.
pub fn execute(
    root: Result<&Root, ReadFileError>,
    call: &DialectCall,
    reader: &Reader,
) -> Result<Answer, ReadFileError> {
    Ok(match run(root, call, reader) {
        Ok(content) => Answer {
            success: true,
            content,
        },
        Err(content) => Answer {
            success: false,
            content,
        },
    })
}

fn run(
    root: Result<&Root, ReadFileError>,
    call: &DialectCall,
    reader: &Reader,
) -> Result<String, String> {
    let args: CodexArgs = call
        .args
        .parse()
        .map_err(|err| format!("failed to parse function arguments: {err}"))?;
    let config: CodexConfig =
        config(&call.config).map_err(|err| format!("invalid configuration: {err}"))?;
    byte_limit("max_file_bytes", config.max_file_bytes)
        .map_err(|reason| format!("invalid configuration: {reason}"))?;
    if args.offset == 0 {
        return Err("offset must be a 1-indexed line number".into());
    }
    if args.limit == 0 {
        return Err("limit must be greater than zero".into());
    }
    if !std::path::Path::new(&args.file_path).is_absolute() {
        return Err("file_path must be an absolute path".into());
    }
    let text = read_text(root, reader, &args.file_path, config.max_file_bytes)
        .map_err(|err| format!("failed to read file: {}", err.reason))?;
    match args.mode {
        Mode::Slice => Ok(slice(&text, args.offset, args.limit)),
        Mode::Indentation => {
            // Indentation mode looks at every line, as Codex's does.
            let lines: Vec<&str> = lines_without_terminators(&text).collect();
            let indentation = args.indentation.unwrap_or_default();
            let options = IndentationOptions {
                anchor_line: indentation.anchor_line.unwrap_or(args.offset),
                max_levels: indentation.max_levels,
                include_siblings: indentation.include_siblings,
                include_header: indentation.include_header,
                max_lines: indentation.max_lines,
            };
            let numbers = indentation_block(&lines, &options, args.limit)?;
            let shown: Vec<(usize, &str)> = numbers
                .into_iter()
                .filter_map(|n| lines.get(n.wrapping_sub(1)).map(|line| (n, *line)))
                .collect();
            Ok(render_numbered(&shown, RENDERING))
        }
    }
}

fn read_text(
    root: Result<&Root, ReadFileError>,
    reader: &Reader,
    file_path: &str,
    max: u64,
) -> Result<String, ReadFileError> {
    let (_, file) = reader.read(root?, file_path, Span::Whole { max })?;
    Ok(decode(&file.bytes).into_owned())
}

/// Up to `limit` lines from line `offset`; past the end, nothing.
fn slice(text: &str, offset: usize, limit: usize) -> String {
    let range = LineRange::Lines {
        start: offset as u64,
        end: Some((offset as u64).saturating_add(limit as u64 - 1)),
    };
    let (_, shown) = select_lines(text, range);
    render(&shown, offset, RENDERING)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attempt::Access;
    use crate::dialect::Args;
    use serde_json::json;

    #[test]
    fn a_max_file_bytes_past_the_bound_is_a_clear_error_not_an_empty_success() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.txt");
        std::fs::write(&file, "hello\n").unwrap();
        let root = Root::open(dir.path().to_str().unwrap()).unwrap();
        let run = |config: &str| {
            let call = DialectCall {
                args: Args::Json(json!({ "file_path": file }).to_string()),
                config: Ok(serde_json::from_str(config).unwrap()),
            };
            execute(Ok(&root), &call, &Reader::new(Access::MayWait)).unwrap()
        };
        let answer = run(r#"{"max_file_bytes": 18446744073709551615}"#);
        assert!(!answer.success, "{answer:?}");
        assert!(
            answer
                .content
                .contains("max_file_bytes must be at most 536870912"),
            "{answer:?}"
        );
        let at_bound = run(r#"{"max_file_bytes": 536870912}"#);
        assert_eq!(
            serde_json::to_value(at_bound).unwrap(),
            json!({ "success": true, "content": "L1: hello" })
        );
    }
}
