// The answer of readFiles, in input order, from pairs: (null, output) for a read that
// succeeded, (code, message) for one that failed. Compiled once per env by src/output.rs.
(function readFilesResults(pairs) {
  const results = []
  for (let i = 0; i < pairs.length; i += 2) {
    const code = pairs[i]
    const value = pairs[i + 1]
    results[i / 2] = code === null ? { ok: true, output: value } : { ok: false, error: { code, message: value } }
  }
  return results
})
