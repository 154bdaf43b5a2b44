//! An array of objects of one shape, packed for one step: the strings of all its leaves in
//! one string, and a number a leaf in a typed array; the list literal of its shape and its
//! leaves' kinds (compiled once, as an object's is) makes the objects from them in
//! JavaScript. An outline
//! page of 200 definitions has 1,600 leaves: made one Node-API call each, and each object by
//! a call of its literal, it cost 220-460 µs here; packed, it is one string, two typed
//! arrays and one call.

use std::fmt;

use serde::ser::{self, Impossible, Serialize};

use super::{Key, same_keys};

/// A leaf's kind, which says how the list literal reads it ([`super::list_source`]).
pub(super) const STRING: u8 = 0;
pub(super) const NUMBER: u8 = 1;
pub(super) const BOOLEAN: u8 = 2;
pub(super) const NULL: u8 = 3;

/// The largest integer a JavaScript number holds exactly; a `u64` past it is a BigInt, which
/// is not packed.
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// The objects of an array packed so far.
pub(super) struct Packed {
    /// How many objects the array holds.
    len: usize,
    /// The shape of every object (the first's).
    pub(super) keys: Vec<Key>,
    pub(super) count: usize,
    /// The strings of the leaves, one after another.
    pub(super) text: String,
    /// Whether `text` is ASCII.
    pub(super) ascii: bool,
    /// A leaf each: a string's length in UTF-16 units, a number, a boolean as 1 or 0.
    pub(super) numbers: Vec<f64>,
    /// The kind of each leaf of an object ([`STRING`], [`NUMBER`], [`BOOLEAN`], [`NULL`]): the
    /// same in every object (the first's).
    pub(super) kinds: Vec<u8>,
    /// The keys and leaf kinds of the object being packed.
    packing: (Vec<Key>, Vec<u8>),
}

impl Packed {
    /// The packing of an array of `len` elements.
    pub(super) fn new(len: usize) -> Packed {
        Packed {
            len,
            keys: Vec::new(),
            count: 0,
            text: String::new(),
            ascii: true,
            numbers: Vec::new(),
            kinds: Vec::new(),
            packing: (Vec::new(), Vec::new()),
        }
    }

    /// Packs `element`: `false`, and nothing of it kept, when it is not an object, holds an
    /// array or a BigInt, or its keys or its leaves' kinds are not the first's.
    pub(super) fn pack<T: Serialize + ?Sized>(&mut self, element: &T) -> bool {
        let (text, leaves) = (self.text.len(), self.numbers.len());
        self.packing.0.clear();
        self.packing.1.clear();
        let element_of = Leaf {
            packed: self,
            key: None,
        };
        let packed = element.serialize(element_of).is_ok()
            && (self.count == 0
                || (same_keys(&self.keys, &self.packing.0) && self.kinds == self.packing.1));
        if !packed {
            self.text.truncate(text);
            self.numbers.truncate(leaves);
            return false;
        }
        if self.count == 0 {
            // The rest are sized like the first.
            let (keys, kinds) = std::mem::take(&mut self.packing);
            (self.keys, self.kinds) = (keys, kinds);
            let rest = self.len.saturating_sub(1);
            self.text.reserve(self.text.len().saturating_mul(rest));
            self.numbers
                .reserve(self.numbers.len().saturating_mul(rest));
        }
        self.count += 1;
        true
    }

    fn leaf(&mut self, key: &'static str, kind: u8, number: f64) {
        self.packing.0.push(Key::Value(key));
        self.packing.1.push(kind);
        self.numbers.push(number);
    }

    fn string(&mut self, key: &'static str, value: &str) {
        let units = match value.is_ascii() {
            true => value.len(),
            false => {
                self.ascii = false;
                value.encode_utf16().count()
            }
        };
        self.text.push_str(value);
        self.leaf(key, STRING, units as f64);
    }
}

/// Why an element was not packed: it is made alone instead.
#[derive(Debug)]
pub(super) struct Unpackable;

impl fmt::Display for Unpackable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not packable")
    }
}

impl std::error::Error for Unpackable {}

impl ser::Error for Unpackable {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Unpackable
    }
}

/// Serializer methods that refuse what they are asked to make.
macro_rules! refuse {
    ($($method:ident($($arg:ty),*) -> $ok:ty;)*) => {
        $(fn $method(self, $(_: $arg),*) -> Result<$ok, Unpackable> {
            Err(Unpackable)
        })*
    };
}

/// An object's fields (a nested object's go into the same shape, between its keys).
struct Fields<'p> {
    packed: &'p mut Packed,
    nested: bool,
}

impl ser::SerializeStruct for Fields<'_> {
    type Ok = ();
    type Error = Unpackable;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Unpackable> {
        value.serialize(Leaf {
            packed: self.packed,
            key: Some(key),
        })
    }

    fn end(self) -> Result<(), Unpackable> {
        if self.nested {
            self.packed.packing.0.push(Key::Close);
        }
        Ok(())
    }
}

/// The serializer of a field's value (`key`): a leaf, made as [`super::Value`] makes it, or
/// an object; or, with no `key`, of an array's element, which is packed only when it is an
/// object.
struct Leaf<'p> {
    packed: &'p mut Packed,
    key: Option<&'static str>,
}

impl Leaf<'_> {
    /// Puts a leaf of `kind` (a string's is put by [`Packed::string`]).
    fn put(self, kind: u8, number: f64) -> Result<(), Unpackable> {
        let key = self.key.ok_or(Unpackable)?;
        self.packed.leaf(key, kind, number);
        Ok(())
    }
}

impl<'p> ser::Serializer for Leaf<'p> {
    type Ok = ();
    type Error = Unpackable;
    type SerializeSeq = Impossible<(), Unpackable>;
    type SerializeTuple = Impossible<(), Unpackable>;
    type SerializeTupleStruct = Impossible<(), Unpackable>;
    type SerializeTupleVariant = Impossible<(), Unpackable>;
    type SerializeMap = Impossible<(), Unpackable>;
    type SerializeStruct = Fields<'p>;
    type SerializeStructVariant = Impossible<(), Unpackable>;

    fn serialize_bool(self, value: bool) -> Result<(), Unpackable> {
        self.put(BOOLEAN, f64::from(u8::from(value)))
    }

    fn serialize_i8(self, value: i8) -> Result<(), Unpackable> {
        self.serialize_f64(f64::from(value))
    }

    fn serialize_i16(self, value: i16) -> Result<(), Unpackable> {
        self.serialize_f64(f64::from(value))
    }

    fn serialize_i32(self, value: i32) -> Result<(), Unpackable> {
        self.serialize_f64(f64::from(value))
    }

    /// The nearest number past 2^53, as [`super::Value`] makes it.
    fn serialize_i64(self, value: i64) -> Result<(), Unpackable> {
        self.serialize_f64(value as f64)
    }

    fn serialize_u8(self, value: u8) -> Result<(), Unpackable> {
        self.serialize_f64(f64::from(value))
    }

    fn serialize_u16(self, value: u16) -> Result<(), Unpackable> {
        self.serialize_f64(f64::from(value))
    }

    fn serialize_u32(self, value: u32) -> Result<(), Unpackable> {
        self.serialize_f64(f64::from(value))
    }

    /// A number up to 2^53 - 1; past it a BigInt, which is not packed.
    fn serialize_u64(self, value: u64) -> Result<(), Unpackable> {
        match value <= MAX_SAFE_INTEGER {
            true => self.serialize_f64(value as f64),
            false => Err(Unpackable),
        }
    }

    fn serialize_f32(self, value: f32) -> Result<(), Unpackable> {
        self.serialize_f64(f64::from(value))
    }

    fn serialize_f64(self, value: f64) -> Result<(), Unpackable> {
        self.put(NUMBER, value)
    }

    fn serialize_char(self, value: char) -> Result<(), Unpackable> {
        self.serialize_str(value.encode_utf8(&mut [0; 4]))
    }

    fn serialize_str(self, value: &str) -> Result<(), Unpackable> {
        let key = self.key.ok_or(Unpackable)?;
        self.packed.string(key, value);
        Ok(())
    }

    fn serialize_none(self) -> Result<(), Unpackable> {
        self.serialize_unit()
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Unpackable> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<(), Unpackable> {
        self.put(NULL, 0.0)
    }

    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Unpackable> {
        self.serialize_unit()
    }

    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), Unpackable> {
        self.serialize_str(variant)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), Unpackable> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), Unpackable> {
        Err(Unpackable)
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Fields<'p>, Unpackable> {
        if let Some(key) = self.key {
            self.packed.packing.0.push(Key::Open(key));
        }
        Ok(Fields {
            packed: self.packed,
            nested: self.key.is_some(),
        })
    }

    refuse! {
        serialize_bytes(&[u8]) -> ();
        serialize_seq(Option<usize>) -> Self::SerializeSeq;
        serialize_tuple(usize) -> Self::SerializeTuple;
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant;
        serialize_map(Option<usize>) -> Self::SerializeMap;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant;
    }
}
