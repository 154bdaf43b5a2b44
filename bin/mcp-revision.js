'use strict'
// MCP's stateless revision (2026-07-28) beside the revisions that begin with `initialize`
// (2025-11-25, 2025-06-18), as `agent-read-file mcp` serves them from one process: a request
// that carries its revision in `params._meta` stands alone; its envelope is checked and taken
// off here, the MCP SDK (v1) serves what is left as it serves every request, and the answer
// gets what the revision adds to a result. A request without the envelope is served as
// before. `server/discover` is answered here.

const { ErrorCode } = require('@modelcontextprotocol/sdk/types.js')

/** The stateless revision served. */
const STATELESS_REVISION = '2026-07-28'

/** The keys of a stateless request's envelope, in its `params._meta`. */
const ENVELOPE = {
  version: 'io.modelcontextprotocol/protocolVersion',
  capabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
}
const SERVER_INFO = 'io.modelcontextprotocol/serverInfo'
const ENVELOPE_KEYS = new Set(Object.values(ENVELOPE))

/** The revision's error for a version not served (its `data` names those that are). */
const UNSUPPORTED_VERSION = -32022

/** The requests the stateless revision has that this server answers (it lists no prompts or
 * resources; the SDK answers those as it does for any revision). */
const STATELESS_METHODS = new Set([
  'tools/list',
  'tools/call',
  'prompts/list',
  'prompts/get',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'completion/complete',
])

/** The results a client may keep: they carry how long (`ttlMs`) and for whom (`cacheScope`). */
const CACHEABLE = new Set(['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'resources/read'])

/** The dialect of a tool's schemas in the stateless revision. */
const JSON_SCHEMA_2020_12 = 'https://json-schema.org/draft/2020-12/schema'

const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value)

/** Whether `value` (a parsed message) is a request in the stateless revision: its
 * `params._meta` names a protocol version. */
function isStateless(value) {
  return 'id' in value && isObject(value.params) && isObject(value.params._meta) && ENVELOPE.version in value.params._meta
}

const errorAnswer = (id, code, message, data) => ({ jsonrpc: '2.0', id, error: { code, message, ...(data && { data }) } })

/**
 * A stateless request (`isStateless`) as the SDK is to serve it: `{ request }`, `value` with
 * its envelope taken off `params._meta` (and `_meta` itself when nothing else was in it),
 * `{ discover: true }` for `server/discover`, or `{ answer }`: the error for a version not
 * served, an envelope without the client's capabilities, or a method the revision does not
 * have (`initialize`, `ping`, ...).
 */
function unwrapStateless(value) {
  const { id, method, params } = value
  const meta = params._meta
  const version = meta[ENVELOPE.version]
  if (version !== STATELESS_REVISION) {
    const said = typeof version === 'string' ? version : JSON.stringify(version)
    const data = { supported: [STATELESS_REVISION], requested: String(said) }
    return { answer: errorAnswer(id, UNSUPPORTED_VERSION, `Unsupported protocol version: ${said}`, data) }
  }
  if (!isObject(meta[ENVELOPE.capabilities])) {
    const problem = ENVELOPE.capabilities in meta ? 'not an object' : 'missing'
    const message = `Invalid _meta envelope for protocol revision ${STATELESS_REVISION}: ${ENVELOPE.capabilities}: ${problem}`
    return { answer: errorAnswer(id, ErrorCode.InvalidParams, message, { envelope: { key: ENVELOPE.capabilities, problem } }) }
  }
  if (method === 'server/discover') return { discover: true }
  if (!STATELESS_METHODS.has(method)) {
    return { answer: errorAnswer(id, ErrorCode.MethodNotFound, `Method not found: ${method} is not in protocol revision ${STATELESS_REVISION}`) }
  }
  // `value` is the caller's own, just parsed: its params are replaced and the request is not
  // copied (a copy of each cost a few % of a call). Rest and fromEntries define keys: a
  // `__proto__` sent stays a key, never becomes a prototype.
  const { _meta, ...unwrapped } = params
  const rest = Object.entries(meta).filter(([key]) => !ENVELOPE_KEYS.has(key))
  if (rest.length > 0) unwrapped._meta = Object.fromEntries(rest)
  value.params = unwrapped
  return { request: value }
}

/** `server/discover`'s result: the revision served, the server's capabilities and name. */
function discoverResult(serverInfo, capabilities) {
  return {
    supportedVersions: [STATELESS_REVISION],
    capabilities,
    resultType: 'complete',
    ttlMs: 0,
    cacheScope: 'private',
    _meta: { [SERVER_INFO]: serverInfo },
  }
}

/** A tool as the stateless revision lists it: its schemas in JSON Schema 2020-12 (the
 * toolkit's use nothing the dialects spell apart), and no `execution` (not in the revision). */
function statelessTool({ execution, ...tool }) {
  const dialect = (schema) => (isObject(schema) ? { ...schema, $schema: JSON_SCHEMA_2020_12 } : schema)
  return {
    ...tool,
    inputSchema: dialect(tool.inputSchema),
    ...(tool.outputSchema !== undefined && { outputSchema: dialect(tool.outputSchema) }),
  }
}

/** The SDK's `response` to a stateless request of `method`, with what the revision adds to
 * a result: `resultType`, and a cacheable result's `ttlMs` and `cacheScope`. */
function statelessResponse(response, method) {
  if (!isObject(response.result)) return response
  const result = { ...response.result, resultType: 'complete' }
  if (CACHEABLE.has(method)) {
    result.ttlMs ??= 0
    result.cacheScope ??= 'private'
  }
  if (method === 'tools/list' && Array.isArray(result.tools)) result.tools = result.tools.map(statelessTool)
  return { ...response, result }
}

module.exports = { isStateless, unwrapStateless, discoverResult, statelessResponse }
