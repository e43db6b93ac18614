//! The request and response bodies to the texts detection reads, by the rules of
//! extract/decode.ts (decodeRequest, decodeResponse), read in one typed pass (value.rs). Where
//! a body holds something whose reading could differ from JavaScript's (a nested JSON text
//! serde_json refuses, a number past 2^53, a body that is a bare number or an array), the
//! result is None and the line is left to TypeScript.

use std::borrow::Cow;
use std::fmt;
use std::sync::LazyLock;

use memchr::memmem::Finder;

use serde::de::value::MapAccessDeserializer;
use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use crate::js::{js_trim, js_trim_start, json_trim_start};
use crate::value::{json_object, json_object_closed, Any, Json, Key, KeysSeen, Skip, MAX_SAFE_INTEGER};

// ---------------------------------------------------------------- shapes

/// OpenAI content: a string, or parts that are strings or `{type: "text", text}`.
pub type Content<'a> = Json<'a, Skip, Json<'a, Part<'a>, Skip>>;
// Closed-world so that a part without a `type` holding more than `text` (a Bedrock Converse block:
// `toolUse`, `toolResult`, `document`...) is told apart: decode.ts reads those, so such a request is
// left to TypeScript (left_to_typescript).
json_object_closed!(Part { text: Any<'a> = "text", kind: Any<'a> = "type" } known []);
pub type ToolCalls<'a> = Json<'a, Skip, Json<'a, Call<'a>, Skip>>;
// A tool call and its function, read closed-world (decode.ts toolCallText): a custom tool's
// `custom` (its input is read by TypeScript) or any other member is `other`.
json_object_closed!(Call { function: Json<'a, Function<'a>, Skip> = "function", index: Any<'a> = "index" } known ["id", "type"]);
json_object_closed!(Function { arguments: Any<'a> = "arguments" } known ["name"]);

/// A request message: a string, or an object with content and tool calls.
pub type RequestMessage<'a> = Json<'a, MessageIn<'a>, Skip>;
// Closed-world (decode.ts requestMembers): the keys known to carry no text are decode.ts's
// MESSAGE_IN_NO_TEXT and REQUEST_NO_TEXT; any other member (one TypeScript reads, such as a
// message's `reasoning_content` or Gemini's `contents`, or one it names unread) leaves the request
// to TypeScript.
json_object_closed!(MessageIn { content: Content<'a> = "content", tool_calls: ToolCalls<'a> = "tool_calls", kind: Any<'a> = "type", refusal: Any<'a> = "refusal", name: Any<'a> = "name" }
    known ["role", "tool_call_id", "id", "status", "audio", "images", "tool_name", "cache_control", "prefix", "partial", "attachments", "metadata"]);
json_object_closed!(RequestObject {
    system: Any<'a> = "system",
    stream: Any<'a> = "stream",
    instructions: Any<'a> = "instructions",
    messages: Json<'a, Skip, RequestMessage<'a>> = "messages",
    prompt: Json<'a, Skip, Any<'a>> = "prompt",
    input: Json<'a, Skip, RequestMessage<'a>> = "input",
    // A string, or the Responses API's `text` object (its `format` schema): a definition (below).
    text: Json<'a, Texts<'a>, Skip> = "text",
    // Chat Completions' predicted output: read by TypeScript (below).
    prediction: Any<'a> = "prediction",
    // decode.ts's DEFINITION_MEMBERS, read by every string in them (Texts).
    tools: Texts<'a> = "tools",
    functions: Texts<'a> = "functions",
    response_format: Texts<'a> = "response_format",
    tool_config_camel: Texts<'a> = "toolConfig",
    tool_config: Texts<'a> = "tool_config",
    // Gemini's generation settings (a response schema is read): TypeScript's. Ollama's `format`: a
    // JSON schema is read as a definition, "json" is a setting.
    generation_config_camel: Any<'a> = "generationConfig",
    generation_config: Any<'a> = "generation_config",
    format: Json<'a, Texts<'a>, Skip> = "format",
} known [
    "model", "stream_options", "temperature", "top_p", "top_k", "top_a", "min_p", "n", "best_of", "echo", "max_tokens", "max_completion_tokens", "max_output_tokens",
    "max_prompt_tokens", "stop", "stop_sequences", "seed", "user", "metadata", "logit_bias", "logprobs", "top_logprobs", "presence_penalty", "frequency_penalty",
    "repetition_penalty", "parallel_tool_calls", "tool_choice", "function_call", "reasoning_effort", "reasoning", "thinking",
    "service_tier", "store", "modalities", "audio", "previous_response_id", "truncation", "include", "background", "safety_identifier", "prompt_cache_key",
    "prompt_cache_retention", "verbosity", "web_search_options", "anthropic_version", "anthropic_beta", "betas", "mcp_servers", "container", "context_management",
    "assistant_id", "thread_id", "tool_resources", "truncation_strategy",
    "safetySettings", "safety_settings", "cachedContent", "cached_content", "labels",
    "modelId", "inferenceConfig", "additionalModelRequestFields", "additionalModelResponseFieldPaths", "guardrailConfig", "requestMetadata", "performanceConfig",
    "citation_options", "safety_mode", "strict_tools", "k", "p", "options", "keep_alive", "raw", "think", "context", "images", "provider", "transforms", "models", "route", "usage",
]);
pub type Request<'a> = Json<'a, RequestObject<'a>, RequestMessage<'a>>;

// A body's or chunk's top level, a choice, a message or delta and an error object are read
// closed-world (decode.ts unknownMembers): the keys known to carry no text are decode.ts's
// TOP_NO_TEXT, CHOICE_NO_TEXT, MESSAGE_NO_TEXT and ERROR_NO_TEXT; any other member (one
// TypeScript reads, such as `reasoning_details`, Azure's `context`, Groq's `executed_tools`, or
// one it names unread) leaves the line to TypeScript.
json_object_closed!(ResponseObject {
    object: Any<'a> = "object",
    error: Json<'a, ErrorObject<'a>, Skip> = "error",
    message: Any<'a> = "message",
    // Taken as its JSON text and read only where ingest asks for the counts (the verdict pass reads
    // none); checked for a key given twice all the same (CheckedRaw).
    usage: CheckedRaw<'a> = "usage",
    choices: Json<'a, Skip, Json<'a, Choice<'a>, Skip>> = "choices",
    // The Responses API (`output` items; a stream's `type: "response.…"` events): left to TypeScript.
    output: Any<'a> = "output",
    kind: Any<'a> = "type",
    // An embeddings answer's items (`{"object": "list", "data": [...]}`): left to TypeScript, which
    // tells vectors (no text by design) from anything else.
    data: Any<'a> = "data",
} known [
    "id", "created", "model", "system_fingerprint", "service_tier", "prompt_filter_results", "prompt_annotations", "provider", "request_id", "x_groq", "usage_breakdown",
    "prompt_logprobs", "prompt_token_ids", "kv_transfer_params", "obfuscation", "metadata", "param", "code", "error_type",
]);
json_object_closed!(Choice {
    message: Json<'a, Message<'a>, Skip> = "message",
    delta: Json<'a, Message<'a>, Skip> = "delta",
    text: Any<'a> = "text",
    index: Any<'a> = "index",
} known [
    "finish_reason", "native_finish_reason", "logprobs", "stop_reason", "matched_stop", "content_filter_results", "content_filter_result", "content_filter_offsets",
    "seed", "token_ids",
]);
json_object_closed!(Message {
    reasoning_content: Any<'a> = "reasoning_content",
    reasoning: Any<'a> = "reasoning",
    content: Content<'a> = "content",
    tool_calls: ToolCalls<'a> = "tool_calls",
    refusal: Any<'a> = "refusal",
    // The legacy `functions` API's call: left to TypeScript (answer_left_to_typescript).
    function_call: Any<'a> = "function_call",
    // An audio answer's transcript and a web search answer's citations: left to TypeScript (answer_left_to_typescript).
    audio: Any<'a> = "audio",
    annotations: Json<'a, Skip, Skip> = "annotations",
} known ["role", "name", "end_turn", "images"]);
pub type Response<'a> = Json<'a, ResponseObject<'a>, Skip>;
json_object_closed!(ErrorObject { message: Any<'a> = "message" } known ["type", "code", "status", "param"]);
json_object!(Usage {
    prompt_tokens: Any<'a> = "prompt_tokens",
    completion_tokens: Any<'a> = "completion_tokens",
    input_tokens: Any<'a> = "input_tokens",
    output_tokens: Any<'a> = "output_tokens",
    prompt_tokens_details: Json<'a, Details<'a>, Skip> = "prompt_tokens_details",
    input_tokens_details: Json<'a, Details<'a>, Skip> = "input_tokens_details",
    cache_read_input_tokens: Any<'a> = "cache_read_input_tokens",
    cache_creation_input_tokens: Any<'a> = "cache_creation_input_tokens",
});
json_object!(Details { cached_tokens: Any<'a> = "cached_tokens" });

/// Every string in a definition (decode.ts definitionTexts): each object key before its value and
/// each string value, in the line's order, empty ones left out. None where an object has a key that
/// is an array index ("0", "12"), which JavaScript walks first: that line is TypeScript's. An
/// integer past 2^53 fails the read (TypeScript's reader gives it as a string of its digits).
pub struct Texts<'a>(pub Option<Vec<Cow<'a, str>>>);

impl<'de> Deserialize<'de> for Texts<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut out = Some(Vec::new());
        TextsSeed(&mut out).deserialize(d)?;
        Ok(Texts(out))
    }
}

struct TextsSeed<'o, 'a>(&'o mut Option<Vec<Cow<'a, str>>>);

impl TextsSeed<'_, '_> {
    fn number<E: de::Error>(v: f64) -> Result<(), E> {
        if v.fract() == 0.0 && v.abs() > MAX_SAFE_INTEGER {
            Err(E::custom("an integer past 2^53"))
        } else {
            Ok(())
        }
    }
}

/// JavaScript's array index: "0", or digits without a leading zero below 2^32 - 1.
fn array_index(k: &str) -> bool {
    k == "0" || (k.len() <= 10 && k.bytes().all(|b| b.is_ascii_digit()) && !k.starts_with('0') && !k.is_empty() && k.parse::<u64>().is_ok_and(|n| n < 4_294_967_295))
}

impl<'de> DeserializeSeed<'de> for TextsSeed<'_, 'de> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for TextsSeed<'_, 'de> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<(), E> {
        if let Some(out) = self.0.as_mut().filter(|_| !v.is_empty()) {
            out.push(Cow::Borrowed(v));
        }
        Ok(())
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        if let Some(out) = self.0.as_mut().filter(|_| !v.is_empty()) {
            out.push(Cow::Owned(v.to_owned()));
        }
        Ok(())
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        Self::number(v as f64)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        Self::number(v as f64)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        Self::number(v)
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<(), S::Error> {
        while seq.next_element_seed(TextsSeed(&mut *self.0))?.is_some() {}
        Ok(())
    }
    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<(), M::Error> {
        let mut seen = KeysSeen::default();
        while let Some(key) = map.next_key::<Key<'de>>()? {
            let k = seen.check(&key)?;
            if array_index(k) {
                *self.0 = None;
            }
            if let Some(out) = self.0.as_mut().filter(|_| !k.is_empty()) {
                out.push(Cow::Borrowed(k));
            }
            map.next_value_seed(TextsSeed(&mut *self.0))?;
        }
        Ok(())
    }
}

fn str_of<'v, O, A>(v: &'v Option<Json<'_, O, A>>) -> Option<&'v str> {
    v.as_ref().and_then(Json::as_str)
}

// ---------------------------------------------------------------- requests

/// decodeRequest's text as it is built (`String`), or only whether it would be empty (`Emptiness`):
/// every record's flags need the second, and only a record whose response is marked needs the text
/// (its echo check). One walk (`request`) holds decodeRequest's rules for both.
pub trait RequestText: Sized {
    /// Pieces being joined with "\n".
    type Joining: Default;
    fn piece(s: &str) -> Self;
    fn is_empty(&self) -> bool;
    fn push(joining: &mut Self::Joining, t: Self);
    fn joined(joining: Self::Joining) -> Self;
    /// The pieces that are not empty, each on a line of its own (decode.ts's requestBlocksText).
    fn lines<'s>(pieces: impl Iterator<Item = &'s str>) -> Self;
}

impl RequestText for String {
    /// The text so far and whether anything was pushed (an empty first piece is still one).
    type Joining = (String, bool);
    fn piece(s: &str) -> Self {
        s.to_owned()
    }
    fn is_empty(&self) -> bool {
        str::is_empty(self)
    }
    fn push((text, any): &mut (String, bool), t: Self) {
        if *any {
            text.push('\n');
        }
        text.push_str(&t);
        *any = true;
    }
    fn joined((text, _): (String, bool)) -> Self {
        text
    }
    fn lines<'s>(pieces: impl Iterator<Item = &'s str>) -> Self {
        pieces.filter(|p| !p.is_empty()).collect::<Vec<_>>().join("\n")
    }
}

/// Whether a text would be empty, known without building it.
pub struct Emptiness(pub bool);

impl RequestText for Emptiness {
    /// How many pieces were pushed, and whether the first was empty: pieces joined with "\n" make
    /// an empty text only when there are none, or one that is empty.
    type Joining = (usize, bool);
    fn piece(s: &str) -> Self {
        Emptiness(s.is_empty())
    }
    fn is_empty(&self) -> bool {
        self.0
    }
    fn push((count, first_empty): &mut (usize, bool), t: Self) {
        if *count == 0 {
            *first_empty = t.0;
        }
        *count += 1;
    }
    fn joined((count, first_empty): (usize, bool)) -> Self {
        Emptiness(count == 0 || (count == 1 && first_empty))
    }
    fn lines<'s>(mut pieces: impl Iterator<Item = &'s str>) -> Self {
        Emptiness(pieces.all(str::is_empty))
    }
}

/// decodeRequest(body) for a body that is present and not null: None where TypeScript decides.
pub fn request_text(body: &Request) -> Option<String> {
    request(body)
}

/// `request_text(body).map(|t| t.is_empty())`, without building the text.
pub fn request_empty(body: &Request) -> Option<bool> {
    request::<Emptiness>(body).map(|e| e.0)
}

fn request<T: RequestText>(body: &Request) -> Option<T> {
    match body {
        Json::Str(s) => match json_trim_start(s).as_bytes().first() {
            // tryParseJson: a string holding a JSON object or array is decoded as that request.
            // One serde_json refuses may still be JSON to JavaScript: left to TypeScript; so is
            // one that gives a key twice, which TypeScript refuses (the shapes fail the read).
            Some(b'{') | Some(b'[') => request(&serde_json::from_str::<Request>(s).ok()?),
            _ => Some(T::piece(s)),
        },
        Json::Arr(messages) => messages_of(messages),
        Json::Obj(o) => {
            // A member decode.ts reads and this walk does not (Gemini's `contents`, Cohere's
            // `documents`, an Assistants run's `additional_messages`...) or names unread: TypeScript's.
            if o.other {
                return None;
            }
            let mut parts = T::Joining::default();
            let mut any = false;
            let mut part = |parts: &mut T::Joining, t: T| {
                any = true;
                T::push(parts, t);
            };
            if let Some(s) = str_of(&o.system) {
                part(&mut parts, T::piece(s));
            }
            // The Messages API's system prompt as text blocks: TypeScript's to read.
            if matches!(o.system, Some(Json::Arr(_))) {
                return None;
            }
            // A predicted output (`prediction.content`): TypeScript's to read. So is a prompt template
            // (`prompt` as an object), which TypeScript names unread, and Gemini's generation settings (a response schema is read there).
            if matches!(o.prediction, Some(Json::Obj(_))) || matches!(o.prompt, Some(Json::Obj(_))) || matches!(o.generation_config_camel, Some(Json::Obj(_))) || matches!(o.generation_config, Some(Json::Obj(_))) {
                return None;
            }
            if let Some(s) = str_of(&o.instructions) {
                part(&mut parts, T::piece(s));
            }
            if let Some(Json::Arr(m)) = &o.messages {
                part(&mut parts, messages_of(m)?);
            }
            if let Some(p) = &o.prompt {
                part(&mut parts, match p {
                    Json::Str(s) => T::piece(s),
                    // An array of strings is a batch; an array of integers is pre-tokenised and has no text.
                    Json::Arr(items) => {
                        let mut batch = T::Joining::default();
                        for s in items.iter().filter_map(Json::as_str) {
                            T::push(&mut batch, T::piece(s));
                        }
                        T::joined(batch)
                    }
                    _ => T::piece(""),
                });
            }
            if let Some(i) = &o.input {
                part(&mut parts, match i {
                    Json::Str(s) => T::piece(s),
                    Json::Arr(m) => messages_of(m)?,
                    _ => T::piece(""),
                });
            }
            if !any {
                if let Some(t) = str_of(&o.text) {
                    T::push(&mut parts, T::piece(t));
                }
            }
            // What the caller defined for the model to read (decode.ts DEFINITION_MEMBERS, in its order).
            let text_object = match &o.text {
                Some(Json::Obj(t)) => Some(t),
                _ => None,
            };
            // Then Ollama's `format` given as a schema (Gemini's response schema is TypeScript's, above).
            let format_schema = match &o.format {
                Some(Json::Obj(t)) => Some(t),
                _ => None,
            };
            for texts in [o.tools.as_ref(), o.functions.as_ref(), o.response_format.as_ref(), o.tool_config_camel.as_ref(), o.tool_config.as_ref(), text_object, format_schema] {
                let Some(Texts(texts)) = texts else { continue };
                // An object with an array-index key: JavaScript walks it in another order.
                let texts = texts.as_ref()?;
                if !texts.is_empty() {
                    let mut joining = T::Joining::default();
                    for s in texts {
                        T::push(&mut joining, T::piece(s));
                    }
                    T::push(&mut parts, T::joined(joining));
                }
            }
            Some(T::joined(parts))
        }
        Json::Bool(b) => Some(T::piece(if *b { "true" } else { "false" })),
        // String(number) is JavaScript's number formatting: left to TypeScript.
        Json::Num(_) | Json::Null => None,
    }
}

/// messagesText; None for messages TypeScript reads (left_to_typescript).
fn messages_of<T: RequestText>(messages: &[RequestMessage]) -> Option<T> {
    let mut out = T::Joining::default();
    for m in messages {
        match m {
            Json::Str(s) => T::push(&mut out, T::piece(s)),
            Json::Obj(o) => {
                if left_to_typescript(o) {
                    return None;
                }
                // A message's content only where it is not empty; each tool call's arguments, even empty.
                let t = content::<T>(&o.content);
                if !t.is_empty() {
                    T::push(&mut out, t);
                }
                if let Some(Json::Arr(calls)) = &o.tool_calls {
                    for a in call_args(calls) {
                        T::push(&mut out, T::piece(a));
                    }
                }
                // A participant's name, where it is a string that is not empty.
                if let Some(n) = str_of(&o.name).filter(|n| !n.is_empty()) {
                    T::push(&mut out, T::piece(n));
                }
            }
            _ => {}
        }
    }
    Some(T::joined(out))
}

/// A message holding what decode.ts reads apart from content parts and tool calls: a Responses API
/// item other than a message (`function_call_output`, `reasoning`, `mcp_call`...: decode.ts's
/// READ_ITEMS, and any type it may learn), a chat assistant's `refusal`, or a block that stands
/// apart (the blocks decode.ts's requestBlockText reads by their type: tool results, documents, thinking, refusal parts...).
/// Rare in a native line whose answer is read here (their answers are Messages and Responses API
/// bodies, left to TypeScript already).
fn left_to_typescript(m: &MessageIn) -> bool {
    if !matches!(str_of(&m.kind), None | Some("message")) || str_of(&m.refusal).is_some() || m.other {
        return true;
    }
    // A custom tool call (`custom`), a member decode.ts names unread, arguments that are not a
    // string (Ollama's object): decode.ts's toolCallArgs reads or names them.
    if let Some(Json::Arr(calls)) = &m.tool_calls {
        let odd = |call: &Json<Call, Skip>| match call {
            Json::Obj(c) => c.other || matches!(&c.function, Some(Json::Obj(f)) if f.other || matches!(&f.arguments, Some(a) if a.as_str().is_none())),
            _ => false,
        };
        if calls.iter().any(odd) {
            return true;
        }
    }
    let Some(Json::Arr(parts)) = &m.content else { return false };
    parts.iter().any(|part| matches!(part, Json::Obj(p) if matches!(str_of(&p.kind), Some(k) if STANDALONE_BLOCKS.contains(&k)) || (p.kind.is_none() && p.other)))
}

/// The parts decode.ts's requestBlockText reads apart from their `text` (its cases).
const STANDALONE_BLOCKS: &[&str] = &[
    "tool_result", "document", "tool_use", "thinking", "server_tool_use", "mcp_tool_use", "mcp_tool_result", "search_result",
    "web_search_tool_result", "web_fetch_tool_result", "code_execution_tool_result", "bash_code_execution_tool_result",
    "text_editor_code_execution_tool_result", "refusal",
];

/// requestContentText: a request's `content` as a string or as OpenAI content parts, each part on
/// a line of its own.
fn content<T: RequestText>(content: &Option<Content>) -> T {
    match content {
        Some(Json::Str(s)) => T::piece(s),
        Some(Json::Arr(parts)) => T::lines(part_texts(parts)),
        _ => T::piece(""),
    }
}

/// The texts of content parts: a string part, an object part's `text` ("" where it has none).
fn part_texts<'p>(parts: &'p [Json<Part, Skip>]) -> impl Iterator<Item = &'p str> {
    parts.iter().filter_map(|part| match part {
        Json::Str(s) => Some(s.as_ref()),
        Json::Obj(p) => Some(str_of(&p.text).unwrap_or("")),
        _ => None,
    })
}

/// Each tool call's arguments, where they are a string.
fn call_args<'c>(calls: &'c [Json<Call, Skip>]) -> impl Iterator<Item = &'c str> {
    calls.iter().filter_map(|call| match call {
        Json::Obj(Call { function: Some(Json::Obj(f)), .. }) => str_of(&f.arguments),
        _ => None,
    })
}

/// An answer's `content`: its parts are pieces of one running text, joined with nothing (decode.ts's answerContentText).
fn content_text(c: &Option<Content>) -> String {
    match c {
        Some(Json::Str(s)) => s.to_string(),
        Some(Json::Arr(parts)) => part_texts(parts).collect(),
        _ => String::new(),
    }
}

fn tool_call_args(calls: &[Json<Call, Skip>]) -> Vec<String> {
    call_args(calls).map(str::to_owned).collect()
}

// ---------------------------------------------------------------- responses

/// A response decoded (decodeResponse's DecodedResponse): the verdict pass reads its text and
/// whether it is an error, ingest all of it. A plain-text response's text is the body itself,
/// borrowed.
pub struct Decoded<'t> {
    pub text: Cow<'t, str>,
    pub is_error: bool,
    pub kind: Kind,
    pub stream: bool,
    pub message: ErrorText,
    pub tokens: Tokens,
}

impl Decoded<'_> {
    fn new(text: Cow<'_, str>, kind: Kind) -> Decoded<'_> {
        Decoded { text, is_error: false, kind, stream: false, message: ErrorText::Null, tokens: Tokens::default() }
    }

    /// decodeResponse of an absent or null body.
    pub fn none() -> Decoded<'static> {
        Decoded::new(Cow::Borrowed(""), Kind::None)
    }

    pub fn into_owned(self) -> Decoded<'static> {
        Decoded { text: Cow::Owned(self.text.into_owned()), is_error: self.is_error, kind: self.kind, stream: self.stream, message: self.message, tokens: self.tokens }
    }
}

/// ResponseKind (decode.ts), numbered as ingest's native columns give it (native-ingest.ts).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    None = 0,
    Chat = 1,
    Completion = 2,
    Error = 3,
    Sse = 4,
    Json = 5,
    Text = 6,
}

/// A response's errorMessage: none, a text, or one that JSON.stringify writes (of an error object
/// without a string message, or of a whole chunk), which is left to TypeScript to write.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ErrorText {
    Null,
    Text(String),
    Stringified,
}

/// promptTokens, completionTokens and cachedTokens as readUsage leaves them (None: null). A count
/// is a safe integer, not negative; -0 is kept as JavaScript keeps it.
#[derive(Clone, Copy, Default, PartialEq, Debug)]
pub struct Tokens {
    pub prompt: Option<f64>,
    pub completion: Option<f64>,
    pub cached: Option<f64>,
}

/// What one `usage` object says, read once (a stream's template applies it again to each chunk it reads).
#[derive(Clone, Copy, Default)]
pub struct UsageRead {
    object: bool,
    prompt: Option<f64>,
    input: Option<f64>,
    completion: Option<f64>,
    output: Option<f64>,
    /// Some where prompt_tokens_details (or else input_tokens_details) is an object: its cached_tokens.
    details: Option<Option<f64>>,
    cache_read: Option<f64>,
}

/// intOrNull: a safe integer that is not negative (-0 included, as `-0 >= 0`).
/// A member taken as its JSON text (read later, or not at all), refused like any other object
/// where it gives a key twice (dupkeys.rs): it is small (a usage object), so it is walked apart.
pub struct CheckedRaw<'a>(pub &'a RawValue);

impl<'de> Deserialize<'de> for CheckedRaw<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = <&'de RawValue>::deserialize(d)?;
        if crate::dupkeys::may_repeat_key(raw.get()) {
            return Err(de::Error::custom("a key given twice"));
        }
        Ok(CheckedRaw(raw))
    }
}

fn int_or_null(v: &Option<Any>) -> Option<f64> {
    match v {
        Some(Json::Num(n)) if n.fract() == 0.0 && *n >= 0.0 && *n <= MAX_SAFE_INTEGER => Some(*n),
        _ => None,
    }
}

impl UsageRead {
    /// The usage given as its JSON text; None where serde_json cannot read it as JavaScript would
    /// (a count past 2^53 fails the read): the response is then left to TypeScript.
    pub fn of(usage: Option<&RawValue>) -> Option<UsageRead> {
        let Some(raw) = usage else { return Some(UsageRead::default()) };
        let usage: Json<Usage, Skip> = serde_json::from_str(raw.get()).ok()?;
        let Json::Obj(u) = usage else { return Some(UsageRead::default()) };
        let cache_read = int_or_null(&u.cache_read_input_tokens);
        // inputTokens: input_tokens plus the cache's reads and writes, where the sum is still safe.
        let input = int_or_null(&u.input_tokens).and_then(|input| {
            let sum = input + cache_read.unwrap_or(0.0) + int_or_null(&u.cache_creation_input_tokens).unwrap_or(0.0);
            (sum <= MAX_SAFE_INTEGER).then_some(sum)
        });
        let details = match (&u.prompt_tokens_details, &u.input_tokens_details) {
            (Some(Json::Obj(d)), _) | (_, Some(Json::Obj(d))) => Some(int_or_null(&d.cached_tokens)),
            _ => None,
        };
        Some(UsageRead {
            object: true,
            prompt: int_or_null(&u.prompt_tokens),
            input,
            completion: int_or_null(&u.completion_tokens),
            output: int_or_null(&u.output_tokens),
            details,
            cache_read,
        })
    }

    /// readUsage(usage, out).
    pub fn apply(&self, t: &mut Tokens) {
        if !self.object {
            return;
        }
        t.prompt = self.prompt.or(self.input).or(t.prompt);
        t.completion = self.completion.or(self.output).or(t.completion);
        match self.details {
            Some(cached) => t.cached = cached.or(t.cached),
            None => {
                if self.cache_read.is_some() {
                    t.cached = self.cache_read;
                }
            }
        }
    }
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
pub struct ResponseSeed<F>(pub F, pub bool);

impl<'de, T, F: FnOnce(Decoded) -> T> DeserializeSeed<'de> for ResponseSeed<F> {
    type Value = ResponseField<T>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(ResponseVisitor(self.0, self.1))
    }
}

/// The function the decoding goes to, and whether ingest reads all of it (`full`: the token counts too).
struct ResponseVisitor<F>(F, bool);

impl<F> ResponseVisitor<F> {
    fn string<T>(self, raw: &str) -> ResponseField<T>
    where
        F: FnOnce(Decoded) -> T,
    {
        match response_string(raw, self.1) {
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
        Ok(response_object(&obj, self.1).map_or(ResponseField::Left, |d| ResponseField::Read((self.0)(d))))
    }
    // JSON.stringify of an array or a scalar: left to TypeScript (the array read through, so
    // that the rest of the line is still checked as JSON).
    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Self::Value, S::Error> {
        while seq.next_element::<Skip>()?.is_some() {}
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

/// startsAsSse (decode.ts): the fields a stream's first line can start with (a comment starts with `:`).
fn starts_as_sse(head: &str) -> bool {
    head.starts_with("data:") || head.starts_with("event:") || head.starts_with(':') || head.starts_with("id:") || head.starts_with("retry:")
}

/// decodeResponse(body) for a body that is a string.
fn response_string(raw: &str, full: bool) -> Option<Decoded<'_>> {
    let head = js_trim_start(raw);
    if starts_as_sse(head) {
        if run_together(raw) {
            return None;
        }
        // The SSE spec ignores a byte-order mark at the stream's start (decodeSse).
        return sse::<Unescaped>(unescaped_lines(raw.strip_prefix('\u{feff}').unwrap_or(raw)), full);
    }
    // A JSON list (a stream logged as its chunks): decodeResponseArray in TypeScript reads it.
    if head.starts_with('[') {
        return None;
    }
    if head.starts_with('{') {
        // tryParseJson: a text JSON.parse refuses is read as plain text, but one serde_json
        // refuses may still be JSON to JavaScript (a lone surrogate escape, a number past a double).
        // One that gives a key twice is TypeScript's to refuse (the shapes fail the read).
        let parsed: Response = serde_json::from_str(raw).ok()?;
        if let Json::Obj(o) = parsed {
            return response_object(&o, full);
        }
    }
    Some(Decoded::new(Cow::Borrowed(raw), Kind::Text))
}

/// decodeResponse for a body that is a string, given as its JSON text (quotes included, as
/// serde_json checked it), its decoding handed to `f`. A stream is read from the escaped bytes
/// themselves (see Escaped): its decoded copy was the largest single cost of the pass (serde_json
/// unescaping each stream whole, every chunk's quotes escaped: 12.6% of the extractor, perf).
pub fn response_json_string<T>(json: &str, full: bool, f: impl FnOnce(Decoded) -> T) -> ResponseField<T> {
    let Some(e) = json.strip_prefix('"').and_then(|j| j.strip_suffix('"')) else { return ResponseField::Left };
    let read = if memchr::memchr(b'\\', e.as_bytes()).is_none() {
        // No escape: the text is these bytes.
        response_string(e, full).map(f)
    } else {
        let unicode = has_unicode_escape(e);
        if !unicode && starts_as_sse(e) && run_together(e) {
            None
        } else if !unicode && starts_as_sse(e) {
            sse::<Escaped>(escaped_lines(e), full).map(f)
        } else {
            // serde_json reads `\u` escapes (surrogate pairs, and its refusals as it reads them).
            let text = if unicode { serde_json::from_str(json).ok() } else { unescape_simple(e) };
            text.and_then(|text| response_string(&text, full).map(f))
        }
    };
    read.map_or(ResponseField::Left, ResponseField::Read)
}

/// Whether a stream's text may have events run together (`}data:`, its line breaks lost): left
/// to TypeScript, whose decodeResponseString splits them.
fn run_together(s: &str) -> bool {
    static FINDER: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"}data:"));
    FINDER.find(s.as_bytes()).is_some()
}

/// Whether an escaped JSON string's bytes may hold a `\u` escape (an escaped backslash before a
/// `u` counts too: the caller then only takes the slower road).
fn has_unicode_escape(e: &str) -> bool {
    static FINDER: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"\\u"));
    FINDER.find(e.as_bytes()).is_some()
}

/// Escaped bytes without `\u` escapes decoded: each escape is two bytes for one. None for an
/// escape JSON has not (serde_json refused it already; this is a guard, not a rule).
fn unescape_simple(e: &str) -> Option<String> {
    let b = e.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut from = 0;
    while let Some(i) = memchr::memchr(b'\\', &b[from..]) {
        let at = from + i;
        out.extend_from_slice(&b[from..at]);
        out.push(match *b.get(at + 1)? {
            b'"' => b'"',
            b'\\' => b'\\',
            b'/' => b'/',
            b'b' => 0x08,
            b'f' => 0x0c,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            _ => return None,
        });
        from = at + 2;
    }
    out.extend_from_slice(&b[from..]);
    // Whole UTF-8 sequences are copied whole, and the escapes are ASCII.
    String::from_utf8(out).ok()
}

/// decodeResponseObject; None for a Responses API or Messages API body (`output`, or a `type`
/// beside no error, and no `choices`), which TypeScript reads.
fn response_object(obj: &ResponseObject, full: bool) -> Option<Decoded<'static>> {
    // The Responses API (`output` items) and Anthropic's Messages API (`type: "message"`). An
    // error body's `type` names the error's kind (vLLM's and SGLang's `{"object": "error",
    // "message", "type": "BadRequestError", "param", "code"}`, Anthropic's `{"type": "error",
    // "error": {...}}`): decode.ts reads such a body as an error, and so does this; any member
    // of a Messages API answer (`content`) is none of ResponseObject's and leaves it to TypeScript.
    let typed_answer = str_of(&obj.kind).is_some() && error_message(obj).is_none();
    if !matches!(obj.choices, Some(Json::Arr(_))) && (matches!(obj.output, Some(Json::Arr(_))) || typed_answer) {
        return None;
    }
    // A `data` member (an embeddings answer's list of items, or a page of something): TypeScript's
    // to read, which tells vectors (no text by design) from anything else and names the rest.
    if obj.data.is_some() {
        return None;
    }
    if top_left_to_typescript(obj, false) {
        return None;
    }
    let mut d = Decoded::new(Cow::Borrowed(""), Kind::Json);
    if let Some(message) = error_message(obj) {
        d.kind = Kind::Error;
        d.is_error = true;
        d.message = message;
    }
    let shown = shown_error(obj, &d.message)?;
    let mut text = String::new();
    if let Some(Json::Arr(choices)) = &obj.choices {
        let mut texts: Vec<String> = Vec::new();
        let mut chat = false;
        for choice in choices {
            let Json::Obj(choice) = choice else { continue };
            // A body's choice giving a `delta` (a chunk logged as the body) is read by TypeScript.
            if choice_left_to_typescript(choice) || matches!(choice.delta, Some(Json::Obj(_))) {
                return None;
            }
            if let Some(Json::Obj(msg)) = &choice.message {
                if answer_left_to_typescript(msg) {
                    return None;
                }
                chat = true;
                let mut t: Vec<String> = Vec::new();
                if let Some(r) = reasoning_of(msg) {
                    t.push(r.to_owned());
                }
                t.push(content_text(&msg.content));
                if let Some(Json::Arr(calls)) = &msg.tool_calls {
                    t.extend(tool_call_args(calls));
                }
                if let Some(r) = str_of(&msg.refusal) {
                    t.push(r.to_owned());
                }
                texts.push(t.into_iter().filter(|s| !s.is_empty()).collect::<Vec<_>>().join("\n"));
            } else if let Some(s) = str_of(&choice.text) {
                texts.push(s.to_owned());
            }
        }
        text = texts.join("\n");
        if !d.is_error {
            d.kind = if chat || str_of(&obj.object) == Some("chat.completion") { Kind::Chat } else { Kind::Completion };
        }
    }
    d.text = Cow::Owned(with_error_texts(text, shown.into_iter().collect()));
    if full {
        UsageRead::of(obj.usage.as_ref().map(|u| u.0))?.apply(&mut d.tokens);
    }
    Some(d)
}

/// errorOf(obj) as errorMessage takes it: None where it is null.
fn error_message(obj: &ResponseObject) -> Option<ErrorText> {
    if str_of(&obj.object) == Some("error") {
        return Some(ErrorText::Text(str_of(&obj.message).unwrap_or("error").to_owned()));
    }
    match &obj.error {
        Some(Json::Obj(e)) => Some(str_of(&e.message).map_or(ErrorText::Stringified, |m| ErrorText::Text(m.to_owned()))),
        Some(Json::Str(s)) => Some(ErrorText::Text(s.to_string())),
        // A Responses API stream's error event: `{"type":"error","message":…}`.
        _ => (str_of(&obj.kind) == Some("error")).then(|| str_of(&obj.message).map(|m| ErrorText::Text(m.to_owned()))).flatten(),
    }
}

/// The error text a body carried, searched with its answer (decode.ts withErrorTexts): Some(None)
/// for vLLM's flat error without a message (errorOf names it 'error', which is none of the body's);
/// None for an error JSON.stringify writes, which is left to TypeScript.
fn shown_error(obj: &ResponseObject, message: &ErrorText) -> Option<Option<String>> {
    match message {
        ErrorText::Stringified => None,
        ErrorText::Null => Some(None),
        ErrorText::Text(_) if str_of(&obj.object) == Some("error") && str_of(&obj.message).is_none() => Some(None),
        ErrorText::Text(m) => Some(Some(m.clone())),
    }
}

/// A message or delta holding what decode.ts reads that is not mirrored here: a legacy
/// `function_call`, tool call arguments given as an object, `reasoning` beside a different
/// `reasoning_content`, a content part that is not a string or a `text` part, an `audio` object (its transcript) or
/// `annotations` that are not an empty list or null (decode.ts reads every string of them). Such an
/// answer is left to TypeScript.
fn answer_left_to_typescript(m: &Message) -> bool {
    if matches!(m.function_call, Some(Json::Obj(_))) {
        return true;
    }
    if matches!(m.audio, Some(Json::Obj(_))) {
        return true;
    }
    // OpenAI writes `annotations: []` with every chat answer: no string in it, read here.
    if m.annotations.as_ref().is_some_and(|a| !matches!(a, Json::Null) && !matches!(a, Json::Arr(items) if items.is_empty())) {
        return true;
    }
    if let Some(Json::Arr(calls)) = &m.tool_calls {
        if calls.iter().any(|c| matches!(c, Json::Obj(Call { function: Some(Json::Obj(Function { arguments: Some(Json::Obj(_) | Json::Arr(_)), .. })), .. }))) {
            return true;
        }
        // Arguments holding an escape: decode.ts's argumentsText adds the strings JSON.parse reads
        // from them (in its key order), so TypeScript reads them. A stream's arguments hold one
        // where a piece of them does.
        if call_args(calls).any(|a| a.contains('\\')) {
            return true;
        }
    }
    if let (Some(a), Some(b)) = (str_of(&m.reasoning_content), str_of(&m.reasoning)) {
        if a != b {
            return true;
        }
    }
    // Content parts other than strings and `text` parts (a Mistral `thinking` part, a refusal part,
    // a part of a type decode.ts does not know and names as not read): TypeScript's to read.
    matches!(&m.content, Some(Json::Arr(parts)) if parts.iter().any(|p| !matches!(p, Json::Str(_)) && !matches!(p, Json::Obj(p) if str_of(&p.kind) == Some("text"))))
}

/// Whether a body's or chunk's top level holds what decode.ts reads and this does not, or may name
/// unread (unknownMembers): a member not known here (`other`), an error object's (its `details`,
/// searched by TypeScript), a `message` not read as an error's (`message_read`: a chunk after an
/// `event: error` line), an `output` that is not the Responses API's list.
fn top_left_to_typescript(obj: &ResponseObject, message_read: bool) -> bool {
    obj.other
        || matches!(&obj.error, Some(Json::Obj(e)) if e.other)
        || (!matches!(obj.message, None | Some(Json::Null)) && str_of(&obj.object) != Some("error") && !(message_read && error_message(obj).is_none()))
        || !matches!(obj.output, None | Some(Json::Null))
}

/// Whether a choice holds what decode.ts reads and this does not, or may name unread: a member not
/// known here, a stream chunk's `message` (read as a delta) or a body's `delta` (read as a message),
/// a `text` beside a message or delta (read where it says something else), a tool call's member
/// not known here (a custom tool's `custom`).
fn choice_left_to_typescript(c: &Choice) -> bool {
    if c.other || matches!((&c.message, &c.delta), (Some(Json::Obj(_)), Some(Json::Obj(_)))) {
        return true;
    }
    if matches!(c.text, Some(Json::Str(_))) && matches!((&c.message, &c.delta), (Some(Json::Obj(_)), _) | (_, Some(Json::Obj(_)))) {
        return true;
    }
    [&c.message, &c.delta].into_iter().any(|m| match m {
        Some(Json::Obj(m)) => {
            m.other
                || matches!(&m.tool_calls, Some(Json::Arr(calls)) if calls.iter().any(|call| matches!(call, Json::Obj(call) if call.other || matches!(&call.function, Some(Json::Obj(f)) if f.other))))
        }
        _ => false,
    })
}

/// withErrorTexts (decode.ts): the answer's text, then each error text on its own line, empty ones skipped.
fn with_error_texts(text: String, errors: Vec<String>) -> String {
    let mut out = text;
    for e in errors.into_iter().filter(|e| !e.is_empty()) {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&e);
    }
    out
}

/// `typeof v === 'number' ? v : 0`, with -0 read as 0 (one key to a Map, SameValueZero).
fn index_of(v: &Option<Any>) -> f64 {
    match v {
        Some(Json::Num(n)) if *n != 0.0 => *n,
        _ => 0.0,
    }
}

/// How a stream's text is at hand: decoded, or as a JSON string's escaped bytes.
trait Form {
    /// A part of the stream (from a line's start, or after `data:` or `event:`) decoded.
    fn decoded(part: &str) -> Option<Cow<'_, str>>;
    /// Where in `part` the decoded part's byte `at` (a character's start, or the end) begins.
    fn offset(part: &str, at: usize) -> Option<usize>;
    /// Whether a data line's payload is `[DONE]`, white space around it.
    fn is_done(payload: &str) -> bool {
        js_trim(payload) == "[DONE]"
    }
    /// Whether a line may hold a CR (a line end of its own to SSE): an escaped `\r` in that form.
    fn has_cr(line: &str) -> bool {
        memchr::memchr(b'\r', line.as_bytes()).is_some()
    }
}

/// The stream as serde_json decoded it.
struct Unescaped;

impl Form for Unescaped {
    fn decoded(part: &str) -> Option<Cow<'_, str>> {
        Some(Cow::Borrowed(part))
    }
    fn offset(_: &str, at: usize) -> Option<usize> {
        Some(at)
    }
}

/// The stream as the bytes between a JSON string's quotes, holding no `\u` escape: each escape is
/// two bytes for one, no byte is a quote or a control character (serde_json checked the string),
/// and a line ends at each `\n` escape. The stream is not decoded whole: a chunk is read by the
/// template (whose bytes are kept escaped too, and a text between them without a backslash is the
/// text itself), and only a chunk that is parsed is decoded, on its own.
struct Escaped;

impl Form for Escaped {
    fn decoded(part: &str) -> Option<Cow<'_, str>> {
        if memchr::memchr(b'\\', part.as_bytes()).is_none() {
            return Some(Cow::Borrowed(part));
        }
        unescape_simple(part).map(Cow::Owned)
    }
    fn offset(part: &str, at: usize) -> Option<usize> {
        // Runs of bytes without a backslash are their own decoding; each escape is one byte.
        let b = part.as_bytes();
        let (mut i, mut decoded) = (0, 0);
        loop {
            let run = memchr::memchr(b'\\', &b[i..]).unwrap_or(b.len() - i);
            if decoded + run >= at {
                return Some(i + (at - decoded));
            }
            decoded += run + 1;
            i += run + 2;
            if i > b.len() {
                return None;
            }
        }
    }
    fn has_cr(line: &str) -> bool {
        static FINDER: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"\\r"));
        FINDER.find(line.as_bytes()).is_some()
    }
    /// Decoded only where short: a `[DONE]` with more white space than this around it is left to
    /// be parsed as JSON, which fails, and the response is then left to TypeScript.
    fn is_done(payload: &str) -> bool {
        payload.len() <= 64 && Self::decoded(payload).is_some_and(|d| js_trim(&d) == "[DONE]")
    }
}

/// The lines of a decoded stream, as decodeSse splits them: split(/\r?\n/), a CR dropped only
/// before a LF (the last line keeps one).
fn unescaped_lines(raw: &str) -> impl Iterator<Item = &str> {
    let mut pieces = raw.split('\n').peekable();
    std::iter::from_fn(move || {
        let piece = pieces.next()?;
        Some(if pieces.peek().is_some() { piece.strip_suffix('\r').unwrap_or(piece) } else { piece })
    })
}

/// The same lines of a stream given escaped (see Escaped): split at each `\n` escape, a `\r`
/// escape dropped before one. A backslash begins an escape where the run of backslashes it ends
/// is odd in length (`\\n` is a backslash and an n).
fn escaped_lines(e: &str) -> impl Iterator<Item = &str> {
    let b = e.as_bytes();
    let escape_at = move |p: usize| b[..=p].iter().rev().take_while(|&&c| c == b'\\').count() % 2 == 1;
    static FINDER: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"\\n"));
    let mut at = FINDER.find_iter(b);
    let mut from = Some(0);
    std::iter::from_fn(move || {
        let start = from?;
        for p in at.by_ref() {
            if !escape_at(p) {
                continue;
            }
            from = Some(p + 2);
            let line = &e[start..p];
            let cr = line.len() >= 2 && line.ends_with("\\r") && escape_at(start + line.len() - 2);
            return Some(if cr { &line[..line.len() - 2] } else { line });
        }
        from = None;
        Some(&e[start..])
    })
}

/// decode.ts isEmptyAfterDone: a line after a stream's end mark that gives the client nothing (a
/// blank line, a comment, a field other than data, another end mark); false where the line
/// cannot be decoded (the stream is then TypeScript's).
fn empty_after_done<F: Form>(line: &str) -> bool {
    // A line holding a CR is several lines to decodeSse: left to it.
    if F::has_cr(line) {
        return false;
    }
    if line.starts_with(':') {
        return true;
    }
    for field in ["event", "id", "retry"] {
        if let Some(rest) = line.strip_prefix(field) {
            if rest.is_empty() || rest.starts_with(':') {
                return true;
            }
        }
    }
    if let Some(rest) = line.strip_prefix("data:") {
        return F::is_done(rest.strip_prefix(' ').unwrap_or(rest));
    }
    F::decoded(line).is_some_and(|d| js_trim(&d).is_empty())
}

/// decode.ts isSseField: a field crosstalk knows (data, event, id, retry, a name alone or with a
/// colon), a comment or a blank line. The same in either form: a field's name holds no escape.
fn sse_field(line: &str) -> bool {
    if line.is_empty() || line.starts_with(':') {
        return true;
    }
    ["data", "event", "id", "retry"].iter().any(|field| line.strip_prefix(field).is_some_and(|rest| rest.is_empty() || rest.starts_with(':')))
}

/// decodeSse over the stream's lines in either form: each data line's JSON document, in order;
/// None where a data line is not one document (JavaScript joins such lines until they parse) or
/// holds a number past 2^53.
fn sse<'r, F: Form>(lines: impl Iterator<Item = &'r str>, full: bool) -> Option<Decoded<'static>> {
    let mut is_error = false;
    let mut message = ErrorText::Null;
    let mut tokens = Tokens::default();
    // Per choice index, in the order first given text: its pieces appended as they come, each to
    // its channel (reasoning, content, refusal: decode.ts's CHANNELS; an audio transcript is
    // TypeScript's to read).
    let mut content: Vec<(f64, Channels)> = Vec::new();
    let mut tools: Vec<((f64, f64), String)> = Vec::new();
    let mut next_is_error = false;
    // The error texts the stream carried (withErrorTexts), in order.
    let mut errors: Vec<String> = Vec::new();
    let mut template: Option<Template<'r>> = None;
    // Whether a data line held a JSON document, or the end mark: a body with neither is text
    // that only starts like a stream, TypeScript's to read (decodeSse returns null for it).
    let mut events = false;
    let mut lines = lines;
    while let Some(line) = lines.next() {
        // A bare CR ends a line too (SSE): decodeSse splits there, and such a stream is left to it.
        if F::has_cr(line) {
            return None;
        }
        if let Some(rest) = line.strip_prefix("event:") {
            next_is_error = js_trim(&F::decoded(rest)?) == "error";
            continue;
        }
        let Some(rest) = line.strip_prefix("data:") else {
            // A line that is no SSE field (decode.ts isSseField): a data line broken in two by a
            // log shipper, or text written between events. decodeSse joins it to the payload
            // before it or searches it as raw text (naming the record not read whole): left to it.
            if !sse_field(line) {
                return None;
            }
            continue;
        };
        let payload = rest.strip_prefix(' ').unwrap_or(rest);
        if F::is_done(payload) {
            events = true;
            // What follows the end mark, where it is more than blank lines, comments, fields
            // without data and end marks: decodeSse names it unread (isEmptyAfterDone), so the
            // stream is left to it.
            if !lines.all(empty_after_done::<F>) {
                return None;
            }
            break;
        }
        // A chunk that is the template's bytes around another text (see Template) reads as the
        // template's chunk did, with this text as its piece.
        if let Some(piece) = template.as_ref().and_then(|t| t.piece(payload)) {
            events = true;
            TEMPLATE_READS.with(|n| n.set(n.get() + 1));
            let t = template.as_ref().expect("a template read");
            // A `message` beside the choices, not read as an error event's: TypeScript names it
            // unread (decode.ts unknownMembers), as it would in the template's own chunk.
            if t.message_member && !next_is_error {
                return None;
            }
            if next_is_error {
                // The chunk is no error itself: its message field, or the chunk as JSON.stringify
                // writes it (left to TypeScript); its choices are read as well.
                is_error = true;
                next_is_error = false;
                let m = t.message.clone()?;
                message = ErrorText::Text(m.clone());
                errors.push(m);
            }
            t.usage.apply(&mut tokens);
            append(&mut content, t.index, CONTENT, piece);
            continue;
        }
        let text = F::decoded(payload)?;
        // A chunk that gives a key twice is TypeScript's to refuse (the shapes fail the read);
        // one read by the template has its structure, checked here.
        let chunk: Response = serde_json::from_str(&text).ok()?;
        events = true;
        // An error event's data that is no object: decodeSse's to read (its text is the message).
        let Json::Obj(chunk) = chunk else {
            if next_is_error {
                return None;
            }
            continue;
        };
        if top_left_to_typescript(&chunk, next_is_error) {
            return None;
        }
        // An error chunk (or an error event's data): its message searched with the answer, and
        // choices it carries read as well (OpenRouter's mid-stream error, finish_reason "error").
        let error = match error_message(&chunk) {
            Some(m) => Some(m),
            None if next_is_error => Some(str_of(&chunk.message).map_or(ErrorText::Stringified, |m| ErrorText::Text(m.to_owned()))),
            None => None,
        };
        if let Some(m) = error {
            is_error = true;
            next_is_error = false;
            if let Some(shown) = shown_error(&chunk, &m)? {
                errors.push(shown);
            }
            message = m;
            if !matches!(chunk.choices, Some(Json::Arr(_))) {
                continue;
            }
        }
        // A typed event (the Responses and Messages APIs): the stream is TypeScript's to read.
        if str_of(&chunk.kind).is_some() && !matches!(chunk.choices, Some(Json::Arr(_))) {
            return None;
        }
        let usage = if full { UsageRead::of(chunk.usage.as_ref().map(|u| u.0))? } else { UsageRead::default() };
        usage.apply(&mut tokens);
        let Some(Json::Arr(choices)) = &chunk.choices else { continue };
        if choices.iter().any(|c| matches!(c, Json::Obj(c) if choice_left_to_typescript(c) || matches!(c.message, Some(Json::Obj(_))) || matches!(&c.delta, Some(Json::Obj(d)) if answer_left_to_typescript(d)))) {
            return None;
        }
        // A template is never an error chunk's: the chunks read by it would not be errors.
        if let Some((start, end, index)) = Template::of(&text, choices).filter(|_| !errors_at(&chunk)) {
            // The template's bytes in the stream's own form.
            if let (Some(start), Some(end)) = (F::offset(payload, start), F::offset(payload, end)) {
                let message = str_of(&chunk.message).map(str::to_owned);
                let message_member = !matches!(chunk.message, None | Some(Json::Null));
                template = Some(Template { before: &payload[..start], after: &payload[end..], index, usage, message, message_member });
            }
        }
        for choice in choices {
            let Json::Obj(choice) = choice else { continue };
            let index = index_of(&choice.index);
            // The choice's pieces (its reasoning, its content, its refusal; or its text) appended
            // part by part to their channels: the same texts as the pieces appended whole, and no
            // entry for empty ones.
            if let Some(Json::Obj(delta)) = &choice.delta {
                append(&mut content, index, REASONING, reasoning_of(delta).unwrap_or(""));
                match &delta.content {
                    Some(Json::Str(s)) => append(&mut content, index, CONTENT, s),
                    Some(Json::Arr(parts)) => {
                        for part in parts {
                            match part {
                                Json::Str(s) => append(&mut content, index, CONTENT, s),
                                Json::Obj(p) => append(&mut content, index, CONTENT, str_of(&p.text).unwrap_or("")),
                                _ => {}
                            }
                        }
                    }
                    _ => {}
                }
                append(&mut content, index, REFUSAL, str_of(&delta.refusal).unwrap_or(""));
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
                append(&mut content, index, CONTENT, t);
            }
        }
    }
    if !events {
        return None;
    }
    // Choices in index order (a stable sort of the insertion order, as Array.prototype.sort is).
    content.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(std::cmp::Ordering::Equal));
    // Each choice's channels one per line, as a message's texts are (decodeSse).
    let choices = content.into_iter().map(|(_, channels)| joined(channels));
    let mut texts = choices.chain(tools.into_iter().map(|(_, s)| s));
    // One text (the usual stream: one choice, no tool call) is the text itself, not a copy.
    let mut text = texts.next().unwrap_or_default();
    for t in texts {
        text.push('\n');
        text.push_str(&t);
    }
    let text = with_error_texts(text, errors);
    Some(Decoded { text: Cow::Owned(text), is_error, kind: Kind::Sse, stream: true, message, tokens })
}

thread_local! {
    /// Chunks this thread has read by a template (for tests: that the template is used at all,
    /// in either form; a template that never matched would give the same answers, slower).
    pub static TEMPLATE_READS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// A stream's chunks mostly differ only in their text: OpenAI's, vLLM's and SGLang's repeat the
/// same id, object, created and model around each delta. A chunk whose one contribution was a
/// `delta.content` string (or a completions chunk's `text`) without escapes (the token `"` text
/// `"`, borrowed from the chunk) is kept as its bytes before and after that string. A later
/// chunk with exactly those bytes around a text holding no `"`, no `\` and no control character
/// is the same token sequence with only that string token changed, so JSON reads it as the same
/// document with that text as the content, and decodeSse appends it as it did the template's: it
/// is not parsed again.
/// Anything else in between (an escape, a quote that would end the string early) is parsed whole.
struct Template<'p> {
    before: &'p str,
    after: &'p str,
    /// The choice's index, as index_of read it.
    index: f64,
    /// The chunk's usage, read again with each chunk read by the template (the same bytes).
    usage: UsageRead,
    /// The chunk's `message` where it is a string (an `event: error` line before such a chunk makes it the error's message).
    message: Option<String>,
    /// Whether the chunk has a `message` member (not null): a chunk read by the template without an
    /// `event: error` line before it is then left to TypeScript.
    message_member: bool,
}

impl<'p> Template<'p> {
    /// The template of a chunk (not an error) whose only text is one choice's delta.content, or
    /// (a completions stream, `text_completion`: no delta object) the choice's text, a string
    /// given without escapes. A quarter of a generated incident's stream chunks are completions
    /// chunks, and each was parsed whole (measured: 56% of the chunks parsed).
    /// The text's start and end in the decoded chunk, and the choice's index.
    fn of(payload: &str, choices: &[Json<Choice, Skip>]) -> Option<(usize, usize, f64)> {
        let [Json::Obj(choice)] = choices else { return None };
        let text = if let Some(Json::Obj(delta)) = &choice.delta {
            // Reasoning, a refusal or tool calls would add text of their own.
            if reasoning_of(delta).is_some_and(|r| !r.is_empty())
                || str_of(&delta.refusal).is_some_and(|r| !r.is_empty())
                || matches!(delta.tool_calls, Some(Json::Arr(_)))
            {
                return None;
            }
            let Some(Json::Str(Cow::Borrowed(text))) = &delta.content else { return None };
            text
        } else {
            // decodeSse reads a choice's text only where it has no delta object.
            let Some(Json::Str(Cow::Borrowed(text))) = &choice.text else { return None };
            text
        };
        // Borrowed: a slice of the payload itself, between its quotes.
        let start = (text.as_ptr() as usize).checked_sub(payload.as_ptr() as usize)?;
        let end = start.checked_add(text.len())?;
        let bytes = payload.as_bytes();
        if start == 0 || end >= bytes.len() || bytes[start - 1] != b'"' || bytes[end] != b'"' {
            return None;
        }
        Some((start, end, index_of(&choice.index)))
    }

    /// The text of a chunk that is this template around another string; None for any other chunk.
    fn piece(&self, payload: &'p str) -> Option<&'p str> {
        let text = payload.strip_prefix(self.before)?.strip_suffix(self.after)?;
        (!text.bytes().any(|c| c == b'"' || c == b'\\' || c < 0x20)).then_some(text)
    }
}

/// A stream choice's channels: its reasoning, its content, its refusal (decode.ts's CHANNELS less
/// the audio transcript, which TypeScript reads). A marker split across two was in neither.
type Channels = [String; 3];
const REASONING: usize = 0;
const CONTENT: usize = 1;
const REFUSAL: usize = 2;

/// A choice's channels that are not empty, one per line: the one text itself where there is one
/// (the usual stream), not a copy of it.
fn joined(channels: Channels) -> String {
    let mut parts = channels.into_iter().filter(|c| !c.is_empty());
    let mut text = parts.next().unwrap_or_default();
    for part in parts {
        text.push('\n');
        text.push_str(&part);
    }
    text
}

/// Appends a piece of a choice's text to that choice's channel, the choice first given an entry by a piece that is not empty.
fn append(content: &mut Vec<(f64, Channels)>, index: f64, channel: usize, piece: &str) {
    if piece.is_empty() {
        return;
    }
    match content.iter_mut().find(|(k, _)| *k == index) {
        Some((_, channels)) => channels[channel].push_str(piece),
        None => {
            let mut channels = Channels::default();
            channels[channel].push_str(piece);
            content.push((index, channels));
        }
    }
}

/// A message's or delta's reasoning text, as decode.ts's reasoningOf: `reasoning_content` where it
/// is a string, else `reasoning` (vLLM's name since 2026, OpenRouter's, gpt-oss's).
fn reasoning_of<'m>(m: &'m Message) -> Option<&'m str> {
    str_of(&m.reasoning_content).or_else(|| str_of(&m.reasoning))
}

/// Whether a chunk is an error (errorOf), whose choices are read but never made a template.
fn errors_at(chunk: &ResponseObject) -> bool {
    error_message(chunk).is_some()
}
