//! What lopdf may spend on one PDF, held from outside it.
//!
//! lopdf 0.47 parses every object of a file when it loads it, and keeps them: about 160
//! bytes for each number, name, string or reference, and about 640 for each array or
//! dictionary (measured with a counting allocator), so a 2 MB array of empty arrays costs
//! 1.2 GB. It parses an object stream's members once per entry of the stream's index, so
//! entries that repeat one offset parse one object again and again, and an object listed
//! at one offset many times in the cross-reference data is parsed that many times.
//!
//! So what lopdf will build is counted here, in units of about 160 bytes, before it is
//! built: every object in the file's own bytes (from each `obj` and `trailer` keyword, so
//! wherever lopdf starts parsing), and each object stream's members, counted from the
//! inflated stream as the filter lopdf calls for each object sees it, before lopdf parses
//! them. The filter also charges each object lopdf parses, so a load that parses one object
//! many times runs out of units too. When the units run out, the load is stopped from
//! inside that filter (an unwind that [`metered`] catches, the only way to stop lopdf
//! between two objects) and the PDF is refused as too complex.
//!
//! An encrypted PDF takes the same road: lopdf's own path for those calls no filter, so its
//! `/Encrypt` entries are renamed before the load, and each object is decrypted in the filter.

use super::lex::{Lexer, Token, is_delimiter, is_white};
use lopdf::encryption::{EncryptionState, decrypt_object};
use lopdf::{Document, Object, ObjectId};
use std::cell::RefCell;
use std::collections::HashSet;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};

/// The most memory one PDF's objects may take, as lopdf holds them.
pub const MAX_OBJECT_BYTES: u64 = 128 << 20;

/// What lopdf 0.47 holds of a number, a name, a string or a reference, about: a unit.
const UNIT_BYTES: u64 = 160;

/// [`MAX_OBJECT_BYTES`] in units.
const MAX_OBJECT_UNITS: u64 = MAX_OBJECT_BYTES / UNIT_BYTES;

/// The most units of operands one operation of a content stream may take: a line of
/// justified text shows a few hundred strings and kerns in one `TJ`.
const MAX_OPERATION_UNITS: u64 = 4_096;

/// The most bytes the object streams of one PDF may inflate to, together: each is inflated
/// here to count its members, then again by lopdf.
pub const MAX_OBJECT_STREAM_BYTES: usize = 64 << 20;

/// The most one stream read while loading (an object stream, a cross-reference stream) may
/// inflate to: real ones are far smaller (a cross-reference stream of 4 MiB lists about
/// 800,000 objects, which the units would not hold anyway).
const MAX_STREAM_BYTES: usize = 4 << 20;

/// How many bytes read while counting cost a unit.
const BYTES_PER_UNIT: u64 = 256;

/// What an array or a dictionary costs, in units: lopdf gives each room for four objects
/// (637 bytes an empty array, 673 a dictionary of one entry).
const CONTAINER_UNITS: u64 = 4;

/// The PDF's objects would take more than [`MAX_OBJECT_BYTES`], or its object streams would
/// inflate past [`MAX_OBJECT_STREAM_BYTES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spent;

/// Units counted against a limit.
struct Units {
    left: u64,
}

impl Units {
    fn spend(&mut self, units: u64) -> Result<(), Spent> {
        self.left = self.left.checked_sub(units).ok_or(Spent)?;
        Ok(())
    }
}

/// Counts the objects in a file's own bytes: one object after every `obj` keyword and one
/// after every `trailer`, wherever they are (inside a string or a stream too: lopdf may be
/// told to start there), so what lopdf parses of them is within [`MAX_OBJECT_BYTES`].
pub fn check_file(bytes: &[u8]) -> Result<(), Spent> {
    let mut units = Units {
        left: MAX_OBJECT_UNITS,
    };
    let after_obj = memchr::memmem::find_iter(bytes, b"obj").map(|at| at + 3);
    let after_trailer = memchr::memmem::find_iter(bytes, b"trailer").map(|at| at + 7);
    for start in after_obj.chain(after_trailer) {
        let cost = object_units(bytes, start, units.left);
        units.spend(cost)?;
    }
    Ok(())
}

/// What lopdf builds of the one object at `start`: tokens up to the end of its first
/// complete value (or a keyword that ends an object), counted until they pass `limit`. Every
/// [`BYTES_PER_UNIT`] bytes read cost a unit too, so that counting from many starts within
/// one long string or array stays within the budget in time as well.
fn object_units(bytes: &[u8], start: usize, limit: u64) -> u64 {
    let mut lexer = Lexer::new(bytes, start);
    let mut tokens = 0;
    let mut depth = 0usize;
    let mut top_level = 0;
    let units = |tokens: u64, lexer: &Lexer| {
        let read = lexer.position().saturating_sub(start) as u64;
        tokens + read / BYTES_PER_UNIT
    };
    while let Some(token) = lexer.next() {
        match token {
            Token::Open => {
                tokens += CONTAINER_UNITS;
                depth += 1;
            }
            Token::Close if depth <= 1 => return units(tokens + 1, &lexer),
            Token::Close => {
                tokens += 1;
                depth -= 1;
            }
            Token::Keyword(_) if depth == 0 => return units(tokens, &lexer),
            Token::Operand | Token::Keyword(_) => {
                tokens += 1;
                // A scalar or a reference (`12 0 R`) at the top level is the whole object.
                if depth == 0 {
                    top_level += 1;
                    if top_level == 3 {
                        return units(tokens, &lexer);
                    }
                }
            }
        }
        if units(tokens, &lexer) > limit {
            break;
        }
    }
    units(tokens, &lexer)
}

/// The start of `content` that lopdf may decode: up to the first operation whose operands
/// take more than [`MAX_OPERATION_UNITS`] (lopdf builds an operation's operands before it
/// hands the operation over), or all of it.
pub fn operations_within(content: &[u8]) -> &[u8] {
    let mut lexer = Lexer::new(content, 0);
    let mut operation_start = 0;
    let mut units = 0;
    while let Some(token) = lexer.next() {
        units += match token {
            Token::Keyword(_) => {
                operation_start = lexer.position();
                units = 0;
                continue;
            }
            Token::Open => CONTAINER_UNITS,
            Token::Close | Token::Operand => 1,
        };
        if units > MAX_OPERATION_UNITS {
            return &content[..operation_start];
        }
    }
    content
}

/// What the load filter does with each object lopdf parses.
enum Mode {
    /// Charge it, and count an object stream's members before lopdf parses them.
    Count,
    /// Keep only the encryption dictionary of a file whose `/Encrypt` was renamed.
    FindEncryption,
    /// Decrypt it, then as `Count`.
    Decrypt {
        state: Box<EncryptionState>,
        dictionary: ObjectId,
    },
}

/// The load under way on this thread.
struct Meter {
    mode: Mode,
    objects: Units,
    object_stream_bytes_left: usize,
    /// Members of the object stream just counted, which lopdf hands to the filter next.
    members: HashSet<u32>,
}

thread_local! {
    static METER: RefCell<Option<Meter>> = const { RefCell::new(None) };
}

/// Runs `load` (a lopdf load with [`filter`] as its filter) with a fresh meter in `mode`;
/// `Err(Spent)` when the filter stopped it.
fn metered<T>(mode: Mode, load: impl FnOnce() -> T) -> Result<T, Spent> {
    METER.with(|meter| {
        *meter.borrow_mut() = Some(Meter {
            mode,
            objects: Units {
                left: MAX_OBJECT_UNITS,
            },
            object_stream_bytes_left: MAX_OBJECT_STREAM_BYTES,
            members: HashSet::new(),
        });
    });
    let result = catch_unwind(AssertUnwindSafe(load));
    METER.with(|meter| meter.borrow_mut().take());
    match result {
        Ok(value) => Ok(value),
        Err(payload) if payload.is::<Spent>() => Err(Spent),
        Err(payload) => resume_unwind(payload),
    }
}

/// Loads `bytes` with lopdf within the budget (rebuilding the cross-reference table from the
/// objects found when `force_reconstruct`), `Err(Spent)` when it would take more.
pub fn load(bytes: &[u8], force_reconstruct: bool) -> LoadResult {
    let options = || lopdf::LoadOptions {
        max_decompressed_size: Some(MAX_STREAM_BYTES),
        force_reconstruct,
        ..lopdf::LoadOptions::default()
    };
    let Some(renamed) = rename_encrypt(bytes) else {
        return metered(Mode::Count, || load_with_filter(bytes, options()));
    };
    let keys = metered(Mode::FindEncryption, || {
        load_with_filter(&renamed, options())
    })?;
    let Ok(keys) = keys else {
        return Ok(Err(LoadFailure::Encrypted));
    };
    if !keys.trailer.has(b"Encrypx") {
        // The name stood elsewhere (in a page's dictionary, say): the file is not encrypted.
        return metered(Mode::Count, || load_with_filter(bytes, options()));
    }
    let Some((state, dictionary)) = encryption_state(keys) else {
        return Ok(Err(LoadFailure::Encrypted));
    };
    let mode = Mode::Decrypt {
        state: Box::new(state),
        dictionary,
    };
    metered(mode, || load_with_filter(&renamed, options()))
}

/// What [`load`] gives: the document, or why lopdf could not load it, or [`Spent`].
pub type LoadResult = Result<Result<Document, LoadFailure>, Spent>;

/// Why a metered load gave no document.
#[derive(Debug)]
pub enum LoadFailure {
    /// The PDF needs a password.
    Encrypted,
    /// lopdf's error.
    Lopdf(lopdf::Error),
}

fn load_with_filter(bytes: &[u8], options: lopdf::LoadOptions) -> Result<Document, LoadFailure> {
    let options = lopdf::LoadOptions {
        filter: Some(filter),
        ..options
    };
    Document::load_mem_with_options(bytes, options).map_err(LoadFailure::Lopdf)
}

/// A copy of `bytes` with every `/Encrypt` name (however its bytes are escaped) spelled
/// `/Encrypx`, so that lopdf takes the file for an unencrypted one and calls the filter;
/// `None` when there is none.
fn rename_encrypt(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut renamed: Option<Vec<u8>> = None;
    for slash in memchr::memchr_iter(b'/', bytes) {
        if let Some(last) = encrypt_name_end(&bytes[slash + 1..]) {
            let copy = renamed.get_or_insert_with(|| bytes.to_vec());
            let at = slash + last;
            // `t` becomes `x`, or the escape `#74` becomes `#78`, which is `x`.
            copy[at] = if copy[at] == b't' { b'x' } else { b'8' };
        }
    }
    renamed
}

/// The length of the name `Encrypt` at the start of `rest` (the bytes after a `/`), with
/// lopdf's `#xx` escapes; `None` when `rest` starts with another name.
fn encrypt_name_end(rest: &[u8]) -> Option<usize> {
    let mut at = 0;
    for &expected in b"Encrypt" {
        let (byte, len) = match *rest.get(at)? {
            b'#' => (hex_escape(rest.get(at + 1..at + 3)?)?, 3),
            byte => (byte, 1),
        };
        if byte != expected {
            return None;
        }
        at += len;
    }
    let ends = match rest.get(at) {
        None => true,
        Some(b'#') => rest.get(at + 1..at + 3).and_then(hex_escape).is_none(),
        Some(&byte) => is_white(byte) || is_delimiter(byte),
    };
    ends.then_some(at)
}

fn hex_escape(digits: &[u8]) -> Option<u8> {
    let digit = |byte: u8| char::from(byte).to_digit(16);
    let [high, low] = *digits else { return None };
    u8::try_from(digit(high)? * 16 + digit(low)?).ok()
}

/// The decryption state of a document loaded in [`Mode::FindEncryption`], and its
/// encryption dictionary's id; `None` when the empty password does not open it.
fn encryption_state(mut keys: Document) -> Option<(EncryptionState, ObjectId)> {
    let reference = keys.trailer.remove(b"Encrypx")?;
    let dictionary = reference.as_reference().ok()?;
    keys.trailer.set("Encrypt", reference);
    let state = EncryptionState::decode(&keys, "").ok()?;
    Some((state, dictionary))
}

/// The filter lopdf calls with each object it parsed (and each object stream member).
fn filter(id: ObjectId, object: &mut Object) -> Option<(ObjectId, Object)> {
    let verdict = METER.with(|meter| match meter.borrow_mut().as_mut() {
        Some(meter) => meter.see(id, object),
        None => Ok(Verdict::Keep),
    });
    match verdict {
        Ok(Verdict::Keep) => Some((id, Object::Null)),
        Ok(Verdict::KeepMember) => Some((id, std::mem::replace(object, Object::Null))),
        Ok(Verdict::Drop) => None,
        // Out of the RefCell's borrow: unwinding through lopdf is how a load is stopped.
        Err(Spent) => resume_unwind(Box::new(Spent)),
    }
}

/// What the filter tells lopdf of one object.
enum Verdict {
    /// Keep the object as lopdf holds it (for an object of the file: lopdf keeps its own).
    Keep,
    /// Keep this member of an object stream (lopdf keeps what the filter gives back).
    KeepMember,
    Drop,
}

impl Meter {
    fn see(&mut self, id: ObjectId, object: &mut Object) -> Result<Verdict, Spent> {
        if self.members.remove(&id.0) {
            return Ok(Verdict::KeepMember);
        }
        self.members.clear();
        self.objects.spend(parsed_units(object))?;
        match &self.mode {
            Mode::FindEncryption => {
                return Ok(if is_encryption_dictionary(object) {
                    Verdict::Keep
                } else {
                    Verdict::Drop
                });
            }
            Mode::Decrypt { dictionary, .. } if *dictionary == id => return Ok(Verdict::Drop),
            // An object that cannot be decrypted keeps what could be, as lopdf does.
            Mode::Decrypt { state, .. } => drop(decrypt_object(state, id, object)),
            Mode::Count => {}
        }
        self.count_members(object)?;
        Ok(Verdict::Keep)
    }

    /// Charges what lopdf will parse of `object`'s members if it is an object stream: one
    /// object at the offset of each entry of its index, as lopdf reads it.
    fn count_members(&mut self, object: &Object) -> Result<(), Spent> {
        let Ok(stream) = object.as_stream() else {
            return Ok(());
        };
        if !stream.dict.has_type(b"ObjStm") {
            return Ok(());
        }
        let limit = self.object_stream_bytes_left.min(MAX_STREAM_BYTES);
        let Ok(content) = stream.get_plain_content_with_limit(limit) else {
            // lopdf fails as well on a stream it cannot inflate within its own limit, before
            // it parses members; within what is left here, it may not.
            return if limit < MAX_STREAM_BYTES {
                Err(Spent)
            } else {
                Ok(())
            };
        };
        self.object_stream_bytes_left -= content.len();
        let first = stream
            .dict
            .get(b"First")
            .and_then(Object::as_i64)
            .ok()
            .and_then(|first| usize::try_from(first).ok());
        let Some(index) = first.and_then(|first| content.get(..first)) else {
            return Ok(());
        };
        let first = index.len();
        for (id, offset) in index_entries(index) {
            let cost = object_units(&content, first.saturating_add(offset), self.objects.left);
            self.objects.spend(cost)?;
            self.members.insert(id);
        }
        Ok(())
    }
}

/// The `(object number, offset)` pairs of an object stream's index, read as lopdf does.
fn index_entries(index: &[u8]) -> Vec<(u32, usize)> {
    let text = std::str::from_utf8(index).unwrap_or_default();
    let numbers: Vec<Option<u32>> = text
        .split(['\r', '\n'])
        .flat_map(|line| {
            line.split('%')
                .next()
                .unwrap_or_default()
                .split_whitespace()
        })
        .map(|number| number.parse().ok())
        .collect();
    numbers
        .chunks_exact(2)
        .filter_map(|pair| Some((pair[0]?, usize::try_from(pair[1]?).ok()?)))
        .collect()
}

/// What lopdf holds of a parsed object, in units.
fn parsed_units(object: &Object) -> u64 {
    match object {
        Object::Array(items) => CONTAINER_UNITS + items.iter().map(parsed_units).sum::<u64>(),
        Object::Dictionary(dict) => dictionary_units(dict),
        Object::Stream(stream) => 1 + dictionary_units(&stream.dict),
        _ => 1,
    }
}

fn dictionary_units(dict: &lopdf::Dictionary) -> u64 {
    CONTAINER_UNITS
        + dict
            .iter()
            .map(|(_, value)| 1 + parsed_units(value))
            .sum::<u64>()
}

/// True for a standard security handler's dictionary: what `EncryptionState` reads.
fn is_encryption_dictionary(object: &Object) -> bool {
    object
        .as_dict()
        .is_ok_and(|dict| dict.has(b"Filter") && dict.has(b"O") && dict.has(b"U"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use lopdf::{Stream, dictionary};

    #[test]
    fn objects_are_counted_from_every_obj_and_trailer_keyword() {
        // [ 4, 1, [ 4, 2, ] 1, << 4, /A, 3, >> 1, ] 1: containers 4 units, the rest 1 each.
        assert_eq!(object_units(b" [1 [2] << /A 3 >>] endobj", 0, u64::MAX), 19);
        assert_eq!(object_units(b" 12 0 R >> endobj", 0, u64::MAX), 3);
        assert_eq!(object_units(b" (a string) endobj", 0, u64::MAX), 1);
        let elements = usize::try_from(MAX_OBJECT_UNITS).unwrap() / 2;
        let half = format!("1 0 obj [{}] endobj", "0 ".repeat(elements));
        assert_eq!(check_file(half.as_bytes()), Ok(()));
        let twice = format!("{half} (3 0 obj [{}])", "0 ".repeat(elements));
        assert_eq!(check_file(twice.as_bytes()), Err(Spent));
        let trailers = format!("{half} trailer << /A [{}] >>", "0 ".repeat(elements));
        assert_eq!(check_file(trailers.as_bytes()), Err(Spent));
    }

    #[test]
    fn counting_from_many_starts_in_one_long_string_is_charged_by_the_byte() {
        // 100,000 strings nested in one another, each after an `obj`: one unit each by the
        // token, but every count reads on to the end of the outermost string.
        let depth = 100_000;
        let nested = ["(obj ".repeat(depth), ")".repeat(depth)].concat();
        assert_eq!(check_file(nested.as_bytes()), Err(Spent));
        assert_eq!(object_units(&[b' '; 1024], 0, u64::MAX), 4);
    }

    #[test]
    fn an_object_stream_is_refused_before_lopdf_parses_its_members() {
        let content = |entries: u32| {
            let index: String = (0..entries).map(|i| format!("{} 0 ", 10 + i)).collect();
            let members = format!("{index}[{}]", "0 ".repeat(200_000));
            let first = i64::try_from(index.len()).unwrap();
            Object::Stream(Stream::new(
                dictionary! { "Type" => "ObjStm", "N" => entries, "First" => first },
                members.into_bytes(),
            ))
        };
        let see = |mut object: Object| metered(Mode::Count, || filter((9, 0), &mut object));
        assert!(see(content(2)).unwrap().is_some());
        assert_eq!(see(content(8)), Err(Spent));
    }

    #[test]
    fn object_streams_are_inflated_within_the_budget() {
        let mut stream = Stream::new(
            dictionary! { "Type" => "ObjStm", "N" => 0, "First" => 0 },
            vec![b' '; 3 << 20],
        );
        stream.compress().unwrap();
        let object_stream = Object::Stream(stream);
        let seen = |count: u32| {
            metered(Mode::Count, || {
                for id in 0..count {
                    filter((id, 0), &mut object_stream.clone());
                }
            })
        };
        // 64 MiB: 21 streams of 3 MiB fit, 22 do not.
        assert_eq!(seen(21), Ok(()));
        assert_eq!(seen(22), Err(Spent));
    }

    #[test]
    fn an_operation_past_the_limit_and_all_after_it_are_left_out() {
        let content = format!("(a) Tj 1 0 0 1 0 0 cm [{}] TJ (b) Tj", "0 ".repeat(5_000));
        assert_eq!(
            operations_within(content.as_bytes()),
            b"(a) Tj 1 0 0 1 0 0 cm"
        );
        let fits = format!("(a) Tj [{}] TJ (b) Tj", "0 ".repeat(4_000));
        assert_eq!(operations_within(fits.as_bytes()), fits.as_bytes());
    }

    #[test]
    fn every_spelling_of_the_encrypt_name_is_renamed_and_no_other_name() {
        let renamed = |bytes: &[u8]| {
            rename_encrypt(bytes)
                .map(String::from_utf8)
                .map(Result::unwrap)
        };
        assert_eq!(
            renamed(b"<< /Encrypt 5 0 R >>").as_deref(),
            Some("<< /Encrypx 5 0 R >>")
        );
        assert_eq!(
            renamed(b"/Encr#79pt/Encryp#74").as_deref(),
            Some("/Encr#79px/Encryp#78")
        );
        assert_eq!(
            renamed(b"<</Encrypt<<>>>>").as_deref(),
            Some("<</Encrypx<<>>>>")
        );
        assert_eq!(
            renamed(b"/EncryptMetadata false /Encrypted /Encrypt#41"),
            None
        );
        assert_eq!(renamed(b"/Encrypt#zz").as_deref(), Some("/Encrypx#zz"));
        assert_eq!(renamed(b"/encrypt (Encrypt)"), None);
    }
}
