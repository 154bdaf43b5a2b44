'use strict'
// runToolCall: one model tool call, from the arguments as the model sent them to the text a
// harness hands back. It never throws, so a harness needs no try/catch of its own.

const { isToolkitError } = require('./errors.js')
const { argumentsInput, readOption } = require('./options.js')

function failure(code, message) {
  return { content: message, isError: true, code }
}

/** The call's input (see `argumentsInput`), or the INVALID_ARGUMENT result of bad JSON. */
function inputOf(args) {
  try {
    return { input: argumentsInput(args) }
  } catch (error) {
    return { error: failure(error.code, error.message) }
  }
}

/**
 * `toolkit.readFile`, read once (so the function checked is the function called), or the
 * INVALID_ARGUMENT result for a toolkit without one or one that cannot be read.
 */
function readFileOf(toolkit) {
  const notToolkit = failure('INVALID_ARGUMENT', 'INVALID_ARGUMENT: toolkit: must be a toolkit from createAgentToolkit')
  if (toolkit === null || typeof toolkit !== 'object') return { error: notToolkit }
  let readFile
  try {
    readFile = readOption(toolkit, 'readFile', 'toolkit', 'toolkit')
  } catch (error) {
    return { error: failure(error.code, error.message) }
  }
  return typeof readFile === 'function' ? { readFile } : { error: notToolkit }
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

/**
 * Runs `args` (the model's arguments: a JSON text or an object) through `toolkit.readFile`,
 * with `options` (`{ signal }`) passed on. Success: `content` is the output as JSON and
 * `output` the object; failure: `content` is the error's message (`CODE: path: reason`),
 * `isError` is true and `code` its code.
 */
async function runToolCall(toolkit, args, options) {
  const { input, error } = inputOf(args)
  if (error) return error
  const { readFile, error: notToolkit } = readFileOf(toolkit)
  if (notToolkit) return notToolkit
  try {
    const output = await Reflect.apply(readFile, toolkit, [input, options])
    return { content: JSON.stringify(output), isError: false, output }
  } catch (thrown) {
    const { code, message } = toolFailure(thrown)
    return failure(code, message)
  }
}

module.exports = { runToolCall, toolFailure }
