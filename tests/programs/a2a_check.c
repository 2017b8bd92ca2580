/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * a2a_check.c - is the all-to-all the program gets byte-identical to the MPI
 * library's own?
 *
 *   a2a_check SEED CASES [MAX_PAIR_BYTES]
 *
 * Every rank draws the same random cases from SEED. Each case picks a
 * communicator (the world, an MPI_Comm_split of it, or an odd-sized part),
 * a datatype (basic, contiguous derived, vector, resized), a count (0 bytes
 * upward, up to MAX_PAIR_BYTES per pair), MPI_Alltoall or MPI_Alltoallv
 * (random counts and displacements with gaps), and sometimes MPI_IN_PLACE.
 * It runs MPI_Alltoall/v (what a preload may replace) and PMPI_Alltoall/v
 * (the library's own) on the same input and compares the whole receive
 * buffers, gaps included, and checks the data against what each sender
 * wrote. Prints "CHECK cases=N failures=F" on rank 0; exits 1 on a failure.
 * A2A_CHECK_THREAD_MULTIPLE set: MPI_Init_thread(MPI_THREAD_MULTIPLE).
 * Built with -DA2A_CHECK_REFERENCE_FROM_COPY (the model at scale,
 * devel/smpi-model): an in-place case's reference is the library's
 * routine on a copy of the buffer, not in place, where the library's own
 * in-place MPI_Alltoallv is wrong (SimGrid 3.32's SMPI: seed 9, case 8 at
 * 16 ranks differed from its own not-in-place result, which ours matched).
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state;

static uint32_t rnd(uint32_t n)
{
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return n ? (uint32_t)(rng_state >> 33) % n : 0;
}

/* The byte the sender src writes at position i of its block for dst. */
static unsigned char pattern(int c, int src, int dst, size_t i)
{
	return (unsigned char)(c * 31 + src * 7 + dst * 13 + (int)i * 3 + (int)(i >> 8));
}

/* Counts for alltoallv, the same on every rank: f(case, src, dst). */
static int vcount(int c, int src, int dst, int maxc)
{
	uint64_t h = (uint64_t)(c + 1) * 0x9E3779B97F4A7C15ull ^ (uint64_t)(src + 1) * 0xC2B2AE3D27D4EB4Full ^
		     (uint64_t)(dst + 1) * 0x165667B19E3779F9ull;

	h ^= h >> 29;
	return (int)(h % (uint64_t)(maxc + 1));
}

int main(int argc, char **argv)
{
	int wrank, wsize, cases, c, failures = 0;
	long max_pair;

	if (getenv("A2A_CHECK_THREAD_MULTIPLE")) {
		int provided;

		MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	} else {
		MPI_Init(&argc, &argv);
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
	MPI_Comm_size(MPI_COMM_WORLD, &wsize);
	if (argc < 3) {
		if (wrank == 0)
			fprintf(stderr, "usage: a2a_check SEED CASES [MAX_PAIR_BYTES]\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	rng_state = strtoull(argv[1], NULL, 10);
	cases = atoi(argv[2]);
	max_pair = argc > 3 ? atol(argv[3]) : 200000;

	for (c = 0; c < cases; c++) {
		MPI_Comm comm = MPI_COMM_WORLD;
		MPI_Datatype type;
		int how = (int)rnd(4), kind = (int)rnd(5), v = (int)rnd(2), in_place = rnd(6) == 0;
		int rank, size, tsize, count, i, bad = 0, local_fail = 0;
		MPI_Aint lb, extent;
		int *scounts, *sdispls, *rcounts, *rdispls, maxc;
		size_t sbytes, rbytes;
		unsigned char *sbuf, *r1, *r2;

		/* The communicator. */
		if (how == 1) {
			MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wsize - wrank, &comm);
		} else if (how == 2) {
			int drop = (int)rnd((uint32_t)wsize);	/* an odd part when wsize is even */

			MPI_Comm_split(MPI_COMM_WORLD, wrank == drop ? MPI_UNDEFINED : 0, wrank, &comm);
		}
		/* The datatype. */
		switch (kind) {
		case 0: type = MPI_BYTE; break;
		case 1: type = MPI_DOUBLE; break;
		case 2: MPI_Type_contiguous(3, MPI_INT, &type); MPI_Type_commit(&type); break;
		case 3: MPI_Type_vector(2, 1, 3, MPI_INT, &type); MPI_Type_commit(&type); break;
		default: {
			MPI_Datatype t;

			MPI_Type_contiguous(2, MPI_SHORT, &t);
			MPI_Type_create_resized(t, 0, 8, &type);	/* 4 bytes of data, extent 8 */
			MPI_Type_free(&t);
			MPI_Type_commit(&type);
		}
		}
		MPI_Type_size(type, &tsize);
		MPI_Type_get_extent(type, &lb, &extent);
		/* Sizes from 0 bytes upward, most of them small, some large. */
		switch (rnd(4)) {
		case 0: count = (int)rnd(4); break;
		case 1: count = (int)rnd((uint32_t)(4096 / tsize) + 1); break;
		default: count = (int)rnd((uint32_t)(max_pair / tsize) + 1); break;
		}
		if (comm == MPI_COMM_NULL)
			goto next;
		MPI_Comm_rank(comm, &rank);
		MPI_Comm_size(comm, &size);
		scounts = calloc((size_t)size, sizeof(int));
		sdispls = calloc((size_t)size, sizeof(int));
		rcounts = calloc((size_t)size, sizeof(int));
		rdispls = calloc((size_t)size, sizeof(int));
		maxc = count;
		{
			int so = 0, ro = 0;

			for (i = 0; i < size; i++) {
				scounts[i] = v ? vcount(c, rank, i, maxc) : count;
				rcounts[i] = v ? vcount(c, i, rank, maxc) : count;
				/* In place, a pair's two counts must match: one count per pair. */
				if (in_place && v)
					scounts[i] = rcounts[i] =
						vcount(c, rank < i ? rank : i, rank < i ? i : rank, maxc);
			}
			/* alltoallv: blocks in reverse order on the send side, gaps on both. */
			for (i = size - 1; i >= 0; i--) {
				sdispls[i] = v ? so : i * count;
				so += scounts[i] + (v ? 1 : 0);
			}
			for (i = 0; i < size; i++) {
				rdispls[i] = v ? ro + 1 : i * count;
				ro += rcounts[i] + (v ? 2 : 0);
			}
			if (in_place)	/* the send side is the receive buffer */
				for (i = 0; i < size; i++)
					sdispls[i] = rdispls[i];
			sbytes = (size_t)(so + ro + 1) * (size_t)extent + 64;
			rbytes = sbytes;
		}
		sbuf = malloc(sbytes);
		r1 = malloc(rbytes);
		r2 = malloc(rbytes);
		/* Each rank writes blocks of known bytes, through the datatype. */
		memset(sbuf, 0xEE, sbytes);
		{
			unsigned char *packed = malloc((size_t)max_pair * 4 + (size_t)count * tsize + 16);

			for (i = 0; i < size; i++) {
				int n = scounts[i], pos = 0;
				size_t b;

				for (b = 0; b < (size_t)n * (size_t)tsize; b++)
					packed[b] = pattern(c, rank, i, b);
				MPI_Unpack(packed, n * tsize, &pos, sbuf + (size_t)sdispls[i] * (size_t)extent,
					   n, type, comm);
			}
			free(packed);
		}
		memset(r1, 0xAB, rbytes);
		memset(r2, 0xAB, rbytes);
		if (in_place) {
			memcpy(r1, sbuf, rbytes);
			memcpy(r2, sbuf, rbytes);
			if (!v)
				MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r1, count, type, comm);
			else
				MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, r1, rcounts, rdispls, type, comm);
#ifdef A2A_CHECK_REFERENCE_FROM_COPY
			/* sbuf holds what r2 was given, in the receive layout. */
			if (!v)
				PMPI_Alltoall(sbuf, count, type, r2, count, type, comm);
			else
				PMPI_Alltoallv(sbuf, rcounts, rdispls, type, r2, rcounts, rdispls, type, comm);
#else
			if (!v)
				PMPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r2, count, type, comm);
			else
				PMPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, r2, rcounts, rdispls, type, comm);
#endif
		} else if (!v) {
			MPI_Alltoall(sbuf, count, type, r1, count, type, comm);
			PMPI_Alltoall(sbuf, count, type, r2, count, type, comm);
		} else {
			MPI_Alltoallv(sbuf, scounts, sdispls, type, r1, rcounts, rdispls, type, comm);
			PMPI_Alltoallv(sbuf, scounts, sdispls, type, r2, rcounts, rdispls, type, comm);
		}
		if (memcmp(r1, r2, rbytes) != 0)
			bad = 1;
		/* And what arrived is what each sender wrote (not in place: known pattern). */
		if (!in_place) {
			unsigned char *packed = malloc((size_t)max_pair * 4 + (size_t)count * tsize + 16);

			for (i = 0; i < size && !bad; i++) {
				int n = rcounts[i], pos = 0;
				size_t b;

				MPI_Pack(r1 + (size_t)rdispls[i] * (size_t)extent, n, type, packed,
					 n * tsize + 16, &pos, comm);
				for (b = 0; b < (size_t)n * (size_t)tsize; b++)
					if (packed[b] != pattern(c, i, rank, b)) {
						bad = 2;
						break;
					}
			}
			free(packed);
		}
		if (bad) {
			fprintf(stderr, "a2a_check: case %d failed on world rank %d (%s, %s, type %d, count %d, "
				"comm %d of size %d%s)\n", c, wrank, v ? "alltoallv" : "alltoall",
				bad == 1 ? "differs from PMPI" : "wrong data", kind, count, how, size,
				in_place ? ", in place" : "");
			local_fail = 1;
		}
		free(sbuf);
		free(r1);
		free(r2);
		free(scounts);
		free(sdispls);
		free(rcounts);
		free(rdispls);
		if (comm != MPI_COMM_WORLD)
			MPI_Comm_free(&comm);
		failures += local_fail;
next:
		if (kind >= 2)
			MPI_Type_free(&type);
	}
	MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (wrank == 0)
		printf("CHECK cases=%d ranks=%d failures=%d\n", cases, wsize, failures);
	/* The verdict out now, not in exit's flush after MPI_Finalize: what
	 * becomes of a rank after it is the launcher's business (a CI run's
	 * MPICH job ended with status 0 and no CHECK line in its output). */
	fflush(stdout);
	MPI_Finalize();
	return failures ? 1 : 0;
}
