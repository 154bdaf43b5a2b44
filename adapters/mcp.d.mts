/**
 * `agent-read-file/mcp` as an ES module: the read_file tool on an MCP server
 * (`@modelcontextprotocol/sdk`). The same declarations as `mcp.d.ts`, written again because
 * here `@modelcontextprotocol/sdk/server/mcp.js` resolves to the SDK's ES module
 * declarations, whose `McpServer` TypeScript does not take for its CommonJS one.
 */
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { AgentToolkit, ToolkitOptions } from '../index.js'
import type { McpToolOptions } from './mcp.js'

export type { McpToolOptions }

/**
 * An `McpServer` named `agent-read-file` with read_file registered: the toolkit definition's
 * description and input schema (`TOOLKIT_DEFINITIONS.read_file`, `start_column` included), an
 * output schema for `ToolkitReadFileOutput` when {@link McpToolOptions.structuredContent}
 * asks for it. A read answers, as its text, what a model is given
 * (`ToolkitOptions.resultFormat`: the toolkit's text by default, or the output as JSON), and
 * with `structuredContent: true` the output as `structuredContent` too, for programs. A
 * failed read is an `isError: true` result whose text is the error's message, starting with its code
 * (`NOT_FOUND: src/a.ts: …`). The client's cancellation aborts the read. A toolkit made from
 * `options` is closed when the server closes; a toolkit given stays the caller's to close.
 * A malformed `options` is an `INVALID_ARGUMENT` error, thrown.
 */
export declare function createMcpServer(toolkitOrOptions: ToolkitOptions | AgentToolkit, options?: McpToolOptions): McpServer

/**
 * Adds read_file, as `createMcpServer` has it, to a server of your own (other tools
 * registered with `registerTool` stay as they are); returns the SDK's handle to it. Throws a
 * `TypeError` when `server` is not an `McpServer`, and `INVALID_ARGUMENT` for a malformed
 * `options`.
 */
export declare function registerReadFile(
  server: McpServer,
  toolkitOrOptions: ToolkitOptions | AgentToolkit,
  options?: McpToolOptions,
): RegisteredTool
