#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""cell_report.py - one cell's steady figures from its MODEL_TRACE file
(model_trace.h), for devel/smpi-model/project (issue 51).

    devel/smpi-model/cell_report.py --learning L TRACE

The benchmark's first call of a size is untimed (a2a_bench.c) and left out.
Of the timed calls, the first L are the learning calls: the paced library
agrees its window after its 1st, 2nd and 4th paced calls, the route by
measurement tries 4 paced calls and up to 3 of the MPI's own
(ibnet_a2a_choice.h), and TCP's windows grow meanwhile whatever the route,
so project gives every scheme L = 8. The rest are the steady calls: their mean
and median, the share of them during which a retransmission timeout fired,
drops and timeouts per call. The learning calls' cost is what they took
beyond as many steady calls at the steady mean: a one-off cost of the job;
and the packets they lost (learning_drops): where the route by measurement
tries the MPI's own on a lossy port, its trials' drops are there, and a
job's drops are those and the steady calls' together (issue 48's "no more
than 1% of nothing asked's drops").
Prints one line, CELL key=value ...; exit 1 if fewer than 3 steady calls.
"""
import argparse
import statistics
import sys

from storm_report import call_windows, inside, pct, read_trace


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--learning", type=int, default=0, help="timed calls set apart as learning")
    ap.add_argument("trace")
    a = ap.parse_args()
    calls, timeouts, _, _, drops = read_trace(a.trace)
    sizes = {k[0] for k in calls}
    if len(sizes) != 1:
        print(f"cell_report: one size a cell, the trace has {len(sizes)}", file=sys.stderr)
        return 1
    timed = [w for w in call_windows(calls) if w[1] > 0]
    learning, steady = timed[:a.learning], timed[a.learning:]
    if len(steady) < 3:
        print(f"cell_report: {len(steady)} steady calls after {len(learning)} learning ones; "
              "3 at least", file=sys.stderr)
        return 1
    secs = [w[3] - w[2] for w in steady]
    with_timeout = [sum(1 for x in timeouts if inside(x[0], w)) for w in steady]
    dropped = [sum(1 for x in drops if inside(x[0], w)) for w in steady]
    mean = statistics.mean(secs)
    learn_s = sum(w[3] - w[2] for w in learning)
    learn_drops = sum(1 for w in learning for x in drops if inside(x[0], w))
    row = {"calls": len(timed), "learning": len(learning), "steady": len(steady),
           "mean_s": f"{mean:.6f}", "median_s": f"{statistics.median(secs):.6f}",
           "p90_s": f"{pct(secs, 90):.6f}", "min_s": f"{min(secs):.6f}", "max_s": f"{max(secs):.6f}",
           "timeout_share": f"{sum(1 for t in with_timeout if t) / len(steady):.3f}",
           "timeouts_per_call": f"{statistics.mean(with_timeout):.2f}",
           "drops_per_call": f"{statistics.mean(dropped):.1f}",
           "learning_s": f"{learn_s:.6f}",
           "learning_extra_s": f"{learn_s - len(learning) * mean:.6f}",
           "learning_drops": learn_drops}
    print("CELL " + " ".join(f"{k}={v}" for k, v in row.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
