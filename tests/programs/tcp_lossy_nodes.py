#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tcp_lossy_nodes.py HOST PORT ROUNDS SIZE SECONDS: task 0 of a 2-task step
echoes on PORT; task 1 connects to HOST:PORT (retrying for at most 20 s) and
makes ROUNDS request/response exchanges of SIZE bytes each, stopped after
SECONDS at most. On a lossy network the tails of the exchanges are lost and
only a retransmission timeout recovers them. Each prints tcpi_rto of its end
(microseconds); task 1 also the rounds done."""
import os, socket, struct, sys, time
host, port, rounds, size, seconds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
rank = int(os.environ.get("SLURM_PROCID", "0"))
rto = lambda s: struct.unpack_from("I", s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104), 8)[0]
def rx(s, n):
    b = bytearray()
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c: raise EOFError
        b += c
    return b
if rank == 0:
    l = socket.socket(); l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); l.bind(("0.0.0.0", port)); l.listen(1); l.settimeout(30)
    s, _ = l.accept(); done = 0
    try:
        while True:
            s.sendall(rx(s, size)); done += 1
    except EOFError:
        pass
else:
    deadline = time.time() + 20
    while True:
        try:
            s = socket.create_connection((host, port), timeout=5); break
        except OSError:
            if time.time() > deadline: raise
            time.sleep(0.2)
    s.settimeout(30)
    t0 = time.time(); done = 0
    while done < rounds and time.time() - t0 < seconds:
        s.sendall(b"x" * size); rx(s, size); done += 1
    print("rounds=%d in %.1f s" % (done, time.time() - t0), flush=True)
print("RTO rank=%d host=%s rto_us=%d" % (rank, socket.gethostname(), rto(s)), flush=True)
s.close()
