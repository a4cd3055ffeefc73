//! The neural evaluation (NNUE): a perspective network
//! `(768 -> HIDDEN) x 2 -> 1` with SCReLU, trained by `train/` on
//! Backrank's own games.
//!
//! * Inputs: one per (colour relative to the perspective, role, square),
//!   with the square flipped vertically for Black's perspective
//!   ([`feature`]), so that each side sees the board from its own side. A
//!   king-mirrored net ([`format::KING_MIRRORED`]) also flips the files of
//!   a perspective whose king stands on files e-h ([`Network::view`]);
//!   that perspective is refreshed whenever its king crosses between the d
//!   and e files (a Chess960 castle can do that too). A net with king
//!   buckets ([`format::KingBuckets`]) has a set of rows per bucket; a
//!   perspective reads its king's bucket's, and is refreshed when its king
//!   changes bucket ([`Network::view`] covers both).
//! * The two accumulators (`bias + sum of active rows`) are kept per thread
//!   along the search ([`AccumulatorStack`]): updated lazily, when a node is
//!   evaluated, from the nearest computed ancestor by diffing the piece
//!   bitboards. That one rule covers quiet moves, captures, en passant,
//!   promotions and every Chess960 castle (king or rook standing still,
//!   overlapping squares) alike.
//! * Output: `sum screlu(us) * w_us + sum screlu(them) * w_them + bias`,
//!   scaled to centipawns for the side to move, with one set of output
//!   weights and bias per material bucket ([`format::output_bucket`]; a
//!   net may have one bucket).
//!
//! The default net is embedded at build time (`eval/build.rs`: the file
//! named by the `EVALFILE` environment variable, else `nets/default.nnue`),
//! see [`embedded`]; `EvalFile` loads another ([`Network::load`]). Each
//! search holds the network it evaluates with.

mod accumulator;
pub mod format;
mod simd;

use std::sync::Arc;

use once_cell::sync::Lazy;
use shakmaty::{Board, Color, Piece, Square};

pub use accumulator::{Accumulator, AccumulatorStack};
pub use format::{INPUTS, KING_MIRRORED, KingBuckets, QA, QB, QuantisedNet, output_bucket};

// `HIDDEN`, the embedded net's width (written by `build.rs`).
include!(concat!(env!("OUT_DIR"), "/hidden.rs"));

/// The input index of `piece` on `square` seen from `perspective`.
pub fn feature(perspective: Color, piece: Piece, square: Square) -> usize {
    let own = usize::from(piece.color != perspective);
    let square = if perspective == Color::White { square as usize } else { square as usize ^ 56 };
    own * 384 + (piece.role as usize - 1) * 64 + square
}

/// 64-byte aligned storage, so that SIMD loads of whole rows are aligned.
#[repr(C, align(64))]
#[derive(Clone)]
pub struct Aligned<T>(pub T);

/// Which rows a perspective reads on a board: `base + (feature ^ mask)`,
/// `base` its king bucket's first row, `mask` 7 when a king-mirrored net
/// flips its files. When it changes, so do all the perspective's rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct View {
    /// The first row of the perspective's king bucket (bucket x [`INPUTS`]).
    pub base: usize,
    /// What every feature index is xored with: 0, or 7 (files a-h flipped).
    pub mask: usize,
}

impl View {
    /// The row of `feature` (an index of [`feature`]) in this view.
    #[inline]
    pub fn row(self, feature: usize) -> usize {
        self.base + (feature ^ self.mask)
    }
}

/// A network in the layout this build evaluates.
#[derive(Clone)]
pub struct Network {
    /// Row `b x INPUTS + f` is feature `f`'s contribution to an
    /// accumulator in king bucket `b` (see [`Network::view`]).
    pub feature_weights: Vec<Aligned<[i16; HIDDEN]>>,
    pub feature_bias: Aligned<[i16; HIDDEN]>,
    /// Per output bucket: the side to move's accumulator's weights, then
    /// the other side's.
    pub output_weights: Vec<Aligned<[[i16; HIDDEN]; 2]>>,
    /// Per output bucket, in units of 1/(QA x QB).
    pub output_bias: Vec<i32>,
    /// Centipawns per unit of the float network's output.
    pub scale: i32,
    /// The output layer's quantisation scale, the file's own (see [`QB`]).
    pub qb: i32,
    /// King-side mirroring of the inputs (see [`Network::view`]).
    pub king_mirrored: bool,
    /// The sets of feature rows by king square (see [`Network::view`]).
    pub king_buckets: KingBuckets,
    /// The FNV-free short name of the file, for `info string` and `eval`.
    pub name: String,
}

/// The net compiled into the binary.
static EMBEDDED: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/embedded.nnue"));

/// The embedded network, parsed once.
static EMBEDDED_NET: Lazy<Arc<Network>> =
    Lazy::new(|| Arc::new(Network::from_bytes(EMBEDDED, "embedded").expect("the embedded network is valid")));

/// The network compiled into the binary (`EvalFile` can load another).
pub fn embedded() -> Arc<Network> {
    Arc::clone(&EMBEDDED_NET)
}

/// The embedded network's file, byte for byte (`nets/default.nnue` or the
/// build's `EVALFILE`).
pub const fn embedded_file() -> &'static [u8] {
    EMBEDDED
}

impl Network {
    /// Reads a network file; it must have this build's hidden size.
    pub fn from_bytes(bytes: &[u8], name: &str) -> Result<Network, String> {
        let file = QuantisedNet::from_bytes(bytes)?;
        if file.hidden != HIDDEN {
            return Err(format!("hidden size {}, this build evaluates {HIDDEN}", file.hidden));
        }
        let feature_weights = file
            .feature_weights
            .chunks_exact(HIDDEN)
            .map(|chunk| {
                let mut row = Aligned([0i16; HIDDEN]);
                row.0.copy_from_slice(chunk);
                row
            })
            .collect();
        let mut feature_bias = Aligned([0i16; HIDDEN]);
        feature_bias.0.copy_from_slice(&file.feature_bias);
        let output_weights = file
            .output_weights
            .chunks_exact(2 * HIDDEN)
            .map(|bucket| {
                let mut weights = Aligned([[0i16; HIDDEN]; 2]);
                weights.0[0].copy_from_slice(&bucket[..HIDDEN]);
                weights.0[1].copy_from_slice(&bucket[HIDDEN..]);
                weights
            })
            .collect();
        // The SIMD output layer multiplies clamped activations (at most QA)
        // by a weight in 16 bits: the product must fit.
        if file.output_weights.iter().any(|&w| i32::from(w).abs() * QA > i32::from(i16::MAX)) {
            return Err(format!(
                "an output weight is too large for the output layer (|w| > 128/QB, QB {})",
                file.qb
            ));
        }
        Ok(Network {
            feature_weights,
            feature_bias,
            output_weights,
            output_bias: file.output_bias,
            scale: file.scale as i32,
            qb: file.qb as i32,
            king_mirrored: file.input_layout == KING_MIRRORED,
            king_buckets: file.king_buckets,
            name: name.to_string(),
        })
    }

    /// Reads a network file from disk.
    pub fn load(path: &str) -> Result<Network, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
        Network::from_bytes(&bytes, name)
    }

    /// The rows `perspective` reads on `board`: with king-side mirroring,
    /// every square's file flipped (mask 7) while its king stands on files
    /// e-h; with king buckets, the rows of the bucket of its king's square
    /// as it sees it (files flipped too). The file is the low three bits
    /// of every index, in both perspectives.
    #[inline]
    pub fn view(&self, board: &Board, perspective: Color) -> View {
        // A plain net of one bucket never looks at the king.
        if !self.king_mirrored && self.king_buckets.count == 1 {
            return View { base: 0, mask: 0 };
        }
        // A board without this king (only in tests) reads as one on a1.
        let king = board.king_of(perspective).map_or(0, |king| king as usize);
        let own = if perspective == Color::White { king } else { king ^ 56 };
        let mask = if self.king_mirrored && own & 7 >= 4 { 7 } else { 0 };
        View { base: self.king_buckets.of(own ^ mask) * INPUTS, mask }
    }

    /// A fresh accumulator for `board` from `perspective`.
    pub fn refresh(&self, board: &Board, perspective: Color, out: &mut [i16; HIDDEN]) {
        *out = self.feature_bias.0;
        let view = self.view(board, perspective);
        for square in board.occupied() {
            let piece = board.piece_at(square).expect("an occupied square");
            simd::add(out, &self.feature_weights[view.row(feature(perspective, piece, square))].0);
        }
    }

    /// The output bucket of `board`.
    pub fn bucket(&self, board: &Board) -> usize {
        output_bucket(board.occupied().count(), self.output_bias.len())
    }

    /// The evaluation in centipawns for the side to move, from the two
    /// accumulators (the side to move's first) and the board's output
    /// bucket ([`Network::bucket`]).
    pub fn output(&self, us: &[i16; HIDDEN], them: &[i16; HIDDEN], bucket: usize) -> i32 {
        let [w_us, w_them] = &self.output_weights[bucket].0;
        // In i64: up to 2 x HIDDEN x QA^2 x 128, past i32 at any HIDDEN over 128.
        let sum = simd::screlu_dot(us, w_us) + simd::screlu_dot(them, w_them);
        // `sum` is in units of QA^2 QB; one QA goes, the bias joins, then
        // to centipawns.
        let out = sum / i64::from(QA) + i64::from(self.output_bias[bucket]);
        (out * i64::from(self.scale) / (i64::from(QA) * i64::from(self.qb))) as i32
    }

    /// The evaluation of `board` with `turn` to move, from scratch.
    pub fn evaluate_board(&self, board: &Board, turn: Color) -> i32 {
        let (mut white, mut black) = ([0i16; HIDDEN], [0i16; HIDDEN]);
        self.refresh(board, Color::White, &mut white);
        self.refresh(board, Color::Black, &mut black);
        let bucket = self.bucket(board);
        match turn {
            Color::White => self.output(&white, &black, bucket),
            Color::Black => self.output(&black, &white, bucket),
        }
    }

    /// What each piece but the kings is worth to the network: the
    /// evaluation from White's view less that of the same board without the
    /// piece (the side to move kept), by square (`None`: empty or a king).
    pub fn piece_values(&self, board: &Board, turn: Color) -> [Option<i32>; 64] {
        let white_view = |board: &Board| match turn {
            Color::White => self.evaluate_board(board, turn),
            Color::Black => -self.evaluate_board(board, turn),
        };
        let whole = white_view(board);
        let mut values = [None; 64];
        for square in board.occupied() & !board.kings() {
            let mut without = board.clone();
            without.discard_piece_at(square);
            values[square as usize] = Some(whole - white_view(&without));
        }
        values
    }
}

/// `net` with `layout`'s king buckets, bucket `b`'s rows `net`'s own
/// nudged by a pattern of their own (up to 4 units), so that reading
/// another bucket's rows changes the evaluation.
#[cfg(test)]
pub(crate) fn with_king_buckets(net: &Network, layout: KingBuckets) -> Network {
    let mut rows = Vec::with_capacity(layout.count * INPUTS);
    for bucket in 0..layout.count {
        for (f, row) in net.feature_weights[..INPUTS].iter().enumerate() {
            let mut row = row.clone();
            if bucket > 0 {
                for (j, w) in row.0.iter_mut().enumerate() {
                    *w += ((j * 13 + f * 7 + bucket * 5) % 9) as i16 - 4;
                }
            }
            rows.push(row);
        }
    }
    Network { feature_weights: rows, king_buckets: layout, ..net.clone() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Chess, Position};

    use backrank_util::position;

    #[test]
    fn features_are_distinct_and_mirror_between_perspectives() {
        let mut seen = vec![false; INPUTS];
        for color in Color::ALL {
            for role in shakmaty::Role::ALL {
                for square in Square::ALL {
                    let piece = Piece { color, role };
                    let f = feature(Color::White, piece, square);
                    assert!(!seen[f]);
                    seen[f] = true;
                    let flipped = Piece { color: !color, role };
                    assert_eq!(f, feature(Color::Black, flipped, square.flip_vertical()));
                }
            }
        }
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn a_colour_flipped_position_gets_the_same_evaluation() {
        let mut bucketed = with_king_buckets(&embedded(), KingBuckets::standard(4).unwrap());
        bucketed.king_mirrored = true;
        for (net, fen) in [&*embedded(), &bucketed].into_iter().flat_map(|net| {
            [
                "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
                "4k3/5pp1/4b3/8/8/4B3/5PPP/6K1 b - - 0 1",
                "1r2k1r1/pbppnp1p/1b3P2/8/Q7/B1PB1q2/P4PPP/3RK1R1 w GDgb - 0 1",
            ]
            .map(|fen| (net, fen))
        }) {
            let pos = position(fen);
            let mut mirrored = pos.board().clone();
            mirrored.mirror();
            assert_ne!(&mirrored, pos.board());
            assert_eq!(
                net.evaluate_board(pos.board(), pos.turn()),
                net.evaluate_board(&mirrored, !pos.turn()),
                "{fen}"
            );
        }
    }

    #[test]
    fn king_mirrored_inputs_see_a_position_and_its_mirror_image_alike() {
        let mut mirrored_net = (*embedded()).clone();
        mirrored_net.king_mirrored = true;
        let plain = embedded();
        // No castling rights: the mirror image (files a-h swapped) is the
        // same position for the net, whichever wing each king is on. The
        // plain net must tell at least two of the three pairs apart (a
        // nearly symmetric position may happen to score alike), or the
        // flag proves nothing.
        let mut plain_differences = 0;
        for fen in [
            "4k3/5pp1/4b3/8/8/4B3/5PPP/6K1 b - - 0 1",
            "2kr3r/ppp2ppp/2n5/3q4/3P4/2P2N2/PP3PPP/R2Q1RK1 w - - 0 1",
            "r3k2r/1pp2ppp/p1n5/4p3/4P3/P1N5/1PP2PPP/R3K2R w - - 0 1",
        ] {
            let pos = position(fen);
            let mut flipped = pos.board().clone();
            flipped.flip_horizontal();
            let eval = |net: &Network, board: &Board| net.evaluate_board(board, pos.turn());
            assert_eq!(eval(&mirrored_net, pos.board()), eval(&mirrored_net, &flipped), "{fen}");
            if eval(&plain, pos.board()) != eval(&plain, &flipped) {
                plain_differences += 1;
            }
        }
        assert!(plain_differences >= 2, "the plain net sees only {plain_differences} differences");
    }

    #[test]
    fn a_king_reads_its_buckets_rows() {
        let plain = embedded();
        let four = KingBuckets::standard(4).unwrap();
        let mut bucketed = with_king_buckets(&plain, four);
        bucketed.king_mirrored = true;
        // White's king on g1 is mirrored to b1 (bucket 0), Black's on c8
        // is its own c1 (bucket 1); then both kings step up a rank.
        let castled = position("2kr3r/ppp2ppp/2n5/3q4/3P4/2P2N2/PP3PPP/R2Q1RK1 w - - 0 1");
        let view = |pos: &Chess, color| bucketed.view(pos.board(), color);
        assert_eq!(view(&castled, Color::White), View { base: 0, mask: 7 });
        assert_eq!(view(&castled, Color::Black), View { base: INPUTS, mask: 0 });
        let stepped = position("3r3r/pppk1ppp/2n5/3q4/3P4/2P2N2/PP3PPK/R2Q1R2 w - - 0 1");
        assert_eq!(view(&stepped, Color::White), View { base: 2 * INPUTS, mask: 7 });
        assert_eq!(view(&stepped, Color::Black), View { base: 2 * INPUTS, mask: 0 });
        // Bucket 0's rows are the plain net's: the same evaluation there,
        // another one where a king reads another bucket.
        let unmirrored = Network { king_mirrored: false, ..bucketed.clone() };
        let kings_on_back_rank_a_b = position("1k6/p7/8/8/8/8/P7/1K6 w - - 0 1");
        let eval = |net: &Network, pos: &Chess| net.evaluate_board(pos.board(), pos.turn());
        assert_eq!(eval(&unmirrored, &kings_on_back_rank_a_b), eval(&plain, &kings_on_back_rank_a_b));
        assert_ne!(
            eval(&bucketed, &stepped),
            eval(&Network { king_mirrored: true, ..(*plain).clone() }, &stepped)
        );
    }

    #[test]
    fn piece_values_are_signed_by_colour_and_ranked_by_role() {
        let net = embedded();
        let pos = Chess::default();
        let values = net.piece_values(pos.board(), pos.turn());
        let value = |sq: Square| values[sq as usize].expect("a piece");
        assert!(values[Square::E1 as usize].is_none() && values[Square::E4 as usize].is_none());
        // White's pieces add, Black's subtract; the start is symmetric, so
        // a piece and its mirror image differ only in the tempo's share.
        for square in pos.board().white() & !pos.board().kings() {
            let (own, mirrored) = (value(square), value(square.flip_vertical()));
            assert!(own > 0 && mirrored < 0, "{square}: {own} {mirrored}");
            assert!((own + mirrored).abs() < own / 2 + 30, "{square}: {own} {mirrored}");
        }
        assert!(value(Square::D1) > value(Square::A1) && value(Square::A1) > value(Square::B1));
        assert!(value(Square::B1) > value(Square::E2));
    }

    #[test]
    fn bad_files_are_refused() {
        assert!(Network::from_bytes(b"BKRKNNUE", "short").is_err());
        assert!(Network::from_bytes(&EMBEDDED[..EMBEDDED.len() - 3], "truncated").is_err());
        assert!(Network::load("/nonexistent/net.nnue").is_err());
        assert!(Network::from_bytes(EMBEDDED, "embedded").is_ok());
    }
}
