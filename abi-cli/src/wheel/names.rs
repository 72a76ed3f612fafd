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

/// An extra requirement: a distribution name, then optionally extras, a version
/// specifier or a marker, on one line.
pub fn check_requirement(spec: &str) -> Result<(), String> {
    let name_end =
        spec.find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))).unwrap_or(spec.len());
    let rest = &spec[name_end..];
    let rest_ok = rest.is_empty() || rest.starts_with(['[', '<', '>', '=', '!', '~', ';', ' ', '(', '@']);
    if check_dist_name(&spec[..name_end]).is_ok() && rest_ok && !spec.chars().any(char::is_control) {
        Ok(())
    } else {
        Err(format!("`{spec}` is not a requirement (a distribution name, optionally with a version specifier, e.g. `numpy>=1.26`)"))
    }
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
        for good in ["numpy", "numpy>=1.26", "numpy[typing] >=1.26,<3", "scipy; python_version>='3.10'"] {
            assert!(check_requirement(good).is_ok(), "{good}");
        }
        for bad in ["", ">=1", "numpy\nEvil: 1", "numpy#"] {
            assert!(check_requirement(bad).is_err(), "{bad:?}");
        }
    }
}
