//! The reading code of the `abi` command as a library, so fuzz targets and tests can reach
//! it without running the binary: a library file read without loading it ([`read`], with
//! each object format's places in [`formats`] and the class records in [`classes`]),
//! the Python package `abi stubs` writes from what was read ([`stubs`]), and how every text
//! taken from a file is printed ([`printable`], [`one_line`]). The command itself
//! (`src/main.rs`) parses its arguments and calls these.

pub mod classes;
pub mod formats;
pub mod read;
pub mod stubs;

/// `message` as one line of at most [`MESSAGE_CHARS`] characters, escapes counted:
/// control characters (line breaks and tabs among them) escaped as [`printable`] escapes
/// them, the rest cut with `...`. Every error and warning the command prints goes through
/// this, since its texts may come from a hostile file.
pub fn one_line(message: &str) -> String {
    let (mut out, mut len) = (String::new(), 0);
    for c in message.chars() {
        let escaped = c.is_control() || matches!(c, '\u{2028}' | '\u{2029}');
        let width = if escaped { c.escape_default().count() } else { 1 };
        if len + width > MESSAGE_CHARS {
            out.push_str("...");
            break;
        }
        push_shown(&mut out, c, false);
        len += width;
    }
    out
}

/// `text` as the command's human-readable outputs print it, whatever a hostile file put
/// in it: control characters (a line break, a carriage return, an escape sequence a
/// terminal would run) and Unicode's line and paragraph separators escaped as Rust writes
/// them (`\n`, `\u{1b}`, `\u{2028}`); tabs kept. Every text `abi inspect` and `abi diff`
/// print goes through this (through [`push_line`]); `--json` output is escaped by JSON.
pub fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        push_shown(&mut out, c, true);
    }
    out
}

/// Appends `text` to `out` as one line of a human-readable report: [`printable`], then a
/// line break, the only one the line holds.
pub fn push_line(out: &mut String, text: &str) {
    out.push_str(&printable(text));
    out.push('\n');
}

/// Appends `c` to `out`, escaped when it is a control character (a tab kept when
/// `keep_tab`) or a line or paragraph separator.
fn push_shown(out: &mut String, c: char, keep_tab: bool) {
    if (c.is_control() && !(keep_tab && c == '\t')) || matches!(c, '\u{2028}' | '\u{2029}') {
        out.extend(c.escape_default());
    } else {
        out.push(c);
    }
}

/// How an `abi` executable names its version in its own bytes (what [`IDENTITY`] starts
/// with).
pub const IDENTITY_PREFIX: &str = "\0abi-cli-identity ";

/// This build's identity, kept in every `abi` executable (its `main` reads it), where `abi
/// tool-wheel` finds the version of an executable for any platform without running it.
pub const IDENTITY: &str = concat!("\0abi-cli-identity ", env!("CARGO_PKG_VERSION"), "\0");

/// The version an `abi` executable's bytes name ([`IDENTITY`]), if they hold one.
pub fn identity_in(bytes: &[u8]) -> Option<&str> {
    let prefix = IDENTITY_PREFIX.as_bytes();
    let at = bytes.windows(prefix.len()).position(|w| w == prefix)? + prefix.len();
    let len = bytes[at..].iter().take(64).position(|&b| b == 0)?;
    std::str::from_utf8(&bytes[at..at + len]).ok()
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

    #[test]
    fn an_identity_is_found_in_any_bytes_holding_it() {
        let bytes = [b"\x7fELF..".as_slice(), super::IDENTITY.as_bytes(), b"rest"].concat();
        assert_eq!(super::identity_in(&bytes), Some(env!("CARGO_PKG_VERSION")));
        assert_eq!(super::identity_in(b"\0abi-cli-identity 1.0"), None, "no terminator");
        assert_eq!(super::identity_in(b"nothing here"), None);
    }

    #[test]
    fn printable_text_keeps_tabs_and_escapes_the_rest() {
        let shown = super::printable("a\tb\nc\r\u{1b}[2J\u{2029}é");
        assert_eq!(shown, "a\tb\\nc\\r\\u{1b}[2J\\u{2029}é");
        let mut out = String::new();
        super::push_line(&mut out, "x\ny");
        assert_eq!(out, "x\\ny\n");
        assert_eq!(super::one_line("a\tb"), "a\\tb");
    }
}
