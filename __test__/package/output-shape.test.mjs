// Issue 37 §3: a toolkit's text output is declared once, in Rust (`ToolkitReadFileOutput` in
// src/output.rs, generated into binding.d.ts with its documentation). The JSON Schema the
// adapters publish for it (adapters/schemas.js) and the objects the binding builds
// (src/output/read-file-output.js) are held to that declaration here, so neither can drift;
// the MCP line written in Rust is held to the built object byte for byte in
// __test__/adapters/mcp-answer.test.mjs.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { after, describe, test } from '../harness.mjs'
import { INDEX_PATH, makeFixture } from '../helpers.mjs'

const require = createRequire(import.meta.url)
const { createAgentToolkit } = require('../../index.js')
const { outputSchema } = require('../../adapters/schemas.js')
const ROOT = path.dirname(INDEX_PATH)

/** The fields of `name`, an interface of binding.d.ts, in order: `{ name, optional }`. */
function declaredFields(name) {
  const text = fs.readFileSync(path.join(ROOT, 'binding.d.ts'), 'utf8')
  const body = text.match(new RegExp(`^export interface ${name} \\{\\n([\\s\\S]*?)^\\}`, 'm'))
  assert.ok(body, `binding.d.ts declares ${name}`)
  return [...body[1].matchAll(/^ {2}(\w+)(\??):/gm)].map(([, field, optional]) => ({ name: field, optional: optional === '?' }))
}

describe("a toolkit's output, declared once", () => {
  const fx = makeFixture()
  after(() => fx.cleanup())
  fx.write('lines.txt', Array.from({ length: 600 }, (_, i) => `line ${i + 1}\n`).join(''))
  fx.write('app.min.js', `${'x'.repeat(300)}\n`)
  const declared = declaredFields('ToolkitReadFileOutput')
  const [text] = outputSchema().anyOf

  test('the JSON Schema states the declared fields, in order, and requires the ones always there', () => {
    assert.deepEqual(Object.keys(text.properties), declared.map((field) => field.name))
    // `content` is left out of structuredContent over 16 KiB (sent once, as the text item).
    const always = declared.filter((field) => !field.optional && field.name !== 'content')
    assert.deepEqual(text.required, always.map((field) => field.name))
    assert.deepEqual(Object.keys(text.properties.meta.properties), declaredFields('ReadFileMeta').map((field) => field.name))
    assert.deepEqual(Object.keys(text.properties.continuation.properties), declaredFields('ToolkitContinuation').map((field) => field.name))
  })

  test('every kind of output a read builds has declared keys only, in the declared order', async () => {
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws, maxContentBytes: 128 })
    after(() => toolkit.close())
    const wide = createAgentToolkit({ workspaceRoot: fx.ws })
    after(() => wide.close())
    const outputs = {
      window: await wide.readFile({ path: 'lines.txt', max_lines: 2 }),
      cut: await toolkit.readFile({ path: 'app.min.js' }),
      noted: await wide.readFile({ path: 'lines.txt', max_lines: 1000 }),
    }
    assert.ok(outputs.cut.continuation && outputs.noted.note, 'a cut line and a note are among them')
    const order = declared.map((field) => field.name)
    for (const [kind, output] of Object.entries(outputs)) {
      const keys = Object.keys(output)
      assert.deepEqual(keys, order.filter((name) => keys.includes(name)), kind)
      for (const field of declared.filter((field) => !field.optional)) assert.ok(keys.includes(field.name), `${kind}: ${field.name}`)
    }
  })
})
