//! `agent-read-file mcp`'s answer to a plain `read_file` call, made here as the bytes of one
//! JSON-RPC line: the response the MCP SDK's server writes for the toolkit's tool result
//! (`adapters/mcp-core.js`): `{ result: { content: [text], structuredContent: output },
//! jsonrpc, id }`, keys in that order (`structuredContent` only when the server sends it),
//! the text rendered by the engine (`model_text`). The answer never becomes a JavaScript
//! string or object: rendering and serialising it in JavaScript cost more than the read.

use napi::bindgen_prelude::Either;
use napi_derive::napi;
use serde::Serialize;

use agent_read_file_engine::model_text::{self, TextOptions};
use agent_read_file_engine::{Continuation, ReadFileMeta, ReadFileOutput};

use crate::convert::safe_integer;

/// What the answer depends on besides the window: what the model's text depends on, as
/// `runToolCall` has it (the toolkit's `lineNumbers`, and the call's `start_line` and
/// `start_column` when they are numbers), and whether the server sends the output as
/// `structuredContent` too.
#[napi(object)]
pub struct McpAnswerOptions {
    pub line_numbers: bool,
    pub start_line: Option<f64>,
    pub start_column: Option<f64>,
    pub structured_content: bool,
}

/// How a call's window is answered: the request's id, the text's options, and whether the
/// output goes as `structuredContent` too. `None` in `id` or `text`: not answered here (an
/// id or a number the bytes would not spell as `JSON.stringify` does); the caller answers
/// the call its own way.
pub(crate) struct McpAnswer {
    id: Option<Id>,
    text: Option<TextOptions>,
    structured_content: bool,
}

/// A JSON-RPC request id: a string or an integer.
#[derive(Serialize)]
#[serde(untagged)]
enum Id {
    Text(String),
    Number(i64),
}

impl McpAnswer {
    /// The answer to the request `id` that `options` describe.
    pub(crate) fn new(id: Either<String, f64>, options: McpAnswerOptions) -> McpAnswer {
        let id = match id {
            Either::A(text) => Some(Id::Text(text)),
            Either::B(number) => safe_integer(number).map(Id::Number),
        };
        let start_line = options.start_line.map(counting_number);
        let start_column = options.start_column.map(counting_number);
        let text = match (start_line, start_column) {
            (Some(None), _) | (_, Some(None)) => None,
            (start_line, start_column) => Some(TextOptions {
                line_numbers: options.line_numbers,
                start_line: start_line.flatten(),
                start_column: start_column.flatten(),
            }),
        };
        McpAnswer {
            id,
            text,
            structured_content: options.structured_content,
        }
    }

    /// The response line for `output`, or `None` when this window is not answered here: it
    /// may be a PDF or a notebook (the toolkit's `view` answers those as media), or the
    /// request's numbers are not spelt the same here.
    pub(crate) fn encode(&self, output: &ReadFileOutput) -> Option<Vec<u8>> {
        let (id, options) = (self.id.as_ref()?, self.text?);
        if model_text::may_be_media(output) {
            return None;
        }
        let text = model_text::render_read(output, options);
        let structured = self
            .structured_content
            .then(|| StructuredOutput::of(output));
        let size = text.len() + structured.as_ref().map_or(0, |typed| typed.content.len()) + 512;
        let response = Response {
            result: ToolResult {
                content: [TextContent {
                    kind: "text",
                    text: &text,
                }],
                structured_content: structured,
            },
            jsonrpc: "2.0",
            id,
        };
        let mut bytes = Vec::with_capacity(size);
        serde_json::to_writer(&mut bytes, &response).ok()?;
        bytes.push(b'\n');
        Some(bytes)
    }
}

/// A `start_line` or `start_column` as the text names it: `Some` of a non-negative safe
/// integer (which `JSON.stringify` writes in digits), `None` for any other (a read with it
/// fails, or it is not spelt here).
fn counting_number(number: f64) -> Option<u64> {
    safe_integer(number).and_then(|number| u64::try_from(number).ok())
}

#[derive(Serialize)]
struct Response<'a> {
    result: ToolResult<'a>,
    jsonrpc: &'static str,
    id: &'a Id,
}

#[derive(Serialize)]
struct ToolResult<'a> {
    content: [TextContent<'a>; 1],
    #[serde(rename = "structuredContent", skip_serializing_if = "Option::is_none")]
    structured_content: Option<StructuredOutput<'a>>,
}

#[derive(Serialize)]
struct TextContent<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
}

/// The toolkit's `ReadFileOutput` as `src/output/read-file-output.js` makes it: the
/// specification's keys, then the `note` or else the `continuation` when there is one.
#[derive(Serialize)]
struct StructuredOutput<'a> {
    path: &'a str,
    content: &'a str,
    truncated: bool,
    next_start_line: Option<u64>,
    meta: ReadFileMeta,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    continuation: Option<Continuation>,
}

impl<'a> StructuredOutput<'a> {
    fn of(output: &'a ReadFileOutput) -> StructuredOutput<'a> {
        StructuredOutput {
            path: &output.path,
            content: output.content.as_str(),
            truncated: output.truncated,
            next_start_line: output.next_start_line,
            meta: output.meta,
            note: output.note,
            continuation: output.continuation.filter(|_| output.note.is_none()),
        }
    }
}
