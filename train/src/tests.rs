//! The trainer's tests: the gradient against finite differences, learning
//! on a synthetic set, the quantised export against the float model through
//! the engine's loader, data parsing and loading, and checkpoint/resume.
//!
//! The synthetic positions come from random legal games (standard and
//! Chess960 starts), labelled with a made-up evaluation: material plus a
//! bonus for advanced pawns.

use std::fmt::Write as _;
use std::path::PathBuf;

use backrank_eval::nnue::format::{QA, QB};
use backrank_eval::nnue::{HIDDEN, INPUTS, KingBuckets, Network, feature};
use backrank_util::rng::SplitMix;
use shakmaty::fen::Fen;
use shakmaty::{Board, Color, EnPassantMode, Piece, Position, Role, Square};

use crate::data::{self, Dataset, FLAG_BAD, FLAG_BLACK, FLAG_CHECK, Target};
use crate::model::{Model, Scratch, accumulate_gradient, loss_sum, mirror};
use crate::train::{self, Checkpoint, RunOptions, Settings};

const STARTS: [&str; 4] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "nrbkqbrn/pppppppp/8/8/8/8/PPPPPPPP/NRBKQBRN w GBgb - 0 1",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    "1r2k1r1/pbppnp1p/1b3P2/8/Q7/B1PB1q2/P4PPP/3RK1R1 w GDgb - 0 1",
];

/// An empty scratch folder for one test, removed when the test ends.
fn temp_dir(name: &str) -> ScratchDir {
    ScratchDir::new(&format!("train-{name}"))
}

use backrank_util::position;
use backrank_util::scratch::ScratchDir;

/// The made-up label: material and pawn advancement, White's view.
fn label(board: &Board) -> i32 {
    board
        .iter()
        .map(|(square, piece)| {
            let value = match piece.role {
                Role::Pawn => {
                    let rank = square.rank() as i32;
                    100 + 8 * if piece.color == Color::White { rank - 1 } else { 6 - rank }
                }
                Role::Knight => 300,
                Role::Bishop => 320,
                Role::Rook => 500,
                Role::Queen => 900,
                Role::King => 0,
            };
            if piece.color == Color::White { value } else { -value }
        })
        .sum()
}

/// `count` text lines from random games.
fn synthetic_lines(count: usize, seed: u64) -> String {
    let mut rng = SplitMix(seed);
    let mut out = String::new();
    let mut lines = 0;
    while lines < count {
        let mut pos = position(STARTS[rng.below(STARTS.len() as u64) as usize]);
        for _ in 0..60 {
            let moves = pos.legal_moves();
            if moves.is_empty() || lines == count {
                break;
            }
            pos.play_unchecked(moves[rng.below(moves.len() as u64) as usize]);
            let score = label(pos.board());
            let result = if score > 150 {
                "1.0"
            } else if score < -150 {
                "0.0"
            } else {
                "0.5"
            };
            writeln!(out, "{} | {score} | {result}", Fen::from_position(&pos, EnPassantMode::Legal)).unwrap();
            lines += 1;
        }
    }
    out
}

fn usable(data: &Dataset) -> Vec<u32> {
    (0..data.len()).filter(|&i| data.usable(i)).map(|i| i as u32).collect()
}

#[test]
fn mirror_gives_blacks_feature() {
    for color in Color::ALL {
        for role in Role::ALL {
            for square in Square::ALL {
                let piece = Piece { color, role };
                assert_eq!(
                    mirror(feature(Color::White, piece, square)),
                    feature(Color::Black, piece, square)
                );
            }
        }
    }
}

/// The king buckets (own view, as `Network::view` finds them) that the
/// kings of a position with these features stand in, White's then Black's.
fn king_buckets_of(features: &[u16], layout: KingBuckets, king_mirrored: bool) -> [usize; 2] {
    let board = data::board_of(features);
    Color::ALL.map(|color| {
        let king = board.king_of(color).expect("a king") as usize;
        let own = if color == Color::White { king } else { king ^ 56 };
        layout.of(if king_mirrored && own % 8 >= 4 { own ^ 7 } else { own })
    })
}

/// The analytic gradient of a random model with `buckets` output buckets
/// and `kings` king buckets against finite differences, on a sample of
/// weights of every kind.
fn check_gradient(buckets: usize, king_mirrored: bool, kings: usize) {
    let data = data::parse_text(synthetic_lines(12, 3).as_bytes(), 1);
    let indices = usable(&data);
    assert!(indices.len() >= 8);
    let hidden = 8;
    let layout = KingBuckets::standard(kings).unwrap();
    let mut model = Model { king_mirrored, ..Model::random(hidden, buckets, layout, 5) };
    // Larger output weights and a positive bias, so that every tensor matters.
    let (bias, output) = (model.bias_at(), model.output_at());
    model.params[bias..output].iter_mut().enumerate().for_each(|(k, b)| *b = 0.1 + 0.05 * k as f32);
    model.params[output..].iter_mut().for_each(|w| *w *= 20.0);
    let target = Target { lambda: 0.3, scale: 250.0 };
    let n = indices.len();
    let mut grad = vec![0.0; model.params.len()];
    accumulate_gradient(
        &model,
        &data,
        &indices,
        target,
        1.0 / n as f32,
        &mut grad,
        &mut Scratch::new(hidden),
    );
    let loss = |m: &Model| loss_sum(m, &data, &indices, target, &mut Scratch::new(hidden)) / n as f64;

    let active = usize::from(data.features_of(indices[0] as usize)[0]);
    // The rows a feature can reach: either side's, files flipped too when
    // the inputs are king-mirrored, in every king bucket.
    let rows = |f: usize| {
        let mut rows = vec![f, mirror(f)];
        if king_mirrored {
            rows.extend([f ^ 7, mirror(f) ^ 7]);
        }
        (0..kings).flat_map(|k| rows.iter().map(move |r| k * INPUTS + r)).collect::<Vec<_>>()
    };
    // A row no position touches, from either side.
    let inactive = (0..kings * INPUTS)
        .find(|&f| data.features.iter().all(|&x| !rows(usize::from(x)).contains(&f)))
        .unwrap();
    let mut picks: Vec<usize> = Vec::new();
    for row in rows(active) {
        picks.extend((0..hidden).step_by(3).map(|k| row * hidden + k));
    }
    picks.extend((0..hidden).step_by(2).map(|k| bias + k));
    picks.extend((0..2 * hidden * buckets).step_by(3).map(|k| output + k));
    picks.extend((0..buckets).map(|k| model.output_bias_at() + k));
    let mut nontrivial = 0;
    for p in picks {
        // Small, so that no accumulator crosses a kink of the clamp.
        let eps = 1e-4f32;
        let (mut plus, mut minus) = (model.clone(), model.clone());
        plus.params[p] += eps;
        minus.params[p] -= eps;
        let numeric = (loss(&plus) - loss(&minus)) / (2.0 * f64::from(eps));
        let analytic = f64::from(grad[p]);
        let tolerance = 0.02 * numeric.abs().max(analytic.abs()) + 2e-6;
        assert!(
            (numeric - analytic).abs() <= tolerance,
            "weight {p}: numeric {numeric}, analytic {analytic}"
        );
        if analytic.abs() > 1e-4 {
            nontrivial += 1;
        }
    }
    assert!(nontrivial >= 12, "only {nontrivial} weights had a gradient");
    assert!(grad[inactive * hidden..(inactive + 1) * hidden].iter().all(|&g| g == 0.0));
    // Each bucket's output weights learn from its own positions only.
    for k in 0..buckets {
        let used = indices.iter().any(|&i| model.bucket(data.features_of(i as usize)) == k);
        let weights = &grad[output + 2 * hidden * k..][..2 * hidden];
        assert_eq!(weights.iter().any(|&g| g != 0.0), used, "bucket {k}");
        assert_eq!(grad[model.output_bias_at() + k] != 0.0, used, "bucket {k}'s bias");
    }
    // Each king bucket's rows learn from the perspectives whose king
    // stands in it, and only from those.
    let block = INPUTS * hidden;
    for k in 0..kings {
        let used = indices
            .iter()
            .any(|&i| king_buckets_of(data.features_of(i as usize), layout, king_mirrored).contains(&k));
        assert_eq!(grad[k * block..(k + 1) * block].iter().any(|&g| g != 0.0), used, "king bucket {k}");
    }
    if kings > 1 {
        let used = (0..kings).filter(|&k| grad[k * block..(k + 1) * block].iter().any(|&g| g != 0.0));
        assert!(used.count() >= 2, "the positions stand in one king bucket: the test proves little");
    }
}

#[test]
fn the_gradient_matches_finite_differences() {
    check_gradient(1, false, 1);
}

#[test]
fn the_gradient_matches_finite_differences_with_output_buckets() {
    check_gradient(8, false, 1);
}

#[test]
fn the_gradient_matches_finite_differences_with_king_mirrored_inputs() {
    check_gradient(8, true, 1);
}

#[test]
fn the_gradient_matches_finite_differences_with_king_buckets() {
    check_gradient(8, true, 2);
    check_gradient(1, false, 4);
}

#[test]
fn threads_split_the_batch_without_changing_the_gradient() {
    let data = data::parse_text(synthetic_lines(200, 4).as_bytes(), 2);
    let indices = usable(&data);
    let model = Model::random(16, 1, KingBuckets::ONE, 9);
    let mut one = vec![vec![0.0; model.params.len()]];
    let mut three = vec![vec![1.0; model.params.len()]; 3];
    let loss_one =
        train::batch_gradient(&model, &data, &indices, Target { lambda: 0.2, scale: 400.0 }, &mut one);
    let loss_three =
        train::batch_gradient(&model, &data, &indices, Target { lambda: 0.2, scale: 400.0 }, &mut three);
    assert!((loss_one - loss_three).abs() < 1e-9 * loss_one.abs());
    let biggest = one[0].iter().fold(0f32, |m, g| m.max(g.abs()));
    assert!(biggest > 1e-3);
    for (a, b) in one[0].iter().zip(&three[0]) {
        assert!((a - b).abs() <= 1e-5 * biggest, "{a} vs {b}");
    }
}

#[test]
fn training_lowers_the_loss() {
    let dir = temp_dir("learn");
    let text = dir.join("synthetic.txt");
    std::fs::write(&text, synthetic_lines(1500, 21)).unwrap();
    let filter = backrank_data::Filter::default();
    let data = data::load(std::slice::from_ref(&text), None, &filter, 2, &mut std::io::sink()).unwrap();
    // Validation on every fifth position: with a few dozen random games,
    // whole held-out games share too few piece-squares with the rest to
    // show generalisation (the real data's game blocks do, see the report).
    let (train_set, val) = data::split(&data, 1, 5);
    assert!(val.len() > 250 && train_set.len() > 1000);
    let settings = Settings {
        hidden: 16,
        epochs: 12,
        lambda: 0.5,
        lr: 0.01,
        batch: 64,
        threads: 2,
        ..Settings::default()
    };
    let start = Model::random(16, 1, KingBuckets::ONE, settings.seed);
    let (train_before, val_before) = (
        train::mean_loss(&start, &data, &train_set, settings.target(), 2),
        train::mean_loss(&start, &data, &val, settings.target(), 2),
    );
    let out = dir.join("net.nnue");
    let outcome =
        train::run(&settings, &data, &train_set, &val, &out, RunOptions::default(), &mut std::io::sink())
            .unwrap();
    assert_eq!(outcome.epochs_done, 12);
    assert!(outcome.train_loss < 0.5 * train_before, "{train_before} -> {}", outcome.train_loss);
    assert!(outcome.val_loss < 0.7 * val_before, "{val_before} -> {}", outcome.val_loss);
    assert!(outcome.positions_per_second > 0.0);
}

/// The float `model` with its weights rounded as the export rounds them.
fn dequantised(model: &Model) -> Model {
    let q = model.quantise();
    let mut d = model.clone();
    let output = model.output_at();
    for (w, &x) in d.params.iter_mut().zip(q.feature_weights.iter().chain(&q.feature_bias)) {
        *w = f32::from(x) / QA as f32;
    }
    for (w, &x) in d.params[output..].iter_mut().zip(&q.output_weights) {
        *w = f32::from(x) / q.qb as f32;
    }
    for (w, &x) in d.params[model.output_bias_at()..].iter_mut().zip(&q.output_bias) {
        *w = x as f32 / (QA * q.qb as i32) as f32;
    }
    d
}

#[test]
fn the_quantised_export_evaluates_like_the_float_model() {
    check_export(1, false, 1, QB as u32, 400);
}

#[test]
fn the_quantised_export_with_output_buckets_evaluates_like_the_float_model() {
    check_export(8, false, 1, QB as u32, 400);
}

#[test]
fn the_quantised_export_with_king_mirrored_inputs_evaluates_like_the_float_model() {
    check_export(8, true, 1, QB as u32, 400);
}

#[test]
fn the_quantised_export_with_king_buckets_evaluates_like_the_float_model() {
    check_export(8, true, 4, QB as u32, 400);
}

#[test]
fn the_quantised_export_with_a_smaller_output_scale_evaluates_like_the_float_model() {
    check_export(8, false, 1, 128, 400);
}

#[test]
fn the_quantised_export_at_another_centipawn_scale_evaluates_like_the_float_model() {
    check_export(8, false, 1, QB as u32, 200);
}

/// Trains a net with `buckets` output buckets and `kings` king buckets
/// briefly, then compares the engine's evaluation of its file (output
/// quantisation `qb`, `scale` centipawns per unit) with the float model's.
fn check_export(buckets: usize, king_mirror: bool, kings: usize, qb: u32, scale: u32) {
    let dir = temp_dir(&format!("export-{buckets}-{king_mirror}-{kings}-{qb}-{scale}"));
    let lines = synthetic_lines(2000, 31);
    let data = data::parse_text(lines.as_bytes(), 2);
    let indices = usable(&data);
    let settings = Settings {
        hidden: HIDDEN,
        buckets,
        king_mirror,
        king_buckets: kings,
        epochs: 3,
        lambda: 0.0,
        lr: 0.003,
        batch: 128,
        threads: 2,
        qb,
        scale,
        ..Settings::default()
    };
    let out = dir.join("net.nnue");
    let outcome =
        train::run(&settings, &data, &indices, &[], &out, RunOptions::default(), &mut std::io::sink())
            .unwrap();
    let bytes = std::fs::read(&out).unwrap();
    let net = Network::from_bytes(&bytes, "test").unwrap();
    let exact = dequantised(&outcome.model);

    let mut scratch = Scratch::new(HIDDEN);
    let (mut worst, mut worst_rounded, mut total, mut spread, mut count) = (0f64, 0f64, 0f64, 0f64, 0);
    for (k, line) in lines.lines().enumerate().step_by(5) {
        let pos = position(line.split('|').next().unwrap().trim());
        if pos.is_check() {
            continue;
        }
        let features = data.features_of(k);
        assert_eq!(&data::board_of(features), pos.board(), "{line}");
        let white = pos.turn() == Color::White;
        let float = f64::from(outcome.model.output(features, white, &mut scratch)) * f64::from(scale);
        let rounded = f64::from(exact.output(features, white, &mut scratch)) * f64::from(scale);
        let engine = f64::from(net.evaluate_board(pos.board(), pos.turn()));
        worst = worst.max((engine - float).abs());
        worst_rounded = worst_rounded.max((engine - rounded).abs());
        total += (engine - float).abs();
        spread += float.abs();
        count += 1;
    }
    let (mean, spread) = (total / count as f64, spread / count as f64);
    // The engine's integer arithmetic is the rounded-weight float network
    // up to its two truncating divisions (under 1.1 cp). The rounding of
    // the weights costs more, nearly all of it in the output weights: a
    // step of 1/64 is 6 cp at a full activation, and these weights are
    // ~0.05 (measured here: mean 6.9 cp, max 25 cp, evaluations ~300 cp).
    assert!(worst_rounded <= 1.1, "engine vs rounded-weight float: {worst_rounded} cp");
    assert!(worst <= 35.0 && mean <= 10.0, "engine vs float: max {worst} cp, mean {mean} cp");
    assert!(spread > 100.0, "the trained net is nearly constant: mean |eval| {spread} cp");
    assert!(count > 300);
}

#[test]
fn lines_are_read_from_the_side_to_moves_view_and_filtered() {
    let text = "\
rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 | 35 | 1.0
rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2 | -20 | 0.0
rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2 | 12 | 0.5
rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3 | -1500 | 0.0
4k3/8/8/8/8/8/8/R3K3 w Q - 0 1 | 3000 | 1.0
4k3/8/8/8/8/8/8/R3K3 b - - 0 1 | -2999 | 1.0
bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9 | 7 | 0.5
not a fen | 1 | 1.0
8/8/8/8/8/8/8/8 w - - 0 1 | 0 | 0.5
4k3/8/8/8/8/8/8/4K3 w - - 0 1 | 0 | 2.0
4k3/8/8/8/8/8/8/4K3 w - - 0 1 | 0
";
    let data = data::parse_text(text.as_bytes(), 2);
    assert_eq!(data.len(), 11);
    // Black to move: White's +35 and White's win become -35 and a loss.
    assert_eq!((data.scores[0], data.results[0], data.flags[0]), (-35, 0, FLAG_BLACK));
    assert_eq!((data.scores[1], data.results[1], data.flags[1]), (-20, 0, 0));
    assert_eq!((data.scores[2], data.results[2], data.flags[2]), (-12, 1, FLAG_BLACK));
    assert_eq!((data.scores[3], data.results[3], data.flags[3]), (-1500, 0, FLAG_CHECK));
    assert_eq!((data.scores[5], data.results[5]), (2999, 0));
    assert_eq!(data.flags[6], 0);
    assert!((7..11).all(|i| data.flags[i] == FLAG_BAD), "{:?}", data.flags);
    let usable: Vec<usize> = (0..data.len()).filter(|&i| data.usable(i)).collect();
    assert_eq!(usable, [0, 1, 2, 5, 6]);
    // White's features of the Chess960 line.
    let pos = position(text.lines().nth(6).unwrap().split('|').next().unwrap());
    let mut expected: Vec<u16> =
        pos.board().iter().map(|(sq, p)| feature(Color::White, p, sq) as u16).collect();
    let mut got = data.features_of(6).to_vec();
    expected.sort_unstable();
    got.sort_unstable();
    assert_eq!(got, expected);
    // Targets: result weight lambda, the rest sigmoid(score / scale).
    let target = |lambda| Target { lambda, scale: 400.0 };
    assert!((data.target(0, target(1.0)) - 0.0).abs() < 1e-12);
    assert!((data.target(2, target(1.0)) - 0.5).abs() < 1e-12);
    assert!((data.target(1, target(0.0)) - backrank_util::sigmoid(-20.0 / 400.0)).abs() < 1e-12);
    let sharper = Target { lambda: 0.0, scale: 100.0 };
    assert!((data.target(1, sharper) - backrank_util::sigmoid(-20.0 / 100.0)).abs() < 1e-12);
    let (train_set, val) = data::split(&data, 2, 2);
    assert_eq!((train_set, val), (vec![0, 1, 5], vec![2, 6]));
}

#[test]
fn a_file_loads_whole_lines_up_to_a_limit_and_several_files_in_order() {
    let dir = temp_dir("load");
    let text = dir.join("games.txt");
    let all = synthetic_lines(500, 41);
    let cut = all.match_indices('\n').nth(299).unwrap().0 + 1;
    // 300 whole lines and half of the next: a file still being written.
    std::fs::write(&text, &all[..cut + 20]).unwrap();
    let first = data::parse_text(&all.as_bytes()[..cut], 1);
    assert_eq!(first.len(), 300);
    assert_eq!(data::load_file(&text, None, 2).unwrap(), first);
    let mut head = first.clone();
    head.truncate(120);
    assert_eq!(data::load_file(&text, Some(120), 2).unwrap(), head);
    // Two files with a limit across them.
    std::fs::write(&text, &all).unwrap();
    let full = data::parse_text(all.as_bytes(), 1);
    let other = synthetic_lines(50, 42);
    let second = dir.join("more.txt");
    std::fs::write(&second, &other).unwrap();
    let filter = backrank_data::Filter::default();
    let both = data::load(&[text.clone(), second], Some(520), &filter, 2, &mut std::io::sink()).unwrap();
    let mut expected = full.clone();
    expected.extend(&data::parse_text(other.as_bytes(), 1));
    expected.truncate(520);
    assert_eq!(both, expected);
}

#[test]
fn resuming_gives_the_same_net_as_training_straight_through() {
    let dir = temp_dir("resume");
    let data = data::parse_text(synthetic_lines(400, 51).as_bytes(), 2);
    let (train_set, val) = data::split(&data, 50, 4);
    let settings = Settings {
        hidden: 16,
        epochs: 2,
        lr: 0.01,
        batch: 48,
        threads: 2,
        seed: 3,
        king_mirror: true,
        king_buckets: 2,
        ..Settings::default()
    };
    let run = |out: &PathBuf, settings: &Settings, options: RunOptions| {
        train::run(settings, &data, &train_set, &val, out, options, &mut std::io::sink())
    };
    let (straight, split) = (dir.join("straight.nnue"), dir.join("split.nnue"));
    run(&straight, &settings, RunOptions::default()).unwrap();
    let after_one = run(&split, &settings, RunOptions { resume: false, stop_after: Some(1) }).unwrap();
    assert_eq!(after_one.epochs_done, 1);
    let halfway = std::fs::read(&split).unwrap();
    assert_ne!(halfway, std::fs::read(&straight).unwrap());
    let resumed = run(&split, &settings, RunOptions { resume: true, stop_after: None }).unwrap();
    assert_eq!(resumed.epochs_done, 2);
    assert_eq!(std::fs::read(&split).unwrap(), std::fs::read(&straight).unwrap());
    let ckpt = std::fs::read(train::checkpoint_path(&split)).unwrap();
    assert_eq!(ckpt, std::fs::read(train::checkpoint_path(&straight)).unwrap());
    // The checkpoint round-trips, refuses damage, and refuses other settings.
    let parsed = Checkpoint::from_bytes(&ckpt).unwrap();
    assert_eq!(parsed.to_bytes(), ckpt);
    assert_eq!((parsed.epoch, parsed.settings.clone()), (2, settings.clone()));
    let mut damaged = ckpt.clone();
    damaged[300] ^= 4;
    assert!(Checkpoint::from_bytes(&damaged).is_err());
    for other in [Settings { lr: 0.02, ..settings.clone() }, Settings { king_buckets: 4, ..settings.clone() }]
    {
        assert!(run(&split, &other, RunOptions { resume: true, stop_after: None }).is_err());
    }
    // Resuming a finished run trains nothing and keeps the net.
    let again = run(&split, &settings, RunOptions { resume: true, stop_after: None }).unwrap();
    assert_eq!((again.epochs_done, again.positions_per_second), (2, 0.0));
    assert_eq!(std::fs::read(&split).unwrap(), std::fs::read(&straight).unwrap());
}

#[test]
fn game_files_give_the_filtered_positions_from_the_side_to_moves_view() {
    use backrank_data::{Filter, Game, Outcome, binary};
    let dir = temp_dir("games");
    let mut rng = SplitMix(5);
    let mut games = Vec::new();
    for fen in STARTS {
        let start = position(fen);
        let mut pos = start.clone();
        let mut moves = Vec::new();
        for ply in 0..40 {
            let legal = pos.legal_moves();
            if legal.is_empty() {
                break;
            }
            let m = legal[rng.below(legal.len() as u64) as usize];
            moves.push((m, (ply * 13 % 200 - 100) as i16));
            pos.play_unchecked(m);
        }
        games.push(Game { start, moves, outcome: Outcome::WhiteWins });
    }
    let path = dir.join("games.bin");
    let mut bytes = Vec::new();
    for game in &games {
        binary::write_game(&mut bytes, game).unwrap();
    }
    // A record cut short at the end (a datagen still writing) is left out.
    bytes.extend_from_slice(&[0xB1, 1]);
    std::fs::write(&path, &bytes).unwrap();
    let filter = Filter::default();
    let mut log = Vec::new();
    let data = data::load_games(&path, &filter, None, &mut log).unwrap();
    assert!(String::from_utf8(log).unwrap().contains("cut short"));
    let kept: Vec<_> = games.iter().flat_map(|g| g.samples()).filter(|s| filter.keeps(s)).collect();
    assert!(kept.len() > 20);
    assert_eq!(data.len(), kept.len());
    for (i, sample) in kept.iter().enumerate() {
        let black = sample.position.turn() == Color::Black;
        assert_eq!(data.scores[i], if black { -sample.score } else { sample.score });
        assert_eq!(data.results[i], if black { 0 } else { 2 });
        assert_eq!(data.flags[i] & FLAG_BLACK != 0, black);
    }
    let limited = data::load_games(&path, &filter, Some(5), &mut Vec::new()).unwrap();
    assert_eq!(limited.len(), 5);
}

#[test]
fn a_mirrored_record_is_the_board_with_its_files_swapped() {
    for fen in STARTS {
        let pos = position(fen);
        let features: Vec<u16> =
            pos.board().iter().map(|(sq, p)| (feature(Color::White, p, sq) as u16) ^ 7).collect();
        let mut flipped = pos.board().clone();
        flipped.flip_horizontal();
        assert_eq!(data::board_of(&features), flipped, "{fen}");
    }
}

#[test]
fn an_epochs_order_is_a_fresh_permutation_and_mirroring_marks_half_of_it() {
    let records: Vec<u32> = (0..1000).collect();
    let plain = train::shuffled(&records, 3, 0, false);
    let mut sorted = plain.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, records, "every record once");
    // Shuffled: few records stay in place (about one expected), and
    // another epoch or seed gives another order.
    assert!(plain.iter().zip(&records).filter(|(a, b)| a == b).count() < 10);
    assert_ne!(plain, train::shuffled(&records, 3, 1, false));
    assert_ne!(plain, train::shuffled(&records, 4, 0, false));
    // Mirroring marks about half of the records and leaves the order be.
    let mirrored = train::shuffled(&records, 3, 0, true);
    let marked = mirrored.iter().filter(|&&i| i & crate::model::MIRRORED != 0).count();
    assert!((400..600).contains(&marked), "{marked}");
    let unmarked: Vec<u32> = mirrored.iter().map(|&i| i & !crate::model::MIRRORED).collect();
    assert_eq!(unmarked, plain);
}

#[test]
fn the_schedule_runs_from_the_rate_to_its_floor() {
    use crate::train::learning_rate;
    let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
    assert!(close(learning_rate(1e-3, 0.01, 0, 100), 1e-3));
    assert!(close(learning_rate(1e-3, 0.01, 100, 100), 1e-5));
    // Halfway down the cosine: the mean of the two ends.
    assert!(close(learning_rate(1e-3, 0.01, 50, 100), (1e-3 + 1e-5) / 2.0));
    assert!(learning_rate(1e-3, 0.01, 25, 100) > learning_rate(1e-3, 0.01, 26, 100));
}
