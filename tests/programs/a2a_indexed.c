/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * a2a_indexed.c - MPI_Alltoall with an indexed type of many blocks (BLOCKS
 * ints, one a block, side by side: dense, as a contiguous type would be, one
 * element per pair), against PMPI_Alltoall on the same input, byte for
 * byte. An indexed type is packed, never sent as plain memory; what this
 * shows (with the test build's report) is that its type map is not read
 * back to find that out, a cost of O(blocks) per peer and call. (A dense
 * type is the one that reaches the map: one with gaps is packed on its
 * extent alone.)
 *
 *   a2a_indexed BLOCKS CALLS
 *
 * Prints "INDEXED blocks=B calls=C bad=N" on rank 0; exits 1 if any byte
 * differs.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	MPI_Datatype side_by_side;
	int rank, size, blocks, calls, c, i, bad = 0, *lens, *displs;
	int *send, *mine, *theirs;
	size_t span;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc != 3) {
		if (rank == 0)
			fprintf(stderr, "usage: a2a_indexed BLOCKS CALLS\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	blocks = atoi(argv[1]);
	calls = atoi(argv[2]);
	lens = malloc(sizeof(int) * (size_t)blocks);
	displs = malloc(sizeof(int) * (size_t)blocks);
	span = (size_t)blocks;		/* ints per element */
	send = malloc(sizeof(int) * span * (size_t)size);
	mine = malloc(sizeof(int) * span * (size_t)size);
	theirs = malloc(sizeof(int) * span * (size_t)size);
	if (!lens || !displs || !send || !mine || !theirs)
		MPI_Abort(MPI_COMM_WORLD, 3);
	for (i = 0; i < blocks; i++) {
		lens[i] = 1;
		displs[i] = i;
	}
	MPI_Type_indexed(blocks, lens, displs, MPI_INT, &side_by_side);
	MPI_Type_commit(&side_by_side);
	for (c = 0; c < calls; c++) {
		for (i = 0; i < (int)(span * (size_t)size); i++)
			send[i] = c * 1000003 + rank * 7919 + i;
		memset(mine, 0x5a, sizeof(int) * span * (size_t)size);
		memset(theirs, 0x5a, sizeof(int) * span * (size_t)size);
		MPI_Alltoall(send, 1, side_by_side, mine, 1, side_by_side, MPI_COMM_WORLD);
		PMPI_Alltoall(send, 1, side_by_side, theirs, 1, side_by_side, MPI_COMM_WORLD);
		if (memcmp(mine, theirs, sizeof(int) * span * (size_t)size) != 0)
			bad++;
	}
	MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("INDEXED blocks=%d calls=%d bad=%d\n", blocks, calls, bad);
	MPI_Type_free(&side_by_side);
	free(lens), free(displs), free(send), free(mine), free(theirs);
	/* The verdict out now, not in exit's flush after MPI_Finalize: what
	 * becomes of a rank after it is the launcher's business (a CI run's
	 * MPICH job ended with status 0 and no CHECK line in its output). */
	fflush(stdout);
	MPI_Finalize();
	return bad ? 1 : 0;
}
