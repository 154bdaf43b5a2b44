'use strict'
// A caller's options, read the way the engine reads a call's input: each property once, in a
// try, so that a throwing getter or proxy trap is an INVALID_ARGUMENT error naming the option,
// and a value checked is the value used. Lists are copied element by element, never through
// their iterator or their species, which the caller controls.

const { codedError } = require('./errors.js')

/** The most rules a list may hold: a bound for a proxy that claims any length. */
const MAX_RULES = 100_000

/**
 * `object[name]`, read once. A getter or proxy trap that throws is INVALID_ARGUMENT at `path`
 * (the option's name unless given; a function gives it only when needed), saying that
 * `<owner>.<name>` could not be read.
 */
function readOption(object, name, owner, path = name) {
  return readProperty(object, name, `${owner}.${name}`, path)
}

/**
 * `object[name]`, read once as `readOption` reads it: `undefined`, or an integer from `min`
 * to `max`; anything else is INVALID_ARGUMENT at `path`, saying what `<owner>.<name>` must be.
 */
function integerOption(object, name, owner, [min, max], path = name) {
  const value = readOption(object, name, owner, path)
  if (value === undefined) return undefined
  if (!Number.isInteger(value) || value < min || value > max) {
    const got = typeof value === 'number' ? String(value) : value === null ? 'null' : typeof value
    throw codedError('INVALID_ARGUMENT', path, `${owner}.${name} must be an integer from ${min} to ${max} (got ${got})`)
  }
  return value
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
 * A copy of `list`, an array of strings (`label` names it in errors, at `path`): its length
 * and each element read once, by index. Throws INVALID_ARGUMENT for anything else.
 */
function stringList(list, label, path, what = 'gitignore-style rules') {
  const invalid = (got) => codedError('INVALID_ARGUMENT', path, `${label} must be an array of ${what} (got ${got})`)
  if (!isArray(list, label, path)) throw invalid(list === null ? 'null' : typeof list)
  const length = lengthOf(list, label, path)
  const copy = []
  for (let index = 0; index < length; index++) {
    const rule = readProperty(list, index, `${label}[${index}]`, path)
    if (typeof rule !== 'string') throw invalid('an array with a non-string')
    copy.push(rule)
  }
  return copy
}

/** `Array.isArray(list)`, which throws for a revoked proxy. */
function isArray(list, label, path) {
  try {
    return Array.isArray(list)
  } catch (cause) {
    throw unreadable(path, label, cause)
  }
}

/** `list.length`, read once: a length an array can have, and at most MAX_RULES. */
function lengthOf(list, label, path) {
  const length = readProperty(list, 'length', `${label}.length`, path)
  if (!Number.isInteger(length) || length < 0) {
    throw codedError('INVALID_ARGUMENT', path, `${label}.length is not the length of an array`)
  }
  if (length > MAX_RULES) {
    throw codedError('INVALID_ARGUMENT', path, `${label} has ${length} rules, more than ${MAX_RULES}`)
  }
  return length
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

/** The limits `options.media` may set, with their bounds. */
const MEDIA_LIMITS = {
  maxFileBytes: [1, Number.MAX_SAFE_INTEGER],
  maxImageEdge: [16, 0xffffffff],
  maxImagePixels: [256, Number.MAX_SAFE_INTEGER],
  maxImageBytes: [1024, Number.MAX_SAFE_INTEGER],
  maxImages: [0, 0xffffffff],
}

/**
 * `options.media` as the native options: `undefined` when absent, else each limit given
 * (an integer within its bounds); anything else is INVALID_ARGUMENT.
 */
function mediaOptionsOf(options, owner) {
  const media = readOption(options, 'media', owner)
  if (media === undefined) return undefined
  if (typeof media !== 'object' || media === null) {
    const got = media === null ? 'null' : typeof media
    throw codedError('INVALID_ARGUMENT', 'media', `${owner}.media must be an object of limits like { maxImageEdge: 1568 } (got ${got})`)
  }
  const limits = {}
  for (const [name, bounds] of Object.entries(MEDIA_LIMITS)) {
    const value = integerOption(media, name, `${owner}.media`, bounds, 'media')
    if (value !== undefined) limits[name] = value
  }
  return limits
}

module.exports = { readOption, integerOption, booleanOption, stringList, rejectingThrows, argumentsInput, mediaOptionsOf }
