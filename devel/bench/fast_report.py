#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""fast_report.py ROWS.csv - devel/a2a-fast-links' rows as a markdown table.

One line per switch, layout and size: the median time of nothing asked and
of --ordered-alltoall over the rounds, the median of the per-round ratios
(ordered / default) with the least and most, the switch's drops per job for
each, the paced time against the link's bound (the bytes converging on one
port over its rate; none for the unshaped veth), and what the library did:
calls paced and within the window, and the window rank 0 reached.
"""
import csv
import statistics
import sys
from collections import defaultdict

# The rate of each switch's port in bits/s (devel/bench/switches.bash), for the bound.
RATE = {"fast-10g-512k": 10e9, "fast-1g-deep": 1e9, "fast-1g-96k": 1e9,
        "gige-lossy": 100e6, "gige-fc": 100e6}


def size_text(n):
    n = int(n)
    if n >= 1 << 20:
        return "%d MiB" % (n >> 20)
    return "%d KiB" % (n >> 10) if n >= 1024 else "%d B" % n


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    cells = defaultdict(lambda: defaultdict(dict))	# (sw, layout, size) -> variant -> round -> row
    order = []
    for r in rows:
        key = (r["switch"], r["layout"], int(r["size"]))
        if key not in cells:
            order.append(key)
        cells[key][r["variant"]][r["round"]] = r
    fixed = any("ordered16k" in cells[k] for k in cells)
    print("| switch | layout | per pair | nothing asked | `--ordered-alltoall` | ratio (least-most) "
          "| drops: nothing asked / ordered | ordered / bound | paced, within the window | window reached |"
          + (" 16 KiB fixed | auto / 16 KiB fixed | drops, 16 KiB fixed |" if fixed else ""))
    print("|---|---|---|---|---|---|---|---|---|---|" + ("---|---|---|" if fixed else ""))
    for key in order:
        sw, layout, size = key
        d, o = cells[key].get("default", {}), cells[key].get("ordered", {})
        both = sorted(set(d) & set(o))
        if not both:
            continue
        td = [float(d[x]["median_s"]) for x in both]
        to = [float(o[x]["median_s"]) for x in both]
        ratios = [b / a for a, b in zip(td, to) if a > 0]
        nodes, per_node = (int(v) for v in layout.split("x"))
        ranks = nodes * per_node
        bound = ""
        if sw in RATE and nodes > 1:
            fanin = size * per_node * (ranks - per_node)	# bytes converging on one port
            bound = "%.2fx" % (statistics.median(to) / (fanin * 8 / RATE[sw]))
        drops_d = "/".join(d[x]["drops"] for x in both)
        drops_o = "/".join(o[x]["drops"] for x in both)
        paced = "/".join("%s, %s" % (o[x]["paced"], o[x]["within"]) for x in both)
        window = "/".join(o[x]["window"] or "-" for x in both)
        extra = ""
        f16 = cells[key].get("ordered16k", {})
        if fixed and f16:
            common = sorted(set(o) & set(f16))
            tf = [float(f16[x]["median_s"]) for x in common]
            rf = [float(o[x]["median_s"]) / float(f16[x]["median_s"]) for x in common
                  if float(f16[x]["median_s"]) > 0]
            extra = " %.2f ms | **%.2fx** (%.2f-%.2f) | %s |" % (
                statistics.median(tf) * 1e3, statistics.median(rf), min(rf), max(rf),
                "/".join(f16[x]["drops"] for x in common))
        elif fixed:
            extra = " - | - | - |"
        print("| %s | %s | %s | %.2f ms | %.2f ms | **%.2fx** (%.2f-%.2f) | %s / %s | %s | %s | %s |%s" % (
            sw, layout, size_text(size), statistics.median(td) * 1e3, statistics.median(to) * 1e3,
            statistics.median(ratios), min(ratios), max(ratios), drops_d, drops_o, bound or "-",
            paced, window, extra))
    print()
    print("Drops and the library's counts are per job (each job runs every size, so its "
          "drops and calls are the job's whole), one figure per round. The window is rank 0's "
          "at the job's end; paced and within the window count rank 0's calls of all sizes.")


if __name__ == "__main__":
    main()
