//! `backrank`: with no arguments, a UCI engine on stdin/stdout. Subcommands:
//! `--version`, `bench [depth]`, `perft "<FEN>" <depth>`, `frc <n> [<m>] | frc random`,
//! `datagen [key value]...` (see [`backrank::datagen`]), `rescore [key
//! value]...` (see [`backrank::rescore`]). Any other
//! arguments are UCI input, one line each, read before stdin (OpenBench's
//! `backrank "genfens 10 seed 1 book None" quit`).

use std::process::ExitCode;

use backrank::controller::{Controller, send};
use backrank::engine::Engine;
use backrank::{ENGINE_NAME, bench, datagen, frc, rescore};
use backrank_uci::notation::{parse_fen, shredder_fen, x_fen};
use backrank_util::rng::SplitMix;

/// Before anything else the binary compiled runs: whether this CPU has the
/// instructions the build was compiled for (see [`backrank::cpu`]); if not,
/// it says which build to use and exits.
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
#[used]
#[unsafe(link_section = ".preinit_array")]
static CPU_CHECK: extern "C" fn() = backrank::cpu::check;
#[cfg(all(target_arch = "x86_64", windows))]
#[used]
#[unsafe(link_section = ".CRT$XCAA")]
static CPU_CHECK: extern "C" fn() = backrank::cpu::check;

const USAGE: &str = "usage: backrank [--version | bench [depth] | perft \"<FEN>\" <depth> | frc <n> [<m>] | frc random | datagen ... | rescore ... | spsa]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.as_slice() {
        [] => {
            Controller::new().run(std::io::stdin().lock());
            Ok(())
        }
        ["--version"] => {
            send(&version());
            Ok(())
        }
        ["bench"] => bench::run(&mut Engine::new(), bench::DEFAULT_DEPTH, send),
        ["bench", depth] => {
            depth.parse().map_err(|_| USAGE.to_string()).and_then(|d| bench::run(&mut Engine::new(), d, send))
        }
        ["perft", fen, depth] => run_perft(fen, depth),
        ["frc", "random"] => print_frc(SplitMix::from_clock().below(u64::from(frc::COUNT)) as u32, None),
        ["frc", n] => print_frc_args(n, None),
        ["frc", n, m] => print_frc_args(n, Some(m)),
        ["spsa"] => print_spsa(),
        ["datagen", rest @ ..] => datagen::Config::parse(rest).and_then(|config| datagen::run(&config)),
        ["rescore", rest @ ..] => rescore::Config::parse(rest).and_then(|config| rescore::run(&config)),
        lines => {
            let script: String = lines.iter().map(|line| format!("{line}\n")).collect();
            Controller::new().run(std::io::Read::chain(script.as_bytes(), std::io::stdin().lock()));
            Ok(())
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

/// `backrank --version`: the name as `uci` gives it, then the target and
/// the CPU level the build needs, e.g. `Backrank 0.2.0 (8909c38) linux
/// x86-64-v3`.
fn version() -> String {
    #[cfg(target_arch = "x86_64")]
    let level = backrank::cpu::build_level();
    #[cfg(not(target_arch = "x86_64"))]
    let level = std::env::consts::ARCH;
    format!("{ENGINE_NAME} {} {level}", std::env::consts::OS)
}

/// `backrank spsa`: the tunables in OpenBench's SPSA input format.
fn print_spsa() -> Result<(), String> {
    if !cfg!(feature = "spsa") {
        return Err(
            "built without the spsa feature: cargo build --release -p backrank --features spsa".into()
        );
    }
    for t in backrank_search::params::TUNABLES {
        send(&t.spsa_line());
    }
    Ok(())
}

fn run_perft(fen: &str, depth: &str) -> Result<(), String> {
    let depth: u32 = depth.parse().map_err(|_| USAGE.to_string())?;
    let pos = if fen == "startpos" { shakmaty::Chess::default() } else { parse_fen(fen)? };
    let mut engine = Engine::new();
    engine.set_option("UCI_Chess960", Some("true"))?;
    engine.set_root(pos);
    for line in engine.perft(depth) {
        send(&line);
    }
    Ok(())
}

fn print_frc_args(white: &str, black: Option<&str>) -> Result<(), String> {
    let number =
        |s: &str| s.parse::<u32>().map_err(|_| format!("'{s}' is not a start position number (0-959)"));
    print_frc(number(white)?, black.map(number).transpose()?)
}

fn print_frc(white: u32, black: Option<u32>) -> Result<(), String> {
    let black = black.unwrap_or(white);
    let pos = frc::position(white, black).ok_or("start positions are numbered 0 to 959")?;
    send(&shredder_fen(&pos));
    send(&x_fen(&pos));
    Ok(())
}
