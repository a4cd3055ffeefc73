//! `backrank-train`: trains Backrank's NNUE on self-play positions.
//!
//! ```text
//! backrank-train data A.txt,B.txt out nets/v1.nnue [hidden 128] [buckets 1] [kingmirror 0|1] [kingbuckets 1|2|4]
//!     [epochs 20] [lambda 0.1] [lr 0.001] [wd 0.01] [batch 16384] [threads 2] [seed 1] [limit N]
//!     [valblock 2000] [valevery 20] [resume 0|1] [stop N] [mirror 0|1] [lrfloor 0.05] [minply 8] [qb 256] [scale 400]
//! backrank-train compare data A.txt,B.txt out nets/v1.nnue [samples 20000] [limit N]
//! backrank-train wdl A.bin[,B.pgn...]
//! ```
//!
//! Training writes the net to `out` and the checkpoint to `<out>.ckpt` after
//! every epoch; `resume 1` continues from the checkpoint, `stop N` ends after
//! N epochs of this call. `compare` evaluates validation positions with the
//! checkpoint's float model and with the quantised net as the engine loads
//! it, and prints how far apart they are. `wdl` fits the win/draw/loss
//! model of `UCI_ShowWDL` to the games' results and prints it.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use backrank_eval::nnue::{HIDDEN, Network};
use backrank_train::data::{self, Dataset};
use backrank_train::train::{self, Checkpoint, RunOptions, Settings};
use backrank_util::args::KeyValues;

const USAGE: &str = "usage: backrank-train [compare] data A.txt[,B.txt...] out NET [hidden 128] [buckets 1] [kingmirror 0|1] [kingbuckets 1|2|4] [epochs 20] \
[lambda 0.1] [lr 0.001] [wd 0.01] [batch 16384] [threads 2] [seed 1] [limit N] \
[valblock 2000] [valevery 20] [resume 0|1] [stop N] [samples 20000] [mirror 0|1] [lrfloor 0.05] \
[minply 8] [qb 256] [scale 400]";

const KEYS: &[&str] = &[
    "data",
    "out",
    "hidden",
    "buckets",
    "kingmirror",
    "kingbuckets",
    "epochs",
    "lambda",
    "lr",
    "wd",
    "batch",
    "threads",
    "seed",
    "limit",
    "valblock",
    "valevery",
    "resume",
    "stop",
    "samples",
    "mirror",
    "lrfloor",
    "minply",
    "qb",
    "scale",
];

/// The output scales (centipawns per unit) a run may use: the target's
/// sigmoid is flat beyond a few units, and the engine's output stays far
/// from overflow.
const SCALES: std::ops::RangeInclusive<u32> = 50..=1000;

/// The records, split, and the settings the arguments describe.
struct Setup {
    files: Vec<PathBuf>,
    out: PathBuf,
    data: Dataset,
    train: Vec<u32>,
    val: Vec<u32>,
    settings: Settings,
}

fn setup(args: &KeyValues) -> Result<Setup, String> {
    let d = Settings::default();
    let settings = Settings {
        hidden: args.get("hidden", d.hidden)?,
        buckets: args.get("buckets", d.buckets)?,
        king_mirror: args.get::<u8>("kingmirror", u8::from(d.king_mirror))? != 0,
        king_buckets: args.get("kingbuckets", d.king_buckets)?,
        epochs: args.get("epochs", d.epochs)?,
        lambda: args.get("lambda", d.lambda)?,
        lr: args.get("lr", d.lr)?,
        wd: args.get("wd", d.wd)?,
        batch: args.get("batch", d.batch)?,
        threads: args.get("threads", d.threads)?,
        seed: args.get("seed", d.seed)?,
        mirror: args.get::<u8>("mirror", u8::from(d.mirror))? != 0,
        lr_floor: args.get("lrfloor", d.lr_floor)?,
        qb: args.get("qb", d.qb)?,
        scale: args.get("scale", d.scale)?,
    };
    if !(SCALES).contains(&settings.scale) {
        return Err(format!("scale {}: {} to {}", settings.scale, SCALES.start(), SCALES.end()));
    }
    if !(1..=backrank_eval::nnue::format::MAX_QB).contains(&settings.qb) {
        return Err(format!("qb {}: 1 to {}", settings.qb, backrank_eval::nnue::format::MAX_QB));
    }
    if backrank_eval::nnue::KingBuckets::standard(settings.king_buckets).is_none() {
        return Err(format!("kingbuckets {}: 1, 2 or 4", settings.king_buckets));
    }
    if !(1..=backrank_eval::nnue::format::MAX_BUCKETS).contains(&settings.buckets) {
        return Err(format!(
            "buckets {}: 1 to {}",
            settings.buckets,
            backrank_eval::nnue::format::MAX_BUCKETS
        ));
    }
    let files: Vec<PathBuf> =
        args.text("data").ok_or(USAGE)?.split(',').filter(|f| !f.is_empty()).map(PathBuf::from).collect();
    let out = PathBuf::from(args.text("out").ok_or(USAGE)?);
    let limit = args.text("limit").map(|_| args.get("limit", 0usize)).transpose()?;
    let filter = backrank_data::Filter { min_ply: args.get("minply", 8usize)?, ..Default::default() };
    let data = data::load(&files, limit, &filter, settings.threads, &mut std::io::stdout())?;
    let (train, val) = data::split(&data, args.get("valblock", 2000)?, args.get("valevery", 20)?);
    println!(
        "{} records: {} train, {} validation, {} filtered (bad, in check or |score| >= {})",
        data.len(),
        train.len(),
        val.len(),
        data.len() - train.len() - val.len(),
        data::SCORE_LIMIT
    );
    Ok(Setup { files, out, data, train, val, settings })
}

fn compare(setup: &Setup, samples: usize, model: &backrank_train::model::Model) -> Result<(), String> {
    if model.hidden != HIDDEN {
        println!("compare: hidden {} is not the engine's {HIDDEN}; skipped", model.hidden);
        return Ok(());
    }
    let net = Network::load(&setup.out.to_string_lossy())?;
    let step = setup.val.len().div_ceil(samples.max(1)).max(1);
    let picked: Vec<u32> = setup.val.iter().step_by(step).copied().collect();
    let c = train::compare(model, &net, &setup.data, &picked);
    println!(
        "compare: {} validation positions, quantised - float: mean |diff| {:.2} cp, max {:.2} cp (mean |eval| {:.1} cp)",
        c.count, c.mean_abs, c.max_abs, c.mean_abs_eval
    );
    Ok(())
}

fn main_result() -> Result<(), String> {
    let mut raw: Vec<String> = std::env::args().skip(1).collect();
    if let [mode, data] = raw.as_slice()
        && mode == "wdl"
    {
        return backrank_train::wdl::fit_and_report(data, &mut std::io::stdout()).map(|_| ());
    }
    let comparing = raw.first().is_some_and(|a| a == "compare");
    if comparing {
        raw.remove(0);
    }
    let args = KeyValues::parse(&raw, KEYS, USAGE)?;
    let setup = setup(&args)?;
    let samples = args.get("samples", 20_000usize)?;
    if comparing {
        let path = train::checkpoint_path(&setup.out);
        let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        return compare(&setup, samples, &Checkpoint::from_bytes(&bytes)?.model);
    }
    let options = RunOptions {
        resume: args.get("resume", 0u8)? != 0,
        stop_after: args.text("stop").map(|_| args.get("stop", 0usize)).transpose()?,
    };
    let s = &setup.settings;
    println!("training {s}");
    let outcome =
        train::run(s, &setup.data, &setup.train, &setup.val, &setup.out, options, &mut std::io::stdout())?;
    compare(&setup, samples.min(5000), &outcome.model)?;
    let names: Vec<String> = setup.files.iter().map(|f| f.display().to_string()).collect();
    println!(
        "record: net {} data {} train {} val {} epochs done {} {s} train_loss {:.6} val_loss {:.6} pos/s {:.0}",
        setup.out.display(),
        names.join(","),
        setup.train.len(),
        setup.val.len(),
        outcome.epochs_done,
        outcome.train_loss,
        outcome.val_loss,
        outcome.positions_per_second
    );
    std::io::stdout().flush().map_err(|e| e.to_string())
}

fn main() -> ExitCode {
    match main_result() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
