'use strict'
// `agent-read-file/ai` for CommonJS: `ai` is an ES module, which `require` loads on Node
// 20.19+ and Bun. The package root never loads it.

const { jsonSchema, tool } = require('ai')
const { aiAdapter } = require('./ai-core.js')

module.exports = aiAdapter({ jsonSchema, tool })
