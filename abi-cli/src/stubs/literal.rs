//! Python string literals of a library's names and texts, valid for any text: `"..."` on
//! one line, and `"""..."""` keeping the text's line breaks. Backslashes, quotes that could
//! end the literal, and control characters are escaped, so the literal's value is the text
//! (plus the indentation a docstring's continuation lines are given).

use std::fmt::Write;

/// `"text"`: a one-line literal whose value is `text`.
pub fn py_str(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => escaped(&mut out, c),
        }
    }
    out.push('"');
    out
}

/// `"""text"""` with the text's line breaks kept and every nonempty line after the first
/// indented by `indent` (which a docstring's continuation lines need to read well, and
/// `inspect.cleandoc` removes). With no indent, the literal's value is `text` exactly.
pub fn py_triple(text: &str, indent: &str) -> String {
    let mut out = String::with_capacity(text.len() + 6);
    out.push_str("\"\"\"");
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            // A quote before another, or before the closing quotes, would end the literal.
            '"' if matches!(chars.peek(), None | Some('"')) => out.push_str("\\\""),
            '"' => out.push('"'),
            '\n' => {
                out.push('\n');
                if chars.peek().is_some_and(|&n| n != '\n') {
                    out.push_str(indent);
                }
            }
            c => escaped(&mut out, c),
        }
    }
    out.push_str("\"\"\"");
    out
}

/// `c`, or its escape: backslashes, and the characters a source file cannot hold as they
/// are (NUL), would change (a carriage return reads as a line break) or hides (other
/// control characters, line and paragraph separators).
fn escaped(out: &mut String, c: char) {
    match c {
        '\\' => out.push_str("\\\\"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' => {
            let _ = write!(out, "\\x{:02x}", u32::from(c));
        }
        '\u{2028}' | '\u{2029}' => {
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        }
        c => out.push(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_that_could_close_the_literal_are_escaped_and_no_others() {
        assert_eq!(py_triple("Returns \"ok\"", ""), r#""""Returns "ok\"""""#);
        assert_eq!(py_triple("\"a\" \"\"\" b", ""), r#"""""a" \"\"" b""""#);
        assert_eq!(py_triple("a\\\"", ""), r#""""a\\\"""""#);
        assert_eq!(py_str("say \"hi\"\n"), r#""say \"hi\"\n""#);
    }

    #[test]
    fn control_characters_are_escaped_and_other_text_kept() {
        let text = "\0\r\t\u{1}\u{7f}\u{85}\u{2028}é😀";
        assert_eq!(py_str(text), r#""\x00\r\t\x01\x7f\x85\u2028é😀""#);
        assert_eq!(py_triple("one\n\ntwo\nthree", "    "), "\"\"\"one\n\n    two\n    three\"\"\"");
    }
}
