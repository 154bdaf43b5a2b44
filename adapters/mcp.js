'use strict'
// `agent-read-file/mcp` for CommonJS: the read_file tool on an MCP server
// (`@modelcontextprotocol/sdk`). Only this entry point and the `mcp` command load the SDK.

const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js')
const z = require('zod')
const { mcpAdapter } = require('./mcp-core.js')

module.exports = mcpAdapter({ McpServer, z })
