//! The end of a JSON string, found 64 bytes at a time.
//!
//! A streamed response is logged as one JSON string of its SSE text: every chunk's quotes are
//! escaped, an escape every dozen bytes or so. serde_json skips such a string an escape at a
//! time (a word-at-a-time search for the next `"` or `\`, then the escape read byte by byte):
//! 22% of the extractor's time (perf). Here each block of 64 bytes becomes two bit masks, its
//! quotes and its backslashes, and an escape costs a bit scan and a table lookup.

/// Where the JSON string whose text starts at `b[0]` (just after its opening quote) ends: the
/// index of its closing quote. None where it has none, or where it holds an escape JSON has not
/// (a backslash before anything but `"\/bfnrtu`, or `\u` before anything but four hex digits),
/// as serde_json refuses the same. A `\u` escape's code unit is not judged: JSON.parse and
/// serde_json's skipping both take a lone surrogate. Control bytes are not looked for: the
/// caller's line holds none (a string holding one is refused there).
pub fn string_end(b: &[u8]) -> Option<usize> {
    let mut at = 0;
    // Bytes at the start of the block at `at` that an escape begun before it covers.
    let mut covered = 0usize;
    while at < b.len() {
        let (quotes, slashes) = masks(&b[at..]);
        let keep = !0u64 << covered;
        let (mut q, mut s) = (quotes & keep, slashes & keep);
        covered = 0;
        loop {
            let (fq, fs) = (q.trailing_zeros(), s.trailing_zeros());
            if fq < fs {
                return Some(at + fq as usize);
            }
            if fs == 64 {
                break;
            }
            let after = fs as usize + escape_len(b, at + fs as usize)?;
            if after >= 64 {
                covered = after - 64;
                break;
            }
            let keep = !0u64 << after;
            q &= keep;
            s &= keep;
        }
        at += 64;
    }
    None
}

/// The length of the escape whose backslash is at `b[at]`: 2, or 6 for `\u` and four hex digits;
/// None for an escape JSON has not, or one cut off by the end.
fn escape_len(b: &[u8], at: usize) -> Option<usize> {
    match *b.get(at + 1)? {
        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Some(2),
        b'u' => b.get(at + 2..at + 6)?.iter().all(u8::is_ascii_hexdigit).then_some(6),
        _ => None,
    }
}

/// Bit i of each mask: whether `b[i]` is `"`, and whether it is `\`, for the first 64 bytes
/// (bits past the end are 0).
fn masks(b: &[u8]) -> (u64, u64) {
    if let Some(block) = b.first_chunk::<64>() {
        return masks64(block);
    }
    let mut block = [0u8; 64];
    block[..b.len()].copy_from_slice(b);
    masks64(&block)
}

#[cfg(target_arch = "x86_64")]
fn masks64(block: &[u8; 64]) -> (u64, u64) {
    use std::arch::x86_64::{__m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8};
    // SAFETY: SSE2 is part of every x86_64 processor; each load reads 16 of the block's 64 bytes.
    unsafe {
        let quote = _mm_set1_epi8(b'"' as i8);
        let slash = _mm_set1_epi8(b'\\' as i8);
        let (mut q, mut s) = (0u64, 0u64);
        for k in 0..4 {
            let v = _mm_loadu_si128(block.as_ptr().add(16 * k).cast::<__m128i>());
            q |= u64::from(_mm_movemask_epi8(_mm_cmpeq_epi8(v, quote)) as u16) << (16 * k);
            s |= u64::from(_mm_movemask_epi8(_mm_cmpeq_epi8(v, slash)) as u16) << (16 * k);
        }
        (q, s)
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn masks64(block: &[u8; 64]) -> (u64, u64) {
    let (mut q, mut s) = (0u64, 0u64);
    for (i, &c) in block.iter().enumerate() {
        q |= u64::from(c == b'"') << i;
        s |= u64::from(c == b'\\') << i;
    }
    (q, s)
}
