// The read_file contract in plain Node, written the way a TypeScript agent toolkit would
// write it: fs.promises (or the sync fs calls), realpath confinement, stat, read the whole
// file, TextDecoder, replace(/\r\n/g, '\n'), split('\n'), slice, join.
//
// It is the baseline the addon is measured against (benchmark/bench.mjs), so it aims to be
// correct and ordinary: no caching across calls, no hand-rolled byte scanning.

import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'

export const MAX_FILE_BYTES = 1024 * 1024
const BINARY_SCAN_BYTES = 8192
const DEFAULT_MAX_LINES = 200
const MAX_MAX_LINES = 500

export class ReadFileError extends Error {
  constructor(code, requestedPath, reason) {
    super(`${code}: ${requestedPath === '' ? '""' : requestedPath}: ${reason}`)
    this.name = 'ReadFileError'
    this.code = code
  }
}

function typeName(value) {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value
}

/** Validates the arguments; returns `{ root, requested, startLine, maxLines }`. */
function parseArgs(workspaceRoot, input) {
  if (typeName(input) !== 'object') {
    throw new ReadFileError(
      'INVALID_ARGUMENT',
      'input',
      `input must be an object like { path: "src/main.ts" } (got ${typeName(input)})`,
    )
  }
  const requested = input.path
  if (typeof requested !== 'string') {
    throw new ReadFileError('INVALID_ARGUMENT', 'path', `path must be a non-empty string (got ${typeName(requested)})`)
  }
  if (requested === '') throw new ReadFileError('INVALID_ARGUMENT', '', 'path must be a non-empty string')
  if (requested.includes('\0')) {
    throw new ReadFileError('INVALID_ARGUMENT', requested, 'path must not contain a NUL character')
  }
  const startLine = integerArg(requested, input.start_line, 'start_line', 1, Infinity, 1)
  const maxLines = integerArg(requested, input.max_lines, 'max_lines', 1, MAX_MAX_LINES, DEFAULT_MAX_LINES)
  if (typeof workspaceRoot !== 'string' || !path.isAbsolute(workspaceRoot) || workspaceRoot.includes('\0')) {
    throw new ReadFileError('INVALID_ARGUMENT', requested, 'workspaceRoot must be an absolute path to a directory')
  }
  return { root: path.resolve(workspaceRoot), requested, startLine, maxLines }
}

function integerArg(requested, value, name, min, max, fallback) {
  if (value === undefined || value === null) return fallback
  const range = max === Infinity ? `an integer >= ${min}` : `an integer from ${min} to ${max}`
  if (typeof value !== 'number') {
    throw new ReadFileError('INVALID_ARGUMENT', requested, `${name} must be ${range} (got ${typeName(value)})`)
  }
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ReadFileError('INVALID_ARGUMENT', requested, `${name} must be ${range} (got ${value})`)
  }
  return value
}

/** `rel` (from path.relative) leaves its base directory. */
function escapes(rel) {
  return rel === '..' || rel.startsWith('..' + path.sep) || path.isAbsolute(rel)
}

/**
 * The requested path resolved against the root, and its workspace-relative spelling.
 * An absolute path may name the root by its given spelling or by its real path.
 */
function resolveLexically(args, rootReal) {
  const { root, requested } = args
  const bases = path.isAbsolute(requested) && rootReal !== root ? [root, rootReal] : [root]
  for (const base of bases) {
    const absolute = path.resolve(base, requested)
    const rel = path.relative(base, absolute)
    if (!escapes(rel)) return { absolute, rel: rel.split(path.sep).join('/') }
  }
  throw new ReadFileError('OUTSIDE_WORKSPACE', requested, 'path resolves outside the workspace')
}

function isInside(rootReal, targetReal) {
  return targetReal === rootReal || targetReal.startsWith(rootReal.endsWith(path.sep) ? rootReal : rootReal + path.sep)
}

function rootError(args, err) {
  const reason =
    err.code === 'ENOENT'
      ? 'workspaceRoot does not exist'
      : err.code === 'ENOTDIR'
        ? 'workspaceRoot is not a directory'
        : `workspaceRoot cannot be opened (${err.code})`
  return new ReadFileError('INVALID_ARGUMENT', args.requested, reason)
}

function fsError(requested, err) {
  switch (err.code) {
    case 'ENOENT':
      return new ReadFileError('NOT_FOUND', requested, 'no such file in the workspace')
    case 'ENOTDIR':
      return new ReadFileError('NOT_FOUND', requested, 'a parent of this path is not a directory')
    case 'ELOOP':
      return new ReadFileError('NOT_FOUND', requested, 'too many levels of symbolic links')
    case 'ENAMETOOLONG':
      return new ReadFileError('NOT_FOUND', requested, 'file name too long')
    case 'EACCES':
    case 'EPERM':
      return new ReadFileError('PERMISSION_DENIED', requested, 'permission denied')
    default:
      return new ReadFileError('INTERNAL', requested, err.message)
  }
}

function describeKind(stats) {
  if (stats.isDirectory()) return 'a directory'
  if (stats.isFIFO()) return 'a FIFO'
  if (stats.isSocket()) return 'a socket'
  if (stats.isCharacterDevice()) return 'a character device'
  if (stats.isBlockDevice()) return 'a block device'
  return 'not a regular file'
}

function checkStats(requested, stats) {
  if (!stats.isFile()) throw new ReadFileError('NOT_FILE', requested, `${describeKind(stats)}, not a regular file`)
  checkSize(requested, stats.size)
}

function checkSize(requested, size) {
  if (size > MAX_FILE_BYTES) {
    throw new ReadFileError(
      'SIZE_LIMIT_EXCEEDED',
      requested,
      `file is ${size} bytes, over the limit of ${MAX_FILE_BYTES} bytes`,
    )
  }
}

/** Everything after the bytes are in memory: binary check, decode, line window. */
function buildOutput(args, rel, stats, buffer) {
  checkSize(args.requested, buffer.length)
  if (buffer.subarray(0, BINARY_SCAN_BYTES).includes(0)) {
    throw new ReadFileError('BINARY_NOT_SUPPORTED', args.requested, 'binary file (NUL byte in the first 8192 bytes)')
  }
  // TextDecoder drops a leading BOM and replaces invalid UTF-8 with U+FFFD.
  const text = new TextDecoder('utf-8').decode(buffer).replace(/\r\n/g, '\n')
  const lines = text.split('\n')
  const endsWithNewline = text.endsWith('\n')
  if (endsWithNewline || text === '') lines.pop()

  const start = args.startLine - 1
  const end = Math.min(start + args.maxLines, lines.length)
  const window = lines.slice(start, end)
  const truncated = end < lines.length
  let content = window.join('\n')
  if (window.length > 0 && (truncated || endsWithNewline)) content += '\n'

  return {
    path: rel,
    content,
    truncated,
    next_start_line: truncated ? args.startLine + window.length : null,
    meta: {
      byte_length: buffer.length,
      line_count: lines.length,
      returned_line_count: window.length,
      mtime_ms: Math.floor(stats.mtimeMs),
    },
  }
}

/** Reads a window of a file in the workspace (async, fs.promises). */
export async function readFilePlain(workspaceRoot, input) {
  const args = parseArgs(workspaceRoot, input)
  let rootReal
  try {
    rootReal = await fsp.realpath(args.root)
  } catch (err) {
    throw rootError(args, err)
  }
  const { absolute, rel } = resolveLexically(args, rootReal)

  let targetReal
  try {
    targetReal = await fsp.realpath(absolute)
  } catch (err) {
    if (err.code === 'ENOTDIR' && !(await fsp.stat(rootReal)).isDirectory()) {
      throw rootError(args, err)
    }
    throw fsError(args.requested, err)
  }
  if (!isInside(rootReal, targetReal)) {
    throw new ReadFileError('OUTSIDE_WORKSPACE', args.requested, 'path resolves outside the workspace')
  }

  let stats, buffer
  try {
    stats = await fsp.stat(targetReal)
    checkStats(args.requested, stats)
    buffer = await fsp.readFile(targetReal)
  } catch (err) {
    throw err instanceof ReadFileError ? err : fsError(args.requested, err)
  }
  return buildOutput(args, rel, stats, buffer)
}

/** The same, with the synchronous fs calls. */
export function readFilePlainSync(workspaceRoot, input) {
  const args = parseArgs(workspaceRoot, input)
  let rootReal
  try {
    rootReal = fs.realpathSync(args.root)
  } catch (err) {
    throw rootError(args, err)
  }
  const { absolute, rel } = resolveLexically(args, rootReal)

  let targetReal
  try {
    targetReal = fs.realpathSync(absolute)
  } catch (err) {
    if (err.code === 'ENOTDIR' && !fs.statSync(rootReal).isDirectory()) {
      throw rootError(args, err)
    }
    throw fsError(args.requested, err)
  }
  if (!isInside(rootReal, targetReal)) {
    throw new ReadFileError('OUTSIDE_WORKSPACE', args.requested, 'path resolves outside the workspace')
  }

  let stats, buffer
  try {
    stats = fs.statSync(targetReal)
    checkStats(args.requested, stats)
    buffer = fs.readFileSync(targetReal)
  } catch (err) {
    throw err instanceof ReadFileError ? err : fsError(args.requested, err)
  }
  return buildOutput(args, rel, stats, buffer)
}
