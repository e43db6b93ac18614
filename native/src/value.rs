//! One-pass typed reading of the JSON shapes decode.ts looks at. A field the TypeScript rules
//! read is deserialised as `Json`: its type as JavaScript's `typeof`/`Array.isArray` would see
//! it, with only the parts those rules read kept (an object as the fields they name, an array
//! as its items); every other field is skipped. A field given twice keeps its last value, as
//! JSON.parse does.
//!
//! Numbers: a number whose value is an integer past 2^53 fails the whole read, and the line is
//! left to TypeScript. Such a literal in the log line itself is read by parseJsonExact as a
//! string of its digits, so its type would differ here.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::value::MapAccessDeserializer;
use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

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
pub type Any<'a> = Json<'a, IgnoredAny, IgnoredAny>;

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

/// Declares a struct of named JSON fields, each optional, read from an object in one pass.
macro_rules! json_object {
    ($name:ident { $($field:ident : $ty:ty = $key:literal),* $(,)? }) => {
        #[derive(Default)]
        pub struct $name<'a> {
            $(pub $field: Option<$ty>,)*
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
                        while let Some(key) = map.next_key::<$crate::value::Key<'de>>()? {
                            match key.0.as_ref() {
                                $($key => out.$field = Some(map.next_value()?),)*
                                _ => {
                                    map.next_value::<serde::de::IgnoredAny>()?;
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
