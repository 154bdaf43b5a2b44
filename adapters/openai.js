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

module.exports = { openaiTool, openaiResponsesTool, runToolCall }
