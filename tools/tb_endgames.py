#!/usr/bin/env python3
"""Writes random legal 3- and 4-piece endgame starts (EPD, one per line) for
the tablebase match: `python3 tools/tb_endgames.py N SEED > file.epd`.

Each position has both kings and one or two other pieces (pawns on ranks
2-7 only), is legal, has no castling rights, the side to move is not in
check, and has at least one legal move. Trivially drawn material (bare
kings, a lone minor piece) is skipped, and so are positions where a capture
is possible at once, so that games start in the endgame they were drawn in.
"""

import random
import sys

import chess

ROLES = [chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN]


def random_position(rng: random.Random) -> chess.Board | None:
    board = chess.Board(None)
    extra = rng.choice([1, 2, 2])
    squares = rng.sample(chess.SQUARES, 2 + extra)
    board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
    board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
    for square in squares[2:]:
        role = rng.choice(ROLES)
        if role == chess.PAWN and chess.square_rank(square) in (0, 7):
            return None
        board.set_piece_at(square, chess.Piece(role, rng.choice([chess.WHITE, chess.BLACK])))
    board.turn = rng.choice([chess.WHITE, chess.BLACK])
    if not board.is_valid() or board.is_check() or board.is_game_over():
        return None
    if board.is_insufficient_material():
        return None
    if any(board.is_capture(m) for m in board.legal_moves):
        return None
    return board


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    seen = set()
    while len(seen) < count:
        board = random_position(rng)
        if board is not None and board.epd() not in seen:
            seen.add(board.epd())
            print(board.fen())


if __name__ == "__main__":
    main()
