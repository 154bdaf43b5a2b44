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
const { readOption, stringList, rejectingThrows } = require('./options.js')

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
 * The `signal` of a call's options (`undefined` when none), read once; `owner` names the
 * options in errors, and `pathOfError()` gives the path an error is about. Throws
 * INVALID_ARGUMENT for options that are not an object or cannot be read.
 */
function signalOf(options, owner, pathOfError) {
  if (options === undefined || options === null) return undefined
  if (typeof options !== 'object') {
    const reason = `${owner} must be an object like { signal } (got ${typeof options})`
    throw codedError('INVALID_ARGUMENT', pathOfError(), reason)
  }
  return readOption(options, 'signal', owner, pathOfError)
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

/** A rule list of the options (`owner` names them): `fallback` when absent, else a copy. */
function ruleList(options, name, fallback, owner) {
  const rules = readOption(options, name, owner)
  return rules === undefined ? fallback : stringList(rules, `${owner}.${name}`, name)
}

/** The smallest `maxContentBytes`: room for a cut line's marker and some of the line. */
const MIN_CONTENT_BYTES = 128

/** `maxContentBytes` of the options: `undefined`, or an integer from 128 to 2^32 - 1. */
function budgetOf(options, owner) {
  const budget = readOption(options, 'maxContentBytes', owner)
  if (budget === undefined) return undefined
  if (!Number.isInteger(budget) || budget < MIN_CONTENT_BYTES || budget > 0xffffffff) {
    const got = typeof budget === 'number' ? String(budget) : budget === null ? 'null' : typeof budget
    const reason = `${owner}.maxContentBytes must be an integer from ${MIN_CONTENT_BYTES} to 4294967295 (got ${got})`
    throw codedError('INVALID_ARGUMENT', 'maxContentBytes', reason)
  }
  return budget
}

/**
 * The compiled policy of `options` (`owner` names them in errors): deny, allow and
 * maxContentBytes, each read once. Throws INVALID_ARGUMENT for bad or unreadable ones.
 */
function policyOf(options, owner) {
  const rules = [ruleList(options, 'deny', DEFAULT_DENY, owner), ruleList(options, 'allow', [], owner), budgetOf(options, owner)]
  return compiledPolicy(rules)
}

/** Policies compiled, by their rules; the oldest goes past 32. Most toolkits share one. */
const compiledPolicies = new Map()

function compiledPolicy(rules) {
  const key = JSON.stringify(rules)
  let policy = compiledPolicies.get(key)
  if (policy === undefined) {
    policy = new ReadPolicy(...rules)
    if (compiledPolicies.size >= 32) compiledPolicies.delete(compiledPolicies.keys().next().value)
    compiledPolicies.set(key, policy)
  }
  return policy
}

const ToolCatalog = deepFreeze({
  read_file: {
    definition: TOOL_DEFINITIONS.read_file,
    execute(input, ctx) {
      return rejectingThrows(() => {
        const signal = signalOf(ctx, 'ctx', () => pathOf(input))
        if (ctx === undefined || ctx === null) return readFile(undefined, input, signal)
        const workspaceRoot = readOption(ctx, 'workspaceRoot', 'ctx')
        return readFileWithPolicy(workspaceRoot, input, signal, policyOf(ctx, 'ctx'))
      })
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
  const workspaceRoot = readOption(options, 'workspaceRoot', 'options')
  const workspace = new Workspace(workspaceRoot, policyOf(options, 'options'))
  const close = () => workspace.close()
  return Object.freeze({
    readFile(input, callOptions) {
      return rejectingThrows(() => workspace.readFile(input, signalOf(callOptions, 'options', () => pathOf(input))))
    },
    readFileSync(input) {
      return workspace.readFileSync(input)
    },
    readFiles(inputs, callOptions) {
      return rejectingThrows(() => workspace.readFiles(inputs, signalOf(callOptions, 'options', () => 'readFiles')))
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
