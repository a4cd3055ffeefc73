//! The float network that the engine's quantised one mirrors, its loss and
//! gradient, and its quantisation.
//!
//! For each perspective `c` (side to move, other side):
//! `acc_c = bias + sum of the rows of c's active features`,
//! `a_c = clamp(acc_c, 0, 1)^2` (SCReLU), and
//! `out = dot(a_stm, w_k[..H]) + dot(a_other, w_k[H..]) + b_k` with `k` the
//! position's output bucket (`output_bucket`, by material); the evaluation
//! is `out x 400` centipawns, the prediction `sigmoid(out)`, the loss
//! `(prediction - target)^2` averaged over a batch.
//!
//! All weights live in one flat vector ([`Model::params`]) so that one
//! optimiser covers them: the `K x 768 x H` feature weights (`K` king
//! buckets, one set of rows each; feature-major, each feature's `H` weights
//! together, as in the file), the `H` accumulator
//! biases, each bucket's `2H` output weights (side to move's first), and
//! the buckets' output biases.
//! The inner loops run over contiguous rows of `H` floats in blocks of
//! [`LANES`], which the compiler turns into AVX2 code.

use backrank_eval::nnue::format::{
    INPUTS, KING_MIRRORED, KingBuckets, MAX_BUCKETS, PLAIN, QA, QB, QuantisedNet, output_bucket,
};
use backrank_util::{rng::SplitMix, sigmoid};

use crate::data::{Dataset, SCORE_SCALE, Target};

/// The largest magnitude a feature weight or bias may take, so that it
/// quantises comfortably in i16 (`1.98 x QA`).
pub const CLIP: f32 = 1.98;
/// The top bit of a record index in a batch: use the record mirrored left
/// to right (every square's file flipped, `feature ^ 7`).
pub const MIRRORED: u32 = 1 << 31;
/// The loops' block width; the hidden size must be a multiple of it.
pub const LANES: usize = 8;

/// Black's input index of the piece whose White index is `white`: own and
/// other colours swap, and the square flips vertically.
#[inline]
pub fn mirror(white: usize) -> usize {
    ((white + 384) % INPUTS) ^ 56
}

/// The float network's weights.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    /// Accumulator width `H` of each perspective.
    pub hidden: usize,
    /// Output buckets (by material, see `output_bucket`).
    pub buckets: usize,
    /// King-side mirrored inputs (see `Network::view`).
    pub king_mirrored: bool,
    /// Sets of feature rows by king square (see `Network::view`).
    pub king_buckets: KingBuckets,
    /// The output layer's quantisation scale in the exported file.
    pub qb: u32,
    /// Centipawns per unit of output (the target's [`Target::scale`]).
    pub scale: u32,
    /// Feature weights, accumulator biases, output weights, output biases.
    pub params: Vec<f32>,
}

/// A uniform number in `[-1, 1)`.
fn uniform(rng: &mut SplitMix) -> f32 {
    (rng.next_u64() >> 40) as f32 / (1u64 << 23) as f32 - 1.0
}

impl Model {
    /// The number of weights of a network with hidden size `hidden`,
    /// `buckets` output buckets and `kings` king buckets.
    pub fn param_count(hidden: usize, buckets: usize, kings: usize) -> usize {
        kings * INPUTS * hidden + hidden + buckets * (2 * hidden + 1)
    }

    /// All weights zero.
    pub fn zeros(hidden: usize, buckets: usize, king_buckets: KingBuckets) -> Model {
        assert!(hidden > 0 && hidden.is_multiple_of(LANES), "the hidden size must be a multiple of {LANES}");
        assert!((1..=MAX_BUCKETS).contains(&buckets), "1 to {MAX_BUCKETS} output buckets");
        Model {
            hidden,
            buckets,
            king_mirrored: false,
            king_buckets,
            qb: QB as u32,
            scale: SCORE_SCALE,
            params: vec![0.0; Model::param_count(hidden, buckets, king_buckets.count)],
        }
    }

    /// The initial network for `seed`: feature weights uniform in
    /// `±1/sqrt(32)` (an accumulator of ~30 pieces then starts with a spread
    /// of about 0.5, half its units active), output weights uniform in
    /// `±1/sqrt(2H)`, biases zero. Every king bucket starts with the same
    /// rows, so that the net starts as one without buckets and each
    /// bucket's rows part from the others only as its positions teach.
    pub fn random(hidden: usize, buckets: usize, king_buckets: KingBuckets, seed: u64) -> Model {
        let mut model = Model::zeros(hidden, buckets, king_buckets);
        let mut rng = SplitMix(seed ^ 0x6e6e_7565_696e_6974);
        let (feature, output) = (1.0 / 32f32.sqrt(), 1.0 / ((2 * hidden) as f32).sqrt());
        let bias_at = model.bias_at();
        let (fw, rest) = model.params.split_at_mut(bias_at);
        let (first, others) = fw.split_at_mut(INPUTS * hidden);
        first.iter_mut().for_each(|w| *w = feature * uniform(&mut rng));
        others.chunks_exact_mut(INPUTS * hidden).for_each(|bucket| bucket.copy_from_slice(first));
        rest[hidden..hidden + 2 * hidden * buckets].iter_mut().for_each(|w| *w = output * uniform(&mut rng));
        model
    }

    /// Where the accumulator biases start in [`Model::params`].
    pub fn bias_at(&self) -> usize {
        self.king_buckets.count * INPUTS * self.hidden
    }

    /// Where the output weights start in [`Model::params`] (bucket `k`'s
    /// `2H` at `output_at() + 2Hk`).
    pub fn output_at(&self) -> usize {
        self.bias_at() + self.hidden
    }

    /// Where the output biases start in [`Model::params`] (bucket `k`'s at
    /// `output_bias_at() + k`).
    pub fn output_bias_at(&self) -> usize {
        self.output_at() + 2 * self.hidden * self.buckets
    }

    /// The largest magnitude an output weight may take: the engine's
    /// output layer needs `|w x qb| x QA` to fit 16 bits
    /// (`Network::from_bytes` checks), so `127 / qb`.
    pub fn output_clip(&self) -> f32 {
        127.0 / self.qb as f32
    }

    /// Keeps the output weights within [`Model::output_clip`].
    pub fn clip_output(&mut self) {
        let (at, end, clip) = (self.output_at(), self.output_bias_at(), self.output_clip());
        for w in &mut self.params[at..end] {
            *w = w.clamp(-clip, clip);
        }
    }

    /// The output bucket of a position with these features (one per piece).
    #[inline]
    pub fn bucket(&self, features: &[u16]) -> usize {
        output_bucket(features.len(), self.buckets)
    }

    /// The rows each perspective (White, Black) reads for a position with
    /// these features, as the engine's `Network::view`: with king-side
    /// mirroring, the files of a side whose king stands on files e-h are
    /// flipped; with king buckets, each side reads its king's bucket's rows.
    #[inline]
    fn views(&self, features: &[u16]) -> [View; 2] {
        let mut views = [View { black: false, mask: 0, base: 0 }, View { black: true, mask: 0, base: 0 }];
        if !self.king_mirrored && self.king_buckets.count == 1 {
            return views;
        }
        for &f in features {
            // Kings: White's at 320..384, Black's at 704..768 (White's
            // view); the file is the low three bits in both views, and
            // Black sees the rank flipped.
            let f = usize::from(f);
            if (320..384).contains(&f) || (704..768).contains(&f) {
                let black = f >= 384;
                let own = if black { (f - 704) ^ 56 } else { f - 320 };
                let mask = if self.king_mirrored && own & 7 >= 4 { 7 } else { 0 };
                views[usize::from(black)].mask = mask;
                views[usize::from(black)].base = self.king_buckets.of(own ^ mask) * INPUTS;
            }
        }
        views
    }

    /// The raw output for a position given by its White-perspective
    /// features and the side to move (the evaluation is this x `scale` cp).
    pub fn output(&self, features: &[u16], white_to_move: bool, scratch: &mut Scratch) -> f32 {
        scratch.acc.forward(self, features, white_to_move)
    }

    /// The quantised network: feature weights and biases x QA, output
    /// weights x qb, output bias x QA x qb, each rounded to nearest.
    pub fn quantise(&self) -> QuantisedNet {
        let round = |w: f32, scale: i32| (f64::from(w) * f64::from(scale)).round();
        let qb = self.qb as i32;
        let (bias, output, output_bias) = (self.bias_at(), self.output_at(), self.output_bias_at());
        QuantisedNet {
            hidden: self.hidden,
            buckets: self.buckets,
            input_layout: if self.king_mirrored { KING_MIRRORED } else { PLAIN },
            king_buckets: self.king_buckets,
            scale: self.scale,
            qb: self.qb,
            feature_weights: self.params[..bias].iter().map(|&w| round(w, QA) as i16).collect(),
            feature_bias: self.params[bias..output].iter().map(|&w| round(w, QA) as i16).collect(),
            output_weights: self.params[output..output_bias].iter().map(|&w| round(w, qb) as i16).collect(),
            output_bias: self.params[output_bias..].iter().map(|&w| round(w, QA * qb) as i32).collect(),
        }
    }
}

/// One worker's buffers, reused from position to position.
#[derive(Debug, Clone)]
pub struct Scratch {
    acc: Accumulators,
    stage: Stage,
}

/// The two perspectives' accumulators (then their gradients).
#[derive(Debug, Clone)]
struct Accumulators {
    white: Vec<f32>,
    black: Vec<f32>,
}

/// Records per staging round.
const STAGE: usize = 256;

/// A few hundred records copied out of the dataset before they are used:
/// the copy's loads are independent, so their cache misses overlap instead
/// of stalling the row loops one record at a time.
#[derive(Debug, Clone, Default)]
struct Stage {
    features: Vec<u16>,
    ends: Vec<usize>,
    targets: Vec<f64>,
    white_to_move: Vec<bool>,
}

impl Stage {
    fn fill(&mut self, data: &Dataset, indices: &[u32], target: Target) {
        self.features.clear();
        self.ends.clear();
        self.targets.clear();
        self.white_to_move.clear();
        for &i in indices {
            let mirrored = i & MIRRORED != 0;
            let i = (i & !MIRRORED) as usize;
            if mirrored {
                self.features.extend(data.features_of(i).iter().map(|&f| f ^ 7));
            } else {
                self.features.extend_from_slice(data.features_of(i));
            }
            self.ends.push(self.features.len());
            self.targets.push(data.target(i, target));
            self.white_to_move.push(data.white_to_move(i));
        }
    }

    /// Staged record `k`'s features.
    fn features(&self, k: usize) -> &[u16] {
        &self.features[if k == 0 { 0 } else { self.ends[k - 1] }..self.ends[k]]
    }
}

/// `acc += row`.
#[inline]
fn add(acc: &mut [f32], row: &[f32]) {
    let (acc, row) = (acc.as_chunks_mut::<LANES>().0, row.as_chunks::<LANES>().0);
    for (a, r) in acc.iter_mut().zip(row) {
        for k in 0..LANES {
            a[k] += r[k];
        }
    }
}

/// `sum of clamp(acc, 0, 1)^2 x w`, in [`LANES`] partial sums.
#[inline]
fn screlu_dot(acc: &[f32], w: &[f32]) -> f32 {
    let mut sums = [0f32; LANES];
    for (a, w) in acc.as_chunks::<LANES>().0.iter().zip(w.as_chunks::<LANES>().0) {
        for k in 0..LANES {
            let x = a[k].clamp(0.0, 1.0);
            sums[k] += x * x * w[k];
        }
    }
    sums.iter().sum()
}

/// The output layer's gradient for one perspective: `grad_w += g x a`, and
/// `acc` becomes the gradient with respect to the accumulator,
/// `g x w x 2 acc` inside `(0, 1)`, zero outside.
#[inline]
fn backward_output(acc: &mut [f32], w: &[f32], grad_w: &mut [f32], g: f32) {
    let (acc, w, grad_w) =
        (acc.as_chunks_mut::<LANES>().0, w.as_chunks::<LANES>().0, grad_w.as_chunks_mut::<LANES>().0);
    for ((a, w), gw) in acc.iter_mut().zip(w).zip(grad_w.iter_mut()) {
        for k in 0..LANES {
            // Below 0, x is 0 and so is the slope; at 1 and above the
            // clamp is flat.
            let x = a[k].clamp(0.0, 1.0);
            gw[k] += g * x * x;
            let inside = if a[k] < 1.0 { x } else { 0.0 };
            a[k] = 2.0 * g * w[k] * inside;
        }
    }
}

impl Scratch {
    /// Accumulators for hidden size `hidden`.
    pub fn new(hidden: usize) -> Scratch {
        Scratch {
            acc: Accumulators { white: vec![0.0; hidden], black: vec![0.0; hidden] },
            stage: Stage::default(),
        }
    }
}

impl Accumulators {
    /// Fills both accumulators and returns the output.
    fn forward(&mut self, model: &Model, features: &[u16], white_to_move: bool) -> f32 {
        let h = model.hidden;
        let params = &model.params;
        let bias = &params[model.bias_at()..model.output_at()];
        let [white, black] = model.views(features);
        gather(&mut self.white, bias, params, h, features, white);
        gather(&mut self.black, bias, params, h, features, black);
        let k = model.bucket(features);
        let w = &params[model.output_at() + 2 * h * k..][..2 * h];
        let (us, them) = if white_to_move { (&self.white, &self.black) } else { (&self.black, &self.white) };
        screlu_dot(us, &w[..h]) + screlu_dot(them, &w[h..]) + params[model.output_bias_at() + k]
    }
}

/// The widest block the row loops keep in registers (8 AVX2 registers).
const TILE: usize = 64;

/// Which rows a perspective reads: White's or Black's, files flipped by
/// `mask` (0, or 7 for a king-mirrored perspective whose king is on e-h),
/// in the king bucket whose rows start at row `base`.
#[derive(Debug, Clone, Copy)]
struct View {
    black: bool,
    mask: usize,
    base: usize,
}

/// The feature's row index in `view`.
#[inline(always)]
fn row_of(f: u16, view: View) -> usize {
    let f = usize::from(f);
    view.base + ((if view.black { mirror(f) } else { f }) ^ view.mask)
}

/// `out[t..t + T] = bias[t..t + T] + the same block of each feature's row`,
/// the block summed in registers.
#[inline(always)]
fn gather_block<const T: usize>(
    out: &mut [f32],
    bias: &[f32],
    table: &[f32],
    h: usize,
    t: usize,
    features: &[u16],
    view: View,
) {
    let mut sum: [f32; T] = bias[t..t + T].try_into().expect("a whole block");
    for &f in features {
        let at = row_of(f, view) * h + t;
        let row: &[f32; T] = table[at..at + T].try_into().expect("a whole block");
        for k in 0..T {
            sum[k] += row[k];
        }
    }
    out[t..t + T].copy_from_slice(&sum);
}

/// `out = bias + sum of the rows of table` (rows of `h`) of the features,
/// in `view`.
fn gather(out: &mut [f32], bias: &[f32], table: &[f32], h: usize, features: &[u16], view: View) {
    let mut t = 0;
    while t + TILE <= h {
        gather_block::<TILE>(out, bias, table, h, t, features, view);
        t += TILE;
    }
    while t < h {
        gather_block::<LANES>(out, bias, table, h, t, features, view);
        t += LANES;
    }
}

/// Adds block `t..t + T` of `d` to the same block of each feature's row.
#[inline(always)]
fn scatter_block<const T: usize>(
    table: &mut [f32],
    d: &[f32],
    h: usize,
    t: usize,
    features: &[u16],
    view: View,
) {
    let d: [f32; T] = d[t..t + T].try_into().expect("a whole block");
    for &f in features {
        let at = row_of(f, view) * h + t;
        let row: &mut [f32; T] = (&mut table[at..at + T]).try_into().expect("a whole block");
        for k in 0..T {
            row[k] += d[k];
        }
    }
}

/// Adds `d` to the row (of `h`) of each feature in `table`, White's or,
/// in `view`.
fn scatter(table: &mut [f32], d: &[f32], h: usize, features: &[u16], view: View) {
    let mut t = 0;
    while t + TILE <= h {
        scatter_block::<TILE>(table, d, h, t, features, view);
        t += TILE;
    }
    while t < h {
        scatter_block::<LANES>(table, d, h, t, features, view);
        t += LANES;
    }
}

/// The prediction, the loss and its derivative with respect to `out`.
#[inline]
fn loss_and_slope(out: f32, target: f64) -> (f64, f64) {
    let p = sigmoid(f64::from(out));
    ((p - target) * (p - target), 2.0 * (p - target) * p * (1.0 - p))
}

/// Adds `weight x` the gradient of the loss of each record in `indices` to
/// `grad` (laid out as [`Model::params`]) and returns the sum of their
/// losses. Only the rows of active features are touched in the feature
/// weights' gradient.
pub fn accumulate_gradient(
    model: &Model,
    data: &Dataset,
    indices: &[u32],
    target: Target,
    weight: f32,
    grad: &mut [f32],
    scratch: &mut Scratch,
) -> f64 {
    let h = model.hidden;
    let (grad_features, rest) = grad.split_at_mut(model.bias_at());
    let (grad_bias, rest) = rest.split_at_mut(h);
    let (grad_output, grad_output_bias) = rest.split_at_mut(2 * h * model.buckets);
    let mut total = 0.0;
    for chunk in indices.chunks(STAGE) {
        let Scratch { acc, stage } = scratch;
        stage.fill(data, chunk, target);
        for k in 0..chunk.len() {
            let (features, white_to_move) = (stage.features(k), stage.white_to_move[k]);
            let out = acc.forward(model, features, white_to_move);
            let (loss, slope) = loss_and_slope(out, stage.targets[k]);
            total += loss;
            let g = slope as f32 * weight;
            let k = model.bucket(features);
            grad_output_bias[k] += g;
            let w = &model.params[model.output_at() + 2 * h * k..][..2 * h];
            let (grad_us_w, grad_them_w) = grad_output[2 * h * k..][..2 * h].split_at_mut(h);
            let Accumulators { white, black } = acc;
            let (us, them) =
                if white_to_move { (&mut *white, &mut *black) } else { (&mut *black, &mut *white) };
            backward_output(us, &w[..h], grad_us_w, g);
            backward_output(them, &w[h..], grad_them_w, g);
            add(grad_bias, white);
            add(grad_bias, black);
            let [white_view, black_view] = model.views(features);
            scatter(grad_features, white, h, features, white_view);
            scatter(grad_features, black, h, features, black_view);
        }
    }
    total
}

/// The sum of the losses of the records in `indices`.
pub fn loss_sum(
    model: &Model,
    data: &Dataset,
    indices: &[u32],
    target: Target,
    scratch: &mut Scratch,
) -> f64 {
    let mut total = 0.0;
    for chunk in indices.chunks(STAGE) {
        let Scratch { acc, stage } = scratch;
        stage.fill(data, chunk, target);
        for k in 0..chunk.len() {
            let out = acc.forward(model, stage.features(k), stage.white_to_move[k]);
            total += loss_and_slope(out, stage.targets[k]).0;
        }
    }
    total
}
