/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * a2a_large.c - MPI 4.0's large-count all-to-alls (MPI_Alltoall_c,
 * MPI_Alltoallv_c, MPI_Alltoallw_c: what mpi4py 4 calls), byte for byte
 * against the MPI's own (PMPI_*_c) on the same input.
 *
 *   a2a_large ROUNDS
 *
 * Each round: the three calls with counts that fit an int (the scheme
 * paces them), in place once; then one MPI_Alltoallv_c whose counts pass an
 * int on one rank (3,000,000,000 elements of a type of size 0: no memory,
 * and the scheme must hand it over on every rank). Rank 0 prints
 * "LARGE cases=N failures=F"; exits 1 on a failure. Built only against an
 * MPI whose mpi.h is 4.0 or later.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if MPI_VERSION < 4
#error "needs MPI 4.0's large-count routines"
#endif

static int rank, size, cases, failures;

static void check(const char *what, const void *a, const void *b, size_t n)
{
	cases++;
	if (memcmp(a, b, n)) {
		failures++;
		fprintf(stderr, "rank %d: %s differs from the MPI's own\n", rank, what);
	}
}

static void fill(unsigned char *b, size_t n, int salt)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (unsigned char)(i * 5 + (size_t)rank * 29 + (size_t)salt * 3 + (i >> 10));
}

int main(int argc, char **argv)
{
	int rounds, r, p;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	rounds = argc > 1 ? atoi(argv[1]) : 3;
	for (r = 0; r < rounds; r++) {
		MPI_Count block = 1000 + 3000 * r, *sc = malloc(sizeof(MPI_Count) * size);
		MPI_Count *rc = malloc(sizeof(MPI_Count) * size);
		MPI_Aint *sd = malloc(sizeof(MPI_Aint) * size), *rd = malloc(sizeof(MPI_Aint) * size);
		MPI_Datatype *t = malloc(sizeof(MPI_Datatype) * size);
		size_t bytes = (size_t)(block + 64) * size;
		unsigned char *s = malloc(bytes), *a = malloc(bytes), *b = malloc(bytes);

		fill(s, bytes, r);
		memset(a, 0xee, bytes), memset(b, 0xee, bytes);
		MPI_Alltoall_c(s, block, MPI_BYTE, a, block, MPI_BYTE, MPI_COMM_WORLD);
		PMPI_Alltoall_c(s, block, MPI_BYTE, b, block, MPI_BYTE, MPI_COMM_WORLD);
		check("MPI_Alltoall_c", a, b, bytes);
		for (p = 0; p < size; p++) {
			/* Symmetric counts, blocks in reverse order. */
			sc[p] = rc[p] = block / (1 + rank + p);
			sd[p] = rd[p] = (MPI_Aint)(size - 1 - p) * (block + 64);
			t[p] = MPI_BYTE;
		}
		memset(a, 0xee, bytes), memset(b, 0xee, bytes);
		MPI_Alltoallv_c(s, sc, sd, MPI_BYTE, a, rc, rd, MPI_BYTE, MPI_COMM_WORLD);
		PMPI_Alltoallv_c(s, sc, sd, MPI_BYTE, b, rc, rd, MPI_BYTE, MPI_COMM_WORLD);
		check("MPI_Alltoallv_c", a, b, bytes);
		memset(a, 0xee, bytes), memset(b, 0xee, bytes);
		MPI_Alltoallw_c(s, sc, sd, t, a, rc, rd, t, MPI_COMM_WORLD);
		PMPI_Alltoallw_c(s, sc, sd, t, b, rc, rd, t, MPI_COMM_WORLD);
		check("MPI_Alltoallw_c", a, b, bytes);
		memcpy(a, s, bytes), memcpy(b, s, bytes);
		MPI_Alltoallv_c(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, a, rc, rd, MPI_BYTE,
				MPI_COMM_WORLD);
		PMPI_Alltoallv_c(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, b, rc, rd, MPI_BYTE,
				 MPI_COMM_WORLD);
		check("MPI_Alltoallv_c in place", a, b, bytes);
		{
			/* A count past an int on rank 0 only, of a type of size 0. */
			MPI_Datatype empty;

			MPI_Type_contiguous(0, MPI_BYTE, &empty);
			MPI_Type_commit(&empty);
			for (p = 0; p < size; p++) {
				sc[p] = rc[p] = rank == 0 && p == 1 ? 3000000000LL : 1;
				sd[p] = rd[p] = 0;
			}
			MPI_Alltoallv_c(s, sc, sd, empty, a, rc, rd, empty, MPI_COMM_WORLD);
			cases++;
			MPI_Type_free(&empty);
		}
		free(sc), free(rc), free(sd), free(rd), free(t), free(s), free(a), free(b);
	}
	MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (!rank)
		printf("LARGE cases=%d failures=%d\n", cases, failures);
	/* The verdict out now, not in exit's flush after MPI_Finalize: what
	 * becomes of a rank after it is the launcher's business (a CI run's
	 * MPICH job ended with status 0 and no CHECK line in its output). */
	fflush(stdout);
	MPI_Finalize();
	return failures ? 1 : 0;
}
