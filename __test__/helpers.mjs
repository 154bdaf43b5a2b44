// Shared fixtures and independent oracles for the read_file suite. Expected values are
// always computed here from the bytes on disk (TextDecoder, string replace, fs.stat),
// never taken from the addon's own output.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * The addon's test hooks (`readPathCounts`, `readFloorNs`), which it adds to its exports only
 * when loaded with `AGENT_READ_FILE_TEST_HOOKS=1` (the test scripts set it).
 */
export function testHooks() {
  const { testHooks: hooks } = createRequire(import.meta.url)('../lib/native.js')
  if (hooks === undefined) throw new Error('run with AGENT_READ_FILE_TEST_HOOKS=1 (npm test sets it)')
  return hooks
}

/** Absolute path of the package entry point, for child processes. */
export const INDEX_PATH = fileURLToPath(new URL('../index.js', import.meta.url))

/**
 * What this runtime needs from the environment to start again as a child, beyond what an
 * MCP client passes on (the SDK's `getDefaultEnvironment()`: HOME, PATH, ...): qemu-user's
 * `QEMU_*` variables (`QEMU_LD_PREFIX` finds an emulated runtime's loader and libraries).
 * For `StdioClientTransport`'s `env`, which the SDK adds to its default environment.
 */
export function runtimeEnvironment() {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('QEMU_')))
}

export const ERROR_CODES = [
  'INVALID_ARGUMENT',
  'NOT_FOUND',
  'NOT_FILE',
  'BINARY_NOT_SUPPORTED',
  'SIZE_LIMIT_EXCEEDED',
  'OUTSIDE_WORKSPACE',
  'PERMISSION_DENIED',
  'INTERNAL',
]

/** The tool definition of the specification, written out independently of index.js. */
export const SPEC_DEFINITION = {
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

/**
 * A toolkit's tool definition, written out independently of index.js: the specification's,
 * one sentence more on cut lines, a negative `start_line` (from the end), and `start_column`.
 */
export const TOOLKIT_DEFINITION = {
  name: 'read_file',
  description:
    'Reads a UTF-8 text file in the workspace and returns a line-limited content window. ' +
    'A line too long to return whole is cut, and a marker line says how to read the rest. ' +
    'Also reads images (PNG, JPEG, GIF, WebP), Jupyter notebooks and PDFs.',
  parameters: {
    type: 'object',
    properties: {
      path: structuredClone(SPEC_DEFINITION.parameters.properties.path),
      start_line: {
        type: ['integer', 'null'],
        default: 1,
        description: '1-based start line of the returned window (default: 1). Negative counts from the end: -50 reads the last 50 lines.',
      },
      max_lines: {
        type: ['integer', 'null'],
        minimum: 1,
        maximum: 500,
        default: 200,
        description: 'Maximum number of lines to return, at most 500 (default: 200).',
      },
      start_column: {
        type: ['integer', 'null'],
        minimum: 1,
        default: 1,
        description:
          "1-based column (in UTF-8 bytes) of start_line to start from; set it only as a cut line's marker says, " +
          'to read the rest of that line (default: 1).',
      },
      pages: {
        type: ['string', 'null'],
        description: 'PDF pages to read, like "3" or "3-7" (at most 20), or a notebook\'s cells; omit for other files.',
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
        maxItems: 16,
        description: 'Line ranges to read in one call, like ["10-40", "120-160"].',
      },
    },
    required: ['path'],
  },
}

/**
 * A fresh fixture directory: `<tmp>/ws` is the workspace, `<tmp>/outside/secret.txt` is a
 * file next to it that must never be readable through it.
 */
export function makeFixture() {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'read-file-'))
  const ws = path.join(base, 'ws')
  const outside = path.join(base, 'outside')
  fs.mkdirSync(ws)
  fs.mkdirSync(outside)
  const secret = path.join(outside, 'secret.txt')
  fs.writeFileSync(secret, 'TOP SECRET: outside the workspace\n')
  return {
    base,
    ws,
    outside,
    secret,
    /** Writes `data` at workspace-relative `rel` (parents created); returns the absolute path. */
    write(rel, data) {
      const file = path.join(ws, rel)
      fs.mkdirSync(path.dirname(file), { recursive: true })
      fs.writeFileSync(file, data)
      return file
    },
    /** Creates a symlink at workspace-relative `rel` pointing at `target` (as given). */
    link(rel, target) {
      const file = path.join(ws, rel)
      fs.mkdirSync(path.dirname(file), { recursive: true })
      fs.symlinkSync(target, file)
      return file
    },
    cleanup() {
      fs.rmSync(base, { recursive: true, force: true })
    },
  }
}

// ---------------------------------------------------------------------------------------
// The line model, independently.

/** The text the contract says a file holds: decoded (BOM dropped, U+FFFD), CRLF -> LF. */
export function expectedText(bytes) {
  return new TextDecoder().decode(bytes).replaceAll('\r\n', '\n')
}

/** Lines of `text`, each keeping its `\n`; an unterminated tail is the last line. */
export function splitLines(text) {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? []
}

/** `\n` count, plus one for a non-empty text not ending in `\n`. */
export function countLines(text) {
  const newlines = text.split('\n').length - 1
  return newlines + (text.length > 0 && !text.endsWith('\n') ? 1 : 0)
}

/** What the window (start_line, max_lines) of `text` must look like. */
export function expectedWindow(text, startLine = 1, maxLines = 200) {
  const lines = splitLines(text)
  const first = Math.min(startLine - 1, lines.length)
  const slice = lines.slice(first, first + maxLines)
  const truncated = first + slice.length < lines.length
  return {
    content: slice.join(''),
    truncated,
    next_start_line: truncated ? startLine + slice.length : null,
    line_count: lines.length,
    returned_line_count: slice.length,
  }
}

/** Math.floor of the file's mtime in milliseconds, from the nanosecond stat. */
export function expectedMtimeMs(file) {
  const ns = fs.statSync(file, { bigint: true }).mtimeNs
  let ms = ns / 1_000_000n
  if (ns % 1_000_000n < 0n) ms -= 1n // BigInt division truncates; we want floor
  return Number(ms)
}

/** The full output the contract requires for reading `file` (absolute) as `requested`. */
export function expectedOutput(file, returnedPath, startLine = 1, maxLines = 200) {
  const bytes = fs.readFileSync(file)
  const window = expectedWindow(expectedText(bytes), startLine, maxLines)
  return {
    path: returnedPath,
    content: window.content,
    truncated: window.truncated,
    next_start_line: window.next_start_line,
    meta: {
      byte_length: bytes.length,
      line_count: window.line_count,
      returned_line_count: window.returned_line_count,
      mtime_ms: expectedMtimeMs(file),
    },
  }
}

/**
 * The text a model is given for a read of `file` (engine/src/model_text.rs), written out from the
 * bytes on disk: `path lines A-B of T (S bytes)`, each line after its number and a tab (or
 * as it is, `lineNumbers: false`), and `[next: start_line=N]` when lines are left.
 */
export function expectedModelText(file, returnedPath, startLine = 1, maxLines = 200, { lineNumbers = true } = {}) {
  const bytes = fs.readFileSync(file)
  const window = expectedWindow(expectedText(bytes), startLine, maxLines)
  const lines = splitLines(window.content).map((line) => line.replace(/\n$/, ''))
  const last = startLine + lines.length - 1
  const span = lines.length === 1 ? `line ${startLine}` : `lines ${startLine}-${last}`
  const header = `${returnedPath} ${span} of ${window.line_count} (${bytes.length} bytes)\n`
  const body = lines.map((line, i) => (lineNumbers ? `${startLine + i}\t${line}\n` : `${line}\n`)).join('')
  const closing = window.next_start_line === null ? '' : `[next: start_line=${window.next_start_line}]\n`
  return header + body + closing
}

/**
 * `text` (a model text, see `expectedModelText`) with a toolkit's `note` said in brackets
 * before its closing line (a window capped at 500 lines always has one).
 */
export function withNote(text, note) {
  const lines = text.split('\n') // the last is '' after the closing line's \n
  lines.splice(-2, 0, `[${note}]`)
  return lines.join('\n')
}

/**
 * The text a model is given for a window that is one cut line (see `cutMarker`): the header,
 * the line's part, and the closing line naming the column it continues at. `from` is the
 * column the window started at.
 */
export function expectedCutText({ path, size, lineCount, line, part, column, length, from = 1 }) {
  const header = `${path} line ${line} of ${lineCount}${from > 1 ? ` from column ${from}` : ''} (${size} bytes)\n`
  const closing = `[line ${line} continues at column ${column} of ${length}; next: start_line=${line} start_column=${column}]\n`
  return `${header}${line}\t${part}\n${closing}`
}

// ---------------------------------------------------------------------------------------
// Cut lines (a toolkit's content budget), independently.

/** The marker line after a cut line, its `\n` included, as the contract spells it. */
export function cutMarker(line, column, length) {
  return `[line ${line} continues at column ${column} of ${length}: call read_file with start_line ${line} and start_column ${column}]\n`
}

/** The short marker the contract allows when its numbers are extreme (lines over ~10 digits long). */
export function shortCutMarker(line, column) {
  return `[call read_file with start_line ${line} and start_column ${column}]\n`
}

/** A file's lines as stored: each line's bytes without its terminator (`\n` or `\r\n`). */
export function storedLines(bytes) {
  const lines = []
  let start = 0
  while (start < bytes.length) {
    const newline = bytes.indexOf(0x0a, start)
    const end = newline === -1 ? bytes.length : newline
    const text = end > start && bytes[end - 1] === 0x0d && newline !== -1 ? end - 1 : end
    lines.push(bytes.subarray(start, text))
    start = newline === -1 ? bytes.length : newline + 1
  }
  return lines
}

/** The 0-based byte where a window starting at 1-based `column` of `line` starts: a character's first byte, at most the line's end. */
export function columnStart(line, column) {
  let at = Math.min(column - 1, line.length)
  while (at > 0 && at < line.length && (line[at] & 0xc0) === 0x80) at--
  return at
}

/**
 * What a toolkit's window from byte column `startColumn` of `startLine` holds when no budget
 * cuts it: the rest of that line, then whole lines, `maxLines` lines in all.
 */
export function expectedColumnWindow(bytes, startLine, startColumn = 1, maxLines = 200) {
  const lines = storedLines(bytes)
  const first = startLine - 1
  if (first >= lines.length) return { content: '', truncated: false, next_start_line: null, returned_line_count: 0 }
  const end = Math.min(lines.length, first + maxLines)
  let content = ''
  for (let i = first; i < end; i++) {
    const from = i === first ? columnStart(lines[i], startColumn) : 0
    const terminated = i < lines.length - 1 || bytes.at(-1) === 0x0a
    content += new TextDecoder().decode(lines[i].subarray(from)) + (terminated ? '\n' : '')
  }
  const truncated = end < lines.length
  return { content, truncated, next_start_line: truncated ? end + 1 : null, returned_line_count: end - first }
}

/**
 * Checks that `out` is the answer for line `lineNumber` (its stored bytes `line`, of a file
 * of `lineCount` lines) read from byte `from` (0-based) and cut to fit `budget`: a non-empty
 * part of the line from `from`, whole characters, then `\n` and the marker naming where the
 * rest starts; `truncated`, one line returned, `next_start_line` the next line (null after
 * the last) and `continuation` the arguments that read on. Returns the part and where the
 * rest starts (0-based).
 */
export function checkCutAnswer(out, { line, lineNumber, from, budget, lineCount }) {
  const newline = out.content.indexOf('\n')
  assert.ok(newline > 0, `a cut answer has a part of the line: ${JSON.stringify(out.content.slice(0, 200))}`)
  const part = out.content.slice(0, newline)
  const partBytes = Buffer.from(part)
  const rest = from + partBytes.length
  assert.ok(rest < line.length, 'a cut answer leaves part of its line out')
  assert.ok(partBytes.equals(line.subarray(from, rest)), `the part is the line's bytes from byte ${from + 1}, whole characters`)
  const column = rest + 1
  assert.equal(out.content.slice(newline + 1), cutMarker(lineNumber, column, line.length))
  assert.ok(Buffer.byteLength(out.content) <= budget, `${Buffer.byteLength(out.content)} bytes, over the budget ${budget}`)
  assert.equal(out.truncated, true)
  assert.equal(out.meta.returned_line_count, 1)
  assert.equal(out.next_start_line, lineNumber < lineCount ? lineNumber + 1 : null)
  assert.ok(Object.hasOwn(out, 'continuation'), 'a cut answer has its own continuation')
  assert.deepEqual(out.continuation, { start_line: lineNumber, start_column: column })
  return { part, rest }
}

/** Every object reachable from `value`, each with the path that reaches it from `where`. */
export function objectsIn(value, where = 'root', out = []) {
  out.push([where, value])
  for (const [key, child] of Object.entries(value)) {
    if (typeof child === 'object' && child !== null) objectsIn(child, `${where}.${key}`, out)
  }
  return out
}

// ---------------------------------------------------------------------------------------
// Errors.

/**
 * Asserts `err` is the contract's error: an Error with `code`, message
 * `CODE: <requested path>: <reason>` (the path part is only checked when given).
 */
export function checkError(err, code, requestedPath) {
  assert.ok(err instanceof Error, `expected an Error, got ${String(err)}`)
  assert.equal(err.code, code, `wrong code; message was ${JSON.stringify(err.message)}`)
  const prefix = requestedPath === undefined ? `${code}: ` : `${code}: ${requestedPath}: `
  assert.ok(
    err.message.startsWith(prefix),
    `message ${JSON.stringify(err.message)} should start with ${JSON.stringify(prefix)}`,
  )
  assert.ok(err.message.length > prefix.length, 'message should give a reason')
  return err
}

/** The error `fn` throws (fails when it returns). */
export function thrown(fn) {
  let value
  try {
    value = fn()
  } catch (err) {
    return err
  }
  assert.fail(`expected a throw, got ${JSON.stringify(value)}`)
}

/**
 * Calls an async API, failing if it throws synchronously or does not return a promise,
 * and returns the rejection reason (fails if it resolves).
 */
export async function rejection(call) {
  let promise
  try {
    promise = call()
  } catch (err) {
    assert.fail(`threw synchronously instead of rejecting: ${err && err.message}`)
  }
  assert.ok(promise && typeof promise.then === 'function', 'should return a promise')
  try {
    const value = await promise
    assert.fail(`expected a rejection, got ${JSON.stringify(value)}`)
  } catch (err) {
    if (err instanceof assert.AssertionError) throw err
    return err
  }
}

export function assertThrowsCode(fn, code, requestedPath) {
  return checkError(thrown(fn), code, requestedPath)
}

export async function assertRejectsCode(call, code, requestedPath) {
  return checkError(await rejection(call), code, requestedPath)
}

/** Settles a call as `{ ok, value }` / `{ ok: false, code, message, isError }`, sync or async. */
export async function settle(call) {
  try {
    return { ok: true, value: await call() }
  } catch (err) {
    return { ok: false, isError: err instanceof Error, code: err.code, message: err.message }
  }
}

/**
 * A workspace that a process dropped to `nobody` can search: `<base>/ws` (both 0755) with
 * `open.txt` (0644) and `locked.txt` (0000). `base` is removed by `cleanup()`.
 */
export function unreadableFileWorkspace(prefix) {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  fs.chmodSync(base, 0o755)
  const ws = path.join(base, 'ws')
  fs.mkdirSync(ws, { mode: 0o755 })
  fs.writeFileSync(path.join(ws, 'open.txt'), 'open\n', { mode: 0o644 })
  fs.writeFileSync(path.join(ws, 'locked.txt'), 'locked\n')
  fs.chmodSync(path.join(ws, 'locked.txt'), 0o000)
  return { base, ws, cleanup: () => fs.rmSync(base, { recursive: true, force: true }) }
}

// ---------------------------------------------------------------------------------------
// Child processes (for anything that could block the thread it runs on).

/**
 * Runs `source` (CommonJS) as a script in a child of the current runtime (node or bun),
 * with the runtime options `flags`, bounded by `timeout` ms; resolves with the JSON the
 * script prints last.
 */
export function runChild(dir, name, source, { timeout = 10_000, flags = [] } = {}) {
  const script = path.join(dir, name)
  fs.writeFileSync(script, source)
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [...flags, script], { timeout, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      if (err) {
        const why = err.killed ? `timed out after ${timeout} ms (hang?)` : err.message
        reject(new Error(`child ${name} failed: ${why}\nstdout: ${stdout}\nstderr: ${stderr}`))
        return
      }
      const lines = stdout.trim().split('\n')
      resolve(JSON.parse(lines[lines.length - 1]))
    })
  })
}

// ---------------------------------------------------------------------------------------
// The dialects.

/**
 * A fixture workspace for a dialect's suite, removed after it: `fx` (see `makeFixture`),
 * `ctx` (the dialects' context for it) and `abs(rel)` (a workspace file's absolute path).
 */
export function dialectWorkspace(after) {
  const fx = makeFixture()
  after(() => fx.cleanup())
  return { fx, ctx: { workspaceRoot: fx.ws }, abs: (rel) => path.join(fx.ws, rel) }
}

/**
 * Calls an async API, failing if it throws synchronously or does not return a promise,
 * and returns what it resolves to (a rejection fails the test).
 */
export async function resolution(call) {
  let promise
  assert.doesNotThrow(() => {
    promise = call()
  })
  assert.ok(promise && typeof promise.then === 'function', 'should return a promise')
  return promise
}

/**
 * Asserts that `dialect` (of `pkg.dialects`, under `name`) has a definition and an
 * execute function, and is frozen all the way down.
 */
export function checkFrozenDialect(dialect, name) {
  assert.equal(typeof dialect, 'object', name)
  assert.equal(typeof dialect.definition, 'object', name)
  assert.equal(typeof dialect.execute, 'function', name)
  for (const [where, object] of objectsIn(dialect, `dialects.${name}`)) {
    assert.ok(Object.isFrozen(object), `${where} should be frozen`)
  }
}
