//! A record's `ts` to epoch milliseconds, exactly as util/timestamps.ts's parseTimestamp reads
//! the shapes that carry a zone. Anything else (a zone-less time, an epoch written as a string,
//! a time out of range, a shape this does not know) is None: the caller leaves that line to the
//! TypeScript extractor, which decides it and words any refusal.

use crate::js::{is_js_space, js_trim};

const DAY_MS: i64 = 86_400_000;
/// 2000-01-01 and 2100-01-01 in epoch milliseconds: a record's time outside [from, to) is no time
/// a log of a model API call gives (an unset clock, or an epoch in another unit); TypeScript's
/// parseRecordTimestamp refuses it, naming the unit it reads right in.
const PLAUSIBLE_MS_FROM: f64 = 946_684_800_000.0;
const PLAUSIBLE_MS_TO: f64 = 4_102_444_800_000.0;

/// Whether epoch milliseconds are a time from 2000 to 2100 (util/timestamps.ts isPlausibleMs).
pub fn plausible_ms(ms: f64) -> bool {
    (PLAUSIBLE_MS_FROM..PLAUSIBLE_MS_TO).contains(&ms)
}

/// `ts` given as a JSON number: epoch milliseconds, whole ones only (a fraction is left to TypeScript).
pub fn from_epoch_number(n: f64) -> Option<f64> {
    if !n.is_finite() || !plausible_ms(n) || n.fract() != 0.0 {
        return None;
    }
    Some(n)
}

/// `ts` given as a string: ISO 8601 date and time with `Z` or an offset.
pub fn from_iso(value: &str) -> Option<f64> {
    let text = js_trim(value);
    let b = text.as_bytes();
    let mut p = Parser { b, i: 0 };
    let year = p.digits(4)?;
    p.byte(b'-')?;
    let month = p.digits(2)?;
    p.byte(b'-')?;
    let day = p.digits(2)?;
    // RFC 3339 §5.6: the 'T' may be lower case.
    if !(p.byte(b'T').is_some() || p.byte(b't').is_some() || p.byte(b' ').is_some()) {
        return None;
    }
    let hour = p.digits(2)?;
    p.byte(b':')?;
    let minute = p.digits(2)?;
    let mut second = 0;
    let mut frac: &[u8] = b"";
    if p.peek() == Some(b':') {
        p.i += 1;
        second = p.digits(2)?;
        if matches!(p.peek(), Some(b'.') | Some(b',')) {
            p.i += 1;
            let start = p.i;
            while p.i < b.len() && b[p.i].is_ascii_digit() {
                p.i += 1;
            }
            let n = p.i - start;
            if n == 0 || n > 9 {
                return None;
            }
            frac = &b[start..p.i];
        }
    }
    // `\s*` before the zone: the regular expression's \s is JavaScript's white space.
    let rest = text[p.i..].trim_start_matches(is_js_space).as_bytes();
    let offset_minutes: i64 = match rest {
        // ` UTC` names the zone as plainly as Z (BigQuery's TIMESTAMP text).
        b"UTC" => 0,
        [b'Z' | b'z', suffix @ ..] if rfc9557_suffix(suffix) => 0,
        [sign @ (b'+' | b'-'), h1, h2, tail @ ..] if h1.is_ascii_digit() && h2.is_ascii_digit() => {
            let oh = ((h1 - b'0') * 10 + (h2 - b'0')) as i64;
            // An RFC 9557 [suffix] after the offset annotates the time; the offset fixes the instant.
            let tail = &tail[..tail.iter().position(|&c| c == b'[').unwrap_or(tail.len())];
            if !rfc9557_suffix(&rest[3 + tail.len()..]) {
                return None;
            }
            let om = match tail {
                [] => 0,
                [m1, m2] | [b':', m1, m2] if m1.is_ascii_digit() && m2.is_ascii_digit() => ((m1 - b'0') * 10 + (m2 - b'0')) as i64,
                _ => return None,
            };
            if oh > 23 || om > 59 {
                return None;
            }
            if *sign == b'-' { -(oh * 60 + om) } else { oh * 60 + om }
        }
        // No zone (parseTimestamp's caller refuses it without --assume-tz) or not a zone at all.
        _ => return None,
    };
    if !(1..=12).contains(&month) || day < 1 || day > days_in(year, month) || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    // A leap second (:60) is folded onto :59.999, as parseTimestamp does.
    let whole = utc_ms(year, month, day, hour, minute, second.min(59)) - offset_minutes * 60_000;
    let frac_ms = if second == 60 {
        999
    } else {
        let mut ms = 0;
        for k in 0..3 {
            ms = ms * 10 + frac.get(k).map_or(0, |d| (d - b'0') as i64);
        }
        ms
    };
    Some((whole + frac_ms) as f64)
}

/// Zero or more RFC 9557 suffixes, `[Europe/Paris]`, `[!u-ca=iso8601]`: each 1-64 characters of
/// `A-Za-z0-9_+-./=` after an optional `!` (util/timestamps.ts's ISO reads the same).
fn rfc9557_suffix(mut b: &[u8]) -> bool {
    while !b.is_empty() {
        if b[0] != b'[' {
            return false;
        }
        let Some(end) = b.iter().position(|&c| c == b']') else { return false };
        let inner = &b[1..end];
        let inner = inner.strip_prefix(b"!").unwrap_or(inner);
        if inner.is_empty() || inner.len() > 64 || !inner.iter().all(|c| c.is_ascii_alphanumeric() || b"_+-./=".contains(c)) {
            return false;
        }
        b = &b[end + 1..];
    }
    true
}

struct Parser<'a> {
    b: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }
    fn byte(&mut self, want: u8) -> Option<()> {
        (self.peek()? == want).then(|| self.i += 1)
    }
    fn digits(&mut self, n: usize) -> Option<i64> {
        let mut v = 0;
        for _ in 0..n {
            let d = self.peek().filter(u8::is_ascii_digit)?;
            v = v * 10 + (d - b'0') as i64;
            self.i += 1;
        }
        Some(v)
    }
}

fn days_in(year: i64, month: i64) -> i64 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Years 0-9999 only (four digits), where this equals Date.UTC with the year taken as given.
fn utc_ms(year: i64, month: i64, day: i64, hour: i64, minute: i64, second: i64) -> i64 {
    days_from_civil(year, month, day) * DAY_MS + hour * 3_600_000 + minute * 60_000 + second * 1000
}
