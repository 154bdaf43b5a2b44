'use strict'
// `agent-read-file/anthropic`: the read_file tool for Anthropic's Messages API. A plain
// object: this module does not load the `@anthropic-ai/sdk` package.

const { DEFINITION, parameters } = require('./schemas.js')
const { runToolCall } = require('../index.js')

/** `{ name, description, input_schema }`, as the Messages API's `tools` take it. */
function anthropicTool() {
  return { name: DEFINITION.name, description: DEFINITION.description, input_schema: parameters() }
}

module.exports = { anthropicTool, runToolCall }
