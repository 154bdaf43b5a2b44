'use strict'
// The public entry point. Everything that reads files is Rust (`native.js` loads it);
// this file only adds what Rust cannot express: the constant tool definition objects
// and the small catalog and toolkit objects built around them.

const { readFile, readFileSync, MAX_FILE_BYTES, Workspace } = require('./native.js')
const { dialects } = require('./dialects.js')
const { runToolCall } = require('./tool-call.js')

/** Freezes an object graph so no caller can edit a shared definition. */
function deepFreeze(value) {
  for (const child of Object.values(value)) {
    if (typeof child === 'object' && child !== null) deepFreeze(child)
  }
  return Object.freeze(value)
}

/** The specification's READ_FILE_DEFINITION, to the letter. */
const READ_FILE_DEFINITION = {
  name: 'read_file',
  description: 'Reads a UTF-8 text file in the workspace and returns a line-limited content window.',
  parameters: {
    type: 'object',
    properties: {
      path: {
        type: 'string',
        description: 'Workspace-root-relative file path to read (e.g., "src/main.ts").',
      },
      start_line: {
        type: 'number',
        default: 1,
        description: '1-based start line of the returned window (default: 1).',
      },
      max_lines: {
        type: 'number',
        default: 200,
        description: 'Maximum number of lines to return (default: 200).',
      },
    },
    required: ['path'],
  },
}

const TOOL_DEFINITIONS = deepFreeze({ read_file: READ_FILE_DEFINITION })

const ToolCatalog = deepFreeze({
  read_file: {
    definition: TOOL_DEFINITIONS.read_file,
    execute(input, ctx) {
      return readFile(ctx == null ? undefined : ctx.workspaceRoot, input)
    },
  },
})

/**
 * A toolkit bound to one workspace. The root is opened once, here, and held open for
 * the toolkit's lifetime; a bad root throws INVALID_ARGUMENT now rather than on every read.
 */
function createAgentToolkit(options) {
  const workspace = new Workspace(options == null ? undefined : options.workspaceRoot)
  return Object.freeze({
    readFile(input) {
      return workspace.readFile(input)
    },
  })
}

module.exports = {
  readFile,
  readFileSync,
  MAX_FILE_BYTES,
  TOOL_DEFINITIONS,
  ToolCatalog,
  createAgentToolkit,
  runToolCall,
  dialects: deepFreeze(dialects),
}
