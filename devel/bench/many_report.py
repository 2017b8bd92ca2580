#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""many_report.py ROWS.csv - devel/a2a-many's tables, in markdown.

Micro-benchmark: per layout (nodes x ranks per node), size and switch, each
variant's time (median over rounds of each job's median), its ratio to the
link bound (the bytes converging on one node's port over its rate, 100
Mbit/s), and the switch's drops per job; then node to node over the MPI's
own and over pair by pair, per round. Quantum ESPRESSO: per layout, each
cell's median wall time with its range, drops and total energy, and the
ratios the issue asks for, median of the interleaved rounds' ratios.
"""
import csv
import statistics
import sys
from collections import defaultdict

RATE = 100e6 / 8  # bytes/s of the simulated eth port


def layout_of(s):
    n, k = s.split('x')
    return int(n), int(k)


def bound(layout, size):
    n, k = layout_of(layout)
    return k * (n - 1) * k * size / RATE


def t(s):
    return f'{s:.2f} s' if s >= 1 else f'{s * 1e3:.1f} ms'


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    micro = defaultdict(list)
    apps = defaultdict(lambda: defaultdict(list))
    for r in rows:
        key = (r['layout'], r['switch'], r['variant'])
        if r['what'] == 'micro':
            micro[key + (int(r['size']),)].append(r)
        else:
            apps[r['what']][key].append(r)
    if micro:
        print('### The micro-benchmark, many ranks per node\n')
        print('Time per `MPI_Alltoall` (median of rounds), its ratio to the link bound, drops per job '
              '(median); *nodes/own* and *nodes/pairs*: per round, that round\'s ratio.\n')
        print('| N x ranks | S | switch | MPI\'s own | pair by pair | node to node | nodes/own per round | '
              'nodes/pairs per round |')
        print('|---|---|---|---|---|---|---|---|')
        keys = sorted({(k[0], k[3], k[1]) for k in micro},
                      key=lambda x: (layout_of(x[0]), x[1], x[2]))
        for layout, size, sw in keys:
            cells = {v: sorted(micro.get((layout, sw, v, size), []), key=lambda r: r['round'])
                     for v in ('default', 'pairs', 'nodes')}

            def show(v):
                rs = cells[v]
                if not rs:
                    return ''
                med = statistics.median(float(r['median_s']) for r in rs)
                drops = int(statistics.median(int(r['drops']) for r in rs))
                return f'{t(med)} ({med / bound(layout, size):.2f}x bound, {drops} drops)'

            def ratio(a, b):
                xs = [float(x['median_s']) / float(y['median_s'])
                      for x, y in zip(cells[a], cells[b]) if float(y['median_s']) > 0]
                return ', '.join(f'{x:.2f}x' for x in xs)
            size_s = f'{size // 1024} KiB' if size >= 1024 else f'{size} B'
            print(f"| {layout.replace('x', ' x ')} | {size_s} | {sw} | {show('default')} | "
                  f"{show('pairs')} | {show('nodes')} | {ratio('nodes', 'default')} | "
                  f"{ratio('nodes', 'pairs')} |")
        print()
    names = {'default': 'nothing asked', 'nodes': '`--ordered-alltoall`, node to node',
             'pairs': '`--ordered-alltoall`, pair by pair (the default up to 16 ranks per node)',
             'pairs16k': '`--ordered-alltoall`, pair by pair, the window fixed at 16 KiB', 'floor': '`--tcp-rto-min`',
             'both': '`--ordered-alltoall --tcp-rto-min`, pair by pair'}
    titles = {'qe': 'Quantum ESPRESSO `pw.x`', 'fft': 'mpi4py-fft, 128³ complex, 10 forward and backward'}
    for app, cells in apps.items():
        print(f'### {titles.get(app, app)}, many ranks per node\n')
        print('| N x ranks | switch, asked | wall time, median (range) | drops | calls paced '
              '(node to node), rank 0 | result |')
        print('|---|---|---|---|---|---|')
        layouts = sorted({k[0] for k in cells}, key=layout_of)
        order = (('gige-fc', 'default'), ('gige-fc', 'pairs'), ('gige-fc', 'nodes'), ('gige-lossy', 'default'),
                 ('gige-lossy', 'floor'), ('gige-lossy', 'nodes'), ('gige-lossy', 'pairs'),
                 ('gige-lossy', 'pairs16k'), ('gige-lossy', 'both'))
        for layout in layouts:
            for sw, v in order:
                rs = cells.get((layout, sw, v))
                if not rs:
                    continue
                secs = [float(r['median_s']) for r in rs]
                drops = int(statistics.median(int(r['drops']) for r in rs))
                results = sorted({r['result'] for r in rs})
                print(f"| {layout.replace('x', ' x ')} | {sw}, {names[v]} | "
                      f"{statistics.median(secs):.1f} s ({min(secs):.1f}-{max(secs):.1f}) | {drops} | "
                      f"{rs[0]['paced']} ({rs[0]['nodes']}) | {', '.join(results)} |")
        print()
        print('| N x ranks | ratio | per round | median |')
        print('|---|---|---|---|')
        for layout in layouts:
            def by_round(sw, v):
                return {r['round']: float(r['median_s']) for r in cells.get((layout, sw, v), [])}
            for label, x_, y_ in (
                    ('lossy node to node / fc nothing asked', ('gige-lossy', 'nodes'), ('gige-fc', 'default')),
                    ('lossy node to node / lossy nothing asked', ('gige-lossy', 'nodes'), ('gige-lossy', 'default')),
                    ('lossy node to node / lossy `--tcp-rto-min`', ('gige-lossy', 'nodes'), ('gige-lossy', 'floor')),
                    ('fc node to node / fc nothing asked', ('gige-fc', 'nodes'), ('gige-fc', 'default')),
                    ('fc pair by pair / fc nothing asked', ('gige-fc', 'pairs'), ('gige-fc', 'default')),
                    ('lossy pair by pair / fc nothing asked', ('gige-lossy', 'pairs'), ('gige-fc', 'default')),
                    ('lossy pair by pair / lossy nothing asked', ('gige-lossy', 'pairs'), ('gige-lossy', 'default')),
                    ('lossy pair by pair, 16 KiB fixed / fc nothing asked', ('gige-lossy', 'pairs16k'), ('gige-fc', 'default')),
                    ('lossy pair by pair / lossy pair by pair, 16 KiB fixed', ('gige-lossy', 'pairs'), ('gige-lossy', 'pairs16k')),
                    ('lossy node to node / lossy pair by pair', ('gige-lossy', 'nodes'), ('gige-lossy', 'pairs')),
                    ('lossy `--tcp-rto-min` / fc nothing asked', ('gige-lossy', 'floor'), ('gige-fc', 'default')),
                    ('lossy pair by pair with the floor / fc nothing asked', ('gige-lossy', 'both'), ('gige-fc', 'default')),
                    ('lossy pair by pair with the floor / lossy nothing asked', ('gige-lossy', 'both'), ('gige-lossy', 'default')),
                    ('lossy pair by pair with the floor / lossy `--tcp-rto-min`', ('gige-lossy', 'both'), ('gige-lossy', 'floor'))):
                x, y = by_round(*x_), by_round(*y_)
                rs = [x[k] / y[k] for k in sorted(x) if k in y and y[k] > 0]
                if rs:
                    print(f"| {layout.replace('x', ' x ')} | {label} | {', '.join(f'{r:.2f}x' for r in rs)} | "
                          f"{statistics.median(rs):.2f}x |")
        print()


if __name__ == '__main__':
    main()
