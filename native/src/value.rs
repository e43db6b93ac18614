//! One-pass typed reading of the JSON shapes decode.ts looks at. A field the TypeScript rules
//! read is deserialised as `Json`: its type as JavaScript's `typeof`/`Array.isArray` would see
//! it, with only the parts those rules read kept (an object as the fields they name, an array
//! as its items); every other field is skipped. A field given twice keeps its last value, as
//! JSON.parse does, but no shape here takes an object that gives a key twice, or spells a key
//! with an escape (`Skip`, `json_object!`): TypeScript refuses the first (duplicate-keys.ts) and
//! would compare the second by its meaning; either read fails here, and the line is left to
//! TypeScript (dupkeys.rs states the rule this checks as serde_json reads).
//!
//! Numbers: a number whose value is an integer past 2^53 fails the whole read, and the line is
//! left to TypeScript. Such a literal in the log line itself is read by parseJsonExact as a
//! string of its digits, so its type would differ here.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;
use std::marker::PhantomData;

use serde::de::value::MapAccessDeserializer;
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

/// The largest integer a double holds exactly (Number.MAX_SAFE_INTEGER).
pub const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// A JSON value read for its type and, where wanted, its content.
pub enum Json<'a, O, A> {
    Str(Cow<'a, str>),
    Obj(O),
    Arr(Vec<A>),
    Num(f64),
    Bool(bool),
    Null,
}

impl<'a, O, A> Json<'a, O, A> {
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }
}

/// A value whose only use is its type.
pub type Any<'a> = Json<'a, Skip, Skip>;

/// Objects with more keys than this are checked with a HashSet; smaller ones by comparing each
/// key with those before it.
pub const LINEAR_KEYS: usize = 16;

/// The keys an object has given so far: the first LINEAR_KEYS in place (no allocation: one was
/// made, and grown twice, for nearly every object of every stream chunk, and the allocator was
/// about a tenth of the extractor's time, perf), the rest in a HashSet with them.
#[derive(Default)]
pub struct KeysSeen<'a> {
    keys: [&'a [u8]; LINEAR_KEYS],
    len: usize,
    set: Option<HashSet<&'a [u8]>>,
}

impl<'a> KeysSeen<'a> {
    /// False where `key` (its raw bytes, with no escape in them) was given before.
    pub fn first(&mut self, key: &'a [u8]) -> bool {
        if let Some(set) = &mut self.set {
            return set.insert(key);
        }
        if self.keys[..self.len].contains(&key) {
            return false;
        }
        if self.len == LINEAR_KEYS {
            let mut set: HashSet<&'a [u8]> = self.keys.iter().copied().collect();
            set.insert(key);
            self.set = Some(set);
        } else {
            self.keys[self.len] = key;
            self.len += 1;
        }
        true
    }

    /// `first` for a key as serde_json gives it: an error where it was given before, or where it
    /// was spelled with an escape (serde_json then hands over its unescaped copy, not the line's
    /// bytes): both are TypeScript's to judge.
    pub fn check<E: de::Error>(&mut self, key: &Key<'a>) -> Result<&'a str, E> {
        let Cow::Borrowed(k) = key.0 else { return Err(E::custom("a key spelled with an escape")) };
        if self.first(k.as_bytes()) {
            Ok(k)
        } else {
            Err(E::custom("a key given twice"))
        }
    }
}

/// A value read for nothing but its being JSON (as IgnoredAny reads it), where no object inside
/// gives a key twice or spells one with an escape.
pub struct Skip;

impl<'de> Deserialize<'de> for Skip {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(SkipVisitor)
    }
}

struct SkipVisitor;

impl<'de> Visitor<'de> for SkipVisitor {
    type Value = Skip;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Skip, S::Error> {
        while seq.next_element::<Skip>()?.is_some() {}
        Ok(Skip)
    }
    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Skip, M::Error> {
        let mut seen = KeysSeen::default();
        while let Some(key) = map.next_key::<Key<'de>>()? {
            seen.check(&key)?;
            map.next_value::<Skip>()?;
        }
        Ok(Skip)
    }
}

fn checked<E: de::Error>(v: f64) -> Result<f64, E> {
    if v.fract() == 0.0 && v.abs() > MAX_SAFE_INTEGER {
        Err(E::custom("an integer past 2^53"))
    } else {
        Ok(v)
    }
}

impl<'de, O: Deserialize<'de>, A: Deserialize<'de>> Deserialize<'de> for Json<'de, O, A> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(JsonVisitor(PhantomData))
    }
}

struct JsonVisitor<'de, O, A>(PhantomData<(&'de (), O, A)>);

impl<'de, O: Deserialize<'de>, A: Deserialize<'de>> Visitor<'de> for JsonVisitor<'de, O, A> {
    type Value = Json<'de, O, A>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Json::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Json::Str(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Json::Str(Cow::Owned(v)))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        checked(v as f64).map(Json::Num)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        checked(v as f64).map(Json::Num)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        checked(v).map(Json::Num)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(Json::Bool(v))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Json::Null)
    }
    fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<Self::Value, M::Error> {
        O::deserialize(MapAccessDeserializer::new(map)).map(Json::Obj)
    }
    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Self::Value, S::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<A>()? {
            items.push(item);
        }
        Ok(Json::Arr(items))
    }
}

/// Declares a struct of named JSON fields, each optional, read from an object in one pass; an
/// object that gives a key twice or spells one with an escape fails the read (KeysSeen::check).
macro_rules! json_object {
    ($name:ident { $($field:ident : $ty:ty = $key:literal),* $(,)? }) => {
        $crate::value::json_object_reader!($name { $($field : $ty = $key),* } known [] closed false);
    };
}
/// `json_object!` for an object read closed-world: besides its fields, the keys listed after
/// `known` carry no text and are skipped (Skip); any other key is skipped too and sets `other`,
/// so that the caller leaves the line to TypeScript, which reads that member or names it unread
/// (decode.ts unknownMembers).
macro_rules! json_object_closed {
    ($name:ident { $($field:ident : $ty:ty = $key:literal),* $(,)? } known [ $($known:literal),* $(,)? ]) => {
        $crate::value::json_object_reader!($name { $($field : $ty = $key),* } known [$($known),*] closed true);
    };
}
/// The struct and its reader for both: `other` (a key neither a field nor known) is only ever set
/// where `closed` is true.
macro_rules! json_object_reader {
    ($name:ident { $($field:ident : $ty:ty = $key:literal),* } known [ $($known:literal),* ] closed $closed:literal) => {
        #[derive(Default)]
        pub struct $name<'a> {
            $(pub $field: Option<$ty>,)*
            /// Whether a key neither a field nor known to carry no text was given (closed-world objects only).
            #[allow(dead_code)]
            pub other: bool,
            _life: std::marker::PhantomData<&'a ()>,
        }
        impl<'de> serde::Deserialize<'de> for $name<'de> {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> serde::de::Visitor<'de> for V {
                    type Value = $name<'de>;
                    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                        f.write_str("a JSON object")
                    }
                    fn visit_map<M: serde::de::MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
                        let mut out = $name::default();
                        let mut seen = $crate::value::KeysSeen::default();
                        while let Some(key) = map.next_key::<$crate::value::Key<'de>>()? {
                            match seen.check(&key)? {
                                $($key => out.$field = Some(map.next_value()?),)*
                                k => {
                                    map.next_value::<$crate::value::Skip>()?;
                                    let known: &[&str] = &[$($known),*];
                                    if $closed && !known.contains(&k) {
                                        out.other = true;
                                    }
                                }
                            }
                        }
                        Ok(out)
                    }
                }
                d.deserialize_map(V)
            }
        }
    };
}
pub(crate) use json_object;
pub(crate) use json_object_closed;
pub(crate) use json_object_reader;

/// An object key, borrowed where it has no escapes.
pub struct Key<'a>(pub Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
        }
        d.deserialize_str(V)
    }
}
