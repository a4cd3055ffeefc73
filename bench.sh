#!/usr/bin/env bash
# Builds the release binary and runs its bench: the last two lines are the
# node count (the search's regression signature, for `Bench:` in commit
# messages) and the speed.
set -euo pipefail
cd "$(dirname "$0")"
cargo build --release --quiet
./target/release/backrank bench "$@"
