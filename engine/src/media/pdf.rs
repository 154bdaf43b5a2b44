//! The text layer of a PDF's pages, for a model to read: page by page, a few pages per call.
//!
//! Parsing is `lopdf`'s; the text is walked out of each page's content stream (and the
//! forms it draws) here, so that lines break where the page moves to a new line (lopdf's
//! own `extract_text` runs a whole text object into one line) and so that one unreadable
//! font or operator costs its text, not the page. What lopdf spends on hostile input is
//! bounded from here: inflated sizes, fonts' `ToUnicode` maps, form nesting.

mod budget;
mod lex;

use budget::LoadFailure;
use lopdf::content::{Content, Operation};
use lopdf::{Document, Encoding, Object};
use std::collections::BTreeMap;

/// The most pages one call returns text of.
///
/// 20, as Claude Code's Read tool caps a PDF read at 20 pages: a page of prose is about
/// 500-750 tokens, so 20 pages are about 10-15k tokens, which fits beside a conversation,
/// and the caller's content budget still cuts a denser answer.
pub const MAX_PAGES_PER_CALL: u32 = 20;

/// How far into a file `%PDF-` may start: readers accept junk before the header, up to here.
const HEADER_SEARCH_BYTES: usize = 1024;

/// The most a font's `ToUnicode` map may inflate to: a whole CJK font's is about 1 MiB.
const MAX_FONT_MAP_BYTES: usize = 4 << 20;

/// The most character codes one `ToUnicode` map may cover. lopdf builds a reverse map entry
/// by entry for every code its ranges cover, so a map of a few bytes claiming the 32-bit
/// code space would take minutes and gigabytes; the 16-bit space (65,536 codes, which some
/// writers map whole) fits four times.
const MAX_CMAP_CODES: u64 = 1 << 18;

/// The most character codes all the `ToUnicode` maps read for one call may cover together:
/// lopdf reads a font's map again for every page that uses it.
const MAX_CMAP_CODES_PER_CALL: u64 = 1 << 21;

/// The most bytes the `ToUnicode` maps read for one call may inflate to, together (each is
/// inflated twice: here to count its codes, then by lopdf): a page that draws one form many
/// times reads the form's fonts each time.
const MAX_FONT_MAP_BYTES_PER_CALL: usize = 64 << 20;

/// What the `ToUnicode` maps read for one call may still cost.
struct FontMapBudget {
    codes_left: u64,
    bytes_left: usize,
}

/// The most one page's content streams may inflate to, together.
const MAX_PAGE_CONTENT_BYTES: usize = 16 << 20;

/// The most text kept of one page: a page of real text is a few kilobytes, and the caller
/// cuts the answer to its budget anyway; this only bounds what a crafted page costs.
const MAX_PAGE_TEXT_BYTES: usize = 256 << 10;

/// True when `bytes` begin like a PDF (`%PDF-` within the first 1024 bytes, as readers accept).
pub fn sniff(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(HEADER_SEARCH_BYTES)];
    memchr::memmem::find(head, b"%PDF-").is_some()
}

/// True when a PDF header (`%PDF-` and a version digit) starts a line within the first 1024
/// bytes: the stricter test that tells a PDF from text, where [`sniff`] is what a reader
/// accepts of a file already taken for a PDF. A source file or a note that only mentions the
/// header, inside a line, is text.
pub fn has_header_line(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(HEADER_SEARCH_BYTES)];
    memchr::memmem::find_iter(head, b"%PDF-").any(|at| {
        let line_start = at == 0 || matches!(head[at - 1], b'\n' | b'\r');
        line_start && head.get(at + 5).is_some_and(u8::is_ascii_digit)
    })
}

/// One page's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PdfPage {
    /// The page's number, 1-based.
    pub number: u32,
    /// The page's text, normalised; empty when the page has no text layer (a scan, or a
    /// page of drawings).
    pub text: String,
}

/// The text of some pages of a PDF.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PdfText {
    /// How many pages the whole document has.
    pub page_count: u32,
    /// The pages asked for, in order.
    pub pages: Vec<PdfPage>,
}

/// Why a PDF's text could not be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PdfError {
    /// The PDF needs a password to open.
    #[error("the PDF is encrypted")]
    Encrypted,
    /// The file is not a PDF that can be read; the string says what is wrong, in a few words.
    #[error("the PDF is corrupt: {0}")]
    Corrupt(String),
    /// Reading the PDF would take more than the limits allow: its objects would take more
    /// than [`budget::MAX_OBJECT_BYTES`] as lopdf holds them, or its object streams would
    /// inflate past [`budget::MAX_OBJECT_STREAM_BYTES`].
    #[error(
        "the PDF is too complex to read: its objects would take more than the {} MiB allowed",
        budget::MAX_OBJECT_BYTES >> 20
    )]
    TooComplex,
    /// The first page asked for is past the last page.
    #[error("page {first} is past the end: the PDF has {page_count} pages")]
    PageOutOfRange {
        /// The first page asked for, 1-based.
        first: u32,
        /// How many pages the PDF has.
        page_count: u32,
    },
}

/// The text of pages `first..=last` (1-based; `last` clamped to the page count and to
/// `first + MAX_PAGES_PER_CALL - 1`; a `first` of 0 is read as 1).
///
/// A PDF that opens without a password (including one with only an owner password, which
/// every reader opens) is read; one that needs a user password is [`PdfError::Encrypted`].
pub fn pdf_text(bytes: &[u8], first: u32, last: u32) -> Result<PdfText, PdfError> {
    let doc = load(bytes)?;
    let page_ids = doc.get_pages();
    let page_count = u32::try_from(page_ids.len()).unwrap_or(u32::MAX);
    if page_count == 0 {
        return Err(PdfError::Corrupt("it has no pages that can be read".into()));
    }
    let first = first.max(1);
    if first > page_count {
        return Err(PdfError::PageOutOfRange { first, page_count });
    }
    let last = last
        .max(first)
        .min(page_count)
        .min(first.saturating_add(MAX_PAGES_PER_CALL - 1));
    let mut font_maps = FontMapBudget {
        codes_left: MAX_CMAP_CODES_PER_CALL,
        bytes_left: MAX_FONT_MAP_BYTES_PER_CALL,
    };
    let pages = page_ids
        .range(first..=last)
        .map(|(&number, &id)| PdfPage {
            number,
            text: normalise(&page_text(&doc, id, &mut font_maps)),
        })
        .collect();
    Ok(PdfText { page_count, pages })
}

fn load(bytes: &[u8]) -> Result<Document, PdfError> {
    if !sniff(bytes) {
        return Err(PdfError::Corrupt("no %PDF- header".into()));
    }
    budget::check_file(bytes).map_err(too_complex)?;
    let doc = match budget::load(bytes, false).map_err(too_complex)? {
        Ok(doc) => doc,
        Err(LoadFailure::Encrypted) => return Err(PdfError::Encrypted),
        Err(LoadFailure::Lopdf(err)) => return Err(load_error(&err)),
    };
    // lopdf rebuilds a damaged file's cross-reference table when the page tree cannot be
    // reached, but only in a load without a filter: this is that retry.
    if doc.get_pages().is_empty()
        && let Ok(Ok(rebuilt)) = budget::load(bytes, true)
        && !rebuilt.get_pages().is_empty()
    {
        return Ok(rebuilt);
    }
    Ok(doc)
}

fn load_error(err: &lopdf::Error) -> PdfError {
    use lopdf::Error as E;
    match err {
        // lopdf 0.47 loads a PDF it cannot decrypt (still marked encrypted) rather than fail;
        // these are for a load that fails all the same.
        E::Decryption(_) | E::InvalidPassword | E::UnsupportedSecurityHandler(_) => {
            PdfError::Encrypted
        }
        E::Decompress(lopdf::DecompressError::MemoryLimitExceeded { .. }) => {
            PdfError::Corrupt("a stream inflates past the size limit".into())
        }
        E::Xref(_) | E::MissingXrefEntry => {
            PdfError::Corrupt("its cross-reference table cannot be read".into())
        }
        _ => PdfError::Corrupt(format!("it cannot be parsed ({err})")),
    }
}

fn too_complex(_: budget::Spent) -> PdfError {
    PdfError::TooComplex
}

/// The raw text of one page: what its content stream shows, and the forms it draws show,
/// lines broken where the text moves down. A page whose content or fonts cannot be read
/// gives what could be read.
fn page_text(doc: &Document, page_id: lopdf::ObjectId, font_maps: &mut FontMapBudget) -> String {
    let Ok(content) = doc.get_page_content_with_limit(page_id, MAX_PAGE_CONTENT_BYTES) else {
        return String::new();
    };
    let mut resources = Resources::default();
    for (name, font) in doc.get_page_fonts(page_id).unwrap_or_default() {
        resources.add_font(doc, name, font, font_maps);
    }
    if let Ok((inline, referenced)) = doc.get_page_resources(page_id) {
        let referenced = referenced
            .iter()
            .filter_map(|&id| doc.get_dictionary(id).ok());
        for dict in inline.into_iter().chain(referenced) {
            resources.add_forms(doc, dict);
        }
    }
    let mut walk = Walk {
        doc,
        walker: TextWalker::default(),
        content_left: MAX_PAGE_CONTENT_BYTES.saturating_sub(content.len()),
        forms_open: Vec::new(),
        font_maps,
    };
    walk.content(&content, &resources);
    walk.walker.out
}

/// How deep forms drawn in forms are followed: real documents nest one or two.
const MAX_FORM_DEPTH: usize = 4;

/// What a content stream's names refer to: its fonts' encodings, and its forms (form
/// XObjects, which draw content streams of their own).
#[derive(Default)]
struct Resources<'d> {
    encodings: BTreeMap<Vec<u8>, Encoding<'d>>,
    forms: BTreeMap<Vec<u8>, lopdf::ObjectId>,
}

impl<'d> Resources<'d> {
    /// The resources of a `/Resources` dictionary.
    fn of(doc: &'d Document, dict: &'d lopdf::Dictionary, font_maps: &mut FontMapBudget) -> Self {
        let mut resources = Self::default();
        if let Ok(fonts) = dict.get_deref(b"Font", doc).and_then(Object::as_dict) {
            for (name, font) in fonts {
                let font = match font {
                    Object::Reference(id) => doc.get_dictionary(*id).ok(),
                    Object::Dictionary(font) => Some(font),
                    _ => None,
                };
                if let Some(font) = font {
                    resources.add_font(doc, name.clone(), font, font_maps);
                }
            }
        }
        resources.add_forms(doc, dict);
        resources
    }

    fn add_font(
        &mut self,
        doc: &'d Document,
        name: Vec<u8>,
        font: &'d lopdf::Dictionary,
        font_maps: &mut FontMapBudget,
    ) {
        if self.encodings.contains_key(&name) || !charge_unicode_map(doc, font, font_maps) {
            return;
        }
        if let Ok(encoding) = font.get_font_encoding_with_limit(doc, MAX_FONT_MAP_BYTES) {
            self.encodings.insert(name, encoding);
        }
    }

    fn add_forms(&mut self, doc: &Document, resources: &lopdf::Dictionary) {
        let Ok(xobjects) = resources
            .get_deref(b"XObject", doc)
            .and_then(Object::as_dict)
        else {
            return;
        };
        for (name, xobject) in xobjects {
            let Object::Reference(id) = xobject else {
                continue;
            };
            let is_form = doc
                .get_object(*id)
                .and_then(Object::as_stream)
                .and_then(|form| form.dict.get(b"Subtype"))
                .and_then(Object::as_name)
                .is_ok_and(|subtype| subtype == b"Form");
            if is_form {
                self.forms.entry(name.clone()).or_insert(*id);
            }
        }
    }
}

/// A page's content streams being walked: the page's, then the forms it draws, depth first.
struct Walk<'d, 'c> {
    doc: &'d Document,
    walker: TextWalker,
    /// What the page's content streams and its forms' may still inflate to.
    content_left: usize,
    /// The forms being walked, outermost first: a form drawing itself is not followed.
    forms_open: Vec<lopdf::ObjectId>,
    font_maps: &'c mut FontMapBudget,
}

impl<'d> Walk<'d, '_> {
    fn content(&mut self, content: &[u8], resources: &Resources<'d>) {
        // Lenient: the operations before a syntax error still count.
        for operation in Content::decode_iter(budget::operations_within(content)) {
            let Ok(operation) = operation else { break };
            if operation.operator == "Do" {
                let form = operation.operands.first().and_then(|o| o.as_name().ok());
                if let Some(&id) = form.and_then(|name| resources.forms.get(name)) {
                    self.form(id, resources);
                }
            } else {
                self.walker.apply(&operation, &resources.encodings);
            }
            if self.walker.out.len() > MAX_PAGE_TEXT_BYTES {
                break;
            }
        }
    }

    fn form(&mut self, id: lopdf::ObjectId, outer: &Resources<'d>) {
        if self.forms_open.len() >= MAX_FORM_DEPTH || self.forms_open.contains(&id) {
            return;
        }
        let Ok(form) = self.doc.get_object(id).and_then(Object::as_stream) else {
            return;
        };
        let Ok(content) = form.decompressed_content_with_limit(self.content_left) else {
            return;
        };
        self.content_left -= content.len().min(self.content_left);
        let own = match form
            .dict
            .get_deref(b"Resources", self.doc)
            .and_then(Object::as_dict)
        {
            Ok(dict) => Some(Resources::of(self.doc, dict, self.font_maps)),
            // A form without resources of its own uses its page's.
            Err(_) => None,
        };
        let font = self.walker.font.clone();
        self.forms_open.push(id);
        self.content(&content, own.as_ref().unwrap_or(outer));
        self.forms_open.pop();
        self.walker.font = font;
    }
}

/// Whether lopdf may read `font`'s `ToUnicode` map: true when it has none, or when the codes
/// its ranges cover fit [`MAX_CMAP_CODES`] and, with its inflated size (twice), what is left
/// of the call's budget, which is then charged. A map that cannot be counted is not read
/// (lopdf could not parse it either).
fn charge_unicode_map(
    doc: &Document,
    font: &lopdf::Dictionary,
    budget: &mut FontMapBudget,
) -> bool {
    let Ok(map) = font.get_deref(b"ToUnicode", doc) else {
        return true;
    };
    let Ok(stream) = map.as_stream() else {
        return true;
    };
    let limit = MAX_FONT_MAP_BYTES.min(budget.bytes_left / 2);
    let Ok(content) = stream.get_plain_content_with_limit(limit) else {
        budget.bytes_left = budget.bytes_left.saturating_sub(limit);
        return false;
    };
    budget.bytes_left -= 2 * content.len();
    match cmap_codes(&content) {
        Some(codes) if codes <= MAX_CMAP_CODES && codes <= budget.codes_left => {
            budget.codes_left -= codes;
            true
        }
        _ => false,
    }
}

/// How many codes a CMap's `bfrange` sections cover (each `bfchar` entry counts one), or
/// `None` when its sections cannot be read.
fn cmap_codes(cmap: &[u8]) -> Option<u64> {
    let mut tokens = CmapTokens { rest: cmap };
    let mut codes: u64 = 0;
    while let Some(token) = tokens.next() {
        match token {
            CmapToken::Word(b"beginbfchar") => {
                let mut hex_strings = 0u64;
                loop {
                    match tokens.next()? {
                        CmapToken::Word(b"endbfchar") => break,
                        CmapToken::Hex(_) => hex_strings += 1,
                        _ => return None,
                    }
                }
                codes = codes.saturating_add(hex_strings / 2);
            }
            CmapToken::Word(b"beginbfrange") => loop {
                let low = match tokens.next()? {
                    CmapToken::Word(b"endbfrange") => break,
                    CmapToken::Hex(low) => low?,
                    _ => return None,
                };
                let CmapToken::Hex(high) = tokens.next()? else {
                    return None;
                };
                codes = codes.saturating_add(high?.checked_sub(low)?.saturating_add(1));
                match tokens.next()? {
                    CmapToken::Hex(_) => {}
                    CmapToken::ArrayStart => loop {
                        match tokens.next()? {
                            CmapToken::ArrayEnd => break,
                            CmapToken::Hex(_) => {}
                            _ => return None,
                        }
                    },
                    _ => return None,
                }
            },
            _ => {}
        }
    }
    Some(codes)
}

/// A token of a CMap, as far as [`cmap_codes`] needs: a hex string's value (`None` past
/// 64 bits), an array's brackets, or any other word.
enum CmapToken<'a> {
    Hex(Option<u64>),
    ArrayStart,
    ArrayEnd,
    Word(&'a [u8]),
}

struct CmapTokens<'a> {
    rest: &'a [u8],
}

impl<'a> Iterator for CmapTokens<'a> {
    type Item = CmapToken<'a>;

    fn next(&mut self) -> Option<CmapToken<'a>> {
        loop {
            let start = self.rest.iter().position(|b| !b.is_ascii_whitespace())?;
            self.rest = &self.rest[start..];
            if self.rest[0] != b'%' {
                break;
            }
            let end = memchr::memchr2(b'\n', b'\r', self.rest).unwrap_or(self.rest.len());
            self.rest = &self.rest[end..];
        }
        let (token, len) = match self.rest[0] {
            b'<' => {
                let end = memchr::memchr(b'>', self.rest)?;
                let mut value: Option<u64> = Some(0);
                for &b in &self.rest[1..end] {
                    if b.is_ascii_whitespace() {
                        continue;
                    }
                    let digit = char::from(b).to_digit(16)?;
                    value = value
                        .and_then(|v| v.checked_mul(16))
                        .map(|v| v + u64::from(digit));
                }
                (CmapToken::Hex(value), end + 1)
            }
            b'[' => (CmapToken::ArrayStart, 1),
            b']' => (CmapToken::ArrayEnd, 1),
            _ => {
                let len = self
                    .rest
                    .iter()
                    .position(|b| b.is_ascii_whitespace() || b"<[]%".contains(b))
                    .unwrap_or(self.rest.len())
                    .max(1);
                (CmapToken::Word(&self.rest[..len]), len)
            }
        };
        self.rest = &self.rest[len..];
        Some(token)
    }
}

/// Follows the text state of a content stream just enough to place line breaks and spaces.
#[derive(Default)]
struct TextWalker {
    out: String,
    /// The current font's resource name.
    font: Option<Vec<u8>>,
    font_size: f32,
    /// The vertical scale of the text matrix, which text-space moves are multiplied by.
    scale_y: f32,
    /// The current line's vertical position, in user space.
    line_y: f32,
    /// Where the last text shown sat, if any text was shown.
    shown_y: Option<f32>,
    /// The text position moved along the line since the last text shown.
    moved_along: bool,
}

impl TextWalker {
    fn apply(&mut self, op: &Operation, encodings: &BTreeMap<Vec<u8>, Encoding>) {
        let number = |i: usize| op.operands.get(i).and_then(|o| o.as_float().ok());
        let encoding = self.font.as_ref().and_then(|font| encodings.get(font));
        match op.operator.as_str() {
            "BT" => {
                self.scale_y = 1.0;
                self.line_y = 0.0;
            }
            "Tf" => {
                self.font = op
                    .operands
                    .first()
                    .and_then(|o| o.as_name().ok())
                    .map(<[u8]>::to_vec);
                self.font_size = number(1).unwrap_or(0.0).abs();
            }
            "Td" | "TD" => {
                let (tx, ty) = (number(0).unwrap_or(0.0), number(1).unwrap_or(0.0));
                self.line_y += ty * self.scale_y;
                if tx != 0.0 {
                    self.moved_along = true;
                }
            }
            "Tm" => {
                self.scale_y = number(3).unwrap_or(1.0);
                self.line_y = number(5).unwrap_or(0.0);
                self.moved_along = true;
            }
            "T*" => self.new_line(),
            "Tj" | "TJ" => self.show(op.operands.first(), encoding),
            "'" => {
                self.new_line();
                self.show(op.operands.first(), encoding);
            }
            "\"" => {
                self.new_line();
                self.show(op.operands.get(2), encoding);
            }
            _ => {}
        }
    }

    fn new_line(&mut self) {
        if !self.out.is_empty() && !self.out.ends_with('\n') {
            self.out.push('\n');
        }
        // The next text shown is on this new line, wherever the position says.
        self.shown_y = None;
        self.moved_along = false;
    }

    fn show(&mut self, operand: Option<&Object>, encoding: Option<&Encoding>) {
        let Some(operand) = operand else { return };
        // A move of more than a third of the font size (at least a point) is a new line;
        // less is a superscript or a subscript.
        let threshold = (self.font_size * self.scale_y.abs() / 3.0).max(1.0);
        match self.shown_y {
            Some(y) if (y - self.line_y).abs() > threshold || y.is_nan() => self.new_line(),
            Some(_) if self.moved_along => self.space(),
            _ => {}
        }
        self.shown_y = Some(self.line_y);
        self.moved_along = false;
        match operand {
            Object::String(bytes, _) => self.decode(bytes, encoding),
            Object::Array(items) => {
                for item in items {
                    match item {
                        Object::String(bytes, _) => self.decode(bytes, encoding),
                        // Thousandths of an em: a word space is 250 or more, a kern far less.
                        Object::Integer(n) if *n <= -200 => self.space(),
                        Object::Real(n) if *n <= -200.0 => self.space(),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }

    fn space(&mut self) {
        if !self.out.is_empty() && !self.out.ends_with([' ', '\n']) {
            self.out.push(' ');
        }
    }

    fn decode(&mut self, bytes: &[u8], encoding: Option<&Encoding>) {
        match encoding {
            Some(encoding) => {
                let before = self.out.len();
                if encoding.write_to_string(bytes, &mut self.out).is_err() {
                    self.out.truncate(before);
                }
            }
            // No usable font encoding: printable ASCII is what such a simple font shows.
            None => self.out.extend(
                bytes
                    .iter()
                    .filter(|b| b.is_ascii_graphic() || **b == b' ')
                    .map(|&b| char::from(b)),
            ),
        }
    }
}

/// Trailing whitespace trimmed on every line, NULs and other control characters (but tabs)
/// dropped, runs of blank lines collapsed to one, no blank lines at either end.
fn normalise(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut blank_run = false;
    for line in raw.lines() {
        let line: String = line
            .chars()
            .filter(|c| *c == '\t' || !c.is_control())
            .collect();
        let line = line.trim_end();
        if line.is_empty() {
            blank_run = !out.is_empty();
            continue;
        }
        if blank_run {
            out.push('\n');
            blank_run = false;
        }
        out.push_str(line);
        out.push('\n');
    }
    if out.ends_with('\n') {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use lopdf::{Stream, dictionary};

    /// A PDF whose pages have these content streams, with Helvetica as `/F1` and a 1x1
    /// grey image as `/Im1`.
    fn pdf(contents: &[&str]) -> Vec<u8> {
        let mut doc = Document::with_version("1.5");
        let pages_id = doc.new_object_id();
        let font_id = doc.add_object(dictionary! {
            "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
        });
        let image_id = doc.add_object(Stream::new(
            dictionary! {
                "Type" => "XObject", "Subtype" => "Image", "Width" => 1, "Height" => 1,
                "ColorSpace" => "DeviceGray", "BitsPerComponent" => 8,
            },
            vec![0x80],
        ));
        let resources_id = doc.add_object(dictionary! {
            "Font" => dictionary! { "F1" => font_id },
            "XObject" => dictionary! { "Im1" => image_id },
        });
        let kids: Vec<Object> = contents
            .iter()
            .map(|content| {
                let content_id =
                    doc.add_object(Stream::new(dictionary! {}, content.as_bytes().to_vec()));
                doc.add_object(dictionary! {
                    "Type" => "Page", "Parent" => pages_id, "Contents" => content_id,
                })
                .into()
            })
            .collect();
        let count = i64::try_from(kids.len()).unwrap();
        doc.objects.insert(
            pages_id,
            Object::Dictionary(dictionary! {
                "Type" => "Pages", "Kids" => kids, "Count" => count,
                "Resources" => resources_id, "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
            }),
        );
        let catalog_id = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
        doc.trailer.set("Root", catalog_id);
        let mut bytes = Vec::new();
        doc.save_to(&mut bytes).unwrap();
        bytes
    }

    fn text_page(n: u32) -> String {
        format!("BT /F1 12 Tf 72 700 Td (Page {n} text) Tj ET")
    }

    fn texts(text: &PdfText) -> Vec<&str> {
        text.pages.iter().map(|p| p.text.as_str()).collect()
    }

    #[test]
    fn sniff_finds_the_header_within_the_first_kilobyte() {
        assert!(sniff(b"%PDF-1.7\n"));
        let mut late = vec![b' '; 1000];
        late.extend_from_slice(b"%PDF-1.4");
        assert!(sniff(&late));
        let mut too_late = vec![b' '; 1024];
        too_late.extend_from_slice(b"%PDF-1.4");
        assert!(!sniff(&too_late));
        assert!(!sniff(b"%PDX-1.4"));
        assert!(!sniff(b""));
    }

    #[test]
    fn reads_the_text_of_a_page() {
        let bytes = pdf(&[&text_page(1)]);
        let text = pdf_text(&bytes, 1, 1).unwrap();
        assert_eq!(text.page_count, 1);
        assert_eq!(
            text.pages,
            vec![PdfPage {
                number: 1,
                text: "Page 1 text".into()
            }]
        );
    }

    #[test]
    fn lines_break_where_the_text_moves_down_and_words_where_it_moves_along() {
        let content = "BT /F1 12 Tf 72 700 Td (First) Tj 0 -14 Td (second line) Tj \
                       100 0 Td (same line) Tj T* (thi) Tj (rd) Tj \
                       [-300(kern)-30(ed)-300(word)] TJ ET \
                       BT /F1 12 Tf 1 0 0 1 72 600 Tm (fourth) Tj 1 0 0 1 72 560 Tm (fifth) Tj \
                       30 3 Td (sup) Tj ET";
        let text = pdf_text(&pdf(&[content]), 1, 1).unwrap();
        assert_eq!(
            texts(&text),
            ["First\nsecond line same line\nthird kerned word\nfourth\nfifth sup"]
        );
    }

    #[test]
    fn text_in_forms_the_page_draws_is_read() {
        let form = |content: &str, resources: &str| {
            let dict = format!("/Type /XObject /Subtype /Form /BBox [0 0 9 9] {resources}");
            [
                format!("<< /Length {} {dict} >>\nstream\n", content.len()).into_bytes(),
                content.as_bytes().to_vec(),
                b"\nendstream".to_vec(),
            ]
            .concat()
        };
        let page_content = "BT /F1 12 Tf 9 700 Td (page) Tj ET /Fm1 Do /Im1 Do /Fm1 Do";
        let bytes = raw_pdf(&[
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> \
              /XObject << /Fm1 6 0 R /Im1 8 0 R >> >> >>",
            &form(page_content, ""),
            // Its encoding shows code x as Z: text read through it says so.
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica \
              /Encoding << /Differences [120 /Z] >> >>",
            // Its own resources: a nested form, and itself (not followed).
            &form(
                "BT /F1 12 Tf 9 600 Td (outer form) Tj ET /Fm2 Do /Me Do",
                "/Resources << /Font << /F1 5 0 R >> /XObject << /Fm2 7 0 R /Me 6 0 R >> >>",
            ),
            // No resources of its own: the page's.
            &form("BT /F1 12 Tf 9 500 Td (inner form x) Tj ET", ""),
            b"<< /Length 1 /Type /XObject /Subtype /Image /Width 1 /Height 1 \
              /ColorSpace /DeviceGray /BitsPerComponent 8 >>\nstream\n\x80\nendstream",
        ]);
        assert_eq!(
            texts(&pdf_text(&bytes, 1, 1).unwrap()),
            ["page\nouter form\ninner form Z\nouter form\ninner form Z"]
        );
    }

    #[test]
    fn text_is_normalised() {
        let content = "BT /F1 12 Tf (a \\000b   ) Tj T* T* T* ( ) Tj T* (c) Tj T* ET";
        let text = pdf_text(&pdf(&[content]), 1, 1).unwrap();
        assert_eq!(texts(&text), ["a b\n\nc"]);
    }

    #[test]
    fn a_page_with_only_an_image_or_nothing_has_empty_text() {
        let bytes = pdf(&["q 100 0 0 100 0 0 cm /Im1 Do Q", "", &text_page(3)]);
        let text = pdf_text(&bytes, 1, 3).unwrap();
        assert_eq!(texts(&text), ["", "", "Page 3 text"]);
        assert_eq!(
            text.pages.iter().map(|p| p.number).collect::<Vec<_>>(),
            [1, 2, 3]
        );
    }

    #[test]
    fn a_call_returns_at_most_max_pages() {
        let contents: Vec<String> = (1..=25).map(text_page).collect();
        let contents: Vec<&str> = contents.iter().map(String::as_str).collect();
        let bytes = pdf(&contents);

        let text = pdf_text(&bytes, 1, 25).unwrap();
        assert_eq!(text.page_count, 25);
        assert_eq!(text.pages.len(), MAX_PAGES_PER_CALL as usize);
        assert_eq!(text.pages.last().unwrap().number, 20);
        assert_eq!(text.pages[19].text, "Page 20 text");

        let tail = pdf_text(&bytes, 21, u32::MAX).unwrap();
        assert_eq!(tail.pages.first().unwrap().number, 21);
        assert_eq!(tail.pages.last().unwrap().text, "Page 25 text");

        let one = pdf_text(&bytes, 7, 3).unwrap();
        assert_eq!(texts(&one), ["Page 7 text"]);
        assert_eq!(pdf_text(&bytes, 0, 1).unwrap().pages[0].number, 1);
    }

    #[test]
    fn a_first_page_past_the_end_is_out_of_range() {
        let bytes = pdf(&[&text_page(1), &text_page(2)]);
        assert_eq!(
            pdf_text(&bytes, 3, 3),
            Err(PdfError::PageOutOfRange {
                first: 3,
                page_count: 2
            })
        );
    }

    #[test]
    fn a_pdf_that_needs_a_password_is_encrypted() {
        for bytes in [
            &include_bytes!("testdata/encrypted-user-password.pdf")[..],
            &include_bytes!("testdata/encrypted-rc4-user-password.pdf")[..],
        ] {
            assert_eq!(pdf_text(bytes, 1, 1), Err(PdfError::Encrypted));
        }
    }

    #[test]
    fn a_pdf_with_a_security_handler_lopdf_lacks_is_encrypted() {
        let bytes = raw_pdf(&[
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>",
            b"<< /Length 0 >>\nstream\n\nendstream",
            b"<< /Filter /Adobe.PubSec /V 4 /R 4 /SubFilter /adbe.pkcs7.s5 >>",
        ]);
        let bytes = String::from_utf8(bytes)
            .unwrap()
            .replace("/Root 1 0 R", "/Root 1 0 R /Encrypt 5 0 R /ID [<01> <01>]");
        assert_eq!(pdf_text(bytes.as_bytes(), 1, 1), Err(PdfError::Encrypted));
    }

    #[test]
    fn a_pdf_with_only_an_owner_password_is_read_as_readers_do() {
        let bytes = include_bytes!("testdata/encrypted-owner-password-only.pdf");
        let text = pdf_text(bytes, 1, 1).unwrap();
        assert_eq!(texts(&text), ["Secret text"]);
    }

    #[test]
    fn a_corrupt_pdf_says_so() {
        let bytes = pdf(&[&text_page(1)]);
        let cases: [&[u8]; 4] = [
            b"not a pdf at all",
            b"%PDF-1.4\n",
            &bytes[..bytes.len() / 3],
            b"%PDF-1.4\ntrailer << /Root 1 0 R >>\n%%EOF",
        ];
        for case in cases {
            match pdf_text(case, 1, 1) {
                Err(PdfError::Corrupt(why)) => assert!(!why.is_empty()),
                other => panic!("{:?}: {other:?}", String::from_utf8_lossy(case)),
            }
        }
    }

    #[test]
    fn errors_read_well() {
        assert_eq!(PdfError::Encrypted.to_string(), "the PDF is encrypted");
        assert_eq!(
            PdfError::TooComplex.to_string(),
            "the PDF is too complex to read: its objects would take more than the 128 MiB allowed"
        );
        assert_eq!(
            PdfError::PageOutOfRange {
                first: 9,
                page_count: 2
            }
            .to_string(),
            "page 9 is past the end: the PDF has 2 pages"
        );
    }

    /// A PDF written out with a cross-reference table, from objects' bodies (object 1 is
    /// the catalog).
    fn raw_pdf(objects: &[&[u8]]) -> Vec<u8> {
        let mut out = b"%PDF-1.4\n".to_vec();
        let mut offsets = Vec::new();
        for (i, body) in objects.iter().enumerate() {
            offsets.push(out.len());
            out.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
            out.extend_from_slice(body);
            out.extend_from_slice(b"\nendobj\n");
        }
        let xref = out.len();
        out.extend_from_slice(
            format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
        );
        for offset in offsets {
            out.extend_from_slice(format!("{offset:010} 00000 n \n").as_bytes());
        }
        out.extend_from_slice(
            format!(
                "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
                objects.len() + 1
            )
            .as_bytes(),
        );
        out
    }

    #[test]
    fn a_page_tree_with_a_cycle_ends_as_corrupt() {
        let bytes = raw_pdf(&[
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [2 0 R 3 0 R 2 0 R] /Count 3 >>",
            b"<< /Type /Page /Parent 2 0 R /Kids [2 0 R] /Contents 4 0 R >>",
            b"<< /Length 33 >>\nstream\nBT /F1 12 Tf 9 9 Td (loop) Tj ET\nendstream",
        ]);
        // lopdf gives up on a page tree with a cycle: no pages, so the PDF cannot be read.
        assert_eq!(
            pdf_text(&bytes, 1, 20),
            Err(PdfError::Corrupt("it has no pages that can be read".into()))
        );
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let depth = 200_000;
        let mut nested = b"[".repeat(depth);
        nested.extend(b"]".repeat(depth));
        let mut dicts = b"<< /A ".repeat(depth);
        dicts.extend(b">>".repeat(depth));
        let page: &[u8] = b"<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>";
        for deep in [&nested, &dicts] {
            let bytes = raw_pdf(&[
                b"<< /Type /Catalog /Pages 2 0 R >>",
                b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                page,
                deep,
            ]);
            // Whatever it answers, it answers.
            let _ = pdf_text(&bytes, 1, 1);
        }
        let mut content = b"BT /F1 12 Tf ".to_vec();
        content.extend(b"[".repeat(depth));
        let stream = [
            format!("<< /Length {} >>\nstream\n", content.len()).into_bytes(),
            content,
            b"\nendstream".to_vec(),
        ]
        .concat();
        let bytes = raw_pdf(&[
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            page,
            &stream,
        ]);
        assert_eq!(texts(&pdf_text(&bytes, 1, 1).unwrap()), [""]);
    }

    #[test]
    fn a_stream_that_inflates_past_the_limit_costs_its_page_not_the_memory() {
        let line = b"BT /F1 12 Tf 9 9 Td (bomb) Tj ET\n";
        // 20 MiB, over the 16 MiB a page's content may inflate to.
        let mut bomb = Stream::new(dictionary! {}, line.repeat((20 << 20) / line.len()));
        bomb.compress().unwrap();
        let deflated = bomb.content;
        let stream = [
            format!(
                "<< /Length {} /Filter /FlateDecode >>\nstream\n",
                deflated.len()
            )
            .into_bytes(),
            deflated,
            b"\nendstream".to_vec(),
        ]
        .concat();
        let bytes = raw_pdf(&[
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>",
            &stream,
        ]);
        assert_eq!(texts(&pdf_text(&bytes, 1, 1).unwrap()), [""]);
    }

    /// A page showing `<0001 0002>` in a Type0 font with this `ToUnicode` CMap.
    /// The catalog, page tree and page of a one-page PDF whose content stream is object 4.
    const ONE_PAGE: [&[u8]; 3] = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 /Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> >>",
        b"<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>",
    ];

    fn stream_object(dict: &str, content: &[u8]) -> Vec<u8> {
        let mut stream = Stream::new(dictionary! {}, content.to_vec());
        stream.compress().unwrap();
        // lopdf leaves a stream that deflating would not shrink as it is.
        let filter = if stream.dict.has(b"Filter") {
            "/Filter /FlateDecode"
        } else {
            ""
        };
        let deflated = stream.content;
        [
            format!("<< {dict} /Length {} {filter} >>\nstream\n", deflated.len()).into_bytes(),
            deflated,
            b"\nendstream".to_vec(),
        ]
        .concat()
    }

    fn page_reading(text: &str) -> Vec<u8> {
        stream_object(
            "",
            format!("BT /F1 12 Tf 72 700 Td ({text}) Tj ET").as_bytes(),
        )
    }

    /// An object stream whose index lists `entries` objects, all at the offset of one array
    /// of `elements` numbers.
    fn object_stream_repeating(entries: u32, elements: usize) -> Vec<u8> {
        let index: String = (0..entries).map(|i| format!("{} 0 ", 10 + i)).collect();
        let array = format!("[{}]", "0 ".repeat(elements));
        let dict = format!("/Type /ObjStm /N {entries} /First {}", index.len());
        stream_object(&dict, format!("{index}{array}").as_bytes())
    }

    #[test]
    fn an_object_stream_whose_index_repeats_an_offset_is_counted_per_entry() {
        let page = page_reading("kept");
        let once = object_stream_repeating(1, 200_000);
        let bytes = raw_pdf(&[ONE_PAGE[0], ONE_PAGE[1], ONE_PAGE[2], &page, &once]);
        assert_eq!(texts(&pdf_text(&bytes, 1, 1).unwrap()), ["kept"]);
        // The file: eight entries, each parsing the array again (650 MB each before).
        let eight = object_stream_repeating(8, 200_000);
        let bytes = raw_pdf(&[ONE_PAGE[0], ONE_PAGE[1], ONE_PAGE[2], &page, &eight]);
        assert!(bytes.len() < 8_000, "{} bytes", bytes.len());
        assert_eq!(pdf_text(&bytes, 1, 1), Err(PdfError::TooComplex));
    }

    #[test]
    fn an_array_too_large_to_hold_is_too_complex() {
        let page = page_reading("kept");
        let fits = format!("[{}]", "[] ".repeat(150_000));
        let bytes = raw_pdf(&[
            ONE_PAGE[0],
            ONE_PAGE[1],
            ONE_PAGE[2],
            &page,
            fits.as_bytes(),
        ]);
        assert_eq!(texts(&pdf_text(&bytes, 1, 1).unwrap()), ["kept"]);
        // 2 MB, which lopdf would hold in 1.2 GB.
        let too_large = format!("[{}]", "[]".repeat(1_000_000));
        let bytes = raw_pdf(&[
            ONE_PAGE[0],
            ONE_PAGE[1],
            ONE_PAGE[2],
            &page,
            too_large.as_bytes(),
        ]);
        assert_eq!(pdf_text(&bytes, 1, 1), Err(PdfError::TooComplex));
        // Hidden in a string, where lopdf may still be sent by an offset.
        let hidden = format!("(5 0 obj {too_large})");
        let bytes = raw_pdf(&[
            ONE_PAGE[0],
            ONE_PAGE[1],
            ONE_PAGE[2],
            &page,
            hidden.as_bytes(),
        ]);
        assert_eq!(pdf_text(&bytes, 1, 1), Err(PdfError::TooComplex));
    }

    #[test]
    fn an_object_listed_many_times_in_the_cross_reference_table_is_charged_each_time() {
        let page = page_reading("kept");
        let array = format!("[{}]", "0 ".repeat(100_000));
        let listed = |times: usize| {
            let mut bytes = raw_pdf(&[
                ONE_PAGE[0],
                ONE_PAGE[1],
                ONE_PAGE[2],
                &page,
                array.as_bytes(),
            ]);
            let object_5 = memchr::memmem::find(&bytes, b"5 0 obj").unwrap();
            let xref = memchr::memmem::rfind(&bytes, b"xref\n").unwrap();
            bytes.truncate(xref);
            let mut table = format!("xref\n0 {}\n", 6 + times);
            table.push_str("0000000000 65535 f \n");
            for name in [b"1 0 obj", b"2 0 obj", b"3 0 obj", b"4 0 obj"] {
                let at = memchr::memmem::find(&bytes, name).unwrap();
                table.push_str(&format!("{at:010} 00000 n \n"));
            }
            for _ in 0..=times {
                table.push_str(&format!("{object_5:010} 00000 n \n"));
            }
            table.push_str(&format!(
                "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
                6 + times
            ));
            bytes.extend_from_slice(table.as_bytes());
            bytes
        };
        assert_eq!(texts(&pdf_text(&listed(0), 1, 1).unwrap()), ["kept"]);
        assert_eq!(pdf_text(&listed(20), 1, 1), Err(PdfError::TooComplex));
    }

    /// A PDF encrypted with an owner password only (so the empty password opens it) whose
    /// object stream repeats one offset `entries` times, as in [`object_stream_repeating`].
    fn encrypted_pdf_repeating(entries: u32) -> Vec<u8> {
        use lopdf::encryption::{EncryptionVersion, Permissions};
        let mut doc = Document::with_version("1.5");
        let pages_id = doc.new_object_id();
        let font =
            dictionary! { "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica" };
        let content = b"BT /F1 12 Tf 72 700 Td (kept) Tj ET".to_vec();
        let content_id = doc.add_object(Stream::new(dictionary! {}, content));
        let page_id = doc.add_object(dictionary! {
            "Type" => "Page", "Parent" => pages_id, "Contents" => content_id,
        });
        doc.objects.insert(
            pages_id,
            Object::Dictionary(dictionary! {
                "Type" => "Pages", "Kids" => vec![page_id.into()], "Count" => 1,
                "Resources" => dictionary! { "Font" => dictionary! { "F1" => font } },
            }),
        );
        let index: String = (0..entries).map(|i| format!("{} 0 ", 10 + i)).collect();
        let members = format!("{index}[{}]", "0 ".repeat(200_000));
        let first = i64::try_from(index.len()).unwrap();
        // lopdf does not save object streams it did not make, so this one is renamed back
        // after the save (a stream's dictionary is not encrypted).
        let mut object_stream = Stream::new(
            dictionary! { "Type" => "ObjStX", "N" => entries, "First" => first },
            members.into_bytes(),
        );
        object_stream.compress().unwrap();
        doc.add_object(object_stream);
        let catalog_id = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
        doc.trailer.set("Root", catalog_id);
        let id = Object::string_literal(b"0123456789abcdef".to_vec());
        doc.trailer.set("ID", vec![id.clone(), id]);
        let version = EncryptionVersion::V2 {
            document: &doc,
            owner_password: "owner",
            user_password: "",
            key_length: 128,
            permissions: Permissions::all(),
        };
        let state = lopdf::EncryptionState::try_from(version).unwrap();
        doc.encrypt(&state).unwrap();
        let mut bytes = Vec::new();
        doc.save_to(&mut bytes).unwrap();
        let placeholder = memchr::memmem::find(&bytes, b"/ObjStX").unwrap();
        bytes[placeholder + 6] = b'm';
        bytes
    }

    #[test]
    fn an_encrypted_pdf_is_counted_as_it_is_decrypted() {
        let once = encrypted_pdf_repeating(1);
        assert_eq!(texts(&pdf_text(&once, 1, 1).unwrap()), ["kept"]);
        let eight = encrypted_pdf_repeating(8);
        assert_eq!(pdf_text(&eight, 1, 1), Err(PdfError::TooComplex));
        // lopdf reads `#79` as `y`: the name is still `/Encrypt`.
        let trailer = memchr::memmem::rfind(&eight, b"/Encrypt").unwrap();
        let escaped = [&eight[..trailer], b"/Encr#79pt", &eight[trailer + 8..]].concat();
        assert_eq!(pdf_text(&escaped, 1, 1), Err(PdfError::TooComplex));
    }

    #[test]
    fn a_pdf_that_only_names_encrypt_outside_its_trailer_is_read() {
        let page = page_reading("kept");
        let named = b"<< /Encrypt 1 /Filter /Standard >>";
        let bytes = raw_pdf(&[ONE_PAGE[0], ONE_PAGE[1], ONE_PAGE[2], &page, named]);
        assert_eq!(texts(&pdf_text(&bytes, 1, 1).unwrap()), ["kept"]);
    }

    #[test]
    fn an_operation_with_too_many_operands_ends_the_page_s_text() {
        // The second file: one operation of 1,000,000 operands (591 MB before).
        let content = format!(
            "BT /F1 12 Tf 72 700 Td (before) Tj {} Tj (after) Tj ET",
            "0 ".repeat(1_000_000)
        );
        let page = stream_object("", content.as_bytes());
        let bytes = raw_pdf(&[ONE_PAGE[0], ONE_PAGE[1], ONE_PAGE[2], &page]);
        assert!(bytes.len() < 8_000, "{} bytes", bytes.len());
        assert_eq!(texts(&pdf_text(&bytes, 1, 1).unwrap()), ["before"]);
        let many_kerns = format!("BT /F1 12 Tf [{}(kerned)] TJ ET", "(a) -10 ".repeat(1_000));
        let page = stream_object("", many_kerns.as_bytes());
        let bytes = raw_pdf(&[ONE_PAGE[0], ONE_PAGE[1], ONE_PAGE[2], &page]);
        let text = pdf_text(&bytes, 1, 1).unwrap();
        assert_eq!(texts(&text), [format!("{}kerned", "a".repeat(1_000))]);
    }

    fn type0_pdf(bfranges: &str) -> Vec<u8> {
        type0_pdf_pages(bfranges, 1)
    }

    /// [`type0_pdf`] with `pages` pages, all alike.
    fn type0_pdf_pages(bfranges: &str, pages: usize) -> Vec<u8> {
        let cmap = format!(
            "/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n\
             /CMapName /Test def\n/CMapType 2 def\n\
             1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n\
             {bfranges}\nendcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n"
        );
        let cmap_stream = [
            format!("<< /Length {} >>\nstream\n", cmap.len()).into_bytes(),
            cmap.into_bytes(),
            b"\nendstream".to_vec(),
        ]
        .concat();
        let kids: String = (0..pages).map(|i| format!("{} 0 R ", i + 6)).collect();
        let kids = format!("<< /Type /Pages /Kids [{kids}] /Count {pages} >>");
        let mut objects: Vec<&[u8]> = vec![
            b"<< /Type /Catalog /Pages 2 0 R >>",
            kids.as_bytes(),
            b"<< /Length 38 >>\nstream\nBT /F1 12 Tf 9 9 Td <00010002> Tj ET\nendstream",
            b"<< /Type /Font /Subtype /Type0 /BaseFont /X /Encoding /Identity-H /ToUnicode 5 0 R >>",
            &cmap_stream,
        ];
        let page: &[u8] =
            b"<< /Type /Page /Parent 2 0 R /Contents 3 0 R /Resources << /Font << /F1 4 0 R >> >> >>";
        objects.extend(std::iter::repeat_n(page, pages));
        raw_pdf(&objects)
    }

    #[test]
    fn a_type0_font_reads_through_its_unicode_map() {
        let bytes = type0_pdf("1 beginbfrange\n<0001> <0002> <0048>\nendbfrange");
        assert_eq!(texts(&pdf_text(&bytes, 1, 1).unwrap()), ["HI"]);
    }

    #[test]
    fn a_unicode_map_that_claims_every_code_is_not_read() {
        let started = std::time::Instant::now();
        let bytes = type0_pdf("1 beginbfrange\n<00000000> <FFFFFFFF> <0041>\nendbfrange");
        // Without the map, the codes are not printable ASCII: no text, and quickly.
        assert_eq!(texts(&pdf_text(&bytes, 1, 1).unwrap()), [""]);
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }

    #[test]
    fn unicode_maps_are_read_while_their_codes_fit_the_call_s_budget() {
        // 16 ranges of 65,536 codes: over one map's limit.
        let ranges = "<0000> <FFFF> <0041>\n".repeat(16);
        let bytes = type0_pdf(&format!("16 beginbfrange\n{ranges}endbfrange"));
        assert_eq!(texts(&pdf_text(&bytes, 1, 1).unwrap()), [""]);
        // One whole 16-bit range, with a bfchar: read.
        let bytes = type0_pdf(
            "1 beginbfchar\n<0002> <0049>\nendbfchar\n1 beginbfrange\n<0000> <FFFF> <0047>\nendbfrange",
        );
        assert_eq!(texts(&pdf_text(&bytes, 1, 1).unwrap()), ["HI"]);
    }

    #[test]
    fn a_call_reads_unicode_maps_until_its_budget_is_spent() {
        // 20 pages reading one 200,002-code map: 10 fit the call's 2 Mi codes.
        let bytes = type0_pdf_pages(
            "2 beginbfrange\n<0001> <0002> <0048>\n<000000> <030D3F> <0047>\nendbfrange",
            20,
        );
        let text = pdf_text(&bytes, 1, 20).unwrap();
        let read = texts(&text).iter().filter(|t| **t == "HI").count();
        assert_eq!(read, 10);
        assert_eq!(texts(&text)[10..], [""; 10]);
    }

    #[test]
    fn a_call_reads_unicode_maps_until_their_bytes_are_spent() {
        // A map of 1 MiB that covers no code: its codes cost nothing, its bytes do.
        let mut map = b"/CIDInit /ProcSet findresource begin ".to_vec();
        map.resize(1 << 20, b' ');
        let mut doc = Document::with_version("1.5");
        let map_id = doc.add_object(Stream::new(dictionary! {}, map));
        let font = dictionary! { "Type" => "Font", "Subtype" => "Type0", "ToUnicode" => map_id };
        let mut budget = FontMapBudget {
            codes_left: MAX_CMAP_CODES_PER_CALL,
            bytes_left: MAX_FONT_MAP_BYTES_PER_CALL,
        };
        let reads = std::iter::repeat_with(|| charge_unicode_map(&doc, &font, &mut budget))
            .take(100)
            .filter(|read| *read)
            .count();
        // 64 MiB a call, each read counted twice: 32 reads of 1 MiB.
        assert_eq!(reads, 32);
    }

    #[test]
    fn cmap_codes_counts_what_the_ranges_cover() {
        let cmap = b"begincmap % a comment <0000> <FFFF>\n2 beginbfchar <01> <0041> <02> <0042> endbfchar \
                     2 beginbfrange % <0000> <FFFF> <0041>\n<0000> <00FF> <0041> <1000> <1001> [<0041> <00420043>] endbfrange";
        assert_eq!(cmap_codes(cmap), Some(2 + 256 + 2));
        assert_eq!(
            cmap_codes(b"1 beginbfrange <0000> <FFFFFFFFFFFFFFFFFF> <00> endbfrange"),
            None
        );
        assert_eq!(
            cmap_codes(b"1 beginbfrange <0010> <0001> <00> endbfrange"),
            None
        );
        assert_eq!(cmap_codes(b"1 beginbfrange <00> /x <00> endbfrange"), None);
        assert_eq!(cmap_codes(b"1 beginbfrange <00> <01> <00"), None);
        assert_eq!(cmap_codes(b"no ranges"), Some(0));
    }
}
