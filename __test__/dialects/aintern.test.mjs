// AIntern's file-read dialect: its document's definition, Validate, summaries, reads with
// encoding detection, failures answered as { success: false, error }. Every expected value
// below is worked out from the document's rules and the fixture written here, never taken
// from the addon's output.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import pkg from '../../index.js'
import { after, describe, test } from '../harness.mjs'
import { checkFrozenDialect, dialectWorkspace, expectedMtimeMs, resolution } from '../helpers.mjs'

const { aintern } = pkg.dialects
const { fx, ctx, abs } = dialectWorkspace(after)

describe('aintern: the export', () => {
  test('aintern has a definition and execute, frozen all the way down', () => {
    checkFrozenDialect(aintern, 'aintern')
    assert.throws(() => {
      aintern.definition.tags.push('write')
    }, TypeError)
    assert.throws(() => {
      aintern.definition.inputSchema.required.push('start_line')
    }, TypeError)
  })
})

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

/** AIntern's answer to `args`: it must resolve (failures are answers too). */
function ainternExec(args) {
  return resolution(() => aintern.execute(args, ctx))
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

