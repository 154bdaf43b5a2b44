// A Responses API function call's output with images: the openai SDK types it from 6 on
// (openai@5 types `output` as a string only), so this file is left out of the openai@5 run.
import type OpenAI from 'openai'
import { openaiResponsesOutput } from '../../adapters/openai.js'
import { createAgentToolkit, runToolCall } from '../../index.js'

export async function answer(): Promise<OpenAI.Responses.ResponseInputItem> {
  const result = await runToolCall(createAgentToolkit({ workspaceRoot: '/w' }), { path: 'shot.png' })
  return openaiResponsesOutput('call_1', result)
}
