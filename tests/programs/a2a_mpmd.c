/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * a2a_mpmd.c - ranks that may see the all-to-all differently, and a program
 * that gets its sizes wrong.
 *
 *   a2a_mpmd check LEVEL [ROUNDS [BYTES]]
 *	MPI_Init_thread at LEVEL (single, funneled, serialized, multiple), so
 *	an MPMD launch can give each app context its own; then ROUNDS (3) of
 *	MPI_Alltoall and MPI_Alltoallv of BYTES (16384) per pair, each
 *	compared byte for byte with PMPI_Alltoall/v. Every rank prints
 *	"MPMD rank R: LEVEL, ok|bad"; rank 0 "MPMD ranks=N failures=F" (the
 *	calls that differed on some rank). Exits 1 on a failure. Run with
 *	different environments per app context too (the settings, the
 *	preload): whatever each rank decides, the job must finish right.
 *
 *   a2a_mpmd truncate mpi|pmpi|mpiv|pmpiv LOG
 *	An erroneous program: every rank sends 2048 bytes to each and receives
 *	with a count for 1024, on MPI_COMM_WORLD with MPI_ERRORS_RETURN, by
 *	MPI_Alltoall (mpi) or PMPI_Alltoall (pmpi). Each rank writes
 *	"TRUNCATE rank R: CALL returned CLASS" to LOG.R (a launcher may drop
 *	an aborted job's last lines) and stdout, then aborts the job (exit 3)
 *	if its call failed, as a program that checks would; else finalizes.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int level_of(const char *word)
{
	static const struct {
		const char *word;
		int level;
	} levels[] = {
		{ "single", MPI_THREAD_SINGLE }, { "funneled", MPI_THREAD_FUNNELED },
		{ "serialized", MPI_THREAD_SERIALIZED }, { "multiple", MPI_THREAD_MULTIPLE },
	};
	size_t i;

	for (i = 0; i < sizeof(levels) / sizeof(levels[0]); i++)
		if (strcmp(word, levels[i].word) == 0)
			return levels[i].level;
	return -1;
}

static int check(int rank, int size, int rounds, int bytes, const char *level)
{
	size_t total = (size_t)size * (size_t)bytes;
	unsigned char *sbuf = malloc(total), *r1 = malloc(total), *r2 = malloc(total);
	int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);
	int round, i, bad, failures = 0, mine = 0;
	size_t k;

	if (!sbuf || !r1 || !r2 || !counts || !displs)
		MPI_Abort(MPI_COMM_WORLD, 2);
	for (i = 0; i < size; i++) {
		counts[i] = bytes - (rank + i) % 3 * (bytes / 4);	/* r->i as i's receive says */
		displs[i] = i * bytes;
	}
	for (round = 0; round < rounds; round++) {
		for (k = 0; k < total; k++)
			sbuf[k] = (unsigned char)(k * 7 + (k >> 9) + (size_t)rank * 31 + (size_t)round * 5);
		memset(r1, 0xAB, total);
		memset(r2, 0xAB, total);
		MPI_Alltoall(sbuf, bytes, MPI_BYTE, r1, bytes, MPI_BYTE, MPI_COMM_WORLD);
		PMPI_Alltoall(sbuf, bytes, MPI_BYTE, r2, bytes, MPI_BYTE, MPI_COMM_WORLD);
		bad = memcmp(r1, r2, total) != 0;
		mine |= bad;
		MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
		failures += bad;
		memset(r1, 0xAB, total);
		memset(r2, 0xAB, total);
		MPI_Alltoallv(sbuf, counts, displs, MPI_BYTE, r1, counts, displs, MPI_BYTE,
			      MPI_COMM_WORLD);
		PMPI_Alltoallv(sbuf, counts, displs, MPI_BYTE, r2, counts, displs, MPI_BYTE,
			       MPI_COMM_WORLD);
		bad = memcmp(r1, r2, total) != 0;
		mine |= bad;
		MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
		failures += bad;
	}
	printf("MPMD rank %d: %s, %s\n", rank, level, mine ? "bad" : "ok");
	fflush(stdout);
	free(sbuf);
	free(r1);
	free(r2);
	free(counts);
	free(displs);
	return failures;
}

/* call: mpi, pmpi (MPI_Alltoall), mpiv, pmpiv (MPI_Alltoallv, every block alike). */
static int truncate_call(int rank, int size, const char *call, const char *log)
{
	enum { SEND = 2048, RECV = 1024 };
	unsigned char *sbuf = calloc((size_t)size, SEND), *rbuf = calloc((size_t)size, SEND);
	char line[MPI_MAX_ERROR_STRING + 100], name[MPI_MAX_ERROR_STRING] = "MPI_SUCCESS", path[4096];
	int *sc = calloc((size_t)size, sizeof(int)), *rc_ = calloc((size_t)size, sizeof(int));
	int *displs = calloc((size_t)size, sizeof(int));
	int pmpi = call[0] == 'p', v = call[strlen(call) - 1] == 'v', rc, cls, i;
	FILE *f;

	if (!sbuf || !rbuf || !sc || !rc_ || !displs)
		MPI_Abort(MPI_COMM_WORLD, 2);
	for (i = 0; i < size; i++)
		sc[i] = SEND, rc_[i] = RECV, displs[i] = i * SEND;
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	if (v && pmpi)
		rc = PMPI_Alltoallv(sbuf, sc, displs, MPI_BYTE, rbuf, rc_, displs, MPI_BYTE,
				    MPI_COMM_WORLD);
	else if (v)
		rc = MPI_Alltoallv(sbuf, sc, displs, MPI_BYTE, rbuf, rc_, displs, MPI_BYTE,
				   MPI_COMM_WORLD);
	else if (pmpi)
		rc = PMPI_Alltoall(sbuf, SEND, MPI_BYTE, rbuf, RECV, MPI_BYTE, MPI_COMM_WORLD);
	else
		rc = MPI_Alltoall(sbuf, SEND, MPI_BYTE, rbuf, RECV, MPI_BYTE, MPI_COMM_WORLD);
	free(sc);
	free(rc_);
	free(displs);
	if (rc != MPI_SUCCESS) {
		MPI_Error_class(rc, &cls);
		snprintf(name, sizeof(name), "error class %d", cls);
		if (cls == MPI_ERR_TRUNCATE)
			snprintf(name, sizeof(name), "MPI_ERR_TRUNCATE");
		else if (cls == MPI_ERR_OTHER)
			snprintf(name, sizeof(name), "MPI_ERR_OTHER");
	}
	snprintf(line, sizeof(line), "TRUNCATE rank %d: %s%s returned %s\n", rank,
		 pmpi ? "PMPI_Alltoall" : "MPI_Alltoall", v ? "v" : "", name);
	fputs(line, stdout);
	fflush(stdout);
	snprintf(path, sizeof(path), "%s.%d", log, rank);
	if ((f = fopen(path, "w"))) {
		fputs(line, f);
		fclose(f);
	}
	free(sbuf);
	free(rbuf);
	if (rc != MPI_SUCCESS)
		MPI_Abort(MPI_COMM_WORLD, 3);
	return 0;
}

int main(int argc, char **argv)
{
	int rank, size, provided, level = MPI_THREAD_SINGLE, failures = 0;

	if (argc > 2 && strcmp(argv[1], "check") == 0)
		level = level_of(argv[2]);
	if (level < 0 || argc < 3 || (strcmp(argv[1], "check") && strcmp(argv[1], "truncate")) ||
	    (strcmp(argv[1], "truncate") == 0 && argc != 4)) {
		fprintf(stderr, "usage: a2a_mpmd check single|funneled|serialized|multiple "
			"[ROUNDS [BYTES]]\n       a2a_mpmd truncate mpi|pmpi|mpiv|pmpiv LOG\n");
		return 2;
	}
	MPI_Init_thread(&argc, &argv, level, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (strcmp(argv[1], "truncate") == 0) {
		truncate_call(rank, size, argv[2], argv[3]);
	} else {
		int bytes = argc > 4 ? atoi(argv[4]) : 16384;

		if (provided != level) {
			fprintf(stderr, "a2a_mpmd: rank %d asked for thread level %s, got %d\n",
				rank, argv[2], provided);
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
		failures = check(rank, size, argc > 3 ? atoi(argv[3]) : 3, bytes < 16 ? 16 : bytes,
				 argv[2]);
		if (rank == 0)
			printf("MPMD ranks=%d failures=%d\n", size, failures);
	}
	/* The verdict out now, not in exit's flush after MPI_Finalize: what
	 * becomes of a rank after it is the launcher's business (a CI run's
	 * MPICH job ended with status 0 and no CHECK line in its output). */
	fflush(stdout);
	MPI_Finalize();
	return failures ? 1 : 0;
}
