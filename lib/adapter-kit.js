'use strict'
// What the adapters (adapters/) build on, and all they take of lib/: a toolkit's model reads
// and their results, the text of failures and media answers, the options' readers and the
// errors. Anything else in lib/ may change without an adapter noticing.

const { runToolCall, readForModel, toolFailure, failureOf, mediaAnswer, settingsOf, numberOf, withNumbers } = require('./run-tool-call.js')
const { renderFailure, isMedia, withoutImageData } = require('./model-text.js')
const { readOption, booleanOption } = require('./options.js')
const { errorWithCode } = require('./errors.js')
const { renderRead, MCP_STRUCTURED_CONTENT_BYTES } = require('./native.js')

module.exports = {
  // A model's call and its result (run-tool-call.js).
  runToolCall,
  readForModel,
  toolFailure,
  failureOf,
  mediaAnswer,
  settingsOf,
  numberOf,
  withNumbers,
  // What a model is given (model-text.js, and the engine's renderer).
  renderFailure,
  renderRead,
  isMedia,
  withoutImageData,
  MCP_STRUCTURED_CONTENT_BYTES,
  // Options and errors.
  readOption,
  booleanOption,
  errorWithCode,
}
