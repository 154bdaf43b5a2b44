// The adapters' tools against the SDKs' own request types, with no casts: this file fails to
// compile if one stops being assignable (as the frozen `readonly ['path']` once was for
// Anthropic's `required: string[]`).
import type OpenAI from 'openai'
import type Anthropic from '@anthropic-ai/sdk'
import { openaiTool, openaiResponsesTool, openaiChatMessages, openaiChatTurn } from '../../adapters/openai.js'
import { anthropicTool, anthropicToolResult } from '../../adapters/anthropic.js'
import { TOOL_DEFINITIONS, createAgentToolkit, runToolCall, type RunToolCallResult } from '../../index.js'

const chatTools: OpenAI.Chat.Completions.ChatCompletionTool[] = [openaiTool(), openaiTool({ strict: true })]
const chatRequest: OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming = {
  model: 'gpt-5',
  messages: [{ role: 'user', content: 'read src/main.ts' }],
  tools: chatTools,
}
const responsesTools: OpenAI.Responses.Tool[] = [openaiResponsesTool(), openaiResponsesTool({ strict: true })]
const responsesRequest: OpenAI.Responses.ResponseCreateParamsNonStreaming = {
  model: 'gpt-5',
  input: 'read src/main.ts',
  tools: responsesTools,
}
const anthropicRequest: Anthropic.Messages.MessageCreateParamsNonStreaming = {
  model: 'claude-sonnet-4-5',
  max_tokens: 1024,
  messages: [{ role: 'user', content: 'read src/main.ts' }],
  tools: [anthropicTool()],
}

// The name stays the specification's.
const sameName: typeof TOOL_DEFINITIONS.read_file.name = anthropicTool().name

async function harness(): Promise<RunToolCallResult> {
  const toolkit = createAgentToolkit({ workspaceRoot: '/w' })
  const result = await runToolCall(toolkit, '{"path":"a.ts"}')
  // A discriminated union: the flag alone narrows, no `&& result.output`, no cast.
  if (!result.isError) {
    // A text window, or (`kind`) an image, a notebook or a PDF as parts, an outline, ranges.
    const output = result.output
    if ('parts' in output) {
      const pages: number | undefined = output.meta.shown?.total
      void pages
    } else if (!('kind' in output)) {
      const lines: number = output.meta.line_count
      // A cut line's continuation, typed: the arguments of the call that reads on.
      const column: number | undefined = output.continuation?.start_column
      void [lines, column]
    } else if (output.kind === 'ranges') {
      const left: string[] | null = output.next_ranges
      void left
    } else {
      const first: string | undefined = output.definitions[0]?.symbol
      void first
    }
    // The parts as each SDK takes them, with no casts.
    const toolResult: Anthropic.Messages.ToolResultBlockParam = anthropicToolResult('toolu_1', result)
    const chatMessages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = openaiChatMessages('call_1', result)
    const turn: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = openaiChatTurn([{ toolCallId: 'call_1', result }])
    void [toolResult, chatMessages, turn]
  } else {
    const code: string = result.code
    void code
  }
  // What an SDK hands over untyped (Anthropic's `tool_use.input` is `unknown`) goes as it is.
  const fromAnthropic: unknown = JSON.parse('{"path":"a.ts"}')
  await runToolCall(toolkit, fromAnthropic)
  await runToolCall(toolkit, { path: 'a.ts', start_line: 1, start_column: 4097 })
  // What the model is given: text (with or without line numbers) or JSON, per call.
  await runToolCall(toolkit, { path: 'a.ts' }, { resultFormat: 'json', lineNumbers: false, signal: AbortSignal.timeout(1) })
  // @ts-expect-error: a format that does not exist
  await runToolCall(toolkit, { path: 'a.ts' }, { resultFormat: 'yaml' })
  // @ts-expect-error: lineNumbers is a boolean
  await runToolCall(toolkit, { path: 'a.ts' }, { lineNumbers: 'no' })
  // The toolkit's defaults, and the memory of lines given, forgotten after a compaction.
  const deduping = createAgentToolkit({ workspaceRoot: '/w', resultFormat: 'text', lineNumbers: true, dedupeReads: true })
  const forgotten: void = deduping.forgetReads()
  void forgotten
  // The toolkit's own method for the model's calls: the same result, the same options.
  const own: RunToolCallResult = await toolkit.runToolCall(fromAnthropic, { resultFormat: 'json' })
  void own
  // @ts-expect-error: a format that does not exist
  await toolkit.runToolCall({ path: 'a.ts' }, { resultFormat: 'yaml' })
  return runToolCall(toolkit, { path: 'a.ts', start_line: null })
}

void [chatRequest, responsesRequest, anthropicRequest, sameName, harness]

// The AI SDK: typed input and output, and a tool set generateText takes.
import { generateText, type Tool, type ToolSet } from 'ai'
import type { LanguageModel } from 'ai'
import { readFileTool } from '../../adapters/ai.mjs'
import { readFileTool as readFileToolCjs } from '../../adapters/ai.js'
import type { MediaOutput, ToolkitReadFileOutput, ViewInput } from '../../index.js'

const aiTool: Tool<ViewInput, ToolkitReadFileOutput | MediaOutput> = readFileTool({ workspaceRoot: '/w' })
const aiTools: ToolSet = { read_file: aiTool, again: readFileTool(createAgentToolkit({ workspaceRoot: '/w' })) }
const aiToolCjs: Tool<ViewInput, ToolkitReadFileOutput | MediaOutput> = readFileToolCjs({ workspaceRoot: '/w' })
void aiToolCjs
declare const model: LanguageModel
void generateText({ model, tools: aiTools, prompt: 'read it' })

// MCP: the servers are the SDK's own `McpServer`, from options or from a toolkit.
import { McpServer, type RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js'
import { createMcpServer, registerReadFile } from '../../adapters/mcp.js'

const mcpServer: McpServer = createMcpServer({ workspaceRoot: '/w', defaultDeny: false, ignoreFiles: ['.aiignore'], maxContentBytes: 4096 })
const ownServer = new McpServer({ name: 'mine', version: '1.0.0' })
const registered: RegisteredTool = registerReadFile(ownServer, createAgentToolkit({ workspaceRoot: '/w' }))
const textOnly: McpServer = createMcpServer({ workspaceRoot: '/w' }, { structuredContent: false })
// @ts-expect-error structuredContent is a boolean
createMcpServer({ workspaceRoot: '/w' }, { structuredContent: 'no' })
void textOnly
registered.disable()
// (The ES module entry returns the SDK's ES module `McpServer`: adapter-types-esm.test-d.mts.)
void mcpServer
