/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * a2a_churn.c - communicators made, used by one MPI_Alltoall, and freed,
 * many times. The paced scheme keeps a private duplicate per communicator;
 * if it were not freed with the user's, the MPI would run out of context
 * ids (MPICH has 2048, Open MPI grows its table), so this run fails loudly
 * unless the scheme's state goes with the communicator.
 *
 *   a2a_churn ROUNDS BYTES_PER_PAIR
 *
 * Prints "CHURN rounds=R ranks=N bad=B" on rank 0; exits 1 if any byte is wrong.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, size, rounds, bytes, round, r, b, bad = 0;
	unsigned char *send, *recv;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc != 3) {
		if (rank == 0)
			fprintf(stderr, "usage: a2a_churn ROUNDS BYTES_PER_PAIR\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	rounds = atoi(argv[1]);
	bytes = atoi(argv[2]);
	send = malloc((size_t)size * (size_t)bytes + 1);
	recv = malloc((size_t)size * (size_t)bytes + 1);
	if (!send || !recv)
		MPI_Abort(MPI_COMM_WORLD, 3);
	for (round = 0; round < rounds; round++) {
		MPI_Comm comm;

		MPI_Comm_dup(MPI_COMM_WORLD, &comm);
		for (r = 0; r < size; r++)
			for (b = 0; b < bytes; b++)
				send[r * bytes + b] = (unsigned char)(rank * 7 + r * 3 + b + round);
		MPI_Alltoall(send, bytes, MPI_BYTE, recv, bytes, MPI_BYTE, comm);
		for (r = 0; r < size; r++)
			for (b = 0; b < bytes; b++)
				bad += recv[r * bytes + b] != (unsigned char)(r * 7 + rank * 3 + b + round);
		MPI_Comm_free(&comm);
	}
	MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("CHURN rounds=%d ranks=%d bad=%d\n", rounds, size, bad);
	free(send);
	free(recv);
	/* The verdict out now, not in exit's flush after MPI_Finalize: what
	 * becomes of a rank after it is the launcher's business (a CI run's
	 * MPICH job ended with status 0 and no CHECK line in its output). */
	fflush(stdout);
	MPI_Finalize();
	return bad ? 1 : 0;
}
