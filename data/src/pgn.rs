//! Games in PGN as cutechess and fastchess write them, for example the
//! games an OpenBench datagen workload returns: `[FEN]` and `[Variant]`
//! tags, SAN moves, and after each engine move a comment like
//! `{+0.35/12 0.123s}` (pawns from the mover's view, then depth and time;
//! `+M5` for a mate). Moves without such a comment (`{book}`) get
//! [`NO_SCORE`] and are never trained on.

use shakmaty::fen::Fen;
use shakmaty::san::San;
use shakmaty::{CastlingMode, Chess, Color, Position};

use crate::{Game, NO_SCORE, Outcome};

/// A mate score from a comment, in centipawns: beyond any filter's reach.
const MATE_SCORE: i16 = 32_000;

/// Every game of a PGN text that has a result; a game that cannot be read
/// (an unknown start, an illegal move) gives an error naming its number.
pub fn parse_games(text: &str) -> Vec<Result<Game, String>> {
    let mut games = Vec::new();
    let mut tags: Vec<(String, String)> = Vec::new();
    let mut movetext = String::new();
    let mut number = 0;
    let mut flush = |tags: &mut Vec<(String, String)>, movetext: &mut String| {
        if !movetext.trim().is_empty() {
            number += 1;
            games.push(parse_game(tags, movetext).map_err(|e| format!("game {number}: {e}")));
        }
        tags.clear();
        movetext.clear();
    };
    for line in text.lines() {
        let line = line.trim();
        if let Some(tag) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            if !movetext.trim().is_empty() {
                flush(&mut tags, &mut movetext);
            }
            if let Some((name, value)) = tag.split_once(' ') {
                tags.push((name.to_string(), value.trim().trim_matches('"').to_string()));
            }
        } else {
            movetext.push_str(line);
            movetext.push('\n');
        }
    }
    flush(&mut tags, &mut movetext);
    games
}

fn parse_game(tags: &[(String, String)], movetext: &str) -> Result<Game, String> {
    let tag = |name: &str| tags.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str());
    let start: Chess = match tag("FEN") {
        Some(fen) => fen
            .parse::<Fen>()
            .map_err(|e| format!("bad FEN: {e}"))?
            .into_position(CastlingMode::Chess960)
            .map_err(|e| format!("bad start position: {e}"))?,
        None => Chess::default(),
    };
    let mut outcome = tag("Result").and_then(outcome_of);
    let mut pos = start.clone();
    let mut moves = Vec::new();
    let mut rest = movetext;
    while let Some(c) = rest.chars().next() {
        if c.is_whitespace() {
            rest = &rest[c.len_utf8()..];
        } else if c == '{' {
            let end = rest.find('}').ok_or("unclosed comment")?;
            if let Some((_, score)) = moves.last_mut() {
                // The score of the position the last move was played from,
                // given from the mover's view.
                let mover = !pos.turn();
                if let Some(cp) = comment_score(&rest[1..end]) {
                    *score = if mover == Color::White { cp } else { cp.saturating_neg() };
                }
            }
            rest = &rest[end + 1..];
        } else {
            let end = rest.find(|c: char| c.is_whitespace() || c == '{').unwrap_or(rest.len());
            let token = &rest[..end];
            rest = &rest[end..];
            if let Some(result) = outcome_of(token) {
                outcome = Some(result);
            } else if !token.starts_with(|c: char| c.is_ascii_digit()) && !token.starts_with('$') {
                let san: San = token.parse().map_err(|_| format!("bad move '{token}'"))?;
                let m = san.to_move(&pos).map_err(|_| format!("illegal move '{token}'"))?;
                moves.push((m, NO_SCORE));
                pos.play_unchecked(m);
            }
        }
    }
    let outcome = outcome.ok_or("no result")?;
    Ok(Game { start, moves, outcome })
}

fn outcome_of(token: &str) -> Option<Outcome> {
    match token {
        "1-0" => Some(Outcome::WhiteWins),
        "0-1" => Some(Outcome::BlackWins),
        "1/2-1/2" => Some(Outcome::Draw),
        _ => None,
    }
}

/// The centipawns of a `{+0.35/12 0.123s}` comment, from the mover's view.
fn comment_score(comment: &str) -> Option<i16> {
    let first = comment.split_whitespace().next()?;
    let score = first.split('/').next()?;
    if let Some(mate) = score.strip_prefix("+M").or(score.strip_prefix("M")) {
        return mate.parse::<u32>().ok().map(|_| MATE_SCORE);
    }
    if let Some(mate) = score.strip_prefix("-M") {
        return mate.parse::<u32>().ok().map(|_| -MATE_SCORE);
    }
    if !first.contains('/') {
        return None;
    }
    let pawns: f64 = score.parse().ok()?;
    Some((pawns * 100.0).round().clamp(-30_000.0, 30_000.0) as i16)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PGN: &str = r#"[Event "datagen"]
[Variant "fischerandom"]
[FEN "1r2k1r1/pbppnp1p/1b3P2/8/Q7/B1PB1q2/P4PPP/3RK1R1 w GDgb - 0 1"]
[Result "0-1"]

1. O-O {book} O-O-O {+0.35/12 0.123s} 2. Qxa7 {-0.20/11 0.101s} Qxf2+
{+M3/20 0.2s} 0-1

[Event "second"]
[Result "1/2-1/2"]

1. e4 {+0.30/10 0.1s} e5 {-0.25/10 0.1s} 1/2-1/2
"#;

    #[test]
    fn reads_fastchess_games_with_their_scores() {
        let games: Vec<Game> = parse_games(PGN).into_iter().map(Result::unwrap).collect();
        assert_eq!(games.len(), 2);
        let first = &games[0];
        assert_eq!(first.outcome, Outcome::BlackWins);
        assert!(first.moves[0].0.is_castle() && first.moves[1].0.is_castle());
        let scores: Vec<i16> = first.moves.iter().map(|&(_, s)| s).collect();
        // Book, Black's +0.35, White's -0.20, Black's mate in 3: White's view.
        assert_eq!(scores, vec![NO_SCORE, -35, -20, -MATE_SCORE]);
        assert_eq!(games[1].moves.iter().map(|&(_, s)| s).collect::<Vec<_>>(), vec![30, 25]);
        assert_eq!(games[1].outcome, Outcome::Draw);
        assert!(parse_games("[FEN \"bad\"]\n\n1. e4 1-0\n")[0].is_err());
        assert!(parse_games("1. e4 e4 1-0\n")[0].as_ref().unwrap_err().contains("illegal"));
    }
}
