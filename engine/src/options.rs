//! The engine's UCI options, each declared once: its name, type, default
//! and bounds (what `uci` announces, through [`OptionSpec`]'s `Display`),
//! and the [`Setting`] a value stands for, which
//! [`Engine::apply`](crate::engine::Engine::apply) carries out. The engine
//! applies every default from this table, so what is announced is what is
//! in force.
//!
//! In the `spsa` build every search tunable is a row of the same table
//! (a spin over its range), so that `uci` lists it and `setoption` checks
//! and applies it like any other option.
//!
//! A new option is one row here, a [`Setting`], and its arm in
//! `Engine::apply`.

use backrank_uci::{OptionKind, OptionSpec, OptionValue};

use crate::strength;

/// The table size before any `Hash` (the option's default).
pub const DEFAULT_HASH_MB: usize = 16;
/// Hash table size in MB, announced and accepted up to 1 TB.
pub const MAX_HASH_MB: i64 = 1 << 20;
/// The most search threads accepted.
pub const MAX_THREADS: i64 = 1024;

/// One option: its declaration, and the setting a checked value stands for.
pub struct EngineOption {
    pub spec: OptionSpec,
    /// Whether it changes the search's state (table, threads, network,
    /// tablebases, tunables), so that it must wait until no search runs.
    pub needs_idle: bool,
    action: Action,
}

/// How a row turns a value into a [`Setting`].
#[derive(Clone, Copy)]
enum Action {
    Setting(fn(&OptionValue) -> Setting),
    /// Sets a search tunable (the `spsa` build).
    #[cfg(feature = "spsa")]
    Tunable(backrank_search::params::Tunable),
}

impl EngineOption {
    /// The setting of a value that [`OptionSpec::parse_value`] has checked.
    pub fn setting(&self, value: &OptionValue) -> Setting {
        match self.action {
            Action::Setting(setting) => setting(value),
            #[cfg(feature = "spsa")]
            Action::Tunable(tunable) => Setting::Tunable(tunable, value.spin() as i32),
        }
    }
}

/// What an option's value asks of the engine, typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Setting {
    /// `Hash`: a new table of this many megabytes.
    Hash(usize),
    Threads(usize),
    /// `Clear Hash`: an empty table and fresh histories.
    ClearHash,
    /// An option the engine only announces (`Ponder`: the GUI's business).
    Nothing,
    Chess960(bool),
    MoveOverheadMs(u64),
    MultiPv(usize),
    ShowWdl(bool),
    LimitStrength(bool),
    Elo(i64),
    SkillLevel(i64),
    /// A network file (empty: the embedded network).
    EvalFile(String),
    /// Tablebase folders, separated as the platform separates paths.
    SyzygyPath(String),
    SyzygyProbeDepth(i32),
    Syzygy50MoveRule(bool),
    SyzygyProbeLimit(usize),
    /// A search tunable and its value (the `spsa` build).
    #[cfg(feature = "spsa")]
    Tunable(backrank_search::params::Tunable, i32),
}

const fn spin(name: &'static str, default: i64, min: i64, max: i64) -> OptionSpec {
    OptionSpec { name, kind: OptionKind::Spin { default, min, max } }
}

const fn check(name: &'static str, default: bool) -> OptionSpec {
    OptionSpec { name, kind: OptionKind::Check { default } }
}

const fn string(name: &'static str) -> OptionSpec {
    OptionSpec { name, kind: OptionKind::String { default: "<empty>" } }
}

/// The engine's own options, in the order `uci` lists them.
const ENGINE_OPTIONS: &[EngineOption] = &[
    EngineOption {
        spec: spin("Hash", DEFAULT_HASH_MB as i64, 1, MAX_HASH_MB),
        needs_idle: true,
        action: Action::Setting(|v| Setting::Hash(v.spin() as usize)),
    },
    EngineOption {
        spec: spin("Threads", 1, 1, MAX_THREADS),
        needs_idle: true,
        action: Action::Setting(|v| Setting::Threads(v.spin() as usize)),
    },
    EngineOption {
        spec: OptionSpec { name: "Clear Hash", kind: OptionKind::Button },
        needs_idle: true,
        action: Action::Setting(|_| Setting::ClearHash),
    },
    EngineOption {
        spec: check("Ponder", false),
        needs_idle: false,
        action: Action::Setting(|_| Setting::Nothing),
    },
    EngineOption {
        spec: check("UCI_Chess960", false),
        needs_idle: false,
        action: Action::Setting(|v| Setting::Chess960(v.check())),
    },
    EngineOption {
        spec: spin("Move Overhead", 10, 0, 5000),
        needs_idle: false,
        action: Action::Setting(|v| Setting::MoveOverheadMs(v.spin() as u64)),
    },
    EngineOption {
        spec: spin("MultiPV", 1, 1, 256),
        needs_idle: false,
        action: Action::Setting(|v| Setting::MultiPv(v.spin() as usize)),
    },
    EngineOption {
        spec: check("UCI_ShowWDL", false),
        needs_idle: false,
        action: Action::Setting(|v| Setting::ShowWdl(v.check())),
    },
    EngineOption {
        spec: check("UCI_LimitStrength", false),
        needs_idle: false,
        action: Action::Setting(|v| Setting::LimitStrength(v.check())),
    },
    EngineOption {
        spec: spin("UCI_Elo", strength::DEFAULT_ELO, strength::MIN_ELO, strength::MAX_ELO),
        needs_idle: false,
        action: Action::Setting(|v| Setting::Elo(v.spin())),
    },
    EngineOption {
        spec: spin("Skill Level", 20, 0, 20),
        needs_idle: false,
        action: Action::Setting(|v| Setting::SkillLevel(v.spin())),
    },
    EngineOption {
        spec: string("EvalFile"),
        needs_idle: true,
        action: Action::Setting(|v| Setting::EvalFile(v.text().to_string())),
    },
    EngineOption {
        spec: string("SyzygyPath"),
        needs_idle: true,
        action: Action::Setting(|v| Setting::SyzygyPath(v.text().to_string())),
    },
    EngineOption {
        spec: spin("SyzygyProbeDepth", 1, 1, 100),
        needs_idle: true,
        action: Action::Setting(|v| Setting::SyzygyProbeDepth(v.spin() as i32)),
    },
    EngineOption {
        spec: check("Syzygy50MoveRule", true),
        needs_idle: true,
        action: Action::Setting(|v| Setting::Syzygy50MoveRule(v.check())),
    },
    EngineOption {
        spec: spin("SyzygyProbeLimit", 7, 0, 7),
        needs_idle: true,
        action: Action::Setting(|v| Setting::SyzygyProbeLimit(v.spin() as usize)),
    },
];

/// Every option, in the order `uci` lists them: the engine's own, then
/// (in the `spsa` build) the search's tunables.
pub fn all() -> impl Iterator<Item = &'static EngineOption> {
    ENGINE_OPTIONS.iter().chain(tunables())
}

#[cfg(not(feature = "spsa"))]
fn tunables() -> &'static [EngineOption] {
    &[]
}

/// A row per search tunable: a spin over its range.
#[cfg(feature = "spsa")]
fn tunables() -> &'static [EngineOption] {
    use backrank_search::params::TUNABLES;
    static ROWS: std::sync::LazyLock<Vec<EngineOption>> = std::sync::LazyLock::new(|| {
        let row = |&t: &backrank_search::params::Tunable| EngineOption {
            spec: spin(t.name, t.default.into(), t.min.into(), t.max.into()),
            needs_idle: true,
            action: Action::Tunable(t),
        };
        TUNABLES.iter().map(row).collect()
    });
    &ROWS
}

/// The option called `name` (any case).
pub fn find(name: &str) -> Option<&'static EngineOption> {
    all().find(|o| o.spec.is_named(name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use backrank_search::tablebase::TablebaseConfig;

    #[test]
    fn names_are_unique_and_defaults_are_valid() {
        let options: Vec<&EngineOption> = all().collect();
        for (i, option) in options.iter().enumerate() {
            assert!(options[..i].iter().all(|o| !o.spec.is_named(option.spec.name)), "{}", option.spec.name);
            if let Some(default) = option.spec.default_value() {
                let text = match &default {
                    OptionValue::Spin(v) => v.to_string(),
                    OptionValue::Check(b) => b.to_string(),
                    _ => String::new(),
                };
                if !text.is_empty() {
                    assert_eq!(option.spec.parse_value(Some(&text)).as_ref(), Ok(&default));
                }
            }
        }
        assert!(find("hash").is_some() && find("multipv").is_some() && find("Contempt").is_none());
    }

    #[test]
    fn the_search_crates_defaults_are_the_announced_ones() {
        // bench and datagen use the search's own defaults: they must be the
        // ones a GUI sees.
        let config = TablebaseConfig::default();
        let spin = |name| find(name).unwrap().spec.default_value().unwrap().spin();
        assert_eq!(i64::from(config.probe_depth), spin("SyzygyProbeDepth"));
        assert_eq!(config.probe_limit as i64, spin("SyzygyProbeLimit"));
        assert_eq!(
            Some(OptionValue::Check(config.fifty_move_rule)),
            find("Syzygy50MoveRule").unwrap().spec.default_value()
        );
    }
}

/// Run alone (`cargo test -p backrank --features spsa --lib -- spsa_`):
/// they change values that every search in the process reads.
#[cfg(all(test, feature = "spsa"))]
mod spsa_tests {
    use super::*;
    use backrank_search::params::{RFP_MARGIN, TUNABLES};

    #[test]
    fn spsa_tunables_are_listed_and_checked_as_options() {
        let listed: Vec<String> = all().map(|o| o.spec.to_string()).collect();
        assert_eq!(listed.len(), ENGINE_OPTIONS.len() + TUNABLES.len());
        let default = RFP_MARGIN.default;
        assert!(
            listed.contains(&format!("option name RFP_MARGIN type spin default {default} min 30 max 180"))
        );
        let row = find("rfp_margin").unwrap();
        let value = row.spec.parse_value(Some("120")).unwrap();
        assert_eq!(row.setting(&value), Setting::Tunable(RFP_MARGIN, 120));
        for refused in ["181", "29", "wide"] {
            assert!(row.spec.parse_value(Some(refused)).is_err(), "{refused}");
        }
    }
}
