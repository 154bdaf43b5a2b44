// The contract's ReadFileOutput, built from its eight values in one object literal: one
// step for V8, where Node-API would hash each property name and move the object through a
// hidden class per property. Compiled once per env by src/output.rs, which passes the
// values in this order; the order of the keys is the specification's.
(function readFileOutput(path, content, truncated, next_start_line, byte_length, line_count, returned_line_count, mtime_ms) {
  return {
    path,
    content,
    truncated,
    next_start_line,
    meta: { byte_length, line_count, returned_line_count, mtime_ms },
  }
})
