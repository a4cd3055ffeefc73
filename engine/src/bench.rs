//! `backrank bench`: a fixed-depth search of fixed positions, one thread,
//! a fresh table for each. Its node count is the regression signature of the
//! search (it changes only when the search's behaviour does) and its speed
//! the measure of nodes per second.

use std::time::Instant;

use backrank_search::Limits;
use backrank_uci::notation::{format_move, parse_fen};

use crate::engine::Engine;

/// Depth of a plain `backrank bench`.
pub const DEFAULT_DEPTH: u32 = 11;

/// Standard chess, Chess960 and DFRC openings and middlegames (castling
/// rights in Shredder-FEN), endgames, and positions in check.
pub const POSITIONS: &[&str] = &[
    // Standard chess.
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8",
    "r2q1rk1/1b1nbppp/p2ppn2/1p6/3NPP2/1BN1B3/PPP1Q1PP/2KR3R w - - 2 12",
    "rnbqkb1r/pp3ppp/4pn2/2pp4/2PP4/2N2N2/PP2PPPP/R1BQKB1R w KQkq - 0 5",
    "r1b2rk1/2q1bppp/p1nppn2/1p6/3NP3/1BN1B3/PPP1QPPP/R4RK1 w - - 2 11",
    "2r3k1/pp3ppp/2n1b3/3p4/3P4/P1N1B3/1P3PPP/2R3K1 w - - 0 22",
    // Chess960 start positions (0, 100, 350, 599, 959).
    "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1",
    "qbbnrnkr/pppppppp/8/8/8/8/PPPPPPPP/QBBNRNKR w HEhe - 0 1",
    "nrkqrbbn/pppppppp/8/8/8/8/PPPPPPPP/NRKQRBBN w EBeb - 0 1",
    "rqbnkrnb/pppppppp/8/8/8/8/PPPPPPPP/RQBNKRNB w FAfa - 0 1",
    "rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/RKRNNQBB w CAca - 0 1",
    // DFRC start positions (white's back rank differs from black's).
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFha - 0 1",
    "nrkqrbbn/pppppppp/8/8/8/8/PPPPPPPP/RKRNNQBB w CAeb - 0 1",
    "qbbnrnkr/pppppppp/8/8/8/8/PPPPPPPP/RQBNKRNB w FAhe - 0 1",
    // Chess960 and DFRC middlegames near castling.
    "1Bbr1k1r/3p2pp/2pn1p2/1p2P3/7P/1PP2PQ1/P3qnB1/NRK4R b HBhd - 0 12",
    "1nkrb1nr/2pp2B1/4p3/5p2/5q1P/1P4P1/P1P1P3/RN1N1KR1 w GA - 0 12",
    "1rb1nkrn/q1pp1ppp/p7/1p2p3/2P1N2b/8/PPBPPPPP/QRB1NRK1 w gb - 4 6",
    "2rk1qnr/pp2ppp1/1n6/2ppb2p/3Q3P/P2P1P2/1PK1P1P1/RNN1BR1B w hc - 0 8",
    "b1rbk3/1p1np2p/8/p1p2pP1/P2PP3/1Q6/1PP2P1q/B1R1KNRN w GCc - 0 11",
    "bbrknnrq/p2pppp1/1pp5/7p/3PPN2/6P1/PPPN1P1P/BBRKQ2R b HCgc - 1 7",
    "br1knb1r/ppp2p1p/3p2pn/4N3/4P2q/5P1P/PPPPN1P1/BRQK1B1R w HBhb - 3 7",
    "n1b2kqr/1p1p1pp1/8/4p3/2P5/4P1pP/P1P1P3/NNRKRB1Q w ECh - 0 10",
    "nbbrnkr1/pppppp2/6pp/8/1P2P1P1/2q5/P2P1P1P/NBBRNKRQ b GDgd - 0 4",
    "nrk1r1bn/pppp1ppp/4p3/8/6P1/q3P2P/PBPP1P2/1BRQKNRN w GCeb - 1 5",
    "qn1bnk1r/p1r1pN2/2p2p1p/3p2N1/p5P1/1P1P4/2P1PP1P/BRKBQ2R b HBh - 0 10",
    "r1k1rnbb/1n1p2pp/2p1pp2/p5N1/7P/5PP1/3PP3/BqR1KB1R w HCea - 0 13",
    "r3kbnr/1b1ppq1p/p1p5/1p4pB/1P1np3/5PNP/P1PB2P1/1RQ1NKR1 w Gha - 3 12",
    "rkqnb1nr/2p3N1/p4ppp/1p1p4/8/1PPPpPb1/P3P1B1/RK2B2R w HAha - 0 13",
    // Endgames.
    "8/8/4k3/8/2p5/8/B2K4/8 w - - 0 1",
    "8/5pk1/6p1/8/1P6/P5P1/5PK1/8 w - - 0 40",
    "8/8/8/4k3/8/8/3KP3/8 w - - 0 1",
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 30",
    "8/3k4/8/8/8/8/1K6/2Q5 w - - 0 60",
    "8/8/1p1k4/1P6/2PK4/8/8/8 w - - 0 50",
    "4r1k1/5pp1/7p/8/3R4/6P1/5P1P/6K1 b - - 0 35",
    // In check.
    "rnbqkbnr/ppp2ppp/8/1B1pp3/4P3/8/PPPP1PPP/RNBQK1NR b KQkq - 1 3",
    "4k3/8/8/8/8/8/4q3/4K3 w - - 0 1",
    "r1bqk2r/pppp1Bpp/2n2n2/2b1p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 0 4",
    "nrk1rqbb/ppp1pppp/3p4/8/1n1P4/3Q4/PPP1PPPP/NRKNRBB1 w EBeb - 2 4",
    "2k5/8/8/8/8/8/6q1/4K2R w H - 0 1",
];

/// Searches every position to `depth` with `engine` (a new game each)
/// and prints one line each. Returns the total nodes and elapsed
/// milliseconds. The engine is left with a new game.
pub fn measure(engine: &mut Engine, depth: u32, mut print: impl FnMut(&str)) -> Result<(u64, u128), String> {
    let limits = Limits::depth(depth);
    let start = Instant::now();
    let mut total = 0;
    for (index, fen) in POSITIONS.iter().enumerate() {
        engine.new_game();
        engine.set_root(parse_fen(fen)?);
        let result = engine.think(&limits);
        total += result.report.nodes;
        let best = result.best.map_or("0000".to_string(), |m| format_move(m, true));
        print(&format!(
            "Position {:2}/{}: {fen}: bestmove {best} score {} nodes {}",
            index + 1,
            POSITIONS.len(),
            result.report.score,
            result.report.nodes
        ));
    }
    engine.new_game();
    Ok((total, start.elapsed().as_millis()))
}

/// `backrank bench [depth]` (also the UCI command `bench [depth]`, with
/// the session's options and network): the per-position lines, then
/// `Nodes searched: N` and `Nodes/second: N`.
pub fn run(engine: &mut Engine, depth: u32, mut print: impl FnMut(&str)) -> Result<(), String> {
    let (nodes, millis) = measure(engine, depth, &mut print)?;
    print("");
    print(&format!("Nodes searched: {nodes}"));
    print(&format!("Nodes/second: {}", nodes as u128 * 1000 / millis.max(1)));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_valid_and_varied() {
        assert!(POSITIONS.len() >= 40);
        let mut in_check = 0;
        for fen in POSITIONS {
            let pos = parse_fen(fen).unwrap_or_else(|e| panic!("{e}"));
            in_check += usize::from(shakmaty::Position::is_check(&pos));
        }
        assert!(in_check >= 3);
    }

    #[test]
    fn bench_is_deterministic() {
        let first = measure(&mut Engine::new(), 4, |_| {}).unwrap().0;
        let second = measure(&mut Engine::new(), 4, |_| {}).unwrap().0;
        assert_eq!(first, second);
        assert!(first > 1000);
    }
}
