//! The reading code of the `abi` command as a library, so fuzz targets and tests can reach
//! it without running the binary: a library file read without loading it ([`read`], with
//! each object format's places in [`formats`] and the class records in [`classes`]), and
//! the Python package `abi stubs` writes from what was read ([`stubs`]). The command itself
//! (`src/main.rs`) parses its arguments and calls these.

pub mod classes;
pub mod formats;
pub mod read;
pub mod stubs;

/// `message` as one line of at most [`MESSAGE_CHARS`] characters, escapes counted:
/// control characters (line breaks among them) escaped, the rest cut with `...`. Every
/// error the command prints goes through this, since its texts may come from a hostile
/// file.
pub fn one_line(message: &str) -> String {
    let (mut out, mut len) = (String::new(), 0);
    for c in message.chars() {
        let escaped = c.is_control() || matches!(c, '\u{2028}' | '\u{2029}');
        let width = if escaped { c.escape_default().count() } else { 1 };
        if len + width > MESSAGE_CHARS {
            out.push_str("...");
            break;
        }
        if escaped {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
        len += width;
    }
    out
}

/// The most characters of an error message the command prints.
pub const MESSAGE_CHARS: usize = 2000;

#[cfg(test)]
mod tests {
    #[test]
    fn messages_are_one_line_and_bounded() {
        assert_eq!(super::one_line("a\nb\u{0}c\u{2028}"), "a\\nb\\u{0}c\\u{2028}");
        let long = super::one_line(&"é".repeat(5000));
        assert_eq!(long.chars().count(), super::MESSAGE_CHARS + 3);
        assert!(long.ends_with("é..."));
        // Escapes count: 3,000 control characters are 2,000 characters once escaped.
        let escaped = super::one_line(&"\u{1}".repeat(3000));
        assert!(escaped.chars().count() <= super::MESSAGE_CHARS + 3, "{}", escaped.len());
        assert!(escaped.ends_with("\\u{1}..."));
    }
}
