'use strict'
// `agent-read-file/mcp` for CommonJS: the read_file tool on an MCP server
// (`@modelcontextprotocol/sdk`). Only this entry point and the `mcp` command load the SDK, an
// optional peer dependency: without it, requiring this is one `ERR_MCP_SDK_MISSING` error.

const { loadPeer } = require('./mcp-sdk.js')
const { McpServer } = loadPeer(require, '@modelcontextprotocol/sdk/server/mcp.js')
const z = loadPeer(require, 'zod')
const { mcpAdapter } = require('./mcp-core.js')

module.exports = mcpAdapter({ McpServer, z })
