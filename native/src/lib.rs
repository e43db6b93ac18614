//! crosstalk's native extractor for the quick verdict's pass (src/ingest/quick-unit.ts), and
//! ingest's decoder of plain native lines' bodies (`ingest_lines`, src/ingest/native-ingest.ts).
//!
//! It reads a unit of native-format log lines and answers, per line, only where it is certain
//! of the answer the TypeScript extractor gives: a blank line, or a record that needs no note,
//! with its (source, request_id) hashes, its flags and its time, and, where its response holds
//! a marker-shaped token or a registered marker and both its texts are ASCII, its tokens, hits
//! and echo facts. Every other line (a bad one, a record with a note, a marked record with a
//! non-ASCII text, anything whose reading could depend on JavaScript's own rules) is left
//! unclaimed, and the TypeScript extractor reads it as before. So the TypeScript extractor
//! stays the reference: test/ingest/native-quick.test.ts checks, on generated incidents and on
//! random and mutated lines, that every claim equals its answer.

mod decode;
mod dupkeys;
mod js;
mod registry;
mod scan;
mod timestamp;
mod value;
mod words;

use aho_corasick::{AhoCorasick, AhoCorasickKind, Input};
use napi::bindgen_prelude::{Float64Array, Uint32Array, Uint8Array};
use napi::{Env, JsString};
use napi_derive::napi;
use std::fmt;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, Weak};

use serde::de::{Deserialize, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;

use crate::decode::{Decoded, ResponseField, ResponseSeed};
use crate::value::{Any, Json, Key, KeysSeen, Skip};

/// Per line: left to TypeScript.
const LEFT: u8 = 0;
/// Per line: blank.
const BLANK: u8 = 1;
/// Per line: a record, whose columns are the next in `pairs`, `flags` and `ts`.
const RECORD: u8 = 2;

// recordFlags (process-unit.ts)
const NO_REQUEST_TEXT: u8 = 1;
const NO_RESPONSE_TEXT: u8 = 2;
const NO_RESPONSE: u8 = 4;
const IS_ERROR: u8 = 8;

#[napi(object)]
pub struct QuickLines {
    /// Per line of the unit: 0 left to TypeScript, 1 blank, 2 a record.
    pub kinds: Uint8Array,
    /// Per record: pairHash(source, request_id), two 32-bit words.
    pub pairs: Uint32Array,
    /// Per record: recordFlags.
    pub flags: Uint8Array,
    /// Per record: ts_ms.
    pub ts: Float64Array,
    /// The records whose response holds a marker-shaped token or a registered marker, in order.
    pub marked: Vec<QuickMarked>,
}

/// What the verdict reads of a record whose response holds a marker (quick-unit.ts QuickRecord),
/// given only where both texts are ASCII: a position is then a byte offset and a UTF-16 index
/// alike, and lower case is ASCII's.
#[napi(object)]
pub struct QuickMarked {
    /// The record's index among the unit's records (its columns).
    pub at: u32,
    pub request_id: String,
    pub tenant_id: String,
    pub session_id: String,
    /// markerTokens: each `CANARY-` and its whole hex run (8 digits or more), in order, and where it starts.
    pub tokens: Vec<String>,
    pub token_positions: Vec<u32>,
    /// UnconventionalSet.hits: per registered marker found, its index in the list this
    /// extractor was built with, and where its first occurrence starts.
    pub hits: Vec<u32>,
    pub hit_positions: Vec<u32>,
    /// promptPrefix per token: how many of its lower-cased hex digits, from the first, the prompt
    /// holds right after a `CANARY-` (hex in either case).
    pub token_echo: Vec<u32>,
    /// promptHex's `whole` per token: as many, where no more hex follows them in the prompt.
    pub token_whole: Vec<u32>,
    /// Per hit: whether the prompt holds the marker exactly as registered.
    pub hit_echo: Vec<bool>,
}

/// The extractor of one pass: the texts whose presence in a response leaves it to TypeScript
/// (`CANARY-` and the registry's markers outside that convention).
#[napi]
pub struct QuickExtractor {
    automaton: Arc<Automaton>,
}

/// The markers' automaton, one per process for one list of markers: every parse worker of a pass
/// builds its extractor from the same list, and each worker building its own held it once per
/// worker (8 MB each for the 53,950 markers of a 5M-record incident, with the builds' own
/// transient memory at the same moment: the pass's peak at that size, measured).
struct Automaton {
    /// `CANARY-` (pattern 0), then the markers (pattern i + 1 is markers[i]).
    avoid: AhoCorasick,
    markers: Vec<String>,
    /// A byte that every pattern holds, where the patterns share one and a search could not
    /// otherwise skip ahead: see Automaton::is_match.
    pivot: Option<u8>,
    /// The longest pattern's length in bytes.
    longest: usize,
}

/// The automaton last built, for as long as an extractor holds it.
static LAST_BUILT: Mutex<Option<Weak<Automaton>>> = Mutex::new(None);
/// Automata built by this process (for tests: extractors of one list in two workers build one).
static BUILT: AtomicU32 = AtomicU32::new(0);

/// How many stream chunks this thread has read by a template (decode.rs Template).
#[napi]
pub fn template_reads() -> f64 {
    decode::TEMPLATE_READS.with(|n| n.get() as f64)
}

thread_local! {
    /// Lines of this thread that the walk (QuickExtractor::walk) refused and serde_json read.
    static WALK_MISSED: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// How many lines this thread's walk refused that serde_json then read (for tests: only a key
/// with an escape should send a line there; anything else costs a second reading).
#[napi]
pub fn walk_missed() -> f64 {
    WALK_MISSED.with(|n| n.get() as f64)
}

/// How many markers' automata this process has built.
#[napi]
pub fn automata_built() -> u32 {
    BUILT.load(Ordering::Relaxed)
}

impl Automaton {
    /// The automaton of these markers: the one last built where it is still held and of the same
    /// list, else a new one. The lock is held while building, so that a second worker asking for
    /// the same list waits for the first one's instead of building its own beside it.
    fn of(unconventional: Vec<String>) -> napi::Result<Arc<Automaton>> {
        let mut last = LAST_BUILT.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(built) = last.as_ref().and_then(Weak::upgrade) {
            if built.markers == unconventional {
                return Ok(built);
            }
        }
        let mut patterns = vec!["CANARY-".to_owned()];
        patterns.extend(unconventional.iter().cloned());
        let avoid = searcher(&patterns).map_err(|e| napi::Error::from_reason(e.to_string()))?;
        let pivot = pivot(&patterns);
        let longest = patterns.iter().map(String::len).max().unwrap_or(0);
        drop(patterns);
        BUILT.fetch_add(1, Ordering::Relaxed);
        let built = Arc::new(Automaton { avoid, markers: unconventional, pivot, longest });
        *last = Some(Arc::downgrade(&built));
        Ok(built)
    }

    /// Whether the text holds `CANARY-` or a marker: the automaton's answer, found sooner. Every
    /// match holds the pivot byte, so a match lies within `longest - 1` bytes of one of its
    /// occurrences; memchr finds those (SIMD), and the automaton reads only the stretches around
    /// them, merged where they touch, never a byte twice. Over natural text a byte such as `-`
    /// is rare, and the automaton's one lookup per byte of every response was 14.6% of the
    /// extractor's time (perf), as its prefilters stand aside beyond a few dozen patterns.
    fn is_match(&self, text: &[u8]) -> bool {
        let Some(pivot) = self.pivot else {
            return self.avoid.is_match(text);
        };
        let reach = self.longest - 1;
        let around = |p: usize| (p.saturating_sub(reach), (p + reach + 1).min(text.len()));
        let mut at = memchr::memchr_iter(pivot, text);
        let Some(first) = at.next() else {
            return false;
        };
        let (mut start, mut end) = around(first);
        for p in at {
            let (s, e) = around(p);
            if s > end {
                if self.avoid.is_match(Input::new(text).span(start..end)) {
                    return true;
                }
                start = s;
            }
            end = e;
        }
        self.avoid.is_match(Input::new(text).span(start..end))
    }
}

/// The byte that every pattern holds and that is likely rarest in a response's text, where there
/// are two patterns or more and they share one.
fn pivot(patterns: &[String]) -> Option<u8> {
    if patterns.len() < 2 {
        // One pattern: the automaton searches it with memchr's SIMD substring search already.
        return None;
    }
    let mut shared = [true; 256];
    for p in patterns {
        let mut has = [false; 256];
        for &b in p.as_bytes() {
            has[b as usize] = true;
        }
        for (s, h) in shared.iter_mut().zip(has) {
            *s &= h;
        }
    }
    (0..=255u8).filter(|&b| shared[b as usize]).min_by_key(|&b| commonness(b))
}

/// How common a byte is in prose, coarsely: letters and spaces most, then the usual punctuation,
/// digits and capitals, then other symbols (`-`, `_`, `#`...), and control bytes least. Bytes of
/// UTF-8 sequences rank with the letters: a response in another script is made of them.
fn commonness(b: u8) -> u8 {
    match b {
        b'a'..=b'z' | b' ' | 0x80..=0xff => 4,
        b'.' | b',' | b'\n' | b'\'' | b'"' => 3,
        b'A'..=b'Z' | b'0'..=b'9' => 2,
        0x21..=0x7e => 1,
        _ => 0,
    }
}

/// The markers' searcher: a DFA where it stays small, else the crate's own choice (a contiguous
/// NFA beyond 100 patterns). Every response's text is searched, and over the 2,167 markers of a
/// 200k-record incident the NFA read 550 MB of logs in 2.25 s of one thread, the DFA in 1.65 s
/// (the logs without any marker to search: 1.43 s). A DFA holds a row of transitions per state
/// where the NFA holds only its edges: 124 KB -> 2.2 MB for those markers, 2.2 -> 37 MB for
/// 54,000 markers of the same shape, 11 -> 235 MB for 54,000 random ones (measured); so the DFA
/// is built only where the NFA is at most DFA_FROM_NFA_BYTES, which keeps it near 10 MB at most.
fn searcher(patterns: &[String]) -> Result<AhoCorasick, aho_corasick::BuildError> {
    let nfa = AhoCorasick::new(patterns)?;
    if nfa.kind() == AhoCorasickKind::DFA || nfa.memory_usage() > DFA_FROM_NFA_BYTES {
        return Ok(nfa);
    }
    drop(nfa);
    AhoCorasick::builder().kind(Some(AhoCorasickKind::DFA)).build(patterns)
}

/// The largest NFA whose markers get a DFA (about 20 times its size, measured on random markers).
const DFA_FROM_NFA_BYTES: usize = 512 << 10;

#[napi]
impl QuickExtractor {
    #[napi(constructor)]
    pub fn new(unconventional: Vec<String>) -> napi::Result<Self> {
        // The markers of an UnconventionalSet: none is empty (an empty pattern would match everywhere).
        if unconventional.iter().any(String::is_empty) {
            return Err(napi::Error::from_reason("an empty unconventional marker"));
        }
        Ok(QuickExtractor { automaton: Automaton::of(unconventional)? })
    }

    /// The unit's lines as decodeLine reads them; `max_line_bytes` and `source` as the task gives them.
    /// A panic (a bug here) is thrown to JavaScript as an error, never unwound into Node.
    #[napi(catch_unwind)]
    pub fn lines(&self, bytes: Uint8Array, source: String, max_line_bytes: u32) -> QuickLines {
        let source: Vec<u16> = source.encode_utf16().collect();
        let bytes: &[u8] = &bytes;
        let mut kinds = Vec::with_capacity(bytes.len() / 1024 + 16);
        let mut pairs = Vec::new();
        let mut flags = Vec::new();
        let mut ts = Vec::new();
        let mut marked = Vec::new();
        for line in unit_lines(bytes, max_line_bytes) {
            let Some(line) = line else {
                kinds.push(LEFT);
                continue;
            };
            match self.line(line, &source) {
                Line::Blank => kinds.push(BLANK),
                Line::Left => kinds.push(LEFT),
                Line::Record { h1, h2, flags: f, ts_ms, marked: m } => {
                    if let Some(m) = m {
                        marked.push(m.into_js(flags.len() as u32));
                    }
                    kinds.push(RECORD);
                    pairs.push(h1);
                    pairs.push(h2);
                    flags.push(f);
                    ts.push(ts_ms);
                }
            }
        }
        QuickLines { kinds: kinds.into(), pairs: pairs.into(), flags: flags.into(), ts: ts.into(), marked }
    }
}

enum Line {
    Blank,
    Left,
    Record { h1: u32, h2: u32, flags: u8, ts_ms: f64, marked: Option<Box<Marked>> },
}

/// A marked record's facts, before they go to JavaScript.
struct Marked {
    request_id: String,
    tenant_id: String,
    session_id: String,
    tokens: Vec<(String, u32)>,
    hits: Vec<(u32, u32)>,
    token_echo: Vec<u32>,
    token_whole: Vec<u32>,
    hit_echo: Vec<bool>,
}

impl Marked {
    fn into_js(self, at: u32) -> QuickMarked {
        let (tokens, token_positions) = self.tokens.into_iter().unzip();
        let (hits, hit_positions) = self.hits.into_iter().unzip();
        QuickMarked {
            at,
            request_id: self.request_id,
            tenant_id: self.tenant_id,
            session_id: self.session_id,
            tokens,
            token_positions,
            hits,
            hit_positions,
            token_echo: self.token_echo,
            token_whole: self.token_whole,
            hit_echo: self.hit_echo,
        }
    }
}

/// The markers of a response, and what the echo check needs of the prompt.
struct Found {
    tokens: Vec<(String, u32)>,
    hits: Vec<(u32, u32)>,
}

impl QuickExtractor {
    fn line(&self, line: &[u8], source: &[u16]) -> Line {
        let Some(body) = not_blank(line) else { return Line::Blank };
        self.record(body, source).map_or(Line::Left, |(h1, h2, flags, ts_ms, marked)| Line::Record { h1, h2, flags, ts_ms, marked })
    }

    /// readLineJson, toRow and rowFromRecord for a plain native line; None: left to TypeScript.
    fn record(&self, body: &[u8], source: &[u16]) -> Option<(u32, u32, u8, f64, Option<Box<Marked>>)> {
        if may_hold_placeholder(body) {
            return None;
        }
        let text = object_text(body)?;
        // A key given twice anywhere in the line: TypeScript refuses it (dupkeys.rs). The walk
        // checks on its way; a line it does not read is checked whole before serde_json reads it.
        let line = match self.walk(text) {
            Some(line) => line,
            None => {
                if dupkeys::may_repeat_key(text) {
                    return None;
                }
                // serde_json::from_str, with the extractor as the seed: the value, then only white space.
                let mut de = serde_json::Deserializer::from_str(text);
                let line = LineSeed(self, text).deserialize(&mut de).ok()?;
                de.end().ok()?;
                WALK_MISSED.with(|n| n.set(n.get() + 1));
                line
            }
        };
        let request_id = id(&line.request_id)?;
        let tenant_id = id(&line.tenant_id)?;
        let session_id = id(&line.session_id)?;
        let ts_ms = timestamp(&line.ts)?;
        quiet_int(&line.status, 100.0, 999.0)?;
        quiet_int(&line.prompt_tokens, 0.0, value::MAX_SAFE_INTEGER)?;
        quiet_int(&line.completion_tokens, 0.0, value::MAX_SAFE_INTEGER)?;
        let mut flags = 0;
        // Whether the request has a text, for every record; the text itself below, only for a
        // record whose response is marked (its echo check reads it).
        match &line.request {
            None | Some(Json::Null) => flags |= NO_REQUEST_TEXT,
            Some(body) => {
                if decode::request_empty(body)? {
                    flags |= NO_REQUEST_TEXT;
                }
            }
        }
        let mut marked = None;
        match line.response {
            None | Some(ResponseField::Null) => flags |= NO_RESPONSE_TEXT | NO_RESPONSE,
            Some(ResponseField::Left) => return None,
            Some(ResponseField::Read(r)) => {
                // `CANARY-` or a registered marker: its tokens, hits and echo facts where both
                // texts are ASCII; any other record is left to TypeScript.
                if let Some(text) = r.marked {
                    let prompt = match &line.request {
                        None | Some(Json::Null) => String::new(),
                        Some(body) => decode::request_text(body)?,
                    };
                    let prompt = prompt.as_str();
                    if !text.is_ascii() || !prompt.is_ascii() {
                        return None;
                    }
                    // A marker written with an escape or a reference (markers.ts unitAt) is read by TypeScript.
                    if may_hold_encoded(text.as_bytes()) || may_hold_encoded(prompt.as_bytes()) {
                        return None;
                    }
                    let found = self.found(&text);
                    if !found.tokens.is_empty() || !found.hits.is_empty() {
                        marked = Some(Box::new(self.echo(found, prompt, request_id, tenant_id, session_id)));
                    }
                }
                if r.is_error {
                    flags |= IS_ERROR;
                } else if r.empty {
                    flags |= NO_RESPONSE_TEXT;
                }
            }
        }
        let (h1, h2) = pair_hash(source, request_id);
        Some((h1, h2, flags, ts_ms, marked))
    }

    /// The line's object walked here (walk_members), each field's value read by serde_json as
    /// LineSeed reads it. None where the line is not JSON, or where a key holds an escape:
    /// LineSeed then reads it, to the same refusal or answer.
    fn walk<'de>(&self, text: &'de str) -> Option<NativeLine<'de>> {
        let mut out = NativeLine::default();
        walk_members(text, |key, _, i| match key {
            b"ts" => value_into(text, i, &mut out.ts),
            b"request_id" => value_into(text, i, &mut out.request_id),
            b"tenant_id" => value_into(text, i, &mut out.tenant_id),
            b"session_id" => value_into(text, i, &mut out.session_id),
            b"status" => value_into(text, i, &mut out.status),
            b"prefill_node" => value_into(text, i, &mut out.prefill_node),
            b"decode_node" => value_into(text, i, &mut out.decode_node),
            b"prompt_tokens" => value_into(text, i, &mut out.prompt_tokens),
            b"completion_tokens" => value_into(text, i, &mut out.completion_tokens),
            b"request" => value_into(text, i, &mut out.request),
            b"response" if text.as_bytes().get(i) == Some(&b'"') => {
                let end = string_after(text.as_bytes(), i)?;
                out.response = Some(decode::response_json_string(&text[i..=end], false, |d| self.summary(d)));
                Some(end + 1)
            }
            b"response" => {
                let (OwnedResponse::<false>(r), next) = value_at(text, i)?;
                out.response = Some(match r {
                    ResponseField::Read(d) => ResponseField::Read(self.summary(d)),
                    ResponseField::Null => ResponseField::Null,
                    ResponseField::Left => ResponseField::Left,
                });
                Some(next)
            }
            _ => skip_value(text, i),
        })?;
        Some(out)
    }

    /// A decoded response as the verdict reads it; its text is kept only where it may hold a
    /// marker (may_hold_marker) or holds a registered one (3% of records in a generated incident).
    fn summary(&self, d: Decoded) -> ResponseRead {
        let empty = d.text.is_empty();
        let marked = (may_hold_marker(d.text.as_bytes()) || self.automaton.is_match(d.text.as_bytes())).then(|| d.text.into_owned());
        ResponseRead { is_error: d.is_error, empty, marked }
    }

    /// markerTokens and UnconventionalSet.hits (markers.ts, extract.ts) over an ASCII text.
    fn found(&self, text: &str) -> Found {
        let b = text.as_bytes();
        // /CANARY-((?:(?!CANARY-)[0-9a-fA-F]){8,})/g: at each `CANARY-`, the whole hex run after
        // it, up to the next `CANARY-`; a run under 8 digits is no match there, and the search
        // goes on from the next byte.
        // The run may start after a line break that follows the hyphen (prefix_end).
        let mut tokens = Vec::new();
        let mut from = 0;
        while let Some(i) = CANARY_HYPHEN.find(&b[from..]) {
            let start = from + i;
            let hex = prefix_end(b, start);
            let (end, digits) = run_end(b, hex);
            if digits >= 8 {
                let token = if hex == start + 7 && end - hex == digits {
                    text[start..end].to_owned()
                } else {
                    let mut t = String::with_capacity(7 + digits);
                    t.push_str("CANARY-");
                    t.extend(b[hex..end].iter().filter(|c| c.is_ascii_hexdigit()).map(|&c| c as char));
                    t
                };
                tokens.push((token, start as u32));
                from = end;
            } else {
                from = start + 1;
            }
        }
        Found { tokens, hits: self.whole_hits(b) }
    }

    /// UnconventionalSet.hits (extract.ts, wholeMatches in markers.ts) over an ASCII text: every
    /// occurrence, ordered as AhoCorasick.findAll (aho-corasick.ts) reports them (by where they
    /// end, the longer first); one inside a longer occurrence or inside a longer `CANARY-` and
    /// hex run is dropped; each marker's first kept.
    fn whole_hits(&self, b: &[u8]) -> Vec<(u32, u32)> {
        let mut all: Vec<(usize, usize, u32)> = Vec::new();
        for m in self.automaton.avoid.find_overlapping_iter(b) {
            let p = m.pattern().as_usize();
            if p > 0 {
                all.push((m.end(), m.end() - m.start(), p as u32 - 1));
            }
        }
        if all.is_empty() {
            return Vec::new();
        }
        all.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        let mut spans: Vec<(usize, usize)> = all.iter().map(|&(end, len, _)| (end - len, end)).collect();
        for at in CANARY_HYPHEN.find_iter(b) {
            let hex = prefix_end(b, at);
            spans.push((at, run_end(b, hex).0));
        }
        // containment (markers.ts): a longer span holding [s, e) starts before it and ends at or
        // after e, or starts at s and ends after e; found by a binary search over the spans sorted.
        spans.sort_unstable();
        let mut reach = Vec::with_capacity(spans.len() + 1);
        reach.push(0usize);
        for &(_, e) in &spans {
            let last = *reach.last().unwrap();
            reach.push(last.max(e));
        }
        let inside = |s: usize, e: usize| {
            let before = spans.partition_point(|&(x, _)| x < s);
            let furthest_at = spans[before..].iter().take_while(|&&(x, _)| x == s).map(|&(_, y)| y).max().unwrap_or(0);
            (before > 0 && reach[before] >= e) || furthest_at > e
        };
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        for (end, len, marker) in all {
            if !seen.contains(&marker) && !inside(end - len, end) {
                seen.insert(marker);
                out.push((marker, (end - len) as u32));
            }
        }
        out
    }

    /// echoFacts (quick-unit.ts) over an ASCII prompt.
    fn echo(&self, found: Found, prompt: &str, request_id: &str, tenant_id: &str, session_id: &str) -> Marked {
        let prompt = prompt.as_bytes();
        let (token_echo, token_whole) = found.tokens.iter().map(|(token, _)| hex_after_prefix(prompt, &token.as_bytes()[7..])).unzip();
        // Matched as the automaton matches responses: exactly as registered, and whole.
        let held = if found.hits.is_empty() { Vec::new() } else { self.whole_hits(prompt) };
        let hit_echo = found.hits.iter().map(|&(marker, _)| held.iter().any(|&(m, _)| m == marker)).collect();
        Marked {
            request_id: request_id.to_owned(),
            tenant_id: tenant_id.to_owned(),
            session_id: session_id.to_owned(),
            tokens: found.tokens,
            hits: found.hits,
            token_echo,
            token_whole,
            hit_echo,
        }
    }
}



/// promptHex (markers.ts): how many of a token's hex digits, from the first, the prompt holds
/// right after a `CANARY-`, the most over every `CANARY-` in it, and how many it holds as that
/// `CANARY-`'s whole hex run (no hex digit after them, the run ended at a `CANARY-` as tokens
/// are); hex compared in either case (A-F folded on both sides), `CANARY-` as written. The digits
/// alone, a hash or an id a user pasted, are not the marker and count for nothing.
fn hex_after_prefix(prompt: &[u8], hex: &[u8]) -> (u32, u32) {
    let (mut prefix, mut whole) = (0, 0);
    for at in CANARY_HYPHEN.find_iter(prompt) {
        if whole == hex.len() {
            break;
        }
        // The digits may go on after a line break where the marker goes on there (a wrapped
        // marker, or one split over two text parts, each on a line of its own).
        let mut i = prefix_end(prompt, at);
        let mut n = 0;
        while n < hex.len() {
            let j = if n > 0 { skip_break(prompt, i) } else { i };
            if prompt.get(j).is_none_or(|p| !p.eq_ignore_ascii_case(&hex[n])) {
                break;
            }
            n += 1;
            i = j + 1;
        }
        prefix = prefix.max(n);
        if n > whole && hex_run(&prompt[i..]) == 0 {
            whole = n;
        }
    }
    (prefix as u32, whole as u32)
}

/// The searchers of the texts looked for in every response, built once: `memmem::find` builds
/// one per call (its setup was about 1.5% of the extractor's time, perf).
static CANARY: std::sync::LazyLock<memchr::memmem::Finder<'static>> = std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"CANARY"));
static CANARY_HYPHEN: std::sync::LazyLock<memchr::memmem::Finder<'static>> = std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"CANARY-"));
/// The first two bytes of the full-width letters' UTF-8 (U+FF01 to U+FF3F).
static FULL_WIDTH: std::sync::LazyLock<memchr::memmem::Finder<'static>> = std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\xef\xbc"));

/// Whether a text may hold a marker as markerTokens (markers.ts) folds them: `CANARY` (with any
/// hyphen after it, a look-alike or none), or a full-width form of one of its letters (U+FF21 A,
/// U+FF23 C, U+FF2E N, U+FF32 R, U+FF39 Y: UTF-8 EF BC A1/A3/AE/B2/B9). SIMD searches both, so a
/// text without either costs two quick passes. A text that holds one but is not ASCII is left to
/// TypeScript, which folds look-alikes, full-width forms and invisible characters; an ASCII one
/// holds a marker only as `CANARY-`, with at most a line break after the hyphen (prefix_end) and
/// line breaks inside a short hex run (run_end), or with an escape, a reference or a
/// percent-encoded hyphen inside it, which TypeScript reads (may_hold_encoded). Each keeps the
/// word `CANARY` as written, so this finds every one of them.
fn may_hold_marker(b: &[u8]) -> bool {
    CANARY.find(b).is_some() || FULL_WIDTH.find_iter(b).any(|i| matches!(b.get(i + 2), Some(0xa1 | 0xa3 | 0xae | 0xb2 | 0xb9)))
}

/// Where the hex digits of the `CANARY-` at `at` start in an ASCII text: after the hyphen, and
/// after one line break (LF or CR LF, and indentation) there, where word-wrappers break a marker
/// (prefixEnd).
fn prefix_end(b: &[u8], at: usize) -> usize {
    skip_break(b, at + 7)
}

/// The position after a line break (LF or CR LF) at `i` and the spaces and tabs that indent the
/// next line, or `i` where no break is (skipBreak).
fn skip_break(b: &[u8], i: usize) -> usize {
    let mut j = match (b.get(i), b.get(i + 1)) {
        (Some(b'\n'), _) => i + 1,
        (Some(b'\r'), Some(b'\n')) => i + 2,
        _ => return i,
    };
    while matches!(b.get(j), Some(b' ' | b'\t')) {
        j += 1;
    }
    j
}

/// The fewest hex digits a run has before a line break it does not go on over (MIN_PARTIAL_HEX).
const MIN_PARTIAL_HEX: usize = 16;

/// Where the hex run from `hex` ends in an ASCII text, and its digits (hexRunAt): hex digits up to
/// a `CANARY-`, going on over a line break (and indentation) to hex digits on the next line while
/// it has fewer than 16 digits (a marker wrapped at a fixed width; a run of 16 or more is a
/// sighting on its own, never lengthened by the next line's hex word).
fn run_end(b: &[u8], hex: usize) -> (usize, usize) {
    let mut digits = hex_run(&b[hex..]);
    let mut end = hex + digits;
    while digits > 0 && digits < MIN_PARTIAL_HEX {
        let next = skip_break(b, end);
        if next == end {
            break;
        }
        let more = hex_run(&b[next..]);
        if more == 0 {
            break;
        }
        digits += more;
        end = next + more;
    }
    (end, digits)
}

/// Whether an ASCII text may hold a marker whose hyphen, an invisible character or a hex digit is
/// written as a JSON `\u` escape, an HTML character reference or (the hyphen) percent-encoded,
/// which markerTokens and promptHex (markers.ts unitAt) read and this extractor does not: at a
/// `CANARY`, a `\`, `&` or `%` where the hyphen stands, or a `\` or `&` where the digits after the
/// hyphen stop, read over every line break as the echo check reads a prompt's (hex_after_prefix).
fn may_hold_encoded(b: &[u8]) -> bool {
    CANARY.find_iter(b).any(|at| match b.get(at + 6) {
        Some(b'\\' | b'&' | b'%') => true,
        Some(b'-') => {
            let mut i = prefix_end(b, at);
            loop {
                while b.get(i).is_some_and(u8::is_ascii_hexdigit) {
                    i += 1;
                }
                let next = skip_break(b, i);
                if next == i {
                    break;
                }
                i = next;
            }
            matches!(b.get(i), Some(b'\\' | b'&'))
        }
        _ => false,
    })
}

/// How many hex digits open `b`, up to a `CANARY-` (the token expression's run).
fn hex_run(b: &[u8]) -> usize {
    let mut end = 0;
    while end < b.len() && b[end].is_ascii_hexdigit() && !b[end..].starts_with(b"CANARY-") {
        end += 1;
    }
    end
}

/// walkUnit's cut of a unit into lines (a unit ending in a newline has no empty line after it):
/// each line, or None for one walkUnit's own rules leave to TypeScript (over --max-line-bytes, or
/// opening with a byte-order mark).
fn unit_lines(bytes: &[u8], max_line_bytes: u32) -> impl Iterator<Item = Option<&[u8]>> {
    let mut s = 0;
    std::iter::from_fn(move || {
        if s >= bytes.len() {
            return None;
        }
        let e = memchr::memchr(b'\n', &bytes[s..]).map_or(bytes.len(), |i| s + i);
        let line = &bytes[s..e];
        s = e + 1;
        Some((line.len() <= max_line_bytes as usize && !line.starts_with(&[0xef, 0xbb, 0xbf])).then_some(line))
    })
}

/// The line without a CR at its end, or None where readLineJson finds it blank.
fn not_blank(line: &[u8]) -> Option<&[u8]> {
    let body = line.strip_suffix(b"\r").unwrap_or(line);
    (!body.iter().all(|&c| matches!(c, b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c))).then_some(body)
}

/// The line's text where it opens an object, holds no control character and is UTF-8. A control
/// character is legal only as white space between tokens; a line holding one anywhere is left to
/// JSON.parse (serde_json skips unread values more leniently).
fn object_text(body: &[u8]) -> Option<&str> {
    if body.first() != Some(&b'{') || body.iter().fold(false, |found, &c| found | (c < 0x20)) {
        return None;
    }
    std::str::from_utf8(body).ok()
}

/// Whether a line could hold a placeholder for a text the source did not log (redaction.ts:
/// LiteLLM's, OpenInference's, a Langfuse SDK's), which rowFromRecord reads as no text where a
/// prompt or an answer is nothing else: the words themselves, or spelled with `\u00XX` escapes of
/// their characters (JSON writers escape few of them, but a line may; Go's encoding/json writes
/// `<` as `\u003c`). The verdict's flags say which records have no text, so such a line is left
/// to TypeScript, whose reading is the rule.
fn may_hold_placeholder(line: &[u8]) -> bool {
    // redaction.ts's PLACEHOLDERS, in its order.
    const PLACEHOLDERS: [&[u8]; 3] = [b"redacted-by-litellm", b"__REDACTED__", b"<fully masked due to failed mask function>"];
    type Finders = ([memchr::memmem::Finder<'static>; 3], memchr::memmem::Finder<'static>);
    static FINDERS: std::sync::OnceLock<Finders> = std::sync::OnceLock::new();
    let (words, escape) = FINDERS.get_or_init(|| (PLACEHOLDERS.map(memchr::memmem::Finder::new), memchr::memmem::Finder::new(b"\\u00")));
    let holds = |text: &[u8]| words.iter().any(|w| w.find(text).is_some());
    if holds(line) {
        return true;
    }
    // Rare: a line with `\u00` escapes is searched again with its printable ASCII ones written
    // out (only those: every placeholder is spelled in printable ASCII).
    escape.find(line).is_some() && holds(&ascii_unescaped(line))
}

/// The line with each `\u00XX` escape of a printable ASCII character written as that character;
/// every other escape kept as it is (an escaped backslash never starts an escape).
fn ascii_unescaped(line: &[u8]) -> Vec<u8> {
    let hex = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let mut out = Vec::with_capacity(line.len());
    let mut i = 0;
    while i < line.len() {
        if line[i] != b'\\' || i + 1 == line.len() {
            out.push(line[i]);
            i += 1;
            continue;
        }
        if line[i + 1] == b'u' && line.get(i + 2..i + 4) == Some(b"00") {
            if let (Some(Some(hi)), Some(Some(lo))) = (line.get(i + 4).map(|&c| hex(c)), line.get(i + 5).map(|&c| hex(c))) {
                let c = hi << 4 | lo;
                if (0x20..0x7f).contains(&c) {
                    out.push(c);
                    i += 6;
                    continue;
                }
            }
        }
        out.extend_from_slice(&line[i..i + 2]);
        i += 2;
    }
    out
}

/// Where the JSON string whose opening quote is at `quote` ends (its closing quote).
fn string_after(b: &[u8], quote: usize) -> Option<usize> {
    (b.get(quote) == Some(&b'"')).then_some(())?;
    Some(quote + 1 + scan::string_end(&b[quote + 1..])?)
}

/// The end of the value at `text[i..]`, read for nothing but its extent.
fn skip_value(text: &str, i: usize) -> Option<usize> {
    if text.as_bytes().get(i) == Some(&b'"') {
        Some(string_after(text.as_bytes(), i)? + 1)
    } else {
        Some(value_at::<Skip>(text, i)?.1)
    }
}

/// The members of the line's object, walked here: `member` is given each key (raw, without its
/// quotes), where the member starts (its key's quote) and where its value starts, and returns
/// where the value ends. Each string's end is found by scan::string_end (serde_json skipped a
/// streamed response's string an escape at a time). None where the line is not JSON, or where a
/// key holds an escape (serde_json then reads it, to the same refusal or answer). So this must
/// refuse all that serde_json refuses, and read alike all that it takes (but for its nesting
/// limit: each field's value here starts at depth 0, one level below the line's own reading, and
/// reads as JSON.parse reads it): test/ingest/native-quick.test.ts holds both roads to
/// TypeScript's answers on random and mutated lines. A line that gives any key twice, at the top
/// or inside a member, is None too: TypeScript refuses it (duplicate-keys.ts). That is
/// dupkeys::may_repeat_key's rule, checked on the way rather than by a walk of its own: the
/// line's own keys here, the members' objects as serde_json reads them (`member` reads each with
/// a shape of value.rs or decode.rs, which refuse such objects, or skips it with value::Skip).
fn walk_members(text: &str, mut member: impl FnMut(&[u8], usize, usize) -> Option<usize>) -> Option<()> {
    let b = text.as_bytes();
    let mut i = spaces(b, 1);
    let mut seen = KeysSeen::default();
    if b.get(i) == Some(&b'}') {
        i += 1;
    } else {
        loop {
            let start = i;
            let end = string_after(b, i)?;
            let key = &b[i + 1..end];
            if memchr::memchr(b'\\', key).is_some() || !seen.first(key) {
                return None;
            }
            i = spaces(b, end + 1);
            if b.get(i) != Some(&b':') {
                return None;
            }
            i = spaces(b, member(key, start, spaces(b, i + 1))?);
            match b.get(i) {
                Some(b',') => i = spaces(b, i + 1),
                Some(b'}') => {
                    i += 1;
                    break;
                }
                _ => return None,
            }
        }
    }
    (spaces(b, i) == b.len()).then_some(())
}

/// The first byte at or after `i` that is not JSON white space.
fn spaces(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// The JSON value at `text[at..]` (no white space before it), read by serde_json, and where it
/// ends: as a value inside the line's object is read, its end checked as a stream's values are
/// (a number, `true`, `false` or `null` must be followed by white space or punctuation).
fn value_at<'de, T: Deserialize<'de>>(text: &'de str, at: usize) -> Option<(T, usize)> {
    let mut values = serde_json::Deserializer::from_str(text.get(at..)?).into_iter::<T>();
    let value = values.next()?.ok()?;
    Some((value, at + values.byte_offset()))
}

/// value_at, kept in a field; where it ends.
fn value_into<'de, T: Deserialize<'de>>(text: &'de str, at: usize, field: &mut Option<T>) -> Option<usize> {
    let (value, end) = value_at(text, at)?;
    *field = Some(value);
    Some(end)
}

/// A response field that is not a string, decoded with its text owned (an object's text is
/// built anew anyway), for the walk to summarise once serde_json is done with it.
struct OwnedResponse<const FULL: bool>(ResponseField<decode::Decoded<'static>>);

impl<'de, const FULL: bool> Deserialize<'de> for OwnedResponse<FULL> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        ResponseSeed(|d: Decoded| d.into_owned(), FULL).deserialize(d).map(OwnedResponse)
    }
}

/// request_id, tenant_id, session_id: a string that is not only white space (a number is left
/// to TypeScript, which writes it as JavaScript does). A non-ASCII id with no character surely
/// shown may be only invisible characters (Hangul fillers, tag characters), which TypeScript
/// refuses as blank (util/invisible.ts): left to it.
fn id<'v>(v: &'v Option<Any>) -> Option<&'v str> {
    let s = v.as_ref()?.as_str()?;
    if !s.is_ascii() && !s.chars().any(|c| c.is_ascii_graphic() || crate::registry::surely_shown(c)) {
        return None;
    }
    (!js::js_trim(s).is_empty()).then_some(s)
}

fn timestamp(v: &Option<Any>) -> Option<f64> {
    match v.as_ref()? {
        // A record's time outside 2000-2100 is refused by TypeScript, which words why.
        Json::Str(s) => timestamp::from_iso(s).filter(|ms| timestamp::plausible_ms(*ms)),
        Json::Num(n) => timestamp::from_epoch_number(*n),
        _ => None,
    }
}

/// checkedInt's silent cases: absent, null, or a safe integer in [min, max] (a number, or a
/// string of up to 15 digits). Anything else makes a note, which TypeScript words.
fn quiet_int(v: &Option<Any>, min: f64, max: f64) -> Option<()> {
    let n = match v {
        None | Some(Json::Null) => return Some(()),
        Some(Json::Num(n)) if n.fract() == 0.0 => *n,
        Some(Json::Str(digits)) if !digits.is_empty() && digits.len() <= 15 && digits.bytes().all(|c| c.is_ascii_digit()) => digits.parse().ok()?,
        _ => return None,
    };
    (n >= min && n <= max).then_some(())
}

/// pairHash (pair-set.ts): FNV-1a and a multiply-xorshift over the UTF-16 units of source, a
/// separator no unit equals, and id; each finished by murmur3's fmix32.
fn pair_hash(source: &[u16], id: &str) -> (u32, u32) {
    let mut h: u32 = 0x811c9dc5;
    let mut g: u32 = 0x9e3779b9;
    let mut step = |c: u32| {
        h = (h ^ c).wrapping_mul(0x01000193);
        g = (g ^ c).wrapping_mul(0x5bd1e995) ^ (g >> 15);
    };
    for &c in source {
        step(c as u32);
    }
    step(0x10000);
    let mut len = 0u32;
    for c in id.encode_utf16() {
        step(c as u32);
        len += 1;
    }
    (fmix32(h), fmix32(g ^ len))
}

fn fmix32(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x85ebca6b);
    x ^= x >> 13;
    x = x.wrapping_mul(0xc2b2ae35);
    x ^ (x >> 16)
}

// ---------------------------------------------------------------- ingest

/// Per record of `IngestLines.flags`: the request was absent or null (no text).
const REQUEST_NULL: u8 = 1;
/// The request is an object whose `stream` is true.
const STREAM_REQUESTED: u8 = 2;
/// The response was a stream.
const STREAM: u8 = 4;
const ERROR: u8 = 8;
/// The response's errorMessage is null.
const MESSAGE_NULL: u8 = 16;

/// A unit of native-format lines as ingest's decoder reads their bodies (native-ingest.ts):
/// per line, left to TypeScript, blank, or a record; per record, the line's other fields as a
/// JSON text of their own (TypeScript reads them, by the same rules as ever) and its request and
/// response decoded as decodeRequest and decodeResponse decode them.
#[napi(object)]
pub struct IngestLines {
    /// Per line of the unit: 0 left to TypeScript, 1 blank, 2 a record.
    pub kinds: Uint8Array,
    /// Per record: the line's members but `request` and `response`, as they were written, in an object.
    pub rest: Vec<String>,
    /// Per record: decodeRequest's text ('' where it is null: see flags).
    pub request: Vec<String>,
    /// Per record: the decoded response's text.
    pub response: Vec<String>,
    /// Per record: the response's errorMessage ('' where it is null: see flags).
    pub error_message: Vec<String>,
    /// Per record: REQUEST_NULL, STREAM_REQUESTED, STREAM, ERROR, MESSAGE_NULL.
    pub flags: Uint8Array,
    /// Per record: the response's kind (decode.rs Kind; 0 where there was none).
    pub kind: Uint8Array,
    /// Per record: promptTokens, completionTokens, cachedTokens of the response, NaN for null.
    pub tokens: Float64Array,
}

/// A record line as ingest reads it here.
struct IngestRecord {
    rest: String,
    request: Option<String>,
    stream_requested: bool,
    /// None: the line has no response, or a null one.
    response: Option<Decoded<'static>>,
}

/// processUnit's decoding of a unit of plain native lines (no --map, no other format): the
/// lines walkUnit would decode, each read as readLineJson and decodeValue read it, or left to
/// TypeScript wherever this reading could differ (test/ingest/native-quick.test.ts holds every
/// claim to TypeScript's own reading of the line).
#[napi(catch_unwind)]
pub fn ingest_lines(bytes: Uint8Array, max_line_bytes: u32) -> IngestLines {
    let read = read_ingest_lines(&bytes, max_line_bytes);
    IngestLines {
        kinds: read.kinds.into(),
        rest: read.rest,
        request: read.request,
        response: read.response,
        error_message: read.error_message,
        flags: read.flags.into(),
        kind: read.kind.into(),
        tokens: read.tokens.into(),
    }
}

/// ingest_lines' reading of a unit with its texts kept here and handed over one at a time
/// (IngestUnit::text), each as the parse worker reaches its record. Handed over together (one
/// JavaScript string each, all made before the first record is read) they were the most of
/// what a worker held live through its unit, and its young generation's scavenges copied
/// them again and again.
#[napi]
pub struct IngestUnit {
    facts: Option<IngestFacts>,
    /// rest, request, response, error_message: IngestLines's columns, by TEXT_* number.
    texts: [Vec<String>; 4],
}

/// IngestLines's columns that are not texts.
#[napi(object)]
pub struct IngestFacts {
    pub kinds: Uint8Array,
    pub flags: Uint8Array,
    pub kind: Uint8Array,
    pub tokens: Float64Array,
}

#[napi]
impl IngestUnit {
    /// The unit's columns other than its texts (the first call only; null after).
    #[napi]
    pub fn facts(&mut self) -> Option<IngestFacts> {
        self.facts.take()
    }

    /// Record `record`'s text of `column` (0 rest, 1 request, 2 response, 3 error message), given
    /// up by the unit: a second call for it gives ''.
    #[napi]
    pub fn text(&mut self, column: u32, record: u32) -> String {
        self.texts.get_mut(column as usize).and_then(|c| c.get_mut(record as usize)).map(std::mem::take).unwrap_or_default()
    }
}

/// ingest_lines, its texts handed over one at a time (IngestUnit).
#[napi(catch_unwind)]
pub fn ingest_unit(bytes: Uint8Array, max_line_bytes: u32) -> IngestUnit {
    let read = read_ingest_lines(&bytes, max_line_bytes);
    IngestUnit {
        facts: Some(IngestFacts { kinds: read.kinds.into(), flags: read.flags.into(), kind: read.kind.into(), tokens: read.tokens.into() }),
        texts: [read.rest, read.request, read.response, read.error_message],
    }
}

/// What ingest_lines and ingest_unit read of a unit.
struct ReadIngestLines {
    kinds: Vec<u8>,
    rest: Vec<String>,
    request: Vec<String>,
    response: Vec<String>,
    error_message: Vec<String>,
    flags: Vec<u8>,
    kind: Vec<u8>,
    tokens: Vec<f64>,
}

fn read_ingest_lines(bytes: &[u8], max_line_bytes: u32) -> ReadIngestLines {
    let mut kinds = Vec::with_capacity(bytes.len() / 1024 + 16);
    let (mut rest, mut request, mut response, mut error_message) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut flags, mut kind, mut tokens) = (Vec::new(), Vec::new(), Vec::new());
    for line in unit_lines(bytes, max_line_bytes) {
        let Some(line) = line else {
            kinds.push(LEFT);
            continue;
        };
        let Some(body) = not_blank(line) else {
            kinds.push(BLANK);
            continue;
        };
        let Some(r) = ingest_record(body) else {
            kinds.push(LEFT);
            continue;
        };
        kinds.push(RECORD);
        let mut f = 0;
        match r.request {
            Some(t) => request.push(t),
            None => {
                f |= REQUEST_NULL;
                request.push(String::new());
            }
        }
        if r.stream_requested {
            f |= STREAM_REQUESTED;
        }
        let d = r.response.unwrap_or_else(|| decode::Decoded::none());
        if d.stream {
            f |= STREAM;
        }
        if d.is_error {
            f |= ERROR;
        }
        match d.message {
            decode::ErrorText::Text(m) => error_message.push(m),
            _ => {
                f |= MESSAGE_NULL;
                error_message.push(String::new());
            }
        }
        flags.push(f);
        kind.push(d.kind as u8);
        tokens.extend([d.tokens.prompt, d.tokens.completion, d.tokens.cached].map(|t| t.unwrap_or(f64::NAN)));
        response.push(d.text.into_owned());
        rest.push(r.rest);
    }
    ReadIngestLines { kinds, rest, request, response, error_message, flags, kind, tokens }
}

/// A plain native line read for ingest; None: left to TypeScript.
fn ingest_record(body: &[u8]) -> Option<IngestRecord> {
    let text = object_text(body)?;
    // A key given twice anywhere in the line: TypeScript refuses it (dupkeys.rs); the walk checks.
    let (rest, request, response) = walk_ingest(text)?;
    let (request, stream_requested) = match &request {
        None | Some(Json::Null) => (None, false),
        Some(body) => (Some(decode::request_text(body)?), matches!(body, Json::Obj(o) if matches!(o.stream, Some(Json::Bool(true))))),
    };
    let response = match response {
        None | Some(ResponseField::Null) => None,
        Some(ResponseField::Left) => return None,
        // An error message JSON.stringify would write is TypeScript's to write.
        Some(ResponseField::Read(d)) if d.message == decode::ErrorText::Stringified => return None,
        Some(ResponseField::Read(d)) => Some(d),
    };
    Some(IngestRecord { rest, request, stream_requested, response })
}

/// The line's object walked as QuickExtractor::walk walks it (walk_members): its request and
/// response read, every other member kept as its text, for an object of them (`rest`).
#[allow(clippy::type_complexity)]
fn walk_ingest(text: &str) -> Option<(String, Option<decode::Request<'_>>, Option<ResponseField<Decoded<'static>>>)> {
    let mut rest = String::with_capacity(512);
    rest.push('{');
    let mut request = None;
    let mut response = None;
    walk_members(text, |key, start, i| match key {
        b"request" => value_into(text, i, &mut request),
        b"response" if text.as_bytes().get(i) == Some(&b'"') => {
            let end = string_after(text.as_bytes(), i)?;
            response = Some(decode::response_json_string(&text[i..=end], true, |d| d.into_owned()));
            Some(end + 1)
        }
        b"response" => {
            let (OwnedResponse::<true>(r), next) = value_at(text, i)?;
            response = Some(r);
            Some(next)
        }
        _ => {
            let next = skip_value(text, i)?;
            if rest.len() > 1 {
                rest.push(',');
            }
            rest.push_str(&text[start..next]);
            Some(next)
        }
    })?;
    rest.push('}');
    Some((rest, request, response))
}

// The fields of a native line the verdict reads; every other field is skipped. A line that gives
// any key twice is not read here (walk_members, dupkeys.rs); null reads as absent.
#[derive(Default)]
struct NativeLine<'a> {
    ts: Option<Any<'a>>,
    request_id: Option<Any<'a>>,
    tenant_id: Option<Any<'a>>,
    session_id: Option<Any<'a>>,
    status: Option<Any<'a>>,
    /// Read only to be JSON text (serde_json refuses a lone surrogate in a string it reads, and
    /// TypeScript makes such a node a bad line: two such nodes would be stored as one).
    prefill_node: Option<Any<'a>>,
    decode_node: Option<Any<'a>>,
    prompt_tokens: Option<Any<'a>>,
    completion_tokens: Option<Any<'a>>,
    request: Option<decode::Request<'a>>,
    /// Decoded as it is read (decode::ResponseSeed) and summarised by the extractor.
    response: Option<ResponseField<ResponseRead>>,
}

/// What the verdict reads of a response: whether it is an error, whether its text is empty, and
/// the text itself only where it holds `CANARY-` or a registered marker.
struct ResponseRead {
    is_error: bool,
    empty: bool,
    marked: Option<String>,
}

/// A native line, read with the extractor at hand to summarise its response, and the line's text.
struct LineSeed<'x, 'de>(&'x QuickExtractor, &'de str);

/// Whether the value after this key of the line is a string: the key borrowed from the line (no
/// escape in it) ends where the line's text says, and after its quote, white space, the colon and
/// white space comes the value's first byte. False where that cannot be told (the value is then
/// read as before, whatever it is).
fn value_is_string(line: &str, key: &Key) -> bool {
    let Cow::Borrowed(k) = &key.0 else { return false };
    let Some(at) = (k.as_ptr() as usize).checked_sub(line.as_ptr() as usize) else { return false };
    let Some([b'"', after @ ..]) = line.as_bytes().get(at + k.len()..) else { return false };
    let mut bytes = after.iter().filter(|&&c| !matches!(c, b' ' | b'\t' | b'\n' | b'\r'));
    bytes.next() == Some(&b':') && bytes.next() == Some(&b'"')
}

impl<'de, 'x> DeserializeSeed<'de> for LineSeed<'x, 'de> {
    type Value = NativeLine<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, 'x> Visitor<'de> for LineSeed<'x, 'de> {
    type Value = NativeLine<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
        let mut out = NativeLine::default();
        // No key is given twice: QuickExtractor::record checked the whole line (dupkeys.rs) first.
        while let Some(key) = map.next_key::<Key<'de>>()? {
            match key.0.as_ref() {
                "ts" => out.ts = Some(map.next_value()?),
                "request_id" => out.request_id = Some(map.next_value()?),
                "tenant_id" => out.tenant_id = Some(map.next_value()?),
                "session_id" => out.session_id = Some(map.next_value()?),
                "status" => out.status = Some(map.next_value()?),
                "prefill_node" => out.prefill_node = Some(map.next_value()?),
                "decode_node" => out.decode_node = Some(map.next_value()?),
                "prompt_tokens" => out.prompt_tokens = Some(map.next_value()?),
                "completion_tokens" => out.completion_tokens = Some(map.next_value()?),
                "request" => out.request = Some(map.next_value()?),
                "response" => {
                    out.response = Some(if value_is_string(self.1, &key) {
                        // Taken as its JSON text, unescaped only where it must be (decode.rs).
                        let json: &'de RawValue = map.next_value()?;
                        decode::response_json_string(json.get(), false, |d| self.0.summary(d))
                    } else {
                        map.next_value_seed(ResponseSeed(|d: Decoded| self.0.summary(d), false))?
                    })
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(out)
    }
}

/// Hands the C heap's free pages back to the system (glibc's malloc_trim), where the command
/// has just released a phase's memory: SQLite's page caches and zlib's buffers are malloc'd in
/// pieces under the mmap threshold, and what is freed between live pieces otherwise stays
/// resident (47 MB after loading a 930,000-marker registry, measured). True when memory was
/// returned; false where the C library has no such call.
#[napi]
pub fn release_freed_memory() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        extern "C" {
            fn malloc_trim(pad: usize) -> i32;
        }
        // SAFETY: malloc_trim takes no pointer and only walks the allocator's own free lists.
        unsafe { malloc_trim(0) != 0 }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        false
    }
}

thread_local! {
    /// The text being fingerprinted, as UTF-16 (kept between calls; let go when a long one grew it).
    static UTF16: std::cell::RefCell<Vec<u16>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Hands over JavaScript's answers for every code unit below 0x10000 (words.rs): bit 0 white
/// space, bit 1 a letter or digit, bit 2 a unit to decline, bits 16-31 a letter's lower case.
/// The first table given is kept; false for a table of another length.
#[napi]
pub fn set_word_table(table: Uint32Array) -> bool {
    words::set_table(&table)
}

#[napi]
pub fn has_word_table() -> bool {
    words::table().is_some()
}

/// The length of `text` in UTF-16 code units.
fn utf16_len(env: &Env, text: &JsString) -> napi::Result<usize> {
    use napi::NapiRaw;
    let mut len = 0usize;
    // SAFETY: env and the string's handle are the caller's own; a null buffer asks for the length only.
    napi::check_status!(unsafe { napi::sys::napi_get_value_string_utf16(env.raw(), text.raw(), std::ptr::null_mut(), 0, &mut len) })?;
    Ok(len)
}

/// `f` of `text`'s `len` UTF-16 code units (utf16_len), copied into this thread's buffer, which a
/// long text does not leave grown.
fn with_utf16<R>(env: &Env, text: &JsString, len: usize, f: impl FnOnce(&[u16]) -> R) -> napi::Result<R> {
    use napi::NapiRaw;
    UTF16.with(|cell| {
        let mut buf = cell.borrow_mut();
        if buf.len() < len + 1 {
            buf.resize(len + 1, 0);
        }
        let mut copied = 0usize;
        // SAFETY: the buffer holds len + 1 units, the size passed (the last one takes a NUL).
        napi::check_status!(unsafe { napi::sys::napi_get_value_string_utf16(env.raw(), text.raw(), buf.as_mut_ptr(), len + 1, &mut copied) })?;
        let answer = f(&buf[..copied]);
        if buf.len() > 1 << 20 {
            *buf = Vec::new();
        }
        Ok(answer)
    })
}

/// tokenizeWords (src/extract/words.ts) of `text`: each word's hashes and its start and end
/// (UTF-16 indexes) into the four arrays; returns the number of words, or -1 where TypeScript
/// must read the text (no table yet, a code unit the table declines, or arrays shorter than
/// words::max_words).
#[napi(catch_unwind)]
pub fn tokenize_words(env: Env, text: JsString, mut h1: Uint32Array, mut h2: Uint32Array, mut start: Uint32Array, mut end: Uint32Array) -> napi::Result<i32> {
    let Some(table) = words::table() else { return Ok(-1) };
    let len = utf16_len(&env, &text)?;
    let room = words::max_words(len);
    if h1.len() < room || h2.len() < room || start.len() < room || end.len() < room || len > i32::MAX as usize {
        return Ok(-1);
    }
    let answer = with_utf16(&env, &text, len, |units| words::tokenize(units, table, &mut h1, &mut h2, &mut start, &mut end))?;
    Ok(answer.map_or(-1, |n| n as i32))
}

/// fingerprintText (src/extract/winnow.ts) of `text`: the selected pairs written into `out` from
/// `at`, their number of values in `written[0]`; returns the number of words, or -1 where
/// TypeScript must read the text (no table yet, a code unit the table declines, or too little
/// room in `out`: words::max_output).
#[napi(catch_unwind)]
pub fn fingerprint_text(env: Env, text: JsString, mut out: Uint32Array, at: u32, mut written: Uint32Array) -> napi::Result<i32> {
    let Some(table) = words::table() else { return Ok(-1) };
    let len = utf16_len(&env, &text)?;
    let at = at as usize;
    if written.is_empty() || out.len() < at || out.len() - at < words::max_output(len) {
        return Ok(-1);
    }
    Ok(match with_utf16(&env, &text, len, |units| words::fingerprint(units, table, &mut out[at..]))? {
        Some((n, values)) => {
            written[0] = values as u32;
            n as i32
        }
        None => -1,
    })
}
