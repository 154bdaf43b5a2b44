'use strict'
// The text a model is given for one read_file call, in every adapter: one header line (the
// path, the lines shown of how many, the size), the lines with a line-number gutter, and,
// when lines are left, one closing line naming the call that reads on. A failure is its
// `CODE: path: reason` line, and for some codes a second line saying what to do instead.
// The gutter and the header's words were chosen by counting tokens (benchmark/tokens.mjs).
// `agent-read-file mcp` renders a text window's answer in Rust (engine/src/model_text.rs):
// a change here is made there too; the package's tests hold the two texts equal.

/**
 * A cut line's marker as the engine writes it (see `ToolkitOptions.maxContentBytes`), long
 * or, when its numbers are extreme, short: the closing line says the same, so the marker is
 * taken out of the lines shown.
 */
const CUT_MARKER = /^\[(?:line \d+ continues at column \d+ of (\d+): )?call read_file with start_line \d+ and start_column \d+\]$/

/** The gutter before a line: its number and a tab, as `cat -n` has it but not padded. */
function gutter(lineNumber) {
  return `${lineNumber}\t`
}

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

/**
 * The lines of `content` without their `\n`, and the cut line's marker (`undefined` unless
 * `cut`) taken off the end.
 */
function linesOf(content, cut) {
  const lines = content === '' ? [] : content.split('\n')
  if (lines.at(-1) === '') lines.pop()
  const marker = cut ? CUT_MARKER.exec(lines.at(-1) ?? '') : null
  if (marker) lines.pop()
  return { lines, lineLength: marker?.[1] === undefined ? undefined : Number(marker[1]) }
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

/** The header for a window of no lines: the file is empty, or the start is past its end. */
function emptyHeader(path, { line_count: total, byte_length: size }, startLine) {
  if (total === 0) return `${path} has no lines (${size} bytes)`
  const where = startLine === undefined ? 'in this window' : `from line ${startLine} on`
  return `${path} has ${total} lines, none ${where} (${size} bytes)`
}

/** `path lines A-B of T (S bytes)`, `line A of T` for one, and the column a window starts at. */
function header(output, { startLine, startColumn }) {
  const path = shownPath(output.path)
  const { meta } = output
  if (meta.returned_line_count === 0) return emptyHeader(path, meta, startLine)
  const first = firstLineOf(output)
  const single = meta.returned_line_count === 1
  const column = startColumn > 1 ? `${single ? '' : `, line ${first}`} from column ${startColumn}` : ''
  return `${path} ${lineSpan(output)} of ${meta.line_count}${column} (${meta.byte_length} bytes)`
}

/** The closing line: the call that reads on (the rest of a cut line, or the next window), or none. */
function closingLine(output, lineLength) {
  if (isCut(output)) {
    const { start_line: line, start_column: column } = output.continuation
    const length = lineLength === undefined ? '' : ` of ${lineLength}`
    return `[line ${line} continues at column ${column}${length}; next: start_line=${line} start_column=${column}]`
  }
  return output.truncated && output.next_start_line !== null ? `[next: start_line=${output.next_start_line}]` : undefined
}

/**
 * The text a model is given for `output` (a toolkit's `ReadFileOutput`): the header, the lines
 * (each after its number and a tab unless `lineNumbers` is false), the toolkit's `note` in
 * brackets when there is one, the closing line when lines are left. `startLine` and `startColumn` are the call's, when known: they name an empty
 * window's start and a window that starts inside a line.
 */
function renderRead(output, { lineNumbers = true, startLine, startColumn } = {}) {
  const { lines, lineLength } = linesOf(output.content, isCut(output))
  const first = firstLineOf(output)
  const shown = lineNumbers ? lines.map((line, index) => gutter(first + index) + line) : lines
  const closing = closingLine(output, lineLength)
  const parts = [header(output, { startLine, startColumn }), ...shown]
  // A toolkit's note on how it answered (a `max_lines` over 500 read as 500).
  if (typeof output.note === 'string') parts.push(`[${output.note}]`)
  if (closing !== undefined) parts.push(closing)
  return `${parts.join('\n')}\n`
}

/** The text a model is given for a failure: `message` (`CODE: path: reason`) and, for some codes, what to do instead. */
function renderFailure(code, message) {
  const next = Object.hasOwn(NEXT_STEPS, code) ? NEXT_STEPS[code] : undefined
  return next === undefined ? message : `${message}\n${next}`
}

/** The lines a window holds: `line A` or `lines A-B`. */
function lineSpan(output) {
  const first = firstLineOf(output)
  const last = first + output.meta.returned_line_count - 1
  return first === last ? `line ${first}` : `lines ${first}-${last}`
}

/**
 * The note a model is given instead of lines it was already given and that have not changed
 * since, with the closing line that reads on.
 */
function renderUnchanged(output) {
  const note = `${shownPath(output.path)} ${lineSpan(output)} unchanged since your last read`
  const closing = closingLine(output, undefined)
  return closing === undefined ? `${note}\n` : `${note}\n${closing}\n`
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
  renderRead,
  renderFailure,
  renderUnchanged,
  renderMedia,
  mediaParts,
  imageParts,
  isMedia,
  withoutImageData,
  isCut,
  firstLineOf,
}
