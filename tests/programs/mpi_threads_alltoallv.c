/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpi_threads_alltoallv.c - the MPI alone, no spank-ibnet: two threads of
 * every rank call MPI_Alltoallv at once, each on its own communicator (a
 * duplicate of MPI_COMM_WORLD and a copy with the ranks reversed), under
 * MPI_THREAD_MULTIPLE, which the standard allows.
 *
 *   mpi_threads_alltoallv REPS
 *
 * Prints "MPI-THREADS reps=R failures=F" on rank 0 (every byte checked);
 * exits 1 on a failure. Why it is here: Open MPI 6.0.0rc2 (Debian forky,
 * November 2026) hung in it 1 run in 3 to 16 at 4 ranks and 4 KiB per pair
 * (two threads waiting in ompi_sync_wait_mt), where Open MPI 4.1.4 did not
 * in 30 runs; tests/unit/alltoall-forms.bats runs it on every MPI so that a
 * hang of the paced threads test can be told from one of the MPI's own.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define BLOCK 4096

static int reps;

struct worker {
	MPI_Comm comm;
	int id, failures;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	int rank, size, r, p, i;

	MPI_Comm_rank(w->comm, &rank);
	MPI_Comm_size(w->comm, &size);
	for (r = 0; r < reps; r++) {
		unsigned char *s = malloc((size_t)size * BLOCK), *d = malloc((size_t)size * BLOCK);
		int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);

		for (p = 0; p < size; p++) {
			counts[p] = BLOCK;
			displs[p] = p * BLOCK;
			for (i = 0; i < BLOCK; i++)
				s[p * BLOCK + i] = (unsigned char)(r + rank * 7 + p * 13 + w->id * 101 + i);
		}
		MPI_Alltoallv(s, counts, displs, MPI_BYTE, d, counts, displs, MPI_BYTE, w->comm);
		for (p = 0; p < size; p++)
			for (i = 0; i < BLOCK; i++)
				if (d[p * BLOCK + i] != (unsigned char)(r + p * 7 + rank * 13 + w->id * 101 + i)) {
					w->failures++;
					p = size;
					break;
				}
		free(s), free(d), free(counts), free(displs);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct worker w[2] = { { MPI_COMM_NULL, 0, 0 }, { MPI_COMM_NULL, 1, 0 } };
	pthread_t t[2];
	int provided, rank, size, failures, i;

	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 2 || provided != MPI_THREAD_MULTIPLE) {
		if (!rank)
			fprintf(stderr, "mpi_threads_alltoallv REPS: needs MPI_THREAD_MULTIPLE (given %d)\n",
				provided);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	reps = atoi(argv[1]);
	MPI_Comm_dup(MPI_COMM_WORLD, &w[0].comm);
	MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &w[1].comm);
	for (i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, work, &w[i]);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	failures = w[0].failures + w[1].failures;
	MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (!rank)
		printf("MPI-THREADS reps=%d failures=%d\n", reps, failures);
	MPI_Comm_free(&w[0].comm);
	MPI_Comm_free(&w[1].comm);
	/* The verdict out now, not in exit's flush after MPI_Finalize: what
	 * becomes of a rank after it is the launcher's business (a CI run's
	 * MPICH job ended with status 0 and no CHECK line in its output). */
	fflush(stdout);
	MPI_Finalize();
	return failures ? 1 : 0;
}
