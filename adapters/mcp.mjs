// `agent-read-file/mcp` as an ES module: the same adapter over the SDK's ES module build, so
// `createMcpServer` returns an instance of the `McpServer` an ES module imports. The SDK and
// zod are optional peer dependencies: without them, importing this rejects with one
// `ERR_MCP_SDK_MISSING` error.
import core from './mcp-core.js'
import peers from './mcp-sdk.js'

/** `import(specifier)`, or the one-line error when that module is not installed. */
async function importPeer(specifier) {
  try {
    return await import(specifier)
  } catch (error) {
    throw peers.peerError(error, specifier)
  }
}

const { McpServer } = await importPeer('@modelcontextprotocol/sdk/server/mcp.js')
const z = await importPeer('zod')

export const { createMcpServer, registerReadFile } = core.mcpAdapter({ McpServer, z })
