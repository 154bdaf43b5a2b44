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

/** The harness-neutral `runToolCall` of the package root, here too. */
export { runToolCall } from '../index'
