'use strict'
// What the commands share: how a malformed command line is told, and strict numbers.

const path = require('node:path')
const { parseArgs } = require('node:util')
const { codedError } = require('../lib/errors.js')

/** A malformed command line: said with the usage on stderr, exit 2. */
class UsageError extends Error {}

/**
 * The workspace root `--root` names, absolute; the current directory when `--root` is not
 * given. An empty `--root` (what `--root "$UNSET"` gives) is an `INVALID_ARGUMENT` error:
 * `path.resolve('')` would quietly widen the root to the current directory.
 */
function workspaceRoot(root) {
  if (root === undefined) return process.cwd()
  if (root === '') throw codedError('INVALID_ARGUMENT', '--root', 'empty; name a directory (`--root .` for the current one)')
  return path.resolve(root)
}

/** `parseArgs`, its complaints as `UsageError`s. */
function parseOptions(argv, options) {
  try {
    return parseArgs({ args: argv, allowPositionals: true, options })
  } catch (err) {
    throw new UsageError(err.message)
  }
}

/**
 * A whole decimal number, as typed (`12`, not `1e2`, `0x10`, `1.5`, `-1` or ``), from `min`
 * to `max`: anything else is a malformed command line naming `--<option>`.
 */
function decimal(option, text, min, max) {
  if (text === undefined) return undefined
  if (!/^[0-9]+$/.test(text)) throw new UsageError(`--${option} takes a whole decimal number (got ${JSON.stringify(text)})`)
  const number = Number(text)
  if (number < min || number > max) throw new UsageError(`--${option} is from ${min} to ${max} (got ${text})`)
  return number
}

/**
 * The package, or, when its native addon cannot be had here (no build for this platform, its
 * platform package not installed), that one paragraph on stderr and exit 1: a person running
 * a command needs what to do, not a stack.
 */
function loadPackage() {
  return requireOrExit('../index.js', /^ERR_(UNSUPPORTED_PLATFORM|PLATFORM_PACKAGE_)/, 'agent-read-file')
}

/**
 * `require(specifier)`; when it throws an error whose `code` matches `expected` (a missing
 * piece a person can install), its message on stderr after `program: ` and exit 1.
 */
function requireOrExit(specifier, expected, program) {
  try {
    return require(specifier)
  } catch (err) {
    if (!expected.test(err.code ?? '')) throw err
    process.stderr.write(`${program}: ${err.message}\n`)
    process.exit(1)
  }
}

/**
 * A root error from opening `--root` (`INVALID_ARGUMENT: <root>: workspaceRoot does not
 * exist`), said with the flag's name: `INVALID_ARGUMENT: --root <root>: does not exist`.
 */
function rootError(err, root) {
  const prefix = `${err.code}: ${root}: workspaceRoot `
  if (typeof err.message !== 'string' || !err.message.startsWith(prefix)) return err
  return codedError(err.code, `--root ${root}`, err.message.slice(prefix.length))
}

/**
 * A limit flag's value (`--NAME`, its text): `undefined` when absent, `Infinity`, or a whole
 * number from `min` to `max`.
 */
function limitFlag(name, text, min, max) {
  if (text === 'Infinity') return Infinity
  if (text !== undefined && !/^[0-9]+$/.test(text)) {
    throw new UsageError(`--${name} takes a whole decimal number or Infinity (got ${JSON.stringify(text)})`)
  }
  return decimal(name, text, min, max)
}

/** The limit flags both commands take, as `parseOptions` is told them. */
const LIMIT_FLAG_OPTIONS = {
  'max-file-bytes': { type: 'string' },
  'max-read-tokens': { type: 'string' },
  'max-media-bytes': { type: 'string' },
}

/**
 * The toolkit's options (`ToolkitOptions`) of the limit flags among parsed `values`, those
 * given: `--max-file-bytes` (a whole number from 1, or Infinity), `--max-read-tokens` (1000
 * to 2^32 - 1, or Infinity), `--max-media-bytes` (a whole number from 1). A malformed one is
 * a `UsageError`.
 */
function limitOptionsOf(values) {
  const options = {}
  const maxFileBytes = limitFlag('max-file-bytes', values['max-file-bytes'], 1, Number.MAX_SAFE_INTEGER)
  const maxReadTokens = limitFlag('max-read-tokens', values['max-read-tokens'], 1000, 0xffffffff)
  const maxMediaBytes = decimal('max-media-bytes', values['max-media-bytes'], 1, Number.MAX_SAFE_INTEGER)
  if (maxFileBytes !== undefined) options.maxFileBytes = maxFileBytes
  if (maxReadTokens !== undefined) options.maxReadTokens = maxReadTokens
  if (maxMediaBytes !== undefined) options.media = { maxFileBytes: maxMediaBytes }
  return options
}

/** The flag of each toolkit option a size refusal names, as the commands take it. */
const LIMIT_FLAGS = [
  ["the toolkit's media.maxFileBytes", '--max-media-bytes'],
  ["the toolkit's maxFileBytes", '--max-file-bytes'],
]

/**
 * A size refusal's message (`SIZE_LIMIT_EXCEEDED: ...; the toolkit's maxFileBytes lifts the
 * limit`) naming the command's flag in place of the toolkit's option; any other as it is.
 */
function withLimitFlags(message) {
  if (typeof message !== 'string' || !message.startsWith('SIZE_LIMIT_EXCEEDED: ')) return message
  for (const [option, flag] of LIMIT_FLAGS) {
    const said = `; ${option} lifts the limit`
    if (message.endsWith(said)) return `${message.slice(0, -said.length)}; ${flag} lifts the limit`
  }
  return message
}

/** `parse(argv)`; a `UsageError` is said with `usage` on stderr, and the program exits 2. */
function parseOrExit(parse, argv, usage) {
  try {
    return parse(argv)
  } catch (err) {
    if (!(err instanceof UsageError)) throw err
    process.stderr.write(`agent-read-file: ${err.message}\n${usage}\n`)
    process.exit(2)
  }
}

/** Writes to stdout; a reader that went away (`| head`) ends the program quietly. */
function print(text) {
  try {
    process.stdout.write(text)
  } catch (err) {
    if (err.code === 'EPIPE') process.exit(0)
    throw err
  }
}

/** A closed stdout (`| head`, an MCP client gone) ends the program quietly, status 0. */
function endQuietlyOnClosedStdout() {
  process.stdout.on('error', (err) => {
    if (err.code === 'EPIPE') process.exit(0)
    throw err
  })
}

module.exports = {
  UsageError,
  parseOptions,
  decimal,
  LIMIT_FLAG_OPTIONS,
  limitOptionsOf,
  withLimitFlags,
  workspaceRoot,
  parseOrExit,
  print,
  endQuietlyOnClosedStdout,
  loadPackage,
  requireOrExit,
  rootError,
}
