// The contract's ReadFileOutput, built from its eight values in one object literal: one
// step for V8, where Node-API would hash each property name and move the object through a
// hidden class per property. Compiled once per env by src/output.rs, which passes the
// values in this order; the order of the keys is the specification's. A toolkit's answer
// whose line was cut also says where the line continues (`continuation`, after the
// specification's keys: the arguments of the call that reads on) and the line's length
// (`cut_line_bytes`), and one whose max_lines over 500 was read as 500 says so (`note`);
// every other answer is the specification's shape exactly. A call that asked for the
// model's text of the window (a toolkit's `view` for `runToolCall`) gets `{ output, text }`.
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
  cut_line_bytes,
  note,
  text,
) {
  const meta = { byte_length, line_count, returned_line_count, mtime_ms }
  let output
  if (note !== null) output = { path, content, truncated, next_start_line, meta, note }
  else if (continued_line === null) output = { path, content, truncated, next_start_line, meta }
  else {
    const continuation = { start_line: continued_line, start_column: continued_column }
    output = { path, content, truncated, next_start_line, meta, continuation, cut_line_bytes }
  }
  return text === null ? output : { output, text }
})
