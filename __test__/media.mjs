// Images, notebooks and PDFs for the tests of `toolkit.view` and of the adapters' parts. Images
// are made with sharp (a devDependency: libvips, independent of the Rust decoders under test),
// and checked with it too; the hostile ones are written byte by byte.
import zlib from 'node:zlib'
import sharp from 'sharp'

/** A `width` x `height` image of `format` ('png', 'jpeg', 'gif', 'webp') with edges and flat areas, like a screenshot. */
export async function image(width, height, format = 'png', { alpha = false } = {}) {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <rect width="100%" height="100%" fill="${alpha ? 'rgba(40,80,160,0.5)' : '#2850a0'}"/>
    <rect x="10%" y="10%" width="40%" height="30%" fill="#f0c020"/>
    <circle cx="70%" cy="60%" r="${Math.max(2, Math.floor(Math.min(width, height) / 5))}" fill="#20a060"/>
  </svg>`
  return sharp(Buffer.from(svg))[format]().toBuffer()
}

/** A `width` x `height` PNG of 16 bits a channel, RGB, of one colour (small on disk). */
export function deepPng(width, height) {
  return sharp({ create: { width, height, channels: 3, background: '#2850a0' } }).toColourspace('rgb16').png().toBuffer()
}

/** What sharp reads of `bytes` (base64 or a buffer): format, width, height. */
export async function decoded(bytes) {
  const buffer = typeof bytes === 'string' ? Buffer.from(bytes, 'base64') : bytes
  const { format, width, height } = await sharp(buffer).metadata()
  return { format, width, height }
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})

function crc32(bytes) {
  let c = 0xffffffff
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}

/** A PNG chunk: length, type, data, CRC. */
function chunk(type, data) {
  const head = Buffer.alloc(4)
  head.writeUInt32BE(data.length)
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(body))
  return Buffer.concat([head, body, crc])
}

/**
 * A valid-looking PNG of a few hundred bytes whose header declares `width` x `height` RGB
 * pixels (a decompression bomb's header: decoding it would need width * height * 3 bytes).
 */
export function declaredPng(width, height) {
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header.set([8, 2, 0, 0, 0], 8)
  const row = Buffer.alloc(1 + Math.min(width, 1024) * 3)
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(row)),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

/**
 * A PDF of one page per entry of `pages`: a string is that text on the page (one line, in
 * Helvetica), `null` a page with no text layer (a gray square drawn, as a scan's page shows
 * an image and no text).
 */
export function pdf(pages) {
  const objects = ['<< /Type /Catalog /Pages 2 0 R >>', '']
  const font = 3
  objects.push('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>')
  const kids = []
  for (const text of pages) {
    const stream =
      text === null ? '0.5 g 100 100 200 200 re f' : `BT /F1 12 Tf 72 720 Td (${text.replace(/[()\\]/g, (c) => `\\${c}`)}) Tj ET`
    objects.push(`<< /Length ${Buffer.byteLength(stream)} >>\nstream\n${stream}\nendstream`)
    const content = objects.length
    objects.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${content} 0 R >>`)
    kids.push(`${objects.length} 0 R`)
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${kids.length} >>`
  return pdfFile(objects)
}

/** A PDF file of these objects (strings or buffers, numbered from 1; the first the catalog). */
function pdfFile(objects) {
  const parts = [Buffer.from('%PDF-1.4\n')]
  let length = parts[0].length
  const offsets = []
  objects.forEach((body, index) => {
    offsets.push(length)
    for (const part of [`${index + 1} 0 obj\n`, body, '\nendobj\n']) {
      const bytes = Buffer.isBuffer(part) ? part : Buffer.from(part, 'latin1')
      parts.push(bytes)
      length += bytes.length
    }
  })
  let tail = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`
  for (const offset of offsets) tail += `${String(offset).padStart(10, '0')} 00000 n \n`
  tail += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`
  return Buffer.concat([...parts, Buffer.from(tail, 'latin1')])
}

/** A stream object of `content`, deflated, with `dict` entries before its own. */
function deflatedStream(dict, content) {
  const deflated = zlib.deflateSync(Buffer.from(content, 'latin1'), { level: 9 })
  return Buffer.concat([Buffer.from(`<< ${dict} /Length ${deflated.length} /Filter /FlateDecode >>\nstream\n`), deflated, Buffer.from('\nendstream')])
}

/** A one-page PDF (the page's text: `content`, shown in Helvetica) with `extra` objects after. */
function onePage(content, ...extra) {
  return pdfFile([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> /Contents 4 0 R >>',
    deflatedStream('', content),
    ...extra,
  ])
}

/**
 * Issue 35 §1, the first file: a page reading "kept", and an object stream whose index lists
 * `entries` objects all at one offset, where an array of `elements` zeros sits (lopdf 0.47
 * parsed the array once an entry: 650 MB each for 1,000,000 elements).
 */
export function repeatingObjectStreamPdf(entries, elements) {
  const index = Array.from({ length: entries }, (_, i) => `${10 + i} 0 `).join('')
  const members = `${index}[${'0 '.repeat(elements)}]`
  return onePage('BT /F1 12 Tf 72 720 Td (kept) Tj ET', deflatedStream(`/Type /ObjStm /N ${entries} /First ${index.length}`, members))
}

/**
 * Issue 35 §1, the second file: a page that shows "before", then runs one operation of
 * `operands` operands, then shows "after" (lopdf 0.47 built all the operands: 591 MB for
 * 1,000,000).
 */
export function manyOperandsPdf(operands) {
  return onePage(`BT /F1 12 Tf 72 720 Td (before) Tj ${'0 '.repeat(operands)}Tj (after) Tj ET`)
}

/**
 * A `width` x `height` JPEG of noise: large for its pixels, as a photo's grain makes it;
 * `progressive`, in several scans.
 */
export function noisyJpeg(width, height, { progressive = false } = {}) {
  return sharp({ create: { width, height, channels: 3, noise: { type: 'gaussian', mean: 128, sigma: 60 } } })
    .jpeg({ quality: 95, progressive })
    .toBuffer()
}

/**
 * `jpeg` with its frame header made to declare `width` x `height` and `scans` scans in all
 * (empty SOS segments put before its end of image): the markers of a progressive JPEG whose
 * decoding would walk every block `scans` times.
 */
export function manyScanJpeg(jpeg, width, height, scans) {
  const out = Buffer.from(jpeg)
  const sof = out.indexOf(Buffer.from([0xff, 0xc0])) // a baseline frame, as sharp writes it
  out.writeUInt16BE(height, sof + 5)
  out.writeUInt16BE(width, sof + 7)
  let have = 0
  for (let at = out.indexOf(Buffer.from([0xff, 0xda])); at >= 0; at = out.indexOf(Buffer.from([0xff, 0xda]), at + 2)) have++
  const scan = Buffer.from([0xff, 0xda, 0x00, 0x08, 0x01, 0x01, 0x00, 0x01, 0x01, 0x00, 0x00])
  const extra = Buffer.concat(Array.from({ length: scans - have }, () => scan))
  return Buffer.concat([out.subarray(0, out.length - 2), extra, out.subarray(out.length - 2)])
}
