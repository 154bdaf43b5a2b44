'use strict'
// The MCP SDK (`@modelcontextprotocol/sdk`) and `zod` are optional peer dependencies: the
// package installs without them, and only `agent-read-file/mcp` and the `mcp` command need
// them. Their absence is one error naming what to install.

const { errorWithCode } = require('../lib/adapter-kit.js')

/** `code` of the error thrown when the MCP SDK or zod is not installed. */
const MCP_SDK_MISSING = 'ERR_MCP_SDK_MISSING'

/** The one-line error for a missing `name` (a module specifier that failed to load). */
function sdkMissing(name, cause) {
  const message =
    `agent-read-file/mcp needs ${name}, an optional peer dependency: ` +
    'npm install @modelcontextprotocol/sdk zod@4 ' +
    '(or run the server with npx -y -p agent-read-file -p @modelcontextprotocol/sdk -p zod@4 agent-read-file mcp)'
  return errorWithCode(MCP_SDK_MISSING, message, { cause })
}

/** Whether `error`, from loading `specifier`, says that module is not installed. */
function isNotInstalled(error, specifier) {
  const missing = error?.code === 'MODULE_NOT_FOUND' || error?.code === 'ERR_MODULE_NOT_FOUND'
  const root = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]
  return missing && String(error.message).includes(root)
}

/** What loading `specifier` failed with, as the one-line error when it is not installed. */
function peerError(error, specifier) {
  return isNotInstalled(error, specifier) ? sdkMissing(specifier, error) : error
}

/** `load(specifier)`, or the one-line error when that module is not installed. */
function loadPeer(load, specifier) {
  try {
    return load(specifier)
  } catch (error) {
    throw peerError(error, specifier)
  }
}

module.exports = { MCP_SDK_MISSING, loadPeer, peerError }
