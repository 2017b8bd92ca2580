#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""project_report.py CSV OUT_DIR - the model's projections (devel/smpi-model/project's
rows) as docs/benchmarks.md's "At scale (simulated)" tables and a plot.

Writes OUT_DIR/at-scale-projections.md and OUT_DIR/at-scale-projections.png, and prints
one CALIBRATION line per calibrated cell in the rows; exits 1 when one of them is not
within 25% of its measurement (the issue's tolerance), saying which.
"""
import csv
import os
import subprocess
import sys
from collections import defaultdict

# Measured on a 16-core machine with the project's kit (devel/many-cores): 8 x 4 at
# 100 Mbit/s on 16 MB ports in its first run (../shared/notes/many-cores.md); at 1 and
# 10 Gbit/s its run of 2026-11-28 (../shared/data/many-cores-2026-11-28/run1/matrix.csv:
# Open MPI 4.1.4, CUBIC, tbf ports of 32 KiB burst on veths, 3 rounds). Keyed by
# (nodes, ranks a node, Gbit/s, port bytes, size, scheme); the kit's "auto" (the paced
# library with its window sizing itself, the link's rate passed) is the model's "paced".
# Seconds: the least, the median and the most of the rounds' medians; the drops of each
# round (all its calls, the untimed first too). The 8 x 4 cells had one round: the least
# and the most of its calls, and their midpoint (issue 42's reference).
MEASURED = {
    (8, 4, 0.1, 16000000, 4096, "own"): (0.0388, 0.0392, 0.0396, None),
    (8, 4, 0.1, 16000000, 16384, "own"): (0.155, 0.1555, 0.156, None),
    (8, 4, 0.1, 16000000, 4096, "paced"): (0.0399, 0.03995, 0.0400, None),
    (8, 4, 0.1, 16000000, 16384, "paced"): (0.1603, 0.1603, 0.1603, None),
    (4, 1, 1, 96000, 65536, "own"): (0.001866, 0.001871, 0.002308, (359, 3857, 2673)),
    (4, 1, 1, 96000, 65536, "paced"): (0.001588, 0.001600, 0.001602, (0, 0, 0)),
    (8, 1, 1, 96000, 65536, "own"): (0.012395, 0.207708, 0.208090, (2444, 2197, 2560)),
    (8, 1, 1, 96000, 65536, "paced"): (0.003780, 0.003790, 0.003796, (0, 0, 0)),
    (2, 2, 1, 96000, 65536, "own"): (0.002424, 0.002965, 0.011587, (1943, 329, 1976)),
    (2, 2, 1, 96000, 65536, "paced"): (0.002190, 0.002197, 0.002207, (0, 0, 0)),
    (8, 1, 1, 16000000, 65536, "own"): (0.004188, 0.004244, 0.004403, (0, 0, 0)),
    (8, 1, 1, 16000000, 65536, "paced"): (0.003782, 0.003782, 0.003790, (0, 0, 0)),
    (4, 1, 1, 96000, 1048576, "own"): (0.227798, 0.231735, 0.236623, (11946, 11928, 11936)),
    (4, 1, 1, 96000, 1048576, "paced"): (0.026688, 0.026710, 0.026735, (0, 0, 0)),
    (4, 1, 10, 512000, 65536, "own"): (0.000573, 0.000583, 0.000586, (0, 0, 0)),
    (4, 1, 10, 512000, 65536, "paced"): (0.000456, 0.000467, 0.000493, (0, 0, 0)),
    (4, 1, 10, 512000, 1048576, "own"): (0.009784, 0.010374, 0.010862, (81, 87, 51)),
    (4, 1, 10, 512000, 1048576, "paced"): (0.006659, 0.007176, 0.007603, (0, 0, 0)),
    (8, 1, 10, 512000, 65536, "own"): (0.001461, 0.001526, 0.001590, (0, 0, 0)),
    (8, 1, 10, 512000, 65536, "paced"): (0.001083, 0.001143, 0.001161, (0, 0, 0)),
    # The storm (issue 48): its launches of the MPI's own all ran past the kit's time
    # limit, so their drops cannot be put per round of calls (None).
    (8, 4, 0.1, 24000, 4096, "own"): (0.367292, 0.995476, 2.623040, None),
    (8, 4, 0.1, 24000, 4096, "paced"): (0.040092, 0.040172, 0.040202, (0, 0, 0)),
}
# A cell the model does not match, with the cause found: said in the table and on its
# CALIBRATION line, not refused (project_report refuses a cell outside the tolerance
# with no cause: a change that moves a matched cell).
CAUSE_TEXT = {
    "A": ("the model's MPI's own loses far fewer packets than Linux did on these "
          "ports (16-core: 329-11,946 drops a round of a few calls; the model: 1.5-17 a call) and "
          "waits no retransmission timeout in its steady calls, where most of the 16-core "
          "calls did (207-237 ms). Not found why: ns-3's CUBIC and recovery against Linux's at "
          "these bursts (senders at 8 Gbit/s into a 1 Gbit/s port) is where to look; a run with "
          "Linux's 64 KiB GSO packets (MODEL_GSO=65536) was stopped unfinished after 20 minutes "
          "on a loaded machine (2.6 of them its CPU time)"),
    "B": ("the model has no CPU time: at 10 Gbit/s the 16-core hosts, not the links, set "
          "these calls' times (a node received 2-3.8 Gbit/s: docs/bench/fast-links.md, the kit's "
          "reports). With the veths at 3.8 Gbit/s instead of 8 the 64 KiB cells came out 1.2-1.5x "
          "slow and 4 x 1 at 1 MiB 0.89x: the measured times lie between the two host rates"),
    "C": ("a lottery of retransmission timeouts: the kit's three rounds' medians of the MPI's "
          "own in the storm were 0.37, 1.00 and 2.62 s and every launch of it ran past the kit's "
          "time limit; the model's median lies inside that spread, its calls 1.4-3.1 s, all "
          "with a timeout"),
}
CAUSES = {
    (8, 1, 1, 96000, 65536, "own"): "A",
    (2, 2, 1, 96000, 65536, "own"): "A",
    (4, 1, 1, 96000, 1048576, "own"): "A",
    (4, 1, 10, 512000, 65536, "own"): "B",
    (4, 1, 10, 512000, 65536, "paced"): "B",
    (8, 1, 10, 512000, 65536, "own"): "B",
    (4, 1, 10, 512000, 1048576, "own"): "B",
    (4, 1, 10, 512000, 1048576, "paced"): "B",
    (8, 4, 0.1, 24000, 4096, "own"): "C",
}
TOLERANCE = 0.25
SCHEMES = ("own", "floor", "paced", "auto")


def tree_of(row):
    """A two-tier tree's (hosts a leaf, oversubscription) from the ports column
    ("flow-tree:16:4"), or None for one switch."""
    if not row["ports"].startswith("flow-tree:"):
        return None
    leaf, oversub = row["ports"].split(":")[1:3]
    return int(leaf), float(oversub)


def link_bound(row):
    """Seconds the busiest link needs for the call's bytes (payload; headers add 3.6%
    at 1,448-byte segments): a node's port, which carries what it sends to other
    nodes, or in a tree a leaf's uplink, which carries what its hosts send out of
    the leaf at LEAF x RATE / OVERSUB."""
    rpn, nodes = int(row["ranks_per_node"]), int(row["nodes"])
    rate = float(row["gbps"]) * 1e9
    bound = rpn * rpn * (nodes - 1) * int(row["size"]) * 8 / rate
    tree = tree_of(row)
    if tree and nodes > tree[0]:
        leaf, oversub = tree
        out = leaf * rpn * (nodes - leaf) * rpn * int(row["size"]) * 8
        bound = max(bound, out / (leaf * rate / oversub))
    return bound


def network_text(ports):
    """The network a projected row ran on."""
    if ports == "plain":
        return "packets (ns-3), one switch"
    if ports.startswith("shaped"):
        return "packets (ns-3), shaped ports"
    if ports == "flow":
        return "flows, one switch"
    leaf, oversub = ports.split(":")[1:3]
    return f"flows, leaves of {leaf} at {float(oversub):g}:1"


def size_text(b):
    b = int(b)
    return f"{b // 1048576} MiB" if b >= 1048576 else f"{b // 1024} KiB" if b >= 1024 else f"{b} B"


def port_text(b):
    b = int(b)
    return f"{b // 1000000} MB" if b >= 1000000 else f"{b // 1000} KB"


def ms(s):
    s = float(s) * 1e3
    return f"{s:.3g}" if s < 100 else f"{s:,.0f}"


def key_of(r):
    return (int(r["nodes"]), int(r["ranks_per_node"]), float(r["gbps"]), int(r["port_bytes"]),
            int(r["size"]), r["scheme"])


def calibration(rows):
    """The table's lines, the cells outside the tolerance with no cause, and the causes of
    those with one (CAUSE_TEXT's keys). The model's
    median of its steady calls against the median of the kit's rounds' medians."""
    lines, bad, causes = [], [], set()
    for r in sorted((r for r in rows if r["ports"].startswith("shaped")), key=key_of):
        ref = MEASURED.get(key_of(r))
        if not ref:
            continue
        lo, mid, hi, drops = ref
        ratio = float(r["median_s"]) / mid
        ok = abs(ratio - 1) <= TOLERANCE
        cause = CAUSES.get(key_of(r), "")
        verdict = "within" if ok else "OUTSIDE"
        print(f"CALIBRATION {r['nodes']}x{r['ranks_per_node']} {r['gbps']}G {r['port_bytes']}B {r['scheme']} "
              f"size={r['size']} model={r['median_s']} measured={lo}-{hi} ratio={ratio:.2f} "
              f"{verdict} {TOLERANCE:.0%}" + (f" (cause {cause})" if cause and not ok else ""))
        measured_drops = "-" if drops is None else " / ".join(f"{d:,}" for d in drops)
        lines.append(f"| {r['nodes']} x {r['ranks_per_node']}, {float(r['gbps']):g} Gbit/s, "
                     f"{port_text(r['port_bytes'])} ports | {r['scheme']} | {size_text(r['size'])} | "
                     f"{ms(r['median_s'])} (mean {ms(r['mean_s'])}, {float(r['timeout_share']):.0%} "
                     f"with a timeout, {r['calls']} calls) | {ms(mid)} ({ms(lo)}-{ms(hi)}) | "
                     f"**{ratio:.2f}x**{'' if ok else ' outside'} | {float(r['drops_per_call']):,.1f} | "
                     f"{measured_drops} | {cause if cause and not ok else ''} |")
        if not ok and cause:
            causes.add(cause)
        if not ok and not cause:
            bad.append(f"{r['nodes']} x {r['ranks_per_node']} {float(r['gbps']):g} Gbit/s "
                       f"{port_text(r['port_bytes'])} {r['scheme']} at {size_text(r['size'])}: {ratio:.2f}x")
    return lines, bad, causes


def projections(rows):
    cells = defaultdict(dict)
    for r in rows:
        if r["ports"] != "plain" and not r["ports"].startswith("flow"):
            continue
        # Packets first, then flows (no port buffers: nothing is lost there).
        key = (r["ports"] != "plain", r["ports"], int(r["nodes"]), int(r["ranks_per_node"]),
               float(r["gbps"]), int(r["port_bytes"]), int(r["size"]))
        cells[key][r["scheme"]] = r
    schemes = [s for s in SCHEMES if any(s in c for c in cells.values())]
    out = ["| network | nodes x ranks | Gbit/s | port buffer | size a pair | link bound ms | "
           + " | ".join(f"{s}: mean ms (x bound), median, calls with a timeout" for s in schemes)
           + " | auto's route, learning's extra ms | auto / own |",
           "|---|---|---|---|---|---|" + "---|" * len(schemes) + "---|---|"]
    for key in sorted(cells):
        c = cells[key]
        bound = link_bound(next(iter(c.values())))
        cols = []
        for s in schemes:
            r = c.get(s)
            cols.append("" if not r else
                        f"{ms(r['mean_s'])} ({float(r['mean_s']) / bound:.2f}x), {ms(r['median_s'])}, "
                        f"{float(r['timeout_share']):.0%} of {int(r['calls']) - int(r['learning'])}")
        auto, versus = "", ""
        if "auto" in c:
            a = c["auto"]
            auto = f"{a['route']}, {float(a['learning_extra_s']) * 1e3:,.1f}"
            if "own" in c:
                versus = f"{float(a['mean_s']) / float(c['own']['mean_s']):.2f}x"
        _, ports, n, rpn, g, p, z = key
        out.append(f"| {network_text(ports)} | {n} x {rpn} | {g:g} | "
                   f"{port_text(p) if ports == 'plain' else '-'} | {size_text(z)} | {bound * 1e3:.3g} | "
                   + " | ".join(cols) + f" | {auto} | {versus} |")
    return out, cells


def job_drops(r):
    """A cell's drops over all its timed calls: its learning calls' (the CSV's
    learning_drops; absent from rows taken before it was kept: None) and its steady
    calls' (their mean a call, to one decimal, times their count)."""
    learned = r.get("learning_drops")
    if learned in (None, "", "-"):
        return None
    return int(learned) + float(r["drops_per_call"]) * (int(r["calls"]) - int(r["learning"]))


def lossy_routes(rows):
    """Issue 48's cells in the calibrated ports (the shaped ones): where auto ran beside
    the MPI's own and paced, its route, its time over the bound and the faster of the
    two, and its drops over the job's against the MPI's own's (nothing asked)."""
    cells = defaultdict(dict)
    for r in rows:
        if r["ports"].startswith("shaped"):
            cells[key_of(r)[:5]][r["scheme"]] = r
    out = []
    for key in sorted(cells):
        c = cells[key]
        if not all(s in c for s in ("own", "paced", "auto")):
            continue
        own, paced, auto = c["own"], c["paced"], c["auto"]
        bound = link_bound(auto)
        best = min(float(own["mean_s"]), float(paced["mean_s"]))
        drops = [job_drops(r) for r in (own, auto)]
        share = ("-" if None in drops else f"{drops[1] / drops[0]:.1%}" if drops[0] else "none lost")
        out.append(f"| {auto['nodes']} x {auto['ranks_per_node']} | {float(auto['gbps']):g} | "
                   f"{port_text(auto['port_bytes'])} | {size_text(auto['size'])} | {bound * 1e3:.3g} | "
                   + " | ".join(f"{ms(r['mean_s'])} ({float(r['mean_s']) / bound:.2f}x)"
                                for r in (own, paced, auto))
                   + f" | {auto['route']} | {float(auto['mean_s']) / best:.2f}x | "
                   + " / ".join("-" if d is None else f"{d:,.0f}" for d in drops)
                   + f" | {share} |")
    return out


def bars(rows):
    """Issue 51's question, cell by cell: wherever auto ran beside the MPI's own, is
    auto's steady mean within 1.2x of the link bound, and at most 1.05x of the MPI's
    own's? The table's lines and a sentence of the counts."""
    cells = defaultdict(dict)
    for r in rows:
        cells[(r["ports"], *key_of(r)[:5])][r["scheme"]] = r
    out, both, n = [], 0, 0
    for key in sorted(cells, key=lambda k: (k[0].startswith("flow"), k[0], *k[1:])):
        c = cells[key]
        if "auto" not in c or "own" not in c:
            continue
        auto, own = c["auto"], c["own"]
        bound = link_bound(auto)
        over_bound = float(auto["mean_s"]) / bound
        over_own = float(auto["mean_s"]) / float(own["mean_s"])
        ok_bound, ok_own = over_bound <= 1.2, over_own <= 1.05
        # The faster of the two routes auto chooses between, where both ran: whether
        # any route met the bound's bar.
        best = min(float(r["mean_s"]) for s_, r in c.items() if s_ in ("own", "paced")) / bound
        n += 1
        both += ok_bound and ok_own
        port = "-" if auto["ports"].startswith("flow") else port_text(auto["port_bytes"])
        out.append(f"| {network_text(auto['ports'])} | {auto['nodes']} x {auto['ranks_per_node']} | "
                   f"{float(auto['gbps']):g} | {port} | {size_text(auto['size'])} | {auto['route']} | "
                   f"{over_bound:.2f}x | {'yes' if ok_bound else '**no**'} | "
                   f"{best:.2f}x{'' if 'paced' in c else ' (own)'} | {over_own:.2f}x | "
                   f"{'yes' if ok_own else '**no**'} |")
    summary = (f"Both bars met in {both} of {n} cells where auto ran beside the MPI's own."
               if n else "")
    return out, summary


def plot(cells, out_dir):
    """Time over the link bound against the size, 16 x 1 at 10 Gbit/s, a line a scheme
    and port buffer."""
    series = []
    for s in SCHEMES:
        for p in (100000, 2000000):
            pts = sorted((z, float(c[s]["mean_s"]) / link_bound(c[s]))
                         for (_, ports, n, rpn, g, pb, z), c in cells.items()
                         if ports == "plain" and n == 16 and rpn == 1 and g == 10 and pb == p
                         and s in c)
            if len(pts) > 1:
                series.append((f"{s}, {port_text(p)} ports", pts))
    if not series:
        return None
    data = os.path.join(out_dir, "at-scale-projections.dat")
    with open(data, "w") as f:
        for title, pts in series:
            f.write(f"# {title}\n")
            for z, v in pts:
                f.write(f"{z} {v:.4f}\n")
            f.write("\n\n")
    png = os.path.join(out_dir, "at-scale-projections.png")
    gp = ["set terminal pngcairo size 800,500 noenhanced", f"set output '{png}'",
          "set title 'Model: 16 nodes x 1 rank, 10 Gbit/s ports (SimGrid SMPI + ns-3, simulated)'",
          "set logscale x 2", "set logscale y 2", "set xlabel 'bytes a pair'",
          "set xtics (" + ", ".join(f"'{size_text(z)}' {z}" for z in
                                    sorted({z for _, pts in series for z, _ in pts})) + ")",
          "set ylabel 'time / link bound'", "set key top left", "set grid",
          "plot " + ", ".join(f"'{data}' index {i} with linespoints title '{t}'"
                              for i, (t, _) in enumerate(series))]
    subprocess.run(["gnuplot"], input="\n".join(gp), text=True, check=True)
    os.remove(data)
    return png


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[0])
    with open(sys.argv[1]) as f:
        rows = list(csv.DictReader(f))
    cal, bad, causes = calibration(rows)
    table, cells = projections(rows)
    lossy = lossy_routes(rows)
    bar_lines, bar_summary = bars(rows)
    png = plot(cells, sys.argv[2])
    md = ["### The model's calibration, as `make model-projections` ran it", "",
          "Model against the 16-core kit's runs (ports shaped as the test cluster's: token buckets "
          "on veths; the model's veth rate is the host's: 4.5 Gbit/s at 100 Mbit/s as in issue 42, "
          "8 Gbit/s at 1 and 10 Gbit/s, the kit's own figure for an unshaped veth). The "
          "model's median of its steady calls (after its 8 learning calls) against the "
          "median of the kit's 3 rounds' medians (least-most); ms. Drops: the model's per call, "
          "the kit's per round (every call of the round).", "",
          "| cell | scheme | size a pair | model | measured | model / measured | model drops a call "
          "| measured drops a round | cause |", "|---|---|---|---|---|---|---|---|---|",
          *cal, "", *[f"**{c}**: {CAUSE_TEXT[c]}." for c in sorted(causes)],
          "", "### Projections (simulated)", "",
          "Each cell's steady calls (the CSV's calls less its learning ones): their mean in ms and "
          "over the link bound (a node's bytes to other nodes at its port's rate, or in a tree "
          "a leaf's bytes out at its uplinks' rate, whichever is longer), their median, "
          "and the share of them during which a retransmission timeout fired. *packets* is "
          "ns-3's TCP through one switch whose ports have the buffer shown; *flows* is SimGrid's "
          "own flow model (max-min sharing, no packets, no buffers: nothing is lost), which "
          "reaches 256 nodes where packets do not, one switch or a two-tier tree whose leaves' "
          "uplinks are oversubscribed as shown. *own* is SMPI's "
          "`ompi` selector, Open MPI 4.1's decision table with its linear_sync run as linear; "
          "*paced* the library's own code pinned to its paced route; *auto* what "
          "`--ordered-alltoall` gives: the route by measurement, whose chosen route and whose "
          "learning calls' cost beyond as many steady calls are shown. Paced and auto are given "
          "the link's rate as the plugin gives it.", "", *table, ""]
    if png:
        md += ["![model: time over the link bound, 16 x 1, 10 Gbit/s](bench/at-scale-projections.png)", ""]
    if lossy:
        md += ["### The route by measurement on the calibrated lossy ports (simulated)", "",
               "Issue 48's cells that the test cluster's 2 cores cannot show (there its paced "
               "calls are its CPUs' time), on the calibrated ports above: the steady calls' mean "
               "in ms (over the link bound) of the MPI's own (nothing asked), the paced library "
               "pinned, and auto (`--ordered-alltoall`); auto's route; auto over the faster of "
               "the other two; and the packets lost over every timed call of the cell, learning "
               "ones too (where auto's trials of the MPI's own lose theirs), the MPI's own's / "
               "auto's, and auto's as a share of the MPI's own's.", "",
               "| nodes x ranks | Gbit/s | port buffer | size a pair | link bound ms | own | paced "
               "| auto | auto's route | auto / faster | drops: own / auto | auto's share |",
               "|---|---|---|---|---|---|---|---|---|---|---|---|", *lossy, ""]
    if bar_lines:
        md += ["### The route by measurement against issue 51's bars (simulated)", "",
               "Every cell above where auto (`--ordered-alltoall`) ran beside the MPI's own "
               "(nothing asked): its steady mean over the link bound (the bar: 1.2x) and over "
               "the MPI's own's steady mean (the bar: 1.05x); beside them the faster of the "
               "MPI's own and the paced library pinned over the bound, whether any route met "
               "the bound's bar. " + bar_summary, "",
               "| network | nodes x ranks | Gbit/s | port buffer | size a pair | auto's route "
               "| auto / bound | within 1.2x | faster route / bound | auto / own | within 1.05x |",
               "|---|---|---|---|---|---|---|---|---|---|---|", *bar_lines, ""]
    with open(os.path.join(sys.argv[2], "at-scale-projections.md"), "w") as f:
        f.write("\n".join(md))
    if bad:
        print("project_report: the model is not within 25% of the measurement in "
              + "; ".join(bad) + ": its projections are not vouched for", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
