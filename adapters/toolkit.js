'use strict'
// What every adapter takes: toolkit options, or a toolkit of the caller's.

const { createAgentToolkit } = require('../index.js')

/**
 * A toolkit given as it is (`owned: false`: its lifetime stays the caller's), or one made
 * from toolkit options (`owned: true`).
 */
function toolkitOf(toolkitOrOptions) {
  if (typeof toolkitOrOptions?.readFile === 'function') return { toolkit: toolkitOrOptions, owned: false }
  return { toolkit: createAgentToolkit(toolkitOrOptions), owned: true }
}

module.exports = { toolkitOf }
