//! The network file: a header that names the layout, the quantised weights,
//! and a checksum. Written by the trainer (`train/`), read by the engine;
//! both go through [`QuantisedNet`], so the format lives here only.
//!
//! All numbers little-endian:
//!
//! | bytes | what |
//! |---|---|
//! | 8 | magic `BKRKNNUE` |
//! | 4 | format version ([`VERSION`]) |
//! | 4 | inputs (768: colour x role x square, see [`super::feature`]) |
//! | 4 | hidden size `N` of each perspective's accumulator |
//! | 4 | activation (1 = SCReLU) |
//! | 4 | QA, the feature transformer's scale (255) |
//! | 4 | QB, the output layer's scale (256 by default; any of 1 to [`MAX_QB`]) |
//! | 4 | output scale (centipawns per unit of the float network's output) |
//! | 4 | output buckets `B` (version 2 on; version 1 files have none and mean 1) |
//! | 4 | input layout (version 3 on; before, 0): 0 each side's view, 1 the same with files mirrored while that side's king stands on files e-h ([`KING_MIRRORED`]) |
//! | 4 | king buckets `K` (version 4 on; before, 1): sets of feature weights, one chosen per perspective by its king's square ([`KingBuckets`]) |
//! | 64 | (version 4 on) the king bucket of each square, a1 to h8, as the perspective sees it: flipped vertically for Black and, in a king-mirrored net, on files a-d |
//! | 2 x K x 768 x N | feature weights, i16, bucket-major, then feature-major (feature `f`'s `N` weights together) |
//! | 2 x N | accumulator biases, i16 |
//! | 2 x 2N x B | output weights, i16, bucket by bucket: `N` for the side to move's accumulator, then `N` for the other side's |
//! | 4 x B | output biases, i32, in units of QA x QB |
//! | 8 | FNV-1a hash of every byte before it |
//!
//! The float network it encodes: `a = clamp(bias + sum of active rows, 0, 1)^2`
//! per perspective (the rows of the perspective's king bucket), `out = dot(a_us, w_us[k]) + dot(a_them, w_them[k]) + b[k]`
//! with `k` the position's [`output_bucket`], evaluation `out x scale`
//! centipawns for the side to move.

use backrank_util::hash::fnv1a;

/// The first eight bytes of every network file.
pub const MAGIC: &[u8; 8] = b"BKRKNNUE";
/// The layout version this build writes. It also reads version 1 (no
/// bucket word: one output bucket), version 2 (no input-layout word: plain
/// inputs) and version 3 (no king buckets: one).
pub const VERSION: u32 = 4;
/// The input layout code of plain piece-square inputs from each side's view.
pub const PLAIN: u32 = 0;
/// The input layout code of king-side mirrored inputs: a perspective whose
/// king stands on files e-h sees every square's file flipped (a-h), so
/// that one set of weights serves kings on either wing.
pub const KING_MIRRORED: u32 = 1;
/// Piece-square inputs: 2 colours (own, other) x 6 roles x 64 squares.
pub const INPUTS: usize = 768;
/// The activation code of SCReLU, the only one so far.
pub const SCRELU: u32 = 1;
/// The feature transformer's quantisation scale.
pub const QA: i32 = 255;
/// The output layer's default quantisation scale. Output weights of small
/// nets are small (a few hundredths): 256 keeps their rounding error to a
/// few centipawns, and `|w| < 0.5` keeps `QA x w x QB` within 16 bits. A
/// file names its own QB: a smaller one trades rounding for range.
pub const QB: i32 = 256;
/// The largest output scale a file may name.
pub const MAX_QB: u32 = 1 << 12;

/// The most output buckets a file may have.
pub const MAX_BUCKETS: usize = 32;

/// The most king buckets a file may have.
pub const MAX_KING_BUCKETS: usize = 32;

/// Header bytes of a file of each version (index 0: version 1).
const HEADER_BYTES_OF: [usize; 4] = [8 + 7 * 4, 8 + 8 * 4, 8 + 9 * 4, 8 + 10 * 4 + 64];
/// Header bytes of a file of this build's version.
const HEADER_BYTES: usize = HEADER_BYTES_OF[VERSION as usize - 1];

/// The output bucket of a position with `pieces` pieces on the board (kings
/// included) in a net with `buckets` output buckets: the material from 2 to
/// 32 pieces cut into `buckets` equal bands, so 8 buckets are
/// `(pieces - 2) / 4`. The trainer and the engine both call this.
#[inline]
pub fn output_bucket(pieces: usize, buckets: usize) -> usize {
    (pieces.saturating_sub(2) * buckets / 32).min(buckets - 1)
}

/// Input buckets by king square: a perspective reads the feature weights of
/// the bucket its own king stands in, so that the same piece on the same
/// square can mean one thing beside a castled king and another beside an
/// advanced one. The square is the perspective's own view of it (flipped
/// vertically for Black; in a king-mirrored net, on files a-d). A king
/// that moves into another bucket refreshes its side's accumulator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KingBuckets {
    /// The number of buckets `K`.
    pub count: usize,
    /// The bucket of each square, a1 = 0 to h8 = 63.
    pub map: [u8; 64],
}

impl KingBuckets {
    /// One bucket: the king's square does not matter.
    pub const ONE: KingBuckets = KingBuckets { count: 1, map: [0; 64] };

    /// The layouts the trainer offers (`kingbuckets 1`, `2` or `4`), drawn
    /// from the side's own view with files a-d (king-mirrored):
    ///
    /// * 2: the back rank; anywhere else.
    /// * 4: the back rank's a-b files (a king castled short lands on g1,
    ///   mirrored b1), its c-d files (castled long, or not yet castled:
    ///   every Chess960 king starts on b-g, mirrored b-d), the second rank,
    ///   anywhere else.
    pub fn standard(count: usize) -> Option<KingBuckets> {
        let bucket = |square: usize| -> u8 {
            let (file, rank) = (square % 8, square / 8);
            let file = file.min(7 - file); // e-h as their mirror images
            match (count, rank) {
                (2, 0) => 0,
                (2, _) => 1,
                (4, 0) => u8::from(file >= 2),
                (4, 1) => 2,
                (4, _) => 3,
                _ => 0,
            }
        };
        matches!(count, 1 | 2 | 4).then(|| KingBuckets { count, map: std::array::from_fn(bucket) })
    }

    /// The bucket of a king on `square` (0-63, the perspective's own view).
    #[inline]
    pub fn of(&self, square: usize) -> usize {
        usize::from(self.map[square])
    }

    /// Why this layout cannot be read, if it cannot: too many buckets, a
    /// square in no bucket, a bucket on no square, or (king-mirrored) a
    /// square in another bucket than its mirror image.
    fn check(&self, king_mirrored: bool) -> Result<(), String> {
        if self.count == 0 || self.count > MAX_KING_BUCKETS {
            return Err(format!("{} king buckets (this build reads 1 to {MAX_KING_BUCKETS})", self.count));
        }
        if let Some(square) = self.map.iter().position(|&b| usize::from(b) >= self.count) {
            return Err(format!("king bucket {} on square {square}, of {}", self.map[square], self.count));
        }
        if let Some(bucket) = (0..self.count).find(|&b| !self.map.iter().any(|&m| usize::from(m) == b)) {
            return Err(format!("king bucket {bucket} is on no square"));
        }
        if king_mirrored && (0..64).any(|sq| self.map[sq] != self.map[sq ^ 7]) {
            return Err("a king-mirrored net's king buckets must be the same on files a-d and h-e".into());
        }
        Ok(())
    }
}

/// A quantised network of any hidden size, as stored in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuantisedNet {
    /// Accumulator width `N` of each perspective.
    pub hidden: usize,
    /// Output buckets `B` (see [`output_bucket`]).
    pub buckets: usize,
    /// [`PLAIN`] or [`KING_MIRRORED`].
    pub input_layout: u32,
    /// Sets of feature weights by king square ([`KingBuckets::ONE`]: one).
    pub king_buckets: KingBuckets,
    /// Centipawns per unit of the float output.
    pub scale: u32,
    /// The output layer's quantisation scale (see [`QB`]).
    pub qb: u32,
    /// `K x INPUTS x hidden`, bucket-major, then feature-major, in units of 1/QA.
    pub feature_weights: Vec<i16>,
    /// `hidden`, in units of 1/QA.
    pub feature_bias: Vec<i16>,
    /// `buckets x 2 x hidden` (each bucket's side to move first), in units of 1/QB.
    pub output_weights: Vec<i16>,
    /// `buckets`, in units of 1/(QA x QB).
    pub output_bias: Vec<i32>,
}

fn read_u32(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("four bytes"))
}

fn read_i16s(bytes: &[u8], at: usize, count: usize) -> Vec<i16> {
    bytes[at..at + 2 * count].chunks_exact(2).map(|b| i16::from_le_bytes([b[0], b[1]])).collect()
}

impl QuantisedNet {
    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let kings = self.king_buckets.count;
        assert_eq!(self.feature_weights.len(), kings * INPUTS * self.hidden);
        assert_eq!(self.feature_bias.len(), self.hidden);
        assert_eq!(self.output_weights.len(), 2 * self.hidden * self.buckets);
        assert_eq!(self.output_bias.len(), self.buckets);
        let mut out = Vec::with_capacity(Self::file_len(self.hidden, self.buckets, kings));
        out.extend_from_slice(MAGIC);
        let (hidden, buckets) = (self.hidden as u32, self.buckets as u32);
        let layout = self.input_layout;
        let words = [VERSION, INPUTS as u32, hidden, SCRELU, QA as u32, self.qb, self.scale, buckets, layout];
        for word in words.into_iter().chain([kings as u32]) {
            out.extend_from_slice(&word.to_le_bytes());
        }
        out.extend_from_slice(&self.king_buckets.map);
        for w in self.feature_weights.iter().chain(&self.feature_bias).chain(&self.output_weights) {
            out.extend_from_slice(&w.to_le_bytes());
        }
        for b in &self.output_bias {
            out.extend_from_slice(&b.to_le_bytes());
        }
        let hash = fnv1a(&out);
        out.extend_from_slice(&hash.to_le_bytes());
        out
    }

    /// The size of a file (of this build's version) with hidden size
    /// `hidden`, `buckets` output buckets and `kings` king buckets.
    pub fn file_len(hidden: usize, buckets: usize, kings: usize) -> usize {
        HEADER_BYTES + Self::body_len(hidden, buckets, kings) + 8
    }

    /// The weights' bytes.
    fn body_len(hidden: usize, buckets: usize, kings: usize) -> usize {
        2 * (kings * INPUTS * hidden + hidden + 2 * hidden * buckets) + 4 * buckets
    }

    /// Reads a file, checking its header, its length and its checksum.
    pub fn from_bytes(bytes: &[u8]) -> Result<QuantisedNet, String> {
        if bytes.len() < HEADER_BYTES || &bytes[..8] != MAGIC {
            return Err("not a Backrank network (bad magic)".into());
        }
        let word = |i: usize| read_u32(bytes, 8 + 4 * i);
        let (version, inputs, hidden, activation, qa, qb, scale) =
            (word(0), word(1), word(2) as usize, word(3), word(4), word(5), word(6));
        let (header, buckets, input_layout, king_buckets) = match version {
            1 => (HEADER_BYTES_OF[0], 1, PLAIN, KingBuckets::ONE),
            2 => (HEADER_BYTES_OF[1], word(7) as usize, PLAIN, KingBuckets::ONE),
            3 => (HEADER_BYTES_OF[2], word(7) as usize, word(8), KingBuckets::ONE),
            VERSION => {
                let map = bytes[8 + 40..8 + 40 + 64].try_into().expect("64 bytes");
                (HEADER_BYTES, word(7) as usize, word(8), KingBuckets { count: word(9) as usize, map })
            }
            _ => return Err(format!("network format version {version}, this build reads 1 to {VERSION}")),
        };
        if input_layout != PLAIN && input_layout != KING_MIRRORED {
            return Err(format!("input layout {input_layout} (this build reads 0 and 1)"));
        }
        king_buckets.check(input_layout == KING_MIRRORED)?;
        let kings = king_buckets.count;
        if buckets == 0 || buckets > MAX_BUCKETS {
            return Err(format!("{buckets} output buckets (this build reads 1 to {MAX_BUCKETS})"));
        }
        if inputs as usize != INPUTS || activation != SCRELU || qa != QA as u32 || !(1..=MAX_QB).contains(&qb)
        {
            return Err(format!(
                "unsupported layout: {inputs} inputs, activation {activation}, QA {qa}, QB {qb} \
                 (this build: {INPUTS}, SCReLU, {QA}, 1 to {MAX_QB})"
            ));
        }
        if scale == 0 {
            return Err("output scale 0: every position would evaluate as 0".into());
        }
        if hidden == 0
            || hidden > 1 << 16
            || bytes.len() != header + Self::body_len(hidden, buckets, kings) + 8
        {
            return Err(format!(
                "{} bytes: wrong length for hidden size {hidden}, {buckets} output buckets and {kings} king buckets",
                bytes.len()
            ));
        }
        let body = bytes.len() - 8;
        if fnv1a(&bytes[..body]) != u64::from_le_bytes(bytes[body..].try_into().expect("eight bytes")) {
            return Err("checksum mismatch (damaged file)".into());
        }
        let mut at = header;
        let mut take = |count: usize| {
            let values = read_i16s(bytes, at, count);
            at += 2 * count;
            values
        };
        let feature_weights = take(kings * INPUTS * hidden);
        let feature_bias = take(hidden);
        let output_weights = take(2 * hidden * buckets);
        let output_bias = (0..buckets).map(|k| read_u32(bytes, at + 4 * k) as i32).collect();
        Ok(QuantisedNet {
            hidden,
            buckets,
            input_layout,
            king_buckets,
            scale,
            qb,
            feature_weights,
            feature_bias,
            output_weights,
            output_bias,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(hidden: usize, buckets: usize) -> QuantisedNet {
        let value = |i: usize| ((i * 7919) % 601) as i16 - 300;
        QuantisedNet {
            hidden,
            buckets,
            input_layout: PLAIN,
            king_buckets: KingBuckets::ONE,
            scale: 400,
            qb: QB as u32,
            feature_weights: (0..INPUTS * hidden).map(value).collect(),
            feature_bias: (0..hidden).map(|i| value(i + 3)).collect(),
            output_weights: (0..2 * hidden * buckets).map(|i| value(i + 5) / 3).collect(),
            output_bias: (0..buckets as i32).map(|k| -1234 + 77 * k).collect(),
        }
    }

    /// `net` as a file of an older `version` (1: no bucket word, one
    /// bucket; 2: no input-layout word, plain inputs; 3: no king buckets),
    /// its own checksum.
    fn old_bytes(net: &QuantisedNet, version: u32) -> Vec<u8> {
        assert!(net.king_buckets == KingBuckets::ONE);
        assert!(version == 3 || (net.input_layout == PLAIN && (version == 2 || net.buckets == 1)));
        let mut bytes = net.to_bytes();
        bytes[8..12].copy_from_slice(&version.to_le_bytes());
        bytes.drain(HEADER_BYTES_OF[version as usize - 1]..HEADER_BYTES);
        let body = bytes.len() - 8;
        let hash = fnv1a(&bytes[..body]);
        bytes[body..].copy_from_slice(&hash.to_le_bytes());
        bytes
    }

    #[test]
    fn round_trips_and_refuses_damage() {
        for buckets in [1, 8] {
            let net = sample(16, buckets);
            let bytes = net.to_bytes();
            assert_eq!(bytes.len(), QuantisedNet::file_len(16, buckets, 1));
            assert_eq!(QuantisedNet::from_bytes(&bytes).unwrap(), net);
            // Truncated, a flipped weight bit, another magic, another version.
            assert!(QuantisedNet::from_bytes(&bytes[..bytes.len() - 1]).is_err());
            let mut flipped = bytes.clone();
            flipped[HEADER_BYTES + 100] ^= 1;
            assert!(QuantisedNet::from_bytes(&flipped).unwrap_err().contains("checksum"));
            let mut magic = bytes.clone();
            magic[0] = b'X';
            assert!(QuantisedNet::from_bytes(&magic).is_err());
            let mut version = bytes;
            version[8] = 9;
            assert!(QuantisedNet::from_bytes(&version).unwrap_err().contains("version"));
        }
        assert!(QuantisedNet::from_bytes(b"").is_err());
        let silent = QuantisedNet { scale: 0, ..sample(16, 1) };
        assert!(QuantisedNet::from_bytes(&silent.to_bytes()).unwrap_err().contains("scale 0"));
        let none = QuantisedNet { buckets: 0, output_weights: vec![], output_bias: vec![], ..sample(16, 1) };
        assert!(QuantisedNet::from_bytes(&none.to_bytes()).unwrap_err().contains("0 output buckets"));
    }

    #[test]
    fn a_file_names_its_own_output_scale() {
        for qb in [1, 64, 128, MAX_QB] {
            let net = QuantisedNet { qb, ..sample(16, 8) };
            assert_eq!(QuantisedNet::from_bytes(&net.to_bytes()).unwrap(), net);
        }
        for qb in [0, MAX_QB + 1] {
            let net = QuantisedNet { qb, ..sample(16, 8) };
            assert!(QuantisedNet::from_bytes(&net.to_bytes()).unwrap_err().contains(&format!("QB {qb}")));
        }
    }

    #[test]
    fn older_versions_still_read() {
        let mirrored = QuantisedNet { input_layout: KING_MIRRORED, ..sample(16, 8) };
        for (version, net) in [(1, sample(16, 1)), (2, sample(16, 1)), (2, sample(16, 8)), (3, mirrored)] {
            let old = old_bytes(&net, version);
            let header = HEADER_BYTES_OF[version as usize - 1];
            assert_eq!(old.len(), QuantisedNet::file_len(16, net.buckets, 1) - HEADER_BYTES + header);
            assert_eq!(QuantisedNet::from_bytes(&old).unwrap(), net);
            // The same bytes claiming the current version lack header words: refused.
            let mut claimed = old.clone();
            claimed[8] = VERSION as u8;
            assert!(QuantisedNet::from_bytes(&claimed).is_err());
        }
        let unknown = QuantisedNet { input_layout: 5, ..sample(16, 1) };
        assert!(QuantisedNet::from_bytes(&unknown.to_bytes()).unwrap_err().contains("input layout 5"));
    }

    /// `sample` with `layout`'s king buckets, each with weights of its own.
    fn with_kings(net: QuantisedNet, layout: KingBuckets) -> QuantisedNet {
        let rows = net.feature_weights.len();
        let feature_weights =
            (0..layout.count * rows).map(|i| net.feature_weights[i % rows] + (i / rows) as i16).collect();
        QuantisedNet { king_buckets: layout, feature_weights, ..net }
    }

    #[test]
    fn king_buckets_round_trip_and_bad_layouts_are_refused() {
        for count in [1, 2, 4] {
            let layout = KingBuckets::standard(count).unwrap();
            let net = with_kings(QuantisedNet { input_layout: KING_MIRRORED, ..sample(16, 8) }, layout);
            let bytes = net.to_bytes();
            assert_eq!(bytes.len(), QuantisedNet::file_len(16, 8, count));
            assert_eq!(QuantisedNet::from_bytes(&bytes).unwrap(), net);
        }
        let two = KingBuckets::standard(2).unwrap();
        let mut lopsided = two;
        lopsided.map[7] = 1 - lopsided.map[7]; // h1 apart from a1
        let mut unused = two;
        unused.count = 3;
        let mut past_end = two;
        past_end.map[9] = 2;
        let too_many = KingBuckets { count: MAX_KING_BUCKETS + 1, ..two };
        for (layout, mirrored, reason) in [
            (lopsided, true, "the same on files a-d and h-e"),
            (unused, false, "king bucket 2 is on no square"),
            (past_end, false, "king bucket 2 on square 9"),
            (too_many, false, "33 king buckets"),
        ] {
            let layout_code = if mirrored { KING_MIRRORED } else { PLAIN };
            let mut net = with_kings(QuantisedNet { input_layout: layout_code, ..sample(16, 1) }, two);
            net.king_buckets = layout;
            net.feature_weights.resize(layout.count * INPUTS * 16, 0);
            let error = QuantisedNet::from_bytes(&net.to_bytes()).unwrap_err();
            assert!(error.contains(reason), "{error}");
        }
        // A plain net may tell the wings apart.
        let plain = with_kings(sample(16, 1), lopsided);
        assert_eq!(QuantisedNet::from_bytes(&plain.to_bytes()).unwrap(), plain);
    }

    #[test]
    fn the_standard_king_buckets_split_the_back_rank_and_mirror() {
        assert_eq!(KingBuckets::standard(1), Some(KingBuckets::ONE));
        assert_eq!(KingBuckets::standard(3), None);
        let [two, four] = [2, 4].map(|n| KingBuckets::standard(n).unwrap());
        for sq in 0..64 {
            assert_eq!(two.of(sq), usize::from(sq >= 8));
            assert_eq!(four.of(sq), four.of(sq ^ 7));
        }
        // a1 b1 | c1 d1 | rank 2 | beyond, as the layout's comment says.
        assert_eq!([0, 1, 2, 3, 8, 15, 16, 63].map(|sq| four.of(sq)), [0, 0, 1, 1, 2, 2, 3, 3]);
        assert_eq!([6, 7, 5, 4].map(|sq| four.of(sq)), [0, 0, 1, 1]);
    }

    #[test]
    fn output_buckets_cut_the_material_into_equal_bands() {
        assert_eq!((2..=32).map(|p| output_bucket(p, 1)).max(), Some(0));
        let eight: Vec<usize> = (2..=32).map(|p| output_bucket(p, 8)).collect();
        assert_eq!(eight[..4], [0; 4]);
        assert_eq!(eight[4..8], [1; 4]);
        assert_eq!(eight[28..], [7; 3]);
        assert!(eight.windows(2).all(|w| w[1] == w[0] || w[1] == w[0] + 1));
        for p in 2..=32 {
            assert_eq!(output_bucket(p, 8), (p - 2) / 4);
        }
    }
}
