// `agent-read-file/ai` as an ES module: the read_file tool for the Vercel AI SDK (`ai` >= 5).
// The package root never loads it.
import { jsonSchema, tool } from 'ai'
import core from './ai-core.js'

export const { readFileTool } = core.aiAdapter({ jsonSchema, tool })
