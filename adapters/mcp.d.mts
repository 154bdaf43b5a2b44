// `agent-read-file/mcp` as an ES module: the same declarations (the SDK declares one
// `McpServer` type for both of its builds).
export { createMcpServer, registerReadFile } from './mcp.js'
