'use strict'
// `agent-read-file/anthropic`: the read_file tool for Anthropic's Messages API. A plain
// object: this module does not load the `@anthropic-ai/sdk` package.

const { DEFINITION, parameters } = require('./schemas.js')
const { runToolCall } = require('../index.js')

/** `{ name, description, input_schema }`, as the Messages API's `tools` take it. */
function anthropicTool() {
  return { name: DEFINITION.name, description: DEFINITION.description, input_schema: parameters() }
}

/** A Messages API content block of a model part: text, or a base64 image. */
function contentBlock(part) {
  if (part.type === 'text') return { type: 'text', text: part.text }
  return { type: 'image', source: { type: 'base64', media_type: part.mimeType, data: part.data } }
}

/**
 * The `tool_result` block that answers tool use `toolUseId` with `result` (`runToolCall`'s):
 * its text, and an image, a notebook's plots or a PDF's text as blocks; `is_error` on failure.
 */
function anthropicToolResult(toolUseId, result) {
  if (result.isError) return { type: 'tool_result', tool_use_id: toolUseId, content: result.content, is_error: true }
  return { type: 'tool_result', tool_use_id: toolUseId, content: result.parts.map(contentBlock) }
}

module.exports = { anthropicTool, anthropicToolResult, runToolCall }
