//! `Obj::new` of a type the process refused, outside any exported call: the unwind skips
//! the panic hook, so the refusal itself must be printed where the unwind ends (before,
//! a host program ended with status 101 and nothing on stderr).

use abi_core::Obj;

/// Registered first under the key.
#[derive(abi_core::Object)]
#[abi(type_key = "refusal.Point")]
pub struct Point {
    #[abi(get)]
    x: i64,
}

/// The same key with another layout: refused.
#[derive(abi_core::Object)]
#[abi(type_key = "refusal.Point")]
pub struct OtherPoint {
    #[abi(get)]
    x: f64,
    #[abi(get)]
    y: f64,
}

const CHILD: &str = "ABI_TEST_OBJ_NEW_CHILD";

#[test]
#[ignore = "run in a child process by the test below"]
fn child_makes_a_refused_object() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let p = Obj::new(Point { x: 1 });
    assert_eq!(p.x, 1);
    let _ = Obj::new(OtherPoint { x: 1.0, y: 2.0 });
}

#[test]
fn a_refused_object_outside_a_call_says_why_on_stderr() {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--ignored", "--exact", "child_makes_a_refused_object", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the child panics");
    assert!(stderr.contains("abi: Obj::new panicked outside an exported call: TypeError: "), "{stderr}");
    assert!(stderr.contains("`refusal.Point` is already registered with another layout"), "{stderr}");
}

#[test]
fn try_new_returns_the_same_refusal() {
    let _ = Obj::new(Point { x: 2 });
    let Err(err) = Obj::try_new(OtherPoint { x: 0.0, y: 0.0 }) else { panic!("refused") };
    assert_eq!(err.kind(), "TypeError");
}
