// The contract's ReadFileOutput, built from its eight values in one object literal: one
// step for V8, where Node-API would hash each property name and move the object through a
// hidden class per property. Compiled once per env by src/output.rs, which passes the
// values in this order; the order of the keys is the specification's. A toolkit's answer
// whose line was cut also says where the line continues (`continuation`, after the
// specification's keys), and one whose max_lines over 500 was read as 500 says so
// (`note`); every other answer is the specification's shape exactly.
(function readFileOutput(
  path,
  content,
  truncated,
  next_start_line,
  byte_length,
  line_count,
  returned_line_count,
  mtime_ms,
  continued_line,
  continued_column,
  note,
) {
  const meta = { byte_length, line_count, returned_line_count, mtime_ms }
  if (note !== null) return { path, content, truncated, next_start_line, meta, note }
  if (continued_line === null) return { path, content, truncated, next_start_line, meta }
  const continuation = { start_line: continued_line, start_column: continued_column }
  return { path, content, truncated, next_start_line, meta, continuation }
})
