/**
 * `agent-read-file/anthropic`: the read_file tool for Anthropic's Messages API, as a plain
 * object (this module does not load `@anthropic-ai/sdk`). Assignable to the SDK's `Tool`.
 */
import type { RunToolCallResult, ToolCallToolkit } from '../index'

/** `{ name, description, input_schema }`, fresh and mutable on every call. */
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

export declare function runToolCall(toolkit: ToolCallToolkit, args: string | object): Promise<RunToolCallResult>
