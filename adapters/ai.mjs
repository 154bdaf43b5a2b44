// `agent-read-file/ai` as an ES module: the read_file tool for the Vercel AI SDK (`ai` >= 5).
// The package root never loads it.
import * as sdk from 'ai'
import core from './ai-core.js'

export const { readFileTool } = core.aiAdapter({ jsonSchema: sdk.jsonSchema, tool: sdk.tool, major: core.majorOf(sdk) })
