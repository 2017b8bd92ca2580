#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# An all-to-all from Python through the real mpi4py, as a Python code makes
# it: comm.Alltoall, comm.Alltoallv and comm.Alltoallw on plain buffers. Each block's bytes
# are a function of sender, receiver and position, so every rank checks what
# it got without trusting any all-to-all.
#   a2a_mpi4py.py LEVEL BYTES   LEVEL: "default" (mpi4py's, MPI_THREAD_MULTIPLE)
#                               or an mpi4py thread level such as "single"
import sys

import mpi4py

level, per_pair = sys.argv[1], int(sys.argv[2])
if level != "default":
    mpi4py.rc.thread_level = level
from mpi4py import MPI  # noqa: E402 (after the thread level is set)

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()


def block(src, dst, n):
    return bytes((src * 31 + dst * 7 + i) % 251 for i in range(n))


bad = 0
send = bytearray(b"".join(block(rank, d, per_pair) for d in range(size)))
recv = bytearray(per_pair * size)
comm.Alltoall([send, MPI.BYTE], [recv, MPI.BYTE])
for s in range(size):
    if recv[s * per_pair:(s + 1) * per_pair] != block(s, rank, per_pair):
        bad += 1
# Alltoallv: block s->d has per_pair + (s + d) % 3 bytes.
scounts = [per_pair + (rank + d) % 3 for d in range(size)]
rcounts = [per_pair + (s + rank) % 3 for s in range(size)]
sdispls = [sum(scounts[:d]) for d in range(size)]
rdispls = [sum(rcounts[:s]) for s in range(size)]
send = bytearray(b"".join(block(rank, d, scounts[d]) for d in range(size)))
recv = bytearray(sum(rcounts))
comm.Alltoallv([send, (scounts, sdispls), MPI.BYTE], [recv, (rcounts, rdispls), MPI.BYTE])
for s in range(size):
    if recv[rdispls[s]:rdispls[s] + rcounts[s]] != block(s, rank, rcounts[s]):
        bad += 1
# Alltoallw (mpi4py-fft's call): the same blocks, a datatype per peer.
types = [MPI.BYTE] * size
recv = bytearray(sum(rcounts))
comm.Alltoallw([send, (scounts, sdispls), types], [recv, (rcounts, rdispls), types])
for s in range(size):
    if recv[rdispls[s]:rdispls[s] + rcounts[s]] != block(s, rank, rcounts[s]):
        bad += 1
bad = comm.allreduce(bad)
if rank == 0:
    print(f"MPI4PY ranks={size} level={MPI.Query_thread()} bad={bad}", flush=True)
