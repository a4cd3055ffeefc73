#!/usr/bin/env python3
"""Standard-chess openings for the levels' classical check (issue 24).

Usage: standard_openings.py ENGINE COUNT SEED > openings.epd

Plays 6-8 random plies from the start position (Chess960 position 518) and
keeps each new position that a 20,000-node search of ENGINE calls within
100 cp. `tools/standard-518.epd` is `standard_openings.py backrank 100 518`.
"""
import random
import sys

import chess
import chess.engine

MAX_SCORE_CP = 100
SEARCH_NODES = 20_000


def random_start(rng):
    """The start position after 6-8 random plies, or None if the game ended."""
    board = chess.Board()
    for _ in range(rng.choice([6, 7, 8])):
        board.push(rng.choice(list(board.legal_moves)))
        if board.is_game_over():
            return None
    return board


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    engine_cmd, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(seed)
    engine = chess.engine.SimpleEngine.popen_uci(engine_cmd)
    seen = set()
    while len(seen) < count:
        board = random_start(rng)
        if board is None or board.fen() in seen:
            continue
        info = engine.analyse(board, chess.engine.Limit(nodes=SEARCH_NODES))
        if abs(info["score"].white().score(mate_score=100_000)) <= MAX_SCORE_CP:
            seen.add(board.fen())
            print(board.fen(), flush=True)
    engine.quit()


if __name__ == "__main__":
    main()
