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
  MIN_CONTENT_BYTES,
} = require('./lib/native.js')
const { dialects } = require('./lib/dialects.js')
const { runToolCall, registerToolkit, renderingOptions } = require('./lib/run-tool-call.js')
const { ReadMemory } = require('./lib/read-memory.js')
const { isReadFileError, isToolkitError, codedError } = require('./lib/errors.js')
const { argumentsInput, readOption, integerOption, booleanOption, stringList, rejectingThrows, mediaOptionsOf } = require('./lib/options.js')

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
 * Files whose names say they hold secrets: credentials, private keys, tokens. Gitignore
 * syntax, relative to the workspace root; a name without `/` matches at any depth, and
 * deny rules ignore case. Of two rules that match, the later is the one a refusal names,
 * so a general rule comes before a specific one. Borderline entries say why they are here.
 */
const SECRET_FILES = [
  // dotenv files. `*.env`: dotenv files under other names (Compose's `env_file`); no
  // language keeps source in `.env` files. `.envrc` (direnv) exports secrets to the shell;
  // `.dev.vars` is Cloudflare Wrangler's local secrets.
  '*.env',
  '.env',
  '.env.*',
  '.envrc',
  '.dev.vars',
  '.dev.vars.*',
  // Private keys under their usual names and suffixes (public keys `*.pub` go with them:
  // nothing a model needs), PKCS#8 (`*.p8`), PuTTY, Java and Android key stores.
  '*_rsa',
  '*_dsa',
  '*_ecdsa',
  '*_ed25519',
  'id_rsa*',
  'id_dsa*',
  'id_ecdsa*',
  'id_ed25519*',
  '*.pem',
  '*.key',
  '*.p12',
  '*.pfx',
  '*.p8',
  '*.ppk',
  '*.jks',
  '*.keystore',
  // Tools' credential files, by the names the tools give them.
  '**/.aws/credentials',
  '**/.docker/config.json',
  '**/.kube/config',
  'kubeconfig',
  '*.kubeconfig',
  '**/.cargo/credentials',
  '**/.cargo/credentials.toml',
  '**/.gem/credentials',
  '**/.config/gh/hosts.yml',
  'application_default_credentials.json',
  'client_secret*.json',
  // Google's OAuth quickstarts download the client secret as `credentials.json`; a test
  // fixture of that name is refused too, and `allow` re-admits it.
  'credentials.json',
  '.npmrc',
  '.netrc',
  '.pypirc',
  '.git-credentials',
  '.pgpass',
  '.my.cnf',
  '.htpasswd',
  '.vault-token',
  '.s3cfg',
  '.boto',
  '.terraformrc',
  'terraform.rc',
  // Applications' secrets as data (Rails' config/secrets.yml, Streamlit's secrets.toml,
  // Kubernetes Secret manifests); code named `secrets.ts` or `secrets.py` stays readable.
  'secrets.yml',
  'secrets.yaml',
  'secrets.json',
  'secrets.toml',
  // Terraform state holds every resource's secrets in plain text; `.tfvars` files hold the
  // variables' values, passwords among them (Terraform's own .gitignore keeps both out of
  // git). The variables themselves are declared in `.tf` files, which stay readable.
  '*.tfvars',
  '*.tfvars.json',
  '*.tfstate',
  '*.tfstate.*',
  // OpenVPN profiles usually embed the client's private key.
  '*.ovpn',
  // Shell and REPL histories keep the tokens typed on command lines.
  '.*_history',
]

/** Directories that hold secrets, or that a model has no business reading file by file. */
const SECRET_DIRECTORIES = [
  '.ssh/',
  '.gnupg/',
  '**/.config/gcloud/',
  // Remote URLs with tokens in `config`, and objects a model should reach through git.
  '.git/',
]

/**
 * The suffixes of the copies people and editors leave beside a file: `~` (Emacs, Vim, nano
 * -B, gedit), `.bak`, `.old`, `.orig` (patch and merge tools). Vim's swap files are left
 * out: their NUL bytes make them binary, which no read returns.
 */
const COPY_SUFFIXES = ['~', '.bak', '.old', '.orig']

/**
 * `rule` and the rules for its copies: each suffix (unless the rule ends in `*`, which
 * covers them), and Emacs's auto-save `#name#` (escaped at the start of a rule, where `#`
 * would begin a comment).
 */
function withCopies(rule) {
  const slash = rule.lastIndexOf('/') + 1
  const [directory, name] = [rule.slice(0, slash), rule.slice(slash)]
  const autoSave = `${directory === '' ? '\\' : directory}#${name}#`
  const suffixed = name.endsWith('*') ? [] : COPY_SUFFIXES.map((suffix) => rule + suffix)
  return [rule, ...suffixed, autoSave]
}

/**
 * What a toolkit refuses unless told otherwise: secrets an agent has no business sending
 * to a model, and their copies. The examples `.env.example` and `.env.sample` are read;
 * their copies are not (an edit in progress may hold real values).
 */
const DEFAULT_DENY = Object.freeze([
  ...SECRET_FILES.flatMap(withCopies),
  ...SECRET_DIRECTORIES,
  '!.env.example',
  '!.env.sample',
])

/** A rule list of the options (`owner` names them): `fallback` when absent, else a copy. */
function ruleList(options, name, fallback, owner) {
  const rules = readOption(options, name, owner)
  return rules === undefined ? fallback : stringList(rules, `${owner}.${name}`, name)
}

/**
 * The ignore files a toolkit obeys unless told otherwise: the files in which agents' users
 * keep what their tools must not read (JetBrains AI Assistant's `.aiignore`, Cursor's,
 * Gemini CLI's, Cline's, Roo Code's, Aider's, Windsurf's), and this package's own.
 */
const IGNORE_FILES = Object.freeze([
  '.aiignore',
  '.cursorignore',
  '.geminiignore',
  '.clineignore',
  '.rooignore',
  '.aiderignore',
  '.codeiumignore',
  '.agentreadfileignore',
])

/** `defaultDeny` of the options: whether `DEFAULT_DENY` applies (`true` when absent). */
function defaultDenyOf(options, owner) {
  const on = readOption(options, 'defaultDeny', owner)
  if (on === undefined || on === true) return DEFAULT_DENY
  if (on === false) return []
  const got = on === null ? 'null' : typeof on
  throw codedError('INVALID_ARGUMENT', 'defaultDeny', `${owner}.defaultDeny must be true or false (got ${got})`)
}

/**
 * `ignoreFiles` of the options, as the names obeyed: `true` (or absent) is `IGNORE_FILES`,
 * `false` none, an array exactly its names.
 */
function ignoreFilesOf(options, owner) {
  const names = readOption(options, 'ignoreFiles', owner)
  if (names === undefined || names === true) return IGNORE_FILES
  if (names === false) return []
  if (typeof names !== 'object' || names === null) {
    const got = names === null ? 'null' : typeof names
    const reason = `${owner}.ignoreFiles must be true, false or an array of file names (got ${got})`
    throw codedError('INVALID_ARGUMENT', 'ignoreFiles', reason)
  }
  return stringList(names, `${owner}.ignoreFiles`, 'ignoreFiles', 'file names')
}


/**
 * A content budget of the options (`maxContentBytes`, or `maxBatchContentBytes`, `name`):
 * `undefined`, or an integer from 128 to 2^32 - 1.
 */
function budgetOf(options, owner, name = 'maxContentBytes') {
  return integerOption(options, name, owner, [MIN_CONTENT_BYTES, 0xffffffff])
}

/**
 * `maxFileBytes` of the options: `undefined` (the specification's MAX_FILE_BYTES), a
 * positive safe integer, or `Infinity`.
 */
function fileLimitOf(options, owner) {
  const limit = readOption(options, 'maxFileBytes', owner)
  if (limit === undefined || limit === Infinity) return limit
  if (!Number.isSafeInteger(limit) || limit < 1) {
    const got = typeof limit === 'number' ? String(limit) : limit === null ? 'null' : typeof limit
    const reason = `${owner}.maxFileBytes must be a positive safe integer or Infinity (got ${got})`
    throw codedError('INVALID_ARGUMENT', 'maxFileBytes', reason)
  }
  return limit
}

/**
 * A toolkit's `maxReadTokens` when absent: 25,000 tokens, one eighth of a 200k-token context
 * (about 2,000 lines of code, or 100 KB of English), what Claude Code's read gives.
 */
const DEFAULT_READ_TOKENS = 25_000

/** The smallest `maxReadTokens`: room for a header, a closing line and some lines. */
const MIN_READ_TOKENS = 1000

/** The tokenizers whose counts `maxReadTokens` may be estimated in. */
const TOKENIZERS = ['o200k_base', 'cl100k_base']

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

/**
 * The token budget of `options` (`maxReadTokens`, `tokenizer`) as the native options, or
 * `undefined` for none (`maxReadTokens: Infinity`, or absent without a `fallback`).
 * `numbered`: whether each line costs a gutter in what the model is given.
 */
function tokenBudgetOf(options, owner, numbered, fallback) {
  const given = readOption(options, 'maxReadTokens', owner)
  const limit = given === undefined ? fallback : given
  const named = readOption(options, 'tokenizer', owner)
  const tokenizer = named === undefined ? TOKENIZERS[0] : named
  if (!TOKENIZERS.includes(tokenizer)) {
    const got = typeof tokenizer === 'string' ? JSON.stringify(tokenizer) : tokenizer === null ? 'null' : typeof tokenizer
    throw codedError('INVALID_ARGUMENT', 'tokenizer', `${owner}.tokenizer must be 'o200k_base' or 'cl100k_base' (got ${got})`)
  }
  if (limit === undefined || limit === Infinity) return undefined
  if (!Number.isInteger(limit) || limit < MIN_READ_TOKENS || limit > 0xffffffff) {
    const got = typeof limit === 'number' ? String(limit) : limit === null ? 'null' : typeof limit
    const reason = `${owner}.maxReadTokens must be an integer from ${MIN_READ_TOKENS} to 4294967295, or Infinity (got ${got})`
    throw codedError('INVALID_ARGUMENT', 'maxReadTokens', reason)
  }
  return { maxReadTokens: limit, tokenizer, numbered }
}

/**
 * The compiled policy of `options` (`owner` names them in errors): defaultDeny, deny,
 * allow, ignoreFiles, maxContentBytes, maxFileBytes, maxBatchContentBytes, media,
 * maxReadTokens and tokenizer, each read once. `toolkit`, for a toolkit's: its reads are a
 * model's (files of any size, 25,000 tokens a read, by default), and `toolkit.numbered`
 * says whether a model is given each line with a gutter (line numbers, or JSON's escapes);
 * without it, the specification's defaults (1 MiB, no token budget). Throws
 * INVALID_ARGUMENT for bad or unreadable ones.
 */
function policyOf(options, owner, toolkit) {
  const defaultDeny = defaultDenyOf(options, owner)
  const deny = ruleList(options, 'deny', [], owner)
  const allow = ruleList(options, 'allow', [], owner)
  const ignoreFiles = ignoreFilesOf(options, owner)
  const fileLimit = fileLimitOf(options, owner) ?? (toolkit === undefined ? undefined : Infinity)
  const budgets = [budgetOf(options, owner), fileLimit, budgetOf(options, owner, 'maxBatchContentBytes')]
  const media = mediaOptionsOf(options, owner)
  const tokens = tokenBudgetOf(options, owner, toolkit?.numbered ?? true, toolkit && DEFAULT_READ_TOKENS)
  return compiledPolicy([defaultDeny, deny, allow, ignoreFiles, ...budgets, media, tokens])
}

/** Policies compiled, by their rules; the oldest goes past 32. Most toolkits share one. */
const compiledPolicies = new Map()

function compiledPolicy(rules) {
  // `String`: JSON would spell `Infinity` and `undefined` alike (`null`).
  const key = JSON.stringify(rules.map((rule) => (typeof rule === 'number' ? String(rule) : rule)))
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
    execute(args, ctx) {
      return rejectingThrows(() => {
        const input = argumentsInput(args)
        const signal = signalOf(ctx, 'ctx', () => pathOf(input))
        if (ctx === undefined || ctx === null) return readFile(undefined, input, signal)
        const workspaceRoot = readOption(ctx, 'workspaceRoot', 'ctx')
        return readFileWithPolicy(workspaceRoot, input, signal, policyOf(ctx, 'ctx'))
      })
    },
  },
})

/** `dedupeReads` of the options: a boolean, `false` when absent; else INVALID_ARGUMENT. */
function dedupeOf(options) {
  return booleanOption(options, 'dedupeReads', 'options') ?? false
}

/**
 * What `runToolCall` and the adapters give the model for this toolkit's reads: the
 * rendering options of `options`, and a read memory when `dedupeReads` is on.
 */
function modelSettingsOf(options, rendering, workspace) {
  const { resultFormat = 'text', lineNumbers = true } = rendering
  const memory = dedupeOf(options) ? new ReadMemory() : undefined
  return {
    resultFormat,
    lineNumbers,
    memory,
    lastRead: (path) => workspace.lastRead(path) ?? undefined,
    // `agent-read-file mcp`'s answer to a plain call, made in Rust (adapters/mcp-core.js).
    mcpAnswer: (input, id, options, signal) => workspace.mcpAnswer(input, id, options, signal),
  }
}

/**
 * `read()` (a read of `paths`, `undefined` for a batch), told to `memory` (a `dedupeReads`
 * toolkit's) as it begins and ends, so that a window read beside another read of the same
 * file is never called unchanged. Without a memory, `read()` as it is.
 */
function tracked(memory, paths, read) {
  if (memory === undefined) return read()
  const ticket = memory.begin(paths)
  const ended = (outputs) => memory.end(ticket, outputs)
  let result
  try {
    result = read()
  } catch (error) {
    ended([])
    throw error
  }
  if (typeof result?.then !== 'function') {
    ended([result])
    return result
  }
  return result.then(
    (answer) => {
      ended(outputsOf(answer))
      return answer
    },
    (error) => {
      ended([])
      throw error
    },
  )
}

/**
 * The outputs a read answered: a batch's entries' (`{ ok, output }`), a view's with the
 * model's text (`{ output, text }` or `{ output, frame }`), or the one output.
 */
function outputsOf(answer) {
  if (Array.isArray(answer)) return answer.map((entry) => entry?.output)
  const withText = typeof answer === 'object' && answer !== null && ('text' in answer || 'frame' in answer)
  return [withText ? answer.output : answer]
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
  const workspace = new Workspace(workspaceRoot, policyOf(options, 'options', { numbered }))
  let settings
  try {
    settings = modelSettingsOf(options, rendering, workspace)
  } catch (error) {
    workspace.close()
    throw error
  }
  const close = () => workspace.close()
  // `view`, with `text` (the engine's text options) answering a text window as `{ output,
  // text }`: `runToolCall` and the adapters read and render in one call.
  const view = (input, callOptions, text) =>
    rejectingThrows(() =>
      tracked(settings.memory, [pathOf(input)], () =>
        workspace.view(input, signalOf(callOptions, 'options', () => pathOf(input)), text),
      ),
    )
  settings.view = view
  const toolkit = Object.freeze({
    definition: TOOLKIT_DEFINITIONS.read_file,
    runToolCall(args, callOptions) {
      return runToolCall(toolkit, args, callOptions)
    },
    readFile(input, callOptions) {
      return rejectingThrows(() =>
        tracked(settings.memory, [pathOf(input)], () =>
          workspace.readFile(input, signalOf(callOptions, 'options', () => pathOf(input))),
        ),
      )
    },
    view(input, callOptions) {
      return view(input, callOptions)
    },
    readFileSync(input) {
      return tracked(settings.memory, [pathOf(input)], () => workspace.readFileSync(input))
    },
    readFiles(inputs, callOptions) {
      return rejectingThrows(() =>
        tracked(settings.memory, undefined, () =>
          workspace.readFiles(inputs, signalOf(callOptions, 'options', () => 'readFiles')),
        ),
      )
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
      settings.memory?.forget()
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
