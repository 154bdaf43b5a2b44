// Issue 37 §3: a toolkit's text output is declared once, in Rust (`ToolkitReadFileOutput` in
// src/output.rs, generated into binding.d.ts with its documentation). The JSON Schema the
// adapters publish for it (adapters/schemas.js) and the objects the binding builds (from
// each value's serde implementation, src/output/literal.rs) are held to the declarations
// here, so neither can drift; the MCP line written in Rust is held to the built object byte
// for byte in __test__/adapters/mcp-answer.test.mjs.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { after, describe, test } from '../harness.mjs'
import { INDEX_PATH, makeFixture } from '../helpers.mjs'
import { image, pdf } from '../media.mjs'

const require = createRequire(import.meta.url)
const { createAgentToolkit, fileVersion } = require('../../index.js')
const native = require('../../lib/native.js')
const { outputSchema } = require('../../adapters/schemas.js')
const ROOT = path.dirname(INDEX_PATH)

const DECLARATIONS = fs.readFileSync(path.join(ROOT, 'binding.d.ts'), 'utf8')

/** The fields of `name`, an interface of binding.d.ts, in order: `{ name, optional, type }`. */
function declaredFields(name) {
  const body = DECLARATIONS.match(new RegExp(`^export interface ${name} \\{\\n([\\s\\S]*?)^\\}`, 'm'))
  assert.ok(body, `binding.d.ts declares ${name}`)
  return [...body[1].matchAll(/^ {2}(\w+)(\??): (.*)$/gm)].map(([, field, optional, type]) => ({ name: field, optional: optional === '?', type }))
}

/** The interfaces of binding.d.ts a field's type names: `Meta`, `Meta | null`, `Array<A | B>`. */
function interfacesIn(type) {
  const names = type.replace(/^Array<(.*)>$/, '$1').split(' | ')
  return names.filter((name) => new RegExp(`^export interface ${name} \\{`, 'm').test(DECLARATIONS))
}

/**
 * Holds `value` to the interface `name` of binding.d.ts: its keys are declared ones, in the
 * declared order, every required one there; a field whose type is another interface (or an
 * array of one of several) is held to it in turn.
 */
function assertDeclared(value, name, where = name) {
  const declared = declaredFields(name)
  const keys = Object.keys(value)
  const order = declared.map((field) => field.name)
  assert.deepEqual(keys, order.filter((key) => keys.includes(key)), `${where}: declared keys only, in order`)
  for (const field of declared) {
    if (!field.optional) assert.ok(keys.includes(field.name), `${where}.${field.name} is there`)
    if (keys.includes(field.name) && value[field.name] == null) {
      assert.ok(field.type.split(' | ').includes(String(value[field.name])), `${where}.${field.name} may be ${value[field.name]}`)
    }
    const inner = interfacesIn(field.type)
    if (inner.length === 0 || value[field.name] == null) continue
    const items = Array.isArray(value[field.name]) ? value[field.name] : [value[field.name]]
    for (const [i, item] of items.entries()) {
      const fits = inner.filter((candidate) => {
        try {
          assertDeclared(item, candidate, `${where}.${field.name}[${i}]`)
          return true
        } catch {
          return false
        }
      })
      assert.ok(fits.length > 0, `${where}.${field.name}[${i}] is one of ${inner.join(', ')}: ${JSON.stringify(item).slice(0, 200)}`)
    }
  }
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

describe('every other object the binding builds, held to its declaration', () => {
  const fx = makeFixture()
  after(() => fx.cleanup())
  fx.write('notes.txt', 'one\ntwo\n')
  fx.write('book.pdf', pdf(['first page', 'second page']))
  const notebook = { cells: [{ cell_type: 'markdown', source: ['# Title'] }], metadata: {}, nbformat: 4, nbformat_minor: 5 }
  fx.write('analysis.ipynb', JSON.stringify(notebook))
  const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
  after(() => toolkit.close())

  test('a file version, from fileVersion and from the ledger', async () => {
    assertDeclared(await fileVersion(fx.ws, 'notes.txt'), 'FileVersion')
    await toolkit.readFile({ path: 'notes.txt' })
    assertDeclared(toolkit.lastRead('notes.txt'), 'FileVersion', 'lastRead')
  })

  test("an image's, a PDF's and a notebook's answer, and their frames", async () => {
    fx.write('shot.png', await image(40, 30))
    const answers = {
      image: await toolkit.view({ path: 'shot.png' }),
      pdf: await toolkit.view({ path: 'book.pdf' }),
      notebook: await toolkit.view({ path: 'analysis.ipynb' }),
    }
    assert.deepEqual(Object.values(answers).map((answer) => answer.kind), ['image', 'pdf', 'notebook'])
    assert.ok(answers.image.parts.some((part) => part.type === 'image') && answers.pdf.meta.shown, 'an image part and a shown range are among them')
    for (const [kind, answer] of Object.entries(answers)) {
      assertDeclared(answer, 'MediaOutput', kind)
      assertDeclared(native.renderMediaFrame(answer), 'MediaFrame', `${kind} frame`)
    }
  })

  test('an outline, a symbol\'s matches and ranges (issue 38)', async () => {
    const functions = Array.from({ length: 20 }, (_, n) => `fn step_${n}() {\n${'    let x = 1; // a line of the body\n'.repeat(10)}}\n`)
    fx.write('steps.rs', `mod a {\n    pub fn run() {}\n}\nmod b {\n    pub fn run() {}\n}\n${functions.join('\n')}`)
    const outline = await toolkit.view({ path: 'steps.rs', outline: true })
    const matches = await toolkit.view({ path: 'steps.rs', symbol: 'run' })
    const ranges = await toolkit.view({ path: 'steps.rs', ranges: ['1-2', '10'] })
    assert.deepEqual([outline.kind, matches.kind, ranges.kind], ['outline', 'matches', 'ranges'])
    assertDeclared(outline, 'OutlineOutput', 'outline')
    assertDeclared(matches, 'OutlineOutput', 'matches')
    assertDeclared(ranges, 'RangesOutput', 'ranges')
    const page = await toolkit.view({ path: 'steps.rs', outline: true, max_lines: 1 })
    assert.equal(page.truncated, true)
    assertDeclared(page, 'OutlineOutput', 'a page')
  })

  test('the check sees an undeclared key, a missing one and a nested one out of order', () => {
    const version = { path: 'a', hash: 'h', byte_length: 1, mtime_ms: 1, line_ending: 'lf', bom: false, valid_utf8: true }
    assert.throws(() => assertDeclared({ ...version, extra: 1 }, 'FileVersion'))
    const { bom, ...withoutBom } = version
    assert.throws(() => assertDeclared(withoutBom, 'FileVersion'))
    const meta = { byte_length: 1, mtime_ms: 1, images_left_out: 0 }
    const text = { type: 'text', text: 'x' }
    assertDeclared({ path: 'a', kind: 'pdf', parts: [text], meta }, 'MediaOutput')
    assert.throws(() => assertDeclared({ path: 'a', kind: 'pdf', parts: [{ text: 'x', type: 'text' }], meta }, 'MediaOutput'))
    assert.throws(() => assertDeclared({ path: 'a', kind: 'image', parts: [text], meta: { ...meta, shown: null } }, 'MediaOutput'))
  })
})
