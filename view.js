'use strict'
// `toolkit.view`: one read for every file an agent meets. A text file answers as
// `toolkit.readFile` does; an image, a Jupyter notebook or a PDF (told by its content, in
// Rust) answers typed parts. Text goes first, on readFile's fast path: only what the text
// read cannot be (a binary file, one over the text limit, a file whose first bytes say PDF
// or notebook, or a name that claims one of the kinds) is asked of the media read.

const { codedError } = require('./errors.js')
const { readOption, integerOption } = require('./options.js')

/** Names whose content is checked as the kind they claim, never read as text first. */
const MEDIA_NAME = /\.(?:png|jpe?g|gif|webp|pdf|ipynb)$/i

/** Codes of a text read that an image or a PDF gets. */
const NOT_TEXT = new Set(['BINARY_NOT_SUPPORTED', 'SIZE_LIMIT_EXCEEDED'])

/** Whether a text read's `output` may be a PDF or a notebook: its first bytes say so. */
function mayBeMedia(output) {
  if (output === null || typeof output !== 'object' || typeof output.content !== 'string') return false
  const { meta, next_start_line: next } = output
  const fromStart = next === null ? meta.returned_line_count === meta.line_count : next - meta.returned_line_count === 1
  if (!fromStart) return false
  const head = output.content.slice(0, 8192)
  if (/(?:^|[\r\n])%PDF-\d/.test(head.slice(0, 1024))) return true
  return /^\s*\{/.test(head) && /"(?:nbformat|cells)"/.test(head)
}

/**
 * The read of `input` for a toolkit: `readFile(input, callOptions)` (its text read) and
 * `readMedia(input, signal)` (the native media read, `null` for a file that is not media).
 */
async function view({ readFile, readMedia }, input, callOptions, signal, path) {
  let textError
  if (!MEDIA_NAME.test(path)) {
    try {
      const output = await readFile(input, callOptions)
      if (!mayBeMedia(output)) return output
    } catch (error) {
      if (!NOT_TEXT.has(error?.code)) throw error
      textError = error
    }
  }
  const media = await readMedia(input, signal)
  if (media !== null) return media
  if (textError !== undefined) throw textError
  return readFile(input, callOptions)
}

/** The limits `options.media` may set, with their bounds. */
const MEDIA_LIMITS = {
  maxFileBytes: [1, Number.MAX_SAFE_INTEGER],
  maxImageEdge: [16, 0xffffffff],
  maxImagePixels: [256, Number.MAX_SAFE_INTEGER],
  maxImageBytes: [1024, Number.MAX_SAFE_INTEGER],
  maxImages: [0, 0xffffffff],
}

/**
 * `options.media` as the native options: `undefined` when absent, else each limit given
 * (an integer within its bounds); anything else is INVALID_ARGUMENT.
 */
function mediaOptionsOf(options, owner) {
  const media = readOption(options, 'media', owner)
  if (media === undefined) return undefined
  if (typeof media !== 'object' || media === null) {
    const got = media === null ? 'null' : typeof media
    throw codedError('INVALID_ARGUMENT', 'media', `${owner}.media must be an object of limits like { maxImageEdge: 1568 } (got ${got})`)
  }
  const limits = {}
  for (const [name, bounds] of Object.entries(MEDIA_LIMITS)) {
    const value = integerOption(media, name, `${owner}.media`, bounds, 'media')
    if (value !== undefined) limits[name] = value
  }
  return limits
}

module.exports = { view, mediaOptionsOf, MEDIA_NAME, NOT_TEXT }
