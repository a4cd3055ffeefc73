//! Fits the win/draw/loss model behind `UCI_ShowWDL` (the model itself is
//! `backrank_eval::wdl`) to game results: `backrank-train wdl <data>`. The
//! four numbers maximise the likelihood of the results of self-play
//! positions (gradient ascent with Adam), and go into
//! `backrank_eval::wdl::FITTED` by hand.

use std::path::Path;

use crate::adam::Adam;
use backrank_data::{Filter, read_games};
use backrank_eval::wdl::{WdlParams, chances};
use shakmaty::Chess;

/// One position: its score, material and result (White's view).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub score: f64,
    pub material: f64,
    pub result: f64,
}

/// The model's parameters `[a0, a1, b0, b1]`.
pub type Params = WdlParams;

/// Material on the board in pawns (both sides), as the model counts it.
pub fn material(pos: &Chess) -> f64 {
    f64::from(backrank_eval::wdl::material(pos))
}

/// Win, draw and loss chances of `score` with `material` on the board.
pub fn wdl(params: &Params, score: f64, material: f64) -> [f64; 3] {
    chances(params, score, material)
}

/// The mean negative log-likelihood of the results.
pub fn cost(params: &Params, points: &[Point]) -> f64 {
    let total: f64 = points
        .iter()
        .map(|p| {
            let [win, draw, loss] = wdl(params, p.score, p.material);
            let chance = if p.result > 0.75 {
                win
            } else if p.result < 0.25 {
                loss
            } else {
                draw
            };
            -chance.max(1e-9).ln()
        })
        .sum();
    total / points.len().max(1) as f64
}

/// Fits the parameters, starting from `start`, by Adam on numerical gradients.
pub fn fit(points: &[Point], start: Params, steps: usize) -> Params {
    let mut params = start;
    let mut adam = Adam::new(4, 0.0);
    adam.epsilon = 1e-12;
    for _ in 1..=steps {
        let mut grad = [0.0; 4];
        for i in 0..4 {
            let h = 0.01;
            let (mut up, mut down) = (params, params);
            up[i] += h;
            down[i] -= h;
            grad[i] = (cost(&up, points) - cost(&down, points)) / (2.0 * h);
        }
        adam.step(&mut params, &grad, 1.0, f64::INFINITY);
    }
    params
}

/// The mean squared error of `sigmoid(score / scale)` as a prediction of
/// the results: the training target's score term at that scale.
pub fn scale_cost(scale: f64, points: &[Point]) -> f64 {
    let total: f64 =
        points.iter().map(|p| (backrank_util::sigmoid(p.score / scale) - p.result).powi(2)).sum();
    total / points.len().max(1) as f64
}

/// The scale (centipawns) in `[lo, hi]` at which `sigmoid(score / scale)`
/// predicts the results best, by golden-section search on [`scale_cost`]
/// (one minimum: the cost is smooth and unimodal in the scale).
pub fn fit_scale(points: &[Point], lo: f64, hi: f64) -> f64 {
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    let (mut lo, mut hi) = (lo, hi);
    while hi - lo > 0.5 {
        let (a, b) = (hi - ratio * (hi - lo), lo + ratio * (hi - lo));
        if scale_cost(a, points) < scale_cost(b, points) {
            hi = b;
        } else {
            lo = a;
        }
    }
    (lo + hi) / 2.0
}

/// Every fourth kept position (plenty, and the fit stays quick) of the
/// game files `data` (comma-separated, `.bin` or `.pgn`: whole games), as
/// the training filter keeps them (no decided or opening positions).
pub fn points(data: &str) -> Result<Vec<Point>, String> {
    let filter = Filter::default();
    let mut points = Vec::new();
    for path in data.split(',').filter(|p| !p.is_empty()).map(Path::new) {
        if !backrank_data::is_game_file(path) {
            return Err(format!("{}: the fit reads whole games (.bin, .pgn)", path.display()));
        }
        let mut kept = 0usize;
        for game in read_games(path)? {
            for sample in game?.samples().filter(|s| filter.keeps(s)) {
                if kept.is_multiple_of(4) {
                    points.push(Point {
                        score: f64::from(sample.score),
                        material: material(&sample.position),
                        result: f64::from(sample.outcome.white_score()),
                    });
                }
                kept += 1;
            }
        }
    }
    Ok(points)
}

/// Fits the model to `data` and prints the parameters with a table of
/// what they mean.
pub fn fit_and_report(data: &str, out: &mut impl std::io::Write) -> Result<Params, String> {
    let points = points(data)?;
    let start = [100.0, 0.0, 100.0, 0.0];
    let io = |e: std::io::Error| e.to_string();
    writeln!(out, "{} positions; cost {:.5} at the start", points.len(), cost(&start, &points))
        .map_err(io)?;
    let params = fit(&points, start, 600);
    let [a0, a1, b0, b1] = params;
    writeln!(out, "cost {:.5}: a0 {a0:.1} a1 {a1:.1} b0 {b0:.1} b1 {b1:.1}", cost(&params, &points))
        .map_err(io)?;
    let scale = fit_scale(&points, 50.0, 1000.0);
    writeln!(
        out,
        "scale (K of sigmoid(score / K) against the results): {scale:.0}, cost {:.5} (400: {:.5})",
        scale_cost(scale, &points),
        scale_cost(400.0, &points)
    )
    .map_err(io)?;
    for (lo, hi) in [(0.0, 26.0), (26.0, 52.0), (52.0, 79.0)] {
        let band: Vec<Point> = points.iter().filter(|p| (lo..hi).contains(&p.material)).copied().collect();
        let k = fit_scale(&band, 50.0, 1000.0);
        writeln!(out, "material {lo:2} to {hi:2}: {} positions, scale {k:.0}", band.len()).map_err(io)?;
    }
    for material in [16.0, 40.0, 78.0] {
        for score in [0.0, 50.0, 100.0, 200.0, 400.0] {
            let [w, d, l] = wdl(&params, score, material).map(|p| p * 1000.0);
            writeln!(
                out,
                "material {material:2}, {score:3} cp: win {w:.0} draw {d:.0} loss {l:.0} per mille"
            )
            .map_err(io)?;
        }
    }
    Ok(params)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chances_add_up_and_follow_the_score() {
        let params = [150.0, 50.0, 60.0, 20.0];
        for score in [-600.0, -100.0, 0.0, 100.0, 600.0] {
            let [w, d, l] = wdl(&params, score, 40.0);
            assert!((w + d + l - 1.0).abs() < 1e-6);
        }
        let [w0, _, l0] = wdl(&params, 0.0, 40.0);
        assert!((w0 - l0).abs() < 1e-9);
        assert!(wdl(&params, 300.0, 40.0)[0] > wdl(&params, 100.0, 40.0)[0]);
    }

    #[test]
    fn only_whole_games_are_read() {
        assert!(points("positions.txt").unwrap_err().contains("whole games"));
        assert!(points("/no/such/games.bin").is_err());
        assert!(points("").unwrap().is_empty());
    }

    #[test]
    fn the_fitted_scale_is_the_one_that_made_the_results() {
        // Wins and losses drawn from sigmoid(score / 150): the fit finds
        // about 150, and predicts them better than 400 does.
        let mut rng = backrank_util::rng::SplitMix(11);
        let points: Vec<Point> = (0..20_000)
            .map(|i| {
                let score = f64::from(i % 1201) - 600.0;
                let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
                let result = if u < backrank_util::sigmoid(score / 150.0) { 1.0 } else { 0.0 };
                Point { score, material: 40.0, result }
            })
            .collect();
        let k = fit_scale(&points, 50.0, 1000.0);
        assert!((k - 150.0).abs() < 15.0, "{k}");
        assert!(scale_cost(k, &points) < scale_cost(400.0, &points));
    }

    #[test]
    fn fitting_finds_the_model_that_made_the_results() {
        // Results drawn (deterministically) from a known model are best
        // explained by parameters close to it.
        let truth = [120.0, 80.0, 70.0, 10.0];
        let mut points = Vec::new();
        let mut rng = backrank_util::rng::SplitMix(7);
        for i in 0..8_000 {
            let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            let score = f64::from(i % 801) - 400.0;
            let material = f64::from(10 + (i / 801) % 60);
            let [w, d, _] = wdl(&truth, score, material);
            let result = if u < w {
                1.0
            } else if u < w + d {
                0.5
            } else {
                0.0
            };
            points.push(Point { score, material, result });
        }
        let fitted = fit(&points, [100.0, 0.0, 100.0, 0.0], 800);
        assert!(cost(&fitted, &points) <= cost(&truth, &points) + 0.002, "{fitted:?}");
        assert!((wdl(&fitted, 200.0, 40.0)[0] - wdl(&truth, 200.0, 40.0)[0]).abs() < 0.05, "{fitted:?}");
    }
}
