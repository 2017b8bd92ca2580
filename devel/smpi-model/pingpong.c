/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pingpong.c - what a message and a poll cost a process, for the model's
 * CPU time (issue 51; devel/smpi-model/cpu-cost runs it on the test
 * cluster). Ranks 0 and 1, on two nodes, bounce a message of each size
 * ROUNDS times (after WARM untimed ones) and rank 0 prints the median half
 * round trip; then rank 0 times MPI_Test on a receive that nothing will
 * match before it is cancelled (what one poll of a paced call's wait costs).
 *
 *   pingpong ROUNDS SIZE...
 * Prints "PINGPONG size=N half_rtt_us=X min_us=Y" per size and
 * "POLL test_us=X" (the mean of POLLS calls).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WARM 20
#define POLLS 200000
#define MOST_ROUNDS 100000

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int rank, ranks, rounds, i, k;
	char *buf = NULL;
	double *t;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &ranks);
	rounds = argc > 1 ? atoi(argv[1]) : 0;
	if (ranks != 2 || argc < 3 || rounds < 1 || rounds > MOST_ROUNDS) {
		if (!rank)
			fprintf(stderr, "pingpong: 2 ranks, ROUNDS (1 to %d) and SIZE... wanted\n",
				MOST_ROUNDS);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	t = malloc(sizeof(*t) * (size_t)rounds);
	for (k = 2; k < argc; k++) {
		long size = atol(argv[k]);

		if (size < 0 || size > (1l << 26) || !t)
			MPI_Abort(MPI_COMM_WORLD, 2);
		buf = calloc(1, size ? (size_t)size : 1);
		if (!buf)
			MPI_Abort(MPI_COMM_WORLD, 2);
		for (i = -WARM; i < rounds; i++) {
			double start = MPI_Wtime();

			if (!rank) {
				MPI_Send(buf, (int)size, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
				MPI_Recv(buf, (int)size, MPI_BYTE, 1, 0, MPI_COMM_WORLD,
					 MPI_STATUS_IGNORE);
			} else {
				MPI_Recv(buf, (int)size, MPI_BYTE, 0, 0, MPI_COMM_WORLD,
					 MPI_STATUS_IGNORE);
				MPI_Send(buf, (int)size, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
			}
			if (i >= 0)
				t[i] = (MPI_Wtime() - start) / 2;
		}
		qsort(t, (size_t)rounds, sizeof(*t), by_value);
		if (!rank)
			printf("PINGPONG size=%ld half_rtt_us=%.2f min_us=%.2f\n", size,
			       t[rounds / 2] * 1e6, t[0] * 1e6);
		free(buf);
	}
	if (!rank) {
		MPI_Request req;
		int flag = 0, dummy;
		double start;

		MPI_Irecv(&dummy, 1, MPI_INT, 1, 99, MPI_COMM_WORLD, &req);
		start = MPI_Wtime();
		for (i = 0; i < POLLS && !flag; i++)
			MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
		printf("POLL test_us=%.3f\n", (MPI_Wtime() - start) / POLLS * 1e6);
		if (!flag) {
			MPI_Cancel(&req);
			MPI_Wait(&req, MPI_STATUS_IGNORE);
		}
	}
	free(t);
	MPI_Finalize();
	return 0;
}
