/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * a2a_steps.c - MPI_Alltoall at a fixed number of calls per size, each
 * call's bytes compared with PMPI_Alltoall's on the same input: a program
 * whose call sizes change in steps (the node segments grow, then shrink).
 *
 *   a2a_steps BYTES_PER_PAIR CALLS [BYTES_PER_PAIR CALLS ...]
 *
 * Prints "STEPS calls=C bad=B" on rank 0; exits 1 if any byte differs.
 * With A2A_STEPS_HOLD_SECONDS=S every rank waits S seconds after its calls,
 * before MPI_Finalize, its communicator's state (node-to-node segments
 * included) still held, without using a CPU: a job that a time limit ends.
 * With A2A_STEPS_END_AT_FINALIZE=1 every rank ends with _exit right after
 * MPI_Finalize, running no exit handler: a rank that its launcher ends once
 * the job has finalized.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, size, a, c, total = 0, bad = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 3 || argc % 2 == 0) {
		if (rank == 0)
			fprintf(stderr, "usage: a2a_steps BYTES_PER_PAIR CALLS [...]\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	for (a = 1; a + 1 < argc; a += 2) {
		int bytes = atoi(argv[a]), calls = atoi(argv[a + 1]), i;
		size_t all = (size_t)size * (size_t)bytes;
		unsigned char *send = malloc(all ? all : 1), *mine = malloc(all ? all : 1);
		unsigned char *theirs = malloc(all ? all : 1);

		if (!send || !mine || !theirs)
			MPI_Abort(MPI_COMM_WORLD, 3);
		for (c = 0; c < calls; c++, total++) {
			for (i = 0; i < (int)all; i++)
				send[i] = (unsigned char)(total * 31 + rank * 7 + i * 3);
			memset(mine, 0xa5, all);
			memset(theirs, 0x5a, all);
			MPI_Alltoall(send, bytes, MPI_BYTE, mine, bytes, MPI_BYTE, MPI_COMM_WORLD);
			PMPI_Alltoall(send, bytes, MPI_BYTE, theirs, bytes, MPI_BYTE, MPI_COMM_WORLD);
			if (memcmp(mine, theirs, all) != 0)
				bad++;
		}
		free(send), free(mine), free(theirs);
	}
	MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("STEPS calls=%d bad=%d\n", total, bad);
	fflush(stdout);	/* before any rank can end (A2A_STEPS_END_AT_FINALIZE) */
	if (getenv("A2A_STEPS_HOLD_SECONDS"))
		sleep((unsigned int)atoi(getenv("A2A_STEPS_HOLD_SECONDS")));
	MPI_Finalize();
	if (getenv("A2A_STEPS_END_AT_FINALIZE"))
		_exit(bad ? 1 : 0);
	return bad ? 1 : 0;
}
