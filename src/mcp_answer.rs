//! `agent-read-file mcp`'s answer to a plain `read_file` call, made here as one JSON-RPC
//! line: the response the MCP SDK's server writes for the toolkit's tool result
//! (`adapters/mcp-core.js`): `{ result: { content: [text], structuredContent: output },
//! jsonrpc, id }`, keys in that order (`structuredContent` only when the server sends it),
//! the text rendered by the engine (`model_text`). Only the line becomes a JavaScript
//! string, never the text or an object: rendering and serialising the answer in JavaScript
//! cost more than the read.

mod json;

use napi::bindgen_prelude::Either;
use napi_derive::napi;

use agent_read_file_engine::ReadFileOutput;
use agent_read_file_engine::model_text::{self, TextOptions};

use crate::convert::safe_integer;
use crate::model_text::counting_number;
use json::Object;

/// The most bytes of a window's text `structuredContent` repeats: a longer window's text is
/// sent once, in the result's text item, and left out of `structuredContent` (its output
/// schema does not require it). The text item is what the model is given; a program that
/// pages with `structuredContent` gets every window of up to 16 KiB whole.
#[napi]
pub const MCP_STRUCTURED_CONTENT_BYTES: u32 = 16 * 1024;

/// What the answer depends on besides the window: what the model's text depends on, as
/// `runToolCall` has it (the toolkit's `lineNumbers`, and the call's `start_line` and
/// `start_column` when they are numbers), whether the server sends the output as
/// `structuredContent` too, and whether the request is in MCP's stateless revision
/// (2026-07-28), whose results say `resultType: "complete"`.
#[napi(object)]
pub struct McpAnswerOptions {
    pub line_numbers: bool,
    pub start_line: Option<f64>,
    pub start_column: Option<f64>,
    pub structured_content: bool,
    pub stateless: Option<bool>,
}

/// How a call's window is answered: the request's id, the text's options, and whether the
/// output goes as `structuredContent` too. `None` in `id` or `text`: not answered here (an
/// id or a number the bytes would not spell as `JSON.stringify` does); the caller answers
/// the call its own way.
pub(crate) struct McpAnswer {
    id: Option<Id>,
    text: Option<TextOptions>,
    structured_content: bool,
    stateless: bool,
}

/// A JSON-RPC request id: a string or an integer.
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
            stateless: options.stateless.unwrap_or(false),
        }
    }

    /// The response line for `output`, or `None` when this window is not answered here: the
    /// request's numbers are not spelt the same here.
    pub(crate) fn encode(&self, output: &ReadFileOutput) -> Option<String> {
        let (id, options) = (self.id.as_ref()?, self.text?);
        // The text makes room for itself as it is rendered; `structuredContent` may repeat
        // the window.
        let repeated = if self.structured_content && repeats_content(output) {
            output.content.as_str().len()
        } else {
            0
        };
        let mut line = String::with_capacity(repeated + 512);
        write_response(&mut line, output, options, self, id).ok()?;
        line.push('\n');
        Some(line)
    }
}

/// `{ result: { content: [text], structuredContent: output, resultType }, jsonrpc, id }`,
/// keys in that order, the text rendered from `output` with `options` straight into the line,
/// `structuredContent` only when the answer's `structured_content`, `resultType` only when
/// it is `stateless`.
fn write_response(
    line: &mut String,
    output: &ReadFileOutput,
    options: TextOptions,
    answer: &McpAnswer,
    id: &Id,
) -> serde_json::Result<()> {
    let mut response = Object::new(line);
    {
        let mut result = response.object("result");
        result
            .one_object_array("content")
            .string("type", "text")
            .string_from("text", |text| {
                model_text::render_read_into(&output.into(), options, text)
            });
        if answer.structured_content {
            write_structured_output(&mut result.object("structuredContent"), output)?;
        }
        if answer.stateless {
            result.string("resultType", "complete");
        }
    }
    response.string("jsonrpc", "2.0");
    match id {
        Id::Text(text) => response.string("id", text),
        Id::Number(number) => response.integer("id", *number),
    };
    Ok(())
}

/// Whether `structuredContent` repeats `output`'s text: when it is at most
/// [`MCP_STRUCTURED_CONTENT_BYTES`].
fn repeats_content(output: &ReadFileOutput) -> bool {
    output.content.as_str().len() <= MCP_STRUCTURED_CONTENT_BYTES as usize
}

/// The toolkit's `ReadFileOutput` as its serde implementation has it (written here by hand,
/// for the speed of the escapes; `mcp-answer.test.mjs` holds the two equal byte for byte): the
/// specification's keys (`content` only when [`repeats_content`]), then the `note` or else
/// the `continuation` and `cut_line_bytes` when there is one.
fn write_structured_output(object: &mut Object, output: &ReadFileOutput) -> serde_json::Result<()> {
    object.string("path", &output.path);
    if repeats_content(output) {
        object.string("content", output.content.as_str());
    }
    object
        .value("truncated", &output.truncated)?
        .value("next_start_line", &output.next_start_line)?
        .value("meta", &output.meta)?;
    match (output.note, output.continuation) {
        (Some(note), _) => {
            object.string("note", note);
        }
        (None, Some(continuation)) => {
            object.value("continuation", &continuation)?;
            if let Some(bytes) = continuation.line_bytes {
                object.value("cut_line_bytes", &bytes)?;
            }
        }
        (None, None) => {}
    }
    Ok(())
}
