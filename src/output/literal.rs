//! The one way a value crosses to JavaScript as an object: its `Serialize` implementation,
//! built by an object literal compiled for its shape.
//!
//! As a struct is serialized, its fields (nested structs' fields too) are written into one
//! [`Shape`]: the keys, their nesting and order, and the JavaScript values of its leaves
//! (strings, numbers, `null`, arrays, whose elements are built one by one). The object is
//! then built by one call of a function `(function (a0, a1, …) { return { "path": a0,
//! "meta": { … }, … } })` compiled once per shape and kept per env: one step for V8, where
//! Node-API would hash each property name and move the object through a hidden class per
//! property, and measured faster than napi-rs's own objects (the benchmark README has the
//! figures). Keys, their order and which are left out are the type's serde declaration;
//! shapes are the code's, never the input's (a map, whose keys are data, is refused), so
//! an env keeps a bounded number of them. An array of objects of one shape is made in one
//! step too, by its shape's list literal ([`packed`]).

mod packed;

use std::cell::RefCell;
use std::fmt::Write as _;
use std::marker::PhantomData;

use napi::bindgen_prelude::{
    Array, Float64ArraySlice, FromNapiValue, Function, JsValuesTupleIntoVec, Null,
    Object as JsObject, ObjectRef, ToNapiValue, TypeName,
};
use napi::{Env, JsValue, Unknown, sys};
use serde::ser::{self, Impossible, Serialize};

/// The compiled literals of one env, by shape: an object's, and a list's (an array of
/// objects of that shape and those leaf kinds, [`packed`]).
#[derive(Default)]
pub(crate) struct Literals {
    makers: Makers,
    list_makers: Makers,
}

/// Compiled literals by shape (and by leaf kinds, for a list's).
type Makers = RefCell<Vec<((Vec<Key>, Vec<u8>), ObjectRef<false>)>>;

/// `value` as a JavaScript value: an object for a struct, built by its shape's literal.
pub(crate) fn to_js<'env, T: Serialize + ?Sized>(
    env: &'env Env,
    literals: &Literals,
    value: &T,
) -> napi::Result<Unknown<'env>> {
    value.serialize(Value { env, literals })
}

/// A value that a `#[napi]` function returns, or a closure made into a JS function, built
/// by [`to_js`] (the function declares its TypeScript with `ts_return_type`).
pub struct Literal<T>(pub T);

impl<T: Serialize> ToNapiValue for Literal<T> {
    unsafe fn to_napi_value(env: sys::napi_env, value: Self) -> napi::Result<sys::napi_value> {
        let env = Env::from_raw(env);
        let literals = &crate::schedule::EnvState::of(&env)?.literals;
        to_js(&env, literals, &value.0).map(|value| value.raw())
    }
}

impl<T> TypeName for Literal<T> {
    fn type_name() -> &'static str {
        "object"
    }

    fn value_type() -> napi::ValueType {
        napi::ValueType::Object
    }
}

/// One step of a shape: a key whose value is an argument, a key whose value is an object
/// (its keys follow, up to the matching `Close`), or the end of that object.
#[derive(Clone, Copy)]
enum Key {
    Value(&'static str),
    Open(&'static str),
    Close,
}

impl Key {
    /// Whether `self` and `other` are the same step. Keys are serde's `&'static str`s:
    /// compared by address, the same key at two addresses is two shapes, each compiled
    /// once.
    fn same(self, other: Key) -> bool {
        match (self, other) {
            (Key::Value(a), Key::Value(b)) | (Key::Open(a), Key::Open(b)) => std::ptr::eq(a, b),
            (Key::Close, Key::Close) => true,
            _ => false,
        }
    }
}

/// An object on its way: the keys of its shape so far, and its arguments (values of
/// `'env`, kept as Node-API handles to be handed over as they are).
struct Shape<'env> {
    keys: Vec<Key>,
    args: Vec<sys::napi_value>,
    env: PhantomData<&'env Env>,
}

impl Literals {
    /// The object `shape` describes, built by its literal.
    fn built<'env>(&self, env: &'env Env, shape: Shape<'env>) -> napi::Result<Unknown<'env>> {
        let shape_of = (shape.keys, Vec::new());
        maker(env, &self.makers, shape_of, source)?.call(Args(shape.args, PhantomData))
    }

    /// The array of the objects `packed` holds, built by their shape's list literal.
    fn list<'env>(&self, env: &'env Env, packed: packed::Packed) -> napi::Result<Unknown<'env>> {
        let text = match packed.ascii {
            true => env.create_string_latin1(packed.text.as_bytes())?,
            false => env.create_string(&packed.text)?,
        };
        let args = vec![
            (packed.count as f64).into_unknown(env)?.raw(),
            text.raw(),
            Float64ArraySlice::copy_from(env, &packed.numbers)?.raw(),
        ];
        let shape_of = (packed.keys, packed.kinds);
        maker(env, &self.list_makers, shape_of, list_source)?.call(Args(args, PhantomData))
    }
}

/// The function of `makers` for `shape` (keys, and leaf kinds for a list), compiled from
/// `source(shape)` on first use.
fn maker<'env>(
    env: &'env Env,
    makers: &Makers,
    shape: (Vec<Key>, Vec<u8>),
    source: fn(&[Key], &[u8]) -> String,
) -> napi::Result<Function<'env, Args<'env>, Unknown<'env>>> {
    let same = |(keys, kinds): &(Vec<Key>, Vec<u8>)| same_keys(keys, &shape.0) && *kinds == shape.1;
    let kept = makers
        .borrow()
        .iter()
        .find_map(|(kept, maker)| same(kept).then(|| maker.get_value(env)));
    let function: JsObject = match kept {
        Some(function) => function?,
        None => {
            let function: JsObject = env.run_script(source(&shape.0, &shape.1))?;
            makers.borrow_mut().push((shape, function.create_ref()?));
            function
        }
    };
    Function::from_unknown(function.to_unknown())
}

/// Whether two shapes are the same, step by step.
fn same_keys(a: &[Key], b: &[Key]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(a, b)| a.same(*b))
}

/// The source of the function that builds an object shaped by `keys` from its arguments.
fn source(keys: &[Key], _: &[u8]) -> String {
    let values = keys.iter().filter(|key| matches!(key, Key::Value(_)));
    let params: Vec<String> = (0..values.count()).map(|n| format!("a{n}")).collect();
    let mut next = 0;
    let body = literal_body(keys, || {
        next += 1;
        format!("a{}", next - 1)
    });
    format!("(function({}){{return {body}}})", params.join(","))
}

/// The source of the function that builds `n` objects shaped by `keys`, their leaves of
/// `kinds`, from the leaves packed ([`packed::Packed`]): `t` their strings one after
/// another, `v` a number a leaf (a string's length in UTF-16 units, a number, a boolean as 1
/// or 0).
fn list_source(keys: &[Key], kinds: &[u8]) -> String {
    let mut kinds = kinds.iter();
    let body = literal_body(keys, || {
        let read = match kinds.next() {
            Some(&packed::STRING) => "t.slice(s,s+=v[i++])",
            Some(&packed::NUMBER) => "v[i++]",
            Some(&packed::BOOLEAN) => "v[i++]!==0",
            _ => "(i++,null)",
        };
        read.to_owned()
    });
    format!(
        "(function(n,t,v){{const o=[];let s=0,i=0;for(let e=0;e<n;e++)o.push({body});return o}})"
    )
}

/// The object literal shaped by `keys`, each leaf's value the expression `value` gives, in
/// order.
fn literal_body(keys: &[Key], mut value: impl FnMut() -> String) -> String {
    let mut body = String::from("{");
    for key in keys {
        match key {
            Key::Value(name) => {
                let _ = write!(body, "{}:{},", quoted(name), value());
            }
            Key::Open(name) => {
                let _ = write!(body, "{}:{{", quoted(name));
            }
            Key::Close => body.push_str("},"),
        }
    }
    body.push('}');
    body
}

/// `name` as the key of an object literal: a string literal, computed for `__proto__` (which
/// as a plain key would set the object's prototype).
fn quoted(name: &str) -> String {
    let literal = serde_json::to_string(name).unwrap_or_default();
    if name == "__proto__" {
        format!("[{literal}]")
    } else {
        literal
    }
}

/// A maker's arguments: values of the env the maker is called in (a [`Shape`]'s).
struct Args<'env>(Vec<sys::napi_value>, PhantomData<&'env Env>);

impl JsValuesTupleIntoVec for Args<'_> {
    fn into_vec(self, _: sys::napi_env) -> napi::Result<Vec<sys::napi_value>> {
        Ok(self.0)
    }
}

fn unsupported(what: &str) -> napi::Error {
    napi::Error::from_reason(format!(
        "{what} cannot cross to JavaScript as an object literal"
    ))
}

/// The serializer of a value that is no object's field: a struct is built here, its
/// fields (nested structs' too) written into one [`Shape`] by [`Field`]s.
#[derive(Clone, Copy)]
struct Value<'a, 'env> {
    env: &'env Env,
    literals: &'a Literals,
}

/// The serializer of a field's value, which it writes into its object's shape.
struct Field<'s, 'a, 'env> {
    value: Value<'a, 'env>,
    shape: &'s mut Shape<'env>,
    key: &'static str,
}

impl<'a, 'env> Value<'a, 'env> {
    /// A JavaScript value of a leaf.
    fn js<T: ToNapiValue>(self, value: T) -> napi::Result<Unknown<'env>> {
        value.into_unknown(self.env)
    }

    /// ASCII as Latin-1 (V8 copies it without a UTF-8 decoding pass), any other as UTF-8.
    fn string(self, value: &str) -> napi::Result<Unknown<'env>> {
        let string = if value.is_ascii() {
            self.env.create_string_latin1(value.as_bytes())?
        } else {
            self.env.create_string(value)?
        };
        Ok(string.to_unknown())
    }

    /// A JavaScript number up to `Number.MAX_SAFE_INTEGER`, a BigInt past it (exact both
    /// ways).
    fn unsigned(self, value: u64) -> napi::Result<Unknown<'env>> {
        const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;
        if value <= MAX_SAFE_INTEGER {
            self.js(value as f64)
        } else {
            self.js(napi::bindgen_prelude::BigInt::from(value))
        }
    }
}

/// The methods of both serializers that make one JavaScript value: each makes it with
/// [`Value`]'s functions and puts it in its [`Place`].
macro_rules! leaves {
    ($ok:ty) => {
        fn serialize_bool(self, value: bool) -> napi::Result<$ok> {
            let made = self.value().js(value);
            self.put(made)
        }

        fn serialize_i8(self, value: i8) -> napi::Result<$ok> {
            self.serialize_i32(i32::from(value))
        }

        fn serialize_i16(self, value: i16) -> napi::Result<$ok> {
            self.serialize_i32(i32::from(value))
        }

        fn serialize_i32(self, value: i32) -> napi::Result<$ok> {
            let made = self.value().js(value);
            self.put(made)
        }

        /// A JavaScript number (the nearest past 2^53: no time or size is).
        fn serialize_i64(self, value: i64) -> napi::Result<$ok> {
            self.serialize_f64(value as f64)
        }

        fn serialize_u8(self, value: u8) -> napi::Result<$ok> {
            self.serialize_u32(u32::from(value))
        }

        fn serialize_u16(self, value: u16) -> napi::Result<$ok> {
            self.serialize_u32(u32::from(value))
        }

        fn serialize_u32(self, value: u32) -> napi::Result<$ok> {
            let made = self.value().js(value);
            self.put(made)
        }

        fn serialize_u64(self, value: u64) -> napi::Result<$ok> {
            let made = self.value().unsigned(value);
            self.put(made)
        }

        fn serialize_f32(self, value: f32) -> napi::Result<$ok> {
            self.serialize_f64(f64::from(value))
        }

        fn serialize_f64(self, value: f64) -> napi::Result<$ok> {
            let made = self.value().js(value);
            self.put(made)
        }

        fn serialize_char(self, value: char) -> napi::Result<$ok> {
            self.serialize_str(value.encode_utf8(&mut [0; 4]))
        }

        fn serialize_str(self, value: &str) -> napi::Result<$ok> {
            let made = self.value().string(value);
            self.put(made)
        }

        fn serialize_bytes(self, _: &[u8]) -> napi::Result<$ok> {
            Err(unsupported("bytes"))
        }

        fn serialize_none(self) -> napi::Result<$ok> {
            self.serialize_unit()
        }

        fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> napi::Result<$ok> {
            value.serialize(self)
        }

        fn serialize_unit(self) -> napi::Result<$ok> {
            let made = self.value().js(Null);
            self.put(made)
        }

        fn serialize_unit_struct(self, _: &'static str) -> napi::Result<$ok> {
            self.serialize_unit()
        }

        fn serialize_unit_variant(
            self,
            _: &'static str,
            _: u32,
            variant: &'static str,
        ) -> napi::Result<$ok> {
            self.serialize_str(variant)
        }

        fn serialize_newtype_struct<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            value: &T,
        ) -> napi::Result<$ok> {
            value.serialize(self)
        }

        fn serialize_newtype_variant<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> napi::Result<$ok> {
            Err(unsupported("an externally tagged enum"))
        }

        fn serialize_tuple_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> napi::Result<Self::SerializeTupleVariant> {
            Err(unsupported("an externally tagged enum"))
        }

        fn serialize_map(self, _: Option<usize>) -> napi::Result<Self::SerializeMap> {
            Err(unsupported(
                "a map (its keys are known only as it is serialized)",
            ))
        }

        fn serialize_struct_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> napi::Result<Self::SerializeStructVariant> {
            Err(unsupported("an externally tagged enum"))
        }

        fn serialize_tuple(self, len: usize) -> napi::Result<Self::SerializeTuple> {
            self.serialize_seq(Some(len))
        }

        fn serialize_tuple_struct(
            self,
            _: &'static str,
            len: usize,
        ) -> napi::Result<Self::SerializeTupleStruct> {
            self.serialize_seq(Some(len))
        }
    };
}

impl<'a, 'env> ser::Serializer for Value<'a, 'env> {
    type Ok = Unknown<'env>;
    type Error = napi::Error;
    type SerializeSeq = Elements<'a, 'env, Self>;
    type SerializeTuple = Elements<'a, 'env, Self>;
    type SerializeTupleStruct = Elements<'a, 'env, Self>;
    type SerializeTupleVariant = Impossible<Unknown<'env>, napi::Error>;
    type SerializeMap = Impossible<Unknown<'env>, napi::Error>;
    type SerializeStruct = Object<'a, 'env>;
    type SerializeStructVariant = Impossible<Unknown<'env>, napi::Error>;

    leaves!(Unknown<'env>);

    fn serialize_seq(self, len: Option<usize>) -> napi::Result<Self::SerializeSeq> {
        Ok(Elements::new(self, self, len))
    }

    fn serialize_struct(self, _: &'static str, len: usize) -> napi::Result<Object<'a, 'env>> {
        let shape = Shape {
            keys: Vec::with_capacity(len + 4),
            args: Vec::with_capacity(len + 4),
            env: PhantomData,
        };
        Ok(Object { value: self, shape })
    }
}

impl<'s, 'a, 'env> ser::Serializer for Field<'s, 'a, 'env> {
    type Ok = ();
    type Error = napi::Error;
    type SerializeSeq = Elements<'a, 'env, Self>;
    type SerializeTuple = Elements<'a, 'env, Self>;
    type SerializeTupleStruct = Elements<'a, 'env, Self>;
    type SerializeTupleVariant = Impossible<(), napi::Error>;
    type SerializeMap = Impossible<(), napi::Error>;
    type SerializeStruct = Nested<'s, 'a, 'env>;
    type SerializeStructVariant = Impossible<(), napi::Error>;

    leaves!(());

    fn serialize_seq(self, len: Option<usize>) -> napi::Result<Self::SerializeSeq> {
        let value = self.value;
        Ok(Elements::new(value, self, len))
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> napi::Result<Nested<'s, 'a, 'env>> {
        self.shape.keys.push(Key::Open(self.key));
        Ok(Nested {
            value: self.value,
            shape: self.shape,
        })
    }
}

/// A struct that is no object's field: its fields so far.
struct Object<'a, 'env> {
    value: Value<'a, 'env>,
    shape: Shape<'env>,
}

impl<'env> ser::SerializeStruct for Object<'_, 'env> {
    type Ok = Unknown<'env>;
    type Error = napi::Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> napi::Result<()> {
        value.serialize(Field {
            value: self.value,
            shape: &mut self.shape,
            key,
        })
    }

    fn end(self) -> napi::Result<Unknown<'env>> {
        self.value.literals.built(self.value.env, self.shape)
    }
}

/// A struct that is a field's value: its fields go into the enclosing object's shape.
struct Nested<'s, 'a, 'env> {
    value: Value<'a, 'env>,
    shape: &'s mut Shape<'env>,
}

impl ser::SerializeStruct for Nested<'_, '_, '_> {
    type Ok = ();
    type Error = napi::Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> napi::Result<()> {
        value.serialize(Field {
            value: self.value,
            shape: self.shape,
            key,
        })
    }

    fn end(self) -> napi::Result<()> {
        self.shape.keys.push(Key::Close);
        Ok(())
    }
}

/// Arrays of this many elements or more are packed: a shorter one is made as fast alone.
const PACKED_FROM: usize = 4;

/// An array's elements so far, packed while they are objects of one shape ([`packed`]),
/// else each made alone; the array goes to its place, `to`.
struct Elements<'a, 'env, To> {
    value: Value<'a, 'env>,
    to: To,
    packed: Option<packed::Packed>,
    values: Vec<Unknown<'env>>,
}

impl<'a, 'env, To: Place<'a, 'env>> Elements<'a, 'env, To> {
    fn new(value: Value<'a, 'env>, to: To, len: Option<usize>) -> Self {
        let len = len.unwrap_or(0);
        Elements {
            value,
            to,
            packed: (len >= PACKED_FROM).then(|| packed::Packed::new(len)),
            values: Vec::with_capacity(len),
        }
    }

    fn push<T: Serialize + ?Sized>(&mut self, element: &T) -> napi::Result<()> {
        if let Some(packed) = &mut self.packed {
            if packed.pack(element) {
                return Ok(());
            }
            // Not packable: the elements packed so far are made, and the rest one by one.
            self.values = self.unpacked()?;
        }
        self.values.push(element.serialize(self.value)?);
        Ok(())
    }

    /// The elements packed so far, made; packing stops.
    fn unpacked(&mut self) -> napi::Result<Vec<Unknown<'env>>> {
        let Some(packed) = self.packed.take().filter(|packed| packed.count > 0) else {
            return Ok(Vec::new());
        };
        let count = packed.count as u32;
        let list = self.value.literals.list(self.value.env, packed)?;
        let list = Array::from_unknown(list)?;
        let missing = || napi::Error::from_reason("a list literal made fewer objects than packed");
        (0..count)
            .map(|at| list.get::<Unknown<'env>>(at)?.ok_or_else(missing))
            .collect()
    }

    fn array(mut self) -> napi::Result<To::Ok> {
        let array = match self.packed.take().filter(|packed| packed.count > 0) {
            Some(packed) => self.value.literals.list(self.value.env, packed),
            None => self.value.js(self.values),
        };
        self.to.put(array)
    }
}

/// Where a value made goes: returned, by a [`Value`], or written into its object's shape
/// as a field's, by a [`Field`].
trait Place<'a, 'env> {
    type Ok;
    /// The serializer that makes the value.
    fn value(&self) -> Value<'a, 'env>;
    fn put(self, value: napi::Result<Unknown<'env>>) -> napi::Result<Self::Ok>;
}

impl<'a, 'env> Place<'a, 'env> for Value<'a, 'env> {
    type Ok = Unknown<'env>;

    fn value(&self) -> Value<'a, 'env> {
        *self
    }

    fn put(self, value: napi::Result<Unknown<'env>>) -> napi::Result<Unknown<'env>> {
        value
    }
}

impl<'a, 'env> Place<'a, 'env> for Field<'_, 'a, 'env> {
    type Ok = ();

    fn value(&self) -> Value<'a, 'env> {
        self.value
    }

    fn put(self, value: napi::Result<Unknown<'env>>) -> napi::Result<()> {
        self.shape.keys.push(Key::Value(self.key));
        self.shape.args.push(value?.raw());
        Ok(())
    }
}

/// The three sequence traits, alike.
macro_rules! elements {
    ($($trait:ident::$method:ident),*) => {
        $(impl<'a, 'env, To: Place<'a, 'env>> ser::$trait for Elements<'a, 'env, To> {
            type Ok = To::Ok;
            type Error = napi::Error;

            fn $method<T: Serialize + ?Sized>(&mut self, element: &T) -> napi::Result<()> {
                self.push(element)
            }

            fn end(self) -> napi::Result<To::Ok> {
                self.array()
            }
        })*
    };
}

elements!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shape_is_one_object_literal_with_its_nested_objects_in_key_order() {
        let keys = [
            Key::Value("path"),
            Key::Open("meta"),
            Key::Value("byte_length"),
            Key::Close,
            Key::Value("note"),
        ];
        assert_eq!(
            source(&keys, &[]),
            r#"(function(a0,a1,a2){return {"path":a0,"meta":{"byte_length":a1,},"note":a2,}})"#
        );
    }

    #[test]
    fn a_key_named_proto_is_a_property_not_the_prototype() {
        let keys = [Key::Value("__proto__")];
        assert_eq!(
            source(&keys, &[]),
            r#"(function(a0){return {["__proto__"]:a0,}})"#
        );
    }

    #[test]
    fn an_object_with_no_keys_is_an_empty_literal() {
        assert_eq!(source(&[], &[]), "(function(){return {}})");
    }

    #[test]
    fn a_list_literal_reads_each_leaf_as_its_kind_says_in_key_order() {
        let keys = [
            Key::Value("name"),
            Key::Open("meta"),
            Key::Value("line"),
            Key::Value("cut"),
            Key::Close,
            Key::Value("note"),
        ];
        let kinds = [
            packed::STRING,
            packed::NUMBER,
            packed::BOOLEAN,
            packed::NULL,
        ];
        assert_eq!(
            list_source(&keys, &kinds),
            "(function(n,t,v){const o=[];let s=0,i=0;for(let e=0;e<n;e++)o.push(\
             {\"name\":t.slice(s,s+=v[i++]),\"meta\":{\"line\":v[i++],\"cut\":v[i++]!==0,},\
             \"note\":(i++,null),});return o})"
        );
    }
}
