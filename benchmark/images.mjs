// Images (issue 22 §2): `toolkit.view` making an image fit the default limits, against sharp
// (libvips, the library Node users resize with) doing the same resize in the same process:
// the same file read from disk, resized to the same size, encoded to the same format, and
// turned into base64 (what every provider takes). Two inputs, made here with sharp in a
// temporary folder: a 12-megapixel photo (4000x3000 JPEG) and a 4000x3000 PNG screenshot.
//
//   node benchmark/images.mjs [--json] [--rounds=N]

import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import sharp from 'sharp'

const here = path.dirname(fileURLToPath(import.meta.url))
const { createAgentToolkit } = createRequire(import.meta.url)(path.join(here, '..', 'index.js'))
const argv = process.argv.slice(2)
const JSON_OUTPUT = argv.includes('--json')
const ROUNDS = Number(argv.find((a) => a.startsWith('--rounds='))?.slice(9) ?? 15)
const progress = (line) => process.stderr.write(`${line}\n`)

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'read-file-images-'))
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }))

/**
 * A photo-like 4000x3000 picture: smooth gradients under fine noise (a photo's sensor grain),
 * which is what makes photos large and slow to code, unlike flat test patterns.
 */
async function photo() {
  const [width, height] = [4000, 3000]
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">
      <stop offset="0" stop-color="#3a6ea5"/><stop offset="0.5" stop-color="#c9a66b"/><stop offset="1" stop-color="#2f4f2f"/>
    </linearGradient></defs>
    <rect width="100%" height="100%" fill="url(#g)"/>
    <circle cx="1400" cy="1200" r="700" fill="#e8d9b0" opacity="0.7"/>
  </svg>`
  const noise = await sharp({ create: { width, height, channels: 3, noise: { type: 'gaussian', mean: 128, sigma: 18 } } })
    .png()
    .toBuffer()
  return sharp(Buffer.from(svg))
    .composite([{ input: noise, blend: 'overlay' }])
    .jpeg({ quality: 90 })
    .toBuffer()
}

/** A 4000x3000 screenshot-like picture: flat panels, lines of "text", a few colours. */
async function screenshot() {
  const rows = Array.from({ length: 120 }, (_, i) => {
    const width = 600 + ((i * 977) % 2400)
    return `<rect x="${120 + (i % 3) * 40}" y="${160 + i * 22}" width="${width}" height="10" fill="#3b3b3b"/>`
  }).join('')
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="4000" height="3000">
    <rect width="100%" height="100%" fill="#ffffff"/>
    <rect width="100%" height="90" fill="#24292f"/>
    <rect x="3300" y="90" width="700" height="2910" fill="#f6f8fa"/>
    ${rows}
    <rect x="3400" y="200" width="500" height="300" rx="12" fill="#2da44e"/>
  </svg>`
  return sharp(Buffer.from(svg)).png().toBuffer()
}

/** Median of `times`. */
const median = (times) => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)]

/** Median ms of `rounds` runs of `fn` each, the two functions alternating so they share the noise. */
async function race(rounds, ours, theirs) {
  const [a, b] = [[], []]
  for (let i = 0; i < rounds; i++) {
    for (const [fn, times] of i % 2 === 0 ? [[ours, a], [theirs, b]] : [[theirs, b], [ours, a]]) {
      const started = performance.now()
      await fn()
      times.push(performance.now() - started)
    }
  }
  return { ours: median(a), sharp: median(b) }
}

progress('making the inputs…')
fs.writeFileSync(path.join(tmp, 'photo.jpg'), await photo())
fs.writeFileSync(path.join(tmp, 'screenshot.png'), await screenshot())
const toolkit = createAgentToolkit({ workspaceRoot: tmp })

const rows = []
for (const [name, file] of [
  ['12 MP JPEG photo', 'photo.jpg'],
  ['4000x3000 PNG screenshot', 'screenshot.png'],
]) {
  const [part] = (await toolkit.view({ path: file })).parts
  const { width, height, mimeType } = part
  const bytes = fs.statSync(path.join(tmp, file)).size
  const theirs = async () => {
    const resized = sharp(path.join(tmp, file)).resize(width, height, { fit: 'fill', kernel: 'lanczos3' })
    const encoded = mimeType === 'image/jpeg' ? resized.jpeg({ quality: 80 }) : resized.png()
    return (await encoded.toBuffer()).toString('base64')
  }
  const sharpBytes = (await theirs()).length
  progress(`${name}: ${ROUNDS} rounds…`)
  const times = await race(ROUNDS, () => toolkit.view({ path: file }), theirs)
  rows.push({ name, bytes, width, height, mimeType, ourBase64: part.data.length, sharpBase64: sharpBytes, ...times })
}
toolkit.close()

if (JSON_OUTPUT) {
  console.log(JSON.stringify({ runtime: `Node ${process.versions.node}`, sharp: sharp.versions.sharp, vips: sharp.versions.vips, rounds: ROUNDS, rows }))
} else {
  console.log(`Images to a part within the default limits, in one process (Node ${process.versions.node}, sharp ${sharp.versions.sharp}, ${ROUNDS} rounds): ms per image (median)\n`)
  console.log(`${'input'.padEnd(26)} ${'size'.padStart(9)} ${'part'.padStart(16)} ${'ours'.padStart(8)} ${'sharp'.padStart(8)} ${'ours/sharp'.padStart(11)}  base64 ours/sharp`)
  for (const row of rows) {
    const part = `${row.width}x${row.height} ${row.mimeType.slice(6)}`
    const verdict = row.ours / row.sharp <= 2 ? 'within 2x: PASS' : 'within 2x: MISS'
    console.log(
      `${row.name.padEnd(26)} ${String(row.bytes).padStart(9)} ${part.padStart(16)} ${row.ours.toFixed(1).padStart(8)} ${row.sharp.toFixed(1).padStart(8)} ${(row.ours / row.sharp).toFixed(2).padStart(10)}x  ${row.ourBase64}/${row.sharpBase64}  ${verdict}`,
    )
  }
}
