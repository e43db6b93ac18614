//! Whether a JSON text may give a key twice: such a line is left to TypeScript, which refuses it
//! as a bad line naming the key's path (src/extract/duplicate-keys.ts says why: serde_json, like
//! JSON.parse, keeps the last copy, and a leak in the first would never be judged).
//!
//! The rule is TypeScript's: any key given twice by any object of the line, or of a JSON text the
//! line holds that the decoder parses (a response or request logged as a string, each event of a
//! stream). Most of it is checked as serde_json reads (value.rs: `Skip` and `json_object!`, and
//! lib.rs's walk_members for the line's own keys): a walk of its own over every line cost a
//! third of the verdict pass (callgrind, 6,000 generated lines: 459 M instructions, 308 M without
//! the check; 355 M checked on the way). This walk remains for what is taken as text unread: a
//! line the walk leaves to serde_json, a usage object kept as its JSON text. Here the answer may err towards "may": a key spelled
//! with an escape is not compared (it would need decoding), so an object holding one is left to
//! TypeScript too, which then reads or refuses the line by the rule. This walk is the reference
//! for nothing; the differential tests (test/ingest/native-*.test.ts) hold both roads to the
//! same answers.

use std::collections::HashSet;

use crate::value::LINEAR_KEYS;

/// True where an object of `text` (JSON serde_json accepts, or not: then it is refused anyway)
/// gives a key twice, or holds a key with an escape.
pub fn may_repeat_key(text: &str) -> bool {
    let b = text.as_bytes();
    // Per open container: where its keys start in `keys` (objects), or None (arrays).
    let mut open: Vec<Option<usize>> = Vec::new();
    let mut sets: Vec<Option<HashSet<&[u8]>>> = Vec::new();
    let mut keys: Vec<&[u8]> = Vec::new();
    let mut at_key = false;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                let Some(len) = crate::scan::string_end(&b[i + 1..]) else { return true };
                let end = i + 1 + len;
                if at_key {
                    let key = &b[i + 1..end];
                    if memchr::memchr(b'\\', key).is_some() {
                        return true;
                    }
                    let (Some(Some(start)), Some(set)) = (open.last().copied(), sets.last_mut()) else { return true };
                    if let Some(set) = set {
                        if !set.insert(key) {
                            return true;
                        }
                    } else {
                        if keys[start..].contains(&key) {
                            return true;
                        }
                        keys.push(key);
                        if keys.len() - start > LINEAR_KEYS {
                            *set = Some(keys[start..].iter().copied().collect());
                        }
                    }
                    at_key = false;
                }
                i = end + 1;
                continue;
            }
            b'{' => {
                open.push(Some(keys.len()));
                sets.push(None);
                at_key = true;
            }
            b'[' => {
                open.push(None);
                sets.push(None);
                at_key = false;
            }
            b'}' | b']' => {
                if let Some(Some(start)) = open.pop() {
                    keys.truncate(start);
                }
                sets.pop();
                at_key = false;
            }
            b',' => at_key = matches!(open.last(), Some(Some(_))),
            _ => {}
        }
        i += 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::may_repeat_key;

    #[test]
    fn finds_a_key_given_twice_at_any_depth() {
        assert!(may_repeat_key(r#"{"a":1,"a":2}"#));
        assert!(may_repeat_key(r#"{"r":{"choices":[{"message":{"content":"x","content":"y"}}]}}"#));
        assert!(may_repeat_key(r#"{"a":"\u0061","b\u0061":1}"#));
        assert!(!may_repeat_key(r#"{"a":{"a":1},"b":[{"a":1},{"a":2}],"c":"\"a\":1,\"a\":2"}"#));
        let many: Vec<String> = (0..40).map(|k| format!("\"k{k}\":{k}")).collect();
        assert!(!may_repeat_key(&format!("{{{}}}", many.join(","))));
        assert!(may_repeat_key(&format!("{{{},\"k3\":0}}", many.join(","))));
    }
}
