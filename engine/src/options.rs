//! The engine's UCI options, each declared once: its name, type, default
//! and bounds (what `uci` announces, through [`OptionSpec`]'s `Display`),
//! and how the engine applies a value. [`crate::engine::Engine::new`]
//! applies every default from this table, so what is announced is what is
//! in force.
//!
//! In the `spsa` build every search tunable is a row of the same table
//! (a spin over its range), so that `uci` lists it and `setoption` checks
//! and applies it like any other option.
//!
//! A new option is one row here, and the field that it sets (in
//! [`crate::engine::Settings`], or the search's
//! [`backrank_search::SearchOptions`], which every search reads whole).

use backrank_uci::{OptionKind, OptionSpec, OptionValue};

use crate::engine::Engine;
use crate::strength;

/// Hash table size in MB, announced and accepted up to 1 TB.
pub const MAX_HASH_MB: i64 = 1 << 20;
/// The most search threads accepted.
pub const MAX_THREADS: i64 = 1024;

/// One option: its declaration, and what setting it does.
pub struct EngineOption {
    pub spec: OptionSpec,
    /// Whether it changes the search's state (table, threads, network,
    /// tablebases, tunables), so that it must wait until no search runs.
    pub needs_idle: bool,
    pub action: Action,
}

/// What setting an option does.
#[derive(Clone, Copy)]
pub enum Action {
    /// Applies a checked value; `Some(text)` is said as `info string`.
    Engine(fn(&mut Engine, &OptionValue) -> Option<String>),
    /// Sets a search tunable (the `spsa` build).
    #[cfg(feature = "spsa")]
    Tunable(backrank_search::params::Tunable),
}

impl EngineOption {
    /// Applies a value that [`OptionSpec::parse_value`] has checked.
    pub fn apply(&self, engine: &mut Engine, value: &OptionValue) -> Option<String> {
        match self.action {
            Action::Engine(apply) => apply(engine, value),
            #[cfg(feature = "spsa")]
            Action::Tunable(tunable) => {
                tunable.set(value.spin() as i32);
                None
            }
        }
    }
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
        spec: spin("Hash", 16, 1, MAX_HASH_MB),
        needs_idle: true,
        action: Action::Engine(|e, v| e.resize_hash(v.spin() as usize)),
    },
    EngineOption {
        spec: spin("Threads", 1, 1, MAX_THREADS),
        needs_idle: true,
        action: Action::Engine(|e, v| {
            e.search().set_threads(v.spin() as usize);
            None
        }),
    },
    EngineOption {
        spec: OptionSpec { name: "Clear Hash", kind: OptionKind::Button },
        needs_idle: true,
        action: Action::Engine(|e, _| {
            e.search().clear();
            None
        }),
    },
    EngineOption { spec: check("Ponder", false), needs_idle: false, action: Action::Engine(|_, _| None) },
    EngineOption {
        spec: check("UCI_Chess960", false),
        needs_idle: false,
        action: Action::Engine(|e, v| {
            e.settings.chess960 = v.check();
            None
        }),
    },
    EngineOption {
        spec: spin("Move Overhead", 10, 0, 5000),
        needs_idle: false,
        action: Action::Engine(|e, v| {
            e.settings.search.move_overhead_ms = v.spin() as u64;
            None
        }),
    },
    EngineOption {
        spec: spin("MultiPV", 1, 1, 256),
        needs_idle: false,
        action: Action::Engine(|e, v| {
            e.settings.search.multipv = v.spin() as usize;
            None
        }),
    },
    EngineOption {
        spec: check("UCI_ShowWDL", false),
        needs_idle: false,
        action: Action::Engine(|e, v| {
            e.settings.show_wdl = v.check();
            None
        }),
    },
    EngineOption {
        spec: check("UCI_LimitStrength", false),
        needs_idle: false,
        action: Action::Engine(|e, v| {
            e.settings.strength.limit = v.check();
            None
        }),
    },
    EngineOption {
        spec: spin("UCI_Elo", strength::DEFAULT_ELO, strength::MIN_ELO, strength::MAX_ELO),
        needs_idle: false,
        action: Action::Engine(|e, v| {
            e.settings.strength.elo = v.spin();
            None
        }),
    },
    EngineOption {
        spec: spin("Skill Level", 20, 0, 20),
        needs_idle: false,
        action: Action::Engine(|e, v| {
            e.settings.strength.skill = v.spin();
            None
        }),
    },
    EngineOption {
        spec: string("EvalFile"),
        needs_idle: true,
        action: Action::Engine(|e, v| e.load_network(v.text())),
    },
    EngineOption {
        spec: string("SyzygyPath"),
        needs_idle: true,
        action: Action::Engine(|e, v| e.load_tablebases(v.text())),
    },
    EngineOption {
        spec: spin("SyzygyProbeDepth", 1, 1, 100),
        needs_idle: true,
        action: Action::Engine(|e, v| {
            e.search().tablebase_config().probe_depth = v.spin() as i32;
            None
        }),
    },
    EngineOption {
        spec: check("Syzygy50MoveRule", true),
        needs_idle: true,
        action: Action::Engine(|e, v| {
            e.search().tablebase_config().fifty_move_rule = v.check();
            None
        }),
    },
    EngineOption {
        spec: spin("SyzygyProbeLimit", 7, 0, 7),
        needs_idle: true,
        action: Action::Engine(|e, v| {
            e.search().tablebase_config().probe_limit = v.spin() as usize;
            None
        }),
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
        assert_eq!(spin("Hash") as usize, crate::engine::DEFAULT_HASH_MB);
    }
}

/// Run alone (`cargo test -p backrank --features spsa --lib -- spsa_`):
/// they change values that every search in the process reads.
#[cfg(all(test, feature = "spsa"))]
mod spsa_tests {
    use super::*;
    use backrank_search::params::{RFP_MARGIN, TUNABLES};

    #[test]
    fn spsa_tunables_are_listed_set_and_checked_as_options() {
        let listed: Vec<String> = all().map(|o| o.spec.to_string()).collect();
        assert_eq!(listed.len(), ENGINE_OPTIONS.len() + TUNABLES.len());
        assert!(listed.contains(&"option name RFP_MARGIN type spin default 90 min 30 max 180".to_string()));
        let mut engine = Engine::new();
        assert_eq!(engine.set_option("rfp_margin", Some("120")), Ok(None));
        assert_eq!(RFP_MARGIN.get(), 120);
        for refused in ["181", "29", "wide"] {
            assert!(engine.set_option("RFP_MARGIN", Some(refused)).is_err(), "{refused}");
        }
        assert_eq!(RFP_MARGIN.get(), 120);
        assert_eq!(engine.set_option("RFP_MARGIN", Some("90")), Ok(None));
        assert_eq!(RFP_MARGIN.get(), RFP_MARGIN.default);
    }
}
