'use strict'
// The read_file tool for the Vercel AI SDK (`ai` >= 5), written once for both module
// systems: `ai.mjs` imports `ai`, `ai.js` requires it (Node 20.19+ and Bun load an ES module
// by `require`), and each hands the SDK's `tool` and `jsonSchema` in.

const { TOOLKIT_DEFINITIONS } = require('../index.js')
const { toolkitOf } = require('./toolkit.js')
const { toolFailure, modelTextOf, settingsOf } = require('../tool-call.js')
const { renderFailure, renderRead } = require('../model-text.js')
const { errorWithCode } = require('../errors.js')

/**
 * The error `execute` throws for what `readFile` rejected with. The SDK tells the model a
 * thrown error's text: ai@5 and ai@6 its `message`, ai@7 its `toString()`. Both are made
 * `runToolCall`'s text, `CODE: path: reason`, so every major and every adapter (MCP too) tells
 * the model the same thing. The application gets the toolkit's error itself on the step's
 * `tool-error` part; an error without that message (a caller's toolkit throwing a plain one)
 * comes as a coded error with it as `cause`. An abort goes as it is: the SDK ends the call on
 * it, and no model reads it.
 */
function toolError(thrown) {
  const { code, message: failure } = toolFailure(thrown)
  if (code === 'ABORT_ERR') return thrown
  const message = renderFailure(code, failure)
  const own = thrown instanceof Error && Object.isExtensible(thrown) && thrown.message === message
  const error = own ? thrown : errorWithCode(code, message, { cause: thrown })
  Object.defineProperty(error, 'toString', { value: () => message, configurable: true, writable: true })
  return error
}

/**
 * The output of `toModelOutput`'s argument: ai@5 passes the output itself, ai@6 and later
 * `{ toolCallId, input, output }` (no read's output has a `toolCallId`).
 */
function outputOf(argument) {
  return typeof argument === 'object' && argument !== null && 'toolCallId' in argument ? argument.output : argument
}

/** `readFileTool` over the SDK's `tool` and `jsonSchema` given. */
function aiAdapter({ jsonSchema, tool }) {
  /**
   * The read_file tool for `generateText`/`streamText`: the toolkit definition's description
   * and input schema (`start_column` included), `execute` through the toolkit, the SDK's abort
   * signal passed on. `execute` returns the typed output (the application's tool-result);
   * the model is given the toolkit's text (`toModelOutput`), or the output as JSON with
   * `resultFormat: 'json'`. A failed read is a tool error: the model reads
   * `CODE: path: reason` (and for some codes a line more), the application finds the `code`
   * on the error.
   */
  function readFileTool(toolkitOrOptions) {
    const { toolkit } = toolkitOf(toolkitOrOptions)
    const { description, parameters } = TOOLKIT_DEFINITIONS.read_file
    // The text made when the read ran (it may be the note that the lines were given before),
    // for `toModelOutput`; an output it never saw (one restored from a stored conversation)
    // is rendered anew.
    const texts = new WeakMap()
    const { resultFormat, lineNumbers } = settingsOf(toolkit)
    // JSON: the SDK's own way of giving an output to the model.
    const toModelOutput =
      resultFormat === 'json'
        ? undefined
        : (argument) => {
            const output = outputOf(argument)
            return { type: 'text', value: texts.get(output) ?? renderRead(output, { lineNumbers }) }
          }
    return tool({
      description,
      inputSchema: jsonSchema(structuredClone(parameters)),
      execute: async (input, { abortSignal } = {}) => {
        let output
        try {
          output = await toolkit.readFile(input, { signal: abortSignal })
        } catch (error) {
          throw toolError(error)
        }
        const isObject = typeof output === 'object' && output !== null
        if (toModelOutput !== undefined && isObject) texts.set(output, modelTextOf(toolkit, input, output))
        return output
      },
      toModelOutput,
    })
  }

  return { readFileTool }
}

module.exports = { aiAdapter }
