//! The answer's JSON, written key by key into its line. `serde_json` escapes a string one
//! byte at a time, which for a window's text (twice, with `structuredContent`) cost more than
//! the rest of the answer; here the runs with nothing to escape are found eight bytes at a
//! time and copied whole. Small values (the id, `meta`, a continuation) go through
//! `serde_json`. The escapes are `JSON.stringify`'s for a well-formed string.

use serde::Serialize;

/// A JSON object being written, its keys in the order given; it is closed when it is
/// dropped.
pub(super) struct Object<'a> {
    out: &'a mut Vec<u8>,
    empty: bool,
    /// What closes it: `}`, or `}]` for the one object of an array.
    close: &'static [u8],
}

impl<'a> Object<'a> {
    /// An object written at the end of `out`.
    pub(super) fn new(out: &'a mut Vec<u8>) -> Object<'a> {
        Object::opened(out, b"}")
    }

    fn opened(out: &'a mut Vec<u8>, close: &'static [u8]) -> Object<'a> {
        out.push(b'{');
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

    /// `"key":` and `value` as `serde_json` writes it.
    pub(super) fn value(
        &mut self,
        key: &str,
        value: &impl Serialize,
    ) -> serde_json::Result<&mut Self> {
        self.key(key);
        serde_json::to_writer(&mut *self.out, value)?;
        Ok(self)
    }

    /// `"key":` and an object, written until it is dropped.
    pub(super) fn object(&mut self, key: &str) -> Object<'_> {
        self.key(key);
        Object::opened(self.out, b"}")
    }

    /// `"key":` and an array of one object, written until it is dropped.
    pub(super) fn one_object_array(&mut self, key: &str) -> Object<'_> {
        self.key(key);
        self.out.push(b'[');
        Object::opened(self.out, b"}]")
    }

    fn key(&mut self, key: &str) {
        if !self.empty {
            self.out.push(b',');
        }
        self.empty = false;
        push_string(self.out, key);
        self.out.push(b':');
    }
}

impl Drop for Object<'_> {
    fn drop(&mut self) {
        self.out.extend_from_slice(self.close);
    }
}

/// Appends `text` as a JSON string.
pub(super) fn push_string(out: &mut Vec<u8>, text: &str) {
    let bytes = text.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut rest = bytes;
    while let Some(at) = first_to_escape(rest) {
        out.extend_from_slice(&rest[..at]);
        push_escape(out, rest[at]);
        rest = &rest[at + 1..];
    }
    out.extend_from_slice(rest);
    out.push(b'"');
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
fn push_escape(out: &mut Vec<u8>, byte: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let short = match byte {
        b'"' => b'"',
        b'\\' => b'\\',
        0x08 => b'b',
        0x0c => b'f',
        b'\n' => b'n',
        b'\r' => b'r',
        b'\t' => b't',
        _ => {
            let hex = |nibble: u8| HEX[usize::from(nibble)];
            out.extend_from_slice(&[b'\\', b'u', b'0', b'0', hex(byte >> 4), hex(byte & 0xf)]);
            return;
        }
    };
    out.extend_from_slice(&[b'\\', short]);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn escaped(text: &str) -> String {
        let mut out = Vec::new();
        push_string(&mut out, text);
        String::from_utf8(out).unwrap()
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
    fn objects_close_in_order() {
        let mut out = Vec::new();
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
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"a":{"list":[{"k":"v","l":"w"}],"n":1},"b":"c"}"#
        );
    }
}
