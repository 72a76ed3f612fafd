//! The names a wheel is made of, checked before anything is written: the distribution name
//! (PEP 508), the version (PEP 440, in its normalised form, since it appears unchanged in
//! file names) and the extra requirements.

/// A distribution name as PyPI accepts it: letters, digits, `-`, `_`, `.`, beginning and
/// ending with a letter or digit.
pub fn check_dist_name(name: &str) -> Result<(), String> {
    let edge_ok = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    let ok = edge_ok(name.chars().next())
        && edge_ok(name.chars().last())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "`{name}` is not a distribution name (letters, digits, `-`, `_`, `.`; a letter or digit at each end)"
        ))
    }
}

/// The name as wheel file names and `.dist-info` folders spell it: runs of `-`, `_`, `.`
/// become one `_`, letters lower case.
pub fn normalised_dist_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if matches!(c, '-' | '_' | '.') {
            if !out.ends_with('_') {
                out.push('_');
            }
        } else {
            out.push(c.to_ascii_lowercase());
        }
    }
    out
}

/// A PEP 440 version in normalised form: `N(.N)*[{a|b|rc}N][.postN][.devN][+local]`.
pub fn check_version(version: &str) -> Result<(), String> {
    let (public, local) = match version.split_once('+') {
        Some((p, l)) => (p, Some(l)),
        None => (version, None),
    };
    let local_ok = local.is_none_or(|l| {
        l.split('.').all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()))
    });
    if parse_public(public).is_some() && local_ok {
        Ok(())
    } else {
        Err(format!(
            "`{version}` is not a PEP 440 version in normalised form (e.g. 1.0, 2.1.3, 1.0rc1, 1.0.post1, 1.0.dev2)"
        ))
    }
}

/// `Some(())` when `s` is a normalised public version.
fn parse_public(s: &str) -> Option<()> {
    let number = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) && (t == "0" || !t.starts_with('0'));
    let (s, dev) = split_suffix(s, ".dev");
    let (s, post) = split_suffix(s, ".post");
    let (release, pre) = ["rc", "a", "b"]
        .iter()
        .find_map(|tag| s.rfind(tag).map(|at| (&s[..at], Some(&s[at + tag.len()..]))))
        .unwrap_or((s, None));
    let release_ok = !release.is_empty() && release.split('.').all(number);
    (release_ok && [dev, post, pre].into_iter().flatten().all(number)).then_some(())
}

fn split_suffix<'a>(s: &'a str, tag: &str) -> (&'a str, Option<&'a str>) {
    match s.rfind(tag) {
        Some(at) => (&s[..at], Some(&s[at + tag.len()..])),
        None => (s, None),
    }
}

/// An extra requirement (PEP 508, without URLs): a distribution name, optional extras
/// `[a,b]`, optional version specifiers (`>=1.26,<3`, each an operator and a version), and
/// an optional environment marker after `;` (comparisons of a marker variable with a quoted
/// string, joined by `and`/`or`), on one line.
pub fn check_requirement(spec: &str) -> Result<(), String> {
    let refuse = || {
        Err(format!(
            "`{spec}` is not a requirement (a distribution name, optional [extras], version specifiers and a `; marker`, e.g. `numpy>=1.26,<3`)"
        ))
    };
    let (main, marker) = match spec.split_once(';') {
        Some((m, k)) => (m, Some(k)),
        None => (spec, None),
    };
    let main = main.trim();
    let name_end =
        main.find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))).unwrap_or(main.len());
    if check_dist_name(&main[..name_end]).is_err() {
        return refuse();
    }
    let mut rest = main[name_end..].trim_start();
    if let Some(after) = rest.strip_prefix('[') {
        let Some((extras, tail)) = after.split_once(']') else { return refuse() };
        if !extras.split(',').all(|e| check_dist_name(e.trim()).is_ok()) {
            return refuse();
        }
        rest = tail.trim_start();
    }
    if !rest.is_empty() && !rest.split(',').all(|s| version_specifier(s.trim())) {
        return refuse();
    }
    if marker.is_some_and(|m| !marker_ok(m)) {
        return refuse();
    }
    Ok(())
}

/// `>=1.26`, `==1.*`, `~=2.1`, `!=3.0`, `===x`.
fn version_specifier(s: &str) -> bool {
    let op = ["===", "~=", "==", "!=", "<=", ">=", "<", ">"].into_iter().find(|op| s.starts_with(op));
    let Some(op) = op else { return false };
    let version = s[op.len()..].trim();
    let version = version.strip_suffix(".*").filter(|_| matches!(op, "==" | "!=")).unwrap_or(version);
    !version.is_empty()
        && version.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '+' | '-' | '_' | '!'))
        && version.starts_with(|c: char| c.is_ascii_digit())
}

/// `python_version >= '3.10' and sys_platform == "linux"`: variable, operator, quoted string
/// (either side), joined by `and`/`or`.
fn marker_ok(marker: &str) -> bool {
    const VARIABLES: &[&str] = &[
        "python_version",
        "python_full_version",
        "os_name",
        "sys_platform",
        "platform_release",
        "platform_system",
        "platform_version",
        "platform_machine",
        "platform_python_implementation",
        "implementation_name",
        "implementation_version",
        "extra",
    ];
    const OPS: &[&str] = &["===", "~=", "==", "!=", "<=", ">=", "<", ">", "not in", "in"];
    let operand = |t: &str| {
        let t = t.trim();
        VARIABLES.contains(&t)
            || (t.len() >= 2
                && ((t.starts_with('\'') && t.ends_with('\'') && !t[1..t.len() - 1].contains('\''))
                    || (t.starts_with('"') && t.ends_with('"') && !t[1..t.len() - 1].contains('"'))))
    };
    let comparison = |c: &str| {
        OPS.iter().any(|op| {
            c.split_once(&format!(" {op} ")).or_else(|| c.split_once(op)).is_some_and(|(l, r)| operand(l) && operand(r))
        })
    };
    let marker = marker.trim();
    !marker.is_empty() && marker.split(" or ").flat_map(|p| p.split(" and ")).all(comparison)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_in_normalised_form_are_accepted_and_others_refused() {
        for good in
            ["1", "0.1.0", "1.0a1", "1.0b2", "1.0rc1", "1.0.post1", "1.0.dev3", "1.0rc1.post2.dev3", "1.0+local.7"]
        {
            assert!(check_version(good).is_ok(), "{good}");
        }
        for bad in ["", "1.0-beta", "v1.0", "1.0.0-alpha.1", "01.0", "1..0", "1.0+", "1.0+A", "1.0 ", "1.0rc"] {
            assert!(check_version(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn names_and_requirements() {
        assert!(check_dist_name("geo-kit.core_2").is_ok());
        for bad in ["", "-geo", "geo-", "geo kit", "géo"] {
            assert!(check_dist_name(bad).is_err(), "{bad}");
        }
        assert_eq!(normalised_dist_name("Geo--Kit.Core_2"), "geo_kit_core_2");
        for good in [
            "numpy",
            "numpy>=1.26",
            "numpy[typing] >=1.26,<3",
            "scipy; python_version>='3.10'",
            "torch==2.*; sys_platform == \"linux\" and python_version >= '3.10'",
        ] {
            assert!(check_requirement(good).is_ok(), "{good}");
        }
        for bad in ["", ">=1", "numpy\nEvil: 1", "numpy#", "numpy>=>1", "numpy >=", "numpy; garbage marker", "numpy[a"]
        {
            assert!(check_requirement(bad).is_err(), "{bad:?}");
        }
    }
}
