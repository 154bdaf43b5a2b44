'use strict'
// The read_file tool's definition in the shapes other harnesses take, derived from the one
// definition in index.js (TOOL_DEFINITIONS.read_file), so it is spelled once. Each call
// returns fresh, mutable objects: SDK types want `string[]`, not the frozen `readonly` ones.

const { TOOL_DEFINITIONS } = require('../index.js')

const SPEC = TOOL_DEFINITIONS.read_file

/** The specification's parameters schema, as a mutable copy. */
function parameters() {
  return structuredClone(SPEC.parameters)
}

/**
 * The parameters for OpenAI's strict mode: every property required, the optional ones
 * nullable (`null` means the default, as `readFile` takes it), whole numbers as `integer`,
 * no `default` (strict mode does not accept it), and no other properties.
 */
function strictParameters() {
  const properties = {}
  for (const [name, property] of Object.entries(SPEC.parameters.properties)) {
    const optional = !SPEC.parameters.required.includes(name)
    const type = property.type === 'number' ? 'integer' : property.type
    properties[name] = { type: optional ? [type, 'null'] : type, description: property.description }
  }
  return {
    type: 'object',
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
  }
}

const COUNT = { type: 'integer', minimum: 0 }

/**
 * A JSON Schema of `ReadFileOutput`, the specification's output shape: for harnesses that
 * check results, as MCP clients check `structuredContent` against a tool's `outputSchema`.
 */
function outputSchema() {
  return {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'The path read, workspace-relative and normalized.' },
      content: { type: 'string', description: 'The lines of the window, with their line endings.' },
      truncated: { type: 'boolean', description: 'Whether lines of the file follow the window.' },
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
    },
    required: ['path', 'content', 'truncated', 'next_start_line', 'meta'],
    additionalProperties: false,
  }
}

module.exports = { SPEC, parameters, strictParameters, outputSchema }
