/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dl_module.c - an MPI program as a shared object linked to libmpi, for
 * dl_host to open RTLD_LOCAL (an extension module's situation).
 * dl_module_main: MPI_Init, one MPI_Alltoall and one MPI_Alltoallv of 8 KiB
 * per pair compared byte for byte with PMPI_Alltoall/v, MPI_Finalize. Each
 * rank prints "DLMODULE rank R: OK" or "DLMODULE rank R: FAIL (...)" and
 * returns 0 or 1.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PAIR = 8192 };

int dl_module_main(void);

int dl_module_main(void)
{
	int rank, size, i, bad = 0;
	int *counts, *displs;
	unsigned char *sbuf, *r1, *r2;

	MPI_Init(NULL, NULL);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	sbuf = malloc((size_t)size * PAIR);
	r1 = malloc((size_t)size * PAIR);
	r2 = malloc((size_t)size * PAIR);
	counts = malloc(sizeof(int) * (size_t)size);
	displs = malloc(sizeof(int) * (size_t)size);
	if (!sbuf || !r1 || !r2 || !counts || !displs)
		MPI_Abort(MPI_COMM_WORLD, 2);
	for (i = 0; i < size * PAIR; i++)
		sbuf[i] = (unsigned char)(i * 7 + rank * 31 + (i >> 8));
	for (i = 0; i < size; i++) {
		counts[i] = PAIR;
		displs[i] = (size - 1 - i) * PAIR;
	}
	memset(r1, 0xAB, (size_t)size * PAIR);
	memset(r2, 0xAB, (size_t)size * PAIR);
	MPI_Alltoall(sbuf, PAIR, MPI_BYTE, r1, PAIR, MPI_BYTE, MPI_COMM_WORLD);
	PMPI_Alltoall(sbuf, PAIR, MPI_BYTE, r2, PAIR, MPI_BYTE, MPI_COMM_WORLD);
	if (memcmp(r1, r2, (size_t)size * PAIR) != 0)
		bad |= 1;
	memset(r1, 0xAB, (size_t)size * PAIR);
	memset(r2, 0xAB, (size_t)size * PAIR);
	MPI_Alltoallv(sbuf, counts, displs, MPI_BYTE, r1, counts, displs, MPI_BYTE, MPI_COMM_WORLD);
	PMPI_Alltoallv(sbuf, counts, displs, MPI_BYTE, r2, counts, displs, MPI_BYTE, MPI_COMM_WORLD);
	if (memcmp(r1, r2, (size_t)size * PAIR) != 0)
		bad |= 2;
	if (bad)
		printf("DLMODULE rank %d: FAIL (%s%s differ from PMPI)\n", rank,
		       bad & 1 ? "MPI_Alltoall" : "", bad == 3 ? " and MPI_Alltoallv" :
		       bad & 2 ? "MPI_Alltoallv" : "");
	else
		printf("DLMODULE rank %d: OK\n", rank);
	fflush(stdout);
	free(sbuf);
	free(r1);
	free(r2);
	free(counts);
	free(displs);
	MPI_Finalize();
	return bad ? 1 : 0;
}
