#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# fft_bench.py N REPS - a Python spectral code's transforms: mpi4py-fft (Debian's
# python3-mpi4py-fft) on an N^3 complex array, REPS forward and backward, its
# transposes MPI_Alltoallw of subarray types. Prints the wall time of the
# transforms, a checksum of the last forward result and the round trip error.
import sys, time
import numpy as np
from mpi4py import MPI
from mpi4py_fft import PFFT, newDistArray
n, reps = int(sys.argv[1]), int(sys.argv[2])
comm = MPI.COMM_WORLD
fft = PFFT(comm, [n, n, n], dtype=np.complex128)
u = newDistArray(fft, False)
idx = np.indices(u.shape)
g = [idx[d] + u.substart[d] for d in range(3)]
u[:] = np.sin(g[0] * 0.37 + g[1] * 0.11) + 1j * np.cos(g[2] * 0.23 + g[0] * 0.05)
u0 = u.copy()
uh = newDistArray(fft, True)
comm.Barrier()
t0 = MPI.Wtime()
for _ in range(reps):
    uh = fft.forward(u, uh)
    u = fft.backward(uh, u)
comm.Barrier()
t1 = MPI.Wtime()
err = comm.allreduce(float(np.max(np.abs(u - u0))), op=MPI.MAX)
chk = comm.allreduce(float(np.sum(np.abs(uh))), op=MPI.SUM)
if comm.rank == 0:
    print(f"RESULT seconds={t1 - t0:.3f} result={chk:.6e} error={err:.2e} ranks={comm.size}", flush=True)
