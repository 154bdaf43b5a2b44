'use strict'
// What a model is given for a read, beside a text window's text (which the engine renders:
// engine/src/model_text.rs, through the binding's `renderRead`, `renderUnchanged` and the
// text a toolkit's `view` hands over with its output): a failure's text (its `CODE: path:
// reason` line, and for some codes a second line saying what to do instead), and a media
// answer's parts (a header, its text, its images, the closing lines).

/** What a failure's second line says, by code; codes not here get one line. */
const NEXT_STEPS = {
  POLICY_DENIED: "The workspace's rules keep this file from you; do not try to read it another way.",
  OUTSIDE_WORKSPACE: 'read_file reads only inside the workspace: give a path relative to its root.',
  BINARY_NOT_SUPPORTED: 'read_file reads text files, images, notebooks and PDFs only.',
  PDF_ENCRYPTED: 'read_file cannot decrypt it: ask the user for a copy without a password.',
}

/** A path as the header shows it: as it is, or as a JSON string when it holds a control character. */
function shownPath(path) {
  return /[\u0000-\u001f\u007f\u2028\u2029]/.test(path) ? JSON.stringify(path) : path
}

/** Whether `output` is one line cut to fit the budget (it says where the line continues). */
function isCut(output) {
  return output.continuation !== undefined && output.continuation !== null
}

/** The first line of the window: worked out from where it ends, so `output` alone says it. */
function firstLineOf(output) {
  const { line_count: total, returned_line_count: returned } = output.meta
  return output.next_start_line === null ? total - returned + 1 : output.next_start_line - returned
}

/** The text a model is given for a failure: `message` (`CODE: path: reason`) and, for some codes, what to do instead. */
function renderFailure(code, message) {
  const next = Object.hasOwn(NEXT_STEPS, code) ? NEXT_STEPS[code] : undefined
  return next === undefined ? message : `${message}\n${next}`
}

/** The format names of the image types read. */
const IMAGE_FORMATS = { 'image/png': 'PNG', 'image/jpeg': 'JPEG', 'image/gif': 'GIF', 'image/webp': 'WebP' }

/** The most pages of a PDF one read returns (the engine's MAX_PAGES_PER_CALL). */
const MAX_PDF_PAGES = 20

/** What a range of a media answer counts, by kind: one, and more than one. */
const RANGE_UNITS = { pdf: ['page', 'pages'], notebook: ['cell', 'cells'] }

/**
 * A media answer's header: `shot.png PNG image 4000x3000 (2345678 bytes), shown at 1568x1176
 * as JPEG`, `spec.pdf PDF pages 1-20 of 54 (…)`, `nb.ipynb notebook cells 1-12 of 30 (…)`.
 */
function mediaHeader(output) {
  const path = shownPath(output.path)
  const size = `(${output.meta.byte_length} bytes)`
  if (output.kind === 'image') {
    const image = output.parts.find((part) => part.type === 'image')
    const { source } = image
    const resized = image.width !== source.width || image.height !== source.height || image.mimeType !== source.mimeType
    const shownAt = resized ? `, shown at ${image.width}x${image.height} as ${IMAGE_FORMATS[image.mimeType]}` : ''
    return `${path} ${IMAGE_FORMATS[source.mimeType]} image ${source.width}x${source.height} ${size}${shownAt}`
  }
  const { first, last, total } = output.meta.shown
  const [one, many] = RANGE_UNITS[output.kind]
  const span = first === last ? `${one} ${first}` : `${many} ${first}-${last}`
  const kind = output.kind === 'pdf' ? 'PDF' : 'notebook'
  return `${path} ${kind} ${span} of ${total} ${size}`
}

/** The closing lines of a media answer: the images left out, and the call that reads on. */
function mediaClosing(output) {
  const lines = []
  const left = output.meta.images_left_out
  if (left > 0) lines.push(`[note: ${left} image output${left === 1 ? '' : 's'} not shown; read fewer cells at a time to see them]`)
  const shown = output.meta.shown
  if (shown && shown.last < shown.total) {
    const next = output.kind === 'pdf' ? `${shown.last + 1}-${Math.min(shown.last + MAX_PDF_PAGES, shown.total)}` : `${shown.last + 1}-`
    lines.push(`[next: pages="${next}"]`)
  }
  return lines
}

/**
 * What a model is given for a media answer (a toolkit's `MediaOutput`), as content parts in
 * order: text (`{ type: 'text', text }`: the header, the answer's text, the closing lines)
 * and images (`{ type: 'image', mimeType, data }`).
 */
function mediaParts(output) {
  const parts = []
  const addText = (text) => {
    const last = parts.at(-1)
    if (last?.type === 'text') last.text += text
    else parts.push({ type: 'text', text })
  }
  addText(`${mediaHeader(output)}\n`)
  for (const part of output.parts) {
    if (part.type === 'text') addText(part.text)
    else parts.push(imagePart(part))
  }
  const closing = mediaClosing(output)
  if (closing.length > 0) addText(`${closing.join('\n')}\n`)
  return parts
}

/** An image of a media answer as a model part: `{ type: 'image', mimeType, data }`. */
function imagePart({ mimeType, data }) {
  return { type: 'image', mimeType, data }
}

/** The images of a media answer as model parts, in order. */
function imageParts(output) {
  return output.parts.filter((part) => part.type === 'image').map(imagePart)
}

/** One image part as a text stands in for it: `[image 1568x1176 image/jpeg]`. */
function imagePlaceholder(part) {
  return `[image ${part.width}x${part.height} ${part.mimeType}]\n`
}

/**
 * A media answer as one text, for a harness that passes text only: its text parts (`parts`,
 * its `mediaParts` when already made), each image part named where it stands.
 */
function renderMedia(output, parts = mediaParts(output)) {
  const images = output.parts.filter((part) => part.type === 'image')
  let image = 0
  return parts.map((part) => (part.type === 'text' ? part.text : imagePlaceholder(images[image++]))).join('')
}

/** Whether `output` is a media answer (`toolkit.view` of an image, a notebook or a PDF). */
function isMedia(output) {
  return typeof output === 'object' && output !== null && Array.isArray(output.parts)
}

/** `output` with each image part's `data` left out: for a JSON text or `structuredContent` beside the image parts. */
function withoutImageData(output) {
  const parts = output.parts.map((part) => {
    if (part.type !== 'image') return part
    const { data: _data, ...rest } = part
    return rest
  })
  return { ...output, parts }
}

module.exports = {
  MAX_PDF_PAGES,
  renderFailure,
  renderMedia,
  mediaParts,
  imageParts,
  isMedia,
  withoutImageData,
  isCut,
  firstLineOf,
}
