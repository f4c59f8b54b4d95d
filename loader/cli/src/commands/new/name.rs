//! What makes a plugin name a valid crate name.

/// Names Cargo refuses for a package, or that would shadow a crate every plugin uses.
const RESERVED: &[&str] = &[
    "abstract",
    "as",
    "async",
    "await",
    "become",
    "box",
    "break",
    "const",
    "continue",
    "crate",
    "do",
    "dyn",
    "else",
    "enum",
    "extern",
    "false",
    "final",
    "fn",
    "for",
    "if",
    "impl",
    "in",
    "let",
    "loop",
    "macro",
    "match",
    "mod",
    "move",
    "mut",
    "override",
    "priv",
    "pub",
    "ref",
    "return",
    "self",
    "static",
    "struct",
    "super",
    "trait",
    "true",
    "try",
    "type",
    "typeof",
    "unsafe",
    "unsized",
    "use",
    "virtual",
    "where",
    "while",
    "yield",
    "alloc",
    "core",
    "std",
    "proc_macro",
    "proc-macro",
    "test",
    "agent-hooks-abi",
    "agent_hooks_abi",
];

/// Why `name` cannot be a plugin crate's name; `None` when it can.
pub fn invalid(name: &str) -> Option<String> {
    let Some(first) = name.chars().next() else {
        return Some("it is empty".to_owned());
    };
    if !first.is_ascii_alphabetic() {
        return Some(format!("it starts with `{first}`, not a letter"));
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_'))
    {
        return Some(format!("`{bad}` is not a letter, a digit, `-` or `_`"));
    }
    if name.len() > 64 {
        return Some("it is longer than 64 characters".to_owned());
    }
    if RESERVED.contains(&name) {
        return Some("it is a Rust keyword or a reserved crate name".to_owned());
    }
    None
}

/// The library's name: the crate name with `_` for `-` (the file is `lib<it>.so`).
pub fn lib_name(name: &str) -> String {
    name.replace('-', "_")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_cargo_accepts_pass_and_the_others_say_why() {
        assert_eq!(invalid("demo-guard"), None);
        assert_eq!(invalid("guard_2"), None);
        assert_eq!(invalid(""), Some("it is empty".into()));
        assert_eq!(
            invalid("2guard"),
            Some("it starts with `2`, not a letter".into())
        );
        assert_eq!(
            invalid("demo guard"),
            Some("` ` is not a letter, a digit, `-` or `_`".into())
        );
        assert_eq!(
            invalid("fn"),
            Some("it is a Rust keyword or a reserved crate name".into())
        );
        assert_eq!(lib_name("demo-guard"), "demo_guard");
    }
}
