// The token goals of the text a model is given (o200k_base, gpt-tokenizer), against the
// JSON every adapter gave before: the README's quick-start read, and every 200-line page of
// this repository's sources. benchmark/tokens.mjs has the whole table.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base'
import pkg from '../../index.js'
import { after, test } from '../harness.mjs'
import { makeFixture } from '../helpers.mjs'

const { createAgentToolkit, runToolCall } = pkg
const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const SOURCE = /\.(rs|ts|mts|js|mjs|cjs)$/

/**
 * The repository's sources below `dir`, relative to ROOT, found by walking the tree rather than
 * asking git: the suite also runs from copies that are not checkouts (scripts/run-foreign.sh).
 * Dependencies, build output and dot-folders are not the repository's sources.
 */
function sources(dir = ROOT) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return ['node_modules', 'target'].includes(entry.name) || entry.name.startsWith('.') ? [] : sources(full)
    return entry.isFile() && SOURCE.test(entry.name) ? [path.relative(ROOT, full)] : []
  })
}

test('lines 51-53 of 120 `line N` lines cost at most 39 tokens with line numbers (JSON: 60)', async () => {
  const fx = makeFixture()
  after(() => fx.cleanup())
  fx.write('src/main.ts', Array.from({ length: 120 }, (_, i) => `line ${i + 1}\n`).join(''))
  const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
  after(() => toolkit.close())
  const result = await runToolCall(toolkit, { path: 'src/main.ts', start_line: 51, max_lines: 3 })
  assert.equal(result.content, 'src/main.ts lines 51-53 of 120 (972 bytes)\n51\tline 51\n52\tline 52\n53\tline 53\n[next: start_line=54]\n')
  assert.ok(countTokens(result.content) <= 39, `${countTokens(result.content)} tokens`)
  assert.equal(countTokens(JSON.stringify(result.output)), 60)
})

test("every 200-line page of this repository's Rust, TypeScript and JavaScript costs no more than its JSON, summed", async () => {
  const listed = sources()
  assert.ok(listed.includes(path.join('__test__', 'adapters', 'token-budget.test.mjs')), listed.join('\n'))
  const toolkit = createAgentToolkit({ workspaceRoot: ROOT, deny: [] })
  after(() => toolkit.close())
  let [text, json, pages] = [0, 0, 0]
  for (const file of listed) {
    for (let start = 1; start !== null; pages++) {
      const result = await runToolCall(toolkit, { path: file, start_line: start, max_lines: 200 })
      assert.equal(result.isError, false, result.content)
      text += countTokens(result.content)
      json += countTokens(JSON.stringify(result.output))
      start = result.output.next_start_line
    }
  }
  assert.ok(pages > 100, `${pages} pages`)
  assert.ok(text <= json, `text ${text} tokens, JSON ${json}`)
})
