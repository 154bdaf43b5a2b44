'use strict'
// runToolCall: one model tool call, from the arguments as the model sent them to the text a
// harness hands back. It never throws, so a harness needs no try/catch of its own.

const { isToolkitError, codedError } = require('./errors.js')
const { argumentsInput, readOption, booleanOption } = require('./options.js')
const model = require('./model-text.js')
const native = require('./native.js')

const { renderFailure } = model

/**
 * What `createAgentToolkit` registers of each toolkit it makes: its `resultFormat`,
 * `lineNumbers`, `dedupeReads`, and `view` (`toolkit.view` that also
 * answers a text window's model text, rendered by the engine, which with `dedupeReads` is the
 * note that the model has those lines already). A toolkit of the caller's has none: text
 * with line numbers, nothing deduplicated.
 */
const toolkitSettings = new WeakMap()

const DEFAULT_SETTINGS = Object.freeze({ resultFormat: 'text', lineNumbers: true })

/** Registers `settings` as `toolkit`'s (see `toolkitSettings`). */
function registerToolkit(toolkit, settings) {
  toolkitSettings.set(toolkit, settings)
}

/** `toolkit`'s registered settings, or the defaults. */
function settingsOf(toolkit) {
  return (typeof toolkit === 'object' && toolkit !== null && toolkitSettings.get(toolkit)) || DEFAULT_SETTINGS
}

/**
 * `resultFormat` (`'text'` or `'json'`) and `lineNumbers` (a boolean) of `options`, each
 * `undefined` when absent; `owner` names them in errors. Throws INVALID_ARGUMENT for any
 * other value.
 */
function renderingOptions(options, owner) {
  const resultFormat = readOption(options, 'resultFormat', owner)
  if (resultFormat !== undefined && resultFormat !== 'text' && resultFormat !== 'json') {
    const got = typeof resultFormat === 'string' ? JSON.stringify(resultFormat) : resultFormat === null ? 'null' : typeof resultFormat
    throw codedError('INVALID_ARGUMENT', 'resultFormat', `${owner}.resultFormat must be 'text' or 'json' (got ${got})`)
  }
  return { resultFormat, lineNumbers: booleanOption(options, 'lineNumbers', owner) }
}

/** `input[key]` when it is a number, else `undefined`; never throws. */
function numberOf(input, key) {
  try {
    const value = typeof input === 'object' && input !== null ? input[key] : undefined
    return typeof value === 'number' ? value : undefined
  } catch {
    return undefined
  }
}

/** The engine's text options for a window read for `input`: `lineNumbers`, and the call's numbers. */
function textOptionsOf(input, lineNumbers) {
  return { lineNumbers, startLine: numberOf(input, 'start_line'), startColumn: numberOf(input, 'start_column') }
}

/**
 * What a model is given for `input`, read by `read` (`toolkit.view` or `toolkit.readFile`)
 * with `options`: `{ content, parts, output }`, `content` the text (see `runToolCall`).
 * `overrides` are a call's `resultFormat` and `lineNumbers`, over the toolkit's. A toolkit
 * of this package's reads and renders in one call into the engine; any other's output is
 * rendered by the engine after. Rejects as the read rejects.
 */
async function readForModel(toolkit, read, input, options, overrides = {}) {
  const settings = settingsOf(toolkit)
  const resultFormat = overrides.resultFormat ?? settings.resultFormat
  const text = resultFormat === 'text' ? textOptionsOf(input, overrides.lineNumbers ?? settings.lineNumbers) : undefined
  if (settings.view === undefined || text === undefined) {
    const output = await Reflect.apply(read, toolkit, [input, options])
    return answerOf(settings, output, undefined, resultFormat, text)
  }
  const { output, text: rendered, frame } = await settings.view(input, options, text)
  return answerOf(settings, output, rendered ?? frame, resultFormat, text)
}

/**
 * `readForModel`'s answer for `output`: a media answer's parts (`made`, the text around them,
 * when the read made it); a text window as JSON, or as `made` (its text, when the read made it)
 * unless the model has those lines already.
 */
function answerOf(settings, output, made, resultFormat, text) {
  if (model.isMedia(output)) return { ...mediaAnswer(output, resultFormat, made), output }
  const content = resultFormat === 'json' ? JSON.stringify(output) : (made ?? native.renderRead(output, text))
  return { content, parts: [{ type: 'text', text: content }], output }
}

/**
 * What a model is given for a media answer in `resultFormat`: its content `parts`, text and
 * images, and `content`, the same as one text (each image named where it stands). In JSON, the
 * text is the output without its image data, and the images follow it. `frame`: the engine's
 * text around the parts, when the read made it.
 */
function mediaAnswer(output, resultFormat, frame) {
  if (resultFormat === 'json') {
    const content = JSON.stringify(model.withoutImageData(output))
    return { content, parts: [{ type: 'text', text: content }, ...model.imageParts(output)] }
  }
  const parts = model.mediaParts(output, frame)
  return { content: model.renderMedia(output, parts), parts }
}

/** A failed call's result: the model's text is the message and what to do instead. */
function failure(code, message) {
  return { content: renderFailure(code, message), isError: true, code }
}

/** The call's input (see `argumentsInput` and `withNumbers`), or the INVALID_ARGUMENT result of bad JSON. */
function inputOf(args) {
  try {
    return { input: withNumbers(argumentsInput(args)) }
  } catch (error) {
    return { error: failure(error.code, error.message) }
  }
}

/** The arguments a model may send as numbers written in a string. */
const NUMBER_ARGUMENTS = ['start_line', 'max_lines', 'start_column']

/** A whole decimal number as a string holds it: digits, a `-` at most, nothing else. */
const DECIMAL = /^-?[0-9]{1,15}$/

/**
 * `input` with a window's numbers that came as strings of decimal digits (`"10"`) as the
 * numbers they spell; anything else as it is, for the read to check. Models send numbers so
 * at times, and so does the MCP Inspector's CLI (it converts only an `"integer"` type, and ours
 * is nullable): refusing would spend the model's turn on a value nobody can misread. Only a
 * plain decimal (not `"1e1"`, `" 10"` or `"+10"`); the specification's functions keep their
 * letter (a string is INVALID_ARGUMENT). Never throws: an object that cannot be read is
 * left to the read's own checks.
 */
function withNumbers(input) {
  try {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) return input
    let copy
    for (const key of NUMBER_ARGUMENTS) {
      const value = input[key]
      if (typeof value === 'string' && DECIMAL.test(value)) {
        copy ??= { ...input }
        copy[key] = Number(value)
      }
    }
    return copy ?? input
  } catch {
    return input
  }
}

/**
 * The toolkit's read: `toolkit.view` when it has one (every file an agent meets), else
 * `toolkit.readFile` (a toolkit of the caller's), each read once (so the function checked is
 * the function called); or the INVALID_ARGUMENT result for a toolkit without either or one
 * that cannot be read.
 */
function readFileOf(toolkit) {
  const notToolkit = failure('INVALID_ARGUMENT', 'INVALID_ARGUMENT: toolkit: must be a toolkit from createAgentToolkit')
  if (toolkit === null || typeof toolkit !== 'object') return { error: notToolkit }
  let read
  try {
    read = readOption(toolkit, 'view', 'toolkit', 'toolkit')
    if (typeof read !== 'function') read = readOption(toolkit, 'readFile', 'toolkit', 'toolkit')
  } catch (error) {
    return { error: failure(error.code, error.message) }
  }
  return typeof read === 'function' ? { readFile: read } : { error: notToolkit }
}

/** The code of an error `readFile` rejected with: a toolkit's, an abort's, else INTERNAL. */
function codeOf(thrown) {
  if (isToolkitError(thrown)) return thrown.code
  return thrown instanceof Error && thrown.code === 'ABORT_ERR' ? 'ABORT_ERR' : 'INTERNAL'
}

/**
 * What a harness tells the model about an error `readFile` rejected with: its code and the
 * message `CODE: path: reason` (the code put first when the message lacks it).
 */
function toolFailure(thrown) {
  const code = codeOf(thrown)
  const message = typeof thrown?.message === 'string' ? thrown.message : String(thrown)
  return { code, message: message.startsWith(`${code}: `) ? message : `${code}: ${message}` }
}

/** The call's `resultFormat` and `lineNumbers`, or the INVALID_ARGUMENT result of bad ones. */
function overridesOf(options) {
  if (typeof options !== 'object' || options === null) return { overrides: {} }
  try {
    return { overrides: renderingOptions(options, 'options') }
  } catch (error) {
    return { error: failure(error.code, error.message) }
  }
}

/**
 * Runs `args` (the model's arguments: a JSON text or an object) through `toolkit.view` (or
 * `toolkit.readFile` for a toolkit without one), with `options` (`{ signal, resultFormat,
 * lineNumbers }`) passed on. Success: `content` is the text for the model (JSON, or the
 * engine's text of the window, or, with `dedupeReads`, the note that it has those lines already),
 * `parts` the same as content parts (text, and for an image, notebook or PDF its images), and
 * `output` the object; failure: `content` is
 * the error's message (`CODE: path: reason`, and for some codes a line more), `isError` is
 * true and `code` its code.
 */
async function runToolCall(toolkit, args, options) {
  const { input, error } = inputOf(args)
  if (error) return error
  const { readFile, error: notToolkit } = readFileOf(toolkit)
  if (notToolkit) return notToolkit
  const { overrides, error: badOptions } = overridesOf(options)
  if (badOptions) return badOptions
  try {
    const { content, parts, output } = await readForModel(toolkit, readFile, input, options, overrides)
    return { content, parts, isError: false, output }
  } catch (thrown) {
    return failureOf(thrown)
  }
}

/** The failed call's result for an error `readFile` rejected with (see `toolFailure`). */
function failureOf(thrown) {
  const { code, message } = toolFailure(thrown)
  return failure(code, message)
}

module.exports = { runToolCall, readForModel, toolFailure, failureOf, mediaAnswer, settingsOf, registerToolkit, renderingOptions, numberOf, withNumbers }
