//! Strings and bytes: the inline small form up to 7 bytes (zero padded) and Str/Bytes
//! objects from 8 (NUL-terminated), UTF-8 at the boundary, every borrowed argument form
//! (RawStr, ByteArrayPtr), invalid UTF-8, empty values, embedded NULs and 1 MiB values.

use core::ffi::c_void;
use core::sync::atomic::AtomicU64;

use abi_core::ffi::type_index as ti;
use abi_core::ffi::ByteArray;
use abi_core::ffi::ObjectHeader;
use abi_core::ObjectHandle;
use abi_core::ObjectRef;
use abi_core::{Any, AnyView, Bytes, ConvError, FromAny, FromArg, RawAny, Str};

/// The content of a Str/Bytes object behind `raw`, read through the ABI cell, plus the byte
/// just after it (which must be the NUL terminator).
fn object_content(raw: &RawAny) -> (Vec<u8>, u8) {
    assert!(raw.type_index == ti::STR || raw.type_index == ti::BYTES);
    // SAFETY: the caller's Any keeps the object alive; the cell at +24 is {data, size} and
    // the storage holds size + 1 bytes.
    unsafe {
        let cell = &*raw.ptr().cast::<u8>().add(24).cast::<ByteArray>();
        let all = core::slice::from_raw_parts(cell.data, cell.size + 1);
        (all[..cell.size].to_vec(), all[cell.size])
    }
}

/// A borrowed `&str` out of a view.
fn as_str<'a>(v: &'a AnyView<'a>) -> Result<&'a str, ConvError> {
    <&str>::from_arg(v)
}

/// A borrowed `&[u8]` out of a view.
fn as_bytes<'a>(v: &'a AnyView<'a>) -> Result<&'a [u8], ConvError> {
    <&[u8]>::from_arg(v)
}

fn check_str(s: &str) {
    let a = Any::from_value(s).unwrap();
    let raw = a.as_raw();
    if s.len() <= 7 {
        assert_eq!(raw.type_index, ti::SMALL_STR, "{s:?}");
        assert_eq!(raw.small_len as usize, s.len());
        assert_eq!(&raw.bytes()[..s.len()], s.as_bytes());
        assert!(raw.bytes()[s.len()..].iter().all(|&b| b == 0), "{s:?}: unused bytes must be zero");
    } else {
        assert_eq!(raw.type_index, ti::STR, "{s:?}");
        assert_eq!(raw.small_len, 0);
        assert_eq!(object_content(raw), (s.as_bytes().to_vec(), 0));
    }
    let view = a.view();
    assert_eq!(as_str(&view).unwrap(), s);
    assert_eq!(a.to::<String>().unwrap(), s);
    assert_eq!(Any::from_value(s.to_owned()).unwrap().as_raw().type_index, raw.type_index);
}

fn check_bytes(b: &[u8]) {
    let a = Any::from_value(b).unwrap();
    let raw = a.as_raw();
    if b.len() <= 7 {
        assert_eq!(raw.type_index, ti::SMALL_BYTES);
        assert_eq!(raw.small_len as usize, b.len());
        assert_eq!(&raw.bytes()[..b.len()], b);
        assert!(raw.bytes()[b.len()..].iter().all(|&x| x == 0), "{b:?}: unused bytes must be zero");
    } else {
        assert_eq!(raw.type_index, ti::BYTES);
        assert_eq!(object_content(raw), (b.to_vec(), 0), "Bytes are NUL-terminated too");
    }
    let view = a.view();
    assert_eq!(as_bytes(&view).unwrap(), b);
    assert_eq!(a.to::<Vec<u8>>().unwrap(), b);
    assert_eq!(Any::from_value(b.to_vec()).unwrap().as_raw().type_index, raw.type_index);
}

#[test]
fn small_string_boundary() {
    check_str("1234567");
    check_str("12345678");
    let small = Any::from_value("1234567").unwrap();
    assert_eq!((small.as_raw().type_index, small.as_raw().small_len), (11, 7));
    assert_eq!(small.as_raw().bytes()[7], 0);
    assert_eq!(Any::from_value("12345678").unwrap().as_raw().type_index, 65);
    for n in 0..=16 {
        check_str(&"x".repeat(n));
    }
}

#[test]
fn small_bytes_boundary() {
    check_bytes(b"1234567");
    check_bytes(b"12345678");
    assert_eq!(Any::from_value(&b"1234567"[..]).unwrap().as_raw().type_index, 12);
    assert_eq!(Any::from_value(&b"12345678"[..]).unwrap().as_raw().type_index, 66);
    for n in 0..=16 {
        check_bytes(&vec![0xa5; n]);
    }
}

#[test]
fn multibyte_utf8() {
    check_str("héllo"); // 6 bytes: inline
    check_str("😀"); // 4 bytes
    check_str("abc😀"); // exactly 7
    check_str("abcd😀"); // 8: object
    check_str("abcd€"); // 7: a 3-byte char ending at the boundary
    check_str("abcdef€"); // 9: a 3-byte char straddling byte 7
    check_str("日本語テキスト");
    assert_eq!(Any::from_value("abcd€").unwrap().type_index(), ti::SMALL_STR);
    assert_eq!(Any::from_value("abcdef€").unwrap().type_index(), ti::STR);
}

#[test]
fn empty_values() {
    let s = Any::from_value("").unwrap();
    assert_eq!((s.as_raw().type_index, s.as_raw().small_len, *s.as_raw().bytes()), (ti::SMALL_STR, 0, [0; 8]));
    assert_eq!(s.to::<String>().unwrap(), "");
    let b = Any::from_value(Vec::<u8>::new()).unwrap();
    assert_eq!((b.as_raw().type_index, b.as_raw().small_len), (ti::SMALL_BYTES, 0));
    assert!(b.to::<Vec<u8>>().unwrap().is_empty());

    let obj = Str::new("");
    assert_eq!(obj.as_bytes(), b"");
    let any = Any::from_value(obj).unwrap();
    assert_eq!(any.type_index(), ti::STR);
    assert_eq!(object_content(any.as_raw()), (vec![], 0));
    assert_eq!(any.to::<String>().unwrap(), "");
    assert!(Bytes::new(b"").as_bytes().is_empty());

    let empty_c = c"";
    // SAFETY: a static C string.
    let raw = unsafe { AnyView::from_raw(RawAny::from_ptr(ti::RAW_STR, empty_c.as_ptr() as *mut c_void)) };
    assert_eq!(as_str(&raw).unwrap(), "");
}

#[test]
fn embedded_nul() {
    check_bytes(b"a\0b");
    check_bytes(b"\0\0\0\0\0\0\0");
    check_bytes(b"abc\0defgh\0");
    check_str("ab\0cd");
    check_str("abcd\0efgh");
    assert_eq!(Bytes::new(b"x\0y").as_bytes(), b"x\0y");
}

#[test]
fn one_mebibyte() {
    let big: String = (0..1 << 20).map(|i| (b'a' + (i % 26) as u8) as char).collect();
    check_str(&big);
    let bytes: Vec<u8> = (0..1u32 << 20).map(|i| (i * 7 % 251) as u8).collect();
    check_bytes(&bytes);
}

#[test]
fn raw_str_argument() {
    let text = c"a raw C string, longer than seven";
    // SAFETY: `text` is a static NUL-terminated string.
    let v = unsafe { AnyView::from_raw(RawAny::from_ptr(ti::RAW_STR, text.as_ptr() as *mut c_void)) };
    assert_eq!(as_str(&v).unwrap(), "a raw C string, longer than seven");
    assert_eq!(as_bytes(&v).unwrap(), text.to_bytes());
    assert_eq!(String::from_any(v).unwrap(), "a raw C string, longer than seven");
}

#[test]
fn raw_str_to_any_copies() {
    for text in ["short", "a longer string that needs an object"] {
        let c = std::ffi::CString::new(text).unwrap();
        // SAFETY: `c` outlives the view; the owned copy must not refer to it.
        let owned =
            unsafe { AnyView::from_raw(RawAny::from_ptr(ti::RAW_STR, c.as_ptr() as *mut c_void)) }.to_any().unwrap();
        drop(c);
        let expect = if text.len() <= 7 { ti::SMALL_STR } else { ti::STR };
        assert_eq!(owned.type_index(), expect, "a RawStr never survives into an owned value");
        assert_eq!(owned.to::<String>().unwrap(), text);
    }
}

#[test]
fn byte_array_ptr_argument() {
    let data = b"bytes \xff\x00 passed by pointer";
    let arr = ByteArray::from_slice(data);
    // SAFETY: `arr` and `data` outlive the view.
    let v =
        unsafe { AnyView::from_raw(RawAny::from_ptr(ti::BYTE_ARRAY_PTR, core::ptr::from_ref(&arr) as *mut c_void)) };
    assert_eq!(as_bytes(&v).unwrap(), data);
    assert_eq!(Vec::<u8>::from_any(v).unwrap(), data);
    let owned = v.to_any().unwrap();
    assert_eq!(owned.type_index(), ti::BYTES);
    assert_eq!(object_content(owned.as_raw()), (data.to_vec(), 0));
    // A bytes value is not a string, as in C++ (`TypeTraits<String>` rejects ByteArrayPtr).
    let e = as_str(&v).unwrap_err();
    assert!(matches!(e, ConvError::Mismatch { .. }), "{e:?}");
    assert_eq!(e.to_string(), "expected str, got bytes");
}

#[test]
fn null_borrowed_pointers_are_rejected() {
    // SAFETY: null pointers: the conversions must check before reading.
    let raw_str = unsafe { AnyView::from_raw(RawAny::from_ptr(ti::RAW_STR, core::ptr::null_mut())) };
    // SAFETY: as above.
    let byte_arr = unsafe { AnyView::from_raw(RawAny::from_ptr(ti::BYTE_ARRAY_PTR, core::ptr::null_mut())) };
    assert!(as_str(&raw_str).is_err());
    assert!(as_bytes(&raw_str).is_err());
    assert!(as_bytes(&byte_arr).is_err());
    assert!(raw_str.to_any().is_err());
    assert!(byte_arr.to_any().is_err());
}

/// A Str object made by a foreign library: header, `{data, size}` cell, no deleter (the
/// test owns the memory).
#[repr(C)]
struct ForeignStr {
    header: ObjectHeader,
    cell: ByteArray,
}

impl ForeignStr {
    fn new(type_index: i32, content: &'static [u8]) -> ForeignStr {
        ForeignStr {
            header: ObjectHeader { combined_ref_count: AtomicU64::new(1), type_index, padding: 0, deleter: None },
            cell: ByteArray::from_slice(content),
        }
    }

    fn view(&self) -> AnyView<'_> {
        let ptr = core::ptr::from_ref(self).cast_mut().cast::<c_void>();
        // SAFETY: `self` is a live object for the view's lifetime.
        unsafe { AnyView::from_raw(RawAny::from_ptr(self.header.type_index, ptr)) }
    }
}

fn expect_invalid_utf8(v: &AnyView<'_>) {
    match as_str(v) {
        Err(e @ ConvError::InvalidUtf8) => {
            assert_eq!(e.to_string(), "invalid UTF-8 in string");
            assert_eq!(e.kind(), "ValueError");
        }
        other => panic!("expected InvalidUtf8, got {other:?}"),
    }
    assert!(String::from_any(*v).is_err());
}

#[test]
fn invalid_utf8_in_every_string_form() {
    let bad: &'static [u8] = b"valid prefix \xc3\x28 then junk";

    let foreign = ForeignStr::new(ti::STR, bad);
    let v = foreign.view();
    expect_invalid_utf8(&v);
    assert_eq!(as_bytes(&v).unwrap(), bad, "bytes accept any content");
    // SAFETY: a live Str object; from_borrowed adds the reference the handle releases.
    let s = unsafe {
        Str::from_object_unchecked(ObjectRef::from_borrowed(core::ptr::NonNull::new(v.object().unwrap()).unwrap()))
    };
    assert!(s.to_str().is_err());
    drop(s);
    assert_eq!(foreign.header.combined_ref_count.load(core::sync::atomic::Ordering::Relaxed), 1);

    let c = c"caf\xe9 latin-1";
    // SAFETY: `c` is static.
    let raw = unsafe { AnyView::from_raw(RawAny::from_ptr(ti::RAW_STR, c.as_ptr() as *mut c_void)) };
    expect_invalid_utf8(&raw);
    assert_eq!(as_bytes(&raw).unwrap(), b"caf\xe9 latin-1");
    assert!(matches!(raw.to_any(), Err(ConvError::InvalidUtf8)));

    let small = RawAny {
        type_index: ti::SMALL_STR,
        small_len: 2,
        value: abi_core::ffi::RawValue { v_bytes: *b"\xff\xfe\0\0\0\0\0\0" },
    };
    // SAFETY: an inline value points at nothing.
    let small = unsafe { AnyView::from_raw(small) };
    expect_invalid_utf8(&small);
    assert_eq!(as_bytes(&small).unwrap(), b"\xff\xfe");
}

#[test]
fn small_len_beyond_seven_is_clamped() {
    let hostile =
        RawAny { type_index: ti::SMALL_STR, small_len: 1000, value: abi_core::ffi::RawValue { v_bytes: *b"abcdefgh" } };
    // SAFETY: an inline value points at nothing; the reader must stay inside the 8 bytes.
    let v = unsafe { AnyView::from_raw(hostile) };
    assert!(as_bytes(&v).unwrap().len() <= 7);
}

fn small_str(len: u32, payload: &[u8; 8]) -> AnyView<'static> {
    let raw =
        RawAny { type_index: ti::SMALL_STR, small_len: len, value: abi_core::ffi::RawValue { v_bytes: *payload } };
    // SAFETY: an inline value points at nothing.
    unsafe { AnyView::from_raw(raw) }
}

#[test]
fn small_str_ascii_fast_path_and_its_fallbacks() {
    // All-ASCII payload: the prefix of `small_len` bytes, nothing past it.
    assert_eq!(as_str(&small_str(3, b"abcdefg\0")).unwrap(), "abc");
    assert_eq!(as_str(&small_str(7, b"abcdefgh")).unwrap(), "abcdefg");
    // Non-ASCII padding past the length (a sloppy caller): the valid prefix still reads.
    assert_eq!(as_str(&small_str(2, b"ok\xff\xff\0\0\0\0")).unwrap(), "ok");
    // Multi-byte UTF-8 within the length takes the full check and passes.
    assert_eq!(as_str(&small_str(6, b"h\xc3\xa9llo\0\0")).unwrap(), "héllo");
    // A truncated multi-byte sequence inside the length is still rejected.
    expect_invalid_utf8(&small_str(2, b"h\xc3\xa9\0\0\0\0\0"));
}

#[test]
fn str_and_bytes_forms_are_distinct() {
    let b = Any::from_value(&b"not a string object"[..]).unwrap();
    let e = String::from_any(b.view()).unwrap_err();
    assert_eq!(e.to_string(), "expected str, got bytes");
    let small_b = Any::from_value(&b"abc"[..]).unwrap();
    assert_eq!(String::from_any(small_b.view()).unwrap_err().to_string(), "expected str, got bytes");
    // Bytes parameters accept strings (their UTF-8 bytes).
    let s = Any::from_value("héllo").unwrap();
    assert_eq!(s.to::<Vec<u8>>().unwrap(), "héllo".as_bytes());
    let i = Any::from_value(1i64).unwrap();
    assert_eq!(String::from_any(i.view()).unwrap_err().to_string(), "expected str, got int");
    assert_eq!(Vec::<u8>::from_any(i.view()).unwrap_err().to_string(), "expected bytes, got int");
}

#[test]
fn str_objects_of_any_length() {
    let s = Str::new("hi");
    assert_eq!(s.as_object().type_index(), ti::STR, "Str::new always makes an object");
    assert_eq!(s.to_str().unwrap(), "hi");
    let a = Any::from_value(s.clone()).unwrap();
    assert_eq!(a.type_index(), ti::STR);
    assert_eq!(a.to::<String>().unwrap(), "hi");
    assert_eq!(format!("{s:?}"), "Str(\"hi\")");
    assert_eq!(format!("{:?}", Bytes::new(b"\x01")), "Bytes([1])");
}

#[test]
fn str_handle_accepts_every_string_form() {
    let small = Any::from_value("abc").unwrap();
    assert_eq!(small.to::<Str>().expect("a SmallStr is a str").as_bytes(), b"abc");
    let c = c"raw";
    // SAFETY: a static C string.
    let raw = unsafe { AnyView::from_raw(RawAny::from_ptr(ti::RAW_STR, c.as_ptr() as *mut c_void)) };
    assert_eq!(Str::from_any(raw).expect("a RawStr is a str").as_bytes(), b"raw");
    let small_b = Any::from_value(&b"xy"[..]).unwrap();
    assert_eq!(small_b.to::<Bytes>().expect("SmallBytes are bytes").as_bytes(), b"xy");
}

/// A fieldless enum's names: inline up to 7 bytes, else a static Str object whose
/// references come and go with no allocation and never reach its deleter.
#[derive(abi_core::AbiEnum, Debug, Clone, Copy, PartialEq)]
#[abi(rename_all = "kebab-case")]
enum Edge {
    Clamp,
    MirroredRepeat,
}

#[test]
fn enum_names_are_inline_or_static_objects_with_counted_references() {
    let short = Any::from_value(Edge::Clamp).unwrap();
    assert_eq!(short.as_raw().type_index, ti::SMALL_STR);
    let long = Any::from_value(Edge::MirroredRepeat).unwrap();
    assert_eq!(long.as_raw().type_index, ti::STR);
    assert_eq!(object_content(long.as_raw()), (b"mirrored-repeat".to_vec(), 0));
    let again = Any::from_value(Edge::MirroredRepeat).unwrap();
    assert_eq!(again.as_raw().ptr(), long.as_raw().ptr(), "one static object");
    let copies: Vec<Any> = (0..3).map(|_| long.clone()).collect();
    drop((copies, again, long));
    assert_eq!(Any::from_value(Edge::MirroredRepeat).unwrap().to::<Edge>().unwrap(), Edge::MirroredRepeat);
    assert_eq!(short.to::<String>().unwrap(), "clamp");
}
