'use strict'
// The read_file tool for the Vercel AI SDK (`ai` >= 5), written once for both module
// systems: `ai.mjs` imports `ai`, `ai.js` requires it (Node 20.19+ and Bun load an ES module
// by `require`), and each hands the SDK's `tool` and `jsonSchema` in.

const { TOOL_DEFINITIONS } = require('../index.js')
const { toolkitOf } = require('./toolkit.js')

/**
 * The SDK tells the model about a thrown error with `error.toString()` (`Error: CODE: …`, no
 * structure); this error says `{"code","message"}` as JSON instead. The application still
 * gets the error itself, `code` and all, in the step's `tool-error` part.
 */
function structured(error) {
  if (error !== null && typeof error === 'object' && typeof error.code === 'string') {
    const said = JSON.stringify({ code: error.code, message: String(error.message) })
    Object.defineProperty(error, 'toString', { value: () => said, configurable: true, writable: true })
  }
  return error
}

/** `readFileTool` over the SDK's `tool` and `jsonSchema` given. */
function aiAdapter({ jsonSchema, tool }) {
  /**
   * The read_file tool for `generateText`/`streamText`: the specification's description and
   * input schema, `execute` through the toolkit, the SDK's abort signal passed on. A failed read
   * is a tool error: the model reads `{"code","message"}`, the application finds the `code` on
   * the error.
   */
  function readFileTool(toolkitOrOptions) {
    const { toolkit } = toolkitOf(toolkitOrOptions)
    const { description, parameters } = TOOL_DEFINITIONS.read_file
    return tool({
      description,
      inputSchema: jsonSchema(structuredClone(parameters)),
      execute: async (input, { abortSignal } = {}) => {
        try {
          return await toolkit.readFile(input, { signal: abortSignal })
        } catch (error) {
          throw structured(error)
        }
      },
    })
  }

  return { readFileTool }
}

module.exports = { aiAdapter }
