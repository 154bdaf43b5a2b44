'use strict'
// The public entry point. Everything that reads files is Rust (`native.js` loads it);
// this file only adds what Rust cannot express: the constant tool definition objects
// and the small catalog and toolkit objects built around them.

const { readFile, readFileSync, MAX_FILE_BYTES, Workspace } = require('./native.js')
const { dialects } = require('./dialects.js')

/** Freezes an object graph so no caller can edit a shared definition. */
function deepFreeze(value) {
  for (const child of Object.values(value)) {
    if (typeof child === 'object' && child !== null) deepFreeze(child)
  }
  return Object.freeze(value)
}

/** The specification's READ_FILE_DEFINITION, to the letter. */
const READ_FILE_DEFINITION = {
  name: 'read_file',
  description: 'Reads a UTF-8 text file in the workspace and returns a line-limited content window.',
  parameters: {
    type: 'object',
    properties: {
      path: {
        type: 'string',
        description: 'Workspace-root-relative file path to read (e.g., "src/main.ts").',
      },
      start_line: {
        type: 'number',
        default: 1,
        description: '1-based start line of the returned window (default: 1).',
      },
      max_lines: {
        type: 'number',
        default: 200,
        description: 'Maximum number of lines to return (default: 200).',
      },
    },
    required: ['path'],
  },
}

const TOOL_DEFINITIONS = deepFreeze({ read_file: READ_FILE_DEFINITION })

/** The specification's error codes: what `isReadFileError` recognises. */
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

/**
 * An `Error` shaped as the native ones are: `code`, and a message `CODE: <path>: <reason>`,
 * both own enumerable properties so that `JSON.stringify` keeps them.
 */
function codedError(code, path, reason) {
  const message = `${code}: ${path === '' ? '""' : String(path).slice(0, 256)}: ${reason}`
  const error = new Error(message)
  for (const [key, value] of [['code', code], ['message', message]]) {
    Object.defineProperty(error, key, { value, enumerable: true, writable: true, configurable: true })
  }
  return error
}

/** `input.path` for a message, whatever `input` is. */
function pathOf(input) {
  try {
    return typeof input === 'object' && input !== null && typeof input.path === 'string' ? input.path : ''
  } catch {
    return ''
  }
}

/**
 * The `signal` of a call's options (`undefined` when none), or an INVALID_ARGUMENT error
 * for options that are not an object.
 */
function signalOf(options, input) {
  if (options === undefined || options === null) return { signal: undefined }
  if (typeof options !== 'object') {
    const reason = `options must be an object like { signal } (got ${typeof options})`
    return { error: codedError('INVALID_ARGUMENT', pathOf(input), reason) }
  }
  return { signal: options.signal }
}

const ToolCatalog = deepFreeze({
  read_file: {
    definition: TOOL_DEFINITIONS.read_file,
    execute(input, ctx) {
      const { signal, error } = signalOf(ctx, input)
      if (error) return Promise.reject(error)
      return readFile(ctx == null ? undefined : ctx.workspaceRoot, input, signal)
    },
  },
})

/**
 * A toolkit bound to one workspace. The root is opened once, here, and held open until
 * `close()`; a bad root throws INVALID_ARGUMENT now rather than on every read.
 */
function createAgentToolkit(options) {
  const workspace = new Workspace(options == null ? undefined : options.workspaceRoot)
  const close = () => workspace.close()
  return Object.freeze({
    readFile(input, callOptions) {
      const { signal, error } = signalOf(callOptions, input)
      if (error) return Promise.reject(error)
      return workspace.readFile(input, signal)
    },
    readFileSync(input) {
      return workspace.readFileSync(input)
    },
    close,
    [Symbol.dispose]: close,
  })
}

module.exports = {
  readFile,
  readFileSync,
  MAX_FILE_BYTES,
  TOOL_DEFINITIONS,
  ToolCatalog,
  createAgentToolkit,
  isReadFileError,
  dialects: deepFreeze(dialects),
}
