// What a read returns: content and meta, the line window and paging, the line model
// (BOM, CRLF, lone CR, invalid UTF-8), size and binary limits, mtime, determinism.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import pkg from '../../index.js'
import { after, describe, test } from '../harness.mjs'
import {
  assertRejectsCode,
  assertThrowsCode,
  countLines,
  expectedMtimeMs,
  expectedOutput,
  expectedText,
  expectedWindow,
  makeFixture,
  splitLines,
} from '../helpers.mjs'

const { readFile, readFileSync, MAX_FILE_BYTES } = pkg

const fx = makeFixture()
after(() => fx.cleanup())

/** Both entry points, checked equal; returns the output. */
async function readBoth(input, root = fx.ws) {
  const sync = readFileSync(root, input)
  const async = await readFile(root, input)
  assert.deepEqual(async, sync, 'readFile and readFileSync disagree')
  return sync
}

/** A 1,000-line file whose lines differ in length (and some are empty). */
const THOUSAND_TEXT = Array.from({ length: 1000 }, (_, i) =>
  i % 97 === 0 ? '\n' : `${String(i + 1).padStart(4, '0')} ${'abcdefg'.slice(0, i % 8)} ü\n`,
).join('')
const THOUSAND = fx.write('big/thousand.txt', THOUSAND_TEXT)

describe('reading an existing text file', () => {
  const TEXT = 'import { x } from "./x"\n\nconst s = "héllo ✓ 😀"\nexport default s\n'
  const MAIN = fx.write('src/main.ts', TEXT)

  test('returns the whole content and meta computed from the file', async () => {
    const out = await readBoth({ path: 'src/main.ts' })
    const stat = fs.statSync(MAIN)
    assert.deepEqual(out, {
      path: 'src/main.ts',
      content: TEXT,
      truncated: false,
      next_start_line: null,
      meta: {
        byte_length: stat.size,
        line_count: 4,
        returned_line_count: 4,
        mtime_ms: expectedMtimeMs(MAIN),
      },
    })
    assert.equal(out.meta.byte_length, Buffer.byteLength(TEXT, 'utf8'))
    assert.notEqual(out.meta.byte_length, TEXT.length, 'byte_length counts bytes, not UTF-16 units')
  })

  test('the output has exactly the documented shape and types', async () => {
    const out = await readBoth({ path: 'src/main.ts', max_lines: 1 })
    // In the spec's order, which is the order JSON.stringify shows a model.
    assert.deepEqual(Object.keys(out), ['path', 'content', 'truncated', 'next_start_line', 'meta'])
    assert.deepEqual(Object.keys(out.meta), ['byte_length', 'line_count', 'returned_line_count', 'mtime_ms'])
    assert.equal(Object.getPrototypeOf(out), Object.prototype, 'a plain object')
    assert.equal(Object.getPrototypeOf(out.meta), Object.prototype, 'a plain object')
    assert.equal(typeof out.path, 'string')
    assert.equal(typeof out.content, 'string')
    assert.equal(typeof out.truncated, 'boolean')
    assert.equal(typeof out.next_start_line, 'number')
    for (const value of Object.values(out.meta)) assert.ok(Number.isSafeInteger(value), `${value} is an integer`)
  })

  test('the returned path is relative and no absolute path appears in the output', async () => {
    for (const requested of ['src/main.ts', path.join(fx.ws, 'src/main.ts')]) {
      const out = await readBoth({ path: requested })
      assert.equal(out.path, 'src/main.ts')
      assert.ok(!path.isAbsolute(out.path))
      assert.ok(!JSON.stringify(out).includes(fx.base), 'the temp dir leaks into the output')
    }
  })

  test('counts agree with an independent computation', async () => {
    const out = await readBoth({ path: 'big/thousand.txt', max_lines: 500 })
    const bytes = fs.readFileSync(THOUSAND)
    assert.equal(out.meta.byte_length, bytes.length)
    assert.equal(out.meta.line_count, bytes.toString('latin1').split('\n').length - 1)
    assert.equal(out.meta.line_count, 1000)
    assert.equal(out.meta.returned_line_count, 500)
    assert.equal(out.meta.returned_line_count, out.content.split('\n').length - 1)
  })
})

describe('the line window', () => {
  test('default max_lines is 200: a 1,000-line file gives lines 1..200, next_start_line 201', async () => {
    const out = await readBoth({ path: 'big/thousand.txt' })
    const lines = splitLines(THOUSAND_TEXT)
    assert.equal(lines.length, 1000)
    assert.equal(out.content, lines.slice(0, 200).join(''))
    assert.equal(out.truncated, true)
    assert.equal(out.next_start_line, 201)
    assert.equal(out.meta.returned_line_count, 200)
    assert.equal(out.meta.line_count, 1000)
    assert.deepEqual(out, expectedOutput(THOUSAND, 'big/thousand.txt'))
  })

  const windows = [
    // [start_line, max_lines, expected returned, expected truncated, expected next]
    [1, 1, 1, true, 2],
    [10, 5, 5, true, 15],
    [500, 500, 500, true, 1000],
    [501, 500, 500, false, null],
    [996, 5, 5, false, null], // ends exactly at the last line
    [995, 5, 5, true, 1000],
    [998, 5, 3, false, null], // runs past the end
    [1000, 200, 1, false, null], // the last line alone
    [1001, 200, 0, false, null], // just past the end
    [5000, 1, 0, false, null],
  ]
  for (const [start, max, returned, truncated, next] of windows) {
    test(`start_line ${start}, max_lines ${max} -> ${returned} lines, next ${next}`, async () => {
      const out = await readBoth({ path: 'big/thousand.txt', start_line: start, max_lines: max })
      assert.ok(out.meta.returned_line_count <= max)
      assert.equal(out.meta.returned_line_count, returned)
      assert.equal(out.truncated, truncated)
      assert.equal(out.next_start_line, next)
      assert.equal(out.meta.line_count, 1000)
      assert.equal(out.content, splitLines(THOUSAND_TEXT).slice(start - 1, start - 1 + max).join(''))
      assert.deepEqual(out, expectedOutput(THOUSAND, 'big/thousand.txt', start, max))
    })
  }

  test('start_line past the end gives an empty final window with the real line_count', async () => {
    const out = await readBoth({ path: 'big/thousand.txt', start_line: 1001 })
    assert.deepEqual(out, {
      path: 'big/thousand.txt',
      content: '',
      truncated: false,
      next_start_line: null,
      meta: {
        byte_length: fs.statSync(THOUSAND).size,
        line_count: 1000,
        returned_line_count: 0,
        mtime_ms: expectedMtimeMs(THOUSAND),
      },
    })
  })

  test('an empty file has no lines', async () => {
    fx.write('empty.txt', '')
    for (const start of [1, 2]) {
      const out = await readBoth({ path: 'empty.txt', start_line: start })
      assert.equal(out.content, '')
      assert.equal(out.truncated, false)
      assert.equal(out.next_start_line, null)
      assert.deepEqual(
        { ...out.meta, mtime_ms: 0 },
        { byte_length: 0, line_count: 0, returned_line_count: 0, mtime_ms: 0 },
      )
    }
  })
})

/** Pages through `rel` with `maxLines` until next_start_line is null. */
async function pageThrough(rel, maxLines, read) {
  const pages = []
  let start = 1
  for (let guard = 0; guard < 10_000; guard++) {
    const out = await read({ path: rel, start_line: start, max_lines: maxLines })
    pages.push(out)
    if (out.next_start_line === null) return pages
    assert.equal(out.truncated, true)
    assert.ok(out.next_start_line > start, 'next_start_line must move forward')
    start = out.next_start_line
  }
  assert.fail('paging did not terminate')
}

describe('paging through a 1,000-line file with max_lines 300', () => {
  const readers = [
    ['readFileSync', async (input) => readFileSync(fx.ws, input)],
    ['readFile', (input) => readFile(fx.ws, input)],
  ]
  for (const [name, read] of readers) {
    test(`with ${name}: pages concatenate to the file and counts add up`, async () => {
      const pages = await pageThrough('big/thousand.txt', 300, read)
      assert.deepEqual(
        pages.map((p) => [p.meta.returned_line_count, p.truncated, p.next_start_line]),
        [
          [300, true, 301],
          [300, true, 601],
          [300, true, 901],
          [100, false, null],
        ],
      )
      assert.equal(pages.map((p) => p.content).join(''), THOUSAND_TEXT)
      const total = pages.reduce((sum, p) => sum + p.meta.returned_line_count, 0)
      assert.equal(total, 1000)
      for (const page of pages) {
        assert.equal(page.meta.line_count, total)
        assert.ok(page.meta.returned_line_count <= 300)
      }
    })
  }

  test('a BOM + CRLF file without a final newline pages to its normalized text', async () => {
    const lines = Array.from({ length: 1000 }, (_, i) => `row ${i + 1}${i % 10 === 3 ? '\r' : ''}`)
    const raw = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(lines.join('\r\n'))])
    const file = fx.write('big/crlf.txt', raw)
    const text = expectedText(raw)
    const pages = await pageThrough('big/crlf.txt', 300, (input) => readFile(fx.ws, input))
    assert.equal(pages.length, 4)
    assert.equal(pages.map((p) => p.content).join(''), text)
    assert.equal(pages.reduce((sum, p) => sum + p.meta.returned_line_count, 0), 1000)
    for (const page of pages) {
      assert.equal(page.meta.line_count, 1000)
      assert.equal(page.meta.byte_length, fs.statSync(file).size)
    }
  })

  test('for every max_lines from 1 to 7 windows concatenate exactly', async () => {
    const raw = Buffer.from('one\r\ntwo\n\nfour\rstill four\nfive\r\n\r\nseven')
    fx.write('small-paging.txt', raw)
    const text = expectedText(raw)
    for (let max = 1; max <= 7; max++) {
      const pages = await pageThrough('small-paging.txt', max, async (input) => readFileSync(fx.ws, input))
      assert.equal(pages.map((p) => p.content).join(''), text, `max_lines ${max}`)
      assert.equal(pages.reduce((s, p) => s + p.meta.returned_line_count, 0), countLines(text))
    }
  })
})

describe('the line model: BOM, CRLF, lone CR, invalid UTF-8', () => {
  const BOM = [0xef, 0xbb, 0xbf]
  const b = (...parts) =>
    Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))))
  const cases = [
    ['empty', b()],
    ['a single newline', b('\n')],
    ['one unterminated line', b('a')],
    ['one terminated line', b('a\n')],
    ['no final newline', b('a\nb')],
    ['blank lines only', b('\n\n\n')],
    ['CRLF lines', b('one\r\ntwo\r\n')],
    ['a lone CRLF', b('\r\n')],
    ['lone CRs are not line breaks', b('a\rb\rc\n')],
    ['a lone CR alone', b('\r')],
    ['a trailing lone CR', b('x\r')],
    ['CR CR LF', b('a\r\r\nb')],
    ['CR LF LF', b('a\r\n\nb')],
    ['mixed endings', b('a\r\nb\nc\rd\r\n\r\ne')],
    ['a BOM only', b(BOM)],
    ['a BOM and a newline', b(BOM, '\n')],
    ['a BOM and CRLF text', b(BOM, 'x\r\ny\r\nz')],
    ['two BOMs (the second is content)', b(BOM, BOM, 'x\n')],
    ['a BOM in the middle is content', b('x\n', BOM, 'y\n')],
    ['a truncated BOM', b([0xef, 0xbb], 'x\n')],
    ['a stray 0xFF', b('a', [0xff], 'b\n')],
    ['an overlong encoding', b([0xc0, 0xaf], '\n')],
    ['a UTF-16 surrogate encoded in UTF-8', b([0xed, 0xa0, 0x80], '\n')],
    ['a code point above U+10FFFF', b([0xf4, 0x90, 0x80, 0x80], '\n')],
    ['a truncated sequence before a newline', b('x', [0xe2, 0x82], '\ny\n')],
    ['a truncated sequence at the end', b('abc', [0xe2, 0x82])],
    ['a truncated sequence before CRLF', b([0xf0, 0x9f, 0x98], '\r\n')],
    ['a lone continuation byte', b([0x80, 0x80], 'x')],
    ['0xFE and 0xFF', b([0xfe, 0xff, 0x0a])],
    ['valid multibyte text', b('héllo\nwörld ✓\n😀 𝄞\n')],
    ['BOM then invalid bytes and CR', b(BOM, [0xff], '\r', [0xc3], '\r\n\r')],
    ['latin-1 text', Buffer.from('café\r\nnaïve\n', 'latin1')],
  ]

  cases.forEach(([name, raw], i) => {
    const rel = `model/case-${i}.txt`
    const file = fx.write(rel, raw)
    const text = expectedText(raw)
    const lines = splitLines(text)

    test(`${name}: whole file`, async () => {
      assert.equal(lines.length, countLines(text), 'oracle self-check')
      assert.equal(lines.join(''), text, 'oracle self-check')
      const out = await readBoth({ path: rel, max_lines: 500 })
      assert.equal(out.content, text)
      assert.equal(out.meta.line_count, countLines(text))
      assert.equal(out.meta.returned_line_count, lines.length)
      assert.equal(out.meta.byte_length, raw.length)
      assert.equal(out.truncated, false)
      assert.equal(out.next_start_line, null)
      assert.deepEqual(out, expectedOutput(file, rel, 1, 500))
    })

    test(`${name}: every window`, () => {
      for (let max = 1; max <= 3; max++) {
        for (let start = 1; start <= lines.length + 2; start++) {
          const out = readFileSync(fx.ws, { path: rel, start_line: start, max_lines: max })
          const want = expectedWindow(text, start, max)
          assert.deepEqual(
            {
              content: out.content,
              truncated: out.truncated,
              next_start_line: out.next_start_line,
              line_count: out.meta.line_count,
              returned_line_count: out.meta.returned_line_count,
            },
            want,
            `start_line ${start}, max_lines ${max}`,
          )
        }
      }
    })
  })

  test('spot checks of the oracle against the contract text', () => {
    // Hand-written expectations, so a wrong oracle cannot hide a wrong addon.
    assert.equal(expectedText(Buffer.from([0xef, 0xbb, 0xbf, 0x61])), 'a')
    assert.equal(expectedText(Buffer.from('a\r\nb\rc')), 'a\nb\rc')
    assert.equal(expectedText(Buffer.from([0x61, 0xff, 0x62])), 'a\uFFFDb')
    assert.equal(countLines(''), 0)
    assert.equal(countLines('\n'), 1)
    assert.equal(countLines('a'), 1)
    assert.equal(countLines('a\nb'), 2)
    assert.equal(countLines('a\rb'), 1)
  })

  test('hand-written expectations for BOM, CRLF, lone CR and invalid UTF-8', async () => {
    const raw = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('a\r\nb\rc\n'), Buffer.from([0xff, 0x0a])])
    fx.write('model/hand.txt', raw)
    const out = await readBoth({ path: 'model/hand.txt' })
    assert.equal(out.content, 'a\nb\rc\n\uFFFD\n')
    assert.equal(out.meta.line_count, 3)
    assert.equal(out.meta.byte_length, 3 + 7 + 2)
    const second = await readBoth({ path: 'model/hand.txt', start_line: 2, max_lines: 1 })
    assert.equal(second.content, 'b\rc\n')
    assert.equal(second.next_start_line, 3)
  })
})

describe('size limit', () => {
  test('MAX_FILE_BYTES is 1 MiB', () => {
    assert.equal(MAX_FILE_BYTES, 1024 * 1024)
  })

  test('a file of exactly MAX_FILE_BYTES bytes is read', async () => {
    const line = `${'x'.repeat(1023)}\n`
    const raw = Buffer.from(line.repeat(1024))
    assert.equal(raw.length, MAX_FILE_BYTES)
    const file = fx.write('size/exact.txt', raw)
    const out = await readBoth({ path: 'size/exact.txt', start_line: 1000, max_lines: 100 })
    assert.equal(out.meta.byte_length, MAX_FILE_BYTES)
    assert.equal(out.meta.line_count, 1024)
    assert.equal(out.meta.returned_line_count, 25)
    assert.equal(out.content, line.repeat(25))
    assert.deepEqual(out, expectedOutput(file, 'size/exact.txt', 1000, 100))
  })

  test('a file of MAX_FILE_BYTES + 1 bytes is SIZE_LIMIT_EXCEEDED', async () => {
    fx.write('size/over.txt', Buffer.alloc(MAX_FILE_BYTES + 1, 'a'))
    assertThrowsCode(() => readFileSync(fx.ws, { path: 'size/over.txt' }), 'SIZE_LIMIT_EXCEEDED', 'size/over.txt')
    await assertRejectsCode(() => readFile(fx.ws, { path: 'size/over.txt' }), 'SIZE_LIMIT_EXCEEDED', 'size/over.txt')
  })

  test('a huge sparse file is refused quickly', async () => {
    const file = path.join(fx.ws, 'size/sparse.txt')
    fs.writeFileSync(file, '')
    fs.truncateSync(file, 8 * 1024 ** 3)
    const started = Date.now()
    assertThrowsCode(() => readFileSync(fx.ws, { path: 'size/sparse.txt' }), 'SIZE_LIMIT_EXCEEDED', 'size/sparse.txt')
    await assertRejectsCode(() => readFile(fx.ws, { path: 'size/sparse.txt' }), 'SIZE_LIMIT_EXCEEDED', 'size/sparse.txt')
    assert.ok(Date.now() - started < 2000, 'should not read the file')
  })

  test('size is checked before the binary test', () => {
    const raw = Buffer.alloc(MAX_FILE_BYTES + 1, 'a')
    raw[0] = 0
    fx.write('size/over-binary.bin', raw)
    assertThrowsCode(
      () => readFileSync(fx.ws, { path: 'size/over-binary.bin' }),
      'SIZE_LIMIT_EXCEEDED',
      'size/over-binary.bin',
    )
  })
})

describe('binary files', () => {
  const SIZE = 10_000
  const binaryAt = [0, 1, 100, 4096, 8190, 8191]
  for (const at of binaryAt) {
    test(`a NUL at byte ${at} is BINARY_NOT_SUPPORTED`, async () => {
      const raw = Buffer.alloc(SIZE, 'a')
      raw[at] = 0
      const rel = `bin/nul-${at}.txt`
      fx.write(rel, raw)
      assertThrowsCode(() => readFileSync(fx.ws, { path: rel }), 'BINARY_NOT_SUPPORTED', rel)
      await assertRejectsCode(() => readFile(fx.ws, { path: rel }), 'BINARY_NOT_SUPPORTED', rel)
    })
  }

  for (const at of [8192, 8193, SIZE - 1]) {
    test(`a NUL at byte ${at} is not binary`, async () => {
      const raw = Buffer.alloc(SIZE, 'a')
      for (let i = 99; i < SIZE; i += 100) raw[i] = 0x0a
      raw[at] = 0
      const rel = `bin/late-${at}.txt`
      const file = fx.write(rel, raw)
      const out = await readBoth({ path: rel, max_lines: 500 })
      assert.equal(out.content, expectedText(raw))
      assert.ok(out.content.includes('\0'))
      assert.equal(out.meta.byte_length, SIZE)
      assert.deepEqual(out, expectedOutput(file, rel, 1, 500))
    })
  }

  test('a tiny file with a NUL is binary, even when the window is past the end', () => {
    fx.write('bin/tiny.bin', Buffer.from([0x68, 0x69, 0x00]))
    assertThrowsCode(() => readFileSync(fx.ws, { path: 'bin/tiny.bin' }), 'BINARY_NOT_SUPPORTED', 'bin/tiny.bin')
    assertThrowsCode(
      () => readFileSync(fx.ws, { path: 'bin/tiny.bin', start_line: 99 }),
      'BINARY_NOT_SUPPORTED',
      'bin/tiny.bin',
    )
  })

  test('a real binary (PNG header) is binary', () => {
    fx.write('bin/image.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]))
    assertThrowsCode(() => readFileSync(fx.ws, { path: 'bin/image.png' }), 'BINARY_NOT_SUPPORTED', 'bin/image.png')
  })
})

describe('mtime_ms', () => {
  test('is Math.floor of the mtime in milliseconds (fractional seconds)', async () => {
    const file = fx.write('time/frac.txt', 'x\n')
    fs.utimesSync(file, 1_700_000_000.5, 1_700_000_000.987654)
    const out = await readBoth({ path: 'time/frac.txt' })
    assert.equal(out.meta.mtime_ms, expectedMtimeMs(file))
    assert.ok(Math.abs(out.meta.mtime_ms - 1_700_000_000_987) <= 1)
  })

  test('rounds down, never to nearest (.999999999 s)', async () => {
    const file = fx.write('time/nines.txt', 'x\n')
    execFileSync('touch', ['-m', '-d', '@1700000000.999999999', file])
    const ns = fs.statSync(file, { bigint: true }).mtimeNs
    assert.equal(ns, 1_700_000_000_999_999_999n, 'the file system kept nanoseconds')
    const out = await readBoth({ path: 'time/nines.txt' })
    assert.equal(out.meta.mtime_ms, 1_700_000_000_999)
  })

  test('rounds down before 1970 too', async () => {
    const file = fx.write('time/old.txt', 'x\n')
    execFileSync('touch', ['-m', '-d', '@-1.2345', file])
    const out = await readBoth({ path: 'time/old.txt' })
    assert.equal(out.meta.mtime_ms, expectedMtimeMs(file))
    assert.equal(out.meta.mtime_ms, Math.floor(-1234.5))
  })

  test('follows a modification', async () => {
    const file = fx.write('time/changing.txt', 'one\n')
    fs.utimesSync(file, 1_600_000_000, 1_600_000_000)
    const before = await readBoth({ path: 'time/changing.txt' })
    assert.equal(before.meta.mtime_ms, 1_600_000_000_000)
    fs.writeFileSync(file, 'one\ntwo\n')
    fs.utimesSync(file, 1_650_000_000, 1_650_000_000.25)
    const later = await readBoth({ path: 'time/changing.txt' })
    assert.equal(later.meta.mtime_ms, expectedMtimeMs(file))
    assert.equal(later.content, 'one\ntwo\n')
    assert.equal(later.meta.line_count, 2)
  })
})

describe('determinism', () => {
  test('the same input twice gives deep-equal output', async () => {
    const inputs = [
      { path: 'big/thousand.txt' },
      { path: 'big/thousand.txt', start_line: 333, max_lines: 77 },
      { path: 'src/main.ts', start_line: 2 },
      { path: 'model/case-13.txt' },
    ]
    for (const input of inputs) {
      const first = readFileSync(fx.ws, input)
      assert.deepEqual(readFileSync(fx.ws, input), first)
      assert.deepEqual(await readFile(fx.ws, input), first)
      assert.deepEqual(await readFile(fx.ws, input), first)
    }
  })

  test('outputs are fresh objects, so a caller mutating one cannot affect the next', () => {
    const first = readFileSync(fx.ws, { path: 'src/main.ts' })
    const copy = structuredClone(first)
    first.meta.line_count = -1
    first.content = 'changed'
    assert.deepEqual(readFileSync(fx.ws, { path: 'src/main.ts' }), copy)
  })
})
