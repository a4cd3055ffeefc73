#!/usr/bin/env python3
"""Seconds a move per engine, from the `%emt` comments of a PGN.

Reads the PGN files `../shared/tools/match.py` writes and prints, for
each player, the mean and median thinking time over the first N moves of
each game (40 by default), so the time manager can be compared with an
opponent's in the same games:

    python3 tools/move_times.py games.pgn [more.pgn ...] [--moves 40]
"""
import argparse
import re
import statistics
import sys

EMT = re.compile(r"\[%emt (\d+):(\d+):([\d.]+)\]")
TAG = re.compile(r'^\[(\w+) "(.*)"\]')


def games(path):
    """Yields (tags, [seconds a ply]) for each game in `path`."""
    tags, moves = {}, []
    with open(path, encoding="utf-8") as pgn:
        for line in pgn:
            tag = TAG.match(line)
            if tag:
                if moves:
                    yield tags, moves
                    tags, moves = {}, []
                tags[tag.group(1)] = tag.group(2)
                continue
            for h, m, s in EMT.findall(line):
                moves.append(int(h) * 3600 + int(m) * 60 + float(s))
    if moves:
        yield tags, moves


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pgn", nargs="+")
    parser.add_argument("--moves", type=int, default=40, help="moves of each side counted")
    args = parser.parse_args()
    spent = {}
    for path in args.pgn:
        for tags, plies in games(path):
            # A start with Black to move gives Black the first %emt.
            black_first = tags.get("FEN", "").split(" ")[1:2] == ["b"]
            for side, player in enumerate((tags.get("White", "?"), tags.get("Black", "?"))):
                own = plies[side ^ black_first :: 2][: args.moves]
                spent.setdefault(player, []).extend(own)
    if not spent:
        sys.exit("no %emt comments found")
    for player, times in sorted(spent.items()):
        print(
            f"{player}: {len(times)} moves, mean {statistics.mean(times):.3f} s, "
            f"median {statistics.median(times):.3f} s"
        )


if __name__ == "__main__":
    main()
