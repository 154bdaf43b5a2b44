'use strict'
// The public entry point. Everything that reads files is Rust (`native.js` loads it);
// this file only adds what Rust cannot express: the constant tool definition objects
// and the small catalog and toolkit objects built around them.

const {
  readFile,
  readFileSync,
  readFiles,
  readFileWithPolicy,
  fileVersion,
  MAX_FILE_BYTES,
  MAX_BATCH_FILES,
  MAX_BATCH_CONTENT_BYTES,
  Workspace,
  ReadPolicy,
} = require('./native.js')
const { dialects } = require('./dialects.js')
const { runToolCall } = require('./tool-call.js')
const { isReadFileError, isToolkitError, codedError } = require('./errors.js')

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

/**
 * What a toolkit refuses to read unless told otherwise: secrets an agent has no business
 * sending to a model. Gitignore syntax, relative to the workspace root.
 */
const DEFAULT_DENY = Object.freeze([
  '.env',
  '.env.*',
  '!.env.example',
  '!.env.sample',
  'id_rsa*',
  'id_dsa*',
  'id_ecdsa*',
  'id_ed25519*',
  '*.pem',
  '*.key',
  '*.p12',
  '*.pfx',
  '.ssh/',
  '**/.aws/credentials',
  '.npmrc',
  '.netrc',
  '.git/',
])

/** A rule list of the options: `fallback` when absent, else an array of strings. */
function ruleList(options, name, fallback) {
  const rules = options[name]
  if (rules === undefined) return fallback
  if (!Array.isArray(rules) || !rules.every((rule) => typeof rule === 'string')) {
    const got = Array.isArray(rules) ? 'an array with a non-string' : rules === null ? 'null' : typeof rules
    throw codedError('INVALID_ARGUMENT', name, `${name} must be an array of gitignore-style rules (got ${got})`)
  }
  return [...rules]
}

/** The smallest `maxContentBytes`: room for a cut line's marker and some of the line. */
const MIN_CONTENT_BYTES = 128

/** `options.maxContentBytes`: `undefined`, or an integer from 128 to 2^32 - 1. */
function budgetOf(options) {
  const budget = options.maxContentBytes
  if (budget === undefined) return undefined
  if (!Number.isInteger(budget) || budget < MIN_CONTENT_BYTES || budget > 0xffffffff) {
    const got = typeof budget === 'number' ? String(budget) : budget === null ? 'null' : typeof budget
    const reason = `maxContentBytes must be an integer from ${MIN_CONTENT_BYTES} to 4294967295 (got ${got})`
    throw codedError('INVALID_ARGUMENT', 'maxContentBytes', reason)
  }
  return budget
}

/** The read options of `options`: deny, allow, maxContentBytes (throws INVALID_ARGUMENT). */
function rulesOf(options) {
  return [ruleList(options, 'deny', DEFAULT_DENY), ruleList(options, 'allow', []), budgetOf(options)]
}

/** The compiled policy of `options` (throws INVALID_ARGUMENT for bad rules). */
function policyOf(options) {
  return new ReadPolicy(...rulesOf(options))
}

/** Policies compiled for ToolCatalog contexts, by their rules; the oldest goes past 32. */
const catalogPolicies = new Map()

function catalogPolicy(ctx) {
  const rules = rulesOf(ctx)
  const key = JSON.stringify(rules)
  let policy = catalogPolicies.get(key)
  if (policy === undefined) {
    policy = new ReadPolicy(...rules)
    if (catalogPolicies.size >= 32) catalogPolicies.delete(catalogPolicies.keys().next().value)
    catalogPolicies.set(key, policy)
  }
  return policy
}

const ToolCatalog = deepFreeze({
  read_file: {
    definition: TOOL_DEFINITIONS.read_file,
    execute(input, ctx) {
      const { signal, error } = signalOf(ctx, input)
      if (error) return Promise.reject(error)
      if (ctx == null) return readFile(undefined, input, signal)
      let policy
      try {
        policy = catalogPolicy(ctx)
      } catch (err) {
        return Promise.reject(err)
      }
      return readFileWithPolicy(ctx.workspaceRoot, input, signal, policy)
    },
  },
})

/**
 * A toolkit bound to one workspace. The root is opened once, here, and held open until
 * `close()`; a bad root throws INVALID_ARGUMENT now rather than on every read.
 */
function createAgentToolkit(options) {
  if (typeof options !== 'object' || options === null) {
    const got = options === null ? 'null' : typeof options
    throw codedError('INVALID_ARGUMENT', 'workspaceRoot', `options must be an object like { workspaceRoot } (got ${got})`)
  }
  const workspace = new Workspace(options.workspaceRoot, policyOf(options))
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
    readFiles(inputs, callOptions) {
      const { signal, error } = signalOf(callOptions, undefined)
      if (error) return Promise.reject(error)
      return workspace.readFiles(inputs, signal)
    },
    lastRead(path) {
      return workspace.lastRead(path) ?? undefined
    },
    async checkFreshness(path) {
      const last = workspace.lastRead(path)
      if (last === null) return 'unread'
      let now
      try {
        now = await workspace.fileVersion(path)
      } catch (error) {
        if (error.code === 'NOT_FOUND') return 'deleted'
        // It was read (so it was a regular file under the size limit): it is not now.
        if (error.code === 'NOT_FILE' || error.code === 'SIZE_LIMIT_EXCEEDED') return 'changed'
        throw error
      }
      return now.hash === last.hash ? 'unchanged' : 'changed'
    },
    close,
    [Symbol.dispose]: close,
  })
}

module.exports = {
  readFile,
  readFileSync,
  fileVersion,
  readFiles,
  MAX_FILE_BYTES,
  MAX_BATCH_FILES,
  MAX_BATCH_CONTENT_BYTES,
  TOOL_DEFINITIONS,
  ToolCatalog,
  createAgentToolkit,
  runToolCall,
  isReadFileError,
  isToolkitError,
  DEFAULT_DENY,
  dialects: deepFreeze(dialects),
}
