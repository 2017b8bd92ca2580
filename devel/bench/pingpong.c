/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pingpong.c - MPI ping-pong latency and bandwidth between ranks 0 and 1,
 * like IMB PingPong.
 *
 *   pingpong SECONDS_PER_SIZE SIZE...
 *
 * Prints per size: RESULT size=S reps=R half_rtt=SEC (median of one-way
 * times, i.e. half a round trip); bandwidth is S/half_rtt.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int rank, i;
	double budget;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc < 3) {
		if (rank == 0)
			fprintf(stderr, "usage: pingpong SECONDS_PER_SIZE SIZE...\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	budget = atof(argv[1]);
	for (i = 2; i < argc; i++) {
		long bytes = atol(argv[i]);
		char *buf = calloc(1, (size_t)bytes + 1);
		double times[2000], start = MPI_Wtime();
		int reps = 0, stop = 0;

		while (!stop) {
			double t0 = MPI_Wtime();

			if (rank == 0) {
				MPI_Send(buf, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
				MPI_Recv(buf, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			} else if (rank == 1) {
				MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				MPI_Send(buf, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
			}
			times[reps++] = (MPI_Wtime() - t0) / 2;
			stop = reps >= 2000 || (reps >= 5 && MPI_Wtime() - start >= budget);
			MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
		}
		if (rank == 0) {
			qsort(times, (size_t)reps, sizeof(double), cmp_double);
			printf("RESULT size=%ld reps=%d half_rtt=%.7f\n", bytes, reps, times[reps / 2]);
			fflush(stdout);
		}
		free(buf);
	}
	MPI_Finalize();
	return 0;
}
