//! The generated crate's `Cargo.toml`: its name and its `abi-core` dependency, checked
//! before anything is loaded or written, so that a name or a dependency cargo would refuse
//! is one line now rather than a cargo error later.

/// The keys a dependency table of `--abi-core` may hold (cargo's).
const DEPENDENCY_KEYS: &[&str] =
    &["path", "git", "branch", "tag", "rev", "version", "registry", "features", "default-features", "package"];

/// Checks the crate's name: an ASCII identifier-like name cargo accepts (letters, digits,
/// `-`, `_`, not starting with a digit or `-`), not a Rust keyword, and not `abi-core` (the
/// dependency it names).
pub fn check_name(name: &str) -> Result<(), String> {
    let bad = |why: &str| Err(format!("--crate {name:?} is not a name the crate can have: {why}"));
    let Some(first) = name.chars().next() else { return bad("it is empty") };
    if !(first.is_ascii_alphabetic() || first == '_') {
        return bad("it must start with an ASCII letter or `_`");
    }
    if let Some(c) = name.chars().find(|c| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_')) {
        return bad(&format!("{c:?} is not an ASCII letter, digit, `-` or `_`"));
    }
    let as_rust = name.replace('-', "_");
    if as_rust == "abi_core" {
        return bad("it is the name of its dependency, abi-core");
    }
    if super::names::is_keyword(&as_rust) {
        return bad("it is a Rust keyword");
    }
    Ok(())
}

/// The `abi-core = ...` value of the manifest for `--abi-core`: a version requirement
/// (`0.1`, `^0.1.2`, `>=0.1, <0.3`), or an inline table cargo reads as a dependency
/// (`{ path = "..." }`, `{ git = "...", tag = "..." }`); anything else is refused.
pub fn dependency(spec: &str) -> Result<String, String> {
    let spec = spec.trim();
    let bad = |why: String| {
        Err(format!(
            "--abi-core {spec:?} is not a dependency: {why} (write a version, `0.1`, or a table, \
             `{{ path = \"../abi/abi-core\" }}`)"
        ))
    };
    if !spec.starts_with('{') {
        let version = spec.trim_matches('"');
        return match version_requirement(version) {
            true => Ok(format!("{version:?}")),
            false => bad("not a version requirement".to_owned()),
        };
    }
    let table = match format!("abi-core = {spec}").parse::<toml::Table>() {
        Ok(table) => table,
        Err(e) => return bad(format!("not a TOML table ({})", e.message())),
    };
    let Some(toml::Value::Table(fields)) = table.get("abi-core") else { return bad("not a table".to_owned()) };
    if let Some(key) = fields.keys().find(|k| !DEPENDENCY_KEYS.contains(&k.as_str())) {
        return bad(format!("`{key}` is not a dependency key"));
    }
    if !["path", "git", "version"].iter().any(|k| fields.contains_key(*k)) {
        return bad("it names no `path`, `git` or `version`".to_owned());
    }
    Ok(spec.to_owned())
}

/// Whether `text` reads as a cargo version requirement: comma-separated comparators, each
/// an optional operator and a version of one to three numbers (`*` or `x` allowed after
/// the first), with an optional pre-release or build suffix.
fn version_requirement(text: &str) -> bool {
    !text.trim().is_empty()
        && text.split(',').all(|part| {
            let part = part.trim();
            let version = part.trim_start_matches(['=', '>', '<', '~', '^']).trim_start();
            let (core, suffix) = match version.find(['-', '+']) {
                Some(at) => version.split_at(at),
                None => (version, ""),
            };
            let numbers: Vec<&str> = core.split('.').collect();
            let first_is_number = numbers[0].chars().all(|c| c.is_ascii_digit()) && !numbers[0].is_empty();
            (first_is_number || (core == "*" && part == "*"))
                && numbers.len() <= 3
                && numbers
                    .iter()
                    .skip(1)
                    .all(|n| !n.is_empty() && (n.chars().all(|c| c.is_ascii_digit()) || *n == "*" || *n == "x"))
                && suffix.chars().skip(1).all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
                && suffix != "-"
                && suffix != "+"
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_cargo_refuses_are_refused() {
        for good in ["mathlib-sys", "x", "_private", "testing_bindings2"] {
            assert_eq!(check_name(good), Ok(()), "{good}");
        }
        for (bad, why) in [
            ("bad name!", "' ' is not an ASCII letter"),
            ("abi-core", "the name of its dependency"),
            ("abi_core", "the name of its dependency"),
            ("2d", "must start with"),
            ("", "empty"),
            ("fn", "keyword"),
        ] {
            let err = check_name(bad).unwrap_err();
            assert!(err.contains(why), "{bad}: {err}");
        }
    }

    #[test]
    fn dependencies_are_versions_or_tables_cargo_reads() {
        assert_eq!(dependency("0.1").unwrap(), "\"0.1\"");
        assert_eq!(dependency("\"0.3\"").unwrap(), "\"0.3\"");
        assert_eq!(dependency(">=0.1, <0.3").unwrap(), "\">=0.1, <0.3\"");
        assert_eq!(dependency("^1.2.3-rc.1").unwrap(), "\"^1.2.3-rc.1\"");
        let table = r#"{ path = "../abi/abi-core" }"#;
        assert_eq!(dependency(table).unwrap(), table);
        assert!(dependency(r#"{ git = "https://x", tag = "v1" }"#).is_ok());
        for (bad, why) in [
            ("garbage {", "not a version requirement"),
            ("{ path = ", "not a TOML table"),
            ("{ paht = \"x\" }", "`paht` is not a dependency key"),
            ("{ features = [] }", "names no `path`"),
            ("", "not a version requirement"),
            ("1.x.", "not a version requirement"),
        ] {
            let err = dependency(bad).unwrap_err();
            assert!(err.contains(why), "{bad}: {err}");
        }
    }
}
