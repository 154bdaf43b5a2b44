// toolkit.view of PDFs and Jupyter notebooks (issue 22 §3, §4): the exact text a model is given
// (through runToolCall), page and cell windows with the call that reads on, images of a
// notebook's outputs as image parts, and the clear answers for an encrypted, a corrupt and a
// scanned PDF and a malformed notebook. PDFs are written byte by byte (media.mjs); the
// encrypted ones are the engine's fixtures, made with qpdf.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { fileURLToPath } from 'node:url'
import pkg from '../../index.js'
import { after, before, describe, slowTest, test } from '../harness.mjs'
import { INDEX_PATH, makeFixture, runChild } from '../helpers.mjs'
import { image, manyOperandsPdf, pdf, repeatingObjectStreamPdf } from '../media.mjs'

const { createAgentToolkit, runToolCall } = pkg

const TESTDATA = fileURLToPath(new URL('../../engine/src/media/testdata/', import.meta.url))

const fx = makeFixture()
after(() => fx.cleanup())
const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
after(() => toolkit.close())

const pageText = (n) => `Page ${n} says hello (world).`
const doc = fx.write('docs/spec.pdf', pdf(Array.from({ length: 25 }, (_, i) => (i === 2 ? null : pageText(i + 1)))))
fx.write('docs/locked.pdf', fs.readFileSync(`${TESTDATA}encrypted-user-password.pdf`))
fx.write('docs/broken.pdf', '%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\ngarbage')
fx.write('docs/blob.bin', Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x01]))
const size = (rel) => fs.statSync(`${fx.ws}/${rel}`).size

/** `pages` `first`-`last` of docs/spec.pdf as the model reads them. */
function pagesText(first, last) {
  let text = ''
  for (let n = first; n <= last; n++) text += n === 3 ? '[page 3: no text layer (a scanned page?)]\n' : `[page ${n}]\n${pageText(n)}\n`
  return text
}

describe('toolkit.view: PDFs', () => {
  test('the first 20 pages, the scanned one said to be, and the call that reads on', async () => {
    const result = await runToolCall(toolkit, { path: 'docs/spec.pdf' })
    assert.equal(result.content, `docs/spec.pdf PDF pages 1-20 of 25 (${fs.statSync(doc).size} bytes)\n${pagesText(1, 20)}[next: pages="21-25"]\n`)
    assert.deepEqual(result.parts, [{ type: 'text', text: result.content }])
    assert.deepEqual(result.output.meta.shown, { first: 1, last: 20, total: 25 })
  })

  test('pages "21-" reads the rest; "7" one page; the answer ends without a next', async () => {
    const rest = await runToolCall(toolkit, { path: 'docs/spec.pdf', pages: '21-' })
    assert.equal(rest.content, `docs/spec.pdf PDF pages 21-25 of 25 (${size('docs/spec.pdf')} bytes)\n${pagesText(21, 25)}`)
    const one = await runToolCall(toolkit, { path: 'docs/spec.pdf', pages: '7' })
    assert.equal(one.content, `docs/spec.pdf PDF page 7 of 25 (${size('docs/spec.pdf')} bytes)\n${pagesText(7, 7)}[next: pages="8-25"]\n`)
  })

  test('a page past the end is INVALID_ARGUMENT naming the page count', async () => {
    const result = await runToolCall(toolkit, { path: 'docs/spec.pdf', pages: '30-31' })
    assert.equal(result.code, 'INVALID_ARGUMENT')
    assert.match(result.content, /^INVALID_ARGUMENT: docs\/spec\.pdf: .*30.*25/)
  })

  test('an encrypted PDF is PDF_ENCRYPTED, with what to do instead', async () => {
    const result = await runToolCall(toolkit, { path: 'docs/locked.pdf' })
    assert.equal(result.code, 'PDF_ENCRYPTED')
    assert.equal(
      result.content,
      'PDF_ENCRYPTED: docs/locked.pdf: the PDF is encrypted\nread_file cannot decrypt it: ask the user for a copy without a password.',
    )
  })

  test('a corrupt PDF is INVALID_MEDIA', async () => {
    const result = await runToolCall(toolkit, { path: 'docs/broken.pdf' })
    assert.equal(result.code, 'INVALID_MEDIA')
    assert.match(result.content, /^INVALID_MEDIA: docs\/broken\.pdf: the PDF is corrupt/)
  })

  test('the content budget bounds the text: pages that do not fit are left for the next call', async () => {
    const kit = createAgentToolkit({ workspaceRoot: fx.ws, maxContentBytes: 128 })
    after(() => kit.close())
    const result = await runToolCall(kit, { path: 'docs/spec.pdf' })
    // Each page's block is 39 or 40 bytes: three fit in 128.
    assert.equal(result.content, `docs/spec.pdf PDF pages 1-3 of 25 (${size('docs/spec.pdf')} bytes)\n${pagesText(1, 3)}[next: pages="4-23"]\n`)
  })

  // Issue 35 §1: two small PDFs that lopdf parsed into hundreds of megabytes. Measured here
  // in the child (Node 20, release build), before: the object stream of 8 entries (2.7 KB)
  // grew RSS by 920 MiB, the operation of 8,000,000 operands (16 KB) by 963 MiB; after: 4 and
  // 34 MiB, answered in under 0.1 s.
  slowTest('PDFs made to exhaust memory are answered within 256 MiB of growth', 120_000, async () => {
    fx.write('docs/entries.pdf', repeatingObjectStreamPdf(8, 1_000_000))
    fx.write('docs/operands.pdf', manyOperandsPdf(8_000_000))
    const results = await runChild(
      fx.base,
      'pdf-memory.cjs',
      `const { createAgentToolkit, runToolCall } = require(${JSON.stringify(INDEX_PATH)})
const toolkit = createAgentToolkit({ workspaceRoot: ${JSON.stringify(fx.ws)} })
;(async () => {
  const results = []
  for (const path of ['docs/entries.pdf', 'docs/operands.pdf']) {
    const before = process.resourceUsage().maxRSS
    const answer = await runToolCall(toolkit, { path })
    results.push({ content: answer.content, grownMiB: (process.resourceUsage().maxRSS - before) / 1024 })
  }
  console.log(JSON.stringify(results))
  toolkit.close()
})()`,
      { timeout: 120_000 },
    )
    assert.equal(
      results[0].content,
      'SIZE_LIMIT_EXCEEDED: docs/entries.pdf: the PDF is too complex to read: its objects would take more than the 128 MiB allowed',
    )
    assert.equal(results[1].content, `docs/operands.pdf PDF page 1 of 1 (${size('docs/operands.pdf')} bytes)\n[page 1]\nbefore\n`)
    for (const { grownMiB } of results) assert.ok(grownMiB < 256, `peak RSS grew ${grownMiB.toFixed(1)} MiB`)
  })

  test('another binary file is still BINARY_NOT_SUPPORTED, saying what is read', async () => {
    const result = await runToolCall(toolkit, { path: 'docs/blob.bin' })
    assert.equal(result.code, 'BINARY_NOT_SUPPORTED')
    assert.equal(result.content.split('\n')[1], 'read_file reads text files, images, notebooks and PDFs only.')
  })
})

/** A notebook (nbformat 4) of `cells`. */
function notebook(cells) {
  return JSON.stringify({ nbformat: 4, nbformat_minor: 5, metadata: { kernelspec: { language: 'python' } }, cells }, null, 1)
}

describe('toolkit.view: notebooks', () => {
  let plot, plotData
  before(async () => {
    plot = await image(64, 48, 'png')
    plotData = plot.toString('base64')
    const cells = [
      { cell_type: 'markdown', metadata: {}, source: ['# Title\n', 'Some text'] },
      {
        cell_type: 'code',
        execution_count: 3,
        metadata: {},
        source: 'print("hi")\n1/0',
        outputs: [
          { output_type: 'stream', name: 'stdout', text: ['hi\n'] },
          {
            output_type: 'error',
            ename: 'ZeroDivisionError',
            evalue: 'division by zero',
            traceback: ['\u001b[0;31mZeroDivisionError\u001b[0m Traceback', 'line 2'],
          },
        ],
      },
      {
        cell_type: 'code',
        execution_count: null,
        metadata: {},
        source: 'plot()',
        outputs: [{ output_type: 'display_data', metadata: {}, data: { 'image/png': `${plotData.slice(0, 60)}\n${plotData.slice(60)}`, 'text/plain': ['<Figure>'] } }],
      },
    ]
    fx.write('nb/analysis.ipynb', notebook(cells))
    fx.write('nb/plots.ipynb', notebook(Array.from({ length: 6 }, (_, i) => ({ ...cells[2], source: `plot(${i + 1})` }))))
    fx.write('nb/broken.ipynb', '{"cells": [')
  })

  const CELLS_1_2 =
    '[cell 1 markdown]\n# Title\nSome text\n' +
    '[cell 2 code, run 3]\nprint("hi")\n1/0\n[out]\nhi\n[error]\nZeroDivisionError: division by zero\nZeroDivisionError Traceback\nline 2\n'

  test('cells in order: header, source, text outputs (ANSI escapes removed), the plot an image part', async () => {
    const result = await runToolCall(toolkit, { path: 'nb/analysis.ipynb' })
    const header = `nb/analysis.ipynb notebook cells 1-3 of 3 (${size('nb/analysis.ipynb')} bytes)\n`
    assert.deepEqual(result.parts, [
      { type: 'text', text: `${header}${CELLS_1_2}[cell 3 code, not run]\nplot()\n` },
      { type: 'image', mimeType: 'image/png', data: plotData },
    ])
    assert.equal(result.content, `${header}${CELLS_1_2}[cell 3 code, not run]\nplot()\n[image 64x48 image/png]\n`)
  })

  test('pages picks cells; the answer names the call that reads on', async () => {
    const result = await runToolCall(toolkit, { path: 'nb/analysis.ipynb', pages: '1-2' })
    const header = `nb/analysis.ipynb notebook cells 1-2 of 3 (${size('nb/analysis.ipynb')} bytes)\n`
    assert.equal(result.content, `${header}${CELLS_1_2}[next: pages="3-"]\n`)
  })

  test('at most 4 plots an answer; the others are named, and the answer says how to see them', async () => {
    const result = await runToolCall(toolkit, { path: 'nb/plots.ipynb' })
    assert.equal(result.parts.filter((part) => part.type === 'image').length, 4)
    assert.equal(result.output.meta.images_left_out, 2)
    assert.ok(result.content.endsWith('[note: 2 image outputs not shown; read fewer cells at a time to see them]\n'), result.content)
    const kit = createAgentToolkit({ workspaceRoot: fx.ws, media: { maxImages: 1 } })
    after(() => kit.close())
    assert.equal((await kit.view({ path: 'nb/plots.ipynb' })).meta.images_left_out, 5)
  })

  test('a malformed notebook is INVALID_MEDIA', async () => {
    const result = await runToolCall(toolkit, { path: 'nb/broken.ipynb' })
    assert.equal(result.code, 'INVALID_MEDIA')
    assert.match(result.content, /^INVALID_MEDIA: nb\/broken\.ipynb: the notebook is malformed/)
  })

  test('JSON that only looks like a notebook, under another name, is read as text', async () => {
    fx.write('data/cells.json', '{"cells": "not a notebook"}\n')
    const output = await toolkit.view({ path: 'data/cells.json' })
    assert.equal(output.content, '{"cells": "not a notebook"}\n')
  })
})

describe('toolkit.view: text that only looks like a PDF is text', () => {
  test('a source file that mentions the header, and a note that starts with one, read as text', async () => {
    const source = '//! True when `bytes` begin like a PDF (`%PDF-` within the first 1024 bytes)\nfn main() {}\n'
    fx.write('src/pdf.rs', source)
    assert.equal((await toolkit.view({ path: 'src/pdf.rs' })).content, source)
    fx.write('notes/header.txt', '%PDF-1.7\nis the header a PDF starts with\n')
    assert.equal((await toolkit.view({ path: 'notes/header.txt' })).content, '%PDF-1.7\nis the header a PDF starts with\n')
  })
})
