//! A PDF lexer just fine enough to count what lopdf's parser would build from some bytes:
//! it tells containers, operands and keywords apart, and skips strings, names and comments
//! as the PDF syntax does. It never allocates, and each call to `next` moves forward.

/// A token of PDF syntax, as far as counting needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Token<'a> {
    /// `[` or `<<`.
    Open,
    /// `]` or `>>`.
    Close,
    /// A number, a name, a string, `true`, `false`, `null`, `R` or a stray delimiter: what
    /// lopdf builds one object of, or nothing.
    Operand,
    /// Any other run of regular characters: an operator in a content stream, a keyword
    /// (`obj`, `endobj`, `stream`, `trailer`...) elsewhere.
    Keyword(&'a [u8]),
}

/// The tokens of some bytes, from a position.
pub(super) struct Lexer<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Lexer<'a> {
    pub(super) fn new(bytes: &'a [u8], at: usize) -> Self {
        Self {
            bytes,
            at: at.min(bytes.len()),
        }
    }

    /// Where the next token starts, or the end.
    pub(super) fn position(&self) -> usize {
        self.at
    }

    fn skip_space_and_comments(&mut self) {
        while let Some(&byte) = self.bytes.get(self.at) {
            if is_white(byte) {
                self.at += 1;
            } else if byte == b'%' {
                let rest = &self.bytes[self.at..];
                self.at += memchr::memchr2(b'\n', b'\r', rest).unwrap_or(rest.len());
            } else {
                break;
            }
        }
    }

    /// The end of the literal string opening at `self.at`: parentheses nest, a backslash
    /// escapes the byte after it, and one that never closes runs to the end.
    fn literal_string_end(&self) -> usize {
        let mut depth = 0usize;
        let mut at = self.at;
        while let Some(&byte) = self.bytes.get(at) {
            match byte {
                b'\\' => at += 1,
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        return at + 1;
                    }
                }
                _ => {}
            }
            at += 1;
        }
        self.bytes.len()
    }

    fn regular_run_end(&self, from: usize) -> usize {
        self.bytes[from..]
            .iter()
            .position(|&byte| is_white(byte) || is_delimiter(byte))
            .map_or(self.bytes.len(), |len| from + len)
    }
}

impl<'a> Iterator for Lexer<'a> {
    type Item = Token<'a>;

    fn next(&mut self) -> Option<Token<'a>> {
        self.skip_space_and_comments();
        let start = self.at;
        let byte = *self.bytes.get(start)?;
        let next = self.bytes.get(start + 1).copied();
        let (token, end) = match byte {
            b'[' => (Token::Open, start + 1),
            b']' => (Token::Close, start + 1),
            b'<' if next == Some(b'<') => (Token::Open, start + 2),
            b'>' if next == Some(b'>') => (Token::Close, start + 2),
            b'<' => {
                let rest = &self.bytes[start..];
                let end = memchr::memchr(b'>', rest).map_or(self.bytes.len(), |at| start + at + 1);
                (Token::Operand, end)
            }
            b'(' => (Token::Operand, self.literal_string_end()),
            b'/' => (Token::Operand, self.regular_run_end(start + 1)),
            _ if is_delimiter(byte) => (Token::Operand, start + 1),
            _ => {
                let end = self.regular_run_end(start);
                let word = &self.bytes[start..end];
                let operand = matches!(byte, b'0'..=b'9' | b'+' | b'-' | b'.')
                    || matches!(word, b"true" | b"false" | b"null" | b"R");
                let token = if operand {
                    Token::Operand
                } else {
                    Token::Keyword(word)
                };
                (token, end)
            }
        };
        self.at = end;
        Some(token)
    }
}

/// PDF's white-space characters (ISO 32000-1, table 1).
pub(super) fn is_white(byte: u8) -> bool {
    matches!(byte, b'\0' | b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}

/// PDF's delimiter characters (ISO 32000-1, table 2).
pub(super) fn is_delimiter(byte: u8) -> bool {
    matches!(
        byte,
        b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b'/' | b'%'
    )
}

#[cfg(test)]
mod tests {
    use super::Token::{Close, Keyword, Open, Operand};
    use super::*;

    fn tokens(bytes: &[u8]) -> Vec<Token<'_>> {
        Lexer::new(bytes, 0).collect()
    }

    #[test]
    fn containers_operands_and_keywords_are_told_apart() {
        assert_eq!(
            tokens(b"1 0 obj << /Kids [3 0 R] /N -2.5 /T (a) /H <00ff> >> endobj"),
            [
                Operand,
                Operand,
                Keyword(b"obj"),
                Open,
                Operand,
                Open,
                Operand,
                Operand,
                Operand,
                Close,
                Operand,
                Operand,
                Operand,
                Operand,
                Operand,
                Operand,
                Close,
                Keyword(b"endobj"),
            ]
        );
    }

    #[test]
    fn strings_nest_and_escape_and_comments_end_at_the_line() {
        assert_eq!(
            tokens(b"(a (b) \\) [ obj) % [ [ [\n] true null Tj"),
            [Operand, Close, Operand, Operand, Keyword(b"Tj")]
        );
    }

    #[test]
    fn what_never_closes_runs_to_the_end() {
        assert_eq!(tokens(b"(open [ [ ["), [Operand]);
        assert_eq!(tokens(b"<00 [ [ ["), [Operand]);
        assert_eq!(tokens(b"% only a comment"), []);
    }

    #[test]
    fn a_lexer_may_start_anywhere_and_always_moves_on() {
        let bytes = b"<< >> ) } { ] [ /";
        for start in 0..=bytes.len() {
            let mut lexer = Lexer::new(bytes, start);
            let mut last = lexer.position();
            while lexer.next().is_some() {
                assert!(lexer.position() > last);
                last = lexer.position();
            }
        }
    }
}
