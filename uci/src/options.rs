//! UCI options as the protocol sees them: the declaration of one option
//! (its `option name ... type ...` line) and the checking of a `setoption`
//! value against it. Which options exist, and what they do, is the
//! engine's table (`backrank::options`), declared there once.

use std::fmt;

/// The type and bounds of one option, as announced after `uci`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionKind {
    Spin {
        default: i64,
        min: i64,
        max: i64,
    },
    Check {
        default: bool,
    },
    Button,
    /// Free text; `<empty>` stands for the empty string, as in Stockfish.
    String {
        default: &'static str,
    },
}

/// One option: its name and kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OptionSpec {
    pub name: &'static str,
    pub kind: OptionKind,
}

/// A value that fits an option's kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OptionValue {
    Spin(i64),
    Check(bool),
    Button,
    /// The text (`<empty>` already turned into "").
    String(String),
}

impl OptionValue {
    /// The number of a spin value (0 for other kinds).
    pub fn spin(&self) -> i64 {
        if let OptionValue::Spin(v) = self { *v } else { 0 }
    }

    /// The truth of a check value (false for other kinds).
    pub fn check(&self) -> bool {
        matches!(self, OptionValue::Check(true))
    }

    /// The text of a string value ("" for other kinds).
    pub fn text(&self) -> &str {
        if let OptionValue::String(s) = self { s } else { "" }
    }
}

/// Why a `setoption` was refused. Its `Display` is meant for `info string`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionError(pub String);

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for OptionError {}

impl fmt::Display for OptionSpec {
    /// The `option name ... type ...` line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "option name {} type ", self.name)?;
        match self.kind {
            OptionKind::Spin { default, min, max } => {
                write!(f, "spin default {default} min {min} max {max}")
            }
            OptionKind::Check { default } => write!(f, "check default {default}"),
            OptionKind::Button => f.write_str("button"),
            OptionKind::String { default } => write!(f, "string default {default}"),
        }
    }
}

impl OptionSpec {
    /// Whether `name` names this option (UCI names ignore case).
    pub fn is_named(&self, name: &str) -> bool {
        self.name.eq_ignore_ascii_case(name.trim())
    }

    /// The default value (nothing for a button).
    pub fn default_value(&self) -> Option<OptionValue> {
        match self.kind {
            OptionKind::Spin { default, .. } => Some(OptionValue::Spin(default)),
            OptionKind::Check { default } => Some(OptionValue::Check(default)),
            OptionKind::String { default } => Some(OptionValue::String(unempty(default).to_string())),
            OptionKind::Button => None,
        }
    }

    /// Checks the value of `setoption name <this> [value <value>]`.
    pub fn parse_value(&self, value: Option<&str>) -> Result<OptionValue, OptionError> {
        let value = value.map(str::trim);
        match self.kind {
            OptionKind::Button => Ok(OptionValue::Button),
            OptionKind::String { .. } => Ok(OptionValue::String(unempty(value.unwrap_or("")).to_string())),
            OptionKind::Check { .. } => match value.map(str::to_ascii_lowercase).as_deref() {
                Some("true") => Ok(OptionValue::Check(true)),
                Some("false") => Ok(OptionValue::Check(false)),
                _ => Err(OptionError(format!("option '{}' takes true or false", self.name))),
            },
            OptionKind::Spin { min, max, .. } => match value.and_then(|v| v.parse::<i64>().ok()) {
                Some(v) if (min..=max).contains(&v) => Ok(OptionValue::Spin(v)),
                _ => Err(OptionError(format!("option '{}' takes an integer from {min} to {max}", self.name))),
            },
        }
    }
}

fn unempty(text: &str) -> &str {
    if text == "<empty>" { "" } else { text }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HASH: OptionSpec =
        OptionSpec { name: "Hash", kind: OptionKind::Spin { default: 16, min: 1, max: 1024 } };
    const PONDER: OptionSpec = OptionSpec { name: "Ponder", kind: OptionKind::Check { default: false } };
    const PATH: OptionSpec =
        OptionSpec { name: "SyzygyPath", kind: OptionKind::String { default: "<empty>" } };
    const CLEAR: OptionSpec = OptionSpec { name: "Clear Hash", kind: OptionKind::Button };

    #[test]
    fn declarations() {
        assert_eq!(HASH.to_string(), "option name Hash type spin default 16 min 1 max 1024");
        assert_eq!(CLEAR.to_string(), "option name Clear Hash type button");
        assert_eq!(PONDER.to_string(), "option name Ponder type check default false");
        assert_eq!(PATH.to_string(), "option name SyzygyPath type string default <empty>");
        assert_eq!(PATH.default_value(), Some(OptionValue::String(String::new())));
        assert_eq!(CLEAR.default_value(), None);
    }

    #[test]
    fn names_ignore_case_and_values_are_checked() {
        assert!(HASH.is_named("hash") && CLEAR.is_named(" CLEAR HASH ") && !HASH.is_named("Hashes"));
        assert_eq!(HASH.parse_value(Some("64")), Ok(OptionValue::Spin(64)));
        assert!(HASH.parse_value(Some("0")).is_err());
        assert!(HASH.parse_value(Some("1025")).is_err());
        assert!(HASH.parse_value(None).is_err());
        assert_eq!(PONDER.parse_value(Some("TRUE")), Ok(OptionValue::Check(true)));
        assert!(PONDER.parse_value(Some("yes")).is_err());
        assert_eq!(
            PATH.parse_value(Some("/tb/345:/tb/6 men")),
            Ok(OptionValue::String("/tb/345:/tb/6 men".into()))
        );
        assert_eq!(PATH.parse_value(Some("<empty>")), Ok(OptionValue::String(String::new())));
        assert_eq!(PATH.parse_value(None), Ok(OptionValue::String(String::new())));
        assert_eq!(CLEAR.parse_value(None), Ok(OptionValue::Button));
    }
}
