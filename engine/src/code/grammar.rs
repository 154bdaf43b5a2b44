//! Definitions found by a language's tree-sitter grammar: the parse, bounded in bytes and
//! time, and, per language, which nodes define a name, what the name is and which of them
//! hold definitions of their own.
//!
//! The tree is walked with a cursor, never recursively, so a file nested as deep as a
//! hostile one may be costs no stack; a function's body is not entered (its locals are not
//! the file's definitions), nor a comment, a string or a macro's tokens ([`SEALED`]).

use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use tree_sitter::{Node, ParseOptions, Parser, Tree};

use std::time::Duration;

use super::definition::{Definition, Found, Gathered, Lines, MAX_DEFINITIONS};
use super::language::Language;
use super::pieces;

/// What bounds one parse: a file over `max_bytes` or a parse over `max_time` gets the
/// indentation's outline instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseBounds {
    pub max_bytes: usize,
    pub max_time: Duration,
}

impl Default for ParseBounds {
    /// 2 MiB and two seconds. A parse takes about 0.3-0.5 ms a KiB on a slow machine, and
    /// its tree about 40 bytes a byte of source (a 4 MiB Rust file: 170 MB; the benchmark
    /// README has the figures): a source file of 2 MiB, larger than nearly any written by
    /// hand, is parsed whole within about 85 MB, and a grammar that goes slow on hostile
    /// bytes is stopped.
    fn default() -> Self {
        ParseBounds {
            max_bytes: 2 * 1024 * 1024,
            max_time: Duration::from_secs(2),
        }
    }
}

/// The definitions of `text` by `language`'s grammar; `None` when it has none, or the
/// parse went past `bounds` or was stopped. A long text is parsed in pieces at once, each
/// on a thread of its own ([`pieces`]).
pub(crate) fn definitions(
    text: &str,
    language: Language,
    bounds: ParseBounds,
    stop: Option<&AtomicBool>,
) -> Option<Vec<Definition>> {
    let pieces = match language {
        // A JSON file is one value, with no items to cut between. Nearly every long C or
        // C++ file has a parse error somewhere (their macros), and then is parsed again whole.
        Language::Json | Language::C | Language::Cpp => 1,
        _ => pieces::piece_count(text.len()),
    };
    definitions_in_pieces(text, language, bounds, stop, pieces)
}

/// [`definitions`] with the text cut in `pieces` at most. The pieces' definitions are the
/// whole text's when each piece parses without an error: a cut inside an item (a string, a
/// comment, a block whose braces the cut's count missed) leaves one piece unclosed and the
/// next a fragment. When one has an error, the text is parsed again whole.
fn definitions_in_pieces(
    text: &str,
    language: Language,
    bounds: ParseBounds,
    stop: Option<&AtomicBool>,
    pieces: usize,
) -> Option<Vec<Definition>> {
    let grammar = grammar_of(language)?;
    if text.len() > bounds.max_bytes {
        return None;
    }
    let job = ParseJob {
        source: Source { text, language },
        lines: Lines::new(text),
        sealed: SealedKinds::of(&grammar, language),
        grammar,
        started: Instant::now(),
        bounds,
        stop,
    };
    let starts = pieces::piece_starts(text, pieces, language);
    let mut trees = Vec::with_capacity(starts.len() + 1);
    let mut found = match starts.len() {
        1 => None,
        _ => job.in_pieces(&starts, &mut trees)?,
    };
    if found.is_none() {
        // The pieces' trees go first: one parse's trees at most are held at once.
        trees.clear();
        let whole = job.piece(0..text.len(), false)?;
        trees.push(whole.tree);
        found = whole.definitions;
    }
    free(trees, text.len());
    found
}

/// A parse of one text, in one piece or several.
struct ParseJob<'a> {
    source: Source<'a>,
    lines: Lines<'a>,
    sealed: SealedKinds,
    grammar: tree_sitter::Language,
    started: Instant,
    bounds: ParseBounds,
    stop: Option<&'a AtomicBool>,
}

/// A piece of a text parsed, and the definitions walked from it (none when it was to parse
/// without an error and did not).
struct Parsed {
    tree: Tree,
    definitions: Option<Vec<Definition>>,
}

impl ParseJob<'_> {
    /// The pieces starting at `starts` parsed and walked at once, the first on this thread,
    /// their trees put in `trees`: the definitions of all of them, `Some(None)` when one had
    /// a parse error, `None` when a parse gave up.
    fn in_pieces(
        &self,
        starts: &[usize],
        trees: &mut Vec<Tree>,
    ) -> Option<Option<Vec<Definition>>> {
        let ends = starts[1..].iter().copied().chain([self.source.text.len()]);
        let ranges: Vec<_> = starts.iter().copied().zip(ends).collect();
        let pieces: Vec<Option<Parsed>> = std::thread::scope(|scope| {
            let beside: Vec<_> = ranges[1..]
                .iter()
                .map(|&(start, end)| {
                    let job = move || self.piece(start..end, true);
                    (
                        std::thread::Builder::new().spawn_scoped(scope, job),
                        start..end,
                    )
                })
                .collect();
            let first = self.piece(ranges[0].0..ranges[0].1, true);
            let rest = beside.into_iter().map(|(thread, range)| match thread {
                // A thread that panicked has no outline; the indentation's is given.
                Ok(thread) => thread.join().ok().flatten(),
                Err(_) => self.piece(range, true),
            });
            [first].into_iter().chain(rest).collect()
        });
        let mut definitions = Some(Vec::new());
        for piece in pieces {
            let piece = piece?;
            trees.push(piece.tree);
            definitions = definitions.zip(piece.definitions).map(|(mut all, more)| {
                all.extend(more);
                all
            });
        }
        Some(definitions.map(|mut all| {
            all.truncate(MAX_DEFINITIONS);
            all
        }))
    }

    /// The text's bytes `range` parsed and walked (when `error_free` asks, only if it parsed
    /// without an error); `None` past the bounds or once stopped.
    fn piece(&self, range: std::ops::Range<usize>, error_free: bool) -> Option<Parsed> {
        let tree = self.parse(range)?;
        let definitions = (!error_free || !tree.root_node().has_error()).then(|| {
            let mut gathered = Gathered::default();
            walk(
                &tree,
                (&self.source, &self.lines),
                &self.sealed,
                &mut gathered,
            );
            gathered.definitions
        });
        Some(Parsed { tree, definitions })
    }

    /// The text's bytes `range` parsed (positions counted in the whole text); `None` past
    /// the bounds or once stopped (tree-sitter asks between steps whether to go on).
    fn parse(&self, range: std::ops::Range<usize>) -> Option<Tree> {
        allocate_with_mimalloc();
        let mut parser = Parser::new();
        parser.set_language(&self.grammar).ok()?;
        let text = self.source.text;
        if range.len() < text.len() {
            let point = |at: usize| {
                let (row, column) = self.lines.position(at);
                tree_sitter::Point { row, column }
            };
            let included = tree_sitter::Range {
                start_byte: range.start,
                end_byte: range.end,
                start_point: point(range.start),
                end_point: point(range.end),
            };
            parser.set_included_ranges(&[included]).ok()?;
        }
        let mut give_up = |_: &tree_sitter::ParseState| {
            self.started.elapsed() > self.bounds.max_time
                || self.stop.is_some_and(|stop| stop.load(Ordering::Relaxed))
        };
        let options = ParseOptions::new().progress_callback(&mut give_up);
        let bytes = text.as_bytes();
        let mut read = |offset: usize, _| bytes.get(offset..).unwrap_or_default();
        parser.parse_with_options(&mut read, None, Some(options))
    }
}

/// Makes tree-sitter allocate with mimalloc, once, before its first parser. A parse makes an
/// allocation of each node of its tree; the system's allocator spent about a sixth of a
/// parse on them (more on musl's), mimalloc's per-thread heaps a fraction of it.
fn allocate_with_mimalloc() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: every parser of this crate is made after this call (`ParseJob::parse`), and
        // `Once` runs it before any of them, so nothing tree-sitter allocated with another
        // allocator is freed by mimalloc's. Each function has the C signature and meaning
        // tree-sitter asks for (malloc, calloc, realloc, free).
        unsafe {
            tree_sitter::set_allocator(
                Some(libmimalloc_sys::mi_malloc),
                Some(libmimalloc_sys::mi_calloc),
                Some(libmimalloc_sys::mi_realloc),
                Some(libmimalloc_sys::mi_free),
            );
        }
    });
}

/// Trees of texts from this size on are freed on a thread of their own: freeing the tree of
/// a MiB of source takes about 25 ms here, which the answer need not wait for.
const FREED_BESIDE_FROM: usize = 256 * 1024;

/// Frees `trees`, the parse of `text_len` bytes: beside the read when it is large.
fn free(trees: Vec<Tree>, text_len: usize) {
    if text_len >= FREED_BESIDE_FROM {
        // When no thread can be started, the closure, trees and all, is dropped here.
        let _ = std::thread::Builder::new().spawn(move || drop(trees));
    }
}

/// The tree-sitter grammar of `language`, if it has one here.
fn grammar_of(language: Language) -> Option<tree_sitter::Language> {
    let grammar = match language {
        Language::Rust => tree_sitter_rust::LANGUAGE,
        Language::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT,
        Language::Tsx => tree_sitter_typescript::LANGUAGE_TSX,
        Language::JavaScript => tree_sitter_javascript::LANGUAGE,
        Language::Python => tree_sitter_python::LANGUAGE,
        Language::Go => tree_sitter_go::LANGUAGE,
        Language::Java => tree_sitter_java::LANGUAGE,
        Language::C => tree_sitter_c::LANGUAGE,
        Language::Cpp => tree_sitter_cpp::LANGUAGE,
        Language::Json => tree_sitter_json::LANGUAGE,
        Language::Markdown | Language::Yaml | Language::Toml | Language::Other => return None,
    };
    Some(grammar.into())
}

/// The text being outlined and its language.
struct Source<'a> {
    text: &'a str,
    language: Language,
}

impl<'a> Source<'a> {
    fn text_of(&self, node: Node) -> &'a str {
        self.text.get(node.byte_range()).unwrap_or_default()
    }

    /// The text of `node`'s child `field`.
    fn field_text(&self, node: Node, field: &str) -> Option<&'a str> {
        node.child_by_field_name(field)
            .map(|child| self.text_of(child))
    }
}

/// What a node defines.
struct Defined<'a> {
    kind: &'static str,
    /// The node that holds its name (its row is the signature's line).
    name_node: Node<'a>,
    name: &'a str,
    qualifier: Option<String>,
    scope: bool,
    /// What is inside it is not entered (a struct's fields, a signature's types).
    body_closed: bool,
    /// A function or method: what it holds is local, and only what is declared in it (a
    /// nested function, a class) is kept, named after it.
    function: bool,
    /// Named by a variable or a field whose value it is (`const f = () => …`): kept only
    /// outside functions (inside, it is a local value).
    value: bool,
    /// The row it starts on when that is not its node's (what the parse joined to it before).
    first_row: Option<usize>,
}

impl<'a> Defined<'a> {
    /// A definition of `kind` named by `name_node`, neither a scope nor a function.
    fn leaf(kind: &'static str, name_node: Node<'a>, name: &'a str) -> Defined<'a> {
        Defined {
            kind,
            name_node,
            name,
            qualifier: None,
            scope: false,
            body_closed: true,
            function: false,
            value: false,
            first_row: None,
        }
    }

    /// This definition as a function: a scope whose body is entered for what it declares.
    fn into_function(self) -> Defined<'a> {
        Defined {
            scope: true,
            body_closed: false,
            function: true,
            ..self
        }
    }

    /// This definition as a scope, whose body is entered.
    fn into_scope(self) -> Defined<'a> {
        Defined {
            scope: true,
            body_closed: false,
            ..self
        }
    }
}

/// Node kinds that hold no definition in any grammar here, whatever is inside them:
/// comments, string literals (an f-string's interpolation holds expressions, never a `def`),
/// Rust's token trees (a macro's input is tokens to the parse) and `use` trees. A template
/// string is not one (its substitutions may hold a function).
const SEALED: &[&str] = &[
    "comment",
    "line_comment",
    "block_comment",
    "string",
    "string_literal",
    "raw_string_literal",
    "char_literal",
    "character_literal",
    "interpreted_string_literal",
    "token_tree",
    "use_declaration",
];

/// Which node kinds of a grammar are [`SEALED`], and JSON's arrays (a list's items repeat
/// the same keys: they are not the outline), by kind id: the walk visits such a node (a
/// comment documents what follows it) but does not enter it. A node costs the walk 200-300
/// ns here, mostly cache misses on its subtree; a MiB of Rust has a third of its nodes inside
/// comments and token trees.
struct SealedKinds(Vec<bool>);

impl SealedKinds {
    fn of(grammar: &tree_sitter::Language, language: Language) -> SealedKinds {
        let sealed =
            |kind: &str| SEALED.contains(&kind) || language == Language::Json && kind == "array";
        let ids = 0..u16::try_from(grammar.node_kind_count()).unwrap_or(u16::MAX);
        let sealed = ids.map(|id| grammar.node_kind_for_id(id).is_some_and(sealed));
        SealedKinds(sealed.collect())
    }

    fn holds(&self, node: Node) -> bool {
        self.0
            .get(usize::from(node.kind_id()))
            .is_some_and(|&sealed| sealed)
    }
}

/// Walks `tree`, gathering definitions; a node of a `sealed` kind is not entered.
/// Returns how many nodes it visited.
fn walk(
    tree: &Tree,
    (source, lines): (&Source, &Lines),
    sealed: &SealedKinds,
    gathered: &mut Gathered,
) -> usize {
    let mut visited = 0;
    let mut cursor = tree.walk();
    let mut path = vec![Level::first(cursor.node())];
    // Where the functions the walk is in end (bytes).
    let mut functions: Vec<usize> = Vec::new();
    loop {
        let node = cursor.node();
        visited += 1;
        while functions
            .last()
            .is_some_and(|&end| node.start_byte() >= end)
        {
            functions.pop();
        }
        let mut enter = !sealed.holds(node);
        let defined = defined_by(node, source).filter(|d| !d.value || functions.is_empty());
        if let Some(defined) = defined {
            let outer = outer_level(&path);
            let (start, doc_line) = match defined.first_row {
                Some(row) => (row as u64 + 1, row as u64 + 1),
                None => (outer.node.start_position().row as u64 + 1, outer.doc_line()),
            };
            let end = end_line(outer.node);
            gathered.close_before(start);
            let row = defined.name_node.start_position().row;
            if defined.function {
                functions.push(node.end_byte());
            }
            gathered.push(Found {
                name: defined.name,
                qualifier: defined.qualifier,
                kind: defined.kind,
                lines: (start, end.max(start)),
                doc_line,
                signature: lines.get(row),
                scope: defined.scope,
            });
            enter = !defined.body_closed;
        }
        if gathered.full() {
            return visited;
        }
        if enter && cursor.goto_first_child() {
            path.push(Level::first(cursor.node()));
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                if let Some(level) = path.last_mut() {
                    level.step_to(cursor.node());
                }
                break;
            }
            if !cursor.goto_parent() {
                return visited;
            }
            path.pop();
        }
    }
}

/// A node on the walk's path from the root, with the run of comments and attributes just
/// before it among its siblings. Kept as the walk goes: asking a node for its parent or its
/// previous sibling costs tree-sitter a walk among the parent's children, which over a file's
/// thousands of top-level items is quadratic.
struct Level<'t> {
    node: Node<'t>,
    /// The first and the last row of the comments and attributes before `node`, each on the
    /// line after the one before (no blank line between), if the sibling before it is one.
    attached: Option<(usize, usize)>,
}

impl<'t> Level<'t> {
    /// The level of a first child, which has no sibling before it.
    fn first(node: Node<'t>) -> Level<'t> {
        Level {
            node,
            attached: None,
        }
    }

    /// The level of the sibling after this one's node.
    fn step_to(&mut self, next: Node<'t>) {
        let left = self.node;
        let (start, end) = (left.start_position().row, left.end_position().row);
        self.attached = match self.attached {
            _ if !attaches(left) => None,
            Some((first, last)) if last + 1 >= start => Some((first, end)),
            _ => Some((start, end)),
        };
        self.node = next;
    }

    /// The first line of the comments and attributes just above this node (no blank line
    /// between), or the node's own.
    fn doc_line(&self) -> u64 {
        let own = self.node.start_position().row;
        let first = match self.attached {
            Some((first, last)) if last + 1 >= own => first,
            _ => own,
        };
        first as u64 + 1
    }
}

/// Whether `node` is a comment or an attribute, which documents what follows it.
fn attaches(node: Node) -> bool {
    matches!(
        node.kind(),
        "comment"
            | "line_comment"
            | "block_comment"
            | "attribute_item"
            | "decorator"
            | "marker_annotation"
            | "annotation"
    )
}

/// The last line of `node`: a node that ends at the start of a line (after its line break)
/// ends on the line before.
fn end_line(node: Node) -> u64 {
    let end = node.end_position();
    let row = if end.column == 0 && end.row > node.start_position().row {
        end.row - 1
    } else {
        end.row
    };
    row as u64 + 1
}

/// The level on `path` of the node a definition (the last node of `path`) is written as:
/// its own, or that of the `export`, decorators, template or declaration around it.
fn outer_level<'p, 't>(path: &'p [Level<'t>]) -> &'p Level<'t> {
    let mut at = path.len().saturating_sub(1);
    while at > 0 && wraps(path[at - 1].node) {
        at -= 1;
    }
    &path[at]
}

/// Whether `node` is an `export`, decorators, template or declaration around one definition.
fn wraps(node: Node) -> bool {
    matches!(
        node.kind(),
        "export_statement"
            | "decorated_definition"
            | "template_declaration"
            | "ambient_declaration"
            | "lexical_declaration"
            | "variable_declaration"
            | "type_declaration"
            | "expression_statement"
    ) && node.named_child_count() <= 3
}

/// What `node` defines in `source`'s language, if anything.
fn defined_by<'t>(node: Node<'t>, source: &Source<'t>) -> Option<Defined<'t>> {
    match source.language {
        Language::Rust => rust(node, source),
        Language::TypeScript | Language::Tsx | Language::JavaScript => script(node, source),
        Language::Python => python(node, source),
        Language::Go => go(node, source),
        Language::Java => java(node, source),
        Language::C | Language::Cpp => c_family(node, source),
        Language::Json => json(node, source),
        Language::Markdown | Language::Yaml | Language::Toml | Language::Other => None,
    }
}

/// A definition named by `node`'s `name` field.
fn named<'t>(
    node: Node<'t>,
    source: &Source<'t>,
    kind: &'static str,
    scope: bool,
    body_closed: bool,
) -> Option<Defined<'t>> {
    let name_node = node.child_by_field_name("name")?;
    let defined = Defined::leaf(kind, name_node, source.text_of(name_node));
    Some(Defined {
        scope,
        body_closed,
        ..defined
    })
}

/// A function named by `node`'s `name` field.
fn function<'t>(node: Node<'t>, source: &Source<'t>, kind: &'static str) -> Option<Defined<'t>> {
    named(node, source, kind, false, true).map(Defined::into_function)
}

fn rust<'t>(node: Node<'t>, source: &Source<'t>) -> Option<Defined<'t>> {
    let (kind, scope, body_closed) = match node.kind() {
        "function_item" => return function(node, source, "fn"),
        "function_signature_item" => ("fn", false, true),
        "struct_item" => ("struct", false, true),
        "enum_item" => ("enum", false, true),
        "union_item" => ("union", false, true),
        "trait_item" => ("trait", true, false),
        "type_item" => ("type", false, true),
        "const_item" => ("const", false, true),
        "static_item" => ("static", false, true),
        "macro_definition" => ("macro", false, true),
        "mod_item" => ("mod", true, false),
        "impl_item" => return rust_impl(node, source),
        _ => return None,
    };
    named(node, source, kind, scope, body_closed)
}

/// An `impl` block: named after its type (`impl<T> Display for Parser<T>` is `Parser`).
fn rust_impl<'t>(node: Node<'t>, source: &Source<'t>) -> Option<Defined<'t>> {
    let name_node = node.child_by_field_name("type")?;
    let name = base_name(source.text_of(name_node));
    Some(Defined::leaf("impl", name_node, name).into_scope())
}

/// A type's name without its path and generic arguments (`crate::ast::Parser<'a>` is
/// `Parser`, `*Buffer` is `Buffer`).
fn base_name(text: &str) -> &str {
    let text = text.split(['<', '[']).next().unwrap_or(text);
    let text = text.rsplit("::").next().unwrap_or(text);
    text.trim_start_matches(['*', '&', ' ']).trim()
}

fn script<'t>(node: Node<'t>, source: &Source<'t>) -> Option<Defined<'t>> {
    let (kind, scope, body_closed) = match node.kind() {
        "function_declaration" | "generator_function_declaration" => {
            return function(node, source, "function");
        }
        "method_definition" => return function(node, source, "method"),
        "function_signature" => ("function", false, true),
        "class_declaration" | "abstract_class_declaration" => ("class", true, false),
        "method_signature" | "abstract_method_signature" => ("method", false, true),
        // `run?: (input: T) => Promise<R>;` in an interface: a method by its type.
        "property_signature" if typed_as_function(node) => ("method", false, true),
        "interface_declaration" => ("interface", true, false),
        "type_alias_declaration" => ("type", false, true),
        "enum_declaration" => ("enum", false, true),
        "internal_module" | "module" => ("namespace", true, false),
        "variable_declarator" => return script_variable(node, source),
        "assignment_expression" => return script_assignment(node, source),
        "public_field_definition" | "field_definition" => return script_field(node, source),
        _ => return None,
    };
    named(node, source, kind, scope, body_closed)
}

/// Whether `node`'s type annotation is a function type.
fn typed_as_function(node: Node) -> bool {
    node.child_by_field_name("type")
        .and_then(|annotation| annotation.named_child(0))
        .is_some_and(|written| written.kind() == "function_type")
}

/// `const f = (…) => …`, `const C = class {…}`, `const handlers = {…}`: a variable whose
/// value is a function, a class or an object literal (a scope: its methods are named after
/// it), named by the variable.
fn script_variable<'t>(node: Node<'t>, source: &Source<'t>) -> Option<Defined<'t>> {
    let name_node = node.child_by_field_name("name")?;
    if name_node.kind() != "identifier" {
        return None;
    }
    let value = node.child_by_field_name("value")?;
    if value.kind() != "object" {
        return given_function_or_class(value, name_node, source);
    }
    let defined = Defined::leaf("object", name_node, source.text_of(name_node));
    Some(Defined {
        value: true,
        ..defined.into_scope()
    })
}

/// What a name given `value` defines, when `value` is a function or a class.
fn given_function_or_class<'t>(
    value: Node,
    name_node: Node<'t>,
    source: &Source<'t>,
) -> Option<Defined<'t>> {
    let defined = |kind| Defined::leaf(kind, name_node, source.text_of(name_node));
    let defined = match value.kind() {
        "arrow_function" | "function_expression" | "function" | "generator_function" => {
            defined("function").into_function()
        }
        "class" => defined("class").into_scope(),
        _ => return None,
    };
    Some(Defined {
        value: true,
        ..defined
    })
}

/// `a.b.run = function (…) {…}` (and `Foo.prototype.run = …`, `exports.run = …`): a member
/// assigned a function or a class, named by the member and qualified by what holds it when
/// that is a plain path of names.
fn script_assignment<'t>(node: Node<'t>, source: &Source<'t>) -> Option<Defined<'t>> {
    let left = node.child_by_field_name("left")?;
    let (name_node, qualifier) = match left.kind() {
        "identifier" => (left, None),
        "member_expression" => {
            let holder = source.field_text(left, "object")?;
            let plain = |c: char| c.is_alphanumeric() || matches!(c, '_' | '$' | '.');
            let qualifier = holder.chars().all(plain).then(|| holder.to_owned());
            (left.child_by_field_name("property")?, qualifier)
        }
        _ => return None,
    };
    let defined = given_function_or_class(node.child_by_field_name("right")?, name_node, source)?;
    Some(Defined {
        qualifier,
        ..defined
    })
}

/// A class field whose value is a function (`handle = () => …`: a method) or a class.
fn script_field<'t>(node: Node<'t>, source: &Source<'t>) -> Option<Defined<'t>> {
    let name_node = node
        .child_by_field_name("name")
        .or_else(|| node.child_by_field_name("property"))?;
    let defined = given_function_or_class(node.child_by_field_name("value")?, name_node, source)?;
    Some(match defined.kind {
        "function" => Defined {
            kind: "method",
            ..defined
        },
        _ => defined,
    })
}

fn python<'t>(node: Node<'t>, source: &Source<'t>) -> Option<Defined<'t>> {
    match node.kind() {
        "function_definition" => function(node, source, "def"),
        "class_definition" => named(node, source, "class", true, false),
        _ => None,
    }
}

fn go<'t>(node: Node<'t>, source: &Source<'t>) -> Option<Defined<'t>> {
    match node.kind() {
        "function_declaration" => function(node, source, "func"),
        "method_declaration" => {
            let mut defined = function(node, source, "method")?;
            defined.qualifier = go_receiver(node, source);
            Some(defined)
        }
        "type_spec" | "type_alias" => named(node, source, "type", false, true),
        _ => None,
    }
}

/// The type a Go method is declared on (`func (p *Parser[T]) …` is `Parser`).
fn go_receiver(node: Node, source: &Source) -> Option<String> {
    let receiver = node.child_by_field_name("receiver")?;
    let mut cursor = receiver.walk();
    let parameter = receiver.named_children(&mut cursor).next()?;
    let type_text = source.field_text(parameter, "type")?;
    Some(base_name(type_text).to_owned()).filter(|name| !name.is_empty())
}

fn java<'t>(node: Node<'t>, source: &Source<'t>) -> Option<Defined<'t>> {
    let (kind, scope, body_closed) = match node.kind() {
        "class_declaration" => ("class", true, false),
        "interface_declaration" => ("interface", true, false),
        "enum_declaration" => ("enum", true, false),
        "record_declaration" => ("record", true, false),
        "annotation_type_declaration" => ("@interface", true, false),
        "method_declaration" => return function(node, source, "method"),
        "constructor_declaration" | "compact_constructor_declaration" => {
            return function(node, source, "constructor");
        }
        _ => return None,
    };
    named(node, source, kind, scope, body_closed)
}

fn c_family<'t>(node: Node<'t>, source: &Source<'t>) -> Option<Defined<'t>> {
    match node.kind() {
        "function_definition" => defined_function(node, source),
        // A prototype (a header's functions) or a method declared in its class.
        "declaration" | "field_declaration" => {
            let declarator = node.child_by_field_name("declarator")?;
            if !declares_function(declarator) {
                return None;
            }
            declared(node, source, "function", true)
        }
        "struct_specifier" | "union_specifier" | "enum_specifier" | "class_specifier" => {
            node.child_by_field_name("body")?;
            let kind = match node.kind() {
                "struct_specifier" => "struct",
                "union_specifier" => "union",
                "enum_specifier" => "enum",
                _ => "class",
            };
            // A specialization (`struct hash<bool>`) is named by its template.
            let defined = named(node, source, kind, kind != "enum", kind == "enum")?;
            Some(Defined {
                name: base_name(defined.name),
                ..defined
            })
        }
        "type_definition" => {
            let name_node = declarator_name(node.child_by_field_name("declarator")?)?;
            let defined = Defined::leaf("typedef", name_node, source.text_of(name_node));
            Some(Defined {
                body_closed: false,
                ..defined
            })
        }
        "namespace_definition" => named(node, source, "namespace", true, false),
        "preproc_function_def" => named(node, source, "macro", false, true),
        _ => None,
    }
}

/// A function definition, unless its parse says it is none: a declarator that declares no
/// function (a macro the grammar took for a type, `namespace std _MACRO(x) {`), or
/// declarations between it and its body (a macro call with no `;` read as an old-style
/// definition whose parameters are the declarations after it). Then it is entered, and
/// what it holds is found. A declarator the parse set apart (`int f() const _MACRO {`) names
/// the function; a struct the parse took for one after macro calls is that struct.
fn defined_function<'t>(node: Node<'t>, source: &Source<'t>) -> Option<Defined<'t>> {
    if named_children(node)
        .iter()
        .any(|child| child.kind() == "declaration")
    {
        return None;
    }
    let declarator = node.child_by_field_name("declarator")?;
    if let Some(tagged) = tagged_after_macro_calls(declarator, source) {
        return Some(tagged);
    }
    let declarator = match declares_function(declarator) {
        true => declarator,
        false => declarator_set_apart(node, declarator)?,
    };
    declared_by(declarator, source, "function", true).map(Defined::into_function)
}

/// A struct, union or enum after macro calls with no `;`, which the parse read as a function
/// named by the last call, the keyword and the tag as two names after its parameters and the
/// members as its body (`DECLARE_ASN1_FUNCTIONS(X)` then `struct x_st {`). It starts at its
/// keyword.
fn tagged_after_macro_calls<'t>(declarator: Node<'t>, source: &Source<'t>) -> Option<Defined<'t>> {
    if declarator.kind() != "function_declarator" {
        return None;
    }
    let [.., keyword, tag] = named_children(declarator)[..] else {
        return None;
    };
    let written = source.text_of(keyword);
    let kind = ["struct", "union", "enum"]
        .into_iter()
        .find(|&kind| kind == written)?;
    (keyword.kind() == "identifier" && tag.kind() == "identifier").then(|| Defined {
        scope: kind != "enum",
        body_closed: kind == "enum",
        first_row: Some(keyword.start_position().row),
        ..Defined::leaf(kind, tag, source.text_of(tag))
    })
}

/// The function declarator the parse put in an `ERROR` beside the one it took, among the
/// definition's children (`_GLIBCXX_NODISCARD bool empty() const _GLIBCXX_NOEXCEPT {`) or
/// those of the declarator's layers (`_CharT* _M_data() const _GLIBCXX_NOEXCEPT {`).
fn declarator_set_apart<'t>(definition: Node<'t>, declarator: Node<'t>) -> Option<Node<'t>> {
    let layers = std::iter::successors(Some(declarator), |&layer| inner_declarator(layer));
    std::iter::once(definition)
        .chain(layers.take(16))
        .flat_map(|holder| {
            named_children(holder)
                .into_iter()
                .filter(|child| child.kind() == "ERROR")
        })
        .flat_map(named_children)
        .find(|inner| declares_function(*inner))
}

/// `node`'s named children (by a cursor: asking for the child at an index walks from the first).
fn named_children(node: Node) -> Vec<Node> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

/// A function defined or declared by `node`, named by its declarator (`Parser::parse` is
/// `parse` in `Parser`).
fn declared<'t>(
    node: Node<'t>,
    source: &Source<'t>,
    kind: &'static str,
    body_closed: bool,
) -> Option<Defined<'t>> {
    declared_by(
        node.child_by_field_name("declarator")?,
        source,
        kind,
        body_closed,
    )
}

/// The function `declarator` declares: its name, and the scopes a qualified name states (a
/// scope the parse had to guess, with a `::` missing, is left out).
fn declared_by<'t>(
    declarator: Node<'t>,
    source: &Source<'t>,
    kind: &'static str,
    body_closed: bool,
) -> Option<Defined<'t>> {
    let mut name_node = declarator_name(declarator)?;
    let mut scopes: Vec<&str> = Vec::new();
    while name_node.kind() == "qualified_identifier" {
        let Some(name) = name_node.child_by_field_name("name") else {
            break;
        };
        let scope = name_node.child_by_field_name("scope");
        if let Some(scope) = scope.filter(|_| !name_node.has_error()) {
            scopes.push(base_name(source.text_of(scope)));
        }
        name_node = name;
    }
    let text = source.text_of(name_node).trim();
    // A name the parse ran across lines ends with the name itself.
    let name = text.rsplit(char::is_whitespace).next().unwrap_or(text);
    let qualifier = (!scopes.is_empty()).then(|| scopes.join("."));
    Some(Defined {
        qualifier,
        body_closed,
        ..Defined::leaf(kind, name_node, name.trim_start_matches("::"))
    })
}

/// Whether a declarator declares a function (through pointers, references and parentheses).
fn declares_function(declarator: Node) -> bool {
    let mut node = declarator;
    for _ in 0..16 {
        if node.kind() == "function_declarator" {
            return true;
        }
        match inner_declarator(node) {
            Some(inner) => node = inner,
            None => return false,
        }
    }
    false
}

/// The node that holds the name a declarator declares.
fn declarator_name(declarator: Node) -> Option<Node> {
    let mut node = declarator;
    for _ in 0..16 {
        match node.kind() {
            "identifier"
            | "field_identifier"
            | "type_identifier"
            | "qualified_identifier"
            | "destructor_name"
            | "operator_name"
            | "primitive_type" => return Some(node),
            _ => node = inner_declarator(node)?,
        }
    }
    None
}

/// The declarator inside `node` (`*p`, `f(…)`, `a[…]`, `&r`, `(x)`).
fn inner_declarator(node: Node) -> Option<Node> {
    node.child_by_field_name("declarator").or_else(|| {
        let mut cursor = node.walk();
        let last = node.named_children(&mut cursor).last();
        last.filter(|child| child.kind() != "parameter_list")
    })
}

/// A JSON object's key: its pairs are the outline, but those inside arrays (a list's items
/// repeat the same keys).
fn json<'t>(node: Node<'t>, source: &Source<'t>) -> Option<Defined<'t>> {
    match node.kind() {
        "pair" => {
            let key = node.child_by_field_name("key")?;
            let name = source.text_of(key).trim_matches('"');
            let value = node.child_by_field_name("value");
            let container = value.is_some_and(|value| matches!(value.kind(), "object"));
            let defined = Defined::leaf("key", key, name);
            Some(match container {
                true => defined.into_scope(),
                false => defined,
            })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(name path, kind, start, end, doc line)` of each definition of `text`.
    fn outlined(text: &str, language: Language) -> Vec<(String, &'static str, u64, u64, u64)> {
        definitions(text, language, ParseBounds::default(), None)
            .expect("parsed")
            .into_iter()
            .map(|d| (d.name_path, d.kind, d.start_line, d.end_line, d.doc_line))
            .collect()
    }

    fn paths(text: &str, language: Language) -> Vec<String> {
        outlined(text, language).into_iter().map(|d| d.0).collect()
    }

    #[test]
    fn rust_items_are_named_after_their_impl_trait_and_module() {
        let text = "\
use std::fmt;

/// A parser.
#[derive(Debug)]
pub struct Parser<'a> {
    src: &'a str,
}

impl<'a> Parser<'a> {
    /// Makes one.
    pub fn new(src: &'a str) -> Self {
        fn helper() {}
        Parser { src }
    }

    pub fn parse_statement(&mut self) {}
}

impl fmt::Display for Parser<'_> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { Ok(()) }
}

mod inner {
    pub trait Visit {
        fn visit(&self);
    }
}
";
        let found = outlined(text, Language::Rust);
        let expected: Vec<(String, &str, u64, u64, u64)> = [
            ("Parser", "struct", 5, 7, 3),
            ("Parser", "impl", 9, 17, 9),
            ("Parser.new", "fn", 11, 14, 10),
            ("Parser.new.helper", "fn", 12, 12, 12),
            ("Parser.parse_statement", "fn", 16, 16, 16),
            ("Parser", "impl", 19, 21, 19),
            ("Parser.fmt", "fn", 20, 20, 20),
            ("inner", "mod", 23, 27, 23),
            ("inner.Visit", "trait", 24, 26, 24),
            ("inner.Visit.visit", "fn", 25, 25, 25),
        ]
        .into_iter()
        .map(|(p, k, s, e, d)| (p.to_owned(), k, s, e, d))
        .collect();
        assert_eq!(found, expected);
    }

    #[test]
    fn python_classes_methods_and_decorated_functions() {
        let text = "\
import os

class Parser:
    \"\"\"Parses.\"\"\"

    @staticmethod
    def make():
        def local():
            pass
        return Parser()

    def parse(self):
        pass

# the entry point
def main():
    pass
";
        let found = outlined(text, Language::Python);
        assert_eq!(
            found,
            vec![
                ("Parser".to_owned(), "class", 3, 13, 3),
                ("Parser.make".to_owned(), "def", 6, 10, 6),
                ("Parser.make.local".to_owned(), "def", 8, 9, 8),
                ("Parser.parse".to_owned(), "def", 12, 13, 12),
                ("main".to_owned(), "def", 16, 17, 15),
            ]
        );
    }

    #[test]
    fn a_computed_method_name_over_many_lines_is_cut_to_its_first() {
        let key = (0..300)
            .map(|n| format!("  a{n} = new Map(),\n"))
            .collect::<String>();
        let text = format!(
            "class Stream {{\n  [(\n{key}  b)]() {{\n    return 1\n  }}\n  read() {{}}\n}}\n"
        );
        assert_eq!(
            paths(&text, Language::JavaScript),
            ["Stream", "Stream.[(…", "Stream.read"]
        );
    }

    #[test]
    fn typescript_and_javascript_declarations_with_their_export() {
        let text = "\
import x from 'x'

/** Reads. */
export function read(path: string): string {
  return path
}

export class Reader<T> {
  private n = 0
  handle = (e: Event) => {
    return e
  }
  static Cursor = class {
    next() {}
  }
  read(): T {
    return null as T
  }
}

export interface Options {
  path: string
  open(): void
  onRead?: <T>(chunk: T) => void
}

export type Mode = 'a' | 'b'
const helper = async () => 1
let count = 3
export const handlers = {
  onRead() {},
  mode: 1,
}
namespace NS {
  export function inside() {}
}
";
        assert_eq!(
            paths(text, Language::TypeScript),
            [
                "read",
                "Reader",
                "Reader.handle",
                "Reader.Cursor",
                "Reader.Cursor.next",
                "Reader.read",
                "Options",
                "Options.open",
                "Options.onRead",
                "Mode",
                "helper",
                "handlers",
                "handlers.onRead",
                "NS",
                "NS.inside"
            ]
        );
        let found = outlined(text, Language::TypeScript);
        assert_eq!(
            (found[0].2, found[0].4),
            (4, 3),
            "export included, doc above"
        );
        let js =
            "export default class A {\n  m() {}\n}\nfunction f() {}\nconst g = function () {}\n";
        assert_eq!(paths(js, Language::JavaScript), ["A", "A.m", "f", "g"]);
        assert_eq!(paths("const A = () => <div/>\n", Language::Tsx), ["A"]);
    }

    #[test]
    fn a_member_assigned_a_function_is_named_after_what_holds_it() {
        let js = "\
function Parser() {}
// Parses one.
Parser.prototype.parse = function (text) {
  inner.helper = function () {};
  return text;
};
exports.run = async () => {};
webidl.converters.Request = class {};
make().x = function () {};
total = 3;
";
        let found = outlined(js, Language::JavaScript);
        let found: Vec<_> = found
            .iter()
            .map(|d| (d.0.as_str(), d.1, d.2, d.3, d.4))
            .collect();
        assert_eq!(
            found,
            [
                ("Parser", "function", 1, 1, 1),
                // Its statement's lines, the comment above it included; not what its body assigns.
                ("Parser.prototype.parse", "function", 3, 6, 2),
                ("exports.run", "function", 7, 7, 7),
                ("webidl.converters.Request", "class", 8, 8, 8),
                // A holder that is not a path of names is left out of the name.
                ("x", "function", 9, 9, 9),
            ]
        );
    }

    #[test]
    fn go_methods_are_named_after_their_receiver() {
        let text = "\
package p

// Parser parses.
type Parser struct {
	src string
}

func (p *Parser) Parse() error {
	return nil
}

func New[T any](src string) *Parser {
	return nil
}
";
        let found = outlined(text, Language::Go);
        assert_eq!(
            found,
            vec![
                ("Parser".to_owned(), "type", 4, 6, 3),
                ("Parser.Parse".to_owned(), "method", 8, 10, 8),
                ("New".to_owned(), "func", 12, 14, 12),
            ]
        );
    }

    #[test]
    fn java_members_nest_in_their_class() {
        let text = "\
package p;

public class Parser {
    @Override
    public String toString() { return \"\"; }

    Parser(int n) {}

    interface Visitor { void visit(); }
}
";
        assert_eq!(
            paths(text, Language::Java),
            [
                "Parser",
                "Parser.toString",
                "Parser.Parser",
                "Parser.Visitor",
                "Parser.Visitor.visit"
            ]
        );
    }

    #[test]
    fn c_and_cpp_functions_prototypes_types_and_qualified_names() {
        let c = "\
#include <stdio.h>
#define MAX(a, b) ((a) > (b) ? (a) : (b))

typedef struct point { int x; } point_t;

/* Opens. */
static int *open_file(const char *path);

int main(int argc, char **argv) {
    return 0;
}
";
        assert_eq!(
            paths(c, Language::C),
            ["MAX", "point_t", "point", "open_file", "main"]
        );
        let cpp = "\
namespace ns {
class Parser {
 public:
  Parser();
  int parse(int n);
};
}

int ns::Parser::parse(int n) { return n; }

template <typename T>
T twice(T v) { return v + v; }
";
        assert_eq!(
            paths(cpp, Language::Cpp),
            [
                "ns",
                "ns.Parser",
                "ns.Parser.Parser",
                "ns.Parser.parse",
                "ns.Parser.parse",
                "twice"
            ]
        );
        let found = outlined(cpp, Language::Cpp);
        assert_eq!(
            (found[5].2, found[5].3),
            (11, 12),
            "the template line included"
        );
    }

    #[test]
    fn inside_a_function_what_it_declares_is_kept_and_its_local_values_are_not() {
        let js = "\
(function () {
  function inner() {
    const local = () => 1
    const options = { a: 1 }
    class Local {}
  }
  const value = () => 2
})()
const top = () => {
  function nested() {}
}
";
        assert_eq!(
            paths(js, Language::JavaScript),
            ["inner", "inner.Local", "value", "top", "top.nested"]
        );
    }

    #[test]
    fn what_a_macro_makes_the_parse_guess_is_read_for_what_it_holds() {
        // A namespace behind a macro: the grammar reads a function named `namespace`.
        let cpp = "\
namespace std _GLIBCXX_VISIBILITY(default)
{
_GLIBCXX_BEGIN_NAMESPACE_VERSION
namespace ranges
{
  struct __all_of_fn
  {
    int x;
  };
}
}
";
        assert_eq!(paths(cpp, Language::Cpp), ["std", "std.__all_of_fn"]);
        // A macro after a method's parameters: the method keeps its name.
        let member = "class S {\n  int begin() const _GLIBCXX_NOEXCEPT { return 1; }\n};\n";
        assert_eq!(paths(member, Language::Cpp), ["S", "S.begin"]);
        // A macro before a return type: no scope is guessed, and the name is the function's.
        let template = "\
template<typename _InputIterator, typename _ForwardIterator>
    _GLIBCXX20_CONSTEXPR
    _ForwardIterator
    __do_uninit_copy(_InputIterator __first)
    { return 0; }
";
        let found = definitions(template, Language::Cpp, ParseBounds::default(), None).unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(
            (
                found[0].name_path.as_str(),
                found[0].signature.as_str(),
                found[0].start_line
            ),
            (
                "__do_uninit_copy",
                "__do_uninit_copy(_InputIterator __first)",
                1
            )
        );
        // Macro calls with no `;`: the declarations after them are still found.
        let c = "\
int a;
DECLARE_ASN1_FUNCTIONS(BASIC_CONSTRAINTS)
DECLARE_ASN1_FUNCTIONS(PKEY_USAGE_PERIOD)
int f(void);
typedef struct x { int y; } X;
";
        let found = paths(c, Language::C);
        assert!(found.contains(&"f".to_owned()), "{found:?}");
        // A struct after them is the struct, from its keyword (not a function named by the
        // last call, from the first).
        let c = "\
DECLARE_ASN1_FUNCTIONS(PROXY_POLICY)
DECLARE_ASN1_FUNCTIONS(PROXY_CERT_INFO_EXTENSION)

struct ISSUING_DIST_POINT_st {
    DIST_POINT_NAME *distpoint;
    int onlyuser;
};
";
        assert_eq!(
            outlined(c, Language::C),
            [("ISSUING_DIST_POINT_st".to_owned(), "struct", 4, 7, 4)]
        );
        // A macro after the parameters, the return type on the line before: the parse puts
        // the method in an error beside the type, or inside a pointer's or a reference's.
        let members = "\
namespace std _GLIBCXX_VISIBILITY(default)
{
  class deque
  {
    public:
      _GLIBCXX_NODISCARD
      reference
      back() _GLIBCXX_NOEXCEPT
      { return *end(); }

      _GLIBCXX_NODISCARD bool
      empty() const _GLIBCXX_NOEXCEPT
      { return _M_t.empty(); }

      _CharT*
      _M_data() const _GLIBCXX_NOEXCEPT
      { return  _M_dataplus._M_p; }

      static _Rep&
      _S_empty_rep() _GLIBCXX_NOEXCEPT
      { return _Rep::_S_empty_rep(); }
  };
}
";
        let found = outlined(members, Language::Cpp);
        let names: Vec<(&str, u64)> = found.iter().map(|f| (f.0.as_str(), f.2)).collect();
        assert_eq!(
            names,
            [
                ("std", 1),
                ("std.deque", 3),
                ("std.deque.back", 6),
                ("std.deque.empty", 11),
                ("std.deque._M_data", 15),
                ("std.deque._S_empty_rep", 19),
            ]
        );
        // A specialization is named by its template.
        let special = "template <> struct hash<bool> { int h; };\n";
        assert_eq!(paths(special, Language::Cpp), ["hash"]);
    }

    #[test]
    fn comments_strings_and_token_trees_are_not_entered() {
        let text = format!(
            "/// Doc.\n// {}\nfn f() {{\n    let s = \"{}\";\n    m!({});\n    fn inner() {{}}\n}}\n",
            "word ".repeat(200),
            "\\n".repeat(200),
            "a + ".repeat(200)
        );
        let grammar = grammar_of(Language::Rust).unwrap();
        let tree = {
            allocate_with_mimalloc();
            let mut parser = Parser::new();
            parser.set_language(&grammar).unwrap();
            parser.parse(&text, None).unwrap()
        };
        let source = Source {
            text: &text,
            language: Language::Rust,
        };
        let lines = Lines::new(&text);
        let walked = |sealed: &SealedKinds| {
            let mut gathered = Gathered::default();
            let visited = walk(&tree, (&source, &lines), sealed, &mut gathered);
            let names: Vec<String> = gathered
                .definitions
                .into_iter()
                .map(|d| d.name_path)
                .collect();
            (visited, names)
        };
        let (sealed, found) = walked(&SealedKinds::of(&grammar, Language::Rust));
        let (open, found_open) = walked(&SealedKinds(Vec::new()));
        assert_eq!(found, ["f", "f.inner"]);
        assert_eq!(found, found_open);
        assert!(
            sealed * 10 < open,
            "{sealed} nodes visited, {open} when every node is entered"
        );
    }

    #[test]
    fn every_sealed_kind_is_a_kind_of_some_grammar() {
        use Language::*;
        let grammars: Vec<_> = [
            Rust, TypeScript, Tsx, JavaScript, Python, Go, Java, C, Cpp, Json,
        ]
        .into_iter()
        .filter_map(grammar_of)
        .collect();
        for kind in SEALED {
            let ids = |grammar: &tree_sitter::Language| grammar.id_for_node_kind(kind, true);
            assert!(
                grammars.iter().any(|grammar| ids(grammar) != 0),
                "{kind} is no grammar's kind"
            );
        }
    }

    #[test]
    fn json_keys_nest_but_not_inside_arrays() {
        let text = "{\n  \"name\": \"x\",\n  \"scripts\": {\n    \"test\": \"t\"\n  },\n  \"list\": [{\"a\": 1}]\n}\n";
        assert_eq!(
            paths(text, Language::Json),
            ["name", "scripts", "scripts.test", "list"]
        );
        // A key whose value is a list is not entered; a file that is a list is not either.
        let list = "[{\"a\": 1}, {\"a\": 2}]\n";
        assert_eq!(paths(list, Language::Json), Vec::<String>::new());
    }

    #[test]
    fn a_parse_past_its_time_or_stopped_gives_no_definitions() {
        let text = "fn f() {}\n".repeat(20_000);
        let instant = ParseBounds {
            max_bytes: usize::MAX,
            max_time: std::time::Duration::ZERO,
        };
        assert_eq!(definitions(&text, Language::Rust, instant, None), None);
        let stopped = AtomicBool::new(true);
        let bounds = ParseBounds::default();
        assert_eq!(
            definitions(&text, Language::Rust, bounds, Some(&stopped)),
            None
        );
        let small = ParseBounds {
            max_bytes: 10,
            ..bounds
        };
        assert_eq!(definitions(&text, Language::Rust, small, None), None);
        assert!(definitions(&text, Language::Rust, bounds, None).is_some());
        // In pieces, each piece's parse is bounded alike.
        let spaced = "fn f() {}\n\n".repeat(2_000);
        assert_eq!(pieces::piece_starts(&spaced, 4, Language::Rust).len(), 4);
        for (bounds, stop) in [(instant, None), (bounds, Some(&stopped))] {
            let given_up = definitions_in_pieces(&spaced, Language::Rust, bounds, stop, 4);
            assert_eq!(given_up, None);
        }
    }

    /// `item` (its `{n}` numbered) repeated `count` times after `head`.
    fn repeated(head: &str, item: &str, count: usize) -> String {
        let items = (0..count).map(|n| item.replace("{n}", &n.to_string()));
        std::iter::once(head.to_owned()).chain(items).collect()
    }

    #[test]
    fn a_text_parsed_in_pieces_has_the_definitions_it_has_whole() {
        let samples = [
            (
                Language::Rust,
                "use std::fmt;\n\n",
                "/// Doc.\n#[derive(Debug)]\npub struct S{n} {\n    a: u32,\n}\n\nimpl S{n} {\n    /// Makes one.\n    pub fn new() -> Self {\n        fn helper() {}\n\n        S{n} { a: 1 }\n    }\n}\n\nmod m{n} {\n    pub fn f() {}\n}\n\n",
            ),
            (
                Language::Python,
                "import os\n\n",
                "@decorator\ndef f{n}(x):\n    \"\"\"Doc.\"\"\"\n\n    return x\n\n\nclass C{n}(Base):\n    def m(self):\n        pass\n\n",
            ),
            (
                Language::TypeScript,
                "import { a } from 'a'\n\n",
                "/** Doc. */\nexport function f{n}(a: number): number {\n  return a\n}\n\nexport class C{n} {\n  m(): void {}\n}\n\nconst o{n} = { a() {} }\n\n",
            ),
            (
                Language::JavaScript,
                "'use strict'\n\n",
                "function f{n}() {}\n\nclass C{n} {\n  m() {}\n}\n\n",
            ),
            (
                Language::Go,
                "package p\n\n",
                "// F{n} does.\nfunc F{n}() {}\n\ntype T{n} struct {\n\tA int\n}\n\nfunc (t *T{n}) M() {}\n\n",
            ),
            (
                Language::C,
                "#include <a.h>\n\n",
                "/* Doc. */\nstatic int f{n}(int a)\n{\n\treturn a;\n}\n\nstruct s{n} {\n\tint a;\n};\n\n",
            ),
            (
                Language::Cpp,
                "#include <a>\n\n",
                "namespace n{n} {\nint f();\n}\n\nclass K{n} {\npublic:\n  void m();\n};\n\n",
            ),
            (
                Language::Java,
                "package p;\n\n",
                "class A{n} {\n    void m() {}\n}\n\n",
            ),
        ];
        let bounds = ParseBounds::default();
        for (language, head, item) in samples {
            let text = repeated(head, item, 400);
            assert_eq!(
                pieces::piece_starts(&text, 4, language).len(),
                4,
                "{language:?} is cut"
            );
            let whole = definitions_in_pieces(&text, language, bounds, None, 1).expect("parsed");
            let in_pieces = definitions_in_pieces(&text, language, bounds, None, 4);
            assert!(whole.len() >= 800, "{language:?}: {}", whole.len());
            assert_eq!(in_pieces.as_ref(), Some(&whole), "{language:?}");
        }
    }

    /// The names of `text`'s definitions parsed in two pieces, its cut checked to fall where
    /// `cut_at` starts.
    fn cut_in_two(text: &str, language: Language, cut_at: &str) -> Vec<String> {
        let starts = pieces::piece_starts(text, 2, language);
        assert!(text[starts[1]..].starts_with(cut_at), "{language:?}");
        let in_pieces = definitions_in_pieces(text, language, ParseBounds::default(), None, 2);
        in_pieces.into_iter().flatten().map(|d| d.name).collect()
    }

    #[test]
    fn a_cut_inside_an_item_leaves_the_text_parsed_whole() {
        // The only line a cut may fall on in the second half is inside a string.
        let lines = "x = 1\n".repeat(400);
        let text = format!(
            "{lines}{lines}S = \"\"\"\n\ndef inside_the_string():\n    pass\n\"\"\"\n{lines}def real():\n    pass\n"
        );
        assert_eq!(cut_in_two(&text, Language::Python, "def inside"), ["real"]);
        // In Rust, a cut in a block a brace in a string over two lines hid from the count.
        let body = "    let a = 1;\n".repeat(400);
        let text = format!(
            "fn outer() {{\n    let s = \"\n}}\";\n{body}{body}\nlet_me_look_like_an_item();\n{body}}}\n\nfn after() {{}}\n"
        );
        assert_eq!(
            cut_in_two(&text, Language::Rust, "let_me_"),
            ["outer", "after"]
        );
    }

    #[test]
    fn a_nesting_deeper_than_any_stack_is_walked() {
        let text = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
        assert_eq!(
            definitions(&text, Language::Json, ParseBounds::default(), None),
            Some(vec![])
        );
        let nested = format!("{}{}", "mod m {".repeat(5_000), "}".repeat(5_000));
        let found = definitions(&nested, Language::Rust, ParseBounds::default(), None).unwrap();
        assert_eq!(found.len(), crate::code::definition::MAX_DEPTH as usize);
    }
}
