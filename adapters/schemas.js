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

module.exports = { SPEC, parameters, strictParameters }
