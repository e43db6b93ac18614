//! A canary registry's rows, read where the TypeScript reader (readRegistry in
//! src/ingest/ingest-canaries.ts) is certain to read the same rows and to accept every one of
//! them: a CSV file with no quoted field, every row's ids present and its issued_at absent or a
//! time with a zone. Anything else (JSONL, a quote, a BOM, a stray CR, a row the reader would
//! refuse) is None, and the TypeScript reader reads the file and words any refusal.
//! test/ingest/registry-rows.test.ts holds the two to the same rows on random registries.

use napi_derive::napi;

use crate::js::{js_trim, js_trim_start};
use crate::timestamp::from_iso;

/// The longest line the reader takes (MAX_REGISTRY_LINE).
const MAX_LINE: usize = 1 << 20;
/// The fewest characters of a marker outside the CANARY-<hex> convention (MIN_UNCONVENTIONAL_MARKER).
const MIN_UNCONVENTIONAL: usize = 8;

/// A registry's rows with what the verdict's in-memory registry needs of
/// their keys, computed here instead of by a regular expression per row and a sort of every key
/// in JavaScript (about 0.12 s of the verdict's main thread over 36,997 rows, measured).
#[napi(object)]
pub struct RegistryIndex {
    /// Each row's marker, tenant_id and session_id in file order, all joined with LF (no field
    /// holds one: the file's lines are split at it). One string, not three per row: creating
    /// 111,000 strings through Node-API cost most of the 40-90 ms that 36,997 rows took (measured).
    pub rows: String,
    /// Per row: KEY_LOWERED where markerKey lower-cases the marker's hex (the key is `CANARY-`
    /// and the rest lower-cased; else the key is the marker), KEY_CONVENTIONAL where the key is a
    /// conventional one (isConventionalKey: `CANARY-` and 8 or more lower-case hex digits).
    pub flags: napi::bindgen_prelude::Uint8Array,
    /// Per distinct key, the first row that has it, in the keys' code-point order (UTF-8 bytes,
    /// SQLite's BINARY collation).
    pub order: napi::bindgen_prelude::Uint32Array,
    /// Whether a key is given to two owners (rows with one key and another tenant_id or
    /// session_id): the reader refuses the file, and TypeScript words the refusal.
    pub conflict: bool,
    /// The markers of the keys that are not conventional, each as its key's first row spells it,
    /// in the order of those rows, joined with LF: what the parse workers match besides
    /// `CANARY-<hex>` (as unconventionalMarkers lists them once the registry is stored).
    pub unconventional: String,
}

const KEY_LOWERED: u8 = 1;
const KEY_CONVENTIONAL: u8 = 2;

#[napi]
/// The index of the registry whose bytes these are, or None where TypeScript reads it.
pub fn registry_index(bytes: napi::bindgen_prelude::Uint8Array) -> Option<RegistryIndex> {
    let rows = rows(&bytes)?;
    let Index { flags, order, conflict, unconventional } = index(&rows);
    Some(RegistryIndex { rows, flags: flags.into(), order: order.into(), conflict, unconventional })
}

/// markerKey (/^CANARY-[0-9a-f]+$/i: `CANARY-` and the rest lower-cased) of a marker.
fn marker_key(marker: &str) -> std::borrow::Cow<'_, str> {
    // The expression's `i` covers the prefix too: `canary-0123abcd` is keyed `CANARY-0123abcd`.
    let b = marker.as_bytes();
    let conventional = b.len() > 7 && b[..7].eq_ignore_ascii_case(b"CANARY-") && b[7..].iter().all(u8::is_ascii_hexdigit);
    if conventional && (&b[..7] != b"CANARY-" || b[7..].iter().any(u8::is_ascii_uppercase)) {
        std::borrow::Cow::Owned(format!("CANARY-{}", marker[7..].to_ascii_lowercase()))
    } else {
        std::borrow::Cow::Borrowed(marker)
    }
}

/// What registry_index gives besides the rows (see RegistryIndex).
pub struct Index {
    pub flags: Vec<u8>,
    pub order: Vec<u32>,
    pub conflict: bool,
    pub unconventional: String,
}

pub fn index(rows: &str) -> Index {
    let fields: Vec<&str> = if rows.is_empty() { Vec::new() } else { rows.split('\n').collect() };
    let mut flags = Vec::with_capacity(fields.len() / 3);
    let mut keys: Vec<(std::borrow::Cow<str>, u32)> = Vec::with_capacity(fields.len() / 3);
    for (i, row) in fields.chunks_exact(3).enumerate() {
        let key = marker_key(row[0]);
        let lowered = matches!(key, std::borrow::Cow::Owned(_));
        let conventional = key.strip_prefix("CANARY-").is_some_and(|hex| hex.len() >= 8 && hex.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')));
        flags.push(if lowered { KEY_LOWERED } else { 0 } | if conventional { KEY_CONVENTIONAL } else { 0 });
        keys.push((key, i as u32));
    }
    // Stable: of the rows with one key, the first comes first, and only it is kept; a later one
    // with another owner is a conflict (the same tenant_id and session_id, as given, is a repeat).
    keys.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let owner = |row: u32| &fields[3 * row as usize + 1..3 * row as usize + 3];
    let mut conflict = false;
    let mut order: Vec<u32> = Vec::with_capacity(keys.len());
    for (i, (key, row)) in keys.iter().enumerate() {
        if i > 0 && keys[i - 1].0 == *key {
            conflict |= owner(*row) != owner(*order.last().unwrap());
        } else {
            order.push(*row);
        }
    }
    let mut firsts: Vec<u32> = order.iter().copied().filter(|&r| flags[r as usize] & KEY_CONVENTIONAL == 0).collect();
    firsts.sort_unstable();
    let unconventional = firsts.iter().map(|&r| fields[3 * r as usize]).collect::<Vec<_>>().join("\n");
    Index { flags, order, conflict, unconventional }
}

pub fn rows(bytes: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(bytes).ok()?;
    // A quote opens a quoted field (RFC 4180, its own parser); a BOM is dropped or kept by rules
    // of its own at the start of the file and of a record.
    if text.contains('"') || text.contains('\u{feff}') {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    // Where marker, tenant_id, session_id and issued_at are among the header's columns.
    let mut columns: Option<[Option<usize>; 4]> = None;
    for line in text.split_terminator('\n') {
        if line.len() > MAX_LINE {
            return None;
        }
        // A CR ends a CRLF line; one anywhere else ends a CSV row of its own.
        let record = line.strip_suffix('\r').unwrap_or(line);
        if record.contains('\r') {
            return None;
        }
        if js_trim(record).is_empty() {
            continue;
        }
        let Some(at) = columns else {
            // The first line that is not blank decides the format: `{` is JSONL.
            if js_trim_start(record).starts_with('{') || !record.is_ascii() {
                return None;
            }
            let names: Vec<String> = record.split(',').map(|c| js_trim(c).to_ascii_lowercase()).collect();
            // A row is an object keyed by column name: of two columns with one name, the last wins.
            let last = |name: &str| names.iter().rposition(|n| n == name);
            let found = [last("marker"), last("tenant_id"), last("session_id"), last("issued_at")];
            // A required column missing is the reader's refusal to word.
            if found[..3].iter().any(Option::is_none) {
                return None;
            }
            columns = Some(found);
            continue;
        };
        let cells: Vec<&str> = record.split(',').collect();
        let cell = |i: Option<usize>| i.map(|i| cells.get(i).copied().unwrap_or(""));
        let (marker, tenant, session) = (cell(at[0])?, cell(at[1])?, cell(at[2])?);
        if [marker, tenant, session].iter().any(|v| js_trim(v).is_empty()) {
            return None;
        }
        // A marker outside the convention needs 8 characters; one inside it has them all the same
        // (`CANARY-` and a hex digit at least).
        if marker.chars().count() < MIN_UNCONVENTIONAL {
            return None;
        }
        match cell(at[3]) {
            None | Some("") => {}
            Some(issued) => {
                from_iso(issued)?;
            }
        }
        for field in [marker, tenant, session] {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(field);
        }
    }
    Some(out)
}
