//! A `const fn` byte writer that either counts or fills a buffer, with JSON escaping levels.

/// Writes bytes into a buffer (or only counts them when the buffer is empty), escaping
/// `"` and `\` once per nesting level so JSON can be embedded in a JSON string.
#[derive(Debug)]
pub struct Writer<'b> {
    buf: &'b mut [u8],
    len: usize,
    level: u8,
}

impl<'b> Writer<'b> {
    /// A writer that fills `buf` (bytes past its end are counted, not written).
    pub const fn new(buf: &'b mut [u8]) -> Writer<'b> {
        Writer { buf, len: 0, level: 0 }
    }

    /// Runs `f` once to count and once to fill, and returns the text.
    pub fn render(f: impl Fn(&mut Writer<'_>)) -> String {
        let mut count = Writer::new(&mut []);
        f(&mut count);
        let mut buf = vec![0u8; count.len()];
        f(&mut Writer::new(&mut buf));
        // The renderers write ASCII and copies of `&str` pieces only.
        String::from_utf8(buf).unwrap_or_default()
    }

    /// Bytes written (or that would have been).
    pub const fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing was written.
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Enters one more string-escaping level.
    pub const fn push_level(&mut self) {
        self.level += 1;
    }

    /// Leaves a string-escaping level.
    pub const fn pop_level(&mut self) {
        self.level -= 1;
    }

    const fn raw(&mut self, b: u8) {
        if self.len < self.buf.len() {
            self.buf[self.len] = b;
        }
        self.len += 1;
    }

    /// Writes `b`, escaped for the current level.
    pub const fn byte(&mut self, b: u8) {
        self.emit(b, self.level);
    }

    // Escaping composes: at level n, `"` becomes `\` and `"` each escaped at level n - 1.
    const fn emit(&mut self, b: u8, level: u8) {
        if level == 0 {
            self.raw(b);
            return;
        }
        if b == b'"' || b == b'\\' {
            self.emit(b'\\', level - 1);
        }
        self.emit(b, level - 1);
    }

    /// Writes structural text (identifiers, punctuation).
    pub const fn str(&mut self, s: &str) {
        let b = s.as_bytes();
        let mut i = 0;
        while i < b.len() {
            self.byte(b[i]);
            i += 1;
        }
    }

    /// Writes `s` as a quoted JSON string.
    pub const fn json_string(&mut self, s: &str) {
        self.byte(b'"');
        let b = s.as_bytes();
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            match c {
                b'"' | b'\\' => {
                    self.byte(b'\\');
                    self.byte(c);
                }
                b'\n' => self.str("\\n"),
                b'\t' => self.str("\\t"),
                b'\r' => self.str("\\r"),
                0..=0x1f => {
                    const HEX: &[u8; 16] = b"0123456789abcdef";
                    self.str("\\u00");
                    self.byte(HEX[(c >> 4) as usize]);
                    self.byte(HEX[(c & 15) as usize]);
                }
                _ => self.byte(c),
            }
            i += 1;
        }
        self.byte(b'"');
    }

    /// Writes a decimal number.
    pub const fn uint(&mut self, n: usize) {
        if n >= 10 {
            self.uint(n / 10);
        }
        self.byte(b'0' + (n % 10) as u8);
    }
}
