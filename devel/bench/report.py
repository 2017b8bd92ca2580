#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""report.py - turn ibnet-bench's results.csv into benchmarks.md and PNG plots.

Tables follow the papers' layouts: all-to-all time and per-CPU throughput
T = (N-1)S/dt over message sizes with and without ordering (Kutzner et al.,
"Improved GROMACS scaling on Ethernet switched clusters"), ping-pong latency
and bandwidth per network (Kandadai and He, "Performance of HPC Applications
over InfiniBand, 10 Gb and 1 Gb Ethernet"), wall time and speedup per
transport and node count (Dragseth and Tangen, "Improving Gaussian's parallel
performance using Infiniband"). Every
all-to-all time stands beside its lower bound: the bytes each node must
receive over its switch port's rate.
"""
import argparse
import csv
import os
import statistics
import subprocess
import sys
from collections import defaultdict

# Port rates of the scenarios in bits/s (devel/ibnet-bench, SHAPE).
RATES = {"gige-lossy": 100e6, "gige-fc": 100e6, "ipoib": 400e6}
SCENARIOS = {
    "gige-lossy": "Ethernet switch without flow control: eth ports 100 Mbit/s, 24 KB buffer",
    "gige-fc": "the same switch with 802.3x flow control: eth ports 100 Mbit/s, 16 MB buffer (loss-free)",
    "ipoib": "InfiniBand (IPoIB): ib ports 400 Mbit/s, 16 MB buffer (loss-free)",
}


def load(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        for k in ("nodes", "ranks", "size_bytes", "reps", "drops", "timeouts"):
            r[k] = int(r.get(k) or 0)
        r["result"] = r.get("result") or ""
        for k in ("median_s", "min_s", "max_s"):
            r[k] = float(r[k]) if r[k] else None
    return rows


def fmt_time(s):
    if s is None:
        return "-"
    if s < 1e-3:
        return f"{s * 1e6:.0f} µs"
    if s < 1:
        return f"{s * 1e3:.1f} ms"
    return f"{s:.2f} s"


def fmt_size(b):
    return f"{b // 1048576} MiB" if b >= 1048576 and b % 1048576 == 0 else (
        f"{b // 1024} KiB" if b >= 1024 else f"{b} B")


def lower_bound(scenario, nodes, ranks, size):
    """Bytes a node must receive in an all-to-all, over its port rate."""
    per_node = ranks // nodes
    received = per_node * (ranks - per_node) * size
    return received * 8 / RATES[scenario]


VARIANTS = ("default", "pairwise", "paced")


def spread(values):
    """'median (min-max)' of ratios, or the one value."""
    if not values:
        return "-"
    m = statistics.median(values)
    if len(values) == 1:
        return f"{m:.2f}x"
    return f"{m:.2f}x ({min(values):.2f}-{max(values):.2f})"


def alltoall_section(rows, lines, plots, outdir):
    a2a = [r for r in rows if r["bench"] == "alltoall"]
    # Every round's row: (scenario, variant, nodes, ranks, size) -> [rows in round order]
    by = defaultdict(list)
    for r in a2a:
        by[(r["scenario"], r["alltoall"], r["nodes"], r["ranks"], r["size_bytes"])].append(r)
    med = lambda k: statistics.median(r["median_s"] for r in by[k]) if by.get(k) else None
    lines.append("## All-to-all: time and throughput per CPU (as in Kutzner et al., \"Improved GROMACS scaling on Ethernet switched clusters\")\n")
    lines.append("Open MPI 4.1 `MPI_Alltoall`, each time the median of the repetitions (the "
                 "slowest rank's time each), then the median over the rounds. *Bound* is the "
                 "bytes each node must receive over its port rate: no algorithm can beat it. "
                 "`default` is Open MPI's own choice (nothing asked); `pairwise` is "
                 "`SLURM_IBNET_ALLTOALL=pairwise`, the MPI's pairwise algorithm (what "
                 "`--ordered-alltoall` gave before 0.4.0); `paced` is `--ordered-alltoall`, the "
                 "paced all-to-all with the plugin's default settings (below the threshold it "
                 "hands over to Open MPI's own). The three ran in interleaved rounds; "
                 "*paced/default* is the ratio of times per round, median (min-max) over the "
                 "rounds: below 1 is faster. The port's token bucket lets 32 KB pass at veth "
                 "speed before the rate applies, so the smallest exchanges can come in under "
                 "the bound.\n")
    headlines = []
    for scenario in ("gige-lossy", "gige-fc", "ipoib"):
        transport = "tcp" if scenario.startswith("gige") else "ipoib"
        srows = [r for r in a2a if r["scenario"] == scenario]
        if not srows:
            continue
        lines.append(f"### {scenario}: {SCENARIOS[scenario]} (simulated), `--transport={transport}`\n")
        if scenario == "gige-lossy":
            lines.append("Dropped packets are recovered by TCP retransmission timeouts (200 ms "
                         "at least), so `default` and `pairwise` vary strongly from round to "
                         "round; read the trend, and the drops.\n")
        lines.append("| N x ranks | S | bound | default | pairwise | paced | paced/bound | paced/default | drops (default, pairwise, paced) |")
        lines.append("|---|---|---|---|---|---|---|---|---|")
        worst = None
        for n, ranks in sorted({(r["nodes"], r["ranks"]) for r in srows}):
            for size in sorted({r["size_bytes"] for r in srows if r["nodes"] == n and r["ranks"] == ranks}):
                k = {v: (scenario, v, n, ranks, size) for v in VARIANTS}
                if not all(by.get(k[v]) for v in VARIANTS):
                    continue
                lb = lower_bound(scenario, n, ranks, size)
                ratios = [p["median_s"] / d["median_s"] for p, d in zip(by[k["paced"]], by[k["default"]])]
                drops = ", ".join(str(sum(r["drops"] for r in by[k[v]])) for v in VARIANTS)
                lines.append(f"| {n} x {ranks // n} | {fmt_size(size)} | {fmt_time(lb)} | "
                             + " | ".join(fmt_time(med(k[v])) for v in VARIANTS)
                             + f" | {med(k['paced']) / lb:.2f} | {spread(ratios)} | {drops} |")
                r = statistics.median(ratios)
                if worst is None or r > worst[0]:
                    worst = (r, n, ranks, size)
        lines.append("")
        if worst:
            headlines.append((scenario, worst))
        # Plot: T over S, one line per (N x ranks, variant).
        data = os.path.join(outdir, "bench", f"alltoall-{scenario}.dat")
        series = [(n, ranks, v) for n, ranks in sorted({(r["nodes"], r["ranks"]) for r in srows})
                  for v in VARIANTS]
        with open(data, "w") as f:
            for n, ranks, v in series:
                f.write(f"# N={n} ranks={ranks} {v}\n")
                for size in sorted({r["size_bytes"] for r in srows}):
                    m = med((scenario, v, n, ranks, size))
                    if m:
                        f.write(f"{size} {(ranks - 1) * size / m / 1e6:.4f}\n")
                f.write("\n\n")
        plots.append((f"alltoall-{scenario}.png", [
            "set logscale x 2", "set xlabel 'message size S per pair (bytes)'",
            "set ylabel 'throughput per CPU T (MB/s)'", "set key top left",
            f"set title 'MPI_Alltoall, {scenario} (simulated)'",
            "plot " + ", ".join(
                f"'{data}' index {i} with linespoints title 'N={n}x{ranks // n} {v}' "
                f"dt {VARIANTS.index(v) + 1} lc {i // len(VARIANTS) + 1}"
                for i, (n, ranks, v) in enumerate(series))]))
        lines.append(f"![all-to-all throughput, {scenario}](bench/alltoall-{scenario}.png)\n")
    scheme_section(lines)
    calls = [r for r in rows if r["bench"] == "alltoall-paced-calls"]
    if calls:
        lines.append(f"The paced library reported its own calls in every `paced` job of more than "
                     f"2 ranks: {sum(int(r['median_s']) for r in calls)} `MPI_Alltoall` calls "
                     f"paced over {len(calls)} jobs (`SLURM_IBNET_ALLTOALL_REPORT=1`).\n")
    return headlines


def scheme_section(lines):
    lines.append("### The paper's ordered all-to-all and the paced one, side by side\n")
    lines.append("| | Kutzner et al. (\"Improved GROMACS scaling on Ethernet switched clusters\", 2006; `phased.c`, Open MPI devel list, 2005) | spank-ibnet 0.4 `--ordered-alltoall` |")
    lines.append("|---|---|---|")
    for row in (
        ("order", "phase p: rank i sends to i+p, receives from i-p (`MPI_Sendrecv`)",
         "phase p: node i receives from node i-p; the sending node's ranks spread over the receivers"),
        ("between phases", "`MPI_Barrier`", "none: a receiver grants the next phase's sender as soon as its window has room"),
        ("several CPUs per node", "a variant in which each node receives from one other node per phase",
         "node-aware from `MPI_Comm_split_type(SHARED)`; same-node pairs through shared memory, all at once"),
        ("flow control", "none (the switch's 802.3x, as in Tanaka's Beowulf cluster, NIFS 2004, where it has it)",
         "receiver-granted credits: at most `alltoall_window` in flight towards a node's port (`auto`, "
         "the default: sized per node from each call, from 16 KiB; `docs/bench/fast-links.md`)"),
        ("small messages", "slower than `MPI_Alltoall` (the barriers)", "below `alltoall_threshold` the MPI's own all-to-all"),
        ("how a job gets it", "link the routine into the application", "`--ordered-alltoall`: a preload, any MPI, C and Fortran"),
    ):
        lines.append("| " + " | ".join(row) + " |")
    lines.append("")


APP_NAMES = {
    "qe": "Quantum ESPRESSO `pw.x`",
    "gromacs": "GROMACS `gmx_mpi`",
    "lammps": "LAMMPS `lmp`",
}
APP_RESULT = {
    "qe": "total energy (Ry)",
    "gromacs": "checksum of the final coordinates",
    "lammps": "total energy after the last step (kcal/mol)",
}
APP_VARIANTS = ("plain", "ordered", "floor", "paced")
APP_VARIANT_TEXT = {
    "plain": "nothing else asked",
    "ordered": "`--ordered-alltoall` (paced + floor)",
    "floor": "`--tcp-rto-min` (floor alone)",
    "paced": "`--ordered-alltoall --tcp-rto-min=off` (pacing alone)",
}


def apps_section(rows, lines):
    """Real applications: time against the flow-controlled ideal, drops, RTOs, results."""
    ap = [r for r in rows if r["bench"] in APP_NAMES]
    if not ap:
        return {}
    lines.append("## Real applications on lossy and loss-free switches\n")
    # Each code's description, for the codes this report has rows of (make
    # bench runs two, make bench-long the third: devel/ibnet-bench).
    said = {
        "qe": "Quantum ESPRESSO's `pw.x` (bulk silicon, 8 atoms, 80 Ry, a "
              "Troullier-Martins PBE pseudopotential that `ld1.x` makes at bench time, 5 SCF "
              "iterations; its 3D FFTs call Fortran `mpi_alltoall` about 600 times per run, "
              "11 KiB per pair on 8 ranks and 40 KiB on 4)",
        "gromacs": "GROMACS `gmx_mpi` (the 6,495-atom water box, PME on every rank, 300 "
                   "steps, `-reprod`)",
        "lammps": "LAMMPS `lmp` (its peptide example replicated 2 x 2 x 2, 16,032 atoms, PPPM "
                  "at 1e-5 with LAMMPS's default point-to-point FFT remap, 100 steps: traffic "
                  "the paced all-to-all does not see, only the floor; `make bench-long`)",
    }
    codes = [said[app] for app in APP_NAMES if any(r["bench"] == app for r in ap)]
    count = {1: "One code", 2: "Two codes", 3: "Three codes"}.get(len(codes), f"{len(codes)} codes")
    listed = codes[0] if len(codes) == 1 else ", ".join(codes[:-1]) + " and " + codes[-1]
    lines.append(
        f"{count} from Debian that nobody here wrote, one rank per node, on 4 and 8 "
        f"simulated nodes: {listed}. Every variant is what a user "
        "asks the plugin for, with the scenario's `--transport`. *Time* is the wall time of "
        "`mpirun`, median (min-max) of the rounds; *vs gige-fc* divides it by the same "
        "code's median on `gige-fc` with nothing else asked, the flow-controlled ideal; "
        "*vs plain* is the median (min-max) of the per-round ratio to `plain` in the same "
        "scenario, the variants of a round having run one after the other. *RTOs* are the "
        "retransmission timeouts of all nodes (`TcpExtTCPTimeouts` in each node's "
        "namespace), *drops* the packets the switch ports dropped, both summed over the "
        "rounds; *paced* is the calls rank 0 paced per run. The 8 simulated nodes share "
        "2 cores, so a node has a quarter of a core: times compare variants, not machines. "
        "The nodes run CUBIC.\n")
    base = {}
    for app in APP_NAMES:
        for n in sorted({r["nodes"] for r in ap if r["bench"] == app}):
            fc = [r["median_s"] for r in ap if r["bench"] == app and r["nodes"] == n
                  and r["scenario"] == "gige-fc" and r["alltoall"] == "plain"]
            if fc:
                base[(app, n)] = statistics.median(fc)
    heads = {}
    lines.append("| code | scenario | nodes | variant | time | vs gige-fc | vs plain | drops | RTOs | paced | result |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for app in APP_NAMES:
        for scenario in ("gige-fc", "ipoib", "gige-lossy"):
            for n in sorted({r["nodes"] for r in ap if r["bench"] == app}):
                plain = [r for r in ap if r["bench"] == app and r["scenario"] == scenario
                         and r["nodes"] == n and r["alltoall"] == "plain"]
                for v in APP_VARIANTS:
                    runs = [r for r in ap if r["bench"] == app and r["scenario"] == scenario
                            and r["nodes"] == n and r["alltoall"] == v]
                    if not runs:
                        continue
                    t = [r["median_s"] for r in runs]
                    med = statistics.median(t)
                    vs_fc = med / base[(app, n)] if (app, n) in base else None
                    pair = [r["median_s"] / p["median_s"] for r, p in zip(runs, plain)] if v != "plain" else []
                    results = sorted({r["result"] for r in runs})
                    heads[(app, scenario, n, v)] = (vs_fc, pair)
                    cells = [APP_NAMES[app], scenario, str(n), APP_VARIANT_TEXT[v],
                             f"{med:.2f} s ({min(t):.2f}-{max(t):.2f})",
                             f"{vs_fc:.2f}x" if vs_fc else "-",
                             spread(pair) if pair else "",
                             str(sum(r["drops"] for r in runs)),
                             str(sum(r["timeouts"] for r in runs)),
                             str(int(statistics.median(r["reps"] for r in runs))),
                             ", ".join(results)]
                    lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    # Same physical result: one value per code and node count, whatever the variant or switch.
    lines.append("**Same physical result.** ")
    for app in APP_NAMES:
        for n in sorted({r["nodes"] for r in ap if r["bench"] == app}):
            res = sorted({r["result"] for r in ap if r["bench"] == app and r["nodes"] == n})
            if not res:
                continue
            what = APP_RESULT[app]
            same = "identical in every run" if len(res) == 1 else "DIFFERS between runs"
            lines[-1] += f"{APP_NAMES[app]} on {n} nodes: {what} {', '.join(res)}, {same}. "
    lines.append("")
    return heads


def linda_lossy_section(rows, lines):
    ld = [r for r in rows if r["bench"] == "linda-lossy"]
    if not ld:
        return None
    n = ld[0]["nodes"]
    lines.append("### The Linda-like farm on the lossy switch, with and without the floor\n")
    lines.append(f"The same farm on {n} nodes over `gige-lossy` with `--transport=tcp`: no "
                 "MPI, only sockets; `floor` adds `--tcp-rto-min` (the site's 10 ms). "
                 "Median (min-max) of the rounds; RTOs summed over them.\n")
    lines.append("| variant | wall time | RTOs |")
    lines.append("|---|---|---|")
    out = {}
    for v in ("tcp", "floor"):
        runs = [r for r in ld if r["alltoall"] == v]
        if not runs:
            continue
        t = [r["median_s"] for r in runs]
        out[v] = statistics.median(t)
        label = "`--transport=tcp`" if v == "tcp" else "`--transport=tcp --tcp-rto-min`"
        lines.append(f"| {label} | {fmt_time(statistics.median(t))} ({fmt_time(min(t))}-"
                     f"{fmt_time(max(t))}) | {sum(r['timeouts'] for r in runs)} |")
    lines.append("")
    return out


def pingpong_section(rows, lines):
    pp = [r for r in rows if r["bench"] == "pingpong"]
    if not pp:
        return
    lines.append("## Ping-pong latency and bandwidth (like IMB PingPong in Kandadai and He, \"Performance of HPC Applications over InfiniBand, 10 Gb and 1 Gb Ethernet\")\n")
    lines.append("Open MPI between two nodes; half a round trip, median. rsocket uses the IB "
                 "network like ipoib: MPI does not go through librspreload, and here librspreload "
                 "itself falls back to TCP (no RDMA device). A message that fits the port's 32 KB "
                 "burst passes above the port rate.\n")
    sizes = sorted({r["size_bytes"] for r in pp})
    lines.append("| transport (scenario) | " + " | ".join(fmt_size(s) for s in sizes) + " |")
    lines.append("|---|" + "---|" * len(sizes))
    for transport in ("tcp", "ipoib", "rsocket"):
        rs = {r["size_bytes"]: r for r in pp if r["transport"] == transport}
        if not rs:
            continue
        scen = next(iter(rs.values()))["scenario"]
        cells = []
        for s in sizes:
            r = rs.get(s)
            if not r:
                cells.append("-")
            else:
                cells.append(f"{fmt_time(r['median_s'])}, {s / r['median_s'] / 1e6:.1f} MB/s")
        lines.append(f"| {transport} ({scen}) | " + " | ".join(cells) + " |")
    lines.append("")


def linda_section(rows, lines, plots, outdir):
    ld = [r for r in rows if r["bench"] == "linda"]
    if not ld:
        return None
    lines.append("## Linda-like master/worker farm: wall time and speedup (as in Dragseth and Tangen, \"Improving Gaussian's parallel performance using Infiniband\")\n")
    tasks = ld[0]["reps"]
    lines.append(f"A master hands {tasks} tasks to one worker per node (256 KiB in, 40 ms of "
                 "simulated compute, 256 KiB out), addressed by the job's `SLURM_IBNET_HOSTS`. "
                 "The compute is a sleep, so the 2-core machine does not limit it; the transfers "
                 "are real. Median of the rounds; speedup against the same transport on 1 node.\n")
    med = defaultdict(list)
    for r in ld:
        med[(r["transport"], r["nodes"])].append(r["median_s"])
    nodes = sorted({r["nodes"] for r in ld})
    transports = [t for t in ("tcp", "ipoib", "rsocket") if any(k[0] == t for k in med)]
    lines.append("| nodes | " + " | ".join(f"{t} | speedup" for t in transports) + " |")
    lines.append("|---|" + "---|---|" * len(transports))
    speed = {}
    for n in nodes:
        cells = []
        for t in transports:
            vals = med.get((t, n))
            base = med.get((t, nodes[0]))
            if not vals:
                cells += ["-", "-"]
                continue
            m = statistics.median(vals)
            sp = statistics.median(base) / m if base else None
            speed[(t, n)] = sp
            cells += [fmt_time(m), f"{sp:.2f}" if sp and n != nodes[0] else ""]
        lines.append(f"| {n} | " + " | ".join(cells) + " |")
    lines.append("")
    data = os.path.join(outdir, "bench", "linda-speedup.dat")
    with open(data, "w") as f:
        for t in transports:
            f.write(f"# {t}\n")
            for n in nodes:
                if (t, n) in speed:
                    f.write(f"{n} {speed[(t, n)]:.4f}\n")
            f.write("\n\n")
    plots.append(("linda-speedup.png", [
        "set xlabel 'nodes'", "set ylabel 'speedup'", "set key top left",
        f"set xtics ({', '.join(str(n) for n in nodes)})",
        "set title 'Linda-like farm: speedup per transport (simulated networks)'",
        "plot " + ", ".join(f"'{data}' index {i} with linespoints title '{t}'"
                            for i, t in enumerate(transports)) + ", x with lines dt 3 title 'ideal'"]))
    lines.append("![Linda-like farm speedup](bench/linda-speedup.png)\n")
    last = nodes[-1]
    return {t: (med.get((t, last)), speed.get((t, last))) for t in transports}, last


def overhead_section(rows, lines):
    ov = [r for r in rows if r["bench"] == "srun-overhead"]
    hm = {}
    for r in rows:
        if r["bench"] == "hostmap":
            hm.setdefault(r["scenario"], []).append(r)
    lines.append("## The plugin's own cost\n")
    result = {}
    if ov:
        w = [r["median_s"] for r in ov if r["scenario"] == "with-plugin"]
        wo = [r["median_s"] for r in ov if r["scenario"] == "without-plugin"]
        pairs = [a / b for a, b in zip(w, wo)]
        q = statistics.quantiles(pairs, n=4) if len(pairs) >= 4 else [min(pairs), statistics.median(pairs), max(pairs)]
        ratio = statistics.median(w) / statistics.median(wo)
        n = ov[0]["nodes"]
        lines.append(f"`srun -N{n} true` with the plugin loaded and without it, {len(w)} runs each, "
                     "interleaved (Slurm rereads plugstack.conf for every srun and step).\n")
        lines.append("| | median | 25% | 75% |")
        lines.append("|---|---|---|---|")
        for name, v in (("with the plugin", w), ("without", wo)):
            qq = statistics.quantiles(v, n=4) if len(v) >= 4 else [min(v), 0, max(v)]
            lines.append(f"| {name} | {fmt_time(statistics.median(v))} | {fmt_time(qq[0])} | {fmt_time(qq[-1])} |")
        lines.append(f"\n**Ratio of medians: {ratio:.3f}** (target ≤ 1.02); the per-pair ratios "
                     f"have median {statistics.median(pairs):.3f} and interquartile range "
                     f"{q[0]:.3f}–{q[-1]:.3f}.\n")
        result["ratio"] = ratio
        result["pair_iqr"] = (q[0], q[-1])
    for what, label in (("map", "expanding and mapping `c[1-100]-[1-100]` (10,000 hosts) through "
                                "`s/^c([0-9]+-[0-9]+)$/cib\\1/` (a group in the replacement)"),
                        ("map-prefix", "the same through `s/^c/cib/` (no group)"),
                        ("env", "the whole environment plan of an rsocket step of that job "
                                "(what slurmstepd computes)")):
        rs = hm.get(what)
        if rs:
            # Rounds are interleaved with the other rule shapes; report their spread.
            meds = [r["median_s"] for r in rs]
            lines.append(f"- {label}: median {fmt_time(statistics.median(meds))} "
                         f"({len(rs)} rounds of {rs[0]['reps']} runs, round medians "
                         f"{fmt_time(min(meds))} to {fmt_time(max(meds))}); target < 5 ms.")
            result[what] = statistics.median(meds)
    a, b = hm.get("map"), hm.get("map-prefix")
    if a and b:
        ratios = [x["median_s"] / y["median_s"] for x, y in zip(a, b)]
        lines.append(f"- what a group costs with glibc's regex: ratio of the two mappings "
                     f"{statistics.median(ratios):.2f} (per-round {min(ratios):.2f} to "
                     f"{max(ratios):.2f}). The rules run in glibc's regex since 0.3.0 (TRE, "
                     "before, is not in RHEL's base repositories); with TRE the group rule took "
                     "about 2.2 ms here. Prefer rules without `\\N` on very large clusters.")
    rs = hm.get("instructions")
    if rs:
        r = rs[0]
        lines.append(f"- the group rule's mapping counted by callgrind: {r['median_s'] / 1e6:.1f} million "
                     "instructions for the whole ibnet-hosts process (repeatable, unlike wall "
                     "time on this shared machine, which varied by 2x between runs of the same "
                     "binary).")
        result["instructions"] = r["median_s"]
    lines.append("")
    return result


def main():
    ap = argparse.ArgumentParser()
    # make bench's rows and make bench-long's (devel/ibnet-bench, its two parts).
    ap.add_argument("--csv", required=True, action="append")
    ap.add_argument("--out", required=True)
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    rows = [r for path in a.csv for r in load(path)]
    lines, plots = [], []
    head = ["# spank-ibnet benchmarks\n",
            "Produced by `make bench` (`devel/ibnet-bench`) on the project's test cluster: real "
            "Slurm 22.05, one slurmd per node in its own network namespace, real Open MPI 4.1.4. "
            "**The networks are simulated**: two veth networks through Linux bridges, with the "
            "switch ports shaped by tc (token bucket: rate and port buffer). There is no "
            "InfiniBand and no RDMA device, so `rsocket` runs librspreload's TCP fallback over "
            "the simulated IB network. The numbers show how the settings compare on these "
            "simulated networks, not what real hardware does. Every job selected its settings "
            "with the plugin's options (`--transport`, `--ordered-alltoall`) only; `mpirun` gets "
            "`--bind-to none --mca mpi_yield_when_idle 1` because all simulated nodes share the "
            "machine's 2 cores (Open MPI's default binding would pin every node's rank to the "
            "same core, and they would take turns once per 4 ms scheduler tick). MPICH is not "
            "used here: its UCX sees through the namespaces and moves the bytes by shared "
            "memory. The nodes' TCP congestion control is CUBIC, as on RHEL and Debian clusters "
            "(this machine's own default is BBR; every table here was measured under CUBIC).\n",
            "Raw measurements: " + ", ".join(f"[bench/{os.path.basename(p)}](bench/{os.path.basename(p)})"
                                             for p in a.csv) + ".\n"]
    if a.quick:
        head.insert(1, "**QUICK smoke run: too few repetitions to compare settings.**\n")
    head.append("| scenario | switch model (simulated) |")
    head.append("|---|---|")
    for k, v in SCENARIOS.items():
        head.append(f"| `{k}` | {v} |")
    head.append("")
    a2a_head = alltoall_section(rows, lines, plots, a.out)
    app_heads = apps_section(rows, lines)
    pingpong_section(rows, lines)
    linda = linda_section(rows, lines, plots, a.out)
    linda_lossy = linda_lossy_section(rows, lines)
    cost = overhead_section(rows, lines)

    summary = ["## Headlines\n"]
    for scenario, (ratio, n, ranks, size) in a2a_head:
        summary.append(f"- all-to-all, `{scenario}`: `--ordered-alltoall` (paced) is at worst "
                       f"{ratio:.2f}x the default's time (N={n} x {ranks // n}, S={fmt_size(size)}); "
                       "the tables give every cell against its bound.")
    for (app, scenario, n, v), (vs_fc, pair) in sorted(app_heads.items()):
        name = APP_NAMES[app]
        if scenario == "gige-lossy" and v == "ordered" and vs_fc:
            summary.append(f"- {name}, `gige-lossy`, {n} nodes, `--ordered-alltoall`: {vs_fc:.2f}x "
                           "its time on the flow-controlled `gige-fc` with nothing asked.")
        if scenario == "gige-lossy" and v == "floor" and pair:
            summary.append(f"- {name}, `gige-lossy`, {n} nodes, the floor alone (`--tcp-rto-min`): "
                           f"{1 / statistics.median(pair):.2f}x faster than nothing asked "
                           f"(per-round ratios {spread([1 / x for x in pair])}).")
        if scenario != "gige-lossy" and v == "ordered" and pair:
            summary.append(f"- {name}, `{scenario}` (loss-free), {n} nodes: `--ordered-alltoall` "
                           f"takes {spread(pair)} the time of nothing asked (median of "
                           f"{len(pair)} interleaved pairs).")
    if linda_lossy and "tcp" in linda_lossy and "floor" in linda_lossy:
        summary.append(f"- Linda-like farm on `gige-lossy`: {fmt_time(linda_lossy['floor'])} with "
                       f"`--tcp-rto-min` against {fmt_time(linda_lossy['tcp'])} without.")
    if linda:
        res, last = linda
        tcp = res.get("tcp", (None, None))
        for t in ("ipoib", "rsocket"):
            if t in res and tcp[0] and res[t][0]:
                summary.append(f"- Linda-like farm on {last} nodes: `--transport={t}` takes "
                               f"{fmt_time(statistics.median(res[t][0]))} against tcp's "
                               f"{fmt_time(statistics.median(tcp[0]))}: "
                               f"{statistics.median(tcp[0]) / statistics.median(res[t][0]):.2f}x faster "
                               f"(speedup {res[t][1]:.2f} against tcp's {tcp[1]:.2f}).")
    if "ratio" in cost:
        summary.append(f"- plugin overhead: `srun` with/without the plugin, ratio of medians "
                       f"{cost['ratio']:.3f}.")
    if "map" in cost:
        ins = (f" ({cost['instructions'] / 1e6:.1f} million instructions)"
               if "instructions" in cost else "")
        pre = (f", {fmt_time(cost['map-prefix'])} without one" if "map-prefix" in cost else "")
        summary.append(f"- 10,000 hosts through the hostname rule: {fmt_time(cost['map'])} with a "
                       f"group in the replacement{ins}{pre}.")
    summary.append("")
    # The paced scheme at scale (devel/a2a-versus, devel/a2a-cost), with
    # many ranks per node (devel/a2a-many), the floor's two tiers
    # (devel/floor-tiers) and LAMMPS's drops (devel/lammps-drops): measured
    # by those scripts, not by this run, and kept as they wrote it.
    # many-ranks-run.md is make bench's own (ibnet-bench's last part, full
    # run); many-ranks-long.md is make bench-long's (ibnet-bench --long).
    for part, title in (("many-ranks-run.md", "this run (`devel/a2a-many`, called by `make bench`)"),
                        ("many-ranks-long.md", "`make bench-long`'s last run (`devel/a2a-many`)")):
        run_many = os.path.join(a.out, "bench", part)
        if not a.quick and os.path.exists(run_many):
            lines += ["", f"## Many ranks per node, {title}", "",
                      "8 simulated nodes on the machine's 2 cores: at 16 ranks per node a rank has a "
                      "sixty-fourth of a core, so the times here are this machine's as much as the scheme's.",
                      "", open(run_many).read().rstrip("\n"), ""]
    run_fast = os.path.join(a.out, "bench", "fast-links-run.md")
    if not a.quick and os.path.exists(run_fast):
        lines += ["", "## Fast links, this run (`devel/a2a-fast-links`, called by `make bench`)", "",
                  "4 simulated nodes on the machine's 2 cores, which carry about 4.5 Gbit/s a node "
                  "unshaped: the CPUs, not the ports, bound most of these times. "
                  "docs/bench/fast-links.md has the same on 16 cores.",
                  "", open(run_fast).read().rstrip("\n"), ""]
    for part in ("paced-scale.md", "many-ranks.md", "fast-links.md", "route-choice.md", "floor-tiers.md",
                 "lammps-drops.md", "at-scale.md", "at-scale-projections.md"):
        scale = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs",
                             "bench", part)
        if os.path.exists(scale):
            lines += ["", open(scale).read().rstrip("\n"), ""]
    with open(os.path.join(a.out, "benchmarks.md"), "w") as f:
        f.write("\n".join(head + summary + lines))

    for name, script in plots:
        gp = "\n".join([f"set terminal pngcairo size 800,500 noenhanced", f"set output '{os.path.join(a.out, 'bench', name)}'",
                        "set grid"] + script) + "\n"
        subprocess.run(["gnuplot"], input=gp.encode(), check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
