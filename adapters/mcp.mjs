// `agent-read-file/mcp` as an ES module: the same adapter over the SDK's ES module build, so
// `createMcpServer` returns an instance of the `McpServer` an ES module imports.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import * as z from 'zod'
import core from './mcp-core.js'

export const { createMcpServer, registerReadFile } = core.mcpAdapter({ McpServer, z })
