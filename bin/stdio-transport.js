'use strict'
// The stdio transport of `agent-read-file mcp`: an MCP SDK `Transport` for `McpServer` that,
// unlike the SDK's StdioServerTransport, bounds what a client can make the server hold. A
// message over MAX_MESSAGE_BYTES is answered, never buffered; at most MAX_CALLS_IN_FLIGHT
// requests are being served or waiting for stdout (more wait unread in stdin: the client
// feels backpressure, not the server's memory); at most MAX_QUEUED_OUTPUT_BYTES (or one
// larger answer) wait in stdout for a client that reads late. Malformed lines get JSON-RPC's
// error for their id, and the server goes on. A plain call of one tool (`directCall`) may be
// answered here, without the SDK's layers: the server's hot path. Calls that may decode an
// image, a notebook or a PDF (`isMediaCall`) are served in a lane of their own, so that a
// text read sent after them is served at once, not after their decodes.

const { LineSplitter, readLine, oversizedAnswer, unserialisableAnswer, internalErrorAnswer } = require('./json-rpc-lines.js')
const { statelessResponse } = require('./mcp-revision.js')
const { ErrorCode } = require('@modelcontextprotocol/sdk/types.js')

/**
 * The largest message taken, in bytes (1 MiB). A client's messages to this server are an
 * `initialize`, pings, and calls whose arguments are a path and two numbers: a few KiB. 1 MiB
 * leaves room for generous capabilities and `_meta` while bounding what one line pins.
 */
const MAX_MESSAGE_BYTES = 1024 * 1024

/**
 * Requests served at once, answers not yet handed to stdout included (4). An answer carries
 * a window once (and up to 16 KiB of it again as `structuredContent` when asked): a 1 MiB
 * window and its serialised copy, about 3 MiB while it is made. 4 keep the runtime's thread
 * pool (4 threads by default) busy with reads that wait, and are few enough that reads the kernel has in memory are all done on the
 * event loop (the addon sends a burst of more than 4 calls to the pool whole): at 64
 * concurrent calls, 4 cost less CPU a call than 8 (benchmark/README.md). Each answer is
 * written as soon as it is made, so that the client parses it while the next is read.
 */
const MAX_CALLS_IN_FLIGHT = 4

/**
 * Media calls served at once (2), besides the calls above: the addon decodes one at a time
 * for the server anyway; a second is made ready to write while the first decodes. An answer
 * holds an image of up to 5 MiB of base64, so two bound what media answers hold.
 */
const MAX_MEDIA_CALLS_IN_FLIGHT = 2

/**
 * Media calls read and waiting for their lane (32): while fewer wait, stdin is read on, so
 * that text calls behind them are seen; each is one message of at most MAX_MESSAGE_BYTES.
 */
const MAX_MEDIA_CALLS_WAITING = 32

/**
 * Bytes written to stdout that the client has not taken yet (4 MiB). An answer is written
 * when it fits, or alone when nothing is waiting: an answer larger than this still goes out.
 */
const MAX_QUEUED_OUTPUT_BYTES = 4 * 1024 * 1024

// Errors that mean the client closed its end of stdout: the session is over, quietly.
const CLOSED_PIPE = new Set(['EPIPE', 'ECONNRESET', 'ERR_STREAM_DESTROYED', 'ERR_STREAM_WRITE_AFTER_END', 'EOF'])

/** A Map key for a JSON-RPC id that keeps `1` and `"1"` apart. */
const idKey = (id) => `${typeof id}:${id}`

const isRequest = (message) => 'method' in message && 'id' in message
const isResponse = (message) => !('method' in message) && 'id' in message

/**
 * An MCP `Transport` over newline-delimited JSON-RPC on `input` and `output` (stdin and
 * stdout by default). `onerror` is told only what ends the session: stdin or stdout failing
 * other than by a client gone. Limits default to the constants above.
 *
 * `directCall` (`{ tool, answer }`) answers a `tools/call` of `tool` in the plainest shape (see
 * `isPlainToolCall`) with `answer(request, signal)`: the response the SDK would send, as a
 * message or as its line (a string); the call never goes through the SDK's schemas and
 * layers, which cost several times the read itself; its third argument says whether the
 * request is in MCP's stateless revision. Every other message goes to the SDK.
 *
 * `discover()` makes the result of a `server/discover` request (MCP's stateless revision);
 * without it, such a request is answered that the method is not found. A stateless request's
 * answer gets what that revision adds (`statelessResponse`).
 *
 * `reviseAnswer(response)` gives each answer written as a message (the SDK's, a direct call's
 * made in JavaScript) as it is to be sent; a line made in Rust (never a failure) is sent as it
 * is.
 */
class BoundedStdioTransport {
  constructor({
    input = process.stdin,
    output = process.stdout,
    maxMessageBytes = MAX_MESSAGE_BYTES,
    maxCallsInFlight = MAX_CALLS_IN_FLIGHT,
    maxMediaCallsInFlight = MAX_MEDIA_CALLS_IN_FLIGHT,
    maxMediaCallsWaiting = MAX_MEDIA_CALLS_WAITING,
    maxQueuedOutputBytes = MAX_QUEUED_OUTPUT_BYTES,
    directCall,
    discover,
    isMediaCall = () => false,
    reviseAnswer = (response) => response,
  } = {}) {
    this.input = input
    this.output = output
    this.limits = { maxMessageBytes, maxQueuedOutputBytes }
    this.isMediaCall = isMediaCall
    // Requests are served in two lanes, each with its slots and the requests waiting for one.
    this.lanes = {
      calls: { slots: maxCallsInFlight, serving: 0, waiting: [], maxWaiting: 0 },
      media: { slots: maxMediaCallsInFlight, serving: 0, waiting: [], maxWaiting: maxMediaCallsWaiting },
    }
    this.directCall = directCall
    this.discover = discover
    this.reviseAnswer = reviseAnswer
    this.stateless = new Map() // id key -> the method of a stateless request being served
    this.splitter = new LineSplitter(maxMessageBytes, {
      onLine: (line) => this.received(readLine(line, directCall?.tool)),
      onOversized: (size, { id, isResponse: response }) => {
        if (!response) this.enqueue(oversizedAnswer(size, maxMessageBytes, id))
      },
    })
    this.inFlight = new Map() // id key -> the lanes of the requests with that id being served
    this.directRequests = new WeakSet() // requests for `directCall`, by readLine's verdict
    this.directAborts = new Map() // id key -> AbortControllers of direct calls with that id
    // Controllers of direct calls answered, never aborted, for the next calls: making an
    // AbortSignal costs about a tenth of a call. One is handed on only once its call is
    // settled, when the addon has taken its `abort` listener off (at most as many as calls
    // are served at once are in use or spare).
    this.spareControllers = []
    this.outbox = [] // { line, size, key, resolve }: serialised messages not yet written
    this.outboxBytes = 0
    this.queuedBytes = 0 // written to `output`, not yet taken by the client
    this.started = false
    this.closed = false
    this.onData = (chunk) => this.splitter.push(chunk)
    this.onInputError = (err) => this.fail(`cannot read stdin: ${err.code ?? err.message}`)
    this.onOutputError = (err) => this.outputFailed(err)
  }

  /** Starts reading `input`. */
  async start() {
    if (this.started) throw new Error('BoundedStdioTransport already started')
    this.started = true
    this.input.on('data', this.onData)
    this.input.on('error', this.onInputError)
    this.output.on('error', this.onOutputError)
  }

  /** Queues `message` for `output`; resolves when it is handed to it (or dropped: closed). */
  send(message) {
    if (this.closed) return Promise.resolve()
    return new Promise((resolve) => this.enqueue(message, resolve))
  }

  /** Stops reading, drops what waits, and calls `onclose` (once). */
  async close() {
    if (this.closed) return
    this.closed = true
    this.input.off('data', this.onData)
    this.input.off('error', this.onInputError)
    this.input.pause()
    for (const lane of Object.values(this.lanes)) lane.waiting = []
    for (const controllers of this.directAborts.values()) for (const controller of controllers) controller.abort()
    this.directAborts.clear()
    for (const entry of this.outbox) entry.resolve()
    this.outbox = []
    this.onclose?.()
  }

  /** One line's verdict from `readLine`: passed on, answered, or let go. */
  received({ message, call, answer, discover, stateless }) {
    if (answer) return this.enqueue(answer)
    if (discover) return this.enqueue(this.discovered(discover))
    if (call) this.directRequests.add(call)
    message ??= call
    if (!message || this.closed) return
    if (isRequest(message)) {
      if (stateless) this.stateless.set(idKey(message.id), stateless)
      const lane = this.isMediaCall(message) ? this.lanes.media : this.lanes.calls
      if (lane.waiting.length > 0 || lane.serving >= lane.slots) lane.waiting.push(message)
      else this.serve(message, lane)
    } else {
      if (message.method === 'notifications/cancelled') this.forget(message.params?.requestId)
      this.onmessage?.(message)
    }
    this.applyBackpressure()
  }

  /** The answer to the `server/discover` request `request`. */
  discovered(request) {
    if (this.discover === undefined) return { jsonrpc: '2.0', id: request.id, error: { code: ErrorCode.MethodNotFound, message: 'Method not found' } }
    return { jsonrpc: '2.0', id: request.id, result: this.discover() }
  }

  serve(request, lane) {
    const key = idKey(request.id)
    this.inFlight.set(key, [...(this.inFlight.get(key) ?? []), lane])
    lane.serving++
    if (this.directRequests.has(request)) this.answerDirectly(request, key)
    else this.onmessage?.(request)
  }

  /**
   * Answers `request` by `directCall`, as the SDK's server would, and not once it is
   * cancelled; a throw is answered as the SDK answers one (-32603).
   */
  async answerDirectly(request, key) {
    const controller = this.spareControllers.pop() ?? new AbortController()
    const controllers = this.directAborts.get(key) ?? new Set()
    this.directAborts.set(key, controllers.add(controller))
    let answer
    try {
      answer = await this.directCall.answer(request, controller.signal, this.stateless.has(key))
    } catch (err) {
      answer = internalErrorAnswer(request.id, err)
    }
    controllers.delete(controller)
    if (controllers.size === 0 && this.directAborts.get(key) === controllers) this.directAborts.delete(key)
    if (controller.signal.aborted) return
    this.spareControllers.push(controller)
    if (typeof answer !== 'string') return this.enqueue(answer)
    this.stateless.delete(key) // the line was made for the request's revision
    this.enqueueLine(answer, key)
  }

  /** A request answered (its answer handed to stdout) or cancelled: its slot is free. */
  release(key) {
    const lanes = this.inFlight.get(key)
    if (lanes === undefined) return
    const lane = lanes.pop()
    if (lanes.length === 0) this.inFlight.delete(key)
    lane.serving--
    while (lane.waiting.length > 0 && lane.serving < lane.slots && !this.closed) {
      this.serve(lane.waiting.shift(), lane)
    }
    this.applyBackpressure()
  }

  /**
   * A cancelled request is not answered (MCP): one still waiting is dropped, an answer not
   * yet written is dropped, and a request being served frees its slot (the SDK aborts it).
   */
  forget(requestId) {
    if (requestId === undefined) return
    const key = idKey(requestId)
    this.stateless.delete(key)
    for (const controller of this.directAborts.get(key) ?? []) controller.abort()
    for (const lane of Object.values(this.lanes)) lane.waiting = lane.waiting.filter((request) => idKey(request.id) !== key)
    for (const entry of this.outbox.filter((e) => e.key === key)) {
      this.outboxBytes -= entry.size
      entry.resolve()
    }
    this.outbox = this.outbox.filter((entry) => entry.key !== key)
    this.release(key)
  }

  /**
   * Stdin is read only while no call waits for a slot (but fewer than maxMediaCallsWaiting
   * media calls), and no more than maxQueuedOutputBytes wait for stdout.
   */
  applyBackpressure() {
    if (this.closed) return
    const laneFull = Object.values(this.lanes).some((lane) => lane.waiting.length > lane.maxWaiting)
    const full = laneFull || this.outboxBytes > this.limits.maxQueuedOutputBytes
    if (full && !this.input.isPaused()) this.input.pause()
    else if (!full && this.input.isPaused()) this.input.resume()
  }

  enqueue(message, resolve = () => {}) {
    if (this.closed) return resolve()
    if (!isResponse(message)) return this.enqueueLine(serialise(message), undefined, resolve)
    const key = idKey(message.id)
    const method = this.stateless.get(key)
    if (method !== undefined) {
      this.stateless.delete(key)
      message = statelessResponse(message, method)
    }
    this.enqueueLine(serialise(this.reviseAnswer(message)), key, resolve)
  }

  /**
   * Queues `line`, one message's line (bytes, or a string written as UTF-8), the answer to
   * the request `key` names, if any.
   */
  enqueueLine(line, key, resolve = () => {}) {
    if (this.closed) return resolve()
    const size = typeof line === 'string' ? Buffer.byteLength(line) : line.length
    this.outbox.push({ line, size, key, resolve })
    this.outboxBytes += size
    this.flush()
    this.applyBackpressure()
  }

  /** Writes what waits in the outbox while stdout's queue has room for it. */
  flush() {
    while (this.outbox.length > 0 && !this.closed) {
      const { line, size, key, resolve } = this.outbox[0]
      if (this.queuedBytes > 0 && this.queuedBytes + size > this.limits.maxQueuedOutputBytes) return
      this.outbox.shift()
      this.outboxBytes -= size
      this.queuedBytes += size
      this.output.write(line, () => {
        this.queuedBytes -= size
        this.flush()
      })
      resolve()
      if (key !== undefined) this.release(key)
    }
  }

  outputFailed(err) {
    if (this.closed) return
    if (CLOSED_PIPE.has(err.code)) return this.close()
    this.fail(`cannot write to stdout: ${err.code ?? err.message}`)
  }

  fail(reason) {
    if (this.closed) return
    this.onerror?.(new Error(reason))
    this.close()
  }
}

/** A message as one line of bytes. An answer too large to serialise becomes an error for
 * its id instead, so that its caller is still answered. */
function serialise(message) {
  let json
  try {
    json = JSON.stringify(message)
  } catch (err) {
    json = JSON.stringify(unserialisableAnswer(message.id ?? null, err))
  }
  const length = Buffer.byteLength(json)
  const bytes = Buffer.allocUnsafe(length + 1)
  bytes.write(json, 0, length, 'utf8')
  bytes[length] = 0x0a
  return bytes
}

module.exports = { BoundedStdioTransport, MAX_MESSAGE_BYTES, MAX_CALLS_IN_FLIGHT, MAX_MEDIA_CALLS_IN_FLIGHT, MAX_QUEUED_OUTPUT_BYTES }
