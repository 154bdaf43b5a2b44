'use strict'
// The options only JavaScript uses (rendering, `dedupeReads`, an adapter's), read the way
// the binding reads a toolkit's read options (`src/options.rs`): each property once, in a
// try, so that a throwing getter or proxy trap is an INVALID_ARGUMENT error naming the
// option, and a value checked is the value used.

const { codedError } = require('./errors.js')

/**
 * `object[name]`, read once. A getter or proxy trap that throws is INVALID_ARGUMENT at `path`
 * (the option's name unless given; a function gives it only when needed), saying that
 * `<owner>.<name>` could not be read.
 */
function readOption(object, name, owner, path = name) {
  return readProperty(object, name, `${owner}.${name}`, path)
}

/**
 * `object[name]`, read once as `readOption` reads it: `undefined`, or a boolean; anything else
 * is INVALID_ARGUMENT at `name`, saying that `<owner>.<name>` must be a boolean.
 */
function booleanOption(object, name, owner) {
  const value = readOption(object, name, owner)
  if (value !== undefined && typeof value !== 'boolean') {
    const got = value === null ? 'null' : typeof value
    throw codedError('INVALID_ARGUMENT', name, `${owner}.${name} must be a boolean (got ${got})`)
  }
  return value
}

/** `object[key]`, read once; INVALID_ARGUMENT at `path`, naming `label`, if reading throws. */
function readProperty(object, key, label, path) {
  try {
    return object[key]
  } catch (cause) {
    throw unreadable(path, label, cause)
  }
}

/** The INVALID_ARGUMENT error for `label` that could not be read; what was thrown is its `cause`. */
function unreadable(path, label, cause) {
  const where = typeof path === 'function' ? path() : path
  const error = codedError('INVALID_ARGUMENT', where, `${label} could not be read (a getter or proxy trap threw)`)
  Object.defineProperty(error, 'cause', { value: cause, writable: true, configurable: true })
  return error
}

/**
 * A model's arguments as the call's input: a JSON text parsed (what tool-calling APIs hand
 * over), anything else as it is, for the read to check. The one rule of `runToolCall` and
 * `ToolCatalog.read_file.execute`, as of the dialects. A text that is not JSON is
 * INVALID_ARGUMENT.
 */
function argumentsInput(args) {
  if (typeof args !== 'string') return args
  try {
    return JSON.parse(args)
  } catch (error) {
    throw codedError('INVALID_ARGUMENT', 'arguments', `not a JSON text (${error.message})`)
  }
}

/** What `start()` returns, or a promise rejected with what it threw. */
function rejectingThrows(start) {
  try {
    return start()
  } catch (error) {
    return Promise.reject(error)
  }
}

module.exports = { readOption, booleanOption, rejectingThrows, argumentsInput }
