'use strict'
// What a model is given for a read, beside a text window's text (which the engine renders:
// engine/src/model_text.rs, through the binding's `renderRead` and the text a toolkit's
// `view` hands over with its output, with `dedupeReads` perhaps the note that the model has
// those lines already): a failure's text (its `CODE: path: reason` line, and for some codes
// a second line saying what to do instead), and a media answer's parts (its text and
// images, between the header and closing lines the engine writes: `renderMediaFrame`).

const native = require('./native.js')

/** What a failure's second line says, by code; codes not here get one line. */
const NEXT_STEPS = {
  POLICY_DENIED: "The workspace's rules keep this file from you; do not try to read it another way.",
  OUTSIDE_WORKSPACE: 'read_file reads only inside the workspace: give a path relative to its root.',
  BINARY_NOT_SUPPORTED: 'read_file reads text files, images, notebooks and PDFs only.',
  PDF_ENCRYPTED: 'read_file cannot decrypt it: ask the user for a copy without a password.',
}

/** The text a model is given for a failure: `message` (`CODE: path: reason`) and, for some codes, what to do instead. */
function renderFailure(code, message) {
  const next = Object.hasOwn(NEXT_STEPS, code) ? NEXT_STEPS[code] : undefined
  return next === undefined ? message : `${message}\n${next}`
}

/**
 * What a model is given for a media answer (a toolkit's `MediaOutput`), as content parts in
 * order: text (`{ type: 'text', text }`: the header, the answer's text, the closing lines)
 * and images (`{ type: 'image', mimeType, data }`). `frame` is the engine's text around the
 * parts (`{ head, tail }`: the header, the closing lines), the read's when it made it.
 */
function mediaParts(output, frame = native.renderMediaFrame(output)) {
  const parts = []
  const addText = (text) => {
    const last = parts.at(-1)
    if (last?.type === 'text') last.text += text
    else parts.push({ type: 'text', text })
  }
  addText(frame.head)
  for (const part of output.parts) {
    if (part.type === 'text') addText(part.text)
    else parts.push(imagePart(part))
  }
  if (frame.tail !== '') addText(frame.tail)
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
  renderFailure,
  renderMedia,
  mediaParts,
  imageParts,
  isMedia,
  withoutImageData,
}
