#!/usr/bin/env python3
"""Standard chess through the shared Chess960 match runner.

`../shared/tools/match.py` plays every opening as a Chess960 board (it sends
`UCI_Chess960 true` and king-takes-rook castling). This wrapper runs the same
tool with its openings turned into standard-chess boards, so that both
engines play with `UCI_Chess960` false and castle `e1g1`: the classical check
of the playing levels (issue 24). Arguments are match.py's own, for example

    python3 tools/standard_match.py ../shared/tools/match.py --engine ... \\
        --vs /usr/games/stockfish --openings standard.epd --tc 10+0.1

Openings must be standard-chess positions (position 518 after a few plies).
"""
import importlib.util
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    spec = importlib.util.spec_from_file_location("match", sys.argv[1])
    match = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(match)
    load_chess960 = match.load_openings

    def load_standard(file, parser):
        boards = load_chess960(file, parser)
        for board in boards:
            board.chess960 = False
            if board.has_chess960_castling_rights():
                parser.error(f"not a standard-chess position: {board.fen()}")
        return boards

    match.load_openings = load_standard
    sys.exit(match.main(sys.argv[2:]))


if __name__ == "__main__":
    main()
