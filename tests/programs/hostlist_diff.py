#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""hostlist_diff.py - our hostlist expansion against Slurm's own.

Usage: hostlist_diff.py IBNET_HOSTS SEED COUNT

Slurm's side is `scontrol show hostnames` and `scontrol show hostlist`
(libslurm's hostlist code), run with a minimal slurm.conf in $SLURM_CONF,
no cluster needed. Two checks:

1. Lists Slurm itself produces: random sets of realistic node names,
   compressed by `scontrol show hostlist`, must expand exactly as Slurm
   expands them, order included.
2. Generated expressions: when both accept one, the hosts and their order
   must be the same. When only one side accepts, the expression must fall
   in a known, documented class; the classes and counts are printed.

Prints one line per mismatch and a summary; exits 1 on any mismatch.
"""
import random
import re
import subprocess
import sys

ours_bin, seed, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)


def slurm_expand(expr):
    p = subprocess.run(["scontrol", "show", "hostnames", expr], capture_output=True, text=True)
    if p.returncode != 0 or "Invalid" in p.stdout + p.stderr or "error" in p.stderr:
        return None
    return p.stdout.split()


def slurm_compress(names):
    p = subprocess.run(["scontrol", "show", "hostlist", ",".join(names)],
                       capture_output=True, text=True)
    return p.stdout.strip() if p.returncode == 0 else None


def ours_expand(expr):
    p = subprocess.run([ours_bin, "--expand", "--separator", " ", "--", expr],
                       capture_output=True, text=True)
    return p.stdout.split() if p.returncode == 0 else None


def realistic_names():
    style = rng.choice(["cX-Y", "nodeNNN", "gpuNN", "rXXnYY", "cnN"])
    n = rng.randint(1, 40)
    names = set()
    for _ in range(n):
        if style == "cX-Y":
            names.add(f"c{rng.randint(1, 12)}-{rng.randint(1, 40)}")
        elif style == "nodeNNN":
            names.add(f"node{rng.randint(0, 999):03d}")
        elif style == "gpuNN":
            names.add(f"gpu{rng.randint(0, 99):02d}")
        elif style == "rXXnYY":
            names.add(f"r{rng.randint(1, 20):02d}n{rng.randint(1, 36):02d}")
        else:
            names.add(f"cn{rng.randint(1, 3000)}")
    return sorted(names)


def random_range():
    lo = rng.randint(0, 30)
    width = rng.choice([1, 1, 2, 3])
    if rng.random() < 0.5:
        return f"{lo:0{width}d}"
    hi = lo + rng.randint(0, 12)
    return f"{lo:0{width}d}-{hi:0{width}d}"


def random_expression():
    items = []
    for _ in range(rng.randint(1, 3)):
        parts = [rng.choice(["c", "n", "node", "a", "x1", "r"])]
        for b in range(rng.randint(0, 3)):
            if b:
                parts.append(rng.choice(["", "-", "x", "n", "."]))
            parts.append("[" + ",".join(random_range() for _ in range(rng.randint(1, 3))) + "]")
        if rng.random() < 0.1:
            parts.append(rng.choice(["b", "-x"]))        # text after the last bracket
        items.append("".join(parts))
    expr = ",".join(items)
    if rng.random() < 0.05:
        expr = expr.replace("]", ",]", 1)                # an empty range
    return expr


# Classes of expressions only one side accepts (docs/admin-guide.md, "Hostlists").
def classify(expr, slurm, ours):
    if ours is not None and slurm is None and re.search(r"\][^\[,]+(,|$)", expr):
        return "ours accepts text after the last bracket (Slurm refuses)"
    if slurm is not None and ours is None and len(slurm) != len(set(slurm)):
        return "ours accepts duplicates too: unexpected"
    return None


mismatches = 0
classes = {}

# 1. What Slurm produces expands exactly as Slurm expands it.
produced = max(count // 5, 1)
for _ in range(produced):
    names = realistic_names()
    compressed = slurm_compress(names)
    want = slurm_expand(compressed)
    got = ours_expand(compressed)
    if got != want:
        mismatches += 1
        print(f"MISMATCH slurm-produced {compressed!r}: slurm={want} ours={got}")

# 2. Generated expressions.
both = 0
for _ in range(count):
    expr = random_expression()
    slurm, ours = slurm_expand(expr), ours_expand(expr)
    if slurm is not None and ours is not None:
        both += 1
        if slurm != ours:
            mismatches += 1
            print(f"MISMATCH {expr!r}: slurm={slurm[:12]} ours={ours[:12]}")
    elif slurm is not None or ours is not None:
        c = classify(expr, slurm, ours)
        if c is None:
            mismatches += 1
            print(f"UNCLASSIFIED {expr!r}: slurm={'accepts' if slurm else 'refuses'} "
                  f"ours={'accepts' if ours else 'refuses'}")
        else:
            classes[c] = classes.get(c, 0) + 1

print(f"slurm-produced lists: {produced}, generated: {count}, accepted by both: {both}")
for c, n in sorted(classes.items()):
    print(f"  {n}: {c}")
print(f"mismatches: {mismatches}")
sys.exit(1 if mismatches else 0)
