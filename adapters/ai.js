'use strict'
// `agent-read-file/ai` for CommonJS: `ai` is an ES module, which `require` loads on Node
// 20.19+ and Bun. The package root never loads it.

const sdk = require('ai')
const { aiAdapter, majorOf } = require('./ai-core.js')

module.exports = aiAdapter({ jsonSchema: sdk.jsonSchema, tool: sdk.tool, major: majorOf(sdk) })
