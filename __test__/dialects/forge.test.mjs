// Forge's Read dialect: ranges, head and tail, binary files as base64, byte budgets;
// failures reject with the contract's codes. Every expected value below is worked out from
// Forge's rules and the fixture written here, never taken from the addon's output.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import pkg from '../../index.js'
import { after, describe, test } from '../harness.mjs'
import { checkFrozenDialect, dialectWorkspace, rejection } from '../helpers.mjs'

const { forge } = pkg.dialects
const { fx, ctx, abs } = dialectWorkspace(after)

describe('forge: the export', () => {
  test('forge has a definition and execute, frozen all the way down', () => {
    checkFrozenDialect(forge, 'forge')
    assert.throws(() => {
      forge.aliases.push('cat')
    }, TypeError)
  })
})

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

describe('forge: file sizes past 4 GiB', () => {
  test('byte_length of an 8 GiB sparse file is a number, not a BigInt', async () => {
    const sparse = fx.write('forge/sparse.bin', '')
    fs.truncateSync(sparse, 8 * 2 ** 30)
    const out = await forge.execute(
      { path: 'forge/sparse.bin', head: 1 },
      { ...ctx, config: { max_scan_bytes: 4096, max_file_read_bytes: 16 } },
    )
    assert.equal(out.binary, true)
    assert.equal(typeof out.byte_length, 'number')
    assert.equal(out.byte_length, 8 * 2 ** 30)
    assert.equal(out.offset, 0)
    assert.ok(Buffer.from(out.base64, 'base64').equals(Buffer.alloc(16)))
  })
})
