#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tcp_rto_pair.py HOST PORT: task 0 of a 2-task step listens on PORT, task 1
connects to HOST:PORT (retrying for at most 20 s); each prints the
retransmission timeout the kernel holds for its end of the connection
(tcpi_rto, microseconds) and the node's congestion control."""
import os, socket, struct, sys, time

host, port = sys.argv[1], int(sys.argv[2])
rank = int(os.environ.get("SLURM_PROCID", "0"))
rto = lambda s: struct.unpack_from("I", s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104), 8)[0]
cc = open("/proc/sys/net/ipv4/tcp_congestion_control").read().strip()
if rank == 0:
    l = socket.socket()
    l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    l.bind(("0.0.0.0", port))
    l.listen(1)
    l.settimeout(30)
    s, _ = l.accept()
    s.recv(1)
else:
    deadline = time.time() + 20
    while True:
        try:
            s = socket.create_connection((host, port), timeout=5)
            break
        except OSError:
            if time.time() > deadline:
                raise
            time.sleep(0.2)
    s.sendall(b"x")
print("RTO rank=%d host=%s rto_us=%d cc=%s" % (rank, socket.gethostname(), rto(s), cc), flush=True)
