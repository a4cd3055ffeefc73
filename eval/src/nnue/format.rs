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
//! | 4 | QB, the output layer's scale (256) |
//! | 4 | output scale (centipawns per unit of the float network's output) |
//! | 2 x 768 x N | feature weights, i16, feature-major (feature `f`'s `N` weights together) |
//! | 2 x N | accumulator biases, i16 |
//! | 2 x 2N | output weights, i16: `N` for the side to move's accumulator, then `N` for the other side's |
//! | 4 | output bias, i32, in units of QA x QB |
//! | 8 | FNV-1a hash of every byte before it |
//!
//! The float network it encodes: `a = clamp(bias + sum of active rows, 0, 1)^2`
//! per perspective, `out = dot(a_us, w_us) + dot(a_them, w_them) + b`,
//! evaluation `out x scale` centipawns for the side to move.

use backrank_util::hash::fnv1a;

/// The first eight bytes of every network file.
pub const MAGIC: &[u8; 8] = b"BKRKNNUE";
/// The layout version this build reads and writes.
pub const VERSION: u32 = 1;
/// Piece-square inputs: 2 colours (own, other) x 6 roles x 64 squares.
pub const INPUTS: usize = 768;
/// The activation code of SCReLU, the only one so far.
pub const SCRELU: u32 = 1;
/// The feature transformer's quantisation scale.
pub const QA: i32 = 255;
/// The output layer's quantisation scale. Output weights of small nets are
/// small (a few hundredths): 256 keeps their rounding error to a few
/// centipawns, and `|w| < 0.5` keeps `QA x w x QB` within 16 bits.
pub const QB: i32 = 256;

const HEADER_BYTES: usize = 8 + 7 * 4;

/// A quantised network of any hidden size, as stored in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuantisedNet {
    /// Accumulator width `N` of each perspective.
    pub hidden: usize,
    /// Centipawns per unit of the float output.
    pub scale: u32,
    /// `INPUTS x hidden`, feature-major, in units of 1/QA.
    pub feature_weights: Vec<i16>,
    /// `hidden`, in units of 1/QA.
    pub feature_bias: Vec<i16>,
    /// `2 x hidden` (side to move first), in units of 1/QB.
    pub output_weights: Vec<i16>,
    /// In units of 1/(QA x QB).
    pub output_bias: i32,
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
        assert_eq!(self.feature_weights.len(), INPUTS * self.hidden);
        assert_eq!(self.feature_bias.len(), self.hidden);
        assert_eq!(self.output_weights.len(), 2 * self.hidden);
        let mut out = Vec::with_capacity(Self::file_len(self.hidden));
        out.extend_from_slice(MAGIC);
        for word in [VERSION, INPUTS as u32, self.hidden as u32, SCRELU, QA as u32, QB as u32, self.scale] {
            out.extend_from_slice(&word.to_le_bytes());
        }
        for w in self.feature_weights.iter().chain(&self.feature_bias).chain(&self.output_weights) {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.extend_from_slice(&self.output_bias.to_le_bytes());
        let hash = fnv1a(&out);
        out.extend_from_slice(&hash.to_le_bytes());
        out
    }

    /// The size of a file with hidden size `hidden`.
    pub fn file_len(hidden: usize) -> usize {
        HEADER_BYTES + 2 * (INPUTS * hidden + hidden + 2 * hidden) + 4 + 8
    }

    /// Reads a file, checking its header, its length and its checksum.
    pub fn from_bytes(bytes: &[u8]) -> Result<QuantisedNet, String> {
        if bytes.len() < HEADER_BYTES || &bytes[..8] != MAGIC {
            return Err("not a Backrank network (bad magic)".into());
        }
        let word = |i: usize| read_u32(bytes, 8 + 4 * i);
        let (version, inputs, hidden, activation, qa, qb, scale) =
            (word(0), word(1), word(2) as usize, word(3), word(4), word(5), word(6));
        if version != VERSION {
            return Err(format!("network format version {version}, this build reads {VERSION}"));
        }
        if inputs as usize != INPUTS || activation != SCRELU || qa != QA as u32 || qb != QB as u32 {
            return Err(format!(
                "unsupported layout: {inputs} inputs, activation {activation}, QA {qa}, QB {qb} \
                 (this build: {INPUTS}, SCReLU, {QA}, {QB})"
            ));
        }
        if scale == 0 {
            return Err("output scale 0: every position would evaluate as 0".into());
        }
        if hidden == 0 || hidden > 1 << 16 || bytes.len() != Self::file_len(hidden) {
            return Err(format!("{} bytes: wrong length for hidden size {hidden}", bytes.len()));
        }
        let body = bytes.len() - 8;
        if fnv1a(&bytes[..body]) != u64::from_le_bytes(bytes[body..].try_into().expect("eight bytes")) {
            return Err("checksum mismatch (damaged file)".into());
        }
        let mut at = HEADER_BYTES;
        let mut take = |count: usize| {
            let values = read_i16s(bytes, at, count);
            at += 2 * count;
            values
        };
        let feature_weights = take(INPUTS * hidden);
        let feature_bias = take(hidden);
        let output_weights = take(2 * hidden);
        let output_bias = read_u32(bytes, at) as i32;
        Ok(QuantisedNet { hidden, scale, feature_weights, feature_bias, output_weights, output_bias })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(hidden: usize) -> QuantisedNet {
        let value = |i: usize| ((i * 7919) % 601) as i16 - 300;
        QuantisedNet {
            hidden,
            scale: 400,
            feature_weights: (0..INPUTS * hidden).map(value).collect(),
            feature_bias: (0..hidden).map(|i| value(i + 3)).collect(),
            output_weights: (0..2 * hidden).map(|i| value(i + 5) / 3).collect(),
            output_bias: -1234,
        }
    }

    #[test]
    fn round_trips_and_refuses_damage() {
        let net = sample(16);
        let bytes = net.to_bytes();
        assert_eq!(bytes.len(), QuantisedNet::file_len(16));
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
        assert!(QuantisedNet::from_bytes(b"").is_err());
        let silent = QuantisedNet { scale: 0, ..sample(16) };
        assert!(QuantisedNet::from_bytes(&silent.to_bytes()).unwrap_err().contains("scale 0"));
    }
}
