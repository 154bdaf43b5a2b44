//! An estimate of how many tokens a text costs a model, without its tokenizer: the text is
//! split as the o200k_base and cl100k_base tokenizers split it before their byte-pair merges
//! (runs of letters with one leading space or sign, numbers of up to three digits, runs of
//! signs, of spaces, of line breaks), and each piece is priced by what it is made of. The
//! prices were fitted to exact counts of a corpus of code, prose, minified JavaScript, JSON,
//! CJK text and logs (`benchmark/tokens.mjs` has the corpus and the error; the package's tests
//! hold its 95th percentile within 10% of the exact count for each kind). Linear in the text,
//! one pass, no allocation.

use crate::render;

/// Which tokenizer's counts an estimate stands for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Tokenizer {
    /// GPT-4o's and later OpenAI models' (and a fair stand-in for other current models').
    #[default]
    O200kBase,
    /// GPT-4's and GPT-3.5's.
    Cl100kBase,
}

/// The price of each kind of piece, in tokens.
struct Prices {
    /// A run of letters led by a sign other than a space, by the sign: other, `_`, `.`, `-`,
    /// `/`, `"`.
    lead: [f32; 6],
    /// Letters a word may have and still be one token.
    short_word: f32,
    /// Each letter past `short_word`.
    per_long_letter: f32,
    /// A word of capitals only.
    capitals: f32,
    /// Each pair of neighbouring letters that is rare in English ([`COMMON_PAIRS`]).
    rare_pair: f32,
    /// A run with Han characters, kana or Hangul: its base and each character of each.
    cjk_run: f32,
    han: f32,
    kana: f32,
    hangul: f32,
    /// Each other letter in such a run.
    cjk_other: f32,
    /// Three signs, and the signs per token of a longer run.
    three_signs: f32,
    signs_per_token: f32,
    /// Signs per token of a run of one sign repeated (`-----`, `=====`).
    repeated_per_token: f32,
}

const O200K: Prices = Prices {
    lead: [0.082, 0.567, 0.221, 0.432, 0.48, 0.5],
    short_word: 11.3,
    per_long_letter: 0.0864,
    capitals: 1.44,
    rare_pair: 0.1257,
    cjk_run: 0.1006,
    han: 0.5587,
    kana: 0.48,
    hangul: 0.48,
    cjk_other: 0.2095,
    three_signs: 1.165,
    signs_per_token: 1.739,
    repeated_per_token: 16.0,
};

const CL100K: Prices = Prices {
    lead: [0.425, 0.708, 0.0202, 0.454, 0.1296, 0.5],
    short_word: 16.3,
    per_long_letter: 0.0792,
    capitals: 0.309,
    rare_pair: 0.2781,
    cjk_run: 0.3626,
    han: 0.8742,
    kana: 0.8,
    hangul: 0.8,
    cjk_other: 0.5,
    three_signs: 0.0786,
    signs_per_token: 2.541,
    repeated_per_token: 20.0,
};

/// Pairs of lowercase letters common in English words and identifiers (the 150 most
/// frequent in this package's own sources and documents), as a bit per pair: bit `b` of
/// `COMMON_PAIRS[a]` for the pair of letters `a`, `b` (0 for `a`).
const COMMON_PAIRS: [u32; 26] = common_pairs(
    b"th in er re le te en he es st on at ne ed ar se or de nd al et nt ea an ti me it ro li \
      ra co ng fi il rr ad ma pa el ta ec un rt ex pe ca tr ut ct io ge ts as ll om ns ou ol \
      ve um oo ch ac ue ri ot be ha am ce di ay ur op to xt us lu fo nc no od ow nu pt si lo \
      ul yt la ic ss is by mb rs wi em ag ap im ke hi pu na wh va ef ir tu pr ru rn ho mi ls \
      ry fr id ck ep mp lf ie so do mo ai su lt sp ig ia bo rg ty oc fa ba ds ub sh wr rm ni \
      iv cr po ze fu",
);

const fn common_pairs(list: &[u8]) -> [u32; 26] {
    let mut table = [0u32; 26];
    let mut i = 0;
    while i + 1 < list.len() {
        let (a, b) = (list[i], list[i + 1]);
        if a.is_ascii_lowercase() && b.is_ascii_lowercase() {
            table[(a - b'a') as usize] |= 1 << (b - b'a');
            i += 3;
        } else {
            i += 1;
        }
    }
    table
}

/// The estimated tokens of `text` for `tokenizer`.
pub fn estimate(text: &str, tokenizer: Tokenizer) -> usize {
    let mut total = 0.0f32;
    for_each_piece(text, tokenizer, |cost, _| {
        total += cost;
        true
    });
    total.ceil() as usize
}

/// The estimated tokens of `text` for `tokenizer`, counted only until they reach `enough`:
/// at least `enough` when the whole text has as many, else all of them.
pub fn estimate_up_to(text: &str, tokenizer: Tokenizer, enough: usize) -> usize {
    let mut total = 0.0f32;
    for_each_piece(text, tokenizer, |cost, _| {
        total += cost;
        (total.ceil() as usize) < enough
    });
    total.ceil() as usize
}

/// Tokens of `text` line by line: calls `at_line_end(bytes, tokens)` after each `\n`, with the
/// bytes of `text` up to and including it and the estimated tokens of those bytes, until it
/// returns `false`. The pieces a line break ends are counted with the line before it.
pub fn line_ends(
    text: &str,
    tokenizer: Tokenizer,
    mut at_line_end: impl FnMut(usize, f32) -> bool,
) {
    let mut total = 0.0f32;
    for_each_piece(text, tokenizer, |cost, piece_end| {
        total += cost;
        text.as_bytes()[..piece_end].last() != Some(&b'\n') || at_line_end(piece_end, total)
    });
}

/// The longest prefix of `text` (a char boundary) whose estimated tokens are at most `budget`.
/// A piece over what is left of the budget is cut in proportion to its price (a run of one
/// letter or sign may be as long as the text).
pub fn prefix_within(text: &str, tokenizer: Tokenizer, budget: f32) -> usize {
    let (mut total, mut end) = (0.0f32, 0);
    for_each_piece(text, tokenizer, |cost, piece_end| {
        if total + cost <= budget {
            (total, end) = (total + cost, piece_end);
            return true;
        }
        let share = ((budget - total) / cost).clamp(0.0, 1.0);
        let cut = end + ((piece_end - end) as f32 * share) as usize;
        end = render::cut_at_char_boundary(text, cut).len();
        false
    });
    end
}

/// A toolkit's budget of tokens for one read: what the model is given for it (the lines, their
/// numbers, the header and the closing line) is estimated at most `tokens`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TokenBudget {
    pub tokens: usize,
    pub tokenizer: Tokenizer,
    /// Whether each line costs a gutter beside its text (its number and a tab, or the escapes
    /// of JSON).
    pub numbered: bool,
}

/// Tokens an answer spends beside its lines, its path not counted: the header's words and
/// numbers, a closing line naming the next call, a note.
const FRAME_TOKENS: f32 = 96.0;

/// The share of a budget left for the estimate's error: the 95th percentile of the corpus's
/// errors is within it (and no read of it went over its budget by the exact count).
const ESTIMATE_MARGIN: f32 = 0.1;

/// Tokens a cut line's marker and the digits of its numbers cost at most.
const MARKER_TOKENS: f32 = 48.0;

/// The most bytes of text a budget admits per token, whatever their estimate: a run of spaces
/// is one token per 111 bytes in o200k_base, so the estimate alone would let 25,000 tokens be
/// megabytes. Text is 2-6 bytes a token; 16 cuts nothing real and bounds an answer's bytes.
const MOST_BYTES_PER_TOKEN: usize = 16;

/// How a window of lines fits a [`TokenBudget`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenFit {
    /// All of it.
    Whole,
    /// Its first `bytes` of text: whole lines, at least one.
    Lines { bytes: usize },
    /// The first `bytes` of its first line (a char boundary), which is to be cut there.
    FirstLine { bytes: usize },
}

impl TokenBudget {
    /// The tokens an answer's text (its path and lines, or an outline's entries) may take:
    /// the budget less the estimate's margin and what the header and closing lines spend.
    pub(crate) fn frame(&self) -> f32 {
        self.tokens as f32 * (1.0 - ESTIMATE_MARGIN) - FRAME_TOKENS
    }

    /// How `content`, the window's `lines` lines of text from line `first_line` (each keeping
    /// its `\n`), of the file at `path`, fits. Text (and path) no longer in bytes than the
    /// budget's room fits without being looked at: no token is shorter than a byte.
    pub fn fit(&self, path: &str, content: &str, first_line: u64, lines: u32) -> TokenFit {
        let most_bytes = self.tokens.saturating_mul(MOST_BYTES_PER_TOKEN);
        let frame = self.frame();
        // A cut line's content has its marker's line too.
        let lines = u64::from(lines) + 1;
        let widest_gutter = self.gutter(first_line.saturating_add(lines));
        let most = (content.len() + path.len()) as f32 + lines as f32 * widest_gutter;
        if most <= frame {
            return TokenFit::Whole;
        }
        let room = frame - estimate(path, self.tokenizer) as f32;
        let (mut kept, mut kept_tokens, mut line, mut gutters) = (0, 0.0, first_line, 0.0);
        line_ends(content, self.tokenizer, |bytes, tokens| {
            let with_this = gutters + self.gutter(line);
            let within = tokens + with_this <= room && bytes <= most_bytes;
            if within {
                (kept, kept_tokens, line, gutters) = (bytes, tokens, line + 1, with_this);
            }
            within
        });
        // A last line without a line break ends no line above: it fits if all of it does
        // (estimated no further than the room left).
        let rest = &content[kept..];
        let last_fits = content.len() <= most_bytes && !rest.contains('\n') && {
            let left = room - kept_tokens - gutters - self.gutter(line);
            prefix_within(rest, self.tokenizer, left) == rest.len()
        };
        if kept == content.len() || last_fits {
            return TokenFit::Whole;
        }
        if kept > 0 {
            return TokenFit::Lines { bytes: kept };
        }
        let first = content.split('\n').next().unwrap_or_default();
        let head_room = room - MARKER_TOKENS - self.gutter(first_line);
        let within = prefix_within(first, self.tokenizer, head_room.max(0.0));
        TokenFit::FirstLine {
            bytes: render::cut_at_char_boundary(first, within.min(most_bytes)).len(),
        }
    }

    /// The tokens of line `number`'s gutter: its digits by threes, and the tab.
    fn gutter(&self, number: u64) -> f32 {
        if !self.numbered {
            return 0.0;
        }
        let digits = number.checked_ilog10().unwrap_or(0) + 1;
        (digits.div_ceil(3) + 1) as f32
    }
}

/// What a char is to the pre-tokenizer.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Upper,
    Lower,
    /// A letter without case (Han, kana, Hangul, marks...): it goes with either.
    Caseless,
    Digit,
    LineBreak,
    Space,
    Sign,
}

#[inline]
fn kind(c: char) -> Kind {
    if c.is_ascii() {
        return match c {
            'A'..='Z' => Kind::Upper,
            'a'..='z' => Kind::Lower,
            '0'..='9' => Kind::Digit,
            '\n' | '\r' => Kind::LineBreak,
            ' ' | '\t' | '\x0b' | '\x0c' => Kind::Space,
            _ => Kind::Sign,
        };
    }
    if c.is_alphabetic() {
        if c.is_uppercase() {
            Kind::Upper
        } else if c.is_lowercase() {
            Kind::Lower
        } else {
            Kind::Caseless
        }
    } else if c.is_numeric() {
        Kind::Digit
    } else if c.is_whitespace() {
        if matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}') {
            Kind::LineBreak
        } else {
            Kind::Space
        }
    } else {
        Kind::Sign
    }
}

#[inline]
fn is_letter(kind: Kind) -> bool {
    matches!(kind, Kind::Upper | Kind::Lower | Kind::Caseless)
}

/// Walks `text` piece by piece, calling `priced(cost, end)` with each piece's price and the
/// byte where it ends, until it returns `false`.
fn for_each_piece(text: &str, tokenizer: Tokenizer, mut priced: impl FnMut(f32, usize) -> bool) {
    let prices = match tokenizer {
        Tokenizer::O200kBase => &O200K,
        Tokenizer::Cl100kBase => &CL100K,
    };
    let mut chars = Chars::new(text);
    while let Some((start, c)) = chars.peek() {
        let this = kind(c);
        // What follows a space or a sign decides its piece (looked at only then).
        let next = || chars.peek_second().map(|(_, c)| kind(c));
        let cost = match this {
            _ if is_letter(this) => long_piece_floor(word(&mut chars, None, prices), start, &chars),
            Kind::Digit => {
                chars.take_while_max(|k| k == Kind::Digit, 3);
                1.0
            }
            Kind::LineBreak => line_breaks(&mut chars),
            _ => match (this, next()) {
                (_, Some(next)) if is_letter(next) => {
                    chars.next();
                    long_piece_floor(word(&mut chars, Some(c), prices), start, &chars)
                }
                (Kind::Space, Some(Kind::Sign)) if c == ' ' => {
                    chars.next();
                    signs(&mut chars, prices)
                }
                (Kind::Sign, _) => signs(&mut chars, prices),
                _ => spaces(&mut chars, start),
            },
        };
        if !priced(cost, chars.position()) {
            return;
        }
    }
}

/// Bytes past which a piece is not natural text (a run of one letter, a hash, a hostile file)
/// and is priced at least [`LONG_PIECE_BYTES_PER_TOKEN`] bytes a token: the prices fitted to
/// words would put `wwww...` at a sixth of its tokens and `ééé...` at a fifth.
const LONG_PIECE_BYTES: usize = 32;
const LONG_PIECE_BYTES_PER_TOKEN: f32 = 2.0;

/// `price` of the piece from `start` to where `chars` stands, or more for a long piece
/// ([`LONG_PIECE_BYTES`]) without Han, kana or Hangul (whose prices hold at any length).
fn long_piece_floor(price: f32, start: usize, chars: &Chars) -> f32 {
    let bytes = chars.position() - start;
    if bytes <= LONG_PIECE_BYTES || chars.text[start..chars.position()].chars().any(is_cjk) {
        return price;
    }
    price.max(bytes as f32 / LONG_PIECE_BYTES_PER_TOKEN)
}

fn is_cjk(c: char) -> bool {
    matches!(c, '\u{3400}'..='\u{9fff}' | '\u{3040}'..='\u{30ff}' | '\u{ac00}'..='\u{d7af}')
}

/// A word: capitals then small letters (letters without case with either), after `lead`.
fn word(chars: &mut Chars, lead: Option<char>, prices: &Prices) -> f32 {
    let mut shape = WordShape::default();
    let mut seen_lower = false;
    // ASCII letters, most of any code's words, by their bytes; the loop below goes on from
    // a letter that is not ASCII, and stops where this one stopped.
    let bytes = chars.text.as_bytes();
    while let Some(&byte) = bytes.get(chars.at) {
        let lower = byte.is_ascii_lowercase();
        if !(lower || byte.is_ascii_uppercase() && !seen_lower) {
            break;
        }
        seen_lower |= lower;
        shape.add_ascii_letter(byte);
        chars.at += 1;
    }
    while let Some((_, c)) = chars.peek() {
        let k = kind(c);
        if !is_letter(k) || (k == Kind::Upper && seen_lower) {
            break;
        }
        seen_lower |= k == Kind::Lower;
        shape.add(c);
        chars.next();
    }
    let lead_price = match lead {
        None | Some(' ') => 0.0,
        Some('_') => prices.lead[1],
        Some('.') => prices.lead[2],
        Some('-') => prices.lead[3],
        Some('/') => prices.lead[4],
        Some('"') => prices.lead[5],
        Some(_) => prices.lead[0],
    };
    lead_price + shape.price(prices)
}

/// What a word is made of, as its price needs it.
#[derive(Default)]
struct WordShape {
    ascii_letters: u32,
    lowercase_ascii: u32,
    han: u32,
    kana: u32,
    hangul: u32,
    other: u32,
    rare_pairs: u32,
    previous: Option<u8>,
}

impl WordShape {
    fn add(&mut self, c: char) {
        match c {
            'a'..='z' | 'A'..='Z' => self.add_ascii_letter(c as u8),
            '\u{3400}'..='\u{9fff}' => self.han += 1,
            '\u{3040}'..='\u{30ff}' => self.kana += 1,
            '\u{ac00}'..='\u{d7af}' => self.hangul += 1,
            _ if c.is_ascii() => {}
            _ => self.other += 1,
        }
    }

    /// `letter`, an ASCII letter.
    #[inline]
    fn add_ascii_letter(&mut self, letter: u8) {
        self.ascii_letters += 1;
        let small = letter.to_ascii_lowercase() - b'a';
        self.lowercase_ascii += u32::from(letter.is_ascii_lowercase());
        if let Some(before) = self.previous {
            let common = COMMON_PAIRS[before as usize] & (1 << small) != 0;
            self.rare_pairs += u32::from(!common);
        }
        self.previous = Some(small);
    }

    fn price(&self, prices: &Prices) -> f32 {
        if self.han + self.kana + self.hangul > 0 {
            return prices.cjk_run
                + self.han as f32 * prices.han
                + self.kana as f32 * prices.kana
                + self.hangul as f32 * prices.hangul
                + (self.ascii_letters + self.other) as f32 * prices.cjk_other;
        }
        let letters = (self.ascii_letters + 2 * self.other) as f32;
        let capitals = self.lowercase_ascii == 0 && self.ascii_letters > 1;
        let length = match letters <= prices.short_word {
            true => 1.0,
            false => 1.0 + (letters - prices.short_word) * prices.per_long_letter,
        };
        length
            + f32::from(u8::from(capitals)) * prices.capitals
            + self.rare_pairs as f32 * prices.rare_pair
    }
}

/// A run of signs (after the space it may start with), and the line breaks that follow it.
fn signs(chars: &mut Chars, prices: &Prices) -> f32 {
    let mut count = 0u32;
    let mut first = None;
    let mut repeated = true;
    while let Some((_, c)) = chars.peek() {
        if kind(c) != Kind::Sign {
            break;
        }
        let first = *first.get_or_insert(c);
        repeated &= c == first;
        count += c.len_utf16() as u32;
        chars.next();
    }
    // The tokenizers take the slashes after the line breaks too (`;\n//`); stopping at the
    // breaks keeps every line's end a piece's end, for a price a little higher.
    chars.take_while_max(|k| k == Kind::LineBreak, usize::MAX);
    let count = count as f32;
    match count {
        _ if count > 3.0 && repeated => (count / prices.repeated_per_token).ceil(),
        _ if count <= 2.0 => 1.0,
        _ if count <= 3.0 => prices.three_signs,
        // A long run of mixed signs is no code's: up to 0.7 tokens a sign.
        _ if count > LONG_PIECE_BYTES as f32 => count / 1.4,
        _ => count / prices.signs_per_token,
    }
}

/// Line breaks, with the spaces before them.
fn line_breaks(chars: &mut Chars) -> f32 {
    let start = chars.position();
    chars.take_while_max(|k| matches!(k, Kind::LineBreak), usize::MAX);
    breaks_price(chars.position() - start)
}

fn breaks_price(len: usize) -> f32 {
    if len <= 4 { 1.0 } else { len as f32 / 3.0 }
}

/// Spaces from `start`: with the line breaks after them, up to the last; else all but the
/// last before a letter or a sign (it leads the next piece), or all.
fn spaces(chars: &mut Chars, start: usize) -> f32 {
    let mut end_of_breaks = None;
    let mut last_space = start;
    let mut run = chars.clone();
    while let Some((at, c)) = run.peek() {
        match kind(c) {
            Kind::LineBreak => {
                run.next();
                end_of_breaks = Some(run.position());
            }
            Kind::Space => {
                last_space = at;
                run.next();
            }
            _ => break,
        }
    }
    if let Some(end) = end_of_breaks {
        chars.advance_to(end);
        return breaks_price(end - start);
    }
    let followed = run.peek().is_some();
    let end = match followed && last_space > start {
        true => last_space,
        false => run.position(),
    };
    chars.advance_to(end);
    // The tokenizers have tokens for runs of up to about a hundred spaces.
    ((end - start) as f32 / 64.0).ceil().max(1.0)
}

/// A text's chars with their byte offsets, looking up to two ahead.
#[derive(Clone)]
struct Chars<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Chars<'a> {
    fn new(text: &'a str) -> Chars<'a> {
        Chars { text, at: 0 }
    }

    fn position(&self) -> usize {
        self.at
    }

    #[inline]
    fn peek(&self) -> Option<(usize, char)> {
        Self::char_at(self.text, self.at).map(|c| (self.at, c))
    }

    #[inline]
    fn peek_second(&self) -> Option<(usize, char)> {
        let first = Self::char_at(self.text, self.at)?;
        let at = self.at + first.len_utf8();
        Self::char_at(self.text, at).map(|c| (at, c))
    }

    /// The char at byte `at` (a char boundary), without decoding ASCII.
    #[inline]
    fn char_at(text: &str, at: usize) -> Option<char> {
        match text.as_bytes().get(at) {
            Some(&byte) if byte.is_ascii() => Some(char::from(byte)),
            Some(_) => text[at..].chars().next(),
            None => None,
        }
    }

    #[inline]
    fn next(&mut self) -> Option<(usize, char)> {
        let next = self.peek();
        if let Some((_, c)) = next {
            self.at += c.len_utf8();
        }
        next
    }

    fn advance_to(&mut self, at: usize) {
        self.at = at;
    }

    fn take_while_max(&mut self, wanted: impl Fn(Kind) -> bool, most: usize) {
        for _ in 0..most {
            match self.peek() {
                Some((_, c)) if wanted(kind(c)) => {
                    self.next();
                }
                _ => break,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_is_about_a_token_and_numbers_go_by_three_digits() {
        assert_eq!(estimate("hello", Tokenizer::O200kBase), 1);
        // Exactly 2 in both; the rare pairs of "world" price it a little over one.
        assert!((2..=3).contains(&estimate(" hello world", Tokenizer::O200kBase)));
        assert_eq!(estimate("1234567", Tokenizer::O200kBase), 3);
        assert_eq!(estimate("", Tokenizer::O200kBase), 0);
    }

    #[test]
    fn words_end_where_their_case_turns_whatever_their_letters() {
        let ends = |text: &str| {
            let mut ends = Vec::new();
            for_each_piece(text, Tokenizer::O200kBase, |_, end| {
                ends.push(end);
                true
            });
            ends
        };
        assert_eq!(ends("parseStatement"), [5, 14]);
        assert_eq!(ends("HTTPServer"), [10]);
        // A letter that is not ASCII goes on with the word, and the case still turns it.
        assert_eq!(ends("naïveCase"), [6, 10]);
        assert_eq!(ends("ÉtéX"), [5, 6]);
        assert_eq!(ends("a.bC_d"), [1, 3, 4, 6]);
    }

    #[test]
    fn the_estimate_never_panics_on_any_text() {
        for text in [
            "\u{0}",
            " ",
            "\n\n\n   ",
            "  x",
            "- -",
            "日本語のテキスト",
            "\r\n\r\n",
            "x\u{2028}y",
            "é́́́",
        ] {
            for tokenizer in [Tokenizer::O200kBase, Tokenizer::Cl100kBase] {
                let tokens = estimate(text, tokenizer);
                assert!(tokens <= text.len() * 2, "{text:?}: {tokens}");
            }
        }
    }

    #[test]
    fn an_estimate_up_to_a_count_stops_there() {
        let text = "let value = compute(alpha, beta);\n".repeat(1_000);
        let all = estimate(&text, Tokenizer::O200kBase);
        assert!(all > 5_000, "{all}");
        assert_eq!(estimate_up_to(&text, Tokenizer::O200kBase, all + 1), all);
        let counted = estimate_up_to(&text, Tokenizer::O200kBase, 100);
        assert!((100..110).contains(&counted), "{counted}");
    }

    #[test]
    fn line_ends_come_after_each_line_break() {
        let mut ends = Vec::new();
        line_ends("ab\ncd;\nef", Tokenizer::O200kBase, |bytes, _| {
            ends.push(bytes);
            true
        });
        assert_eq!(ends, vec![3, 7]);
    }

    #[test]
    fn a_piece_longer_than_the_budget_is_cut_in_proportion() {
        let text = "x".repeat(100_000);
        let whole = estimate(&text, Tokenizer::O200kBase) as f32;
        let end = prefix_within(&text, Tokenizer::O200kBase, whole / 4.0);
        assert!((20_000..=25_000).contains(&end), "{end}");
        let signs = "=".repeat(64_000);
        assert_eq!(prefix_within(&signs, Tokenizer::O200kBase, 1000.0), 16_000);
    }

    #[test]
    fn a_prefix_within_a_budget_ends_at_a_piece() {
        let text = "one two three four";
        let end = prefix_within(text, Tokenizer::O200kBase, 2.5);
        // "one" and " two" (with its rare pairs), and a share of " three" for what is left.
        assert!(
            text[..end].starts_with("one two") && end < "one two th".len(),
            "{end}"
        );
    }

    #[test]
    fn a_budget_admits_at_most_sixteen_bytes_a_token_however_cheap_the_text() {
        // A run of 1,000 spaces is 9 tokens in o200k_base: 1,000 tokens of them would be
        // 111 KB without the ceiling.
        let budget = TokenBudget {
            tokens: 1000,
            tokenizer: Tokenizer::O200kBase,
            numbered: true,
        };
        let lines = format!("{}x\n", " ".repeat(999)).repeat(100);
        match budget.fit("spaces.txt", &lines, 1, 100) {
            TokenFit::Lines { bytes } => assert!((15_000..=16_000).contains(&bytes), "{bytes}"),
            fit => panic!("{fit:?}"),
        }
        let one_line = format!("{}\u{e9}", " ".repeat(40_000));
        match budget.fit("one-line.txt", &one_line, 1, 1) {
            TokenFit::FirstLine { bytes } => assert_eq!(bytes, 16_000),
            fit => panic!("{fit:?}"),
        }
        let last_line = format!("x\n{}", " ".repeat(20_000));
        assert_eq!(
            budget.fit("last.txt", &last_line, 1, 2),
            TokenFit::Lines { bytes: 2 }
        );
    }
}
