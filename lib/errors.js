'use strict'
// The package's error vocabulary in JavaScript: which codes are the contract's, and errors
// made here shaped as the native ones are.

/** The specification's error codes: what `isReadFileError` recognises. (`POLICY_DENIED`
 * and `FILE_CHANGED`, this package's own, are recognised by `isToolkitError`.) */
const READ_FILE_ERROR_CODES = new Set([
  'INVALID_ARGUMENT',
  'NOT_FOUND',
  'NOT_FILE',
  'BINARY_NOT_SUPPORTED',
  'SIZE_LIMIT_EXCEEDED',
  'OUTSIDE_WORKSPACE',
  'PERMISSION_DENIED',
  'INTERNAL',
])

/** Whether `error` is an `Error` this package rejects or throws with a contract code. */
function isReadFileError(error) {
  return error instanceof Error && READ_FILE_ERROR_CODES.has(error.code)
}

/** The codes of a toolkit's own failures, beside the specification's. */
const TOOLKIT_ERROR_CODES = new Set(['POLICY_DENIED', 'FILE_CHANGED', 'INVALID_MEDIA', 'IMAGE_TOO_LARGE', 'PDF_ENCRYPTED'])

/** Whether `error` is an `Error` with a contract code or one of a toolkit's own. */
function isToolkitError(error) {
  return isReadFileError(error) || (error instanceof Error && TOOLKIT_ERROR_CODES.has(error.code))
}

/**
 * An `Error` shaped as the native ones are: `code`, and a message `CODE: <path>: <reason>`,
 * both own enumerable properties so that `JSON.stringify` keeps them.
 */
function codedError(code, path, reason) {
  return errorWithCode(code, `${code}: ${path === '' ? '""' : String(path).slice(0, 256)}: ${reason}`)
}

/**
 * An `Error` with `code` and `message` as own enumerable properties, so that `JSON.stringify`
 * keeps both, as Node's own coded errors do; `options` is `Error`'s (`{ cause }`).
 */
function errorWithCode(code, message, options) {
  const error = new Error(message, options)
  for (const [key, value] of [['code', code], ['message', message]]) {
    Object.defineProperty(error, key, { value, enumerable: true, writable: true, configurable: true })
  }
  return error
}

module.exports = { READ_FILE_ERROR_CODES, isReadFileError, isToolkitError, codedError, errorWithCode }
