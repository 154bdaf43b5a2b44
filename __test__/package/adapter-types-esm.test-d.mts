// The MCP adapter's types in an ES module (what `"type": "module"` with `nodenext` gives a
// project): the SDK's ES module declarations of `McpServer` must be the ones the adapter's
// ES module entry takes and returns. (The CommonJS side is in adapter-types.test-d.ts.)
import { McpServer, type RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js'
import { createMcpServer, registerReadFile, type McpToolOptions } from '../../adapters/mcp.mjs'

const server: McpServer = createMcpServer({ workspaceRoot: '/w' })
const mine = new McpServer({ name: 'my-server', version: '1.0.0' })
const tool: RegisteredTool = registerReadFile(mine, { workspaceRoot: '/w' })
const options: McpToolOptions = { structuredContent: false }
const textOnly: RegisteredTool = registerReadFile(new McpServer({ name: 'other', version: '1.0.0' }), { workspaceRoot: '/w' }, options)

void [server, tool, textOnly]
