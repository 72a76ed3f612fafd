//! The identifier rule: how an ABI name that is not a Rust identifier (a keyword, `_0`,
//! `testing.TestIntPairSum`) becomes one. The exact ABI name stays in the declaration's
//! `#[abi(name = "...")]`.
//!
//! 1. The `--globals` prefix is dropped from a global's name, and so are the `.` and `_`
//!    it leaves at the start (`--globals testing` gives `testing.add_one` as `add_one`);
//!    when nothing is left (`--globals testing.add_one`), the name's last dotted part is
//!    used.
//! 2. Every character that is not an ASCII letter, digit or `_` becomes `_`, and runs of
//!    `_` become one (`ffi._init` -> `ffi_init`).
//! 3. Functions, parameters and fields are snake_case (`TestIntPairSum` ->
//!    `test_int_pair_sum`), types CamelCase (`testing.TestIntPair` -> `TestIntPair`, the
//!    last dotted part).
//! 4. A name that is empty gets a word for what it is (`function`, `arg`, `field`, `T`);
//!    one that starts with a digit or is `_` followed by digits only (`_0`) gets a prefix:
//!    `arg` for parameters (`_0` -> `arg0`), `f_` for functions and fields, `T` for types.
//! 5. A Rust keyword gets a trailing `_` (`type` -> `type_`, `self` -> `self_`).
//! 6. When two names of one scope map alike, the later ones in name order get `_2`, `_3`...

/// Rust's keywords (strict and reserved, 2021 edition), which identifiers cannot be.
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern", "false", "fn",
    "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "self", "Self",
    "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where", "while", "abstract", "become",
    "box", "do", "final", "gen", "macro", "override", "priv", "try", "typeof", "unsized", "virtual", "yield", "union",
];

/// Whether `name` is a Rust keyword (rule 5).
pub fn is_keyword(name: &str) -> bool {
    KEYWORDS.contains(&name)
}

/// What a name is for: it picks the case and the prefix of rule 4.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A function or a method.
    Function,
    /// A parameter.
    Param,
    /// A struct field or a reflected field.
    Field,
    /// A type.
    Type,
}

/// The Rust identifier of `name` (rules 2 to 5).
pub fn ident(name: &str, role: Role) -> String {
    let name = match role {
        Role::Type => name.rsplit('.').next().unwrap_or(name),
        _ => name,
    };
    let clean: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    let mut out = match role {
        Role::Type => camel(&clean),
        _ => single_underscores(&snake(&clean)),
    };
    let digits_only = out.trim_start_matches('_').chars().all(|c| c.is_ascii_digit());
    if out.trim_start_matches('_').is_empty() {
        out = match role {
            Role::Function => "function",
            Role::Param => "arg",
            Role::Field => "field",
            Role::Type => "T",
        }
        .to_owned();
    } else if out.starts_with(|c: char| c.is_ascii_digit()) || digits_only {
        let prefix = match role {
            Role::Param => "arg",
            Role::Function | Role::Field => "f_",
            Role::Type => "T",
        };
        out = format!("{prefix}{}", out.trim_start_matches('_'));
    }
    if KEYWORDS.contains(&out.as_str()) {
        out.push('_');
    }
    out
}

/// Rule 1: the part of a global's name `abi_name` that is named after the `--globals`
/// prefix.
pub fn after_prefix<'a>(abi_name: &'a str, prefix: &str) -> &'a str {
    let Some(rest) = abi_name.strip_prefix(prefix).filter(|_| !prefix.is_empty()) else { return abi_name };
    match rest.trim_start_matches(['.', '_']) {
        "" => abi_name.rsplit('.').next().unwrap_or(abi_name),
        rest => rest,
    }
}

/// Rule 2's runs of `_` made one.
fn single_underscores(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if !(c == '_' && out.ends_with('_')) {
            out.push(c);
        }
    }
    out
}

/// Rule 6 over the names of one scope, in the order given (callers sort).
pub fn unique(names: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::BTreeMap::<String, usize>::new();
    names
        .into_iter()
        .map(|n| {
            let count = seen.entry(n.clone()).or_insert(0);
            *count += 1;
            if *count == 1 {
                n
            } else {
                format!("{n}_{count}")
            }
        })
        .collect()
}

fn snake(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() {
            let prev = i.checked_sub(1).map(|j| chars[j]);
            let next = chars.get(i + 1);
            let boundary = prev.is_some_and(|p| p.is_ascii_lowercase() || p.is_ascii_digit())
                || (prev.is_some_and(|p| p.is_ascii_uppercase()) && next.is_some_and(|n| n.is_ascii_lowercase()));
            if boundary && !out.ends_with('_') {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

fn camel(name: &str) -> String {
    let mut out = String::new();
    for part in name.split('_').filter(|p| !p.is_empty()) {
        let mut chars = part.chars();
        if let Some(first) = chars.next() {
            out.push(first.to_ascii_uppercase());
            out.extend(chars);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_maps_what_is_not_an_identifier() {
        assert_eq!(ident("TestIntPairSum", Role::Function), "test_int_pair_sum");
        assert_eq!(ident("schema_id_int", Role::Function), "schema_id_int");
        assert_eq!(ident("_0", Role::Param), "arg0");
        assert_eq!(ident("type", Role::Param), "type_");
        assert_eq!(ident("self", Role::Field), "self_");
        assert_eq!(ident("p.a", Role::Param), "p_a");
        assert_eq!(ident("testing.TestIntPair", Role::Type), "TestIntPair");
        assert_eq!(ident("ffi.Enum", Role::Type), "Enum");
        assert_eq!(ident("my_point", Role::Type), "MyPoint");
        assert_eq!(ident("3d", Role::Function), "f_3d");
        assert_eq!(ident("HTTPServer", Role::Function), "http_server");
        // What a prefix leaves is named without stray underscores, never empty.
        assert_eq!(ident(after_prefix("ffi._register_ffi_init", ""), Role::Function), "ffi_register_ffi_init");
        assert_eq!(ident(after_prefix("testing.add_one", "testing"), Role::Function), "add_one");
        assert_eq!(ident(after_prefix("testing.add_one", "testing.add"), Role::Function), "one");
        assert_eq!(
            ident(after_prefix("testing.schema_id_int", "testing.schema_id_int"), Role::Function),
            "schema_id_int"
        );
        assert_eq!(ident(after_prefix("ffi._init", "ffi."), Role::Function), "init");
        assert_eq!(ident(after_prefix("x.", "x."), Role::Function), "function");
        assert_eq!(ident("", Role::Field), "field");
        assert_eq!(ident("__", Role::Param), "arg");
        assert_eq!(ident("a__b", Role::Field), "a_b");
        assert_eq!(unique(vec!["a".into(), "a".into(), "b".into(), "a".into()]), ["a", "a_2", "b", "a_3"]);
    }
}
