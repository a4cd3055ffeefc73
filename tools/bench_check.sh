#!/usr/bin/env bash
# The bench pinned: `backrank bench`'s node count must equal the last
# `Bench:` line in the commit messages (git log), the search's signature as
# Stockfish and OpenBench use it. A change that moves the bench says so in
# its commit message; until it is committed, BENCH=N gives the new count.
#
#   tools/bench_check.sh [BINARY]     (default: target/release/backrank)
#
# Exit status 1 when the counts differ (or no bench can be run); 0 with a
# warning when there is nothing to compare with: no git, not a checkout,
# or a shallow clone whose history holds no `Bench:` line.
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${1:-target/release/backrank}

if [[ -n ${BENCH:-} ]]; then
    expected=${BENCH//,/}
    source="BENCH=$BENCH"
elif ! command -v git >/dev/null || ! git rev-parse --git-dir >/dev/null 2>&1; then
    echo "bench_check.sh: warning: no git checkout here, so no Bench: line to compare with; skipped" >&2
    exit 0
else
    commit=$(git log -1 -E --grep='^Bench: *[0-9][0-9,]* *$' --format=%h)
    if [[ -z $commit ]]; then
        if [[ $(git rev-parse --is-shallow-repository) == true ]]; then
            echo "bench_check.sh: warning: shallow clone without a Bench: line in its history" \
                "(git fetch --unshallow, or BENCH=N); skipped" >&2
            exit 0
        fi
        echo "bench_check.sh: no Bench: line in git log" >&2
        exit 1
    fi
    expected=$(git log -1 --format=%B "$commit" | sed -n 's/^Bench: *\([0-9][0-9,]*\) *$/\1/p' | tail -n 1)
    expected=${expected//,/}
    source="the Bench: line of $commit"
fi

[[ -x $binary ]] || {
    echo "bench_check.sh: no binary $binary (cargo build --release -p backrank)" >&2
    exit 1
}
nodes=$("$binary" bench 2>&1 | sed -n 's/^Nodes searched: *//p' | tail -n 1)
if [[ -z $nodes ]]; then
    echo "bench_check.sh: $binary bench printed no 'Nodes searched:' line" >&2
    exit 1
fi
if [[ $nodes != "$expected" ]]; then
    echo "bench_check.sh: bench $nodes nodes, but $source says $expected:" \
        "a change of the search must give its new Bench: line" >&2
    exit 1
fi
echo "bench_check.sh: bench $nodes nodes, as $source"
