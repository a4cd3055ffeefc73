#!/usr/bin/env python3
"""SPSA tuning of the search's tunables on one machine, game pairs played by
the shared match runner (`../shared/tools/match.py`, or any runner with its
arguments and its `W/D/L (A): w/d/l` summary line).

The engine must be the `spsa` build (`make EXE=/tmp/backrank-spsa
FEATURES=spsa`): each tunable is then a UCI spin option, and `backrank spsa`
lists them in OpenBench's format, `NAME, int, VALUE, MIN, MAX, C_END, R_END`,
which is also what this script reads and prints. For example, the
evaluation margins at 25,000 nodes a move:

    python3 tools/spsa.py --match ../shared/tools/match.py \\
        --engine /tmp/backrank-spsa --openings ../shared/data/frc960.epd \\
        --only RFP_MARGIN,RAZOR_BASE,RAZOR_MARGIN,NMP_EVAL_DIVISOR,FP_BASE,FP_MARGIN \\
        --iterations 2000 --nodes 25000 --state /tmp/spsa-margins.json

Each iteration perturbs every tuned value by +-c_k (one random sign each),
plays `--pairs` game pairs (one opening, colours swapped) between the
plus and the minus engine, and moves the values by R_k c_k sign (plus's
wins less minus's wins). The gains follow the usual SPSA decay (alpha
0.602, gamma 0.101, A a tenth of the iterations), scaled so that the last
iteration perturbs by C_END and steps with R_END, as OpenBench does. The
state is saved after every iteration; rerunning with the same `--state`
goes on from there. Values are kept as reals and rounded when sent.
"""
import argparse
import json
import os
import random
import re
import subprocess
import sys

ALPHA, GAMMA = 0.602, 0.101


class Param:
    """One line of `backrank spsa`: NAME, int, VALUE, MIN, MAX, C_END, R_END."""

    def __init__(self, line):
        fields = [f.strip() for f in line.split(",")]
        if len(fields) != 7 or fields[1] != "int":
            raise ValueError(f"not an SPSA line: {line!r}")
        self.name = fields[0]
        self.value, self.low, self.high = (float(f) for f in fields[2:5])
        self.c_end, self.r_end = float(fields[5]), float(fields[6])

    def clamp(self, x):
        return min(max(x, self.low), self.high)

    def line(self, value):
        return (f"{self.name}, int, {round(value)}, {round(self.low)}, {round(self.high)}, "
                f"{self.c_end:g}, {self.r_end:g}")


def gains(p, k, iterations):
    """(c_k, R_k) of `p` at iteration k (0-based) of `iterations`."""
    big_a = iterations / 10
    c = p.c_end * (iterations / (k + 1)) ** GAMMA
    a = p.r_end * p.c_end ** 2 * ((big_a + iterations) / (big_a + k + 1)) ** ALPHA
    return c, a / c ** 2


def play(args, plus, minus, seed):
    """Plus's wins less minus's wins over `args.pairs` game pairs."""
    command = [sys.executable, args.match, "--engine", args.engine, "--vs", args.engine,
               "--name-a", "plus", "--name-b", "minus", "--openings", args.openings,
               "--random-openings", str(seed), "--nodes", str(args.nodes),
               "--games", str(2 * args.pairs), "--concurrency", str(args.concurrency), "--adjudicate"]
    for flag, values in (("--engine-opt", plus), ("--vs-opt", minus)):
        for name, value in values.items():
            command += [flag, f"{name}={round(value)}"]
        for option in args.engine_opt:
            command += [flag, option]
    run = subprocess.run(command, capture_output=True, text=True)
    found = re.search(r"W/D/L \(A\): (\d+)/(\d+)/(\d+)", run.stdout)
    if run.returncode != 0 or not found:
        sys.exit(f"the match runner failed (rc {run.returncode}):\n{run.stdout[-2000:]}{run.stderr[-2000:]}")
    faults = re.search(r"faults A/B: (.*)", run.stdout)
    if faults and re.search(r"[1-9]", faults.group(1)):
        print(f"  faults: {faults.group(1)}", flush=True)
    wins, _, losses = (int(g) for g in found.groups())
    return wins - losses


def load_params(args):
    listing = subprocess.run([args.engine, "spsa"], capture_output=True, text=True, check=True).stdout
    params = [Param(line) for line in listing.splitlines() if line.strip()]
    names = {p.name.upper() for p in params}

    def named(listing):
        wanted = {n.strip().upper() for n in listing.split(",") if n.strip()}
        if wanted - names:
            sys.exit(f"not tunables of this build: {', '.join(sorted(wanted - names))}")
        return wanted

    if args.only:
        wanted = named(args.only)
        params = [p for p in params if p.name.upper() in wanted]
    if args.exclude:
        unwanted = named(args.exclude)
        params = [p for p in params if p.name.upper() not in unwanted]
    if not params:
        sys.exit(f"{args.engine} spsa listed no tunables: is it the spsa build?")
    return params


def apply_defaults(path, values):
    """Rewrites each `NAME = DEFAULT, MIN..=MAX;` declaration of `path` with
    the value given for NAME; every name must be declared exactly once."""
    with open(path) as f:
        text = f.read()
    for name, value in values.items():
        text, count = re.subn(rf"^(\s*{name} = )-?\d+(, -?\d+..=)", rf"\g<1>{value}\g<2>", text, flags=re.M)
        if count != 1:
            sys.exit(f"{name} is declared {count} times in {path}")
    with open(path, "w") as f:
        f.write(text)
    print(f"wrote {len(values)} defaults to {path}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add = parser.add_argument
    add("--match", required=True, help="path of the match runner (../shared/tools/match.py)")
    add("--engine", required=True, help="the spsa build of backrank")
    add("--engine-opt", action="append", default=[], metavar="NAME=VALUE", help="for both sides (Hash=16)")
    add("--openings", required=True, help="EPD file of starting positions")
    add("--only", help="comma-separated tunables to tune (default: all)")
    add("--exclude", help="comma-separated tunables to leave alone")
    add("--iterations", type=int, default=1000)
    add("--pairs", type=int, default=2, help="game pairs an iteration (default 2)")
    add("--nodes", type=int, default=25000, help="nodes a move (default 25000)")
    add("--concurrency", type=int, default=2)
    add("--seed", type=int, default=1)
    add("--r-end", type=float, help="every tunable's R_END instead of the engine's (a short run "
        "needs larger steps than OpenBench's tens of thousands of pairs)")
    add("--state", required=True, help="JSON file: progress, saved every iteration")
    add("--show", action="store_true", help="print the state's current values and stop")
    add("--apply", metavar="PARAMS_RS", help="write the state's current values, rounded, as the defaults "
        "in PARAMS_RS (search/src/params.rs) and stop: the build to test against the untuned one")
    args = parser.parse_args()
    params = load_params(args)
    for p in params:
        p.r_end = args.r_end if args.r_end is not None else p.r_end
    # What fixes the run: resuming with other settings would mix two runs.
    config = {"iterations": args.iterations, "pairs": args.pairs, "nodes": args.nodes, "seed": args.seed,
              "r_end": args.r_end, "params": [p.name for p in params]}
    state = {"config": config, "k": 0, "games": 0, "theta": {p.name: p.value for p in params},
             "start": {p.name: p.value for p in params}}
    if os.path.exists(args.state):
        with open(args.state) as f:
            state = json.load(f)
        if state.get("config", config) != config:
            sys.exit(f"{args.state} is a run with other settings: {state['config']}")
        state["config"] = config
        print(f"resuming at iteration {state['k']}", flush=True)
    theta = state["theta"]
    if args.show or args.apply:
        print(f"iteration {state['k']}/{args.iterations}, {state.get('games', 0)} games (start in brackets):")
        for p in params:
            print(f"{p.line(theta[p.name])}   [{state['start'][p.name]:g}]")
        if args.apply:
            apply_defaults(args.apply, {p.name: round(theta[p.name]) for p in params})
        return
    for k in range(state["k"], args.iterations):
        rng = random.Random(f"{args.seed}/{k}")   # the same signs whether resumed or not
        signs = {p.name: rng.choice((-1, 1)) for p in params}
        steps = {p.name: gains(p, k, args.iterations) for p in params}
        plus = {p.name: p.clamp(theta[p.name] + steps[p.name][0] * signs[p.name]) for p in params}
        minus = {p.name: p.clamp(theta[p.name] - steps[p.name][0] * signs[p.name]) for p in params}
        result = play(args, plus, minus, args.seed * 100_000 + k)
        for p in params:
            c, r = steps[p.name]
            theta[p.name] = p.clamp(theta[p.name] + r * c * result * signs[p.name])
        state["k"] = k + 1
        state["games"] = state.get("games", 0) + 2 * args.pairs
        with open(args.state + ".tmp", "w") as f:
            json.dump(state, f, indent=1)
        os.replace(args.state + ".tmp", args.state)
        print(f"iteration {k + 1}/{args.iterations}: plus - minus {result:+d}", flush=True)
        if (k + 1) % 10 == 0 or k + 1 == args.iterations:
            print("  " + "; ".join(f"{p.name} {theta[p.name]:.1f}" for p in params), flush=True)
    print("final values (start in brackets):")
    for p in params:
        print(f"{p.line(theta[p.name])}   [{state['start'][p.name]:g}]")


if __name__ == "__main__":
    main()
