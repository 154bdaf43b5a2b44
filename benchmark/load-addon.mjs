// One build of the addon's binary loaded from its file, for benchmarks that time two builds
// side by side in one process (its raw exports, not the package's JavaScript around them).

/** The exports of the addon binary at `file`. */
export function loadAddon(file) {
  const module = { exports: {} }
  process.dlopen(module, file)
  return module.exports
}

/**
 * A policy of `addon` (this build or an older one) with the default deny rules
 * (`defaultDeny`, the package's `DEFAULT_DENY`) and nothing else: no ignore files, the
 * specification's file limit, no token budget. Builds before the options were read in Rust
 * took the rules as positional arguments.
 */
export function defaultDenyPolicy(addon, defaultDeny) {
  if (typeof addon.ReadPolicy.forContext === 'function') return addon.ReadPolicy.forContext({ ignoreFiles: false })
  return new addon.ReadPolicy([...defaultDeny], [], [], [], undefined)
}
