//! OpenBench's datagen workloads run `backrank "genfens N seed S book
//! <None|file> [extra]" quit` and read every line `info string genfens
//! <FEN>`: the openings' format, legality, determinism and book, as a
//! client sees them.

use std::process::Command;

use backrank_uci::notation::parse_fen;
use shakmaty::{Bitboard, Chess, Position};

/// Runs the binary as OpenBench does; its stdout lines.
fn run(arguments: &[&str]) -> Vec<String> {
    let output = Command::new(env!("CARGO_BIN_EXE_backrank")).args(arguments).output().unwrap();
    assert!(output.status.success(), "{arguments:?}: {output:?}");
    assert!(output.stderr.is_empty(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap().lines().map(String::from).collect()
}

/// The openings among `lines`, parsed.
fn openings(lines: &[String]) -> Vec<(String, Chess)> {
    lines
        .iter()
        .filter_map(|l| l.strip_prefix("info string genfens "))
        .map(|fen| (fen.to_string(), parse_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))))
        .collect()
}

#[test]
fn genfens_without_a_book_gives_distinct_classical_openings() {
    let lines = run(&["genfens 64 seed 12345678901 book None", "quit"]);
    let found = openings(&lines);
    assert_eq!(found.len(), 64, "{lines:?}");
    assert_eq!(lines.len(), 64, "nothing but the openings: {lines:?}");
    let distinct: std::collections::HashSet<&String> = found.iter().map(|(fen, _)| fen).collect();
    assert_eq!(distinct.len(), 64);
    for (fen, pos) in &found {
        assert!(!pos.legal_moves().is_empty(), "{fen}");
        // Played as standard chess: castling with corner rooks only, a
        // king that has not castled on its e-file start square if it may.
        assert!((pos.castles().castling_rights() & !Bitboard::CORNERS).is_empty(), "{fen}");
        let plies = pos.fullmoves().get() * 2 - 2 + u32::from(pos.turn().is_black());
        assert!((8..=12).contains(&plies), "{fen}");
    }
    assert_eq!(run(&["genfens 64 seed 12345678901 book None", "quit"]), lines);
    assert_ne!(run(&["genfens 64 seed 12345678902 book None", "quit"]), lines);
}

#[test]
fn genfens_with_a_book_starts_from_its_lines() {
    let book = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/frc960.epd");
    let starts: Vec<Chess> =
        std::fs::read_to_string(book).unwrap().lines().map(|l| parse_fen(l).unwrap()).collect();
    let lines = run(&[&format!("genfens 30 seed 7 book {book}"), "quit"]);
    let found = openings(&lines);
    assert_eq!(found.len(), 30);
    let mut backranks = std::collections::HashSet::new();
    for (fen, pos) in &found {
        // Two to four plies from a book start: at most five of the 16 home
        // squares have changed (a castle changes two).
        let start = starts.iter().find(|start| {
            let same = Bitboard::BACKRANKS
                .into_iter()
                .filter(|&sq| pos.board().piece_at(sq) == start.board().piece_at(sq));
            same.count() >= 11
        });
        assert!(start.is_some(), "{fen} is not from the book");
        backranks.insert(start.unwrap().board().clone());
    }
    assert!(backranks.len() > 20, "the book's lines are drawn at random");
}

#[test]
fn genfens_names_extra_arguments_and_still_answers() {
    let lines = run(&["genfens 5 seed 3 book None --threads 4 custom", "quit"]);
    assert_eq!(openings(&lines).len(), 5);
    let notes: Vec<&String> = lines.iter().filter(|l| !l.starts_with("info string genfens ")).collect();
    assert_eq!(notes.len(), 1, "{lines:?}");
    assert!(notes[0].starts_with("info string") && notes[0].contains("--threads 4 custom"), "{notes:?}");
    // The known keys were still read: the same openings as without the extras.
    assert_eq!(openings(&lines), openings(&run(&["genfens 5 seed 3 book None", "quit"])));
}
