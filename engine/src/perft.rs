//! Perft: count the leaf nodes of the legal move tree, the standard test of
//! a move generator.

use shakmaty::{Chess, Move, Position};

/// Leaf nodes at `depth` below `pos`.
pub fn perft(pos: &Chess, depth: u32) -> u64 {
    match depth {
        0 => 1,
        // Bulk counting: the last ply needs only the number of moves.
        1 => pos.legal_moves().len() as u64,
        _ => pos
            .legal_moves()
            .into_iter()
            .map(|m| {
                let mut child = pos.clone();
                child.play_unchecked(m);
                perft(&child, depth - 1)
            })
            .sum(),
    }
}

/// Leaf nodes at `depth` below each root move, in move generation order.
pub fn divide(pos: &Chess, depth: u32) -> Vec<(Move, u64)> {
    pos.legal_moves()
        .into_iter()
        .map(|m| {
            let mut child = pos.clone();
            child.play_unchecked(m);
            (m, perft(&child, depth.saturating_sub(1)))
        })
        .collect()
}

/// The lines `go perft` and `backrank perft` print: one `move: count` per
/// root move, a blank line, then the total.
pub fn divide_report(pos: &Chess, depth: u32, chess960: bool) -> Vec<String> {
    let divided = divide(pos, depth.max(1));
    let mut lines: Vec<String> = divided
        .iter()
        .map(|(m, count)| format!("{}: {count}", backrank_uci::notation::format_move(*m, chess960)))
        .collect();
    let total: u64 = if depth == 0 { 1 } else { divided.iter().map(|(_, n)| n).sum() };
    lines.push(String::new());
    lines.push(format!("Nodes searched: {total}"));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position() {
        let pos = Chess::default();
        assert_eq!(perft(&pos, 1), 20);
        assert_eq!(perft(&pos, 3), 8902);
        assert_eq!(divide(&pos, 2).iter().map(|(_, n)| n).sum::<u64>(), 400);
    }

    #[test]
    fn kiwipete() {
        let pos = backrank_uci::notation::parse_fen(
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        )
        .unwrap();
        assert_eq!(perft(&pos, 3), 97862);
    }
}
