#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""stderr_writes.py CMD [ARG...]: run CMD with its stderr a Unix datagram
socket, so that each write(2) to stderr arrives as one datagram, and print
each as 'WRITE <bytes> <text>' (newlines shown as \\n), then 'EXIT <status>'.
A test reads from it whether a line went out whole, in one write, or in
pieces: what a pipe shared by several ranks interleaves. CMD's stdout passes
through. Bounded: CMD is given 60 s."""
import socket
import subprocess
import sys
import threading

ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
got = []
done = threading.Event()


def drain():
    # A datagram socket has no end of file: read until the command is gone
    # and nothing more is queued.
    ours.settimeout(0.2)
    while True:
        try:
            got.append(ours.recv(1 << 16))
        except socket.timeout:
            if done.is_set():
                return


t = threading.Thread(target=drain, daemon=True)
t.start()
try:
    # close_fds=False: an MPI launcher's descriptors (MPICH's PMI_FD) must reach CMD.
    status = subprocess.run(sys.argv[1:], stderr=theirs, close_fds=False, timeout=60).returncode
except subprocess.TimeoutExpired:
    status = 124
theirs.close()
done.set()
t.join(timeout=5)
sys.stdout.flush()
for d in got:
    print("WRITE %d %s" % (len(d), d.decode(errors="replace").replace("\n", "\\n")))
print("EXIT %d" % status)
