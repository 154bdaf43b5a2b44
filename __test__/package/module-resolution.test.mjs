// Every entry point type-checks as a project sees it, under each of TypeScript's module
// resolutions: `node10` (the legacy `node`, which ignores `exports`: `typesVersions` serves the
// subpaths), `node16` and `nodenext` in a CommonJS file and in an ES module file, and
// `bundler`. The project is a temporary folder whose node_modules links this package and the
// SDKs, as an install would place them.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, describe, test } from '../harness.mjs'
import { INDEX_PATH } from '../helpers.mjs'

const ROOT = path.dirname(INDEX_PATH)
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')

const SOURCE = `import { createAgentToolkit, runToolCall, type ViewOutput } from 'agent-read-file'
import { openaiTool } from 'agent-read-file/openai'
import { anthropicTool } from 'agent-read-file/anthropic'
import { createMcpServer } from 'agent-read-file/mcp'
import { readFileTool } from 'agent-read-file/ai'

const toolkit = createAgentToolkit({ workspaceRoot: '/w' })
const name: string = openaiTool().function.name + anthropicTool().name
const server = createMcpServer(toolkit)
const tool = readFileTool(toolkit)
export async function run(): Promise<ViewOutput | string> {
  const result = await runToolCall(toolkit, '{"path":"a.ts"}')
  return result.isError ? result.code : result.output
}
void [name, server, tool]
`

/** A project folder whose node_modules has this package and its SDKs linked in. */
function project() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-read-file-resolution-'))
  fs.mkdirSync(path.join(dir, 'node_modules'))
  fs.symlinkSync(ROOT, path.join(dir, 'node_modules', 'agent-read-file'))
  for (const dependency of ['@types', '@modelcontextprotocol', '@anthropic-ai', 'ai', 'openai', 'zod', '@ai-sdk', '@standard-schema', '@opentelemetry']) {
    const from = path.join(ROOT, 'node_modules', dependency)
    if (fs.existsSync(from)) fs.symlinkSync(from, path.join(dir, 'node_modules', dependency))
  }
  fs.writeFileSync(path.join(dir, 'check.ts'), SOURCE)
  fs.writeFileSync(path.join(dir, 'check.mts'), SOURCE)
  return dir
}

/** `tsc` on `file` in `dir` with `moduleResolution` and `module`; resolves to its output. */
function typeCheck(dir, file, moduleResolution, module) {
  const args = [TSC, '--noEmit', '--strict', '--skipLibCheck', '--target', 'es2022', '--types', 'node']
  args.push('--moduleResolution', moduleResolution, '--module', module, file)
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: dir, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ ok: !error, said: `${stdout}${stderr}`.trim() })
    })
  })
}

describe('module resolutions', () => {
  const dir = project()
  after(() => fs.rmSync(dir, { recursive: true, force: true }))

  for (const [moduleResolution, module, file] of [
    ['node10', 'commonjs', 'check.ts'],
    ['node16', 'node16', 'check.ts'],
    ['nodenext', 'nodenext', 'check.ts'],
    ['nodenext', 'nodenext', 'check.mts'],
    ['bundler', 'esnext', 'check.ts'],
  ]) {
    test(`every entry point type-checks under ${moduleResolution} (${file})`, { timeout: 90_000 }, async () => {
      const { ok, said } = await typeCheck(dir, file, moduleResolution, module)
      assert.ok(ok, said)
    })
  }
})
