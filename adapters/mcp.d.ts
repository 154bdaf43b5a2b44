/**
 * `agent-read-file/mcp`: the read_file tool on an MCP server (`@modelcontextprotocol/sdk`).
 */
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { AgentToolkit, ToolkitOptions } from '../index'

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

/** How the read_file tool answers over MCP. */
export interface McpToolOptions {
  /**
   * Whether a read's result carries the output as `structuredContent` too, under the tool's
   * output schema (default `false`: the model's text and images alone, and no output schema
   * listed). Some clients give the model `structuredContent` when a result has it: Claude
   * Code gives the model that JSON and drops the text (no line numbers, more tokens;
   * anthropics/claude-code#79944), GitHub Copilot gives it both (github/copilot-cli#4515); so
   * it is for servers whose clients are programs. With it, a window's `content` is repeated
   * in `structuredContent` only when it is at most 16 KiB; a longer one is sent once, in the
   * text item, and `content` is left out (the output schema does not require it).
   */
  structuredContent?: boolean
}
