#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tcp_lossy_pair.py ROUNDS SIZE SECONDS: a loopback TCP connection inside
this process (an echo thread), ROUNDS request/response exchanges of SIZE
bytes each, stopped after SECONDS at most; on a lossy loopback (netem in a
test's own network namespace) the tails of the exchanges are lost and only
a retransmission timeout recovers them. Prints the rounds done and tcpi_rto
of both ends (microseconds)."""
import socket, struct, sys, threading, time

rounds, size, seconds = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
rto = lambda s: struct.unpack_from("I", s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104), 8)[0]

def recv_exactly(s, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise EOFError
        buf += chunk
    return buf

l = socket.socket()
l.bind(("127.0.0.1", 0))
l.listen(1)
accepted = []

def echo():
    s, _ = l.accept()
    accepted.append(s)
    s.settimeout(seconds + 5)
    try:
        while True:
            s.sendall(recv_exactly(s, size))
    except (EOFError, OSError):
        pass

t = threading.Thread(target=echo, daemon=True)
t.start()
c = socket.create_connection(l.getsockname(), timeout=seconds + 5)
deadline, done, msg = time.time() + seconds, 0, b"x" * size
while done < rounds and time.time() < deadline:
    c.sendall(msg)
    recv_exactly(c, size)
    done += 1
print("rounds=%d client_rto=%d accepted_rto=%d" % (done, rto(c), rto(accepted[0]) if accepted else -1), flush=True)
c.close()
t.join(5)
