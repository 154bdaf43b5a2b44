// The MCP SDK's floor for benchmark/mcp.mjs: a stdio server on the SDK's own McpServer and
// StdioServerTransport with one tool, `fixed_text`, that answers a text read once at start,
// with no output schema. Whatever a server answering the same text costs beyond this is its
// own.
//
//   node benchmark/mcp-floor-server.mjs NAME=FILE:LINES...
//
// Each argument names a text: the first LINES lines of FILE. `fixed_text({ name })` answers it.

import fs from 'node:fs'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import * as z from 'zod'

/** The first `count` lines of `file`, each with its `\n`. */
function firstLines(file, count) {
  const text = fs.readFileSync(file, 'utf8')
  let end = 0
  for (let i = 0; i < count && end !== -1; i++) end = text.indexOf('\n', end) + 1 || -1
  return end === -1 ? text : text.slice(0, end)
}

/** `NAME=FILE:LINES` arguments as a Map from name to text. */
function textsOf(args) {
  const texts = new Map()
  for (const arg of args) {
    const [, name, file, lines] = /^([^=]+)=(.+):(\d+)$/.exec(arg) ?? []
    if (!name) throw new Error(`expected NAME=FILE:LINES, got ${arg}`)
    texts.set(name, firstLines(file, Number(lines)))
  }
  return texts
}

const texts = textsOf(process.argv.slice(2))
const server = new McpServer({ name: 'sdk-floor', version: '1.0.0' })
server.registerTool('fixed_text', { description: 'A fixed text.', inputSchema: { name: z.string() } }, async ({ name }) => ({
  content: [{ type: 'text', text: texts.get(name) ?? '' }],
}))
await server.connect(new StdioServerTransport())
