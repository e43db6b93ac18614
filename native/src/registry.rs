//! A canary registry's rows, read where the TypeScript reader (readRegistry in
//! src/ingest/ingest-canaries.ts) is certain to read the same rows and to accept every one of
//! them: a CSV file with no quoted field, every row's ids present and its issued_at absent or a
//! time with a zone. Anything else (JSONL, a quote, a BOM, a stray CR, a repeated column name, a
//! row with more cells than the header, a row the reader would refuse) is None, and the TypeScript reader reads the file and words any refusal.
//! test/ingest/registry-rows.test.ts holds the two to the same rows on random registries.

use napi_derive::napi;

use crate::js::{js_trim, js_trim_start};
use crate::timestamp::from_iso;

/// The longest line the reader takes (MAX_REGISTRY_LINE).
const MAX_LINE: usize = 1 << 20;
/// The fewest characters of a marker outside the CANARY-<hex> convention (MIN_UNCONVENTIONAL_MARKER).
const MIN_UNCONVENTIONAL: usize = 8;

/// A registry's rows with what the verdict's in-memory registry needs of their keys, computed
/// here instead of by a regular expression per row, a map of every row and a sort of every key
/// in JavaScript (about 0.12 s of the verdict's main thread over 36,997 rows, measured). The
/// rows are two strings, not three per row: creating 111,000 strings through Node-API cost most
/// of the 40-90 ms that 36,997 rows took, and splitting them in JavaScript with a map of every
/// row cost the verdict's main thread 40-60 ms more while the parse workers waited (measured).
#[napi(object)]
pub struct RegistryIndex {
    /// Each row's marker, tenant_id and session_id in file order, all joined with LF (no field
    /// holds one: the file's lines are split at it).
    pub rows: String,
    /// Per row, where its marker starts in `rows`, in UTF-16 code units (a JavaScript index).
    pub row_starts: napi::bindgen_prelude::Uint32Array,
    /// Every distinct key (markerKey: `CANARY-` and the rest lower-cased for a conventional
    /// marker, else the marker), in code-point order (UTF-8 bytes, SQLite's BINARY
    /// collation), joined with LF.
    pub keys: String,
    /// Per key of `keys`, the first row that has it.
    pub order: napi::bindgen_prelude::Uint32Array,
    /// Whether a key is given to two owners (rows with one key and another tenant_id or
    /// session_id): the reader refuses the file, and TypeScript words the refusal.
    pub conflict: bool,
    /// The markers of the keys that are not conventional (isConventionalKey: `CANARY-` and 8 or
    /// more lower-case hex digits), each as its key's first row spells it, in the order of those
    /// rows, joined with LF: what the parse workers match besides `CANARY-<hex>` (as
    /// unconventionalMarkers lists them once the registry is stored).
    pub unconventional: String,
    /// The position in `keys` of each of those markers' keys, in the same order.
    pub unconventional_at: napi::bindgen_prelude::Uint32Array,
    /// Whether a key holds a character from U+E000 up, where JavaScript's comparison of UTF-16
    /// code units is not code-point order.
    pub wide: bool,
}

#[napi]
/// The index of the registry whose bytes these are, or None where TypeScript reads it.
pub fn registry_index(bytes: napi::bindgen_prelude::Uint8Array) -> Option<RegistryIndex> {
    let rows = rows(&bytes)?;
    let (text, row_starts) = joined(&rows);
    let Index { keys, order, conflict, unconventional, unconventional_at, wide } = index(&rows);
    Some(RegistryIndex {
        rows: text,
        row_starts: row_starts.into(),
        keys,
        order: order.into(),
        conflict,
        unconventional,
        unconventional_at: unconventional_at.into(),
        wide,
    })
}

/// The rows' fields joined with LF, and where each row starts in UTF-16 code units.
fn joined(rows: &[[&str; 3]]) -> (String, Vec<u32>) {
    let mut text = String::with_capacity(rows.iter().map(|r| r.iter().map(|f| f.len() + 1).sum::<usize>()).sum());
    let mut starts = Vec::with_capacity(rows.len());
    let mut at = 0usize;
    for row in rows {
        starts.push(at as u32);
        for field in row {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(field);
            at += 1 + if field.is_ascii() { field.len() } else { field.encode_utf16().count() };
        }
    }
    (text, starts)
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

/// isConventionalKey: `CANARY-` and 8 or more lower-case hex digits.
fn is_conventional_key(key: &str) -> bool {
    key.strip_prefix("CANARY-").is_some_and(|hex| hex.len() >= 8 && hex.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')))
}

/// A key's first 16 bytes as one number (zero after its end): where two keys' numbers differ,
/// they are in the keys' byte order (a key that ends first has a zero where the other has a
/// byte, and zero is the least byte); where they are equal, the keys are compared whole.
fn head(key: &str) -> u128 {
    let mut b = [0u8; 16];
    let n = key.len().min(16);
    b[..n].copy_from_slice(&key.as_bytes()[..n]);
    u128::from_be_bytes(b)
}

/// What registry_index gives besides the rows (see RegistryIndex).
pub struct Index {
    pub keys: String,
    pub order: Vec<u32>,
    pub conflict: bool,
    pub unconventional: String,
    pub unconventional_at: Vec<u32>,
    pub wide: bool,
}

pub fn index(rows: &[[&str; 3]]) -> Index {
    let mut keys: Vec<(u128, std::borrow::Cow<str>, u32)> = rows.iter().enumerate().map(|(i, row)| {
        let key = marker_key(row[0]);
        (head(&key), key, i as u32)
    }).collect();
    // By key, then row: of the rows with one key, the first comes first, and only it is kept; a
    // later one with another owner is a conflict (the same tenant_id and session_id, as given,
    // is a repeat).
    keys.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.as_bytes().cmp(b.1.as_bytes())).then(a.2.cmp(&b.2)));
    let owner = |row: u32| &rows[row as usize][1..];
    let mut conflict = false;
    let mut order: Vec<u32> = Vec::with_capacity(keys.len());
    let mut text = String::with_capacity(keys.iter().map(|k| k.1.len() + 1).sum());
    let mut firsts: Vec<(u32, u32)> = Vec::new();
    let mut wide = false;
    for (i, (_, key, row)) in keys.iter().enumerate() {
        if i > 0 && keys[i - 1].1 == *key {
            conflict |= owner(*row) != owner(*order.last().unwrap());
            continue;
        }
        if !is_conventional_key(key) {
            firsts.push((*row, order.len() as u32));
        }
        // U+E000 and up start with byte 0xEE or higher in UTF-8 (a surrogate has no UTF-8 form).
        wide |= key.bytes().any(|b| b >= 0xee);
        if !order.is_empty() {
            text.push('\n');
        }
        text.push_str(key);
        order.push(*row);
    }
    firsts.sort_unstable();
    let unconventional = firsts.iter().map(|&(r, _)| rows[r as usize][0]).collect::<Vec<_>>().join("\n");
    let unconventional_at = firsts.iter().map(|&(_, at)| at).collect();
    Index { keys: text, order, conflict, unconventional, unconventional_at, wide }
}

pub fn rows(bytes: &[u8]) -> Option<Vec<[&str; 3]>> {
    let text = std::str::from_utf8(bytes).ok()?;
    // A quote opens a quoted field (RFC 4180, its own parser); a BOM is dropped or kept by rules
    // of its own at the start of the file and of a record.
    if text.contains('"') || text.contains('\u{feff}') {
        return None;
    }
    let mut out: Vec<[&str; 3]> = Vec::with_capacity(text.len() / 64);
    // Where marker, tenant_id, session_id and issued_at are among the header's columns.
    let mut columns: Option<[Option<usize>; 4]> = None;
    // How many columns the header names (a row with more cells is the reader's refusal to word).
    let mut width = 0usize;
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
            // A name given to two columns is the reader's refusal to word.
            if names.iter().enumerate().any(|(i, n)| !n.is_empty() && names[..i].contains(n)) {
                return None;
            }
            width = names.len();
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
        // More cells than the header has columns: the reader's refusal to word.
        if cells.len() > width {
            return None;
        }
        let cell = |i: Option<usize>| i.map(|i| cells.get(i).copied().unwrap_or(""));
        let (marker, tenant, session) = (cell(at[0])?, cell(at[1])?, cell(at[2])?);
        if [marker, tenant, session].iter().any(|v| js_trim(v).is_empty()) {
            return None;
        }
        // White space at an id's edges (a space after a comma) is the reader's refusal to word.
        if [marker, tenant, session].iter().any(|v| js_trim(v).len() != v.len()) {
            return None;
        }
        // A marker holding an invisible character (Default_Ignorable_Code_Point) is the reader's
        // refusal to word (validate in ingest-canaries.ts): no answer is searched for it as written.
        if !marker.is_ascii() && marker.chars().any(is_default_ignorable) {
            return None;
        }
        // A tenant or session id may hold a character that prints as nothing, which the reader
        // refuses (util/invisible.ts): one with a character not surely shown is left to it.
        if [tenant, session].iter().any(|v| !v.is_ascii() && !v.chars().all(|c| c.is_ascii() || surely_shown(c))) {
            return None;
        }
        // A marker outside the convention needs 8 characters; one inside it has them all the same
        // (`CANARY-` and a hex digit at least).
        if marker.chars().count() < MIN_UNCONVENTIONAL {
            return None;
        }
        // `canary-<hex>` or any other spelling of the prefix but `CANARY-`: refused by the reader
        // (the convention is upper case, and no response is searched for another spelling).
        let b = marker.as_bytes();
        if b.len() > 7 && b[..7].eq_ignore_ascii_case(b"CANARY-") && &b[..7] != b"CANARY-" && b[7..].iter().all(u8::is_ascii_hexdigit) {
            return None;
        }
        // Nor is a CANARY- marker of fewer than 8 hex digits (validate refuses it, in words).
        let m = marker.as_bytes();
        if m.len() < 7 + 8 && m.len() > 7 && m[..7].eq_ignore_ascii_case(b"CANARY-") && m[7..].iter().all(u8::is_ascii_hexdigit) {
            return None;
        }
        match cell(at[3]) {
            None | Some("") => {}
            Some(issued) => {
                from_iso(issued)?;
            }
        }
        out.push([marker, tenant, session]);
    }
    Some(out)
}

/// Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt), as isDefaultIgnorable in
/// markers.ts: characters a renderer draws as nothing.
fn is_default_ignorable(c: char) -> bool {
    matches!(c as u32,
        0x00ad | 0x034f | 0x061c | 0x115f | 0x1160 | 0x17b4 | 0x17b5 | 0x180b..=0x180f | 0x200b..=0x200f | 0x202a..=0x202e
        | 0x2060..=0x206f | 0x3164 | 0xfe00..=0xfe0f | 0xfeff | 0xffa0 | 0xfff0..=0xfff8 | 0x1bca0..=0x1bca3 | 0x1d173..=0x1d17a
        | 0xe0000..=0xe0fff)
}

/// A character that is surely not invisible (util/invisible.ts: Default_Ignorable_Code_Point,
/// format characters, U+2800): a letter or digit other than the Hangul fillers and the Khmer
/// inherent vowels, the default-ignorable code points that are letters, or a symbol of the
/// blocks of dingbats, miscellaneous symbols and emoji (none of them default-ignorable). Any
/// other character is left to TypeScript, which knows the whole set.
pub(crate) fn surely_shown(c: char) -> bool {
    (c.is_alphanumeric() && !matches!(c, '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}' | '\u{17B4}' | '\u{17B5}'))
        || ('\u{2600}'..='\u{27BF}').contains(&c)
        || ('\u{1F000}'..='\u{1FAFF}').contains(&c)
}
