/**
 * `agent-read-file/openai`: the read_file tool for OpenAI's APIs, as plain objects (this
 * module does not load the `openai` package). Assignable to the SDK's `ChatCompletionTool`
 * and `Responses.FunctionTool`.
 */

/** The toolkit definition's parameters schema, or OpenAI's strict-mode form of it. */
export type OpenAIToolParameters = { [key: string]: unknown }

/** A Chat Completions function tool. */
export type OpenAIChatTool = {
  type: 'function'
  function: {
    name: 'read_file'
    description: string
    parameters: OpenAIToolParameters
    strict?: boolean
  }
}

/** A Responses API function tool. */
export type OpenAIResponsesTool = {
  type: 'function'
  name: 'read_file'
  description: string
  parameters: OpenAIToolParameters
  strict: boolean
}

/**
 * `{ type: 'function', function }` for Chat Completions, with the toolkit's definition
 * (`TOOLKIT_DEFINITIONS.read_file`). `strict: true` gives the strict-mode schema: every
 * property required, `start_line`, `max_lines` and `start_column` nullable integers (`null`
 * means the default), no other properties.
 */
export declare function openaiTool(options?: { strict?: boolean }): OpenAIChatTool

/** The same tool for the Responses API (`{ type: 'function', name, … }`). */
export declare function openaiResponsesTool(options?: { strict?: boolean }): OpenAIResponsesTool

/** A Responses API `function_call_output` input item: assignable to the SDK's `ResponseInputItem.FunctionCallOutput`. */
export type OpenAIFunctionCallOutput = {
  type: 'function_call_output'
  call_id: string
  output:
    | string
    | Array<{ type: 'input_text'; text: string } | { type: 'input_image'; image_url: string; detail: 'auto' }>
}

/**
 * The Responses API item that answers function call `callId` with `result` (from
 * `runToolCall`): its text, or, with images, `input_text` and `input_image` items in order
 * (images as data URLs).
 */
export declare function openaiResponsesOutput(callId: string, result: RunToolCallResult): OpenAIFunctionCallOutput

/** A Chat Completions message that answers a tool call: assignable to the SDK's `ChatCompletionMessageParam`. */
export type OpenAIChatMessage =
  | { role: 'tool'; tool_call_id: string; content: string }
  | {
      role: 'user'
      content: Array<{ type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } }>
    }

/**
 * The Chat Completions messages that answer tool call `toolCallId` with `result`: the `tool`
 * message (text only, as the API allows; images named in brackets), then, when the answer
 * has images, a `user` message carrying them.
 */
export declare function openaiChatMessages(toolCallId: string, result: RunToolCallResult): OpenAIChatMessage[]

/** One tool call's answer, for {@link openaiChatTurn}. */
export interface OpenAIChatAnswer {
  /** The `id` of the assistant message's tool call. */
  toolCallId: string
  result: RunToolCallResult
}

/**
 * The Chat Completions messages that answer one assistant turn's tool calls (parallel tool
 * calls are the API's default), in the order of its `tool_calls`: every `tool` message first,
 * as the API requires right after the assistant message, then one `user` message carrying the
 * images of all of them, each result's introduced by its call's id.
 */
export declare function openaiChatTurn(answers: readonly OpenAIChatAnswer[]): OpenAIChatMessage[]

import type { RunToolCallResult } from '../index'

/** The harness-neutral `runToolCall` of the package root, here too. */
export { runToolCall } from '../index'
