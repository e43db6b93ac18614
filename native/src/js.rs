//! The few JavaScript string semantics the TypeScript extractor relies on, reproduced exactly.

/// ECMAScript's WhiteSpace and LineTerminator code points: what `String.prototype.trim` removes
/// and what `\s` matches (ECMA-262, sections 12.2 and 12.3).
pub fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\u{0009}' | '\u{000A}' | '\u{000B}' | '\u{000C}' | '\u{000D}' | '\u{0020}' | '\u{00A0}' | '\u{1680}'
            | '\u{2000}'..='\u{200A}'
            | '\u{2028}' | '\u{2029}' | '\u{202F}' | '\u{205F}' | '\u{3000}' | '\u{FEFF}'
    )
}

pub fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_space)
}

pub fn js_trim_start(s: &str) -> &str {
    s.trim_start_matches(is_js_space)
}

/// JSON's own whitespace (RFC 8259): what JSON.parse skips around a value.
pub fn json_trim_start(s: &str) -> &str {
    s.trim_start_matches([' ', '\t', '\n', '\r'])
}
