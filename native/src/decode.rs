//! The request and response bodies to the texts detection reads, by the rules of
//! extract/decode.ts (decodeRequest, decodeResponse), read in one typed pass (value.rs). Where
//! a body holds something whose reading could differ from JavaScript's (a nested JSON text
//! serde_json refuses, a number past 2^53, a body that is a bare number or an array), the
//! result is None and the line is left to TypeScript.

use std::borrow::Cow;
use std::fmt;

use serde::de::value::MapAccessDeserializer;
use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::js::{js_trim, js_trim_start, json_trim_start};
use crate::value::{json_object, Any, Json};

// ---------------------------------------------------------------- shapes

/// OpenAI content: a string, or parts that are strings or `{type: "text", text}`.
pub type Content<'a> = Json<'a, IgnoredAny, Json<'a, Part<'a>, IgnoredAny>>;
json_object!(Part { text: Any<'a> = "text" });
pub type ToolCalls<'a> = Json<'a, IgnoredAny, Json<'a, Call<'a>, IgnoredAny>>;
json_object!(Call { function: Json<'a, Function<'a>, IgnoredAny> = "function", index: Any<'a> = "index" });
json_object!(Function { arguments: Any<'a> = "arguments" });

/// A request message: a string, or an object with content and tool calls.
pub type RequestMessage<'a> = Json<'a, MessageIn<'a>, IgnoredAny>;
json_object!(MessageIn { content: Content<'a> = "content", tool_calls: ToolCalls<'a> = "tool_calls" });
json_object!(RequestObject {
    system: Any<'a> = "system",
    messages: Json<'a, IgnoredAny, RequestMessage<'a>> = "messages",
    prompt: Json<'a, IgnoredAny, Any<'a>> = "prompt",
    input: Json<'a, IgnoredAny, RequestMessage<'a>> = "input",
    text: Any<'a> = "text",
});
pub type Request<'a> = Json<'a, RequestObject<'a>, RequestMessage<'a>>;

json_object!(ResponseObject {
    object: Any<'a> = "object",
    error: Any<'a> = "error",
    choices: Json<'a, IgnoredAny, Json<'a, Choice<'a>, IgnoredAny>> = "choices",
});
json_object!(Choice {
    message: Json<'a, Message<'a>, IgnoredAny> = "message",
    delta: Json<'a, Message<'a>, IgnoredAny> = "delta",
    text: Any<'a> = "text",
    index: Any<'a> = "index",
});
json_object!(Message {
    reasoning_content: Any<'a> = "reasoning_content",
    content: Content<'a> = "content",
    tool_calls: ToolCalls<'a> = "tool_calls",
});
pub type Response<'a> = Json<'a, ResponseObject<'a>, IgnoredAny>;

fn str_of<'v, O, A>(v: &'v Option<Json<'_, O, A>>) -> Option<&'v str> {
    v.as_ref().and_then(Json::as_str)
}

// ---------------------------------------------------------------- requests

/// decodeRequest(body) for a body that is present and not null: None where TypeScript decides.
pub fn request_text(body: &Request) -> Option<String> {
    match body {
        Json::Str(s) => match json_trim_start(s).as_bytes().first() {
            // tryParseJson: a string holding a JSON object or array is decoded as that request.
            // One serde_json refuses may still be JSON to JavaScript: left to TypeScript.
            Some(b'{') | Some(b'[') => request_text(&serde_json::from_str::<Request>(s).ok()?),
            _ => Some(s.to_string()),
        },
        Json::Arr(messages) => Some(messages_text(messages)),
        Json::Obj(o) => {
            let mut parts: Vec<String> = Vec::new();
            if let Some(s) = str_of(&o.system) {
                parts.push(s.to_owned());
            }
            if let Some(Json::Arr(m)) = &o.messages {
                parts.push(messages_text(m));
            }
            if let Some(p) = &o.prompt {
                parts.push(match p {
                    Json::Str(s) => s.to_string(),
                    // An array of strings is a batch; an array of integers is pre-tokenised and has no text.
                    Json::Arr(items) => items.iter().filter_map(Json::as_str).collect::<Vec<_>>().join("\n"),
                    _ => String::new(),
                });
            }
            if let Some(i) = &o.input {
                parts.push(match i {
                    Json::Str(s) => s.to_string(),
                    Json::Arr(m) => messages_text(m),
                    _ => String::new(),
                });
            }
            if parts.is_empty() {
                if let Some(t) = str_of(&o.text) {
                    parts.push(t.to_owned());
                }
            }
            Some(parts.join("\n"))
        }
        Json::Bool(b) => Some(b.to_string()),
        // String(number) is JavaScript's number formatting: left to TypeScript.
        Json::Num(_) | Json::Null => None,
    }
}

/// `request_text(body).map(|t| t.is_empty())`, without building the text: every record's flags
/// need whether its request has a text, and only a record whose response is marked needs the text
/// itself (its echo check). It follows request_text's rules step by step; the differential tests
/// hold the two to the same answers through the flags.
pub fn request_empty(body: &Request) -> Option<bool> {
    match body {
        Json::Str(s) => match json_trim_start(s).as_bytes().first() {
            Some(b'{') | Some(b'[') => request_empty(&serde_json::from_str::<Request>(s).ok()?),
            _ => Some(s.is_empty()),
        },
        Json::Arr(messages) => Some(messages_empty(messages)),
        Json::Obj(o) => {
            let mut parts = Joined::default();
            if let Some(s) = str_of(&o.system) {
                parts.push(s.is_empty());
            }
            if let Some(Json::Arr(m)) = &o.messages {
                parts.push(messages_empty(m));
            }
            if let Some(p) = &o.prompt {
                parts.push(match p {
                    Json::Str(s) => s.is_empty(),
                    Json::Arr(items) => {
                        let mut batch = Joined::default();
                        for s in items.iter().filter_map(Json::as_str) {
                            batch.push(s.is_empty());
                        }
                        batch.is_empty()
                    }
                    _ => true,
                });
            }
            if let Some(i) = &o.input {
                parts.push(match i {
                    Json::Str(s) => s.is_empty(),
                    Json::Arr(m) => messages_empty(m),
                    _ => true,
                });
            }
            if parts.count == 0 {
                if let Some(t) = str_of(&o.text) {
                    parts.push(t.is_empty());
                }
            }
            Some(parts.is_empty())
        }
        Json::Bool(_) => Some(false),
        Json::Num(_) | Json::Null => None,
    }
}

/// Whether texts joined with "\n" make an empty text: none at all, or a single empty one.
#[derive(Default)]
struct Joined {
    count: usize,
    first_empty: bool,
}

impl Joined {
    fn push(&mut self, empty: bool) {
        if self.count == 0 {
            self.first_empty = empty;
        }
        self.count += 1;
    }

    fn is_empty(&self) -> bool {
        self.count == 0 || (self.count == 1 && self.first_empty)
    }
}

/// `messages_text(messages).is_empty()`.
fn messages_empty(messages: &[RequestMessage]) -> bool {
    let mut out = Joined::default();
    for m in messages {
        match m {
            Json::Str(s) => out.push(s.is_empty()),
            Json::Obj(o) => {
                // messages_text keeps a message's content only where it is not empty.
                if !content_empty(&o.content) {
                    out.push(false);
                }
                if let Some(Json::Arr(calls)) = &o.tool_calls {
                    for call in calls {
                        if let Json::Obj(Call { function: Some(Json::Obj(f)), .. }) = call {
                            if let Some(a) = str_of(&f.arguments) {
                                out.push(a.is_empty());
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
    out.is_empty()
}

/// `content_text(content).is_empty()`.
fn content_empty(content: &Option<Content>) -> bool {
    match content {
        Some(Json::Str(s)) => s.is_empty(),
        Some(Json::Arr(parts)) => parts.iter().all(|part| match part {
            Json::Str(s) => s.is_empty(),
            Json::Obj(p) => str_of(&p.text).map_or(true, str::is_empty),
            _ => true,
        }),
        _ => true,
    }
}

fn messages_text(messages: &[RequestMessage]) -> String {
    let mut out: Vec<String> = Vec::new();
    for m in messages {
        match m {
            Json::Str(s) => out.push(s.to_string()),
            Json::Obj(o) => {
                let t = content_text(&o.content);
                if !t.is_empty() {
                    out.push(t);
                }
                if let Some(Json::Arr(calls)) = &o.tool_calls {
                    out.extend(tool_call_args(calls));
                }
            }
            _ => {}
        }
    }
    out.join("\n")
}

/// contentText: `content` as a string or as OpenAI content parts.
fn content_text(content: &Option<Content>) -> String {
    match content {
        Some(Json::Str(s)) => s.to_string(),
        Some(Json::Arr(parts)) => {
            let mut out = String::new();
            for part in parts {
                match part {
                    Json::Str(s) => out.push_str(s),
                    Json::Obj(p) => out.push_str(str_of(&p.text).unwrap_or("")),
                    _ => {}
                }
            }
            out
        }
        _ => String::new(),
    }
}

fn tool_call_args(calls: &[Json<Call, IgnoredAny>]) -> Vec<String> {
    let mut out = Vec::new();
    for call in calls {
        if let Json::Obj(Call { function: Some(Json::Obj(f)), .. }) = call {
            if let Some(a) = str_of(&f.arguments) {
                out.push(a.to_owned());
            }
        }
    }
    out
}

// ---------------------------------------------------------------- responses

/// What the verdict pass needs of a response: its text and whether it is an error. A plain-text
/// response's text is the body itself, borrowed.
pub struct Decoded<'t> {
    pub text: Cow<'t, str>,
    pub is_error: bool,
}

/// The response field of a line as read: null, left to TypeScript (an array or a scalar, which
/// decodeResponse reads as JSON.stringify writes it, or a body decoded by rules that could differ
/// from JavaScript's), or decoded and handed to the seed's function.
pub enum ResponseField<T> {
    Null,
    Left,
    Read(T),
}

/// Reads the response field and hands its decoding to `F` there and then, while the string
/// serde_json unescaped is still in its scratch buffer: the body is never copied whole (it was,
/// for every line, and then dropped unless it held a marker).
pub struct ResponseSeed<F>(pub F);

impl<'de, T, F: FnOnce(Decoded) -> T> DeserializeSeed<'de> for ResponseSeed<F> {
    type Value = ResponseField<T>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(ResponseVisitor(self.0))
    }
}

struct ResponseVisitor<F>(F);

impl<F> ResponseVisitor<F> {
    fn string<T>(self, raw: &str) -> ResponseField<T>
    where
        F: FnOnce(Decoded) -> T,
    {
        match response_string(raw) {
            Some(d) => ResponseField::Read((self.0)(d)),
            None => ResponseField::Left,
        }
    }
}

impl<'de, T, F: FnOnce(Decoded) -> T> Visitor<'de> for ResponseVisitor<F> {
    type Value = ResponseField<T>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a response body")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(self.string(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(self.string(v))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(self.string(&v))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(ResponseField::Null)
    }
    fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<Self::Value, M::Error> {
        let obj = ResponseObject::deserialize(MapAccessDeserializer::new(map))?;
        Ok(ResponseField::Read((self.0)(response_object(&obj))))
    }
    // JSON.stringify of an array or a scalar: left to TypeScript (the array read through, so
    // that the rest of the line is still checked as JSON).
    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Self::Value, S::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(ResponseField::Left)
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(ResponseField::Left)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(ResponseField::Left)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(ResponseField::Left)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(ResponseField::Left)
    }
}

/// decodeResponse(body) for a body that is a string.
fn response_string(raw: &str) -> Option<Decoded<'_>> {
    let head = js_trim_start(raw);
    if head.starts_with("data:") || head.starts_with("event:") || head.starts_with(':') {
        return sse(raw);
    }
    if head.starts_with('{') {
        // tryParseJson: a text JSON.parse refuses is read as plain text, but one serde_json
        // refuses may still be JSON to JavaScript (a lone surrogate escape, a number past a double).
        let parsed: Response = serde_json::from_str(raw).ok()?;
        if let Json::Obj(o) = parsed {
            return Some(response_object(&o));
        }
    }
    Some(Decoded { text: Cow::Borrowed(raw), is_error: false })
}

/// decodeResponseObject.
fn response_object(obj: &ResponseObject) -> Decoded<'static> {
    let is_error = error_of(&obj.object, &obj.error);
    let mut text = String::new();
    if let Some(Json::Arr(choices)) = &obj.choices {
        let mut texts: Vec<String> = Vec::new();
        for choice in choices {
            let Json::Obj(choice) = choice else { continue };
            if let Some(Json::Obj(msg)) = &choice.message {
                let mut t: Vec<String> = Vec::new();
                if let Some(r) = str_of(&msg.reasoning_content) {
                    t.push(r.to_owned());
                }
                t.push(content_text(&msg.content));
                if let Some(Json::Arr(calls)) = &msg.tool_calls {
                    t.extend(tool_call_args(calls));
                }
                texts.push(t.into_iter().filter(|s| !s.is_empty()).collect::<Vec<_>>().join("\n"));
            } else if let Some(s) = str_of(&choice.text) {
                texts.push(s.to_owned());
            }
        }
        text = texts.join("\n");
    }
    Decoded { text: Cow::Owned(text), is_error }
}

/// errorOf(obj) !== null: vLLM's `{"object":"error"}`, OpenAI's and SGLang's `{"error":{...}}` or `{"error":"..."}`.
fn error_of(object: &Option<Any>, error: &Option<Any>) -> bool {
    str_of(object) == Some("error") || matches!(error, Some(Json::Obj(_)) | Some(Json::Str(_)))
}

/// `typeof v === 'number' ? v : 0`, with -0 read as 0 (one key to a Map, SameValueZero).
fn index_of(v: &Option<Any>) -> f64 {
    match v {
        Some(Json::Num(n)) if *n != 0.0 => *n,
        _ => 0.0,
    }
}

/// decodeSse: each data line's JSON document, in order; None where a data line is not one
/// document (JavaScript joins such lines until they parse) or holds a number past 2^53.
fn sse(raw: &str) -> Option<Decoded<'static>> {
    let mut is_error = false;
    // Per choice index, in the order first given text: its pieces appended as they come.
    let mut content: Vec<(f64, String)> = Vec::new();
    let mut tools: Vec<((f64, f64), String)> = Vec::new();
    let mut next_is_error = false;
    let mut template: Option<Template> = None;
    let mut lines = raw.split('\n').peekable();
    while let Some(piece) = lines.next() {
        // split(/\r?\n/): a CR is dropped only before a LF, so the last piece keeps one.
        let line = if lines.peek().is_some() { piece.strip_suffix('\r').unwrap_or(piece) } else { piece };
        if let Some(rest) = line.strip_prefix("event:") {
            next_is_error = js_trim(rest) == "error";
            continue;
        }
        let Some(rest) = line.strip_prefix("data:") else { continue };
        let payload = rest.strip_prefix(' ').unwrap_or(rest);
        if js_trim(payload) == "[DONE]" {
            break;
        }
        // A chunk that is the template's bytes around another text (see Template) reads as the
        // template's chunk did, with this text as its piece.
        if let Some(piece) = template.as_ref().and_then(|t| t.piece(payload)) {
            if next_is_error {
                is_error = true;
                next_is_error = false;
            } else {
                append(&mut content, template.as_ref().map_or(0.0, |t| t.index), piece);
            }
            continue;
        }
        let chunk: Response = serde_json::from_str(payload).ok()?;
        let Json::Obj(chunk) = chunk else { continue };
        if error_of(&chunk.object, &chunk.error) || next_is_error {
            is_error = true;
            next_is_error = false;
            continue;
        }
        let Some(Json::Arr(choices)) = &chunk.choices else { continue };
        if let Some(t) = Template::of(payload, choices) {
            template = Some(t);
        }
        for choice in choices {
            let Json::Obj(choice) = choice else { continue };
            let index = index_of(&choice.index);
            // The choice's piece (its reasoning, then its content; or its text) appended part by
            // part: the same text as the piece appended whole, and no entry for an empty one.
            if let Some(Json::Obj(delta)) = &choice.delta {
                append(&mut content, index, str_of(&delta.reasoning_content).unwrap_or(""));
                match &delta.content {
                    Some(Json::Str(s)) => append(&mut content, index, s),
                    Some(Json::Arr(parts)) => {
                        for part in parts {
                            match part {
                                Json::Str(s) => append(&mut content, index, s),
                                Json::Obj(p) => append(&mut content, index, str_of(&p.text).unwrap_or("")),
                                _ => {}
                            }
                        }
                    }
                    _ => {}
                }
                if let Some(Json::Arr(calls)) = &delta.tool_calls {
                    for call in calls {
                        let Json::Obj(Call { function: Some(Json::Obj(f)), index: call_index, .. }) = call else { continue };
                        let Some(args) = str_of(&f.arguments) else { continue };
                        let key = (index, index_of(call_index));
                        match tools.iter_mut().find(|(k, _)| *k == key) {
                            Some((_, buf)) => buf.push_str(args),
                            None => tools.push((key, args.to_owned())),
                        }
                    }
                }
            } else if let Some(t) = str_of(&choice.text) {
                append(&mut content, index, t);
            }
        }
    }
    // Choices in index order (a stable sort of the insertion order, as Array.prototype.sort is).
    content.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(std::cmp::Ordering::Equal));
    let mut texts = content.into_iter().map(|(_, s)| s).chain(tools.into_iter().map(|(_, s)| s));
    // One text (the usual stream: one choice, no tool call) is the text itself, not a copy.
    let mut text = texts.next().unwrap_or_default();
    for t in texts {
        text.push('\n');
        text.push_str(&t);
    }
    Some(Decoded { text: Cow::Owned(text), is_error })
}

/// A stream's chunks mostly differ only in their text: OpenAI's, vLLM's and SGLang's repeat the
/// same id, object, created and model around each delta. A chunk whose one contribution was a
/// `delta.content` string without escapes (the token `"` text `"`, borrowed from the chunk) is
/// kept as its bytes before and after that string. A later chunk with exactly those bytes
/// around a text holding no `"`, no `\` and no control character is the same token sequence
/// with only that string token changed, so JSON reads it as the same document with that text as
/// the content, and decodeSse appends it as it did the template's: it is not parsed again.
/// Anything else in between (an escape, a quote that would end the string early) is parsed whole.
struct Template<'p> {
    before: &'p str,
    after: &'p str,
    /// The choice's index, as index_of read it.
    index: f64,
}

impl<'p> Template<'p> {
    /// The template of a chunk (not an error) whose only text is one choice's delta.content,
    /// a string given without escapes.
    fn of(payload: &'p str, choices: &[Json<Choice<'p>, IgnoredAny>]) -> Option<Template<'p>> {
        let [Json::Obj(choice)] = choices else { return None };
        let Some(Json::Obj(delta)) = &choice.delta else { return None };
        // Reasoning or tool calls would add text of their own.
        if str_of(&delta.reasoning_content).is_some_and(|r| !r.is_empty()) || matches!(delta.tool_calls, Some(Json::Arr(_))) {
            return None;
        }
        let Some(Json::Str(Cow::Borrowed(text))) = &delta.content else { return None };
        // Borrowed: a slice of the payload itself, between its quotes.
        let start = (text.as_ptr() as usize).checked_sub(payload.as_ptr() as usize)?;
        let end = start.checked_add(text.len())?;
        let bytes = payload.as_bytes();
        if start == 0 || end >= bytes.len() || bytes[start - 1] != b'"' || bytes[end] != b'"' {
            return None;
        }
        Some(Template { before: &payload[..start], after: &payload[end..], index: index_of(&choice.index) })
    }

    /// The text of a chunk that is this template around another string; None for any other chunk.
    fn piece(&self, payload: &'p str) -> Option<&'p str> {
        let text = payload.strip_prefix(self.before)?.strip_suffix(self.after)?;
        (!text.bytes().any(|c| c == b'"' || c == b'\\' || c < 0x20)).then_some(text)
    }
}

/// Appends a piece of a choice's text to that choice's, the choice first given an entry by a piece that is not empty.
fn append(content: &mut Vec<(f64, String)>, index: f64, piece: &str) {
    if piece.is_empty() {
        return;
    }
    match content.iter_mut().find(|(k, _)| *k == index) {
        Some((_, buf)) => buf.push_str(piece),
        None => content.push((index, piece.to_owned())),
    }
}
