//! The training loop: shuffled batches, the gradient split over threads,
//! AdamW with a cosine learning-rate schedule, per-epoch validation,
//! checkpoints that resume bit for bit, and the quantised export.
//!
//! * Shuffling: epoch `e`'s order is a Fisher-Yates shuffle of the training
//!   records seeded by `(seed, e)` alone, so a resumed run sees the same
//!   batches as an uninterrupted one.
//! * Threads: each batch is cut into `threads` contiguous parts; each
//!   worker adds its part's gradient into its own buffer, and the buffers
//!   are summed in thread order, so a run is deterministic for its seed and
//!   thread count (another thread count rounds differently).
//! * Schedule: per batch, cosine from `lr` down to `lr x lr_floor` over
//!   all the run's batches (0.05 by default; strong engines' recipes decay
//!   100- to 1000-fold).
//! * Checkpoint `<out>.ckpt` after every epoch: settings, data fingerprint,
//!   epoch, float weights, Adam's moments and step count. Resuming requires
//!   the same settings (the thread count only warns) and the same data.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::thread;
use std::time::Instant;

use crate::adam::Adam;
use backrank_eval::nnue::{KingBuckets, Network, QB};
use backrank_util::hash::fnv1a;
use backrank_util::rng::SplitMix;

use crate::data::{Dataset, SCORE_SCALE, Target, board_of};
use crate::model::{CLIP, MIRRORED, Model, Scratch, accumulate_gradient, loss_sum};

/// What a training run is asked to do.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Accumulator width of each perspective.
    pub hidden: usize,
    /// Output buckets by material (1: none).
    pub buckets: usize,
    /// King-side mirrored inputs (a side's files flipped while its king
    /// stands on files e-h; makes `mirror` pointless).
    pub king_mirror: bool,
    /// King buckets: 1 (none), 2 or 4, laid out by `KingBuckets::standard`.
    pub king_buckets: usize,
    /// Passes over the training records.
    pub epochs: usize,
    /// Weight of the game result in the target (the rest is the score's).
    pub lambda: f64,
    /// First learning rate.
    pub lr: f64,
    /// AdamW's decoupled weight decay.
    pub wd: f64,
    /// Records per optimiser step.
    pub batch: usize,
    /// Worker threads per batch.
    pub threads: usize,
    /// Seeds the initial weights and every epoch's shuffle.
    pub seed: u64,
    /// Mirror a random half of each epoch's positions left to right (files
    /// a-h swapped): the evaluation barely depends on the side the pieces
    /// stand on, so this doubles what the net sees.
    pub mirror: bool,
    /// The final learning rate as a fraction of the first.
    pub lr_floor: f64,
    /// The output layer's quantisation scale: the output weights are
    /// clipped to `127 / qb` so that the engine's output layer cannot
    /// overflow (see [`crate::model::Model::output_clip`]).
    pub qb: u32,
    /// Centipawns per unit of the network's output and the scale of the
    /// score's sigmoid in the target (`backrank-train wdl` fits one to
    /// the games' results).
    pub scale: u32,
}

impl Settings {
    /// The king bucket layout of `king_buckets` (checked when parsed).
    pub fn king_layout(&self) -> KingBuckets {
        KingBuckets::standard(self.king_buckets).expect("1, 2 or 4 king buckets")
    }

    /// The training target these settings describe.
    pub fn target(&self) -> Target {
        Target { lambda: self.lambda, scale: f64::from(self.scale) }
    }
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            hidden: 128,
            buckets: 1,
            king_mirror: false,
            king_buckets: 1,
            epochs: 20,
            lambda: 0.1,
            lr: 1e-3,
            wd: 0.01,
            batch: 16384,
            threads: 2,
            seed: 1,
            mirror: false,
            lr_floor: 0.05,
            qb: QB as u32,
            scale: SCORE_SCALE,
        }
    }
}

impl std::fmt::Display for Settings {
    /// The settings as the command line gives them (`hidden 128 epochs 40 ...`).
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        let s = self;
        write!(
            f,
            "hidden {} buckets {} kingmirror {} kingbuckets {} epochs {} lambda {} lr {} lrfloor {} wd {} batch {} threads {} seed {} mirror {} qb {} scale {}",
            s.hidden,
            s.buckets,
            u8::from(s.king_mirror),
            s.king_buckets,
            s.epochs,
            s.lambda,
            s.lr,
            s.lr_floor,
            s.wd,
            s.batch,
            s.threads,
            s.seed,
            u8::from(s.mirror),
            s.qb,
            s.scale
        )
    }
}

/// The learning rate of step `step` of `total`: cosine from `lr` to `lr x floor`.
pub fn learning_rate(lr: f64, floor: f64, step: usize, total: usize) -> f64 {
    let progress = step as f64 / total.max(1) as f64;
    lr * (floor + (1.0 - floor) * 0.5 * (1.0 + (std::f64::consts::PI * progress).cos()))
}

/// Epoch `epoch`'s order of the training records.
pub fn shuffled(train: &[u32], seed: u64, epoch: usize, mirror: bool) -> Vec<u32> {
    let mut order = train.to_vec();
    let mut rng = SplitMix(seed ^ (epoch as u64 + 1).wrapping_mul(0xd1b5_4a32_d192_ed03));
    for i in (1..order.len()).rev() {
        order.swap(i, rng.below(i as u64 + 1) as usize);
    }
    if mirror {
        for i in &mut order {
            *i |= (rng.next_u64() as u32) & MIRRORED;
        }
    }
    order
}

/// Adds the mean gradient of `batch` to `grads[0]` (cleared first), using one
/// buffer of `grads` per thread, and returns the sum of the batch's losses.
pub fn batch_gradient(
    model: &Model,
    data: &Dataset,
    batch: &[u32],
    target: Target,
    grads: &mut [Vec<f32>],
) -> f64 {
    let weight = 1.0 / batch.len().max(1) as f32;
    let part = batch.len().div_ceil(grads.len()).max(1);
    let parts = batch.chunks(part).count().max(1);
    let loss = thread::scope(|scope| {
        let handles: Vec<_> = batch
            .chunks(part)
            .zip(grads.iter_mut())
            .map(|(part, grad)| {
                scope.spawn(move || {
                    grad.fill(0.0);
                    accumulate_gradient(
                        model,
                        data,
                        part,
                        target,
                        weight,
                        grad,
                        &mut Scratch::new(model.hidden),
                    )
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("a worker panicked")).sum::<f64>()
    });
    if batch.is_empty() {
        grads[0].fill(0.0);
    }
    let (first, others) = grads.split_at_mut(1);
    for other in &others[..parts - 1] {
        first[0].iter_mut().zip(other).for_each(|(g, o)| *g += o);
    }
    loss
}

/// The mean loss over `indices`, on `threads` threads (NaN when empty).
pub fn mean_loss(model: &Model, data: &Dataset, indices: &[u32], target: Target, threads: usize) -> f64 {
    let part = indices.len().div_ceil(threads.max(1)).max(1);
    let sum: f64 = thread::scope(|scope| {
        let handles: Vec<_> = indices
            .chunks(part)
            .map(|part| {
                scope.spawn(move || loss_sum(model, data, part, target, &mut Scratch::new(model.hidden)))
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("a worker panicked")).sum()
    });
    sum / indices.len() as f64
}

/// A training run's saved state.
#[derive(Debug, Clone, PartialEq)]
pub struct Checkpoint {
    /// The run's settings.
    pub settings: Settings,
    /// [`Dataset::fingerprint`] of the training then the validation records.
    pub data_id: u64,
    /// Epochs completed.
    pub epoch: usize,
    /// The float weights.
    pub model: Model,
    /// The optimiser's state.
    pub adam: Adam,
    /// The last epoch's mean training loss.
    pub train_loss: f64,
    /// The last epoch's validation loss.
    pub val_loss: f64,
}

const CKPT_MAGIC: &[u8; 8] = b"BKRKCKPT";
const CKPT_VERSION: u64 = 8;
/// Eight-byte fields before the weights: ten words, nine floats, one word,
/// one float, five words.
const CKPT_FIELDS: usize = 26;

impl Checkpoint {
    /// The file's bytes: magic, words, weights, moments, FNV-1a hash.
    pub fn to_bytes(&self) -> Vec<u8> {
        let s = &self.settings;
        let mut out = CKPT_MAGIC.to_vec();
        let words =
            [CKPT_VERSION, s.hidden as u64, s.epochs as u64, s.batch as u64, s.threads as u64, s.seed];
        let words2 = [self.data_id, self.epoch as u64, self.adam.steps, self.model.params.len() as u64];
        for w in words.into_iter().chain(words2) {
            out.extend_from_slice(&w.to_le_bytes());
        }
        let a = &self.adam;
        for x in [
            s.lambda,
            s.lr,
            s.wd,
            self.train_loss,
            self.val_loss,
            a.beta1,
            a.beta2,
            a.epsilon,
            a.weight_decay,
        ] {
            out.extend_from_slice(&x.to_le_bytes());
        }
        out.extend_from_slice(&u64::from(s.mirror).to_le_bytes());
        out.extend_from_slice(&s.lr_floor.to_le_bytes());
        out.extend_from_slice(&(s.buckets as u64).to_le_bytes());
        out.extend_from_slice(&u64::from(s.king_mirror).to_le_bytes());
        out.extend_from_slice(&u64::from(s.qb).to_le_bytes());
        out.extend_from_slice(&u64::from(s.scale).to_le_bytes());
        out.extend_from_slice(&(s.king_buckets as u64).to_le_bytes());
        self.model.params.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
        a.m.iter().chain(&a.v).for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
        let hash = fnv1a(&out);
        out.extend_from_slice(&hash.to_le_bytes());
        out
    }

    /// Reads a checkpoint, checking its magic, version, length and hash.
    pub fn from_bytes(bytes: &[u8]) -> Result<Checkpoint, String> {
        if bytes.len() < 8 + CKPT_FIELDS * 8 || &bytes[..8] != CKPT_MAGIC {
            return Err("not a Backrank training checkpoint".into());
        }
        let body = bytes.len() - 8;
        if fnv1a(&bytes[..body]) != u64::from_le_bytes(bytes[body..].try_into().expect("eight bytes")) {
            return Err("checkpoint checksum mismatch (damaged file)".into());
        }
        let word =
            |i: usize| u64::from_le_bytes(bytes[8 + 8 * i..16 + 8 * i].try_into().expect("eight bytes"));
        let float = |i: usize| f64::from_bits(word(i));
        if word(0) != CKPT_VERSION {
            return Err(format!("checkpoint version {}, this build reads {CKPT_VERSION}", word(0)));
        }
        let (hidden, len, buckets) = (word(1) as usize, word(9) as usize, word(21) as usize);
        let Some(king_buckets) = KingBuckets::standard(word(25) as usize) else {
            return Err(format!("checkpoint with {} king buckets", word(25)));
        };
        if hidden == 0
            || buckets == 0
            || len != Model::param_count(hidden, buckets, king_buckets.count)
            || body != 8 + CKPT_FIELDS * 8 + len * 20
        {
            return Err("checkpoint has the wrong length for its hidden size and buckets".into());
        }
        let (king_mirror, qb, scale) = (word(22) != 0, word(23) as u32, word(24) as u32);
        if scale == 0 {
            return Err("checkpoint with output scale 0".into());
        }
        let settings = Settings {
            hidden,
            buckets,
            king_mirror,
            king_buckets: king_buckets.count,
            epochs: word(2) as usize,
            batch: word(3) as usize,
            threads: word(4) as usize,
            seed: word(5),
            mirror: word(19) != 0,
            lambda: float(10),
            lr: float(11),
            wd: float(12),
            lr_floor: float(20),
            qb,
            scale,
        };
        let at = 8 + CKPT_FIELDS * 8;
        let params = bytes[at..at + 4 * len]
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
            .collect();
        let moments: Vec<f64> = bytes[at + 4 * len..body]
            .chunks_exact(8)
            .map(|b| f64::from_le_bytes(b.try_into().unwrap()))
            .collect();
        let mut adam = Adam::new(len, float(18));
        (adam.beta1, adam.beta2, adam.epsilon, adam.steps) = (float(15), float(16), float(17), word(8));
        adam.m = moments[..len].to_vec();
        adam.v = moments[len..].to_vec();
        Ok(Checkpoint {
            settings,
            data_id: word(6),
            epoch: word(7) as usize,
            model: Model { hidden, buckets, king_mirrored: king_mirror, king_buckets, qb, scale, params },
            adam,
            train_loss: float(13),
            val_loss: float(14),
        })
    }
}

/// `<out>.ckpt`.
pub fn checkpoint_path(out: &Path) -> PathBuf {
    let mut path = out.as_os_str().to_owned();
    path.push(".ckpt");
    PathBuf::from(path)
}

/// Writes `bytes` to `path` through a temporary file and a rename, so that
/// a reader (or a crash) never sees half a file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    std::fs::write(&tmp, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("{}: {e}", path.display()))
}

/// How a run starts and stops.
#[derive(Debug, Clone, Copy, Default)]
pub struct RunOptions {
    /// Continue from `<out>.ckpt` when it exists.
    pub resume: bool,
    /// Stop after this many epochs in this call (checkpoint kept), if set.
    pub stop_after: Option<usize>,
}

/// The end of a run.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The final float network.
    pub model: Model,
    /// Epochs completed in all (including before a resume).
    pub epochs_done: usize,
    /// The last epoch's mean training loss.
    pub train_loss: f64,
    /// The last epoch's validation loss.
    pub val_loss: f64,
    /// Training records per second over this call's epochs (0 if none ran).
    pub positions_per_second: f64,
}

fn mismatch(ckpt: &Checkpoint, settings: &Settings, data_id: u64) -> Option<String> {
    let (a, b) = (&ckpt.settings, settings);
    let same = a.hidden == b.hidden
        && a.buckets == b.buckets
        && a.king_mirror == b.king_mirror
        && a.king_buckets == b.king_buckets
        && a.epochs == b.epochs
        && a.lambda == b.lambda
        && a.lr == b.lr
        && a.wd == b.wd
        && a.batch == b.batch
        && a.seed == b.seed
        && a.mirror == b.mirror
        && a.lr_floor == b.lr_floor
        && a.qb == b.qb
        && a.scale == b.scale;
    if !same {
        return Some(format!("the checkpoint's settings differ: {a:?}"));
    }
    (ckpt.data_id != data_id).then(|| "the checkpoint was trained on other data".to_string())
}

/// Trains on the records `train` of `data`, validating on `val`, writing
/// the quantised net to `out` and the checkpoint to `<out>.ckpt` after
/// every epoch; progress lines go to `log`.
pub fn run(
    settings: &Settings,
    data: &Dataset,
    train: &[u32],
    val: &[u32],
    out: &Path,
    options: RunOptions,
    log: &mut dyn Write,
) -> Result<Outcome, String> {
    let s = settings;
    if train.is_empty() || s.batch == 0 || s.threads == 0 {
        return Err("nothing to train on (no records, batch 0 or threads 0)".into());
    }
    let data_id = data.fingerprint(train) ^ data.fingerprint(val).rotate_left(17);
    let ckpt_path = checkpoint_path(out);
    let mut ckpt = match options.resume && ckpt_path.exists() {
        true => {
            let bytes = std::fs::read(&ckpt_path).map_err(|e| format!("{}: {e}", ckpt_path.display()))?;
            let ckpt = Checkpoint::from_bytes(&bytes)?;
            if let Some(why) = mismatch(&ckpt, s, data_id) {
                return Err(format!("cannot resume from {}: {why}", ckpt_path.display()));
            }
            if ckpt.settings.threads != s.threads {
                let _ = writeln!(
                    log,
                    "warning: the checkpoint used {} threads; results will differ",
                    ckpt.settings.threads
                );
            }
            let _ = writeln!(log, "resuming from {} after epoch {}", ckpt_path.display(), ckpt.epoch);
            ckpt
        }
        false => Checkpoint {
            settings: s.clone(),
            data_id,
            epoch: 0,
            model: Model {
                king_mirrored: s.king_mirror,
                qb: s.qb,
                scale: s.scale,
                ..Model::random(s.hidden, s.buckets, s.king_layout(), s.seed)
            },
            adam: Adam::new(Model::param_count(s.hidden, s.buckets, s.king_buckets), s.wd),
            train_loss: f64::NAN,
            val_loss: f64::NAN,
        },
    };
    ckpt.settings.threads = s.threads;
    let per_epoch = train.len().div_ceil(s.batch);
    let total = s.epochs * per_epoch;
    let mut grads = vec![vec![0f32; Model::param_count(s.hidden, s.buckets, s.king_buckets)]; s.threads];
    let (start, mut trained, mut training_secs) = (Instant::now(), 0usize, 0f64);
    let last = options.stop_after.map_or(s.epochs, |n| (ckpt.epoch + n).min(s.epochs));
    while ckpt.epoch < last {
        let epoch_start = Instant::now();
        let order = shuffled(train, s.seed, ckpt.epoch, s.mirror);
        let mut loss = 0.0;
        let mut rate = s.lr;
        for (b, batch) in order.chunks(s.batch).enumerate() {
            rate = learning_rate(s.lr, s.lr_floor, ckpt.epoch * per_epoch + b, total);
            loss += batch_gradient(&ckpt.model, data, batch, s.target(), &mut grads);
            ckpt.adam.step(&mut ckpt.model.params, &grads[0], rate, f64::from(CLIP));
            ckpt.model.clip_output();
        }
        let secs = epoch_start.elapsed().as_secs_f64();
        (trained, training_secs) = (trained + train.len(), training_secs + secs);
        ckpt.epoch += 1;
        ckpt.train_loss = loss / train.len() as f64;
        ckpt.val_loss = mean_loss(&ckpt.model, data, val, s.target(), s.threads);
        let _ = writeln!(
            log,
            "epoch {:>3}/{}  train {:.6}  val {:.6}  lr {:.2e}  pos/s {:.0}  elapsed {:.1}s",
            ckpt.epoch,
            s.epochs,
            ckpt.train_loss,
            ckpt.val_loss,
            rate,
            train.len() as f64 / secs,
            start.elapsed().as_secs_f64()
        );
        let _ = log.flush();
        write_atomic(&ckpt_path, &ckpt.to_bytes())?;
        write_atomic(out, &ckpt.model.quantise().to_bytes())?;
    }
    if trained == 0 {
        // Nothing ran (already complete): the net on disk matches the checkpoint.
        write_atomic(out, &ckpt.model.quantise().to_bytes())?;
    }
    Ok(Outcome {
        epochs_done: ckpt.epoch,
        train_loss: ckpt.train_loss,
        val_loss: ckpt.val_loss,
        positions_per_second: if training_secs > 0.0 { trained as f64 / training_secs } else { 0.0 },
        model: ckpt.model,
    })
}

/// How far the quantised network's evaluations are from the float model's.
#[derive(Debug, Clone, Copy, Default)]
pub struct Comparison {
    /// Positions compared.
    pub count: usize,
    /// Mean `|quantised - float|`, centipawns.
    pub mean_abs: f64,
    /// Largest `|quantised - float|`, centipawns.
    pub max_abs: f64,
    /// Mean `|float|`, centipawns, for scale.
    pub mean_abs_eval: f64,
}

/// Compares `model x scale` with `net` (the engine's evaluation) on `indices`.
pub fn compare(model: &Model, net: &Network, data: &Dataset, indices: &[u32]) -> Comparison {
    let mut scratch = Scratch::new(model.hidden);
    let mut c = Comparison { count: indices.len(), ..Comparison::default() };
    for &i in indices {
        let i = i as usize;
        let features = data.features_of(i);
        let float =
            f64::from(model.output(features, data.white_to_move(i), &mut scratch)) * f64::from(model.scale);
        let turn = if data.white_to_move(i) { shakmaty::Color::White } else { shakmaty::Color::Black };
        let quantised = f64::from(net.evaluate_board(&board_of(features), turn));
        let diff = (quantised - float).abs();
        c.mean_abs += diff;
        c.max_abs = c.max_abs.max(diff);
        c.mean_abs_eval += float.abs();
    }
    let n = indices.len().max(1) as f64;
    c.mean_abs /= n;
    c.mean_abs_eval /= n;
    c
}
