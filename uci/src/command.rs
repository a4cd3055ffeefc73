//! GUI-to-engine commands.

use std::fmt;
use std::str::FromStr;

/// Where a `position` command starts from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PositionStart {
    /// `position startpos`: the standard initial position.
    StartPos,
    /// `position fen <FEN>`: the FEN text as given (Shredder-FEN, X-FEN or plain).
    Fen(String),
}

/// The arguments of `go`. Times are in milliseconds and may be zero or
/// negative (a GUI's clock can run below zero); the engine must still move.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GoLimits {
    pub wtime: Option<i64>,
    pub btime: Option<i64>,
    pub winc: Option<i64>,
    pub binc: Option<i64>,
    pub movestogo: Option<u32>,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub mate: Option<u32>,
    pub movetime: Option<i64>,
    pub infinite: bool,
    pub ponder: bool,
    /// Moves as the GUI wrote them; resolved against the position by the engine.
    pub searchmoves: Vec<String>,
    /// `go perft N`: count leaf nodes instead of searching.
    pub perft: Option<u32>,
}

/// One line from the GUI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Uci,
    Debug(bool),
    IsReady,
    /// `setoption name <id> [value <x>]`; the id may contain spaces.
    SetOption {
        name: String,
        value: Option<String>,
    },
    UciNewGame,
    Position {
        start: PositionStart,
        moves: Vec<String>,
    },
    Go(GoLimits),
    Stop,
    PonderHit,
    Quit,
    /// `d`: print the board and its FEN (not UCI, but every engine has it).
    Display,
    /// `eval`: print the static evaluation of the current position.
    Eval,
    /// `bench [depth]`: the fixed-depth benchmark (as the command line's).
    Bench(Option<u32>),
    /// `genfens N [seed S] [book <None|file>] [...]`: print N random
    /// openings as `info string genfens <FEN>` (OpenBench's datagen
    /// convention, which may append arguments of the user's own).
    GenFens {
        count: u64,
        seed: u64,
        /// An EPD or FEN file whose lines the openings start from.
        book: Option<String>,
        /// Arguments that are not `seed` or `book`, to be named and ignored.
        unknown: Vec<String>,
    },
}

/// Why a line is not a command. Its `Display` is meant for `info string`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseCommandError(pub String);

impl fmt::Display for ParseCommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ParseCommandError {}

fn error<T>(message: impl Into<String>) -> Result<T, ParseCommandError> {
    Err(ParseCommandError(message.into()))
}

impl FromStr for Command {
    type Err = ParseCommandError;

    fn from_str(line: &str) -> Result<Command, ParseCommandError> {
        let mut tokens = line.split_whitespace();
        let Some(head) = tokens.next() else {
            return error("empty line");
        };
        let rest: Vec<&str> = tokens.collect();
        let no_args = |command: Command| {
            if rest.is_empty() { Ok(command) } else { error(format!("'{head}' takes no arguments")) }
        };
        match head {
            "uci" => no_args(Command::Uci),
            "isready" => no_args(Command::IsReady),
            "ucinewgame" => no_args(Command::UciNewGame),
            "stop" => no_args(Command::Stop),
            "ponderhit" => no_args(Command::PonderHit),
            "quit" => no_args(Command::Quit),
            "d" => no_args(Command::Display),
            "eval" => no_args(Command::Eval),
            "debug" => match rest.as_slice() {
                ["on"] => Ok(Command::Debug(true)),
                ["off"] => Ok(Command::Debug(false)),
                _ => error("usage: debug on|off"),
            },
            "setoption" => parse_setoption(&rest),
            "position" => parse_position(&rest),
            "go" => parse_go(&rest).map(Command::Go),
            "genfens" => parse_genfens(&rest),
            "bench" => match rest.as_slice() {
                [] => Ok(Command::Bench(None)),
                [depth] => depth
                    .parse()
                    .map(|d| Command::Bench(Some(d)))
                    .map_err(|_| ParseCommandError("usage: bench [depth]".into())),
                _ => error("usage: bench [depth]"),
            },
            _ => error(format!("unknown command '{head}'")),
        }
    }
}

/// `genfens <count> [seed <n>] [book <None|file>]`, with any other
/// arguments kept aside: OpenBench appends a user's own to the line.
fn parse_genfens(args: &[&str]) -> Result<Command, ParseCommandError> {
    const USAGE: &str = "usage: genfens <count> [seed <n>] [book <None|file>]";
    let Some(count) = args.first().and_then(|n| n.parse().ok()) else { return error(USAGE) };
    let (mut seed, mut book, mut unknown) = (0, None, Vec::new());
    let mut rest = args[1..].iter();
    while let Some(&key) = rest.next() {
        match (key, rest.clone().next()) {
            ("seed", Some(n)) if n.parse::<u64>().is_ok() => {
                seed = n.parse().expect("checked");
                rest.next();
            }
            ("book", Some(&file)) => {
                book = (!file.eq_ignore_ascii_case("none")).then(|| file.to_string());
                rest.next();
            }
            _ => unknown.push(key.to_string()),
        }
    }
    Ok(Command::GenFens { count, seed, book, unknown })
}

fn parse_setoption(args: &[&str]) -> Result<Command, ParseCommandError> {
    if args.first() != Some(&"name") {
        return error("usage: setoption name <id> [value <x>]");
    }
    let value_at = args.iter().position(|&t| t == "value");
    let name_end = value_at.unwrap_or(args.len());
    let name = args[1..name_end].join(" ");
    if name.is_empty() {
        return error("setoption: missing option name");
    }
    let value = value_at.map(|i| args[i + 1..].join(" "));
    Ok(Command::SetOption { name, value })
}

fn parse_position(args: &[&str]) -> Result<Command, ParseCommandError> {
    let moves_at = args.iter().position(|&t| t == "moves");
    let head = &args[..moves_at.unwrap_or(args.len())];
    let moves = match moves_at {
        Some(i) => args[i + 1..].iter().map(|m| m.to_string()).collect(),
        None => Vec::new(),
    };
    let start = match head {
        ["startpos"] => PositionStart::StartPos,
        ["fen", fen @ ..] if !fen.is_empty() => PositionStart::Fen(fen.join(" ")),
        ["fen"] => return error("position fen: missing FEN"),
        _ => return error("usage: position startpos|fen <FEN> [moves ...]"),
    };
    Ok(Command::Position { start, moves })
}

fn number<T: FromStr>(name: &str, token: Option<&&str>) -> Result<T, ParseCommandError> {
    match token.map(|t| t.parse::<T>()) {
        Some(Ok(value)) => Ok(value),
        Some(Err(_)) => error(format!("go {name}: '{}' is not a valid number", token.unwrap())),
        None => error(format!("go {name}: missing value")),
    }
}

/// A clock value: accepts negative numbers, and clamps absurd ones rather
/// than rejecting the whole `go` (a GUI whose clock went below zero still
/// wants a move).
fn millis(name: &str, token: Option<&&str>) -> Result<i64, ParseCommandError> {
    number::<i128>(name, token).map(|v| v.clamp(i64::MIN as i128 / 2, i64::MAX as i128 / 2) as i64)
}

fn parse_go(args: &[&str]) -> Result<GoLimits, ParseCommandError> {
    let mut limits = GoLimits::default();
    let mut i = 0;
    while i < args.len() {
        let key = args[i];
        let value = args.get(i + 1);
        i += 2;
        match key {
            "wtime" => limits.wtime = Some(millis(key, value)?),
            "btime" => limits.btime = Some(millis(key, value)?),
            "winc" => limits.winc = Some(millis(key, value)?),
            "binc" => limits.binc = Some(millis(key, value)?),
            "movetime" => limits.movetime = Some(millis(key, value)?),
            "movestogo" => limits.movestogo = Some(number(key, value)?),
            "depth" => limits.depth = Some(number(key, value)?),
            "nodes" => limits.nodes = Some(number(key, value)?),
            "mate" => limits.mate = Some(number(key, value)?),
            "perft" => limits.perft = Some(number(key, value)?),
            "infinite" => {
                limits.infinite = true;
                i -= 1;
            }
            "ponder" => {
                limits.ponder = true;
                i -= 1;
            }
            "searchmoves" => {
                // searchmoves runs to the next keyword or the end of the line.
                i -= 1;
                while i < args.len() && !GO_KEYWORDS.contains(&args[i]) {
                    limits.searchmoves.push(args[i].to_string());
                    i += 1;
                }
            }
            _ => return error(format!("go: unknown parameter '{key}'")),
        }
    }
    Ok(limits)
}

const GO_KEYWORDS: &[&str] = &[
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "depth",
    "nodes",
    "mate",
    "movetime",
    "infinite",
    "ponder",
    "searchmoves",
    "perft",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Command {
        line.parse().unwrap_or_else(|e| panic!("{line}: {e}"))
    }

    #[test]
    fn simple_commands() {
        assert_eq!(parse("uci"), Command::Uci);
        assert_eq!(parse("  isready  "), Command::IsReady);
        assert_eq!(parse("ucinewgame"), Command::UciNewGame);
        assert_eq!(parse("stop"), Command::Stop);
        assert_eq!(parse("ponderhit"), Command::PonderHit);
        assert_eq!(parse("quit"), Command::Quit);
        assert_eq!(parse("d"), Command::Display);
        let genfens = |count, seed, book: Option<&str>, unknown: &[&str]| Command::GenFens {
            count,
            seed,
            book: book.map(String::from),
            unknown: unknown.iter().map(|s| s.to_string()).collect(),
        };
        assert_eq!(parse("genfens 10 seed 5 book None"), genfens(10, 5, None, &[]));
        assert_eq!(parse("genfens 3 book books/frc.epd seed 7"), genfens(3, 7, Some("books/frc.epd"), &[]));
        // Arguments of the user's own are kept aside, in order, and the rest still read.
        assert_eq!(
            parse("genfens 4 seed 9 book None depth 5 --fast"),
            genfens(4, 9, None, &["depth", "5", "--fast"])
        );
        assert_eq!(parse("genfens 2 seed x book None"), genfens(2, 0, None, &["seed", "x"]));
        assert!("genfens".parse::<Command>().is_err());
        assert!("genfens many".parse::<Command>().is_err());
        assert_eq!(parse("bench"), Command::Bench(None));
        assert_eq!(parse("bench 5"), Command::Bench(Some(5)));
        assert!("bench deep".parse::<Command>().is_err());
        assert_eq!(parse("debug on"), Command::Debug(true));
    }

    #[test]
    fn setoption_with_spaces_in_name_and_value() {
        assert_eq!(
            parse("setoption name Move Overhead value 30"),
            Command::SetOption { name: "Move Overhead".into(), value: Some("30".into()) }
        );
        assert_eq!(
            parse("setoption name Clear Hash"),
            Command::SetOption { name: "Clear Hash".into(), value: None }
        );
        assert_eq!(
            parse("setoption name SyzygyPath value /a b/c"),
            Command::SetOption { name: "SyzygyPath".into(), value: Some("/a b/c".into()) }
        );
        assert!("setoption value 3".parse::<Command>().is_err());
        assert!("setoption name".parse::<Command>().is_err());
    }

    /// Windows GUIs (and Wine) end lines with CR LF: the CR is whitespace
    /// to the tokenizer, so no command, option value or move keeps it.
    #[test]
    fn crlf_line_endings_parse_as_lf() {
        for line in [
            "uci",
            "isready",
            "setoption name Hash value 1024",
            "setoption name Clear Hash",
            r"setoption name SyzygyPath value C:\syzygy\345;D:\syzygy 6",
            "setoption name UCI_Chess960 value true",
            "position startpos moves e2e4 e7e5",
            "position fen bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9 moves g1f1",
            "go wtime 5000 btime 5000 winc 50 binc 50",
            "go depth 7",
            "bench 5",
            "quit",
        ] {
            assert_eq!(parse(&format!("{line}\r\n")), parse(line), "{line:?}");
            assert_eq!(parse(&format!("{line}\r")), parse(line), "{line:?}");
        }
        assert_eq!(
            parse("setoption name SyzygyPath value C:\\tb;D:\\tb\r\n"),
            Command::SetOption { name: "SyzygyPath".into(), value: Some("C:\\tb;D:\\tb".into()) }
        );
    }

    #[test]
    fn position_commands() {
        assert_eq!(
            parse("position startpos moves e2e4 e7e5"),
            Command::Position { start: PositionStart::StartPos, moves: vec!["e2e4".into(), "e7e5".into()] }
        );
        let fen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9";
        assert_eq!(
            parse(&format!("position fen {fen}")),
            Command::Position { start: PositionStart::Fen(fen.into()), moves: vec![] }
        );
        assert!("position".parse::<Command>().is_err());
        assert!("position fen".parse::<Command>().is_err());
        assert!("position somewhere".parse::<Command>().is_err());
    }

    #[test]
    fn go_with_clocks() {
        let Command::Go(limits) = parse("go wtime 1000 btime -50 winc 10 binc 0 movestogo 20") else {
            panic!()
        };
        assert_eq!(limits.wtime, Some(1000));
        assert_eq!(limits.btime, Some(-50));
        assert_eq!(limits.winc, Some(10));
        assert_eq!(limits.binc, Some(0));
        assert_eq!(limits.movestogo, Some(20));
        assert!(!limits.infinite);
    }

    #[test]
    fn go_flags_and_searchmoves() {
        let Command::Go(limits) = parse("go ponder searchmoves e2e4 d2d4 depth 7 infinite") else { panic!() };
        assert!(limits.ponder && limits.infinite);
        assert_eq!(limits.searchmoves, vec!["e2e4", "d2d4"]);
        assert_eq!(limits.depth, Some(7));
        let Command::Go(limits) = parse("go perft 5") else { panic!() };
        assert_eq!(limits.perft, Some(5));
        let Command::Go(limits) = parse("go") else { panic!() };
        assert_eq!(limits, GoLimits::default());
    }

    #[test]
    fn malformed_lines_are_errors() {
        for line in
            ["", "   ", "foo", "go depth", "go depth x", "go nodes -1", "go sideways 3", "isready now"]
        {
            assert!(line.parse::<Command>().is_err(), "{line:?} parsed");
        }
    }
}
