// The dialects: Codex's read_file, Forge's Read and AIntern's file-read, each answering in
// its own tool's shape. Every expected value below is worked out from the dialect's rules
// and the fixture written here (by hand or with a small oracle of the stated rule), never
// taken from the addon's output.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'

import pkg from '../index.js'
import { after, describe, test } from './harness.mjs'
import { expectedMtimeMs, makeFixture, objectsIn, rejection } from './helpers.mjs'

const { codex, forge, aintern } = pkg.dialects

const fx = makeFixture()
after(() => fx.cleanup())
const ctx = { workspaceRoot: fx.ws }
const abs = (rel) => path.join(fx.ws, rel)

describe('dialects: the export', () => {
  test('pkg.dialects has codex, forge and aintern, each with a definition and execute', () => {
    for (const name of ['codex', 'forge', 'aintern']) {
      const dialect = pkg.dialects[name]
      assert.equal(typeof dialect, 'object', name)
      assert.equal(typeof dialect.definition, 'object', name)
      assert.equal(typeof dialect.execute, 'function', name)
    }
  })

  test('everything is frozen, all the way down', () => {
    for (const [where, object] of objectsIn(pkg.dialects, 'dialects')) {
      assert.ok(Object.isFrozen(object), `${where} should be frozen`)
    }
    assert.throws(() => {
      pkg.dialects.codex = null
    }, TypeError)
    assert.throws(() => {
      codex.definition.name = 'write_file'
    }, TypeError)
    assert.throws(() => {
      forge.aliases.push('cat')
    }, TypeError)
    assert.throws(() => {
      aintern.definition.tags.push('write')
    }, TypeError)
    assert.throws(() => {
      aintern.definition.inputSchema.required.push('start_line')
    }, TypeError)
  })
})

// =======================================================================================
// Codex
// =======================================================================================

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
    let promise
    assert.doesNotThrow(() => {
      promise = codex.execute(args, ctx)
    })
    assert.ok(promise && typeof promise.then === 'function', 'execute should return a promise')
    const out = await promise // must not reject
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

// Indentation-mode fixtures. The expected blocks are worked out by hand in the comments:
// indent = spaces (1) + tabs (4); blank lines take the indent of the nearest non-blank line
// above; the block grows up, then down, alternately; a side stops at a line below
// anchor_indent - 4*max_levels (max_levels 0: minimum 0); blank lines at the ends are
// trimmed; with include_siblings false a side keeps the first line at exactly the minimum
// indent and stops at the next (upwards, comments don't stop it when include_header).

// Indents:  1:0  2:4  3:0  4:0(blank)  5:0  6:4  7:8  8:4  9:4(blank)  10:4  11:8  12:4  13:0
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

// Indents: 1:0 2:0(blank) 3:0(blank) 4:0 5:4 6:4 7:4(blank) 8:4(blank) 9:0 10:4 11:4 12:8 13:4
const PYTHON = [
  'import os',
  '',
  '',
  'def first(a):',
  '    x = a + 1',
  '    return x',
  '',
  '',
  'def second(b):',
  '    y = b * 2',
  '    if y > 10:',
  '        y -= 10',
  '    return y',
]
fx.write('codex/app.py', `${PYTHON.join('\n')}\n`)

// Tabs are 4 columns. Indents: 1:0 2:4 3:4 4:8 5:12 6:8 7:8 8:12 9:8 10:4 11:8 12:4 13:0
const CPP = [
  'namespace geo {',
  '\tclass Point {',
  '\tpublic:',
  '\t\tint x() const {',
  '\t\t\treturn x_;',
  '\t\t}',
  '\t\tint y() const {',
  '\t\t\treturn y_;',
  '\t\t}',
  '\tprivate:',
  '\t\tint x_;',
  '\t};',
  '}',
]
fx.write('codex/point.hpp', `${CPP.join('\n')}\n`)

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

describe('codex: indentation mode', () => {
  const run = (file, indentation, extra = {}) =>
    codex.execute({ file_path: abs(file), mode: 'indentation', indentation, ...extra }, ctx)

  test('Rust impl, anchor in the second method, max_levels 1, no siblings: that method', async () => {
    // min indent 8-4 = 4. Up: L10 (4, first at min: kept), L9 (blank, 4: second -> stop).
    // Down: L12 (4, first at min: kept), L13 (0 < 4: stop).
    const out = await run('codex/counter.rs', { anchor_line: 11, max_levels: 1, include_siblings: false })
    assert.deepEqual(out, { success: true, content: codexBlock(RUST, 10, 12) })
  })

  test('Rust impl, max_levels 1 with siblings: the whole impl body', async () => {
    // Up through L10..L6 (all >= 4), stop at L5 (0). Down L12, stop at L13.
    const out = await run('codex/counter.rs', { anchor_line: 11, max_levels: 1 })
    assert.deepEqual(out, { success: true, content: codexBlock(RUST, 6, 12) })
  })

  test('max_levels 0 (unbounded) grows to the whole file', async () => {
    const out = await run('codex/counter.rs', { anchor_line: 11 })
    assert.deepEqual(out, { success: true, content: codexBlock(RUST, 1, 13) })
  })

  test('the anchor defaults to offset', async () => {
    const out = await run('codex/counter.rs', { max_levels: 1, include_siblings: false }, { offset: 11 })
    assert.deepEqual(out, { success: true, content: codexBlock(RUST, 10, 12) })
  })

  test('limit caps the block, growing up then down; blank lines at the ends are trimmed', async () => {
    // limit 5 from L11: +L10 (up), +L12 (down), +L9 (up), +L13 (down) -> L9..L13; L9 is
    // blank at the top -> trimmed.
    const five = await run('codex/counter.rs', { anchor_line: 11 }, { limit: 5 })
    assert.deepEqual(five, { success: true, content: codexBlock(RUST, 10, 13) })
    // max_lines 3 (limit stays 2000): +L10, +L12.
    const three = await run('codex/counter.rs', { anchor_line: 11, max_lines: 3 })
    assert.deepEqual(three, { success: true, content: codexBlock(RUST, 10, 12) })
    // min(limit, max_lines) = 1: the anchor line alone.
    const one = await run('codex/counter.rs', { anchor_line: 11, max_lines: 1 })
    assert.deepEqual(one, { success: true, content: 'L11:         self.n += 1;' })
    const oneByLimit = await run('codex/counter.rs', { anchor_line: 11, max_lines: 50 }, { limit: 1 })
    assert.deepEqual(oneByLimit, { success: true, content: 'L11:         self.n += 1;' })
  })

  test('Python, anchor in the second function, max_levels 1: everything with siblings', async () => {
    // min indent 4-4 = 0: every line is eligible; the block grows to the whole file.
    const out = await run('codex/app.py', { anchor_line: 10, max_levels: 1 })
    assert.deepEqual(out, { success: true, content: codexBlock(PYTHON, 1, 13) })
  })

  test('Python without siblings: the walk up stops at the second line of indent 0', async () => {
    // Up from L10: L9 `def second` (0, first at min: kept), L8/L7 blank (indent 4, from
    // L6), L6, L5 (4), L4 `def first` (0, second at min: stop). Down: L11..L13, EOF.
    const out = await run('codex/app.py', { anchor_line: 10, max_levels: 1, include_siblings: false })
    assert.deepEqual(out, { success: true, content: codexBlock(PYTHON, 5, 13) })
  })

  test('Python, anchor deeper: the if-body and its siblings at the minimum', async () => {
    // Anchor L12 (8), max_levels 1 -> min 4, no siblings. Up: L11 (4: first, kept),
    // L10 (4: second, stop). Down: L13 (4: first, kept), EOF.
    const out = await run('codex/app.py', { anchor_line: 12, max_levels: 1, include_siblings: false })
    assert.deepEqual(out, { success: true, content: codexBlock(PYTHON, 11, 13) })
  })

  test('C++ with tabs: a method, then the class body', async () => {
    // Anchor L8 (12). max_levels 1 -> min 8.
    // Siblings: up L7 L6 L5 L4, stop at L3 (4); down L9, stop at L10 (4).
    const methods = await run('codex/point.hpp', { anchor_line: 8, max_levels: 1 })
    assert.deepEqual(methods, { success: true, content: codexBlock(CPP, 4, 9) })
    // No siblings: up L7 (8: first, kept), L6 (8: second, stop); down L9 (8: first), L10 (4 < 8).
    const method = await run('codex/point.hpp', { anchor_line: 8, max_levels: 1, include_siblings: false })
    assert.deepEqual(method, { success: true, content: codexBlock(CPP, 7, 9) })
    // max_levels 2 -> min 4. Siblings: up to L2, stop at L1 (0); down to L12, stop at L13.
    const klass = await run('codex/point.hpp', { anchor_line: 8, max_levels: 2 })
    assert.deepEqual(klass, { success: true, content: codexBlock(CPP, 2, 12) })
    // No siblings: up L7..L4, L3 (4: first, kept), L2 (4: second, stop); down L9,
    // L10 (4: first, kept), L11 (8), L12 (4: second, stop).
    const section = await run('codex/point.hpp', { anchor_line: 8, max_levels: 2, include_siblings: false })
    assert.deepEqual(section, { success: true, content: codexBlock(CPP, 3, 11) })
  })

  test('JS class: the header comment above a method, with and without include_header', async () => {
    // Anchor L10 (8), max_levels 1 -> min 4, no siblings.
    // Up: L9 (4: first at min, kept), L8 comment (kept: include_header), L7 blank (4: stop).
    // Down: L11 (4: first at min, kept), L12 (0 < 4: stop).
    const withHeader = await run('codex/shapes.js', {
      anchor_line: 10,
      max_levels: 1,
      include_siblings: false,
    })
    assert.deepEqual(withHeader, { success: true, content: codexBlock(JS, 8, 11) })
    // include_header false: the comment at L8 is a second line at the minimum -> stop.
    const bare = await run('codex/shapes.js', {
      anchor_line: 10,
      max_levels: 1,
      include_siblings: false,
      include_header: false,
    })
    assert.deepEqual(bare, { success: true, content: codexBlock(JS, 9, 11) })
    // With siblings: up to L3, stop at L2 (0); down L11, stop at L12.
    const siblings = await run('codex/shapes.js', { anchor_line: 10, max_levels: 1 })
    assert.deepEqual(siblings, { success: true, content: codexBlock(JS, 3, 11) })
  })
})

// =======================================================================================
// Forge
// =======================================================================================

/** `cat -n` style: the number right-aligned to 6, a tab, the text. */
function numbered(lines, first = 1) {
  return lines.map((text, i) => `${String(first + i).padStart(6)}\t${text}`).join('\n')
}

function textAnswer(p, content, startLine, endLine, totalLines, truncated) {
  return {
    path: p,
    binary: false,
    content,
    start_line: startLine,
    end_line: endLine,
    total_lines: totalLines,
    truncated,
  }
}

const TEXT_KEYS = ['path', 'binary', 'content', 'start_line', 'end_line', 'total_lines', 'truncated']

// 12 lines, so the numbers reach two digits.
const TWELVE = Array.from({ length: 12 }, (_, i) => `line ${i + 1} of twelve`)
fx.write('forge/twelve.txt', `${TWELVE.join('\n')}\n`)

async function forgeCode(args, code, config) {
  const err = await rejection(() => forge.execute(args, config ? { ...ctx, config } : ctx))
  assert.ok(err instanceof Error, `expected an Error, got ${String(err)}`)
  assert.equal(err.code, code, `wrong code; message was ${JSON.stringify(err.message)}`)
  return err
}

describe('forge: definition and names', () => {
  test('Read with path required and the FR-RD-02 parameters', () => {
    const def = forge.definition
    assert.equal(def.name, 'Read')
    assert.equal(typeof def.description, 'string')
    assert.ok(def.description.length > 0)
    assert.equal(def.parameters.type, 'object')
    assert.deepEqual(def.parameters.required, ['path'])
    const props = def.parameters.properties
    assert.deepEqual(Object.keys(props), [
      'path',
      'start_line',
      'end_line',
      'limit',
      'head',
      'tail',
      'show_line_numbers',
    ])
    assert.equal(props.path.type, 'string')
    for (const name of ['start_line', 'end_line', 'limit', 'head', 'tail']) {
      assert.equal(props[name].type, 'integer', name)
    }
    assert.equal(props.show_line_numbers.type, 'boolean')
    assert.equal(props.show_line_numbers.default, true)
  })

  test('aliases and accepts()', () => {
    assert.deepEqual([...forge.aliases], ['read', 'read_file', 'read-file', 'ReadFile'])
    for (const name of ['Read', 'read', 'read_file', 'read-file', 'ReadFile']) {
      assert.equal(forge.accepts(name), true, name)
    }
    for (const name of ['READ', 'Write', 'readfile', 'Read_File', 'cat', '', 'read ']) {
      assert.equal(forge.accepts(name), false, JSON.stringify(name))
    }
  })
})

describe('forge: text reads', () => {
  test('T-RD-01: the full file, numbered like cat -n', async () => {
    const out = await forge.execute({ path: 'forge/twelve.txt' }, ctx)
    assert.deepEqual(Object.keys(out), TEXT_KEYS)
    assert.deepEqual(out, textAnswer('forge/twelve.txt', numbered(TWELVE), 1, 12, 12, false))
    assert.ok(out.content.includes('\n    10\tline 10 of twelve\n'))
  })

  test('T-RD-01: arguments as a JSON string', async () => {
    const out = await forge.execute(JSON.stringify({ path: 'forge/twelve.txt', head: 2 }), ctx)
    assert.deepEqual(out, textAnswer('forge/twelve.txt', numbered(TWELVE.slice(0, 2)), 1, 2, 12, false))
  })

  test('a file without a final newline, and an empty file', async () => {
    fx.write('forge/noeol.txt', 'first\nsecond')
    const out = await forge.execute({ path: 'forge/noeol.txt' }, ctx)
    assert.deepEqual(out, textAnswer('forge/noeol.txt', numbered(['first', 'second']), 1, 2, 2, false))
    fx.write('forge/empty.txt', '')
    const empty = await forge.execute({ path: 'forge/empty.txt' }, ctx)
    assert.deepEqual(empty, textAnswer('forge/empty.txt', '', null, null, 0, false))
  })

  test('show_line_numbers false, in the arguments or in ctx.config', async () => {
    const bare = TWELVE.slice(1, 4).join('\n')
    const byArgs = await forge.execute(
      { path: 'forge/twelve.txt', start_line: 2, end_line: 4, show_line_numbers: false },
      ctx,
    )
    assert.deepEqual(byArgs, textAnswer('forge/twelve.txt', bare, 2, 4, 12, false))
    const byConfig = await forge.execute(
      { path: 'forge/twelve.txt', start_line: 2, end_line: 4 },
      { ...ctx, config: { show_line_numbers: false } },
    )
    assert.deepEqual(byConfig, textAnswer('forge/twelve.txt', bare, 2, 4, 12, false))
    const full = await forge.execute({ path: 'forge/twelve.txt', show_line_numbers: false }, ctx)
    assert.equal(full.content, TWELVE.join('\n'))
  })

  test('T-RD-02: start_line/end_line (inclusive), limit, and both', async () => {
    const cases = [
      [{ start_line: 3, end_line: 5 }, 3, 5],
      [{ start_line: 3 }, 3, 12],
      [{ end_line: 4 }, 1, 4],
      [{ limit: 2 }, 1, 2],
      [{ start_line: 3, limit: 2 }, 3, 4],
      [{ start_line: 3, end_line: 10, limit: 2 }, 3, 4], // limit's end (4) is smaller
      [{ start_line: 3, end_line: 4, limit: 10 }, 3, 4], // end_line (4) is smaller
      [{ start_line: 5, end_line: 5 }, 5, 5],
      [{ start_line: 10, end_line: 99 }, 10, 12], // clamped to the file
      [{ start_line: 11, limit: 50 }, 11, 12],
    ]
    for (const [range, first, last] of cases) {
      const out = await forge.execute({ path: 'forge/twelve.txt', ...range }, ctx)
      const content = numbered(TWELVE.slice(first - 1, last), first)
      assert.deepEqual(
        out,
        textAnswer('forge/twelve.txt', content, first, last, 12, false),
        JSON.stringify(range),
      )
    }
  })

  test('T-RD-02: a start past the end shows nothing', async () => {
    const out = await forge.execute({ path: 'forge/twelve.txt', start_line: 13 }, ctx)
    assert.deepEqual(out, textAnswer('forge/twelve.txt', '', null, null, 12, false))
    const far = await forge.execute({ path: 'forge/twelve.txt', start_line: 50, end_line: 60 }, ctx)
    assert.deepEqual(far, textAnswer('forge/twelve.txt', '', null, null, 12, false))
  })

  test('head and tail', async () => {
    const head = await forge.execute({ path: 'forge/twelve.txt', head: 3 }, ctx)
    assert.deepEqual(head, textAnswer('forge/twelve.txt', numbered(TWELVE.slice(0, 3)), 1, 3, 12, false))
    const tail = await forge.execute({ path: 'forge/twelve.txt', tail: 3 }, ctx)
    assert.deepEqual(tail, textAnswer('forge/twelve.txt', numbered(TWELVE.slice(9), 10), 10, 12, 12, false))
    const bigHead = await forge.execute({ path: 'forge/twelve.txt', head: 100 }, ctx)
    assert.deepEqual(bigHead, textAnswer('forge/twelve.txt', numbered(TWELVE), 1, 12, 12, false))
    const bigTail = await forge.execute({ path: 'forge/twelve.txt', tail: 100 }, ctx)
    assert.deepEqual(bigTail, textAnswer('forge/twelve.txt', numbered(TWELVE), 1, 12, 12, false))
    const bareTail = await forge.execute({ path: 'forge/twelve.txt', tail: 2, show_line_numbers: false }, ctx)
    assert.deepEqual(bareTail, textAnswer('forge/twelve.txt', TWELVE.slice(10).join('\n'), 11, 12, 12, false))
  })
})

describe('forge: invalid arguments reject with INVALID_ARGUMENT', () => {
  test('T-RD-03: head and tail exclude each other and every range parameter', async () => {
    const p = 'forge/twelve.txt'
    for (const args of [
      { path: p, head: 2, tail: 2 },
      { path: p, head: 2, start_line: 1 },
      { path: p, head: 2, end_line: 5 },
      { path: p, head: 2, limit: 5 },
      { path: p, tail: 2, start_line: 1 },
      { path: p, tail: 2, end_line: 5 },
      { path: p, tail: 2, limit: 5 },
      { path: p, head: 1, tail: 1, start_line: 1, end_line: 2, limit: 1 },
    ]) {
      await forgeCode(args, 'INVALID_ARGUMENT')
    }
  })

  test('0 for any number, end_line before start_line', async () => {
    const p = 'forge/twelve.txt'
    for (const name of ['start_line', 'end_line', 'limit', 'head', 'tail']) {
      await forgeCode({ path: p, [name]: 0 }, 'INVALID_ARGUMENT')
    }
    await forgeCode({ path: p, start_line: 5, end_line: 4 }, 'INVALID_ARGUMENT')
    await forgeCode({ path: p, start_line: 2, end_line: 1, limit: 3 }, 'INVALID_ARGUMENT')
  })

  test('wrong types and a missing path', async () => {
    const p = 'forge/twelve.txt'
    for (const args of [
      { path: p, start_line: '2' },
      { path: p, end_line: 2.5 },
      { path: p, limit: -1 },
      { path: p, head: true },
      { path: p, tail: [3] },
      { path: p, show_line_numbers: 'no' },
      { path: 42 },
      {},
      { start_line: 1 },
      { path: 'forge/twelve.txt\0../../outside/secret.txt' },
    ]) {
      await forgeCode(args, 'INVALID_ARGUMENT')
    }
  })
})

describe('forge: files it cannot read', () => {
  test('NOT_FOUND, NOT_FILE, OUTSIDE_WORKSPACE', async () => {
    await forgeCode({ path: 'forge/missing.txt' }, 'NOT_FOUND')
    await forgeCode({ path: 'forge' }, 'NOT_FILE')
    await forgeCode({ path: '../outside/secret.txt' }, 'OUTSIDE_WORKSPACE')
    await forgeCode({ path: 'forge/../../outside/secret.txt' }, 'OUTSIDE_WORKSPACE')
    fx.link('forge/escape.txt', fx.secret)
    await forgeCode({ path: 'forge/escape.txt' }, 'OUTSIDE_WORKSPACE')
  })
})

describe('forge: binary files', () => {
  // A PNG-like header and every byte value: NULs well inside the first 8192 bytes.
  const BINARY = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d]),
    Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
    Buffer.from('tail\n'),
  ])
  fx.write('forge/image.png', BINARY)
  const decode = (b64) => Buffer.from(b64, 'base64')
  const BIN_KEYS = ['path', 'binary', 'base64', 'offset', 'byte_length', 'truncated']

  test('T-RD-04: base64 of the whole file', async () => {
    const out = await forge.execute({ path: 'forge/image.png' }, ctx)
    assert.deepEqual(Object.keys(out), BIN_KEYS)
    assert.equal(out.path, 'forge/image.png')
    assert.equal(out.binary, true)
    assert.ok(decode(out.base64).equals(BINARY), 'the base64 should decode to the file bytes')
    assert.equal(out.base64, BINARY.toString('base64'))
    assert.equal(out.offset, 0)
    assert.equal(out.byte_length, fs.statSync(abs('forge/image.png')).size)
    assert.equal(out.truncated, false)
  })

  test('T-RD-04: a head or range read of a binary file is the same base64', async () => {
    for (const args of [{ head: 2 }, { start_line: 1, end_line: 1 }]) {
      const out = await forge.execute({ path: 'forge/image.png', ...args }, ctx)
      assert.equal(out.binary, true, JSON.stringify(args))
      assert.ok(decode(out.base64).equals(BINARY), JSON.stringify(args))
      assert.equal(out.truncated, false)
    }
  })

  test('max_file_read_bytes limits the base64 and marks it truncated', async () => {
    const out = await forge.execute(
      { path: 'forge/image.png' },
      { ...ctx, config: { max_file_read_bytes: 16 } },
    )
    assert.equal(out.binary, true)
    assert.ok(decode(out.base64).equals(BINARY.subarray(0, 16)))
    assert.equal(out.offset, 0)
    assert.equal(out.byte_length, BINARY.length)
    assert.equal(out.truncated, true)
    const exact = await forge.execute(
      { path: 'forge/image.png' },
      { ...ctx, config: { max_file_read_bytes: BINARY.length } },
    )
    assert.ok(decode(exact.base64).equals(BINARY))
    assert.equal(exact.truncated, false)
  })

  test('binary means a NUL in the first 8192 bytes', async () => {
    const last = Buffer.alloc(8200, 'x')
    last[8191] = 0
    fx.write('forge/nul-at-8191.bin', last)
    const out = await forge.execute({ path: 'forge/nul-at-8191.bin' }, ctx)
    assert.equal(out.binary, true)
    assert.ok(decode(out.base64).equals(last))

    const late = Buffer.concat([Buffer.alloc(8192, 'y'), Buffer.from('\0z\nok\n')])
    fx.write('forge/nul-at-8192.txt', late)
    const text = await forge.execute({ path: 'forge/nul-at-8192.txt' }, ctx)
    assert.deepEqual(
      text,
      textAnswer('forge/nul-at-8192.txt', numbered([`${'y'.repeat(8192)}\0z`, 'ok']), 1, 2, 2, false),
    )
  })
})

describe('forge: max_file_read_bytes for text', () => {
  // Six lines of 9 bytes: each costs 10 with its newline; 60 bytes in all.
  const SIX = Array.from({ length: 6 }, (_, i) => `line-000${i + 1}`)
  fx.write('forge/six.txt', `${SIX.join('\n')}\n`)
  const withBudget = (args, max) =>
    forge.execute({ path: 'forge/six.txt', ...args }, { ...ctx, config: { max_file_read_bytes: max } })
  const first = (n, truncated) =>
    textAnswer('forge/six.txt', numbered(SIX.slice(0, n)), 1, n, 6, truncated)

  test('lines stop before the budget is exceeded', async () => {
    // 35: 3 lines (30), the 4th would make 40.
    assert.deepEqual(await withBudget({}, 35), first(3, true))
    // 40: exactly 4 lines; not exceeded, but lines are left out.
    assert.deepEqual(await withBudget({}, 40), first(4, true))
    // 59: 5 lines.
    assert.deepEqual(await withBudget({}, 59), first(5, true))
    // 60: everything fits.
    assert.deepEqual(await withBudget({}, 60), first(6, false))
  })

  test('the budget applies to the selected lines', async () => {
    // From line 3, 25 bytes: lines 3 and 4 (20); line 5 would make 30.
    assert.deepEqual(
      await withBudget({ start_line: 3 }, 25),
      textAnswer('forge/six.txt', numbered(SIX.slice(2, 4), 3), 3, 4, 6, true),
    )
    assert.deepEqual(
      await withBudget({ start_line: 3, end_line: 4 }, 20),
      textAnswer('forge/six.txt', numbered(SIX.slice(2, 4), 3), 3, 4, 6, false),
    )
    assert.deepEqual(
      await withBudget({ tail: 3 }, 25),
      textAnswer('forge/six.txt', numbered(SIX.slice(3, 5), 4), 4, 5, 6, true),
    )
    assert.deepEqual(
      await withBudget({ head: 3, show_line_numbers: false }, 15),
      textAnswer('forge/six.txt', SIX[0], 1, 1, 6, true),
    )
  })

  test('a first line over the budget is shown cut to the budget', async () => {
    fx.write('forge/wide.txt', `${'w'.repeat(50)}\nnext\n`)
    const out = await forge.execute(
      { path: 'forge/wide.txt' },
      { ...ctx, config: { max_file_read_bytes: 20 } },
    )
    assert.deepEqual(out, textAnswer('forge/wide.txt', numbered(['w'.repeat(20)]), 1, 1, 2, true))
  })
})

describe('forge: max_scan_bytes', () => {
  // 200 lines `row NNN` of 8 bytes with the newline: 1600 bytes; line k is bytes 8(k-1)..8k-1.
  const ROWS = Array.from({ length: 200 }, (_, i) => `row ${String(i + 1).padStart(3, '0')}`)
  fx.write('forge/rows.txt', `${ROWS.join('\n')}\n`)
  // 125 such lines: exactly 1000 bytes.
  fx.write('forge/rows-1000.txt', `${ROWS.slice(0, 125).join('\n')}\n`)
  fx.write('forge/rows-1001.txt', `${ROWS.slice(0, 125).join('\n')}\nx`)
  const scan = (max) => ({ ...ctx, config: { max_scan_bytes: max } })

  test('a range read of a larger file is SIZE_LIMIT_EXCEEDED', async () => {
    await forgeCode({ path: 'forge/rows.txt' }, 'SIZE_LIMIT_EXCEEDED', { max_scan_bytes: 1000 })
    await forgeCode({ path: 'forge/rows.txt', start_line: 1, limit: 1 }, 'SIZE_LIMIT_EXCEEDED', {
      max_scan_bytes: 1000,
    })
    await forgeCode({ path: 'forge/rows.txt', end_line: 2 }, 'SIZE_LIMIT_EXCEEDED', { max_scan_bytes: 1000 })
    await forgeCode({ path: 'forge/rows-1001.txt' }, 'SIZE_LIMIT_EXCEEDED', { max_scan_bytes: 1000 })
  })

  test('a file of exactly max_scan_bytes is read', async () => {
    const out = await forge.execute({ path: 'forge/rows-1000.txt' }, scan(1000))
    assert.deepEqual(out, textAnswer('forge/rows-1000.txt', numbered(ROWS.slice(0, 125)), 1, 125, 125, false))
    // A tail of a file read whole still knows its line numbers.
    const tail = await forge.execute({ path: 'forge/rows-1000.txt', tail: 2 }, scan(1000))
    const lastTwo = numbered(ROWS.slice(123, 125), 124)
    assert.deepEqual(tail, textAnswer('forge/rows-1000.txt', lastTwo, 124, 125, 125, false))
  })

  test('head reads the first max_scan_bytes and still works', async () => {
    const out = await forge.execute({ path: 'forge/rows.txt', head: 3 }, scan(1004))
    // Not read whole: total_lines is unknown.
    assert.deepEqual(out, textAnswer('forge/rows.txt', numbered(ROWS.slice(0, 3)), 1, 3, null, false))
  })

  test('tail reads the last max_scan_bytes backwards, drops the partial line, numbers unknown', async () => {
    const out = await forge.execute({ path: 'forge/rows.txt', tail: 5 }, scan(1004))
    assert.deepEqual(out, textAnswer('forge/rows.txt', ROWS.slice(195).join('\n'), null, null, null, false))
    // The last 1004 bytes start at byte 596, inside line 75 (bytes 592..599): the lines
    // available are 76..200.
    const all = await forge.execute({ path: 'forge/rows.txt', tail: 200 }, scan(1004))
    assert.equal(all.binary, false)
    assert.equal(all.content, ROWS.slice(75).join('\n'))
    assert.equal(all.start_line, null)
    assert.equal(all.end_line, null)
    assert.equal(all.total_lines, null)
  })
})

// =======================================================================================
// AIntern
// =======================================================================================

const AINTERN_DEFINITION = {
  id: 'file-read',
  name: 'Read File',
  description:
    'Read the contents of a file from the workspace.\n' +
    'Returns the file content as text with optional line filtering.\n' +
    'Use this when you need to examine file contents before making changes.\n' +
    '\n' +
    'Supports:\n' +
    '- Reading entire files or specific line ranges\n' +
    '- Automatic encoding detection\n' +
    '- Large file handling with truncation warnings',
  category: 'FileSystem',
  riskLevel: 'Safe',
  tags: ['file', 'read', 'view', 'content'],
  inputSchema: {
    type: 'object',
    description: 'Parameters for reading a file',
    properties: {
      path: { type: 'string', description: 'Relative path to the file within the workspace' },
      start_line: { type: 'integer', description: 'Starting line number (1-based, inclusive)' },
      end_line: { type: 'integer', description: 'Ending line number (1-based, inclusive)' },
      max_lines: { type: 'integer', description: 'Maximum number of lines to read (default: 1000)' },
      include_line_numbers: {
        type: 'boolean',
        description: 'Include line numbers in output (default: true)',
      },
    },
    required: ['path'],
  },
}

/** The document's FormatOutput. */
function ainternOutput(lines, startLine, includeLineNumbers = true) {
  if (lines.length === 0) return ''
  if (!includeLineNumbers) return lines.join('\n')
  const width = String(startLine + lines.length - 1).length
  return lines
    .map((line, i) => `${String(startLine + i).padStart(width)} | ${line}`)
    .join('\n')
    .trimEnd()
}

/** The whole success answer for `rel` read as `requested`, from the document's rules. */
function ainternSuccess(rel, requested, text, opts = {}) {
  const { start_line, end_line, max_lines = 1000, include_line_numbers = true, encoding = 'utf-8' } = opts
  const file = abs(rel)
  const lines = text.split('\n')
  const total = lines.length
  const start = Math.max(1, start_line ?? 1)
  let end = Math.min(total, end_line ?? total)
  let shown = []
  let truncated = false
  if (start > total) {
    end = start
  } else {
    shown = lines.slice(start - 1, end)
    if (shown.length > max_lines) {
      shown = shown.slice(0, max_lines)
      truncated = true
      end = start + max_lines - 1
    }
  }
  return {
    success: true,
    output: ainternOutput(shown, start, include_line_numbers),
    data: {
      path: requested,
      totalLines: total,
      startLine: start,
      endLine: end,
      linesReturned: shown.length,
      wasTruncated: truncated,
      encoding,
      fileSize: fs.statSync(file).size,
      lastModified: new Date(expectedMtimeMs(file)).toISOString(),
      remainingLines: total - end,
      percentageRead: total > 0 ? (shown.length / total) * 100 : 100,
    },
    message: truncated
      ? `Read lines ${start}-${end} of ${total} (truncated to ${max_lines} lines)`
      : `Read ${shown.length} lines from ${requested}`,
  }
}

const DATA_KEYS = [
  'path',
  'totalLines',
  'startLine',
  'endLine',
  'linesReturned',
  'wasTruncated',
  'encoding',
  'fileSize',
  'lastModified',
  'remainingLines',
  'percentageRead',
]

async function ainternExec(args) {
  let promise
  assert.doesNotThrow(() => {
    promise = aintern.execute(args, ctx)
  })
  assert.ok(promise && typeof promise.then === 'function', 'execute should return a promise')
  return promise
}

/**
 * Reads with `args` (object or JSON text) and checks the whole answer (and its key
 * orders) against the document's rules applied to `text`, the file's decoded content.
 */
async function checkAintern(args, text, { rel, encoding = 'utf-8' } = {}) {
  const out = await ainternExec(args)
  const parsed = typeof args === 'string' ? JSON.parse(args) : args
  const expected = ainternSuccess(rel ?? parsed.path, parsed.path, text, { ...parsed, encoding })
  assert.deepEqual(out, expected)
  assert.deepEqual(Object.keys(out), ['success', 'output', 'data', 'message'])
  assert.deepEqual(Object.keys(out.data), DATA_KEYS)
  return out
}

const NOTES = 'alpha\nbeta\ngamma\n'
fx.write('ai/notes.txt', NOTES)
const LINES12 = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`)
const TEXT12 = `${LINES12.join('\n')}\n` // 13 lines for split('\n'): the last is ''
fx.write('ai/twelve.txt', TEXT12)

describe('aintern: definition and helpers', () => {
  test('the definition is the document\'s', () => {
    assert.deepEqual(aintern.definition, AINTERN_DEFINITION)
    assert.deepEqual(Object.keys(aintern.definition), Object.keys(AINTERN_DEFINITION))
    assert.deepEqual(
      Object.keys(aintern.definition.inputSchema.properties),
      Object.keys(AINTERN_DEFINITION.inputSchema.properties),
    )
  })

  test('validate: valid arguments', () => {
    assert.deepEqual(aintern.validate({ path: 'a.txt' }), { isValid: true, errors: [] })
    assert.deepEqual(
      aintern.validate({
        path: 'a.txt',
        start_line: 2,
        end_line: 2,
        max_lines: 1,
        include_line_numbers: false,
      }),
      { isValid: true, errors: [] },
    )
  })

  test('validate: REQUIRED path and INVALID_RANGE, in the document\'s order', () => {
    const required = { parameterName: 'path', message: 'path is required', code: 'REQUIRED' }
    assert.deepEqual(aintern.validate({}), { isValid: false, errors: [required] })
    assert.deepEqual(aintern.validate({ path: '' }), { isValid: false, errors: [required] })
    assert.deepEqual(aintern.validate({ path: '  \t ' }), { isValid: false, errors: [required] })
    const range = (parameterName, message) => ({ parameterName, message, code: 'INVALID_RANGE' })
    assert.deepEqual(aintern.validate({ path: 'a', start_line: 0 }), {
      isValid: false,
      errors: [range('start_line', 'Start line must be at least 1')],
    })
    assert.deepEqual(aintern.validate({ path: 'a', end_line: 0 }), {
      isValid: false,
      errors: [range('end_line', 'End line must be at least 1')],
    })
    assert.deepEqual(aintern.validate({ path: 'a', start_line: 5, end_line: 3 }), {
      isValid: false,
      errors: [range('end_line', 'End line must be >= start line')],
    })
    assert.deepEqual(aintern.validate({ path: 'a', start_line: 5, end_line: -1 }), {
      isValid: false,
      errors: [
        range('end_line', 'End line must be at least 1'),
        range('end_line', 'End line must be >= start line'),
      ],
    })
    assert.deepEqual(aintern.validate({ path: 'a', max_lines: 0 }), {
      isValid: false,
      errors: [range('max_lines', 'Max lines must be at least 1')],
    })
    assert.deepEqual(aintern.validate({ start_line: -2, end_line: -3, max_lines: -1 }), {
      isValid: false,
      errors: [
        required,
        range('start_line', 'Start line must be at least 1'),
        range('end_line', 'End line must be at least 1'),
        range('end_line', 'End line must be >= start line'),
        range('max_lines', 'Max lines must be at least 1'),
      ],
    })
  })

  test('validate: INVALID_TYPE for non-integers and a non-boolean', () => {
    for (const [name, value] of [
      ['start_line', '3'],
      ['start_line', 1.5],
      ['end_line', true],
      ['max_lines', [10]],
      ['include_line_numbers', 'yes'],
      ['include_line_numbers', 1],
    ]) {
      const result = aintern.validate({ path: 'a.txt', [name]: value })
      assert.equal(result.isValid, false, `${name}: ${JSON.stringify(value)}`)
      assert.equal(result.errors.length, 1, JSON.stringify(result.errors))
      const [error] = result.errors
      assert.deepEqual(Object.keys(error), ['parameterName', 'message', 'code'])
      assert.equal(error.parameterName, name)
      assert.equal(error.code, 'INVALID_TYPE')
      assert.equal(typeof error.message, 'string')
      assert.ok(error.message.length > 0)
    }
  })

  test('getExecutionSummary', () => {
    const s = (args) => aintern.getExecutionSummary(args)
    assert.equal(s({ path: 'src/a.txt' }), "Read file 'src/a.txt'")
    assert.equal(s({ path: 'src/a.txt', start_line: 3 }), "Read 'src/a.txt' from line 3")
    assert.equal(s({ path: 'src/a.txt', start_line: 3, end_line: 9 }), "Read 'src/a.txt' lines 3-9")
    assert.equal(s({ path: 'src/a.txt', end_line: 9 }), "Read file 'src/a.txt'")
    assert.equal(s({}), "Read file 'unknown'")
    const forty = `src/${'p'.repeat(32)}.txt` // 4 + 32 + 4 = 40 characters: kept
    assert.equal(forty.length, 40)
    assert.equal(s({ path: forty }), `Read file '${forty}'`)
    const fortyOne = `src/${'q'.repeat(31)}x/a.md` // 41 characters: '...' + the last 37
    assert.equal(fortyOne.length, 41)
    assert.equal(s({ path: fortyOne }), `Read file '...${fortyOne.slice(4)}'`)
    const long = `deeply/nested/${'d'.repeat(50)}/component/index.tsx`
    const short = `...${long.slice(long.length - 37)}`
    assert.equal(short.length, 40)
    assert.equal(s({ path: long, start_line: 7 }), `Read '${short}' from line 7`)
    assert.equal(s({ path: long, start_line: 7, end_line: 8 }), `Read '${short}' lines 7-8`)
  })

  test('formatFileSize', () => {
    const f = (n) => aintern.formatFileSize(n)
    assert.equal(f(0), '0 B')
    assert.equal(f(1), '1 B')
    assert.equal(f(1023), '1023 B')
    assert.equal(f(1024), '1.0 KB')
    assert.equal(f(1536), '1.5 KB')
    assert.equal(f(10 * 1024 + 307), '10.3 KB') // 10.2998...
    assert.equal(f(1024 * 1024 - 1), '1024.0 KB') // 1023.999... rounds up, still KB
    assert.equal(f(1024 * 1024), '1.0 MB')
    assert.equal(f(10 * 1024 * 1024), '10.0 MB')
    assert.equal(f(15 * 1024 * 1024), '15.0 MB')
    assert.equal(f(1024 * 1024 * 1024 - 1), '1024.0 MB')
    assert.equal(f(1024 * 1024 * 1024), '1.00 GB')
    assert.equal(f(2 * 1024 * 1024 * 1024), '2.00 GB')
    assert.equal(f(5.25 * 1024 * 1024 * 1024), '5.25 GB')
  })
})

describe('aintern: reading', () => {
  test('a whole file: numbered, the trailing empty line counted, the output trimEnd()ed', async () => {
    const out = await checkAintern({ path: 'ai/notes.txt' }, NOTES)
    // Written out by hand as well: lines alpha, beta, gamma, '' (4 lines).
    assert.equal(out.output, '1 | alpha\n2 | beta\n3 | gamma\n4 |')
    assert.equal(out.data.totalLines, 4)
    assert.equal(out.message, 'Read 4 lines from ai/notes.txt')
    assert.equal(out.data.percentageRead, 100)
    assert.equal(out.data.remainingLines, 0)
  })

  test('arguments as a JSON string', async () => {
    await checkAintern(JSON.stringify({ path: 'ai/notes.txt', start_line: 2 }), NOTES)
  })

  test('include_line_numbers false joins the lines unchanged', async () => {
    const out = await checkAintern({ path: 'ai/notes.txt', include_line_numbers: false }, NOTES)
    assert.equal(out.output, NOTES)
  })

  test('line ranges, and the number width of the last shown number', async () => {
    const out = await checkAintern({ path: 'ai/twelve.txt', start_line: 8, end_line: 11 }, TEXT12)
    assert.equal(out.output, ' 8 | line 8\n 9 | line 9\n10 | line 10\n11 | line 11')
    assert.equal(out.data.remainingLines, 2)
    assert.equal(out.message, 'Read 4 lines from ai/twelve.txt')
    const low = await checkAintern({ path: 'ai/twelve.txt', end_line: 3 }, TEXT12)
    assert.equal(low.output, '1 | line 1\n2 | line 2\n3 | line 3')
    // end_line past the end is clamped to the total (13).
    const clamped = await checkAintern({ path: 'ai/twelve.txt', start_line: 12, end_line: 99 }, TEXT12)
    assert.equal(clamped.output, '12 | line 12\n13 |')
    assert.equal(clamped.data.endLine, 13)
  })

  test('max_lines truncates, with the document\'s message', async () => {
    const out = await checkAintern({ path: 'ai/twelve.txt', start_line: 3, max_lines: 4 }, TEXT12)
    assert.equal(out.output, '3 | line 3\n4 | line 4\n5 | line 5\n6 | line 6')
    assert.equal(out.data.wasTruncated, true)
    assert.equal(out.data.endLine, 6)
    assert.equal(out.data.remainingLines, 7)
    assert.equal(out.data.percentageRead, (4 / 13) * 100)
    assert.equal(out.message, 'Read lines 3-6 of 13 (truncated to 4 lines)')
    // Exactly max_lines lines: not truncated.
    const exact = await checkAintern({ path: 'ai/twelve.txt', start_line: 10, max_lines: 4 }, TEXT12)
    assert.equal(exact.data.wasTruncated, false)
    assert.equal(exact.message, 'Read 4 lines from ai/twelve.txt')
  })

  test('the default max_lines is 1000', async () => {
    const lines = Array.from({ length: 1100 }, (_, i) => `n${i + 1}`)
    const text = lines.join('\n')
    fx.write('ai/long.txt', text)
    const out = await checkAintern({ path: 'ai/long.txt' }, text)
    assert.equal(out.data.linesReturned, 1000)
    assert.equal(out.message, 'Read lines 1-1000 of 1100 (truncated to 1000 lines)')
    assert.ok(out.output.startsWith('   1 | n1\n   2 | n2\n'))
    assert.ok(out.output.endsWith('\n1000 | n1000'))
  })

  test('a start past the end returns nothing, startLine = endLine = start', async () => {
    fx.write('ai/two.txt', 'one\ntwo')
    const out = await checkAintern({ path: 'ai/two.txt', start_line: 5 }, 'one\ntwo')
    assert.equal(out.output, '')
    assert.equal(out.data.startLine, 5)
    assert.equal(out.data.endLine, 5)
    assert.equal(out.data.remainingLines, -3)
    assert.equal(out.data.percentageRead, 0)
    assert.equal(out.message, 'Read 0 lines from ai/two.txt')
  })

  test('an empty file is one empty line', async () => {
    fx.write('ai/empty.txt', '')
    const out = await checkAintern({ path: 'ai/empty.txt' }, '')
    assert.equal(out.output, '1 |')
    assert.equal(out.data.totalLines, 1)
    assert.equal(out.data.fileSize, 0)
  })

  test('CRLF: the \\r stays in each line', async () => {
    const text = 'first\r\nsecond\r\n'
    fx.write('ai/crlf.txt', text)
    const out = await checkAintern({ path: 'ai/crlf.txt' }, text)
    assert.equal(out.output, '1 | first\r\n2 | second\r\n3 |')
    const bare = await checkAintern({ path: 'ai/crlf.txt', include_line_numbers: false }, text)
    assert.equal(bare.output, text)
  })

  test('a leading / is stripped: the path is taken in the workspace', async () => {
    fx.write('src/a.txt', 'inside the workspace\n')
    const out = await checkAintern({ path: '/src/a.txt' }, 'inside the workspace\n', { rel: 'src/a.txt' })
    assert.equal(out.data.path, '/src/a.txt')
    assert.equal(out.message, 'Read 2 lines from /src/a.txt')
  })

  test('names with .., ~ or $( inside are read (the sandbox decides)', async () => {
    for (const name of ['ai/notes..txt', 'ai/tilde~name.txt', 'ai/cmd$(x).txt']) {
      const text = `content of ${name}\n`
      fx.write(name, text)
      await checkAintern({ path: name }, text)
    }
  })
})

describe('aintern: failures resolve { success: false, error }', () => {
  test('invalid parameters', async () => {
    for (const args of [
      { path: 'ai/notes.txt', start_line: 0 },
      { start_line: 1 },
      { path: 'ai/notes.txt', start_line: 3, end_line: 2 },
    ]) {
      const out = await ainternExec(args)
      assert.deepEqual(Object.keys(out), ['success', 'error', 'validationErrors'])
      assert.equal(out.success, false)
      assert.ok(out.error.startsWith('Invalid parameters: '), out.error)
      assert.deepEqual(out.validationErrors, aintern.validate(args).errors)
      assert.ok(out.validationErrors.length > 0)
    }
    const typed = await ainternExec({ path: 'ai/notes.txt', max_lines: 'ten' })
    assert.equal(typed.success, false)
    assert.ok(typed.error.startsWith('Invalid parameters: '))
    assert.equal(typed.validationErrors[0].code, 'INVALID_TYPE')
  })

  test('a missing file or a directory: File not found', async () => {
    assert.deepEqual(await ainternExec({ path: 'ai/missing.txt' }), {
      success: false,
      error: 'File not found: ai/missing.txt',
    })
    assert.deepEqual(await ainternExec({ path: 'ai' }), { success: false, error: 'File not found: ai' })
  })

  test('outside the workspace', async () => {
    const error = 'Path is outside the workspace. Only files within the workspace can be accessed.'
    fx.link('ai/escape.txt', fx.secret)
    for (const p of [
      '../outside/secret.txt',
      'ai/../../outside/secret.txt',
      '/../outside/secret.txt',
      'ai/escape.txt',
    ]) {
      assert.deepEqual(await ainternExec({ path: p }), { success: false, error }, p)
    }
  })

  test('a file over 10 MB', async () => {
    const CONSIDER = 'Consider using start_line/end_line parameters to read a portion.'
    const big = fx.write('ai/big.bin', '')
    fs.truncateSync(big, 15 * 1024 * 1024)
    assert.deepEqual(await ainternExec({ path: 'ai/big.bin' }), {
      success: false,
      error: `File too large (15.0 MB). Maximum size: 10.0 MB. ${CONSIDER}`,
    })
    const justOver = fx.write('ai/just-over.bin', '')
    fs.truncateSync(justOver, 10 * 1024 * 1024 + 1)
    assert.deepEqual(await ainternExec({ path: 'ai/just-over.bin', start_line: 1, end_line: 1 }), {
      success: false,
      error: `File too large (10.0 MB). Maximum size: 10.0 MB. ${CONSIDER}`,
    })
  })
})

describe('aintern: encoding detection', () => {
  const hex = (s) => Buffer.from(s.replace(/\s+/g, ''), 'hex')

  /** Windows-1252 bytes for `text`, from a hand-written table of the non-ASCII characters. */
  const CP1252 = {
    '€': 0x80,
    '’': 0x92,
    '“': 0x93,
    '”': 0x94,
    '—': 0x97,
    À: 0xc0,
    à: 0xe0,
    ç: 0xe7,
    è: 0xe8,
    é: 0xe9,
    ï: 0xef,
    ñ: 0xf1,
    ô: 0xf4,
    û: 0xfb,
    ü: 0xfc,
  }
  function cp1252(text) {
    return Buffer.from(
      [...text].map((ch) => {
        const code = ch.codePointAt(0)
        if (code < 0x80) return code
        assert.ok(ch in CP1252, `no cp1252 byte for ${ch}`)
        return CP1252[ch]
      }),
    )
  }

  const SJIS_TEXT =
    '日本語のテキストです。これはシフトJISで書かれた文章です。\n' +
    '文字コードの自動判定が正しく動くかを確かめます。\n' +
    '三行目も日本語で書いておきます。\n'
  const SJIS_BYTES = hex(`
    93fa967b8cea82cc8365834c8358836782c582b7814282b182ea82cd8356837483674a495382c58f9182a982ea82bd95
    b68fcd82c582b781420a95b68e9a8352815b836882cc8ea993ae94bb92e882aa90b382b582ad93ae82ad82a982f08a6d
    82a982df82dc82b781420a8e4f8d7396da82e093fa967b8cea82c58f9182a282c482a882ab82dc82b781420a`)

  const EUCJP_TEXT =
    '吾輩は猫である。名前はまだ無い。\n' +
    'どこで生れたかとんと見当がつかぬ。\n' +
    '何でも薄暗いじめじめした所で泣いていた事だけは記憶している。\n'
  const EUCJP_BYTES = hex(`
    b8e3c7daa4cfc7ada4c7a4a2a4eba1a3ccbec1b0a4cfa4dea4c0ccb5a4a4a1a30aa4c9a4b3a4c7c0b8a4eca4bfa4aba4
    c8a4f3a4c8b8abc5f6a4aca4c4a4aba4cca1a30ab2bfa4c7a4e2c7f6b0c5a4a4a4b8a4e1a4b8a4e1a4b7a4bfbdeaa4c7
    b5e3a4a4a4c6a4a4a4bfbbf6a4c0a4b1a4cfb5adb2b1a4b7a4c6a4a4a4eba1a30a`)

  const GBK_TEXT =
    '这是一段用于测试的中文文本。\n' +
    '我们需要检查编码自动检测的结果是否正确。\n' +
    '第三行也写在这里，内容足够长。\n'
  const GBK_BYTES = hex(`
    d5e2cac7d2bbb6ced3c3d3dab2e2cad4b5c4d6d0cec4cec4b1bea1a30aced2c3c7d0e8d2aabcecb2e9b1e0c2ebd7d4b6
    afbcecb2e2b5c4bde1b9fbcac7b7f1d5fdc8b7a1a30ab5dac8fdd0d0d2b2d0b4d4dad5e2c0efa3acc4dac8ddd7e3b9bb
    b3a4a1a30a`)

  test('the hand-written fixtures decode to the intended texts (checked independently)', () => {
    assert.equal(new TextDecoder('shift_jis', { fatal: true }).decode(SJIS_BYTES), SJIS_TEXT)
    assert.equal(new TextDecoder('euc-jp', { fatal: true }).decode(EUCJP_BYTES), EUCJP_TEXT)
    assert.equal(new TextDecoder('gbk', { fatal: true }).decode(GBK_BYTES), GBK_TEXT)
    for (const bytes of [SJIS_BYTES, EUCJP_BYTES, GBK_BYTES]) {
      assert.ok(bytes.length >= 60, `${bytes.length} bytes`)
      assert.throws(() => new TextDecoder('utf-8', { fatal: true }).decode(bytes))
    }
  })

  test('UTF-8 without BOM', async () => {
    const text =
      'Plain UTF-8: naïve café — “quotes”, 10€, 日本語, emoji 🎉.\n' + 'Second line here.\n'
    fx.write('enc/utf8.txt', Buffer.from(text, 'utf8'))
    await checkAintern({ path: 'enc/utf8.txt' }, text)
    // Pure ASCII is reported as utf-8 too.
    await checkAintern({ path: 'ai/notes.txt' }, NOTES)
  })

  test('UTF-8 with a BOM: utf-8, the BOM not in the output', async () => {
    const text = 'Byte order mark first: café, señor.\nAnother line.\n'
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')])
    fx.write('enc/utf8-bom.txt', bytes)
    const out = await checkAintern({ path: 'enc/utf8-bom.txt' }, text)
    assert.ok(!out.output.includes('\uFEFF'))
    assert.equal(out.data.fileSize, bytes.length)
  })

  test('UTF-16LE and UTF-16BE with BOMs', async () => {
    const text =
      'UTF-16 text: naïve café, 日本語のテキスト.\n' +
      'Second line — “quoted”.\n' +
      'Third line.\n'
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')])
    const be = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()])
    assert.equal(new TextDecoder('utf-16be').decode(be), text) // independent check of the swap
    fx.write('enc/utf16le.txt', le)
    fx.write('enc/utf16be.txt', be)
    const outLe = await checkAintern({ path: 'enc/utf16le.txt' }, text, { encoding: 'utf-16le' })
    const outBe = await checkAintern({ path: 'enc/utf16be.txt' }, text, { encoding: 'utf-16be' })
    assert.ok(!outLe.output.includes('\uFEFF'))
    assert.ok(!outBe.output.includes('\uFEFF'))
    assert.equal(outLe.data.fileSize, le.length)
  })

  test('Windows-1252', async () => {
    const text =
      'Café crème, naïve — “quoted” 10€. Le garçon a commandé un café au lait.\n' +
      'À bientôt : déjà vu, façade, résumé, señor, über.\n' +
      'La troisième phrase coûte 5€ — c’est très cher.\n'
    const bytes = cp1252(text)
    assert.equal(bytes.length, [...text].length) // one byte per character
    fx.write('enc/cp1252.txt', bytes)
    await checkAintern({ path: 'enc/cp1252.txt' }, text, { encoding: 'windows-1252' })
  })

  test('Shift_JIS', async () => {
    fx.write('enc/sjis.txt', SJIS_BYTES)
    await checkAintern({ path: 'enc/sjis.txt' }, SJIS_TEXT, { encoding: 'shift_jis' })
  })

  test('EUC-JP', async () => {
    fx.write('enc/eucjp.txt', EUCJP_BYTES)
    await checkAintern({ path: 'enc/eucjp.txt' }, EUCJP_TEXT, { encoding: 'euc-jp' })
  })

  test('GBK', async () => {
    fx.write('enc/gbk.txt', GBK_BYTES)
    await checkAintern({ path: 'enc/gbk.txt', start_line: 2 }, GBK_TEXT, { encoding: 'gbk' })
  })
})
