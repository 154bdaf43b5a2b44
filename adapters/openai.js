'use strict'
// `agent-read-file/openai`: the read_file tool for OpenAI's Chat Completions and Responses
// APIs. Plain objects: this module does not load the `openai` package.

const { DEFINITION, parameters, strictParameters } = require('./schemas.js')
const { runToolCall } = require('../index.js')

/** The parameters schema for `strict` or not. */
function schema(strict) {
  return strict ? strictParameters() : parameters()
}

/** A Chat Completions tool: `{ type: 'function', function: { name, description, parameters } }`. */
function openaiTool({ strict = false } = {}) {
  const definition = { name: DEFINITION.name, description: DEFINITION.description, parameters: schema(strict) }
  if (strict) definition.strict = true
  return { type: 'function', function: definition }
}

/** A Responses API function tool: `{ type: 'function', name, description, parameters, strict }`. */
function openaiResponsesTool({ strict = false } = {}) {
  const { name, description } = DEFINITION
  return { type: 'function', name, description, parameters: schema(strict), strict }
}

/** The image parts of `result` (`runToolCall`'s): none for a failure. */
function imagesOf(result) {
  return result.isError ? [] : result.parts.filter((part) => part.type === 'image')
}

/** A data URL of an image part. */
function dataUrl(part) {
  return `data:${part.mimeType};base64,${part.data}`
}

/**
 * The Responses API input item that answers function call `callId` with `result`
 * (`runToolCall`'s): `function_call_output` whose `output` is the text, or, when the answer
 * has images, a list of `input_text` and `input_image` items (the images as data URLs).
 */
function openaiResponsesOutput(callId, result) {
  const images = imagesOf(result)
  if (images.length === 0) return { type: 'function_call_output', call_id: callId, output: result.content }
  const output = result.parts.map((part) =>
    part.type === 'text' ? { type: 'input_text', text: part.text } : { type: 'input_image', image_url: dataUrl(part), detail: 'auto' },
  )
  return { type: 'function_call_output', call_id: callId, output }
}

/**
 * The Chat Completions messages that answer tool call `toolCallId` with `result`: the `tool`
 * message with the text (a tool message carries text only, each image named in brackets), and,
 * when the answer has images, a `user` message after it that carries them as `image_url` parts.
 */
function openaiChatMessages(toolCallId, result) {
  const messages = [{ role: 'tool', tool_call_id: toolCallId, content: result.content }]
  const images = imagesOf(result)
  if (images.length > 0) {
    const intro = `The image${images.length === 1 ? '' : 's'} of the read_file result above:`
    messages.push({ role: 'user', content: imageParts(intro, images) })
  }
  return messages
}

/**
 * The Chat Completions messages that answer one assistant turn's tool calls, `answers` in the
 * order of its `tool_calls`: every `tool` message first (the API wants them right after the
 * assistant message), then one `user` message with the images of all of them, each result's
 * introduced by its call's id.
 */
function openaiChatTurn(answers) {
  const messages = answers.map(({ toolCallId, result }) => ({ role: 'tool', tool_call_id: toolCallId, content: result.content }))
  const content = answers.flatMap(({ toolCallId, result }) => {
    const images = imagesOf(result)
    if (images.length === 0) return []
    return imageParts(`The image${images.length === 1 ? '' : 's'} of the read_file result of call ${toolCallId}:`, images)
  })
  if (content.length > 0) messages.push({ role: 'user', content })
  return messages
}

/** `intro` as a text part, then `images` as `image_url` parts. */
function imageParts(intro, images) {
  return [{ type: 'text', text: intro }, ...images.map((part) => ({ type: 'image_url', image_url: { url: dataUrl(part) } }))]
}

module.exports = { openaiTool, openaiResponsesTool, openaiResponsesOutput, openaiChatMessages, openaiChatTurn, runToolCall }
