'use strict'
// JSON-RPC 2.0 over newline-delimited stdio, as `agent-read-file mcp` reads it: cutting the
// input into lines of bounded size, and telling each line's fate: a message for the MCP SDK,
// or the error to answer (with the id it names, so that the client waiting on it is freed).

const { ErrorCode, JSONRPCMessageSchema, ClientRequestSchema } = require('@modelcontextprotocol/sdk/types.js')
const { isStateless, unwrapStateless } = require('./mcp-revision.js')

const NEWLINE = 0x0a
const QUOTE = 0x22
const BACKSLASH = 0x5c
const COLON = 0x3a
const COMMA = 0x2c
const OPENERS = new Set([0x7b, 0x5b]) // { [
const CLOSERS = new Set([0x7d, 0x5d]) // } ]
const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d])
// An id longer than this is no id a client made to match answers by; it is not echoed.
const MAX_ID_BYTES = 256
// The top-level keys that matter here (`id`, `method`, `result`, `error`) are short.
const MAX_KEY_BYTES = 16

/**
 * Cuts a byte stream into lines. A line up to `maxBytes` is handed whole to `onLine(buffer)`;
 * a longer one is never held: its bytes are only scanned for the message's top-level keys,
 * and at its end `onOversized(byteLength, { id, isResponse })` is called.
 */
class LineSplitter {
  constructor(maxBytes, { onLine, onOversized }) {
    this.maxBytes = maxBytes
    this.onLine = onLine
    this.onOversized = onOversized
    this.reset()
  }

  /** Takes the next chunk of input. */
  push(chunk) {
    let start = 0
    while (start < chunk.length) {
      const end = chunk.indexOf(NEWLINE, start)
      this.take(chunk.subarray(start, end === -1 ? chunk.length : end))
      if (end === -1) return
      this.endLine()
      start = end + 1
    }
  }

  take(bytes) {
    this.size += bytes.length
    if (this.scanner) return this.scanner.feed(bytes)
    if (this.size <= this.maxBytes) return this.parts.push(bytes)
    this.scanner = new TopLevelKeyScanner()
    for (const part of [...this.parts, bytes]) this.scanner.feed(part)
    this.parts = []
  }

  endLine() {
    if (this.scanner) this.onOversized(this.size, this.scanner.result())
    else this.onLine(Buffer.concat(this.parts, this.size))
    this.reset()
  }

  reset() {
    this.parts = []
    this.size = 0
    this.scanner = null
  }
}

/**
 * Reads the bytes of one JSON text in passing, keeping only what an answer to it needs: the
 * names of its top-level keys and the text of its top-level `id`. Nothing else is held.
 */
class TopLevelKeyScanner {
  constructor() {
    this.depth = 0
    this.ended = false // the top-level value is over (or is not an object)
    this.inString = false
    this.escaped = false
    this.expectKey = false
    this.expectValue = false
    this.lastKey = ''
    this.keyBytes = null // the top-level key being read
    this.idBytes = null // the top-level id value being read
    this.idIsString = false
    this.idText = undefined
    this.keys = new Set()
  }

  feed(bytes) {
    for (let i = 0; i < bytes.length; i++) {
      if (this.ended) return
      const byte = bytes[i]
      if (this.inString) this.stringByte(byte)
      else this.structureByte(byte)
    }
  }

  stringByte(byte) {
    if (this.escaped) this.escaped = false
    else if (byte === BACKSLASH) this.escaped = true
    else if (byte === QUOTE) return this.endString()
    if (this.keyBytes && this.keyBytes.length <= MAX_KEY_BYTES) this.keyBytes.push(byte)
    if (this.idBytes) this.keepIdByte(byte)
  }

  endString() {
    this.inString = false
    if (this.keyBytes) {
      this.lastKey = Buffer.from(this.keyBytes).toString('utf8')
      this.keys.add(this.lastKey)
      this.keyBytes = null
    } else if (this.idBytes) {
      this.keepIdByte(QUOTE)
      this.endId()
    }
  }

  structureByte(byte) {
    if (this.idBytes && !this.idIsString) {
      // A number or a literal ends at the first byte that cannot be part of it.
      if (!WHITESPACE.has(byte) && byte !== COMMA && !CLOSERS.has(byte)) return this.keepIdByte(byte)
      this.endId()
    }
    if (WHITESPACE.has(byte)) return
    if (this.depth === 0) return this.startTopLevel(byte)
    if (this.depth === 1 && this.expectValue) return this.startValue(byte)
    if (byte === QUOTE) {
      this.inString = true
      if (this.depth === 1 && this.expectKey) {
        this.expectKey = false
        this.keyBytes = []
      }
    } else if (OPENERS.has(byte)) this.depth++
    else if (CLOSERS.has(byte)) {
      this.depth--
      if (this.depth === 0) this.ended = true
    } else if (this.depth === 1 && byte === COMMA) this.expectKey = true
    else if (this.depth === 1 && byte === COLON) this.expectValue = true
  }

  startTopLevel(byte) {
    if (byte !== 0x7b) {
      this.ended = true
      return
    }
    this.depth = 1
    this.expectKey = true
  }

  startValue(byte) {
    this.expectValue = false
    if (this.lastKey === 'id' && !OPENERS.has(byte)) {
      this.idBytes = [byte]
      this.idIsString = byte === QUOTE
      this.inString = this.idIsString
      return
    }
    if (this.lastKey === 'id') this.idText = undefined // an object or array is no id
    this.structureByte(byte)
  }

  keepIdByte(byte) {
    if (this.idBytes.length < MAX_ID_BYTES) this.idBytes.push(byte)
    else this.idBytes = null
  }

  endId() {
    this.idText = Buffer.from(this.idBytes).toString('utf8')
    this.idBytes = null
  }

  /** `{ id, isResponse }`: the id to answer with (null when none is usable), and whether the
   * message is a response, which is never answered. */
  result() {
    if (this.idBytes) this.endId()
    let id = null
    try {
      id = answerableId(JSON.parse(this.idText))
    } catch {}
    return { id, isResponse: isResponseShape(this.keys) }
  }
}

/** The id an answer to a message carries: the message's own when it is a string or a number
 * a client can match, else null (JSON-RPC's id for "could not tell"). */
function answerableId(id) {
  return typeof id === 'string' || Number.isFinite(id) ? id : null
}

/** A response (to a request of the server's) has a `result` or an `error`, and no `method`. */
function isResponseShape(keys) {
  return !keys.has('method') && (keys.has('result') || keys.has('error'))
}

const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value)

/** A JSON-RPC error response. */
function errorResponse(id, code, message) {
  return { jsonrpc: '2.0', id, error: { code, message } }
}

/** The answer in place of one that `JSON.stringify` could not make. */
function unserialisableAnswer(id, err) {
  return errorResponse(id, ErrorCode.InternalError, `Internal error: the answer could not be serialised (${err.message})`)
}

/** The answer to a request whose handler threw `err`, as the SDK's server makes it. */
function internalErrorAnswer(id, err) {
  return errorResponse(id, Number.isSafeInteger(err?.code) ? err.code : ErrorCode.InternalError, err?.message ?? 'Internal error')
}

/** The answer to a line over the size limit. */
function oversizedAnswer(byteLength, maxBytes, id) {
  return errorResponse(id, ErrorCode.InvalidRequest, `Invalid Request: the message is ${byteLength} bytes; the limit is ${maxBytes}`)
}

// The SDK's schema for each request a client may send, by method: a request whose params do
// not fit is answered `InvalidParams` here, where the SDK would answer `InternalError` with
// its validator's issues as a multi-line JSON dump.
const REQUEST_SCHEMAS = new Map(ClientRequestSchema.options.map((schema) => [schema.shape.method.value, schema]))

/** A validator's issues in one line: the first one, where it is and what it says. */
function issuesInOneLine(error) {
  const [first, ...rest] = error.issues
  const where = first.path.length > 0 ? `${first.path.join('.')}: ` : ''
  const what = first.message.replace(/^Invalid input: /, '').replace(/\s+/g, ' ')
  return `${where}${what}${rest.length > 0 ? ` (and ${rest.length} more)` : ''}`
}

/** What is wrong with a message's JSON-RPC envelope, in words, or '' when nothing is (the
 * SDK's schema has the last word; these say the usual mistakes plainly). */
function envelopeProblem(value) {
  if (value.jsonrpc !== '2.0') return `"jsonrpc" must be "2.0" (got ${JSON.stringify(value.jsonrpc) ?? 'none'})`
  if (!('method' in value)) return 'a request needs a "method"'
  if (typeof value.method !== 'string') return `"method" must be a string (got ${typeof value.method})`
  if ('id' in value && answerableId(value.id) === null) return `"id" must be a string or a number (got ${JSON.stringify(value.id)})`
  if ('params' in value && !isObject(value.params)) return `"params" must be an object (got ${typeof value.params})`
  return ''
}

/** What is wrong with a request's params, by the SDK's schema for its method, or ''. */
function paramsProblem(request) {
  const schema = REQUEST_SCHEMAS.get(request.method)
  const parsed = schema?.safeParse({ method: request.method, params: request.params })
  return !parsed || parsed.success ? '' : issuesInOneLine(parsed.error)
}

const hasOnly = (object, keys) => Object.keys(object).every((key) => keys.has(key))
const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params'])
const CALL_PARAMS_KEYS = new Set(['name', 'arguments', '_meta'])
const META_KEYS = new Set(['progressToken'])

/**
 * Whether `value` is a `tools/call` of the tool `name` in the plainest shape, one that the
 * SDK's schemas accept as it is: an id, an arguments object, at most a progress token in
 * `_meta`, no task. Such a call may be answered without the SDK; any other shape goes
 * through it, with its checks and its errors.
 */
function isPlainToolCall(value, name) {
  if (value.method !== 'tools/call' || value.jsonrpc !== '2.0' || !hasOnly(value, REQUEST_KEYS)) return false
  if (!(typeof value.id === 'string' || Number.isSafeInteger(value.id))) return false
  const { params } = value
  if (!isObject(params) || params.name !== name || !isObject(params.arguments) || !hasOnly(params, CALL_PARAMS_KEYS)) return false
  const meta = params._meta
  if (meta === undefined) return true
  const token = meta?.progressToken
  return isObject(meta) && hasOnly(meta, META_KEYS) && (token === undefined || typeof token === 'string' || typeof token === 'number')
}

/**
 * What one line of input is: `{ message }` for the SDK, `{ call }` for a plain call of the
 * tool `directTool` names (see `isPlainToolCall`), `{ answer }` for an error to write back at
 * once, `{ discover }` for a `server/discover` request, `{ dropped }` (a reason) for what
 * JSON-RPC answers nothing to (a malformed response), or `{}` for a blank line. A request in
 * MCP's stateless revision is judged without its envelope (`unwrapStateless`), and its
 * verdict says `stateless` (its method): its answer gets what that revision adds.
 */
function readLine(buffer, directTool) {
  const line = buffer.toString('utf8')
  const text = line.endsWith('\r') ? line.slice(0, -1) : line
  // Stops at the first character that is not a space: a message's first, `{`.
  if (!/\S/.test(text)) return {}
  let value
  try {
    value = JSON.parse(text)
  } catch (err) {
    return { answer: errorResponse(null, ErrorCode.ParseError, `Parse error: ${err.message.replace(/\s+/g, ' ')}`) }
  }
  if (!isObject(value) || !isStateless(value)) return classify(value, directTool)
  const { answer, discover, request } = unwrapStateless(value)
  if (answer) return { answer }
  if (discover) return { discover: value }
  const verdict = classify(request, directTool)
  verdict.stateless = request.method
  return verdict
}

/** `readLine`'s verdict on a parsed JSON value (a stateless request without its envelope). */
function classify(value, directTool) {
  if (directTool !== undefined && isObject(value) && isPlainToolCall(value, directTool)) return { call: value }
  return checkMessage(value)
}

/** `readLine`'s verdict on a parsed JSON value. */
function checkMessage(value) {
  if (!isObject(value)) {
    const said = Array.isArray(value) ? 'batches (JSON arrays) are not supported; send one message per line' : 'a message is a JSON object'
    return { answer: errorResponse(null, ErrorCode.InvalidRequest, `Invalid Request: ${said}`) }
  }
  if (isResponseShape(new Set(Object.keys(value)))) {
    const parsed = JSONRPCMessageSchema.safeParse(value)
    return parsed.success ? { message: parsed.data } : { dropped: `a malformed response: ${issuesInOneLine(parsed.error)}` }
  }
  const id = answerableId(value.id)
  const problem = envelopeProblem(value)
  if (problem) return { answer: errorResponse(id, ErrorCode.InvalidRequest, `Invalid Request: ${problem}`) }
  const parsed = JSONRPCMessageSchema.safeParse(value)
  if (!parsed.success) return { answer: errorResponse(id, ErrorCode.InvalidRequest, `Invalid Request: ${issuesInOneLine(parsed.error)}`) }
  const invalidParams = 'id' in value ? paramsProblem(value) : ''
  if (invalidParams) return { answer: errorResponse(id, ErrorCode.InvalidParams, `Invalid params for ${value.method}: ${invalidParams}`) }
  return { message: parsed.data }
}

module.exports = { LineSplitter, readLine, isPlainToolCall, oversizedAnswer, unserialisableAnswer, internalErrorAnswer }
