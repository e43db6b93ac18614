//! Provenance's winnowed fingerprints of a text (src/extract/winnow.ts fingerprintText, the
//! reference), over the text's UTF-16 code units as JavaScript holds them.
//!
//! Words, their hashes, the k-grams' hashes and the window minima are integer arithmetic and
//! are reproduced here bit for bit. What a character outside ASCII is (white space, a letter or
//! a digit, and its lower-case form) is JavaScript's answer, not Rust's: the caller hands over a
//! table that JavaScript built from its own `\s`, `/[\p{L}\p{N}]/u` and `toLowerCase` (Unicode
//! versions differ between ICU and Rust's standard library). Where that table cannot say
//! (a surrogate, whose meaning depends on its neighbour, or a letter whose lower case is more
//! than one code unit, such as U+0130), `fingerprint` declines the text and TypeScript reads it.

use std::sync::OnceLock;

/// The table's flags per BMP code unit (bits 16-31: the lower-case code unit of a letter or digit).
pub const SPACE: u32 = 1;
pub const LETTER_OR_DIGIT: u32 = 2;
/// A code unit the table cannot answer for alone: the text goes to TypeScript.
pub const DECLINE: u32 = 4;

static TABLE: OnceLock<Box<[u32]>> = OnceLock::new();

/// Keeps the table (the first one given: every thread of the process builds the same one).
pub fn set_table(table: &[u32]) -> bool {
    if table.len() != 0x10000 {
        return false;
    }
    TABLE.get_or_init(|| table.to_vec().into_boxed_slice());
    true
}

pub fn table() -> Option<&'static [u32]> {
    TABLE.get().map(|t| &t[..])
}

const K: usize = 5;
const W: usize = 8;
const RING: usize = 7;
const WORD_SEED_A: u32 = 0x811c_9dc5;
const WORD_SEED_B: u32 = 0x9747_b28c;

#[inline]
fn fmix(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^= h >> 16;
    h
}

#[inline]
fn mix(a: &mut u32, b: &mut u32, c: u32) {
    *a = (*a ^ c).wrapping_mul(0x0100_0193);
    *b = (*b ^ c).wrapping_mul(0x5bd1_e995) ^ (*b >> 15);
}

/// The next word at or after `*i` (nextWord): its two running hashes, the number of
/// normalised code units and where it starts (`*i` is left where it ends); None at the end of
/// the text; Err(()) where the table declines.
#[inline]
fn next_word(text: &[u16], i: &mut usize, table: &[u32]) -> Result<Option<(u32, u32, u32, usize)>, ()> {
    let len = text.len();
    let mut j = *i;
    loop {
        while j < len {
            let c = text[j];
            if c == 32 || (9..=13).contains(&c) || (c >= 0xa0 && table[c as usize] & SPACE != 0) {
                j += 1;
            } else {
                break;
            }
        }
        if j >= len {
            *i = j;
            return Ok(None);
        }
        let start = j;
        let mut a = WORD_SEED_A;
        let mut b = WORD_SEED_B;
        let mut kept = 0u32;
        while j < len {
            let mut c = text[j] as u32;
            if c < 128 {
                if (97..=122).contains(&c) || (48..=57).contains(&c) {
                    // kept as is
                } else if (65..=90).contains(&c) {
                    c += 32;
                } else if c == 32 || (9..=13).contains(&c) {
                    break;
                } else {
                    j += 1;
                    continue;
                }
                j += 1;
                mix(&mut a, &mut b, c);
                kept += 1;
                continue;
            }
            let e = table[c as usize];
            if e & SPACE != 0 {
                break;
            }
            if e & DECLINE != 0 {
                return Err(());
            }
            j += 1;
            if e & LETTER_OR_DIGIT == 0 {
                continue;
            }
            mix(&mut a, &mut b, e >> 16);
            kept += 1;
        }
        if kept == 0 {
            continue;
        }
        *i = j;
        return Ok(Some((a, b, kept, start)));
    }
}

/// The most u32 values `fingerprint` writes for a text of `len` code units: a pair per selected
/// k-gram, at most one per word, and a word takes at least one code unit and a space after it.
pub fn max_output(len: usize) -> usize {
    2 * (len / 2 + 2)
}

/// fingerprintText: appends the selected (h1, h2) pairs to `out` and returns (words, values
/// written); None where the table declines the text (nothing of `out` is then meaningful).
pub fn fingerprint(text: &[u16], table: &[u32], out: &mut [u32]) -> Option<(u32, usize)> {
    let mut wa = [0u32; RING + 1];
    let mut wb = [0u32; RING + 1];
    let mut ga = [0u32; W];
    let mut gb = [0u32; W];
    let mut n = 0usize;
    let mut i = 0usize;
    let mut words = 0usize;
    let mut grams = 0usize;
    let mut last: isize = -1;
    let mut last_a = 0u32;
    let mut last_b = 0u32;
    while let Some((a, b, kept, _)) = next_word(text, &mut i, table).ok()? {
        wa[words & RING] = fmix(a);
        wb[words & RING] = fmix(b ^ kept);
        words += 1;
        if words < K {
            continue;
        }
        let mut a = 0x2545_f491u32;
        let mut b = 0x6a09_e667u32;
        for j in words - K..words {
            a = (a ^ wa[j & RING]).wrapping_mul(0x9e37_79b1).rotate_left(13);
            b = (b ^ wb[j & RING]).wrapping_mul(0x85eb_ca77).rotate_left(17);
        }
        let h1 = fmix(a ^ K as u32);
        let h2 = fmix(b ^ ((K as u32) << 8));
        let g = grams;
        grams += 1;
        ga[g & RING] = h1;
        gb[g & RING] = h2;
        if g < W - 1 {
            continue;
        }
        let s = g + 1 - W;
        let m = if last >= s as isize {
            if h1 < last_a || (h1 == last_a && h2 <= last_b) {
                g
            } else {
                last as usize
            }
        } else {
            let mut m = s;
            for x in s + 1..=g {
                let (x1, b1) = (ga[x & RING], ga[m & RING]);
                if x1 < b1 || (x1 == b1 && gb[x & RING] <= gb[m & RING]) {
                    m = x;
                }
            }
            m
        };
        if m as isize != last {
            last = m as isize;
            last_a = ga[m & RING];
            last_b = gb[m & RING];
            *out.get_mut(n)? = last_a;
            *out.get_mut(n + 1)? = last_b;
            n += 2;
        }
    }
    if grams > 0 && grams < W {
        let mut m = 0;
        for x in 1..grams {
            if ga[x] < ga[m] || (ga[x] == ga[m] && gb[x] <= gb[m]) {
                m = x;
            }
        }
        *out.get_mut(n)? = ga[m];
        *out.get_mut(n + 1)? = gb[m];
        n += 2;
    }
    Some((u32::try_from(words).ok()?, n))
}

/// tokenizeWords (src/extract/words.ts): each word's two finished hashes and where it starts
/// and ends (UTF-16 indexes), into the four arrays from index 0; returns the number of words, or
/// None where the table declines the text or the arrays are too short (words::max_words).
pub fn tokenize(text: &[u16], table: &[u32], h1: &mut [u32], h2: &mut [u32], start: &mut [u32], end: &mut [u32]) -> Option<usize> {
    let mut i = 0usize;
    let mut n = 0usize;
    while let Some((a, b, kept, s)) = next_word(text, &mut i, table).ok()? {
        *h1.get_mut(n)? = fmix(a);
        *h2.get_mut(n)? = fmix(b ^ kept);
        *start.get_mut(n)? = u32::try_from(s).ok()?;
        *end.get_mut(n)? = u32::try_from(i).ok()?;
        n += 1;
    }
    Some(n)
}

/// The most words a text of `len` code units holds: each takes a unit and is followed by a space.
pub fn max_words(len: usize) -> usize {
    len / 2 + 1
}
