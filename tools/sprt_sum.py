#!/usr/bin/env python3
"""One SPRT over several sittings: the pentanomial of each `match.py` log (or
of counts written down earlier), summed, with its Elo and LLR.

On two cores a `--sprt 0 5` test of a +20 change needs more games than one
session has time for. Stopping a sequential test for a reason that does not
depend on its games (the session's end) and going on later with more game
pairs from the same opening set is still one test, as long as the same two
builds play under the same conditions and the pairs are simply added. This
script does the adding, with the shared runner's own statistics
(`elo_summary`, `sprt_llr`), so that nothing is computed twice differently:

    python3 tools/sprt_sum.py --match ../shared/tools/match.py \\
        --sprt 0 5 --penta 3,40,120,52,5 ~/sprt-part2.log

Each log (plain, or `.xz` as the committed ones) is read from its
`game N/M ... RESULT (...)` lines: games 2p+1 and
2p+2 are pair p, A playing White in the first. A pair with one game
missing (the run was stopped between them) is left out. `--penta` adds the
counts of earlier sittings, `[LL, LD, DD/WL, WD, WW]` as the runner prints
them. Record the printed pentanomial when a sitting stops (in
`search/EXPERIMENTS.md` or `nets/README.md`): it is all a later sitting
needs.
"""
import argparse
import importlib.util
import lzma
import re

GAME = re.compile(r"^game (\d+)/\d+ .* (1-0|0-1|1/2-1/2) \(.*\) opening#\d+\s*$")
WHITE_SCORE = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


def load_runner(path):
    """The shared match runner as a module, for its statistics."""
    spec = importlib.util.spec_from_file_location("match_runner", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def log_pentanomial(path):
    """Pentanomial counts of the complete pairs in one match.py log, A's side."""
    a_scores = {}
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rt", errors="replace") as log:
        for line in log:
            found = GAME.match(line)
            if found:
                game, white = int(found.group(1)), WHITE_SCORE[found.group(2)]
                a_scores[game] = white if game % 2 == 1 else 1.0 - white
    penta = [0] * 5
    for first in range(1, max(a_scores, default=0) + 1, 2):
        if first in a_scores and first + 1 in a_scores:
            penta[round(2 * (a_scores[first] + a_scores[first + 1]))] += 1
    return penta


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--match", required=True, help="path of the shared match.py")
    parser.add_argument("--sprt", nargs=2, type=float, metavar=("ELO0", "ELO1"), required=True)
    parser.add_argument("--penta", action="append", default=[],
                        help="earlier counts LL,LD,DD,WD,WW (repeatable)")
    parser.add_argument("logs", nargs="*", help="match.py logs (plain or .xz)")
    args = parser.parse_args()
    runner = load_runner(args.match)
    total = [0] * 5
    sittings = [[int(c) for c in text.split(",")] for text in args.penta]
    sittings += [log_pentanomial(path) for path in args.logs]
    for counts, name in zip(sittings, args.penta + args.logs):
        if len(counts) != 5:
            parser.error(f"--penta {name}: five counts are needed")
        print(f"{name}: pentanomial {counts}, pairs {sum(counts)}")
        total = [t + c for t, c in zip(total, counts)]
    elo, half, los, _ = runner.elo_summary(total)
    llr = runner.sprt_llr(total, *args.sprt)
    verdict = "H1 accepted" if llr >= runner.UPPER else "H0 accepted" if llr <= runner.LOWER else "undecided"
    print(f"total: pentanomial {total}, pairs {sum(total)}, games {2 * sum(total)}")
    print(f"Elo: {elo:+.1f} +/- {half:.1f}, LOS: {los * 100:.1f}%, "
          f"LLR: {llr:.2f} [{runner.LOWER:.2f}, {runner.UPPER:.2f}] ({verdict})")


if __name__ == "__main__":
    main()
