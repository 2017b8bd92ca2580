#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tcp_floor_pairs.py N: N loopback TCP connections made to and accepted on
one listener, all kept open; prints the retransmission floor the kernel holds
for each end (TCP_RTO_MIN_US read back, microseconds, Linux 6.15 and later),
one line each: "listener V", then "client V" and "accepted V" per connection;
and the most each end may hold back an ACK (TCP_DELACK_MAX_US read back),
"delack client D" and "delack accepted D", where the kernel says it.
For the floor spread per socket (issue 49): tests/unit/tcp-floor.bats (the
preload) and tests/unit/tcp-floor-bpf.bats (the BPF tier)."""
import socket, struct, sys

TCP_RTO_MIN_US = 45
TCP_DELACK_MAX_US = 46
n = int(sys.argv[1])
rto_min = lambda s: struct.unpack("i", s.getsockopt(socket.IPPROTO_TCP, TCP_RTO_MIN_US, 4))[0]


def delack(s, end):
    try:
        d = struct.unpack("i", s.getsockopt(socket.IPPROTO_TCP, TCP_DELACK_MAX_US, 4))[0]
    except OSError:
        return
    print("delack %s %d" % (end, d))

listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen(n)
print("listener %d" % rto_min(listener))
ends = []
for _ in range(n):
    client = socket.create_connection(listener.getsockname())
    accepted, _ = listener.accept()
    ends += [client, accepted]
    print("client %d" % rto_min(client))
    print("accepted %d" % rto_min(accepted))
    delack(client, "client")
    delack(accepted, "accepted")
