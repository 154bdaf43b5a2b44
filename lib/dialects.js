'use strict'
// The other agents' read tools, as dialects of the same Rust engine. This file holds what
// Rust cannot express: each tool's definition (a constant object) and the small objects
// that call the engine's `executeDialect`, one for each name the engine lists.

const native = require('./native.js')

/** Codex's read_file: the schema its document gives, with descriptions for the model. */
const CODEX_DEFINITION = {
  name: 'read_file',
  description:
    'Read part of a file as numbered lines (L<n>: text). Slice mode returns a range of lines; indentation mode returns the code block around an anchor line.',
  parameters: {
    type: 'object',
    properties: {
      file_path: { type: 'string', description: 'Absolute path of the file to read.' },
      offset: { type: 'number', description: '1-indexed line to start from (default 1).' },
      limit: { type: 'number', description: 'Most lines to return (default 2000).' },
      mode: {
        type: 'string',
        enum: ['slice', 'indentation'],
        description: '"slice" (default) for a range of lines, "indentation" for the block around an anchor line.',
      },
      indentation: {
        type: 'object',
        description: 'Options of indentation mode.',
        properties: {
          anchor_line: { type: 'number', description: 'Line the block is built around (default: offset).' },
          max_levels: {
            type: 'number',
            description: 'How many indentation levels above the anchor the block may rise (default 0: no bound).',
          },
          include_siblings: {
            type: 'boolean',
            description: 'Include neighbouring blocks at the same level (default true).',
          },
          include_header: {
            type: 'boolean',
            description: 'Include comment lines (#, //, --) just above the block (default true).',
          },
          max_lines: { type: 'number', description: 'Most lines of the block (default: limit).' },
        },
        additionalProperties: false,
      },
    },
    required: ['file_path'],
    additionalProperties: false,
  },
}

/** Forge's Read tool, per FR-RD-01..03 of its requirements. */
const FORGE_DEFINITION = {
  name: 'Read',
  description:
    'Read a file in the workspace. By default returns every line numbered; narrow it with start_line/end_line/limit, or take the first or last lines with head or tail. Binary files come back as base64.',
  parameters: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'Path of the file, relative to the workspace.' },
      start_line: { type: 'integer', description: 'First line to read (1-indexed).' },
      end_line: { type: 'integer', description: 'Last line to read (1-indexed, inclusive).' },
      limit: { type: 'integer', description: 'Most lines to read from start_line.' },
      head: { type: 'integer', description: 'Read the first N lines (not with start_line, end_line, limit or tail).' },
      tail: { type: 'integer', description: 'Read the last N lines (not with start_line, end_line, limit or head).' },
      show_line_numbers: { type: 'boolean', default: true, description: 'Prefix each line with its number (default true).' },
    },
    required: ['path'],
  },
}

const FORGE_ALIASES = ['read', 'read_file', 'read-file', 'ReadFile']

/** AIntern's file-read tool, as its design document declares it. */
const AINTERN_DEFINITION = {
  id: 'file-read',
  name: 'Read File',
  description: [
    'Read the contents of a file from the workspace.',
    'Returns the file content as text with optional line filtering.',
    'Use this when you need to examine file contents before making changes.',
    '',
    'Supports:',
    '- Reading entire files or specific line ranges',
    '- Automatic encoding detection',
    '- Large file handling with truncation warnings',
  ].join('\n'),
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
      include_line_numbers: { type: 'boolean', description: 'Include line numbers in output (default: true)' },
    },
    required: ['path'],
  },
}

/**
 * Each dialect's tool object, by name, given the function that runs it in the engine.
 * The names are the engine's: `dialects` below has one tool per `native.dialectNames()`.
 */
const TOOLS = {
  codex: (execute) => ({ definition: CODEX_DEFINITION, execute }),
  forge: (execute) => ({
    definition: FORGE_DEFINITION,
    aliases: FORGE_ALIASES,
    /** Whether a tool call named `name` is this tool (its name or an alias). */
    accepts: (name) => name === FORGE_DEFINITION.name || FORGE_ALIASES.includes(name),
    execute,
  }),
  aintern: (execute) => ({
    definition: AINTERN_DEFINITION,
    execute,
    validate: (args) => {
      const errors = native.ainternValidate(args)
      return { isValid: errors.length === 0, errors }
    },
    getExecutionSummary: (args) => native.ainternExecutionSummary(args),
    formatFileSize: (bytes) => native.ainternFormatFileSize(bytes),
  }),
}

/** One tool per dialect of the engine, in its order; a name on one side only is a bug. */
function buildDialects(names) {
  const missing = names.filter((name) => !Object.hasOwn(TOOLS, name))
  const extra = Object.keys(TOOLS).filter((name) => !names.includes(name))
  if (missing.length > 0 || extra.length > 0) {
    throw new Error(`dialects.js and the engine disagree: no tool for [${missing}], no dialect for [${extra}]`)
  }
  const dialects = {}
  for (const name of names) {
    dialects[name] = TOOLS[name]((args, ctx) => native.executeDialect(name, args, ctx))
  }
  return dialects
}

/** The dialects, frozen by the caller. */
const dialects = buildDialects(native.dialectNames())

module.exports = { dialects }
