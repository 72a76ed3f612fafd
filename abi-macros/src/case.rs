//! `rename_all` rules for the names a fieldless enum's variants cross as: serde's rules and
//! spellings, applied to a variant's (PascalCase) identifier as serde applies them, so an
//! enum serialized by serde and passed through abi reads the same.

/// The rules, as `rename_all` spells them.
pub const RULES: [&str; 8] = [
    "lowercase",
    "UPPERCASE",
    "PascalCase",
    "camelCase",
    "snake_case",
    "SCREAMING_SNAKE_CASE",
    "kebab-case",
    "SCREAMING-KEBAB-CASE",
];

/// `variant` after rule `rule` (one of [`RULES`]); `None` for an unknown rule.
pub fn apply(rule: &str, variant: &str) -> Option<String> {
    let snake = || {
        let mut out = String::new();
        for (i, c) in variant.char_indices() {
            if i > 0 && c.is_uppercase() {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        }
        out
    };
    Some(match rule {
        "lowercase" => variant.to_ascii_lowercase(),
        "UPPERCASE" => variant.to_ascii_uppercase(),
        "PascalCase" => variant.to_owned(),
        "camelCase" => {
            let mut chars = variant.chars();
            chars.next().map(|c| c.to_ascii_lowercase().to_string() + chars.as_str()).unwrap_or_default()
        }
        "snake_case" => snake(),
        "SCREAMING_SNAKE_CASE" => snake().to_ascii_uppercase(),
        "kebab-case" => snake().replace('_', "-"),
        "SCREAMING-KEBAB-CASE" => snake().to_ascii_uppercase().replace('_', "-"),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_rule_spells_a_pascal_case_variant_as_serde_does() {
        let spelled: Vec<String> = RULES.iter().map(|r| apply(r, "VeryTasty").unwrap()).collect();
        assert_eq!(
            spelled,
            [
                "verytasty",
                "VERYTASTY",
                "VeryTasty",
                "veryTasty",
                "very_tasty",
                "VERY_TASTY",
                "very-tasty",
                "VERY-TASTY"
            ]
        );
        assert_eq!(apply("snake_case", "A").as_deref(), Some("a"));
        assert_eq!(apply("Snake_Case", "A"), None);
    }
}
