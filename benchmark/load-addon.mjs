// One build of the addon's binary loaded from its file, for benchmarks that time two builds
// side by side in one process (its raw exports, not the package's JavaScript around them).

/** The exports of the addon binary at `file`. */
export function loadAddon(file) {
  const module = { exports: {} }
  process.dlopen(module, file)
  return module.exports
}
