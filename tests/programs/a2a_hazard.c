/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * a2a_hazard.c - the all-to-all at its edges: a block of 2 GiB or more, and
 * a call of the scheme that fails.
 *
 *   a2a_hazard big
 *	MPI_Alltoallv where world rank 0 sends world rank 1 one block of
 *	BIG_UNITS MiB (over INT_MAX bytes, in a 1 MiB datatype: counts are
 *	int) and every other pair 1 MiB. Rank 1 checks every byte it got
 *	against what each sender wrote; rank 0 prints
 *	"BIG ranks=N block=BYTES bad=B". About 2 GiB of send buffer on rank 0
 *	and as much receive buffer on rank 1: 4.3 GB in all, nothing compared
 *	against a second receive buffer (that would be 2 GiB more).
 *
 *   a2a_hazard fail return|fatal alltoall|alltoallv [LOG]
 *	One call with 64 KiB per pair on a duplicate of the world. "return":
 *	the duplicate gets an error handler that counts its calls and returns
 *	(so MPI_ERRORS_RETURN semantics plus a witness). "fatal": the
 *	duplicate keeps MPI_ERRORS_ARE_FATAL. Each rank prints
 *	"HAZARD rank R: CALL returned CLASS; error handler called H time(s)[
 *	with that code]" after the call returns, also to the file LOG.R if
 *	LOG is given (a launcher may drop a rank's last output when the job
 *	is aborted; a file keeps it), and on an error calls MPI_Abort, as an
 *	application that checks errors would: its peers may still wait for it.
 *	With SLURM_IBNET_ALLTOALL_TEST_FAIL=N (test builds of the library) the
 *	Nth point-to-point call of the scheme fails.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MIB = 1 << 20, BIG_UNITS = 2049 };

static int handler_calls, handler_code;

static void count_error(MPI_Comm *comm, int *code, ...)
{
	(void)comm;
	handler_calls++;
	handler_code = *code;
}

/* The byte the sender src writes at position i of its block for dst; each
 * MiB differs, so a block landing a MiB off is seen. */
static unsigned char pattern(int src, int dst, size_t i)
{
	return (unsigned char)(i * 7 + (i >> 20) * 13 + (size_t)src * 31 + (size_t)dst * 17);
}

static int big(int rank, int size)
{
	MPI_Datatype mib;
	int *sc = calloc((size_t)size, sizeof(int)), *sd = calloc((size_t)size, sizeof(int));
	int *rc = calloc((size_t)size, sizeof(int)), *rd = calloc((size_t)size, sizeof(int));
	int i, so = 0, ro = 0, bad = 0;
	unsigned char *sbuf, *rbuf;

	MPI_Type_contiguous(MIB, MPI_BYTE, &mib);
	MPI_Type_commit(&mib);
	for (i = 0; i < size; i++) {
		sc[i] = rank == 0 && i == 1 ? BIG_UNITS : 1;
		rc[i] = i == 0 && rank == 1 ? BIG_UNITS : 1;
		sd[i] = so, so += sc[i];
		rd[i] = ro, ro += rc[i];
	}
	sbuf = malloc((size_t)so * MIB);
	rbuf = malloc((size_t)ro * MIB);
	if (!sc || !sd || !rc || !rd || !sbuf || !rbuf) {
		fprintf(stderr, "a2a_hazard: rank %d: out of memory\n", rank);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	for (i = 0; i < size; i++) {
		unsigned char *b = sbuf + (size_t)sd[i] * MIB;
		size_t k, n = (size_t)sc[i] * MIB;

		for (k = 0; k < n; k++)
			b[k] = pattern(rank, i, k);
	}
	memset(rbuf, 0xAB, (size_t)ro * MIB);
	if (MPI_Alltoallv(sbuf, sc, sd, mib, rbuf, rc, rd, mib, MPI_COMM_WORLD) != MPI_SUCCESS)
		bad = 1;
	for (i = 0; i < size && !bad; i++) {
		unsigned char *b = rbuf + (size_t)rd[i] * MIB;
		size_t k, n = (size_t)rc[i] * MIB;

		for (k = 0; k < n; k++)
			if (b[k] != pattern(i, rank, k)) {
				fprintf(stderr, "a2a_hazard: rank %d: byte %zu from rank %d is wrong\n",
					rank, k, i);
				bad = 1;
				break;
			}
	}
	MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("BIG ranks=%d block=%zu bad=%d\n", size, (size_t)BIG_UNITS * MIB, bad);
	MPI_Type_free(&mib);
	free(sbuf), free(rbuf), free(sc), free(sd), free(rc), free(rd);
	return bad;
}

static int fail(int rank, int size, int returns, int v, const char *log)
{
	enum { PAIR = 64 * 1024 };
	MPI_Comm comm;
	MPI_Errhandler eh;
	char *sbuf = calloc((size_t)size, PAIR), *rbuf = calloc((size_t)size, PAIR);
	int *counts = calloc((size_t)size, sizeof(int)), *displs = calloc((size_t)size, sizeof(int));
	int i, rc, class = MPI_SUCCESS;
	char name[MPI_MAX_ERROR_STRING] = "MPI_SUCCESS", line[2 * MPI_MAX_ERROR_STRING];

	if (!sbuf || !rbuf || !counts || !displs)
		MPI_Abort(MPI_COMM_WORLD, 2);
	for (i = 0; i < size; i++)
		counts[i] = PAIR, displs[i] = i * PAIR;
	MPI_Comm_dup(MPI_COMM_WORLD, &comm);
	if (returns) {
		MPI_Comm_create_errhandler(count_error, &eh);
		MPI_Comm_set_errhandler(comm, eh);
	}
	if (v)
		rc = MPI_Alltoallv(sbuf, counts, displs, MPI_BYTE, rbuf, counts, displs, MPI_BYTE, comm);
	else
		rc = MPI_Alltoall(sbuf, PAIR, MPI_BYTE, rbuf, PAIR, MPI_BYTE, comm);
	if (rc != MPI_SUCCESS) {
		MPI_Error_class(rc, &class);
		if (class == MPI_ERR_OTHER)
			strcpy(name, "MPI_ERR_OTHER");
		else
			snprintf(name, sizeof(name), "error class %d", class);
	}
	snprintf(line, sizeof(line), "HAZARD rank %d: %s returned %s; error handler called %d time(s)%s\n",
		 rank, v ? "MPI_Alltoallv" : "MPI_Alltoall", name, handler_calls,
		 handler_calls && handler_code == rc ? " with that code" : "");
	fputs(line, stdout);
	fflush(stdout);
	if (log) {
		char path[4096];
		FILE *f;

		snprintf(path, sizeof(path), "%s.%d", log, rank);
		f = fopen(path, "w");
		if (!f || fputs(line, f) == EOF || fclose(f) != 0)
			fprintf(stderr, "a2a_hazard: cannot write %s\n", path);
	}
	if (rc != MPI_SUCCESS)
		MPI_Abort(MPI_COMM_WORLD, 3);
	MPI_Comm_free(&comm);
	free(sbuf), free(rbuf), free(counts), free(displs);
	return 0;
}

int main(int argc, char **argv)
{
	int rank, size, status = 2;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc == 2 && strcmp(argv[1], "big") == 0 && size >= 2)
		status = big(rank, size);
	else if ((argc == 4 || argc == 5) && strcmp(argv[1], "fail") == 0)
		status = fail(rank, size, strcmp(argv[2], "return") == 0,
			      strcmp(argv[3], "alltoallv") == 0, argc == 5 ? argv[4] : NULL);
	else if (rank == 0)
		fprintf(stderr, "usage: a2a_hazard big | fail return|fatal alltoall|alltoallv [LOG]\n");
	MPI_Finalize();
	return status;
}
