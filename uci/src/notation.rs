//! Moves and positions at the protocol edge.
//!
//! Inside Backrank a castling move is always `Move::Castle { king, rook }`
//! (king takes own rook). Only here is it written for the GUI:
//! * `UCI_Chess960` true: king-takes-rook, `e1h1`.
//! * `UCI_Chess960` false: `e1g1`/`e1c1` when king and rook stand on their
//!   classical squares, otherwise king-takes-rook, the only unambiguous form.
//!
//! Reading accepts both forms in both modes, but the classical form only when
//! king and rook stand on their classical squares, and an ordinary king step
//! always wins over castling (king f1, rook h1: `f1g1` is a king step).

use std::fmt;

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{
    CastlingMode, Chess, Color, EnPassantMode, File, Move, Position, PositionErrorKinds, Rank, Square,
};

/// Why a move text was not accepted. Its `Display` is meant for `info string`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MoveError {
    Malformed(String),
    Illegal(String),
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::Malformed(text) => write!(f, "'{text}' is not a move in UCI notation"),
            MoveError::Illegal(text) => write!(f, "'{text}' is not legal in this position"),
        }
    }
}

impl std::error::Error for MoveError {}

/// True when a castling move can be written the classical way (`e1g1`):
/// king on the e-file and rook in the a- or h-file corner.
fn is_classical_castle(king: Square, rook: Square) -> bool {
    king.file() == File::E && matches!(rook.file(), File::A | File::H)
}

/// Writes a move for the GUI. `chess960` is the value of `UCI_Chess960`.
pub fn format_move(m: Move, chess960: bool) -> String {
    let uci = match m {
        Move::Castle { king, rook } if !chess960 && is_classical_castle(king, rook) => {
            UciMove::from_standard(m)
        }
        _ => UciMove::from_chess960(m),
    };
    uci.to_string()
}

/// Reads a GUI's move in the context of `pos`, in either castling notation
/// (see the module documentation for the rules).
pub fn parse_move(pos: &Chess, text: &str) -> Result<Move, MoveError> {
    let lower = text.to_ascii_lowercase();
    let uci: UciMove = lower.parse().map_err(|_| MoveError::Malformed(text.to_string()))?;
    let UciMove::Normal { from, to, promotion } = uci else {
        return Err(MoveError::Malformed(text.to_string()));
    };
    let legal = pos.legal_moves();
    // King-takes-rook castling and every ordinary move: one written form each.
    let exact = legal.iter().find(|m| m.from() == Some(from) && m.to() == to && m.promotion() == promotion);
    if let Some(m) = exact {
        return Ok(*m);
    }
    // The classical form, only from the classical squares.
    legal
        .iter()
        .find(|m| match **m {
            Move::Castle { king, rook } => {
                is_classical_castle(king, rook)
                    && promotion.is_none()
                    && king == from
                    && UciMove::from_standard(**m) == uci
            }
            _ => false,
        })
        .copied()
        .ok_or(MoveError::Illegal(text.to_string()))
}

/// Reads a FEN in any of its castling dialects: Shredder-FEN (`HAha`),
/// X-FEN (`KQkq` meaning the outermost rook, or a file letter for an inner
/// one) and plain FEN. Castling rights without a matching rook, and an
/// en-passant square that no pawn can use, are dropped rather than refused.
pub fn parse_fen(text: &str) -> Result<Chess, String> {
    let fen: Fen = text.trim().parse().map_err(|e| format!("invalid FEN '{text}': {e}"))?;
    let strict = fen.into_position::<Chess>(CastlingMode::Chess960);
    let without_castling = match strict {
        Err(e) if e.kinds().contains(PositionErrorKinds::INVALID_CASTLING_RIGHTS) => {
            e.ignore_invalid_castling_rights()
        }
        other => other,
    };
    let without_ep = match without_castling {
        Err(e) if e.kinds().contains(PositionErrorKinds::INVALID_EP_SQUARE) => e.ignore_invalid_ep_square(),
        other => other,
    };
    without_ep.map_err(|e| format!("invalid position '{text}': {e}"))
}

/// The FEN of `pos` with X-FEN castling (`KQkq`, or a file letter for an
/// inner rook): what most GUIs and standard chess expect.
pub fn x_fen(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

/// The FEN of `pos` with Shredder-FEN castling: the rook files, white's in
/// capitals, each side's from the h-file down (`HAha`).
pub fn shredder_fen(pos: &Chess) -> String {
    let x = x_fen(pos);
    let mut fields: Vec<String> = x.split(' ').map(str::to_string).collect();
    let rights = pos.castles().castling_rights();
    let mut castling = String::new();
    for color in Color::ALL {
        for rook in (rights & color.backrank()).into_iter().rev() {
            let file = rook.file().char();
            castling.push(if color == Color::White { file.to_ascii_uppercase() } else { file });
        }
    }
    if castling.is_empty() {
        castling.push('-');
    }
    fields[2] = castling;
    fields.join(" ")
}

/// The `d` command's text: the board from White's side, both FENs and the
/// checking pieces' squares, one line each.
pub fn diagram(pos: &Chess) -> String {
    use std::fmt::Write;
    const RULE: &str = " +---+---+---+---+---+---+---+---+";
    let mut text = String::from("\n");
    for rank in Rank::ALL.into_iter().rev() {
        text.push_str(RULE);
        text.push_str("\n |");
        for file in File::ALL {
            let piece = pos.board().piece_at(Square::from_coords(file, rank));
            let _ = write!(text, " {} |", piece.map_or(' ', |p| p.char()));
        }
        let _ = writeln!(text, " {}", rank.char());
    }
    let checkers: Vec<String> = pos.checkers().into_iter().map(|sq| sq.to_string()).collect();
    let _ = write!(
        text,
        "{RULE}\n   a   b   c   d   e   f   g   h\n\nFen: {}\nShredder-FEN: {}\nCheckers: {}",
        x_fen(pos),
        shredder_fen(pos),
        checkers.join(" ")
    );
    text
}

/// The board with what each piece is worth (centipawns from White's
/// view, by square; `None` for empty squares and kings), in pawns, as the
/// `eval` command shows it.
pub fn value_diagram(pos: &Chess, values: &[Option<i32>; 64]) -> String {
    use std::fmt::Write;
    const RULE: &str = "+-------+-------+-------+-------+-------+-------+-------+-------+";
    let mut text = format!("{RULE}\n");
    for rank in Rank::ALL.into_iter().rev() {
        let squares = File::ALL.map(|file| Square::from_coords(file, rank));
        text.push('|');
        for square in squares {
            let piece = pos.board().piece_at(square).map_or(' ', |p| p.char());
            let _ = write!(text, "   {piece}   |");
        }
        text.push_str("\n|");
        for square in squares {
            match values[square as usize] {
                Some(cp) => {
                    let _ = write!(text, " {:>5} |", pawns_in_five(cp));
                }
                None => text.push_str("       |"),
            }
        }
        let _ = writeln!(text, " {}\n{RULE}", rank.char());
    }
    text.push_str("    a       b       c       d       e       f       g       h");
    text
}

/// Centipawns as signed pawns in at most five characters: two decimals
/// below ten pawns, one below a hundred, none beyond.
fn pawns_in_five(cp: i32) -> String {
    let pawns = f64::from(cp) / 100.0;
    match cp.unsigned_abs() {
        0..995 => format!("{pawns:+.2}"),
        995..9995 => format!("{pawns:+.1}"),
        _ => format!("{pawns:+.0}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_diagram_puts_each_value_under_its_piece() {
        let pos = fen("4k3/8/8/8/8/8/4q3/R3K2R w KQ - 0 1");
        let mut values = [None; 64];
        values[Square::E2 as usize] = Some(-912);
        values[Square::A1 as usize] = Some(487);
        values[Square::H1 as usize] = Some(5);
        let text = value_diagram(&pos, &values);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 8 * 3 + 2);
        assert_eq!(lines[0], lines[3]);
        assert_eq!(lines[1], "|       |       |       |       |   k   |       |       |       |");
        assert_eq!(lines[2], "|       |       |       |       |       |       |       |       | 8");
        assert_eq!(lines[19], "|       |       |       |       |   q   |       |       |       |");
        assert_eq!(lines[20], "|       |       |       |       | -9.12 |       |       |       | 2");
        assert_eq!(lines[23], "| +4.87 |       |       |       |       |       |       | +0.05 | 1");
        assert!(lines[25].starts_with("    a       b"));
        let widths = [-1021, 1048, 99_999, -4, 994, 995].map(pawns_in_five);
        assert_eq!(widths, ["-10.2", "+10.5", "+1000", "-0.04", "+9.94", "+9.9"].map(String::from));
    }

    #[test]
    fn diagram_shows_board_fens_and_checkers() {
        let pos = fen("4k3/8/8/8/8/8/4q3/R3K2R w KQ - 0 1");
        let text = diagram(&pos);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "");
        assert_eq!(lines[1], " +---+---+---+---+---+---+---+---+");
        assert_eq!(lines[2], " |   |   |   |   | k |   |   |   | 8");
        assert_eq!(lines[16], " | R |   |   |   | K |   |   | R | 1");
        assert_eq!(lines[17], lines[1]);
        assert_eq!(lines[18], "   a   b   c   d   e   f   g   h");
        assert_eq!(lines[20], "Fen: 4k3/8/8/8/8/8/4q3/R3K2R w KQ - 0 1");
        assert_eq!(lines[21], "Shredder-FEN: 4k3/8/8/8/8/8/4q3/R3K2R w HA - 0 1");
        assert_eq!(lines[22], "Checkers: e2");
        assert_eq!(lines.len(), 23);
    }

    fn fen(text: &str) -> Chess {
        parse_fen(text).unwrap()
    }

    fn castle(king: Square, rook: Square) -> Move {
        Move::Castle { king, rook }
    }

    const CLASSICAL_CASTLING: &str = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1";

    #[test]
    fn classical_castling_written_by_mode() {
        let m = castle(Square::E1, Square::H1);
        assert_eq!(format_move(m, false), "e1g1");
        assert_eq!(format_move(m, true), "e1h1");
        assert_eq!(format_move(castle(Square::E8, Square::A8), false), "e8c8");
    }

    #[test]
    fn chess960_castling_is_king_takes_rook_in_both_modes() {
        let m = castle(Square::B1, Square::A1);
        assert_eq!(format_move(m, false), "b1a1");
        assert_eq!(format_move(m, true), "b1a1");
    }

    #[test]
    fn both_forms_read_from_classical_squares() {
        let pos = fen(CLASSICAL_CASTLING);
        assert_eq!(parse_move(&pos, "e1g1"), Ok(castle(Square::E1, Square::H1)));
        assert_eq!(parse_move(&pos, "e1h1"), Ok(castle(Square::E1, Square::H1)));
        assert_eq!(parse_move(&pos, "e1c1"), Ok(castle(Square::E1, Square::A1)));
        assert_eq!(parse_move(&pos, "E1A1"), Ok(castle(Square::E1, Square::A1)));
        assert!(matches!(parse_move(&pos, "e1f1"), Ok(Move::Normal { .. })));
    }

    #[test]
    fn king_step_is_never_castling() {
        // King f1, rook h1: f1g1 is an ordinary king step.
        let pos = fen("1r3k1r/8/8/8/8/8/8/1R3K1R w HBhb - 0 1");
        let m = parse_move(&pos, "f1g1").unwrap();
        assert!(matches!(m, Move::Normal { from: Square::F1, to: Square::G1, .. }));
        assert_eq!(parse_move(&pos, "f1h1"), Ok(castle(Square::F1, Square::H1)));
        // Queen-side from f1: king to c1, written only as king-takes-rook.
        assert_eq!(parse_move(&pos, "f1b1"), Ok(castle(Square::F1, Square::B1)));
        assert!(parse_move(&pos, "f1c1").is_err());
    }

    #[test]
    fn king_only_and_rook_only_castles() {
        // King g1 with rook h1: only the rook moves (to f1), the king stays.
        let pos = fen("k7/8/8/8/8/8/8/4R1KR w H - 0 1");
        assert!(pos.castles().has(Color::White, shakmaty::CastlingSide::KingSide));
        let m = parse_move(&pos, "g1h1").unwrap();
        assert_eq!(m, castle(Square::G1, Square::H1));
        // King e1 with rook d1: king to c1, rook stays on d1, so only the king moves.
        let pos = fen("k7/8/8/8/8/8/8/3RK3 w D - 0 1");
        assert_eq!(parse_move(&pos, "e1d1"), Ok(castle(Square::E1, Square::D1)));
        // The classical form is only for a rook on the a- or h-file.
        assert!(parse_move(&pos, "e1c1").is_err());
    }

    #[test]
    fn malformed_and_illegal() {
        let pos = Chess::default();
        assert!(matches!(parse_move(&pos, "e2e5"), Err(MoveError::Illegal(_))));
        assert!(matches!(parse_move(&pos, "e9e4"), Err(MoveError::Malformed(_))));
        assert!(parse_move(&pos, "0000").is_err());
        assert!(matches!(parse_move(&pos, "e1g1"), Err(MoveError::Illegal(_))));
        assert!(matches!(parse_move(&pos, "e2e4q"), Err(MoveError::Illegal(_))));
    }

    #[test]
    fn fen_dialects_agree() {
        let shredder = fen("nrbkqbrn/pppppppp/8/8/8/8/PPPPPPPP/NRBKQBRN w GBgb - 0 1");
        let x = fen("nrbkqbrn/pppppppp/8/8/8/8/PPPPPPPP/NRBKQBRN w KQkq - 0 1");
        assert_eq!(shredder.castles().castling_rights(), x.castles().castling_rights());
        assert_eq!(shredder_fen(&x), "nrbkqbrn/pppppppp/8/8/8/8/PPPPPPPP/NRBKQBRN w GBgb - 0 1");
        // Inner rook given by its file letter (X-FEN), outer one by K.
        let inner = fen("4k3/8/8/8/8/8/8/RR2K1R1 w KB - 0 1");
        assert_eq!(shredder_fen(&inner), "4k3/8/8/8/8/8/8/RR2K1R1 w GB - 0 1");
        assert_eq!(x_fen(&inner), "4k3/8/8/8/8/8/8/RR2K1R1 w KB - 0 1");
    }

    #[test]
    fn bad_fens_are_refused() {
        assert!(parse_fen("").is_err());
        assert!(parse_fen("8/8/8/8/8/8/8/8 w - - 0 1").is_err());
        assert!(parse_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1").is_err());
        // Stale castling rights are dropped, not refused.
        let pos = fen("4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1");
        assert!(pos.castles().is_empty());
    }
}
