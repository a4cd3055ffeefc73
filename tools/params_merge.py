#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Resolve `git apply -3` conflicts in search/src/params.rs after a tuning run.

A queued experiment patch adds tunables beside lines whose values a tuning
run has since changed, so `git apply -3` leaves conflict blocks there. This
keeps each block's tunables at the tuned values ("ours") and adds the patch's
new tunables and their comments ("theirs"). It refuses a block where the
tuned side holds a tunable or line the patch's side lacks. Either conflict
style (`merge.conflictStyle` merge or diff3) is read.

    git apply -3 search/experiments/<name>.patch
    python3 tools/params_merge.py search/src/params.rs && git add search/src/params.rs
"""
import re
import sys

TUNABLE = re.compile(r"^\s*([A-Z_0-9]+)\s*=")


def name(line):
    match = TUNABLE.match(line)
    return match.group(1) if match else None


def merge_block(ours, theirs):
    tuned = {name(line): line for line in ours if name(line)}
    added = {name(line) for line in theirs if name(line)}
    if not set(tuned) <= added:
        sys.exit(f"params_merge: the patch drops {sorted(set(tuned) - added)}")
    if any(not name(line) and line not in theirs for line in ours):
        sys.exit("params_merge: the tuned side has a line the patch lacks")
    return [tuned.get(name(line), line) for line in theirs]


def merge(lines):
    out, i = [], 0
    while i < len(lines):
        if not lines[i].startswith("<<<<<<<"):
            out.append(lines[i])
            i += 1
            continue
        ours, theirs, i = [], [], i + 1
        while not lines[i].startswith(("|||||||", "=======")):
            ours.append(lines[i])
            i += 1
        while not lines[i].startswith("======="):  # diff3's common base
            i += 1
        i += 1
        while not lines[i].startswith(">>>>>>>"):
            theirs.append(lines[i])
            i += 1
        out += merge_block(ours, theirs)
        i += 1
    return out


if __name__ == "__main__":
    path = sys.argv[1]
    with open(path) as f:
        text = f.read().split("\n")
    with open(path, "w") as f:
        f.write("\n".join(merge(text)))
