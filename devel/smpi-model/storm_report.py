#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""storm_report.py - what a MODEL_TRACE file (model_trace.h) says of the
retransmission storm (issue 49).

    devel/smpi-model/storm_report.py [--jiffy-us 4000] [--skip-first] TRACE

Prints, per size of call, the calls' times (the slowest rank's end less the
first rank's start), and for the run:
- timeouts per jiffy bin: how many connections' retransmission timers
  fired on one tick, the most and the 95th percentile over the ticks with
  any, in all and into one port (the destination's), against the mean a
  tick would get if the same timeouts were spread evenly over the calls;
- the share of the segments sent again (timeouts, recovery, tail probes)
  that a port dropped again;
- backoff depth: per connection, the deepest consecutive timeout it
  reached, and how many timeouts were at each depth;
- drops per call.
The last line, STORM key=value ..., is the row the bench's CSV takes.
"""
import argparse
import collections
import math
import statistics
import sys


def pct(values, q):
    """The q-th percentile (nearest rank) of values."""
    if not values:
        return 0
    s = sorted(values)
    return s[min(len(s) - 1, max(0, math.ceil(q / 100 * len(s)) - 1))]


def read_trace(path):
    """A MODEL_TRACE file's events: calls ((bytes, rank) -> [(start, end)]
    in order), timeouts and probes ((time, src, dst, lane, lport, backoff)),
    the count of segments sent again, drops ((time, src, dst, retx))."""
    calls = collections.defaultdict(list)
    timeouts, probes, resent, drops = [], [], 0, []
    for line in open(path):
        f = line.split()
        if not f:
            continue
        if f[0] == "C":
            calls[(int(f[2]), int(f[1]))].append((float(f[3]), float(f[4])))
        elif f[0] in "TP":
            ev = (float(f[1]), int(f[2]), int(f[3]), int(f[4]), int(f[5]), int(f[6]))
            (timeouts if f[0] == "T" else probes).append(ev)
        elif f[0] == "R":
            resent += 1
        elif f[0] == "D":
            drops.append((float(f[1]), int(f[2]), int(f[3]), int(f[4])))
    return calls, timeouts, probes, resent, drops


def call_windows(calls):
    """The calls as the benchmark times them: the i-th call of a size is
    every rank's i-th call of it, from the first rank's start to the last
    rank's end: [(bytes, index, start, end)]."""
    windows = []
    for b in sorted({k[0] for k in calls}):
        ranks = [calls[k] for k in calls if k[0] == b]
        for i in range(min(len(r) for r in ranks)):
            windows.append((b, i, min(r[i][0] for r in ranks), max(r[i][1] for r in ranks)))
    return windows


def inside(t, w):
    """Whether an event at t fell within call window w."""
    return w[2] <= t <= w[3] + 1e-9


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jiffy-us", type=float, default=4000,
                    help="the tick to bin timeouts by (the run's MODEL_JIFFY_US; 4000 if it had none)")
    ap.add_argument("--skip-first", action="store_true", default=True,
                    help="leave out each size's first call (a2a_bench's untimed one; the default)")
    ap.add_argument("trace")
    a = ap.parse_args()
    j = a.jiffy_us / 1e6

    calls, timeouts, probes, resent, drops = read_trace(a.trace)
    windows = call_windows(calls)
    timed = [w for w in windows if not (a.skip_first and w[1] == 0)]

    row = {}
    for b in sorted({w[0] for w in timed}):
        ws = [w for w in timed if w[0] == b]
        ms = [(w[3] - w[2]) * 1e3 for w in ws]
        d = [sum(1 for x in drops if inside(x[0], w)) for w in ws]
        t = [sum(1 for x in timeouts if inside(x[0], w)) for w in ws]
        print(f"size {b}: {len(ws)} calls, ms median {statistics.median(ms):.2f} mean {statistics.mean(ms):.2f} "
              f"(p10 {pct(ms, 10):.2f}, p90 {pct(ms, 90):.2f}, min {min(ms):.2f}, max {max(ms):.2f}); "
              f"drops per call median {statistics.median(d)} max {max(d)}; "
              f"timeouts per call median {statistics.median(t)} max {max(t)}")
        row.update({f"s{b}_calls": len(ws), f"s{b}_ms_median": round(statistics.median(ms), 3),
                    f"s{b}_ms_mean": round(statistics.mean(ms), 3),
                    f"s{b}_ms_p10": round(pct(ms, 10), 3), f"s{b}_ms_p90": round(pct(ms, 90), 3),
                    f"s{b}_ms_min": round(min(ms), 3), f"s{b}_ms_max": round(max(ms), 3),
                    f"s{b}_drops_per_call": statistics.median(d),
                    f"s{b}_timeouts_per_call": statistics.median(t)})

    # Timeouts on ticks. A timer on the grid fires at k x J exactly: bin by
    # the nearest tick; without jiffies, by the tick it falls in.
    tick = collections.Counter(round(x[0] / j - 0.4999) for x in timeouts)
    port_tick = collections.Counter((x[2], round(x[0] / j - 0.4999)) for x in timeouts)
    busy = sum(w[3] - w[2] for w in windows) / j
    ports = len({x[2] for x in timeouts}) or 1
    even = len(timeouts) / busy if busy else 0
    print(f"timeouts {len(timeouts)} on {len(tick)} ticks of {a.jiffy_us:.0f} us: "
          f"most on one tick {max(tick.values(), default=0)}, 95th percentile {pct(list(tick.values()), 95)}, "
          f"median {pct(list(tick.values()), 50)}; spread evenly over the calls' {busy:.0f} ticks: "
          f"{even:.2f} a tick")
    print(f"  into one port: most on one tick {max(port_tick.values(), default=0)}, "
          f"95th percentile {pct(list(port_tick.values()), 95)}, median {pct(list(port_tick.values()), 50)}; "
          f"spread evenly: {even / ports:.2f}")
    dropped_again = sum(1 for x in drops if x[3])
    print(f"segments sent again {resent}, dropped again {dropped_again}"
          f" ({100 * dropped_again / resent if resent else 0:.1f}%); drops {len(drops)}, "
          f"of first transmissions {len(drops) - dropped_again}; tail probes {len(probes)}")
    deepest = collections.defaultdict(int)
    for x in timeouts:
        conn = (x[1], x[2], x[3], x[4])
        deepest[conn] = max(deepest[conn], x[5] if x[5] else 99)
    closes = sum(1 for x in timeouts if x[5] == 0)
    by_depth = collections.Counter(x[5] for x in timeouts if x[5])
    conn_depth = collections.Counter(deepest.values())
    print("timeouts at backoff depth: " + ", ".join(f"{k}: {v}" for k, v in sorted(by_depth.items())) +
          (f"; connections closed (retries spent): {closes}" if closes else ""))
    print(f"connections with a timeout {len(deepest)}; their deepest backoff: " +
          ", ".join(f"{k}: {v}" for k, v in sorted(conn_depth.items())))
    row.update({"timeouts": len(timeouts), "ticks_with_timeouts": len(tick),
                "tick_max": max(tick.values(), default=0), "tick_p95": pct(list(tick.values()), 95),
                "port_tick_max": max(port_tick.values(), default=0),
                "port_tick_p95": pct(list(port_tick.values()), 95),
                "even_per_tick": round(even, 3), "resent": resent, "resent_dropped": dropped_again,
                "resent_dropped_pct": round(100 * dropped_again / resent, 1) if resent else 0,
                "drops": len(drops), "probes": len(probes), "conns_timed_out": len(deepest),
                "backoff_max": max((x[5] for x in timeouts), default=0),
                "backoff_p95": pct([x[5] for x in timeouts if x[5]], 95), "closed": closes})
    print("STORM " + " ".join(f"{k}={v}" for k, v in row.items()))


if __name__ == "__main__":
    sys.exit(main())
