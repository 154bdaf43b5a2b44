'use strict'
// The read_file tool for the Vercel AI SDK (`ai` >= 5), written once for both module
// systems: `ai.mjs` imports `ai`, `ai.js` requires it (Node 20.19+ and Bun load an ES module
// by `require`), and each hands the SDK's `tool` and `jsonSchema` in.

const { TOOLKIT_DEFINITIONS } = require('../index.js')
const { toolkitOf } = require('./toolkit.js')
const { toolFailure, readForModel, mediaAnswer, settingsOf, renderFailure, renderRead, isMedia, errorWithCode } = require('../lib/adapter-kit.js')

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

/**
 * The major of the AI SDK whose module namespace is `sdk`, by what it exports: 7 has
 * `uploadFile`, 6 `ToolLoopAgent`, 5 neither. Their tool results take images differently.
 */
function majorOf(sdk) {
  if ('uploadFile' in sdk) return 7
  return 'ToolLoopAgent' in sdk ? 6 : 5
}

/** A tool-result content part of an image for the SDK's `major`. */
function imageContent(part, major) {
  const { data, mimeType: mediaType } = part
  if (major >= 7) return { type: 'file', mediaType, data: { type: 'data', data } }
  return major === 6 ? { type: 'image-data', data, mediaType } : { type: 'media', data, mediaType }
}

/**
 * A media answer as the SDK's `content` tool output: text parts and images (in JSON, the
 * output without its image data, then the images).
 */
function contentOutput(output, major, resultFormat) {
  const value = mediaAnswer(output, resultFormat).parts.map((part) => (part.type === 'text' ? part : imageContent(part, major)))
  return { type: 'content', value }
}

/**
 * `readFileTool` over the SDK's `tool` and `jsonSchema` given; `major` (5, 6 or 7, by
 * `majorOf`; 7 when absent) is how its tool results carry images.
 */
function aiAdapter({ jsonSchema, tool, major = 7 }) {
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
    // A text window in JSON goes as the SDK gives an output by default (`json`); a media
    // answer always as content parts, so that its images are images, never base64 in a text.
    const toModelOutput = (argument) => {
      const output = outputOf(argument)
      if (isMedia(output)) return contentOutput(output, major, resultFormat)
      if (resultFormat === 'json') return { type: 'json', value: output }
      return { type: 'text', value: texts.get(output) ?? renderRead(output, { lineNumbers }) }
    }
    return tool({
      description,
      inputSchema: jsonSchema(structuredClone(parameters)),
      execute: async (input, { abortSignal } = {}) => {
        const read = typeof toolkit.view === 'function' ? toolkit.view : toolkit.readFile
        const options = { signal: abortSignal }
        let answer
        try {
          // Text is read with its model text (in one call, for a toolkit of this package's).
          answer = await (resultFormat === 'json' ? Reflect.apply(read, toolkit, [input, options]).then((output) => ({ output })) : readForModel(toolkit, read, input, options))
        } catch (error) {
          throw toolError(error)
        }
        const { output, content } = answer
        const isText = typeof output === 'object' && output !== null && !isMedia(output)
        if (resultFormat !== 'json' && isText) texts.set(output, content)
        return output
      },
      toModelOutput,
    })
  }

  return { readFileTool }
}

module.exports = { aiAdapter, majorOf }
