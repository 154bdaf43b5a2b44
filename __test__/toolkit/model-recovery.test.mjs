// What a toolkit tells a model that asked for something it cannot have, so that its next
// call succeeds: the closest readable files on NOT_FOUND, and 500 lines with a note for a
// max_lines over 500. The bare readFile keeps the specification's letter for both.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'

import pkg from '../../index.js'
import { after, describe, test } from '../harness.mjs'
import { expectedModelText, expectedOutput, makeFixture, withNote } from '../helpers.mjs'

const { createAgentToolkit, readFile, readFileSync, runToolCall, ToolCatalog } = pkg

const fx = makeFixture()
after(() => fx.cleanup())
fx.write('src/main.ts', 'export {}\n')
fx.write('src/mains.ts', 'export {}\n')
fx.write('src/utils/index.ts', 'export {}\n')
fx.write('.env', 'API_KEY=top-secret\n')
fx.write('certs/site.pem', 'PEM\n')
fs.writeFileSync(path.join(fx.outside, 'main.ts'), 'outside\n')
fs.writeFileSync(path.join(fx.outside, 'config.ts'), 'outside\n')
fx.link('linked', 'src')
fx.link('out', '../outside')
fx.link('src/config.tsx', '../../outside/config.ts')
fx.link('src/site.pem', '../certs/site.pem')
const long = fx.write('logs/600.txt', Array.from({ length: 600 }, (_, i) => `${i + 1}\n`).join(''))
fx.write('logs/120.txt', Array.from({ length: 120 }, (_, i) => `${i + 1}\n`).join(''))

const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
after(() => toolkit.close())

const NOTE = 'max_lines is at most 500: 500 lines returned; read on from next_start_line'
const reason = 'no such file in the workspace'

/** The message of reading `input` with `read`, which must fail. */
async function messageOf(read, input) {
  try {
    await read(input)
  } catch (error) {
    return error.message
  }
  assert.fail(`${JSON.stringify(input)} was read`)
}

describe('NOT_FOUND names the closest readable files', () => {
  test('a misspelt name: up to three files of its directory, closest first', async () => {
    const { content, code } = await runToolCall(toolkit, { path: 'src/mian.ts' })
    assert.equal(code, 'NOT_FOUND')
    assert.equal(content, `NOT_FOUND: src/mian.ts: ${reason}; did you mean src/main.ts or src/mains.ts?`)
    assert.equal(
      await messageOf((input) => toolkit.readFileSync(input), { path: 'src/main.tsx' }),
      `NOT_FOUND: src/main.tsx: ${reason}; did you mean src/main.ts or src/mains.ts?`,
    )
  })

  // Issue 36 §5: a name ending like an image, a PDF or a notebook is read as media, whose
  // NOT_FOUND named no near miss, while readFileSync's did.
  test('a misspelt image, PDF or notebook: the same near misses through the model-facing read', async () => {
    fx.write('shots/shot.png', 'not really a PNG\n')
    fx.write('shots/design.pdf', 'not really a PDF\n')
    fx.write('shots/analysis.ipynb', '{}\n')
    for (const [asked, near] of [
      ['shots/shot.PNG', 'shots/shot.png'],
      ['shots/shot.jpeg', 'shots/shot.png'],
      ['shots/design.PDF', 'shots/design.pdf'],
      ['shots/analysis.ipnyb', 'shots/analysis.ipynb'],
    ]) {
      const expected = `NOT_FOUND: ${asked}: ${reason}; did you mean ${near}?`
      assert.equal(await messageOf((input) => toolkit.readFile(input), { path: asked }), expected)
      assert.equal(await messageOf((input) => toolkit.view(input), { path: asked }), expected)
      const { content, code } = await toolkit.runToolCall({ path: asked })
      assert.deepEqual({ content, code }, { content: expected, code: 'NOT_FOUND' })
    }
  })

  // Issue 36 §5: a directory answered NOT_FILE and nothing else; a model that asks to read a
  // directory wants to know what is in it.
  test('a directory: NOT_FILE names what in it may be read, never a denied file or one outside', async () => {
    for (const name of ['listing/b.md', 'listing/a.md', 'listing/.env', 'listing/id.pem', 'listing/sub/x.txt', 'listing/.git/HEAD']) {
      fx.write(name, 'x\n')
    }
    fx.link('listing/out.md', '../../outside/main.ts')
    const expected = 'NOT_FILE: listing: a directory, not a regular file; it holds a.md, b.md and sub/'
    const { content, code } = await toolkit.runToolCall({ path: 'listing' })
    assert.deepEqual({ content, code }, { content: expected, code: 'NOT_FILE' })
    assert.equal(await messageOf((input) => toolkit.readFile(input), { path: 'listing/' }), expected.replace('listing:', 'listing/:'))
    assert.equal(await messageOf((input) => toolkit.view(input), { path: 'listing' }), expected)
    // The specification's function keeps its letter.
    assert.equal(await messageOf((input) => readFile(fx.ws, input), { path: 'listing' }), 'NOT_FILE: listing: a directory, not a regular file')
  })

  test("a file the workspace's ignore files deny is never suggested", async () => {
    fx.write('notes/plan.md', 'plan\n')
    fx.write('notes/plans.md', 'plans\n')
    fx.write('notes/.aiignore', 'plans.md\n')
    const message = await messageOf((input) => toolkit.readFile(input), { path: 'notes/plam.md' })
    assert.equal(message, `NOT_FOUND: notes/plam.md: ${reason}; did you mean notes/plan.md?`)
  })

  test('a misspelt directory: the same file in the closest directory', async () => {
    const message = await messageOf((input) => toolkit.readFile(input), { path: 'src/utlis/index.ts' })
    assert.equal(message, `NOT_FOUND: src/utlis/index.ts: ${reason}; did you mean src/utils/index.ts?`)
  })

  test('through a symlinked directory, in the spelling asked for', async () => {
    const message = await messageOf((input) => toolkit.readFile(input), { path: 'linked/mian.ts' })
    assert.equal(message, `NOT_FOUND: linked/mian.ts: ${reason}; did you mean linked/main.ts or linked/mains.ts?`)
  })

  test('never a denied file, nor one a symlink leads to outside the workspace', async () => {
    for (const [requested, expected] of [
      ['.evn', `NOT_FOUND: .evn: ${reason}`],
      ['certs/site.pen', `NOT_FOUND: certs/site.pen: ${reason}`],
      // site.pem (a symlink to a denied file) and config.tsx (leads outside) are close.
      ['src/site.pen', `NOT_FOUND: src/site.pen: ${reason}`],
      ['src/config.ts', `NOT_FOUND: src/config.ts: ${reason}`],
    ]) {
      assert.equal(await messageOf((input) => toolkit.readFile(input), { path: requested }), expected)
    }
    // A directory that leads outside is not listed: the read is refused as outside.
    const message = await messageOf((input) => toolkit.readFile(input), { path: 'out/mian.ts' })
    assert.ok(!message.includes('main.ts'), message)
  })

  test('readFiles and ToolCatalog with a ctx name them too', async () => {
    const [result] = await toolkit.readFiles([{ path: 'src/mian.ts' }])
    assert.equal(result.error.message, `NOT_FOUND: src/mian.ts: ${reason}; did you mean src/main.ts or src/mains.ts?`)
    const execute = (input) => ToolCatalog.read_file.execute(input, { workspaceRoot: fx.ws })
    assert.equal(
      await messageOf(execute, { path: 'src/mian.ts' }),
      `NOT_FOUND: src/mian.ts: ${reason}; did you mean src/main.ts or src/mains.ts?`,
    )
  })

  test("the bare readFile keeps the specification's message", async () => {
    const expected = `NOT_FOUND: src/mian.ts: ${reason}`
    assert.equal(await messageOf((input) => readFile(fx.ws, input), { path: 'src/mian.ts' }), expected)
    assert.equal(await messageOf((input) => readFileSync(fx.ws, input), { path: 'src/mian.ts' }), expected)
  })
})

describe('max_lines over 500', () => {
  test('a toolkit returns 500 lines and says so', async () => {
    const expected = { ...expectedOutput(long, 'logs/600.txt', 1, 500), note: NOTE }
    assert.deepEqual(await toolkit.readFile({ path: 'logs/600.txt', max_lines: 1000 }), expected)
    assert.deepEqual(toolkit.readFileSync({ path: 'logs/600.txt', max_lines: 501 }), expected)
    const { content } = await runToolCall(toolkit, { path: 'logs/600.txt', max_lines: 2 ** 53 })
    assert.equal(content, withNote(expectedModelText(long, 'logs/600.txt', 1, 500), NOTE))
    const json = await runToolCall(toolkit, { path: 'logs/600.txt', max_lines: 1000 }, { resultFormat: 'json' })
    assert.equal(json.content, JSON.stringify(expected))
    const [result] = await toolkit.readFiles([{ path: 'logs/600.txt', max_lines: 1000 }])
    assert.deepEqual(result, { ok: true, output: expected })
  })

  test('no note when the cap changed nothing: the file ends within 500 lines', async () => {
    const output = await toolkit.readFile({ path: 'logs/120.txt', max_lines: 1000 })
    assert.equal('note' in output, false)
    assert.equal(output.meta.returned_line_count, 120)
    const rest = await toolkit.readFile({ path: 'logs/600.txt', start_line: 101, max_lines: 1000 })
    assert.deepEqual(rest, expectedOutput(long, 'logs/600.txt', 101, 500))
  })

  test('what is not a whole number of at least 1 stays INVALID_ARGUMENT', async () => {
    for (const max_lines of [0, -1, 600.5, Infinity, NaN]) {
      const { code, content } = await runToolCall(toolkit, { path: 'logs/600.txt', max_lines })
      assert.equal(code, 'INVALID_ARGUMENT', String(max_lines))
      assert.ok(content.includes('max_lines must be an integer from 1 to 500'), content)
    }
  })

  test("the bare readFile keeps the specification's INVALID_ARGUMENT", async () => {
    const message = await messageOf((input) => readFile(fx.ws, input), { path: 'logs/600.txt', max_lines: 1000 })
    assert.equal(message, 'INVALID_ARGUMENT: logs/600.txt: max_lines must be an integer from 1 to 500 (got 1000)')
  })
})
