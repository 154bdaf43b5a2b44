/**
 * `agent-read-file/anthropic`: the read_file tool for Anthropic's Messages API, as a plain
 * object (this module does not load `@anthropic-ai/sdk`). Assignable to the SDK's `Tool`.
 */

/**
 * `{ name, description, input_schema }` of the toolkit's definition
 * (`TOOLKIT_DEFINITIONS.read_file`), fresh and mutable on every call.
 */
export type AnthropicTool = {
  name: 'read_file'
  description: string
  input_schema: {
    type: 'object'
    properties: { [name: string]: { [key: string]: unknown } }
    required: string[]
  }
}

export declare function anthropicTool(): AnthropicTool

/** A `tool_result` block: assignable to the SDK's `ToolResultBlockParam`. */
export type AnthropicToolResult =
  | {
      type: 'tool_result'
      tool_use_id: string
      content: Array<
        | { type: 'text'; text: string }
        | {
            type: 'image'
            source: { type: 'base64'; media_type: 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp'; data: string }
          }
      >
    }
  | { type: 'tool_result'; tool_use_id: string; content: string; is_error: true }

/**
 * The `tool_result` block that answers tool use `toolUseId` with `result` (from
 * `runToolCall`): text and image blocks in order, or the error's text with `is_error`.
 */
export declare function anthropicToolResult(toolUseId: string, result: RunToolCallResult): AnthropicToolResult

import type { RunToolCallResult } from '../index'

/** The harness-neutral `runToolCall` of the package root, here too. */
export { runToolCall } from '../index'
