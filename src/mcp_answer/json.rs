//! The answer's JSON, written key by key into its line: a `String`, which becomes a
//! JavaScript string (a `Buffer` per answer made V8 count external memory and run full
//! collections). `serde_json` escapes a string one byte at a time, which for a window's text
//! (twice, with `structuredContent`) cost more than the rest of the answer; here the runs with
//! nothing to escape are found eight bytes at a time and copied whole, and the model's text is
//! escaped as it is rendered. `meta`, a continuation and the like go through `serde_json`. The
//! escapes are `JSON.stringify`'s for a well-formed string.

use agent_read_file_engine::model_text::TextSink;
use serde::Serialize;

/// A JSON object being written, its keys in the order given; it is closed when it is
/// dropped.
pub(super) struct Object<'a> {
    out: &'a mut String,
    empty: bool,
    /// What closes it: `}`, or `}]` for the one object of an array.
    close: &'static str,
}

impl<'a> Object<'a> {
    /// An object written at the end of `out`.
    pub(super) fn new(out: &'a mut String) -> Object<'a> {
        Object::opened(out, "}")
    }

    fn opened(out: &'a mut String, close: &'static str) -> Object<'a> {
        out.push('{');
        Object {
            out,
            empty: true,
            close,
        }
    }

    /// `"key":"value"`.
    pub(super) fn string(&mut self, key: &str, value: &str) -> &mut Self {
        self.key(key);
        push_string(self.out, value);
        self
    }

    /// `"key":` and a string that `write` gives piece by piece, escaped on the way.
    pub(super) fn string_from(&mut self, key: &str, write: impl FnOnce(&mut Escaped)) -> &mut Self {
        self.key(key);
        self.out.push('"');
        write(&mut Escaped(self.out));
        self.out.push('"');
        self
    }

    /// `"key":value` for an integer.
    pub(super) fn integer(&mut self, key: &str, value: i64) -> &mut Self {
        self.key(key);
        self.out.push_str(itoa::Buffer::new().format(value));
        self
    }

    /// `"key":` and `value` as `serde_json` writes it.
    pub(super) fn value(
        &mut self,
        key: &str,
        value: &impl Serialize,
    ) -> serde_json::Result<&mut Self> {
        self.key(key);
        self.out.push_str(&serde_json::to_string(value)?);
        Ok(self)
    }

    /// `"key":` and an object, written until it is dropped.
    pub(super) fn object(&mut self, key: &str) -> Object<'_> {
        self.key(key);
        Object::opened(self.out, "}")
    }

    /// `"key":` and an array of one object, written until it is dropped.
    pub(super) fn one_object_array(&mut self, key: &str) -> Object<'_> {
        self.key(key);
        self.out.push('[');
        Object::opened(self.out, "}]")
    }

    fn key(&mut self, key: &str) {
        if !self.empty {
            self.out.push(',');
        }
        self.empty = false;
        push_string(self.out, key);
        self.out.push(':');
    }
}

impl Drop for Object<'_> {
    fn drop(&mut self) {
        self.out.push_str(self.close);
    }
}

/// A JSON string's contents being written: each piece of text escaped as it comes.
pub(super) struct Escaped<'a>(&'a mut String);

impl TextSink for Escaped<'_> {
    fn reserve(&mut self, additional: usize) {
        self.0.reserve(additional);
    }

    fn push_text(&mut self, piece: &str) {
        push_escaped(self.0, piece);
    }

    /// The lines escaped in one pass: each `\n` found among the bytes to escape starts the
    /// next line's gutter, so that the body is neither split first nor scanned twice.
    fn push_lines(&mut self, body: &str, first: u64, numbered: bool) {
        let mut number = itoa::Buffer::new();
        let mut line_number = first;
        let mut gutter = |out: &mut String, line_number: u64| {
            out.push_str("\\n");
            if numbered {
                out.push_str(number.format(line_number));
                out.push_str("\\t");
            }
        };
        gutter(self.0, line_number);
        escape_each(self.0, body, |out, byte| match byte {
            b'\n' => {
                line_number += 1;
                gutter(out, line_number);
            }
            byte => push_escape(out, byte),
        });
    }
}

/// Appends `text` as a JSON string.
fn push_string(out: &mut String, text: &str) {
    out.reserve(text.len() + 2);
    out.push('"');
    push_escaped(out, text);
    out.push('"');
}

/// Appends `text` escaped, as inside a JSON string.
fn push_escaped(out: &mut String, text: &str) {
    escape_each(out, text, push_escape);
}

/// Appends `text`, each byte that JSON escapes written by `escape`.
fn escape_each(out: &mut String, text: &str, mut escape: impl FnMut(&mut String, u8)) {
    let mut rest = text;
    // Each byte escaped is ASCII: the text around it is split between characters.
    while let Some(at) = first_to_escape(rest.as_bytes()) {
        out.push_str(&rest[..at]);
        escape(out, rest.as_bytes()[at]);
        rest = &rest[at + 1..];
    }
    out.push_str(rest);
}

const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);

/// Where the first byte of `bytes` that JSON escapes (a control character, `"` or `\`) is:
/// eight bytes at a time, then the few left one by one.
fn first_to_escape(bytes: &[u8]) -> Option<usize> {
    let mut words = bytes.chunks_exact(8);
    for (index, word) in words.by_ref().enumerate() {
        let marks = escape_marks(u64::from_le_bytes(word.try_into().expect("eight bytes")));
        if marks != 0 {
            // The lowest mark is exact (a false one can only follow a true one).
            return Some(index * 8 + marks.trailing_zeros() as usize / 8);
        }
    }
    let tail = words.remainder();
    let position = tail.iter().position(|&byte| needs_escape(byte))?;
    Some(bytes.len() - tail.len() + position)
}

/// The high bit of each byte of `word` (read little-endian) that may need escaping.
fn escape_marks(word: u64) -> u64 {
    let zero_bytes = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    let below_space = word.wrapping_sub(ONES * 0x20) & !word & HIGHS;
    below_space
        | zero_bytes(word ^ (ONES * u64::from(b'"')))
        | zero_bytes(word ^ (ONES * u64::from(b'\\')))
}

fn needs_escape(byte: u8) -> bool {
    byte < 0x20 || byte == b'"' || byte == b'\\'
}

/// `\` and what escapes `byte`: its short form, else `u00XX`.
fn push_escape(out: &mut String, byte: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let short = match byte {
        b'"' => '"',
        b'\\' => '\\',
        0x08 => 'b',
        0x0c => 'f',
        b'\n' => 'n',
        b'\r' => 'r',
        b'\t' => 't',
        _ => {
            let hex = |nibble: u8| char::from(HEX[usize::from(nibble)]);
            out.push_str("\\u00");
            out.push(hex(byte >> 4));
            out.push(hex(byte & 0xf));
            return;
        }
    };
    out.push('\\');
    out.push(short);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn escaped(text: &str) -> String {
        let mut out = String::new();
        push_string(&mut out, text);
        out
    }

    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        let mut samples: Vec<String> = (0u8..=0x7f).map(|b| char::from(b).to_string()).collect();
        samples.extend(
            [
                "",
                "plain ascii, longer than one word of eight",
                "tab\there \"quoted\" back\\slash \u{1b}[0m \u{2028} \u{1F600} é",
                "\n\n\n\n\n\n\n\n\n",
                "1234567\"",
                "12345678\\",
                "\u{7f}\u{80}\u{ff}\u{100}",
            ]
            .map(String::from),
        );
        for position in 0..17 {
            for special in ["\"", "\\", "\u{0}", "\u{1f}", "\n", "é"] {
                samples.push(format!(
                    "{}{special}{}",
                    "a".repeat(position),
                    "b".repeat(16 - position)
                ));
            }
        }
        for sample in samples {
            assert_eq!(
                escaped(&sample),
                serde_json::to_string(&sample).unwrap(),
                "{sample:?}"
            );
        }
    }

    #[test]
    fn lines_are_escaped_as_their_text_is() {
        let bodies = [
            "",
            "one line",
            "a\nb",
            "\n\n",
            "  const a = \"x\\y\";\n\tindented \u{1b}[0m\r\n\u{2028} é \u{1F600}\nlast",
            "a line longer than one word of eight bytes\nand \"another\" one, also long\n",
        ];
        for body in bodies {
            for (first, numbered) in [(1, true), (9, true), (99_999, true), (1, false)] {
                let mut text = String::new();
                text.push_lines(body, first, numbered);
                let mut out = String::new();
                Escaped(&mut out).push_lines(body, first, numbered);
                let string = escaped(&text);
                let contents = &string[1..string.len() - 1];
                assert_eq!(out, contents, "{body:?} {first}");
            }
        }
    }

    #[test]
    fn objects_close_in_order() {
        let mut out = String::new();
        {
            let mut outer = Object::new(&mut out);
            {
                let mut inner = outer.object("a");
                inner
                    .one_object_array("list")
                    .string("k", "v")
                    .string("l", "w");
                inner.value("n", &1).unwrap();
            }
            outer.string("b", "c");
        }
        assert_eq!(out, r#"{"a":{"list":[{"k":"v","l":"w"}],"n":1},"b":"c"}"#);
    }
}
