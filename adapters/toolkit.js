'use strict'
// What every adapter takes: toolkit options, or a toolkit of the caller's.

const { createAgentToolkit } = require('../index.js')
const { readOption } = require('../lib/adapter-kit.js')

/**
 * A toolkit given as it is (`owned: false`: its lifetime stays the caller's), or one made
 * from toolkit options (`owned: true`). What has a `readFile` function is a toolkit; a
 * `readFile` that cannot be read is INVALID_ARGUMENT, thrown.
 */
function toolkitOf(toolkitOrOptions) {
  const given = toolkitOrOptions !== undefined && toolkitOrOptions !== null
  const readFile = given ? readOption(toolkitOrOptions, 'readFile', 'toolkitOrOptions', 'toolkitOrOptions') : undefined
  if (typeof readFile === 'function') return { toolkit: toolkitOrOptions, owned: false }
  return { toolkit: createAgentToolkit(toolkitOrOptions), owned: true }
}

module.exports = { toolkitOf }
