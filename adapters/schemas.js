'use strict'
// The read_file tool's definition in the shapes other harnesses take, derived from the one
// definition in index.js (TOOLKIT_DEFINITIONS.read_file: every adapter reads through a
// toolkit, which honours `start_column`), so it is spelled once. Each call returns fresh,
// mutable objects: SDK types want `string[]`, not the frozen `readonly` ones.

const { TOOLKIT_DEFINITIONS } = require('../index.js')

const DEFINITION = TOOLKIT_DEFINITIONS.read_file

/** The toolkit's parameters schema, as a mutable copy. */
function parameters() {
  return structuredClone(DEFINITION.parameters)
}

/**
 * The parameters for OpenAI's strict mode: every property required (the optional ones are
 * nullable in the toolkit's definition already: `null` means the default, as a toolkit
 * takes it), their bounds kept (strict mode supports `minimum` and `maximum`), no `default`
 * (strict mode does not accept it), and no other properties.
 */
function strictParameters() {
  const properties = {}
  for (const [name, property] of Object.entries(DEFINITION.parameters.properties)) {
    const { default: _default, ...strict } = structuredClone(property)
    properties[name] = strict
  }
  return {
    type: 'object',
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
  }
}

const COUNT = { type: 'integer', minimum: 0 }
const POSITION = { type: 'integer', minimum: 1 }

/**
 * What the answer tells beside the window: present only when `max_lines` over 500 was read as
 * 500, or the file grew while it was read (a log being written).
 */
const NOTE = {
  type: 'string',
  description: 'Only when max_lines was over 500, or the file grew while it was read: what the answer is, and how to read on.',
}

/** Where a cut line reads on: present only on an answer whose one line was cut. */
const CONTINUATION = {
  type: 'object',
  description: 'Only when the window is one line cut to fit: the start_line and start_column that read the rest of it.',
  properties: { start_line: POSITION, start_column: POSITION },
  required: ['start_line', 'start_column'],
  additionalProperties: false,
}

/** A cut line's length, beside its `continuation`. */
const CUT_LINE_BYTES = {
  type: 'integer',
  minimum: 1,
  description: "Only beside continuation: the cut line's length in bytes, so that what is left of it is known.",
}

/**
 * A JSON Schema of a toolkit's output: the specification's `ReadFileOutput` and the optional
 * `continuation` (with `cut_line_bytes`) and `note`. For harnesses that check results, as MCP clients check
 * `structuredContent` against a tool's `outputSchema`.
 */
function textOutputSchema() {
  return {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'The path read, workspace-relative and normalized.' },
      content: {
        type: 'string',
        description:
          "The lines of the window, with their line endings; left out when they are over 16 KiB (16384 bytes of UTF-8): the result's text item then carries them, once.",
      },
      truncated: { type: 'boolean', description: 'Whether the file goes on after the window: more lines, or the rest of a cut line.' },
      next_start_line: {
        type: ['integer', 'null'],
        minimum: 1,
        description: 'The start_line that reads on, or null after the last line.',
      },
      meta: {
        type: 'object',
        properties: {
          byte_length: COUNT,
          line_count: COUNT,
          returned_line_count: COUNT,
          mtime_ms: { type: 'number' },
        },
        required: ['byte_length', 'line_count', 'returned_line_count', 'mtime_ms'],
        additionalProperties: false,
      },
      continuation: CONTINUATION,
      cut_line_bytes: CUT_LINE_BYTES,
      note: NOTE,
    },
    required: ['path', 'truncated', 'next_start_line', 'meta'],
    additionalProperties: false,
  }
}

const IMAGE_TYPE = { type: 'string', enum: ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] }

/** An image part as `structuredContent` carries it: without its `data` (sent once, as an image item). */
const IMAGE_PART = {
  type: 'object',
  properties: {
    type: { const: 'image' },
    mimeType: IMAGE_TYPE,
    width: COUNT,
    height: COUNT,
    source: {
      type: 'object',
      properties: { mimeType: IMAGE_TYPE, width: COUNT, height: COUNT, bytes: COUNT },
      required: ['mimeType', 'width', 'height', 'bytes'],
    },
  },
  required: ['type', 'mimeType', 'width', 'height', 'source'],
}

const TEXT_PART = {
  type: 'object',
  properties: { type: { const: 'text' }, text: { type: 'string' } },
  required: ['type', 'text'],
}

/** A JSON Schema of a toolkit's media answer (`toolkit.view` of an image, a notebook or a PDF). */
function mediaOutputSchema() {
  return {
    type: 'object',
    properties: {
      path: { type: 'string' },
      kind: { enum: ['image', 'notebook', 'pdf'] },
      parts: { type: 'array', items: { anyOf: [TEXT_PART, IMAGE_PART] } },
      meta: {
        type: 'object',
        properties: {
          byte_length: COUNT,
          mtime_ms: { type: 'number' },
          shown: {
            type: 'object',
            description: 'For a PDF its pages shown, for a notebook its cells.',
            properties: { first: POSITION, last: POSITION, total: COUNT },
            required: ['first', 'last', 'total'],
          },
          images_left_out: COUNT,
        },
        required: ['byte_length', 'mtime_ms', 'images_left_out'],
      },
    },
    required: ['path', 'kind', 'parts', 'meta'],
  }
}

/** The file an outline or ranges answer is of. */
const CODE_META = {
  type: 'object',
  properties: { byte_length: COUNT, line_count: COUNT, mtime_ms: { type: 'number' } },
  required: ['byte_length', 'line_count', 'mtime_ms'],
}

/** A JSON Schema of an outline answer (`outline: true`, a symbol naming several, or unasked). */
function outlineOutputSchema() {
  const definition = {
    type: 'object',
    properties: {
      name: { type: 'string' },
      name_path: { type: 'string' },
      symbol: { type: 'string', description: 'The symbol argument that reads it.' },
      kind: { type: 'string' },
      start_line: POSITION,
      end_line: POSITION,
      depth: COUNT,
      signature: { type: 'string' },
    },
    required: ['name', 'name_path', 'symbol', 'kind', 'start_line', 'end_line', 'depth', 'signature'],
  }
  return {
    type: 'object',
    properties: {
      path: { type: 'string' },
      kind: { enum: ['outline', 'matches'] },
      language: { type: 'string' },
      source: { enum: ['grammar', 'headings', 'keys', 'indentation'] },
      definitions: { type: 'array', items: definition },
      total_definitions: COUNT,
      truncated: { type: 'boolean' },
      next_start_line: { type: ['integer', 'null'], minimum: 1 },
      meta: CODE_META,
      unasked: { type: 'boolean' },
      symbol: { type: 'string' },
    },
    required: ['path', 'kind', 'language', 'source', 'definitions', 'total_definitions', 'truncated', 'next_start_line', 'meta', 'unasked'],
  }
}

/** A JSON Schema of a ranges answer (`ranges`). */
function rangesOutputSchema() {
  const segment = {
    type: 'object',
    properties: { start_line: POSITION, end_line: POSITION, content: { type: 'string' } },
    required: ['start_line', 'end_line', 'content'],
  }
  return {
    type: 'object',
    properties: {
      path: { type: 'string' },
      kind: { const: 'ranges' },
      ranges: { type: 'array', items: segment },
      truncated: { type: 'boolean' },
      next_ranges: { type: ['array', 'null'], items: { type: 'string' } },
      meta: CODE_META,
    },
    required: ['path', 'kind', 'ranges', 'truncated', 'next_ranges', 'meta'],
  }
}

/**
 * A JSON Schema of what a toolkit's read_file tool answers: a text window
 * (`ReadFileOutput` with its optional `continuation` and `note`), a media answer, an outline
 * or several ranges.
 */
function outputSchema() {
  return { type: 'object', anyOf: [textOutputSchema(), mediaOutputSchema(), outlineOutputSchema(), rangesOutputSchema()] }
}

module.exports = { DEFINITION, parameters, strictParameters, outputSchema }
