// Decodes across workers (issue 35 §2): four worker threads view a large image at once while
// the main thread reads a small text file on the pool (`readFiles`). Each env decodes one
// image at a time; the process decodes one at a time too (`src/schedule/decode_permit.rs`),
// so the text read finds a pool thread free and the decodes' memory does not add up. Prints,
// for each image, how long the text read waited, when each view ended, and the process's
// peak RSS growth while they ran (sampled every 5 ms). benchmark/README.md has its figures
// beside those of the build before the permit.
//
//   node benchmark/worker-decodes.mjs [--json]

import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import sharp from 'sharp'

const here = path.dirname(fileURLToPath(import.meta.url))
const INDEX = path.join(here, '..', 'index.js')
const { createAgentToolkit } = createRequire(import.meta.url)(INDEX)
const JSON_OUTPUT = process.argv.includes('--json')
const WORKERS = 4

const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'read-file-worker-decodes-'))
process.on('exit', () => fs.rmSync(ws, { recursive: true, force: true }))
fs.writeFileSync(path.join(ws, 'notes.txt'), 'one\ntwo\n')
/** A 6000x6000 picture of a few shapes: small on disk, 36 megapixels to decode. */
const SHAPES = `<svg xmlns="http://www.w3.org/2000/svg" width="6000" height="6000">
  <rect width="100%" height="100%" fill="#2850a0"/><rect x="10%" y="10%" width="40%" height="30%" fill="#f0c020"/>
  <circle cx="70%" cy="60%" r="1200" fill="#20a060"/></svg>`
const images = {
  'a 49-megapixel 16-bit PNG': ['deep.png', sharp({ create: { width: 7000, height: 7000, channels: 3, background: '#2850a0' } }).toColourspace('rgb16').png()],
  'a 36-megapixel PNG': ['wide.png', sharp(Buffer.from(SHAPES)).png()],
}
for (const [file, image] of Object.values(images)) fs.writeFileSync(path.join(ws, file), await image.toBuffer())

const script = `const { parentPort, workerData } = require('node:worker_threads')
const toolkit = require(${JSON.stringify(INDEX)}).createAgentToolkit({ workspaceRoot: workerData.ws })
parentPort.on('message', (file) => toolkit.view({ path: file }).then(
  () => parentPort.postMessage(Date.now()),
  (error) => parentPort.postMessage(String(error)),
))
parentPort.postMessage('ready')`

const message = (worker) => new Promise((resolve) => worker.once('message', resolve))
const workers = Array.from({ length: WORKERS }, () => new Worker(script, { eval: true, workerData: { ws } }))
await Promise.all(workers.map(message))
const toolkit = createAgentToolkit({ workspaceRoot: ws })

const rows = []
for (const [what, [file]] of Object.entries(images)) {
  const before = process.memoryUsage().rss
  const peak = { rss: before }
  const sampler = setInterval(() => (peak.rss = Math.max(peak.rss, process.memoryUsage().rss)), 5)
  const views = workers.map(message)
  const go = Date.now()
  for (const worker of workers) worker.postMessage(file)
  // Let the workers' text reads pass and their decodes start.
  await new Promise((resolve) => setTimeout(resolve, 100))
  const sent = performance.now()
  await toolkit.readFiles([{ path: 'notes.txt' }])
  const waitedMs = performance.now() - sent
  const ends = await Promise.all(views)
  clearInterval(sampler)
  const failed = ends.find((end) => typeof end !== 'number')
  if (failed) throw new Error(`${file}: ${failed}`)
  rows.push({
    what,
    text_read_waited_ms: Number(waitedMs.toFixed(2)),
    views_ended_ms: ends.map((end) => end - go).sort((a, b) => a - b),
    peak_rss_growth_mib: Math.round((peak.rss - before) / 2 ** 20),
  })
}
toolkit.close()
await Promise.all(workers.map((worker) => worker.terminate()))

if (JSON_OUTPUT) {
  console.log(JSON.stringify(rows, null, 2))
} else {
  console.log(`${WORKERS} workers view an image at once; the main thread reads a text file 100 ms later`)
  for (const row of rows) {
    console.log(`  ${row.what}: the text read waited ${row.text_read_waited_ms} ms; views ended at ${row.views_ended_ms.join(', ')} ms; peak RSS growth ${row.peak_rss_growth_mib} MiB`)
  }
}
