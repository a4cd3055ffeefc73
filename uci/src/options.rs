//! The engine's UCI options: their declaration (`option name ...` lines) and
//! the resolution of `setoption` into a typed [`EngineOption`].

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

/// One option of the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OptionSpec {
    pub name: &'static str,
    pub kind: OptionKind,
}

/// Hash table size in MB, announced and accepted up to 1 TB.
pub const MAX_HASH_MB: i64 = 1 << 20;
/// The most search threads accepted.
pub const MAX_THREADS: i64 = 1024;

/// Every option the engine offers, in the order `uci` lists them.
pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec { name: "Hash", kind: OptionKind::Spin { default: 16, min: 1, max: MAX_HASH_MB } },
    OptionSpec { name: "Threads", kind: OptionKind::Spin { default: 1, min: 1, max: MAX_THREADS } },
    OptionSpec { name: "Clear Hash", kind: OptionKind::Button },
    OptionSpec { name: "Ponder", kind: OptionKind::Check { default: false } },
    OptionSpec { name: "UCI_Chess960", kind: OptionKind::Check { default: false } },
    OptionSpec { name: "Move Overhead", kind: OptionKind::Spin { default: 10, min: 0, max: 5000 } },
    OptionSpec { name: "MultiPV", kind: OptionKind::Spin { default: 1, min: 1, max: 256 } },
    OptionSpec { name: "UCI_ShowWDL", kind: OptionKind::Check { default: false } },
    OptionSpec { name: "SyzygyPath", kind: OptionKind::String { default: "<empty>" } },
    OptionSpec { name: "SyzygyProbeDepth", kind: OptionKind::Spin { default: 1, min: 1, max: 100 } },
    OptionSpec { name: "Syzygy50MoveRule", kind: OptionKind::Check { default: true } },
    OptionSpec { name: "SyzygyProbeLimit", kind: OptionKind::Spin { default: 7, min: 0, max: 7 } },
];

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

/// A `setoption` that names a known option with a valid value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineOption {
    HashMb(usize),
    Threads(usize),
    ClearHash,
    Ponder(bool),
    Chess960(bool),
    MoveOverheadMs(u64),
    /// How many best lines to search and report.
    MultiPv(usize),
    /// Report win/draw/loss chances (`wdl w d l`) with the score.
    ShowWdl(bool),
    /// Folders of Syzygy tables, separated by `:`; empty for none.
    SyzygyPath(String),
    SyzygyProbeDepth(i32),
    Syzygy50MoveRule(bool),
    SyzygyProbeLimit(usize),
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

impl EngineOption {
    /// Resolves `setoption name <name> [value <value>]`. Names compare
    /// without regard to case, as the UCI protocol asks.
    pub fn parse(name: &str, value: Option<&str>) -> Result<EngineOption, OptionError> {
        let spec = OPTIONS
            .iter()
            .find(|spec| spec.name.eq_ignore_ascii_case(name.trim()))
            .ok_or_else(|| OptionError(format!("unknown option '{name}'")))?;
        let value = value.map(str::trim);
        if let OptionKind::String { .. } = spec.kind {
            let text = value.filter(|text| *text != "<empty>").unwrap_or("");
            return Ok(EngineOption::SyzygyPath(text.to_string()));
        }
        let parsed = match spec.kind {
            OptionKind::Button | OptionKind::String { .. } => 0,
            OptionKind::Check { .. } => match value.map(str::to_ascii_lowercase).as_deref() {
                Some("true") => 1,
                Some("false") => 0,
                _ => return Err(OptionError(format!("option '{}' takes true or false", spec.name))),
            },
            OptionKind::Spin { min, max, .. } => match value.and_then(|v| v.parse::<i64>().ok()) {
                Some(v) if (min..=max).contains(&v) => v,
                _ => {
                    return Err(OptionError(format!(
                        "option '{}' takes an integer from {min} to {max}",
                        spec.name
                    )));
                }
            },
        };
        Ok(match spec.name {
            "Hash" => EngineOption::HashMb(parsed as usize),
            "Threads" => EngineOption::Threads(parsed as usize),
            "Clear Hash" => EngineOption::ClearHash,
            "Ponder" => EngineOption::Ponder(parsed != 0),
            "UCI_Chess960" => EngineOption::Chess960(parsed != 0),
            "Move Overhead" => EngineOption::MoveOverheadMs(parsed as u64),
            "MultiPV" => EngineOption::MultiPv(parsed as usize),
            "UCI_ShowWDL" => EngineOption::ShowWdl(parsed != 0),
            "SyzygyProbeDepth" => EngineOption::SyzygyProbeDepth(parsed as i32),
            "Syzygy50MoveRule" => EngineOption::Syzygy50MoveRule(parsed != 0),
            "SyzygyProbeLimit" => EngineOption::SyzygyProbeLimit(parsed as usize),
            other => unreachable!("option '{other}' is declared but not resolved"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_case_insensitive() {
        assert_eq!(EngineOption::parse("hash", Some("64")), Ok(EngineOption::HashMb(64)));
        assert_eq!(EngineOption::parse("uci_chess960", Some("TRUE")), Ok(EngineOption::Chess960(true)));
        assert_eq!(EngineOption::parse("move overhead", Some("0")), Ok(EngineOption::MoveOverheadMs(0)));
        assert_eq!(EngineOption::parse("CLEAR HASH", None), Ok(EngineOption::ClearHash));
        assert_eq!(EngineOption::parse("Threads", Some("1024")), Ok(EngineOption::Threads(1024)));
        assert_eq!(
            EngineOption::parse("syzygy50moverule", Some("false")),
            Ok(EngineOption::Syzygy50MoveRule(false))
        );
    }

    #[test]
    fn syzygy_path_keeps_its_text() {
        assert_eq!(
            EngineOption::parse("SyzygyPath", Some("/tb/345:/tb/6 men")),
            Ok(EngineOption::SyzygyPath("/tb/345:/tb/6 men".to_string()))
        );
        assert_eq!(
            EngineOption::parse("SyzygyPath", Some("<empty>")),
            Ok(EngineOption::SyzygyPath(String::new()))
        );
        assert_eq!(EngineOption::parse("SyzygyPath", None), Ok(EngineOption::SyzygyPath(String::new())));
        assert_eq!(EngineOption::parse("SyzygyProbeLimit", Some("5")), Ok(EngineOption::SyzygyProbeLimit(5)));
        assert!(EngineOption::parse("SyzygyProbeLimit", Some("8")).is_err());
        assert!(EngineOption::parse("SyzygyProbeDepth", Some("0")).is_err());
    }

    #[test]
    fn bad_values_are_refused() {
        assert!(EngineOption::parse("Hash", Some("0")).is_err());
        assert!(EngineOption::parse("Hash", Some("1048577")).is_err());
        assert!(EngineOption::parse("Hash", None).is_err());
        assert!(EngineOption::parse("Threads", Some("many")).is_err());
        assert!(EngineOption::parse("Ponder", Some("yes")).is_err());
        assert!(EngineOption::parse("Contempt", Some("10")).is_err());
        assert!(EngineOption::parse("MultiPV", Some("0")).is_err());
        assert!(EngineOption::parse("MultiPV", Some("257")).is_err());
        assert_eq!(EngineOption::parse("multipv", Some("3")), Ok(EngineOption::MultiPv(3)));
        assert_eq!(EngineOption::parse("UCI_ShowWDL", Some("true")), Ok(EngineOption::ShowWdl(true)));
    }

    #[test]
    fn declarations() {
        assert_eq!(OPTIONS[0].to_string(), "option name Hash type spin default 16 min 1 max 1048576");
        assert_eq!(OPTIONS[2].to_string(), "option name Clear Hash type button");
        assert_eq!(OPTIONS[4].to_string(), "option name UCI_Chess960 type check default false");
        assert_eq!(OPTIONS[6].to_string(), "option name MultiPV type spin default 1 min 1 max 256");
        assert_eq!(OPTIONS[8].to_string(), "option name SyzygyPath type string default <empty>");
        // Every declared option resolves with its default value.
        for spec in OPTIONS {
            let value = match spec.kind {
                OptionKind::Spin { default, .. } => Some(default.to_string()),
                OptionKind::Check { default } => Some(default.to_string()),
                OptionKind::String { default } => Some(default.to_string()),
                OptionKind::Button => None,
            };
            assert!(EngineOption::parse(spec.name, value.as_deref()).is_ok(), "{}", spec.name);
        }
    }
}
