'use strict'
// The read_file tool on an MCP server, written once for both module systems: `mcp.js`
// (CommonJS) and `mcp.mjs` (ES module) hand in the SDK's `McpServer` and `zod` as each
// system loads them, so a server made here is an instance of the class the caller imports;
// a server handed in may come from any copy of the SDK.

const {
  runToolCall,
  failureOf,
  mediaAnswer,
  settingsOf,
  numberOf,
  withNumbers,
  isMedia,
  withoutImageData,
  booleanOption,
  MCP_STRUCTURED_CONTENT_BYTES,
} = require('../lib/adapter-kit.js')
const { toolkitOf } = require('./toolkit.js')
const { DEFINITION, parameters, outputSchema } = require('./schemas.js')
const { version } = require('../package.json')

/**
 * A zod schema that accepts any object and is listed as `jsonSchema`. `registerTool` takes
 * zod only; zod writes a schema's metadata over the JSON Schema it derives, so `tools/list`
 * shows the toolkit definition's schema to the letter (plus zod's `$schema`): the
 * `additionalProperties: {}` zod derives for an open object is unset unless `jsonSchema`
 * says otherwise (an `undefined` key is not sent). Accepting anything leaves every check to
 * the tool, whose errors carry this package's codes, where zod's would answer "Input
 * validation error" with none.
 */
function listedAs(z, jsonSchema) {
  return z.looseObject({}).meta({ additionalProperties: undefined, ...jsonSchema })
}

/** An MCP content item of a model part: text, or an image (base64). */
function contentItem(part) {
  return part.type === 'image' ? { type: 'image', data: part.data, mimeType: part.mimeType } : { type: 'text', text: part.text }
}

/**
 * Whether the server sends a result's output as `structuredContent` too (`options` of
 * `createMcpServer` or `registerReadFile`; default false: some clients give the model
 * `structuredContent` alone, and every client then gets the text made for models, once).
 * Anything but a boolean or `undefined` is INVALID_ARGUMENT.
 */
function structuredContentOf(options) {
  if (options === undefined || options === null) return false
  return booleanOption(options, 'structuredContent', 'options') ?? false
}

/**
 * `output` as `structuredContent` carries it: each image part without its data (sent once,
 * as an image item), a window's text only when it is at most `MCP_STRUCTURED_CONTENT_BYTES`;
 * an outline or ranges as they are
 * (a longer one is sent once, in the text item).
 */
function structuredOutput(output) {
  if (isMedia(output)) return withoutImageData(output)
  // An outline or ranges: their text is the model's, made of the same facts.
  if (typeof output.content !== 'string') return output
  if (Buffer.byteLength(output.content) <= MCP_STRUCTURED_CONTENT_BYTES) return output
  const { content, ...withoutContent } = output
  return withoutContent
}

/**
 * An MCP tool result from `runToolCall`'s: its parts as content items, and, when `structured`,
 * the output as `structuredContent` too (`structuredOutput`).
 */
function toolResult({ content, parts, isError, output }, structured) {
  if (isError) return { content: [{ type: 'text', text: content }], isError: true }
  const result = { content: parts.map(contentItem) }
  if (structured) result.structuredContent = structuredOutput(output)
  return result
}

/**
 * The read_file tool's function for `toolkit`: the model's arguments and an abort signal in,
 * the MCP tool result out (it never throws), with `structuredContent` when `structured`. The
 * registered tool runs it, and so does `agent-read-file mcp` for a call it answers without
 * the SDK's layers.
 */
function readFileCall(toolkit, structured = false) {
  return async (args, signal) => toolResult(await runToolCall(toolkit, args, { signal }), structured)
}

/**
 * `agent-read-file mcp`'s answer to a plain call of read_file (a JSON-RPC `request` whose
 * arguments are a parsed object) by `toolkit`: the response the registered tool's server
 * sends, as a message, or as its line (a string). A text window of a toolkit whose answers
 * are its text with nothing deduplicated is answered in Rust (`Workspace.mcpAnswer`): its
 * text never becomes a JavaScript string, only the line does; a failure of that read is
 * answered as `runToolCall` answers it, and so is an image, a notebook or a PDF, from the
 * `MediaOutput` the same read gives (the engine tells them apart by their bytes). A call whose
 * id or numbers Rust would not spell as `JSON.stringify` does goes through `readFileCall`.
 * A line made for a request in MCP's stateless revision (`stateless`, the answer's third
 * argument) says `resultType: "complete"`; a message is given it by the transport.
 */
function readFileAnswer(toolkit, structured = false) {
  const call = readFileCall(toolkit, structured)
  const response = (request, result) => ({ result, jsonrpc: '2.0', id: request.id })
  const answer = async (request, signal) => response(request, await call(request.params.arguments, signal))
  const settings = settingsOf(toolkit)
  if (settings.mcpAnswer === undefined || settings.dedupeReads || settings.resultFormat !== 'text') return answer
  return async (request, signal, stateless = false) => {
    const args = withNumbers(request.params.arguments)
    // An id with a lone surrogate would reach Rust as U+FFFD; JSON.stringify escapes it.
    const spelt = typeof request.id !== 'string' || request.id.isWellFormed()
    if (!spelt) return answer(request, signal)
    const options = {
      lineNumbers: settings.lineNumbers,
      startLine: numberOf(args, 'start_line'),
      startColumn: numberOf(args, 'start_column'),
      structuredContent: structured,
      stateless,
    }
    let answered
    try {
      answered = await settings.mcpAnswer(args, request.id, options, signal)
    } catch (error) {
      return response(request, toolResult(failureOf(error), structured))
    }
    if (typeof answered === 'string') return answered
    if (answered === null) return answer(request, signal)
    return response(request, toolResult({ ...mediaAnswer(answered, settings.resultFormat), isError: false, output: answered }, structured))
  }
}

/**
 * Whether `server` is an `McpServer`, of any copy or build of the SDK: an app's own pinned SDK,
 * or its CommonJS build handed to this ES module, is not an instance of this package's class.
 */
function isMcpServer(server) {
  return (
    server !== null &&
    typeof server === 'object' &&
    typeof server.registerTool === 'function' &&
    typeof server.connect === 'function'
  )
}

/** `createMcpServer` and `registerReadFile` over the SDK's `McpServer` and `zod` given. */
function mcpAdapter({ McpServer, z }) {
  // Without `structuredContent`, no output schema: MCP asks a tool that has one for
  // `structuredContent` in every result.
  function register(server, toolkit, structured) {
    const call = readFileCall(toolkit, structured)
    const config = {
      title: 'Read file',
      description: DEFINITION.description,
      inputSchema: listedAs(z, parameters()),
      ...(structured && { outputSchema: listedAs(z, outputSchema()) }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    }
    return server.registerTool(DEFINITION.name, config, (args, extra) => call(args, extra?.signal))
  }

  /**
   * Adds read_file to `server` (an `McpServer`) and returns the SDK's `RegisteredTool`.
   * Given options, the toolkit made from them lives until it is garbage-collected; given a
   * toolkit, its lifetime stays the caller's.
   */
  function registerReadFile(server, toolkitOrOptions, options) {
    if (!isMcpServer(server)) {
      throw new TypeError('registerReadFile: server must be an McpServer of @modelcontextprotocol/sdk')
    }
    const structured = structuredContentOf(options)
    return register(server, toolkitOf(toolkitOrOptions).toolkit, structured)
  }

  /**
   * An `McpServer` (named `agent-read-file`) with read_file registered. A toolkit made from
   * options is closed when the server closes.
   */
  function createMcpServer(toolkitOrOptions, options) {
    const structured = structuredContentOf(options)
    const { toolkit, owned } = toolkitOf(toolkitOrOptions)
    const server = new McpServer({ name: 'agent-read-file', version })
    register(server, toolkit, structured)
    if (owned) {
      const closed = server.server.onclose
      server.server.onclose = () => {
        toolkit.close()
        closed?.()
      }
    }
    return server
  }

  return { createMcpServer, registerReadFile }
}

module.exports = { mcpAdapter, readFileCall, readFileAnswer }
