#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""kit_report.py MATRIX.csv... - the many-core kit's rows (devel/many-cores/run-matrix:
switch,rate,buffer,nodes,ppn,bytes,variant,round,ms,drops,rc) as markdown tables.

One line per switch, layout and size: the MPI's own ("own") median over the
rounds, each other variant's median and the median of its per-round ratios to
the MPI's own with the least and most, every round's drops, and each time over
the link's bound (the bytes converging on one port over its rate).
"""
import csv, statistics, sys
from collections import defaultdict
RATE={'10gbit':10e9,'1gbit':1e9,'100mbit':100e6}
def size_text(n):
    n=int(n); return "%d MiB"%(n>>20) if n>=1<<20 else "%d KiB"%(n>>10)
for f in sys.argv[1:]:
    rows=[r for r in csv.DictReader(open(f))]
    cells=defaultdict(lambda: defaultdict(dict)); order=[]
    variants=[]
    for r in rows:
        k=(r['switch'],r['rate'],r['buffer'],int(r['nodes']),int(r['ppn']),int(r['bytes']))
        if k not in cells: order.append(k)
        if r['variant'] not in variants: variants.append(r['variant'])
        cells[k][r['variant']][int(r['round'])]=r
    others=[v for v in variants if v!='own']
    hdr="| switch | layout | per pair | MPI's own | " + " | ".join("%s: time, ratio (least-most)"%v for v in others) + " | drops: own / " + " / ".join(others) + " | own / bound | " + " / ".join(o+" / bound" for o in others)+" |"
    print(hdr); print("|"+"---|"*(hdr.count("|")-1))
    for k in order:
        sw,rate,buf,n,p,b=k; c=cells[k]
        own=c.get('own',{})
        ot=[float(own[x]['ms']) for x in sorted(own) if own[x]['ms']]
        if not ot: continue
        line="| %s | %dx%d | %s | %.2f ms |"%(sw,n,p,size_text(b),statistics.median(ot))
        bound=None
        if rate in RATE:
            fanin=b*p*(n*p-p); bound=fanin*8/RATE[rate]*1e3
        bnd=[]
        for v in others:
            cv=c.get(v,{})
            rs=[float(cv[x]['ms'])/float(own[x]['ms']) for x in sorted(cv) if x in own and cv[x]['ms'] and own[x]['ms']]
            tv=[float(cv[x]['ms']) for x in sorted(cv) if cv[x]['ms']]
            if not tv: line+=" - |"; bnd.append("-"); continue
            line+=" %.2f ms, **%.2fx** (%.2f-%.2f) |"%(statistics.median(tv),statistics.median(rs),min(rs),max(rs))
            bnd.append("%.2fx"%(statistics.median(tv)/bound) if bound else "-")
        line+=" "+"/".join(own[x]['drops'] for x in sorted(own))
        for v in others:
            cv=c.get(v,{}); line+=" / "+"/".join(cv[x]['drops'] for x in sorted(cv))
        line+=" | %s | %s |"%(("%.2fx"%(statistics.median(ot)/bound)) if bound else "-", " / ".join(bnd))
        print(line)
    print()
