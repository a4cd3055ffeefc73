//! `tune`: fits the evaluation's weights to self-play data (Texel's
//! method: logistic regression of game results, here blended with the
//! search's scores) and writes them back to `eval/src/weights.rs`.
//!
//! ```text
//! cargo run --release -p backrank-tune -- <data> [epochs N] [rate R] [lambda L] [l2 X] [limit N] [out FILE]
//! ```
//!
//! `<data>` holds `backrank datagen` lines. One stretch of 2000 positions
//! in ten (whole games, which datagen writes together) is kept out of
//! training to measure the loss on games the fit did not see.
//!
//! `tune wdl <data>` instead fits the win/draw/loss model of `UCI_ShowWDL`
//! (see [`wdl`]) and prints its parameters.

mod data;
mod model;
mod wdl;
mod writer;

use std::process::ExitCode;
use std::time::Instant;

use backrank_eval::Tapered;
use backrank_util::args::KeyValues;
use shakmaty::Chess;

use data::Dataset;
use model::{Settings, current_weights, fit_k, loss, train};

const USAGE: &str = "usage: tune <data> [epochs N] [rate R] [lambda L] [l2 X] [limit N] [out FILE]";

struct Options {
    data: String,
    epochs: usize,
    rate: f64,
    lambda: f64,
    l2: f64,
    limit: usize,
    out: String,
}

fn parse_args(args: &[String]) -> Result<Options, String> {
    let (data, rest) = args.split_first().ok_or(USAGE)?;
    let keys = ["epochs", "rate", "lambda", "l2", "limit", "out"];
    let args = KeyValues::parse(rest, &keys, USAGE)?;
    Ok(Options {
        data: data.clone(),
        epochs: args.get("epochs", 1000)?,
        rate: args.get("rate", 1.0)?,
        lambda: args.get("lambda", 0.5)?,
        l2: args.get("l2", 1e-8)?,
        limit: args.get("limit", usize::MAX)?,
        out: args.text("out").unwrap_or("eval/src/weights.rs").to_string(),
    })
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let outcome = match args.as_slice() {
        [mode, data] if mode == "wdl" => fit_wdl(data),
        _ => parse_args(&args).and_then(|options| run(&options)),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

fn run(options: &Options) -> Result<(), String> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let start = Instant::now();
    let text = std::fs::read_to_string(&options.data).map_err(|e| format!("{}: {e}", options.data))?;
    let lines: Vec<&str> = text.lines().take(options.limit).collect();
    let (set, bad) = Dataset::from_lines(&lines, threads);
    // Datagen writes a game's positions together: hold out whole stretches
    // of 2000 positions (a few dozen games each), one in ten.
    let (train_set, check_set) = set.split_blocks(2000, 10);
    println!(
        "{} positions ({} unreadable lines): {} to train, {} to check; {:.1} s",
        lines.len() - bad,
        bad,
        train_set.samples.len(),
        check_set.samples.len(),
        start.elapsed().as_secs_f64()
    );
    let mut weights = current_weights();
    let k = fit_k(&train_set, &weights, threads);
    let settings = Settings { k, lambda: options.lambda, l2: options.l2, threads };
    let report = |label: &str, weights: &model::Weights| {
        println!(
            "{label}: loss {:.6} (train) {:.6} (check)",
            loss(&train_set, weights, &settings),
            loss(&check_set, weights, &settings)
        );
    };
    println!("k = {k:.6} (fitted to the results), lambda = {}", options.lambda);
    report("before", &weights);
    let before = (loss(&train_set, &weights, &settings), loss(&check_set, &weights, &settings));
    train(&train_set, &mut weights, &settings, options.epochs, options.rate, 100, |epoch, w| {
        report(&format!("epoch {epoch:5}"), w);
    });
    let after = (loss(&train_set, &weights, &settings), loss(&check_set, &weights, &settings));
    let rounded: Vec<Tapered> =
        weights.iter().map(|[mg, eg]| Tapered::new(mg.round() as i32, eg.round() as i32)).collect();
    let origin = if options.epochs == 0 {
        "Not fitted yet: the hand-set weights of eval v2, written by `tune` with `epochs 0`.".to_string()
    } else {
        format!(
            "Fitted to {} positions of `{}` ({} epochs, rate {}, lambda {}, l2 {}, k {:.6}).\n\
         Loss before {:.6} / {:.6}, after {:.6} / {:.6} (train / check).",
            train_set.samples.len(),
            file_name(&options.data),
            options.epochs,
            options.rate,
            options.lambda,
            options.l2,
            k,
            before.0,
            before.1,
            after.0,
            after.1
        )
    };
    std::fs::write(&options.out, writer::weights_source(&rounded, &origin))
        .map_err(|e| format!("{}: {e}", options.out))?;
    println!("wrote {} in {:.1} s", options.out, start.elapsed().as_secs_f64());
    Ok(())
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Every fourth position (plenty, and the fit stays quick) of the files
/// `data` (comma-separated): text lines, or whole games (`.bin`, `.pgn`),
/// whose decided and opening positions are left out.
fn wdl_points(data: &str) -> Result<Vec<wdl::Point>, String> {
    let mut points = Vec::new();
    for path in data.split(',').map(std::path::Path::new) {
        let mut samples: Vec<(Chess, f64, f64)> = Vec::new();
        if backrank_data::is_game_file(path) {
            let filter = backrank_data::Filter::default();
            for game in backrank_data::read_games(path)?.map_while(Result::ok) {
                samples.extend(
                    game.samples()
                        .filter(|s| filter.keeps(s))
                        .map(|s| (s.position, f64::from(s.score), f64::from(s.outcome.white_score()))),
                );
            }
        } else {
            let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            samples.extend(text.lines().filter_map(data::parse_line));
        }
        points.extend(samples.iter().step_by(4).map(|(pos, score, result)| wdl::Point {
            score: *score,
            material: wdl::material(pos),
            result: *result,
        }));
    }
    Ok(points)
}

/// `tune wdl <data>`: fits and prints the win/draw/loss model.
fn fit_wdl(data: &str) -> Result<(), String> {
    let points = wdl_points(data)?;
    let start = [100.0, 0.0, 100.0, 0.0];
    println!("{} positions; cost {:.5} at the start", points.len(), wdl::cost(&start, &points));
    let params = wdl::fit(&points, start, 600);
    println!(
        "cost {:.5}: a0 {:.1} a1 {:.1} b0 {:.1} b1 {:.1}",
        wdl::cost(&params, &points),
        params[0],
        params[1],
        params[2],
        params[3]
    );
    for material in [16.0, 40.0, 78.0] {
        for score in [0.0, 50.0, 100.0, 200.0, 400.0] {
            let [w, d, l] = wdl::wdl(&params, score, material);
            println!(
                "material {material:2}, {score:3} cp: win {:.0} draw {:.0} loss {:.0} per mille",
                w * 1000.0,
                d * 1000.0,
                l * 1000.0
            );
        }
    }
    Ok(())
}
