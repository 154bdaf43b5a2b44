// Codex's read_file dialect: slice and indentation mode, failures answered as
// { success: false, content }. Every expected value below is worked out from Codex's rules
// and the fixture written here, never taken from the addon's output.
import assert from 'node:assert/strict'
import path from 'node:path'
import pkg from '../../index.js'
import { after, describe, test } from '../harness.mjs'
import { checkFrozenDialect, dialectWorkspace, objectsIn, resolution } from '../helpers.mjs'

const { codex } = pkg.dialects
const { fx, ctx, abs } = dialectWorkspace(after)

describe('codex: the export', () => {
  test('pkg.dialects is the engine\'s dialects, in its order, and frozen', () => {
    assert.deepEqual(Object.keys(pkg.dialects), ['codex', 'forge', 'aintern'])
    assert.ok(Object.isFrozen(pkg.dialects))
    for (const [where, object] of objectsIn(pkg.dialects, 'dialects')) {
      assert.ok(Object.isFrozen(object), `${where} should be frozen`)
    }
    assert.throws(() => {
      pkg.dialects.codex = null
    }, TypeError)
  })

  test('codex has a definition and execute, frozen all the way down', () => {
    checkFrozenDialect(codex, 'codex')
    assert.throws(() => {
      codex.definition.name = 'write_file'
    }, TypeError)
  })
})

/** `L{n}: {text}` lines joined with `\n`, numbered from `first`. */
function codexLines(lines, first = 1) {
  return lines.map((text, i) => `L${first + i}: ${text}`).join('\n')
}

/** Lines `from`..`to` (1-based, inclusive) of `fileLines` as Codex shows them. */
function codexBlock(fileLines, from, to) {
  return codexLines(fileLines.slice(from - 1, to), from)
}

const FIVE = ['alpha', 'beta', 'gamma', 'delta', 'epsilon']
fx.write('codex/five.txt', `${FIVE.join('\n')}\n`)

describe('codex: definition', () => {
  test('read_file with file_path required and the documented parameters', () => {
    const def = codex.definition
    assert.equal(def.name, 'read_file')
    assert.equal(typeof def.description, 'string')
    assert.ok(def.description.length > 0)
    assert.equal(def.parameters.type, 'object')
    assert.deepEqual(def.parameters.required, ['file_path'])
    const props = def.parameters.properties
    assert.deepEqual(Object.keys(props), ['file_path', 'offset', 'limit', 'mode', 'indentation'])
    assert.equal(props.file_path.type, 'string')
    assert.deepEqual([...props.mode.enum], ['slice', 'indentation'])
    assert.equal(props.indentation.type, 'object')
    assert.deepEqual(Object.keys(props.indentation.properties), [
      'anchor_line',
      'max_levels',
      'include_siblings',
      'include_header',
      'max_lines',
    ])
    assert.equal(props.indentation.properties.include_siblings.type, 'boolean')
    assert.equal(props.indentation.properties.include_header.type, 'boolean')
  })
})

describe('codex: slice mode', () => {
  test('defaults read every line as L{n}: text, no trailing newline', async () => {
    const out = await codex.execute({ file_path: abs('codex/five.txt') }, ctx)
    assert.deepEqual(out, { success: true, content: codexLines(FIVE) })
  })

  test('offset and limit select a window', async () => {
    const out = await codex.execute({ file_path: abs('codex/five.txt'), offset: 2, limit: 2 }, ctx)
    assert.deepEqual(out, { success: true, content: 'L2: beta\nL3: gamma' })
    const tail = await codex.execute({ file_path: abs('codex/five.txt'), offset: 4, limit: 100 }, ctx)
    assert.deepEqual(tail, { success: true, content: 'L4: delta\nL5: epsilon' })
    const slice = await codex.execute(
      { file_path: abs('codex/five.txt'), offset: 5, limit: 1, mode: 'slice' },
      ctx,
    )
    assert.deepEqual(slice, { success: true, content: 'L5: epsilon' })
  })

  test('arguments as a JSON string are the same as the object', async () => {
    const args = { file_path: abs('codex/five.txt'), offset: 3, limit: 2 }
    const fromText = await codex.execute(JSON.stringify(args), ctx)
    assert.deepEqual(fromText, { success: true, content: 'L3: gamma\nL4: delta' })
    assert.deepEqual(fromText, await codex.execute(args, ctx))
  })

  test('offset past the end, and an empty file, give empty content', async () => {
    const past = await codex.execute({ file_path: abs('codex/five.txt'), offset: 6 }, ctx)
    assert.deepEqual(past, { success: true, content: '' })
    const far = await codex.execute({ file_path: abs('codex/five.txt'), offset: 999, limit: 10 }, ctx)
    assert.deepEqual(far, { success: true, content: '' })
    fx.write('codex/empty.txt', '')
    const empty = await codex.execute({ file_path: abs('codex/empty.txt') }, ctx)
    assert.deepEqual(empty, { success: true, content: '' })
  })

  test('a file without a final newline keeps its last line; CRLF is trimmed; a lone \\r stays', async () => {
    fx.write('codex/crlf.txt', 'one\r\ntwo\r\nmid\rline\nthree')
    const out = await codex.execute({ file_path: abs('codex/crlf.txt') }, ctx)
    assert.deepEqual(out, { success: true, content: 'L1: one\nL2: two\nL3: mid\rline\nL4: three' })
  })

  test('invalid UTF-8 becomes U+FFFD', async () => {
    const bytes = Buffer.concat([
      Buffer.from('ok '),
      Buffer.from([0xff, 0xfe]),
      Buffer.from(' end\ncaf'),
      Buffer.from([0xc3]),
      Buffer.from('\nfine\n'),
    ])
    fx.write('codex/bad-utf8.txt', bytes)
    const out = await codex.execute({ file_path: abs('codex/bad-utf8.txt') }, ctx)
    assert.deepEqual(out, {
      success: true,
      content: 'L1: ok \uFFFD\uFFFD end\nL2: caf\uFFFD\nL3: fine',
    })
  })

  test('lines longer than 500 bytes are cut to at most 500 bytes on a char boundary', async () => {
    const lines = [
      `${'a'.repeat(499)}é`, // 501 bytes: the 2-byte é would end at byte 501 -> dropped
      'b'.repeat(500), // exactly 500: kept whole
      'c'.repeat(501), // cut to 500
      `${'d'.repeat(498)}€tail`, // € takes bytes 499..501 -> dropped with the rest
      '日'.repeat(200), // 600 bytes of 3-byte chars -> 166 chars (498 bytes)
      'short',
    ]
    fx.write('codex/long.txt', `${lines.join('\n')}\n`)
    const out = await codex.execute({ file_path: abs('codex/long.txt') }, ctx)
    const expected = [
      'a'.repeat(499),
      'b'.repeat(500),
      'c'.repeat(500),
      'd'.repeat(498),
      '日'.repeat(166),
      'short',
    ]
    assert.deepEqual(out, { success: true, content: codexLines(expected) })
  })

  test('the default limit is 2000 lines', async () => {
    const lines = Array.from({ length: 2005 }, (_, i) => `line ${i + 1}`)
    fx.write('codex/many.txt', `${lines.join('\n')}\n`)
    const out = await codex.execute({ file_path: abs('codex/many.txt') }, ctx)
    assert.equal(out.success, true)
    assert.equal(out.content, codexLines(lines.slice(0, 2000)))
    const rest = await codex.execute({ file_path: abs('codex/many.txt'), offset: 2001 }, ctx)
    assert.deepEqual(rest, { success: true, content: codexLines(lines.slice(2000), 2001) })
  })
})

describe('codex: failures resolve { success: false, content: message }', () => {
  const failure = async (args, prefix, exact = false) => {
    const out = await resolution(() => codex.execute(args, ctx)) // must not reject
    assert.deepEqual(Object.keys(out), ['success', 'content'])
    assert.equal(out.success, false)
    assert.equal(typeof out.content, 'string')
    if (exact) assert.equal(out.content, prefix)
    else {
      assert.ok(
        out.content.startsWith(prefix),
        `${JSON.stringify(out.content)} should start with ${JSON.stringify(prefix)}`,
      )
    }
  }

  test('a relative file_path', async () => {
    await failure({ file_path: 'codex/five.txt' }, 'file_path must be an absolute path', true)
    await failure({ file_path: './codex/five.txt' }, 'file_path must be an absolute path', true)
  })

  test('offset 0 and limit 0', async () => {
    const file_path = abs('codex/five.txt')
    await failure({ file_path, offset: 0 }, 'offset must be a 1-indexed line number', true)
    await failure({ file_path, limit: 0 }, 'limit must be greater than zero', true)
  })

  test('unparsable arguments: bad JSON text, wrong types, missing file_path', async () => {
    const prefix = 'failed to parse function arguments: '
    await failure('{"file_path": ', prefix)
    await failure('not json at all', prefix)
    await failure({ file_path: abs('codex/five.txt'), offset: 'two' }, prefix)
    await failure({ file_path: abs('codex/five.txt'), limit: -1 }, prefix)
    await failure({ file_path: 42 }, prefix)
    await failure({ offset: 1 }, prefix)
    await failure({}, prefix)
    await failure({ file_path: abs('codex/five.txt'), mode: 'tree' }, prefix)
  })

  test('a missing file, a directory, and files outside the workspace', async () => {
    const prefix = 'failed to read file: '
    await failure({ file_path: abs('codex/missing.txt') }, prefix)
    await failure({ file_path: abs('codex') }, prefix)
    await failure({ file_path: fx.secret }, prefix)
    await failure({ file_path: path.join(fx.ws, '..', 'outside', 'secret.txt') }, prefix)
    fx.link('codex/escape.txt', fx.secret)
    await failure({ file_path: abs('codex/escape.txt') }, prefix)
    const nul = await codex.execute({ file_path: `${abs('codex/five.txt')}\0x` }, ctx)
    assert.deepEqual(nul, { success: false, content: `${prefix}path must not contain a NUL character` })
  })
})

// Indentation mode: which lines a block holds is the engine's (its unit tests in
// engine/src/dialect/codex_indentation/ check the selection on these and other samples).
// Here: that the tool's arguments reach it. Indents of counter.rs:
// 1:0  2:4  3:0  4:0(blank)  5:0  6:4  7:8  8:4  9:4(blank)  10:4  11:8  12:4  13:0
const RUST = [
  'struct Counter {',
  '    n: u32,',
  '}',
  '',
  'impl Counter {',
  '    fn new() -> Self {',
  '        Counter { n: 0 }',
  '    }',
  '',
  '    fn bump(&mut self) {',
  '        self.n += 1;',
  '    }',
  '}',
]
fx.write('codex/counter.rs', `${RUST.join('\n')}\n`)

// Indents: 1:0 2:0 3:4 4:4 5:8 6:4 7:4(blank) 8:4 9:4 10:8 11:4 12:0
const JS = [
  '// geometry helpers',
  'class Shapes {',
  '    // area of a square',
  '    square(s) {',
  '        return s * s',
  '    }',
  '',
  '    // area of a circle',
  '    circle(r) {',
  '        return Math.PI * r * r',
  '    }',
  '}',
]
fx.write('codex/shapes.js', `${JS.join('\n')}\n`)

describe('codex: indentation mode arguments', () => {
  const run = (file, indentation, extra = {}) =>
    codex.execute({ file_path: abs(file), mode: 'indentation', indentation, ...extra }, ctx)

  test('the anchor defaults to offset', async () => {
    // Anchor L11 (8), max_levels 1 -> floor 4, no siblings: up L10 (first on the floor),
    // L9 (blank, 4: second -> stop); down L12 (first), L13 (0: stop).
    const out = await run('codex/counter.rs', { max_levels: 1, include_siblings: false }, { offset: 11 })
    assert.deepEqual(out, { success: true, content: codexBlock(RUST, 10, 12) })
  })

  test('include_header and include_siblings are read from indentation', async () => {
    // Anchor L10 (8), floor 4, no siblings, no headers: up L9 (first on the floor), the
    // comment L8 is a second floor line -> stop; down L11 (first), L12 (0: stop).
    const bare = await run('codex/shapes.js', {
      anchor_line: 10,
      max_levels: 1,
      include_siblings: false,
      include_header: false,
    })
    assert.deepEqual(bare, { success: true, content: codexBlock(JS, 9, 11) })
  })

  test('limit and indentation.max_lines both cap the block', async () => {
    const one = await run('codex/counter.rs', { anchor_line: 11, max_lines: 1 })
    assert.deepEqual(one, { success: true, content: 'L11:         self.n += 1;' })
    const oneByLimit = await run('codex/counter.rs', { anchor_line: 11, max_lines: 50 }, { limit: 1 })
    assert.deepEqual(oneByLimit, { success: true, content: 'L11:         self.n += 1;' })
  })
})

// Issue 37 §5: a dialect's call is scheduled as every read is, and so it takes a signal.
describe('codex: scheduled as a read, with an abort signal', () => {
  fx.write('scheduled.txt', 'one\ntwo\n')

  test('an aborted ctx.signal rejects the call with an AbortError, before or during it', async () => {
    const args = { file_path: abs('scheduled.txt') }
    const before = await codex.execute(args, { ...ctx, signal: AbortSignal.abort() }).then(
      () => assert.fail('an aborted call resolved'),
      (error) => error,
    )
    assert.equal(before.code, 'ABORT_ERR')
    const controller = new AbortController()
    const during = codex.execute(args, { ...ctx, signal: controller.signal })
    controller.abort()
    // Answered on the calling thread or on the pool: either it was done before the abort, or
    // the abort wins; it never hangs.
    const settled = await during.then(
      (answer) => answer.content,
      (error) => error.code,
    )
    assert.ok(settled === 'ABORT_ERR' || settled === 'L1: one\nL2: two', settled)
  })

  test('a ctx.signal that is no AbortSignal is INVALID_ARGUMENT; an absent one is none', async () => {
    const error = await codex.execute({ file_path: abs('scheduled.txt') }, { ...ctx, signal: 'stop' }).then(
      () => assert.fail('resolved'),
      (rejection) => rejection,
    )
    assert.equal(error.code, 'INVALID_ARGUMENT')
    assert.match(error.message, /signal must be an AbortSignal/)
    const answer = await codex.execute({ file_path: abs('scheduled.txt') }, { ...ctx, signal: undefined })
    assert.equal(answer.content, 'L1: one\nL2: two')
  })
})
