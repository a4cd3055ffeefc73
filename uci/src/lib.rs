//! The UCI protocol, both directions, and nothing else.
//!
//! * [`Command`]: one line from the GUI, parsed and typed (`"go depth 5".parse()`).
//! * [`OptionSpec`]: one option's `option name ...` line, and the checking
//!   of a `setoption` value against it (names case-insensitive, values
//!   range-checked); the table of options is the engine's.
//! * [`notation`]: moves in and out, with Chess960 castling handled at this edge only.
//! * [`Info`] and [`BestMove`]: engine output, formatted by `Display`.
//!
//! This crate does no I/O and knows nothing of the search.

mod command;
pub mod notation;
pub mod options;
mod output;

pub use command::{Command, GoLimits, ParseCommandError, PositionStart};
pub use options::{OptionError, OptionKind, OptionSpec, OptionValue};
pub use output::{BestMove, Info, Score};
