'use strict'
// The read_file tool for the Vercel AI SDK (`ai` >= 5), written once for both module
// systems: `ai.mjs` imports `ai`, `ai.js` requires it (Node 20.19+ and Bun load an ES module
// by `require`), and each hands the SDK's `tool` and `jsonSchema` in.

const { TOOLKIT_DEFINITIONS } = require('../index.js')
const { toolkitOf } = require('./toolkit.js')
const { toolFailure } = require('../tool-call.js')
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
  const { code, message } = toolFailure(thrown)
  if (code === 'ABORT_ERR') return thrown
  const own = thrown instanceof Error && Object.isExtensible(thrown) && thrown.message === message
  const error = own ? thrown : errorWithCode(code, message, { cause: thrown })
  Object.defineProperty(error, 'toString', { value: () => message, configurable: true, writable: true })
  return error
}

/** `readFileTool` over the SDK's `tool` and `jsonSchema` given. */
function aiAdapter({ jsonSchema, tool }) {
  /**
   * The read_file tool for `generateText`/`streamText`: the toolkit definition's description
   * and input schema (`start_column` included), `execute` through the toolkit, the SDK's abort
   * signal passed on. A failed read is a tool error: the model reads `CODE: path: reason`, the
   * application finds the `code` on the error.
   */
  function readFileTool(toolkitOrOptions) {
    const { toolkit } = toolkitOf(toolkitOrOptions)
    const { description, parameters } = TOOLKIT_DEFINITIONS.read_file
    return tool({
      description,
      inputSchema: jsonSchema(structuredClone(parameters)),
      execute: async (input, { abortSignal } = {}) => {
        try {
          return await toolkit.readFile(input, { signal: abortSignal })
        } catch (error) {
          throw toolError(error)
        }
      },
    })
  }

  return { readFileTool }
}

module.exports = { aiAdapter }
