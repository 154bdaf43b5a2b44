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

/** The harness-neutral `runToolCall` of the package root, here too. */
export { runToolCall } from '../index'
