//! A `const fn` byte writer that either counts or fills a buffer, with JSON escaping levels.

/// Writes bytes into a buffer (or only counts them when the buffer is empty), escaping
/// `"` and `\` once per nesting level so JSON can be embedded in a JSON string.
#[derive(Debug)]
pub struct Writer<'b> {
    buf: &'b mut [u8],
    /// `buf.len()`, kept: in const evaluation each call counts.
    cap: usize,
    len: usize,
    level: u8,
}

/// Structural text holding quotes, with the same text escaped once, both made when
/// abi-core compiles ([`lit!`]): the `type_schema` string nested in every export's metadata
/// JSON is written one level down, and escaping it byte by byte in const evaluation was
/// most of what an export cost to compile.
#[derive(Debug)]
pub struct Lit {
    raw: &'static str,
    escaped: &'static str,
}

impl Lit {
    /// `raw` and `raw` escaped once (for [`lit!`]).
    pub const fn new(raw: &'static str, escaped: &'static [u8]) -> Lit {
        match core::str::from_utf8(escaped) {
            Ok(escaped) => Lit { raw, escaped },
            Err(_) => panic!("escaping keeps UTF-8"),
        }
    }
}

/// How long `s` is escaped once (`"` and `\` take a backslash).
pub const fn escaped_len(s: &str) -> usize {
    let b = s.as_bytes();
    let (mut n, mut i) = (b.len(), 0);
    while i < b.len() {
        if b[i] == b'"' || b[i] == b'\\' {
            n += 1;
        }
        i += 1;
    }
    n
}

/// `s` escaped once, in exactly `N` (= [`escaped_len`]) bytes.
pub const fn escape_once<const N: usize>(s: &str) -> [u8; N] {
    let mut w = [0u8; N];
    let mut out = Writer::new(&mut w);
    out.push_level();
    out.str(s);
    assert!(out.len() == N, "escape_once::<N> takes N = escaped_len");
    w
}

/// A [`Lit`] of a string literal, its escaped form computed once per crate that renders.
macro_rules! lit {
    ($s:literal) => {{
        const LEN: usize = $crate::reflect::writer::escaped_len($s);
        const ESCAPED: [u8; LEN] = $crate::reflect::writer::escape_once::<LEN>($s);
        const LIT: $crate::reflect::writer::Lit = $crate::reflect::writer::Lit::new($s, &ESCAPED);
        &LIT
    }};
}
pub(crate) use lit;

impl<'b> Writer<'b> {
    /// A writer that fills `buf` (bytes past its end are counted, not written).
    pub const fn new(buf: &'b mut [u8]) -> Writer<'b> {
        Writer { cap: buf.len(), buf, len: 0, level: 0 }
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
        if self.len < self.cap {
            self.buf[self.len] = b;
        }
        self.len += 1;
    }

    /// Writes `b`, escaped for the current level.
    pub const fn byte(&mut self, b: u8) {
        if self.level == 0 {
            // Inline: a call is the dearest step of const evaluation.
            if self.len < self.cap {
                self.buf[self.len] = b;
            }
            self.len += 1;
            return;
        }
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

    /// Writes bytes that no escaping level changes (no `"` or `\\`), in one copy: const
    /// evaluation runs every export's renderers at compile time, so this is build time.
    const fn plain(&mut self, b: &[u8]) {
        // SAFETY: `b` holds `b.len()` bytes and cannot overlap the exclusively borrowed
        // buffer.
        unsafe { self.put(b as *const [u8] as *const u8, b.len()) }
    }

    /// Writes `src[start..end]`, bytes that no escaping level changes, in one copy.
    pub const fn copy_range(&mut self, src: &[u8], start: usize, end: usize) {
        assert!(start <= end && end <= src.len(), "copy_range within the source");
        // SAFETY: `src[start..end]` is in bounds (asserted) and cannot overlap the
        // exclusively borrowed buffer.
        unsafe { self.put((src as *const [u8] as *const u8).add(start), end - start) }
    }

    /// Writes the `n` bytes at `from` (no escaping level changes them) in one copy, keeping
    /// what fits and counting the rest. Raw pointers, not `as_ptr` and `split_at`: in const
    /// evaluation each call counts.
    ///
    /// # Safety
    /// `from` is valid for reading `n` bytes, none of them in the buffer.
    pub(crate) const unsafe fn put(&mut self, from: *const u8, n: usize) {
        let to = self.len + n;
        if to <= self.cap {
            // SAFETY: `len + n <= buf.len()`; the caller vouches for `from`.
            unsafe {
                let into = (self.buf as *mut [u8] as *mut u8).add(self.len);
                core::ptr::copy_nonoverlapping(from, into, n)
            };
        } else {
            // Past the end of a buffer too short: keep what fits, count the rest.
            let mut i = 0;
            while self.len + i < self.cap {
                // SAFETY: `len + i < cap <= len + n`, so `i < n`.
                self.buf[self.len + i] = unsafe { *from.add(i) };
                i += 1;
            }
        }
        self.len = to;
    }

    /// Writes a [`Lit`], escaped for the current level: one copy at levels 0 and 1.
    pub const fn lit(&mut self, l: &Lit) {
        match self.level {
            0 => self.plain(l.raw.as_bytes()),
            1 => self.plain(l.escaped.as_bytes()),
            _ => self.str(l.raw),
        }
    }

    /// Writes a name no escaping level changes (a vocabulary key, a dtype, an identifier:
    /// no `"` or `\\`), in one copy at any level.
    pub const fn name(&mut self, s: &str) {
        self.plain(s.as_bytes());
    }

    /// Writes structural text (identifiers, punctuation), escaped for the current level.
    /// Const evaluation runs this for every export at compile time, where each step counts:
    /// no escaping is one copy, one level (the `type_schema` string) one tight loop.
    pub const fn str(&mut self, s: &str) {
        let b = s.as_bytes();
        if self.level == 0 {
            self.plain(b);
            return;
        }
        let mut i = 0;
        if self.level == 1 {
            // No calls per byte: a call is the dearest step of const evaluation.
            let (buf, mut len) = (&mut *self.buf, self.len);
            while i < b.len() {
                let c = b[i];
                if c == b'"' || c == b'\\' {
                    if len < buf.len() {
                        buf[len] = b'\\';
                    }
                    len += 1;
                }
                if len < buf.len() {
                    buf[len] = c;
                }
                len += 1;
                i += 1;
            }
            self.len = len;
            return;
        }
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
            // A run of bytes JSON keeps as they are, in one copy.
            let mut end = i;
            while end < b.len() && !matches!(b[end], b'"' | b'\\' | 0..=0x1f) {
                end += 1;
            }
            if end > i {
                let (_, rest) = b.split_at(i);
                let (run, _) = rest.split_at(end - i);
                self.plain(run);
                i = end;
                continue;
            }
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

#[cfg(test)]
mod tests {
    use super::Writer;

    fn render(f: impl Fn(&mut Writer<'_>)) -> String {
        Writer::render(f)
    }

    #[test]
    fn bulk_copies_escape_like_byte_by_byte_writes() {
        let texts = ["plain", "with \"quotes\"", "back\\slash", "", "tab\there\n", "\u{1}ctl", "mixed \"a\" and \\ b"];
        for t in texts {
            for level in 0..3 {
                let bulk = render(|w| {
                    (0..level).for_each(|_| w.push_level());
                    w.str(t);
                    w.json_string(t);
                });
                let slow = render(|w| {
                    (0..level).for_each(|_| w.push_level());
                    t.bytes().for_each(|b| w.byte(b));
                    w.byte(b'"');
                    for c in t.bytes() {
                        match c {
                            b'"' | b'\\' => {
                                w.byte(b'\\');
                                w.byte(c);
                            }
                            b'\n' => "\\n".bytes().for_each(|b| w.byte(b)),
                            b'\t' => "\\t".bytes().for_each(|b| w.byte(b)),
                            0..=0x1f => format!("\\u{:04x}", c).bytes().for_each(|b| w.byte(b)),
                            _ => w.byte(c),
                        }
                    }
                    w.byte(b'"');
                });
                assert_eq!(bulk, slow, "{t:?} at level {level}");
            }
        }
    }

    #[test]
    fn a_short_buffer_keeps_what_fits_and_counts_the_rest() {
        let mut buf = [0u8; 4];
        let mut w = Writer::new(&mut buf);
        w.str("abcdef");
        assert_eq!(w.len(), 6);
        assert_eq!(&buf, b"abcd");
    }

    #[test]
    fn a_lit_writes_what_str_writes_at_every_level() {
        let lits = [(lit!("{\"type\":\""), "{\"type\":\""), (lit!("a\\b"), "a\\b"), (lit!("plain"), "plain")];
        for (l, raw) in lits {
            for level in 0..3 {
                let at = |f: &dyn Fn(&mut Writer<'_>)| {
                    render(|w| {
                        (0..level).for_each(|_| w.push_level());
                        f(w);
                    })
                };
                assert_eq!(at(&|w| w.lit(l)), at(&|w| w.str(raw)), "{raw} at level {level}");
            }
        }
    }

    #[test]
    fn names_written_in_one_copy_need_no_escaping() {
        use crate::ffi::code_name;
        let mut names: Vec<&str> = abi_shared::vocab::SPELLINGS.iter().map(|s| s.key).collect();
        names.extend((0..=u8::MAX).map(code_name));
        names.extend([
            abi_shared::TENSOR_DTYPE_KEY,
            abi_shared::TENSOR_NDIM_KEY,
            abi_shared::STRUCT_NAME_KEY,
            abi_shared::STRUCT_FIELDS_KEY,
        ]);
        for name in names {
            assert!(!name.contains(['"', '\\']), "{name:?} would need escaping");
        }
    }
}
