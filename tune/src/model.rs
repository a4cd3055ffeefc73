//! The Texel model: the evaluation as a linear function of the weights,
//! squashed by a logistic curve into an expected result, and the mean
//! squared error against a target that blends the game result with the
//! search's score. Gradient descent with Adam, all weights at once.

use backrank_util::adam::Adam;
use backrank_util::sigmoid;

use crate::data::{Dataset, Sample};

/// Middlegame and endgame value of every weight.
pub type Weights = Vec<[f64; 2]>;

/// The weights the evaluation uses now.
pub fn current_weights() -> Weights {
    backrank_eval::weights::WEIGHTS.as_slice().iter().map(|t| [f64::from(t.mg), f64::from(t.eg)]).collect()
}

/// The training settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// Scale of the logistic curve: expected result = 1 / (1 + e^(-k * cp)).
    pub k: f64,
    /// The target's share of the game result; the rest is the search score.
    pub lambda: f64,
    /// Weight of the L2 penalty on each weight's distance from where it
    /// started (a prior: weights the data rarely sees stay put instead of
    /// drifting on a handful of positions).
    pub l2: f64,
    pub threads: usize,
}

/// White's score of `sample` under `weights`.
pub fn evaluate(set: &Dataset, sample: &Sample, weights: &[[f64; 2]]) -> f64 {
    let mut mg = 0.0;
    let mut eg = 0.0;
    for &(index, count) in set.entries_of(sample) {
        let [w_mg, w_eg] = weights[index as usize];
        mg += w_mg * f64::from(count);
        eg += w_eg * f64::from(count);
    }
    mg * sample.mg_share + eg * sample.eg_share + sample.fixed
}

fn target(sample: &Sample, settings: &Settings) -> f64 {
    settings.lambda * sample.result + (1.0 - settings.lambda) * sigmoid(settings.k * sample.score)
}

/// Runs `work` over `threads` slices of the samples and collects the results.
fn in_parallel<T: Send>(set: &Dataset, threads: usize, work: impl Fn(&[Sample]) -> T + Sync) -> Vec<T> {
    let chunk = set.samples.len().div_ceil(threads.max(1)).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = set.samples.chunks(chunk).map(|part| scope.spawn(|| work(part))).collect();
        handles.into_iter().map(|h| h.join().expect("a worker panicked")).collect()
    })
}

/// The mean squared error of `weights` on `set`.
pub fn loss(set: &Dataset, weights: &[[f64; 2]], settings: &Settings) -> f64 {
    let sums = in_parallel(set, settings.threads, |part| {
        part.iter()
            .map(|s| (sigmoid(settings.k * evaluate(set, s, weights)) - target(s, settings)).powi(2))
            .sum::<f64>()
    });
    sums.iter().sum::<f64>() / set.samples.len().max(1) as f64
}

/// The gradient of [`loss`] with respect to every weight.
fn gradient(set: &Dataset, weights: &[[f64; 2]], settings: &Settings) -> Weights {
    let parts = in_parallel(set, settings.threads, |part| {
        let mut grad = vec![[0.0; 2]; weights.len()];
        for sample in part {
            let expected = sigmoid(settings.k * evaluate(set, sample, weights));
            let error = expected - target(sample, settings);
            let slope = 2.0 * error * expected * (1.0 - expected) * settings.k;
            for &(index, count) in set.entries_of(sample) {
                let g = &mut grad[index as usize];
                g[0] += slope * f64::from(count) * sample.mg_share;
                g[1] += slope * f64::from(count) * sample.eg_share;
            }
        }
        grad
    });
    let n = set.samples.len().max(1) as f64;
    let mut total = vec![[0.0; 2]; weights.len()];
    for part in parts {
        for (t, g) in total.iter_mut().zip(part) {
            t[0] += g[0] / n;
            t[1] += g[1] / n;
        }
    }
    total
}

/// The logistic scale that best explains the game results by the current
/// evaluation (a golden-section search; the loss is unimodal in k).
pub fn fit_k(set: &Dataset, weights: &[[f64; 2]], threads: usize) -> f64 {
    let results_only = |k: f64| loss(set, weights, &Settings { k, lambda: 1.0, l2: 0.0, threads });
    let (mut low, mut high) = (0.0005_f64, 0.02_f64);
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..40 {
        let a = high - ratio * (high - low);
        let b = low + ratio * (high - low);
        if results_only(a) < results_only(b) {
            high = b;
        } else {
            low = a;
        }
    }
    (low + high) / 2.0
}

/// Adam, full batch: `epochs` steps of size about `rate` centipawns, on
/// the loss plus the L2 penalty (see [`Settings::l2`]).
/// `report` sees the epoch and the weights every `every` epochs.
pub fn train(
    set: &Dataset,
    weights: &mut Weights,
    settings: &Settings,
    epochs: usize,
    rate: f64,
    every: usize,
    mut report: impl FnMut(usize, &Weights),
) {
    let mut adam = Adam::new(2 * weights.len(), 0.0);
    adam.epsilon = 1e-12;
    let start = weights.clone();
    for epoch in 1..=epochs {
        let mut grad = gradient(set, weights, settings);
        for ((g, w), w0) in grad.iter_mut().zip(weights.iter()).zip(&start) {
            for part in 0..2 {
                g[part] += 2.0 * settings.l2 * (w[part] - w0[part]);
            }
        }
        adam.step(weights.as_flattened_mut(), grad.as_flattened(), rate, f64::INFINITY);
        if epoch % every.max(1) == 0 || epoch == epochs {
            report(epoch, weights);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Color, Position};

    use backrank_util::position;

    #[test]
    fn the_linear_model_is_the_evaluation() {
        let weights = current_weights();
        for fen in [
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            "r1bqk2r/pp2nppp/2n1p3/3pP3/1b1P4/2N2N2/PP3PPP/R1BQKB1R b KQkq - 3 7",
            "6k1/5ppp/8/6N1/7Q/8/5PPP/6K1 w - - 0 1",
            "4k3/5pp1/4b3/8/8/4B3/5PPP/6K1 b - - 0 1",
            "8/8/3bk3/8/8/8/3RK3/8 w - - 0 1",
        ] {
            let pos = position(fen);
            let mut set = Dataset::default();
            set.push(&pos, 0.0, 0.5);
            let model = evaluate(&set, &set.samples[0], &weights);
            let engine = backrank_eval::evaluate(&pos);
            let white = if pos.turn() == Color::White { engine } else { -engine };
            // The engine rounds twice (the scale and the blend); the model does not.
            assert!((model - f64::from(white)).abs() <= 2.0, "{fen}: model {model}, engine {white}");
        }
    }

    #[test]
    fn training_lowers_the_loss() {
        // A tiny set where the evaluation is plainly wrong: White wins a
        // position the weights call equal.
        let mut set = Dataset::default();
        for _ in 0..20 {
            set.push(&position("4k3/8/8/8/8/8/8/2N1K3 w - - 0 1"), 0.0, 1.0);
        }
        let mut weights = current_weights();
        let settings = Settings { k: 0.005, lambda: 1.0, l2: 0.0, threads: 2 };
        let before = loss(&set, &weights, &settings);
        train(&set, &mut weights, &settings, 50, 1.0, 10, |_, _| {});
        assert!(loss(&set, &weights, &settings) < before);
    }
}
