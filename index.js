'use strict'
// The public entry point. Everything that reads files is Rust (`lib/native.js` loads it);
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
  estimateTokens,
  MAX_PDF_PAGES,
  MAX_LINES,
  MAX_RANGES,
  MIN_READ_TOKENS,
  defaultDenyRules,
  ignoreFileNames,
} = require('./lib/native.js')
const { dialects } = require('./lib/dialects.js')
const { runToolCall, registerToolkit, renderingOptions } = require('./lib/run-tool-call.js')
const { isReadFileError, isToolkitError, codedError } = require('./lib/errors.js')
const { argumentsInput, readOption, booleanOption, rejectingThrows } = require('./lib/options.js')

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

/** What a toolkit's tool says beside the specification's description: how a cut line reads on. */
const CUT_LINE_SENTENCE = 'A line too long to return whole is cut, and a marker line says how to read the rest.'

/** What a toolkit's tool says it reads beside text files. */
const MEDIA_SENTENCE = 'Also reads images (PNG, JPEG, GIF, WebP), Jupyter notebooks and PDFs.'

/** What a toolkit's `start_line` says beside the specification's: how to read the end of a log. */
const TAIL_SENTENCE = 'Negative counts from the end: -50 reads the last 50 lines.'


/**
 * A whole-number parameter as a toolkit states it: `integer`, `null` accepted for "not
 * given" (OpenAI's strict mode sends `null` for an optional argument), and its bounds, so
 * that a model sees them before it calls rather than in an error after.
 */
function integerParameter(bounds, defaultValue, description) {
  return { type: ['integer', 'null'], ...bounds, default: defaultValue, description }
}

/**
 * The toolkit's read_file definition: the specification's description plus the sentence on
 * cut lines; its numbers stated with their bounds (`max_lines` at most 500 in the schema and
 * in words); a negative `start_line`, which counts from the end; and `start_column`, which
 * only a toolkit honours (the bare `readFile` keeps to the specification and ignores it).
 */
function toolkitDefinition(spec) {
  const definition = structuredClone(spec)
  const { start_line, max_lines } = spec.parameters.properties
  definition.description = `${spec.description} ${CUT_LINE_SENTENCE} ${MEDIA_SENTENCE}`
  definition.parameters.properties = {
    path: definition.parameters.properties.path,
    start_line: integerParameter({}, start_line.default, `${start_line.description} ${TAIL_SENTENCE}`),
    max_lines: integerParameter(
      { minimum: 1, maximum: MAX_LINES },
      max_lines.default,
      `Maximum number of lines to return, at most ${MAX_LINES} (default: ${max_lines.default}).`,
    ),
    start_column: integerParameter(
      { minimum: 1 },
      1,
      "1-based column (in UTF-8 bytes) of start_line to start from; set it only as a cut line's marker says, to read the rest of that line (default: 1).",
    ),
    pages: {
      type: ['string', 'null'],
      description: `PDF pages to read, like "3" or "3-7" (at most ${MAX_PDF_PAGES}), or a notebook's cells; omit for other files.`,
    },
    outline: {
      type: ['boolean', 'null'],
      description: "true: the file's outline (its definitions and their lines) instead of its text.",
    },
    symbol: {
      type: ['string', 'null'],
      description: 'A definition to read by its name, like "Parser.parse".',
    },
    ranges: {
      type: ['array', 'null'],
      items: { type: 'string' },
      maxItems: MAX_RANGES,
      description: 'Line ranges to read in one call, like ["10-40", "120-160"].',
    },
  }
  return definition
}

const TOOLKIT_DEFINITIONS = deepFreeze({ read_file: toolkitDefinition(READ_FILE_DEFINITION) })

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
 * What a toolkit refuses unless told otherwise: secrets an agent has no business sending
 * to a model, and their copies (the list is the engine's, `engine/src/policy/defaults.rs`).
 */
const DEFAULT_DENY = Object.freeze(defaultDenyRules())

/** The ignore files a toolkit obeys unless told otherwise (the engine's list). */
const IGNORE_FILES = Object.freeze(ignoreFileNames())

/**
 * A `maxReadTokens` for a model whose context window holds `contextTokens` tokens: one eighth
 * of it (25,000 of a 200k context, Claude Code's read budget), at least 1,000;
 * INVALID_ARGUMENT for anything but a positive safe integer.
 */
function maxReadTokensFor(contextTokens) {
  if (!Number.isSafeInteger(contextTokens) || contextTokens < 1) {
    const got = typeof contextTokens === 'number' ? String(contextTokens) : contextTokens === null ? 'null' : typeof contextTokens
    throw codedError('INVALID_ARGUMENT', 'contextTokens', `contextTokens must be a positive safe integer (got ${got})`)
  }
  return Math.min(0xffffffff, Math.max(MIN_READ_TOKENS, Math.floor(contextTokens / 8)))
}

const ToolCatalog = deepFreeze({
  read_file: {
    definition: TOOL_DEFINITIONS.read_file,
    execute(args, ctx) {
      return rejectingThrows(() => {
        const input = argumentsInput(args)
        const signal = signalOf(ctx, 'ctx', () => pathOf(input))
        if (ctx === undefined || ctx === null) return readFile(undefined, input, signal)
        const workspaceRoot = readOption(ctx, 'workspaceRoot', 'ctx')
        return readFileWithPolicy(workspaceRoot, input, signal, ReadPolicy.forContext(ctx))
      })
    },
  },
})

/** `dedupeReads` of the options: a boolean, `false` when absent; else INVALID_ARGUMENT. */
function dedupeOf(options) {
  return booleanOption(options, 'dedupeReads', 'options') ?? false
}

/** `outlines` of the options: a boolean, `true` when absent; else INVALID_ARGUMENT. */
function outlinesOf(options) {
  return booleanOption(options, 'outlines', 'options') ?? true
}

/**
 * What `runToolCall` and the adapters give the model for this toolkit's reads: the
 * rendering options of `options`, and whether a window the model has is a note
 * (`dedupeReads`: the engine remembers the lines given, `workspace.view`'s text says so).
 */
function modelSettingsOf(rendering, dedupeReads, workspace) {
  const { resultFormat = 'text', lineNumbers = true } = rendering
  return {
    resultFormat,
    lineNumbers,
    dedupeReads,
    // `agent-read-file mcp`'s answer to a plain call, made in Rust (adapters/mcp-core.js).
    mcpAnswer: (input, id, options, signal) => workspace.mcpAnswer(input, id, options, signal),
  }
}

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
  const rendering = renderingOptions(options, 'options')
  // JSON's escapes cost about what line numbers do: the budget counts a gutter for either.
  const numbered = rendering.lineNumbers !== false || rendering.resultFormat === 'json'
  const policy = ReadPolicy.forToolkit(options, numbered)
  const dedupeReads = dedupeOf(options)
  const workspace = new Workspace(workspaceRoot, policy, dedupeReads, outlinesOf(options))
  const settings = modelSettingsOf(rendering, dedupeReads, workspace)
  const close = () => workspace.close()
  // `view`, with `text` (the engine's text options) answering a text window as `{ output,
  // text }`: `runToolCall` and the adapters read and render in one call.
  const view = (input, callOptions, text) =>
    rejectingThrows(() => workspace.view(input, signalOf(callOptions, 'options', () => pathOf(input)), text))
  settings.view = view
  const toolkit = Object.freeze({
    definition: TOOLKIT_DEFINITIONS.read_file,
    runToolCall(args, callOptions) {
      return runToolCall(toolkit, args, callOptions)
    },
    readFile(input, callOptions) {
      return rejectingThrows(() => workspace.readFile(input, signalOf(callOptions, 'options', () => pathOf(input))))
    },
    view(input, callOptions) {
      return view(input, callOptions)
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
        // It was read (so it was a regular file under the size limit): it is not now, or it
        // changed while its version was taken.
        if (['NOT_FILE', 'SIZE_LIMIT_EXCEEDED', 'FILE_CHANGED'].includes(error.code)) return 'changed'
        throw error
      }
      return now.hash === last.hash ? 'unchanged' : 'changed'
    },
    forgetReads() {
      workspace.forgetReads()
    },
    close,
    [Symbol.dispose]: close,
  })
  registerToolkit(toolkit, settings)
  return toolkit
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
  TOOLKIT_DEFINITIONS,
  ToolCatalog,
  createAgentToolkit,
  runToolCall,
  estimateTokens,
  maxReadTokensFor,
  isReadFileError,
  isToolkitError,
  DEFAULT_DENY,
  IGNORE_FILES,
  dialects: deepFreeze(dialects),
}
