/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * a2a_types.c - a datatype matrix: does the all-to-all the program gets give
 * the MPI library's own bytes for every legal pair of send and receive types?
 *
 *   a2a_types [N]
 *
 * Each case is a send type and count and a receive type and count with equal
 * type signatures (MPI's rule; the types themselves may differ). It runs
 * twice per call, MPI_Alltoall and MPI_Alltoallv (counts of 1 or 2 blocks per
 * pair, displacements in reverse order with a gap): once through MPI_... (what
 * a preload replaces) and once through PMPI_... (the MPI's own), from the same
 * send buffer into two receive buffers filled alike beforehand, and compares
 * the whole receive allocations byte for byte, the bytes no type touches
 * included. The send buffer is a known pattern everywhere, so whatever bytes
 * a type selects are data.
 *
 * N is the side of the transposed matrix (default 32: 8 KiB per pair); every
 * block is at least 1 KiB, IBNET_A2A_PAIR_MIN, so the paced scheme takes all
 * of them at SLURM_IBNET_ALLTOALL_THRESHOLD=0. Prints, per rank and failing
 * case, "TYPES FAIL CASE CALL rank R: D of B bytes differ (E of M ELEMs)", and
 * on rank 0 "TYPES cases=C failures=F" (C: case x call; F: those that failed
 * on some rank). Exits 1 on any failure.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PAD = 4096 };	/* untouched bytes around every buffer, compared too */

/* One side of a case: count elements of type per pair. */
struct side {
	MPI_Datatype type;
	int count;
};

struct types {
	struct side s, r;
	int elem;		/* the receive side's basic element, for the report */
	const char *elem_name;
};

/*
 * The textbook transpose of an N x N matrix of doubles (row-major): one
 * column, resized to one double, then N of those a double apart, resized to
 * the whole matrix so that block i of an all-to-all is matrix i. Lower
 * bound 0 and size = extent = true extent, yet in column order.
 */
static MPI_Datatype transpose_type(int n)
{
	MPI_Datatype col, col1, cols, t;

	MPI_Type_vector(n, 1, n, MPI_DOUBLE, &col);
	MPI_Type_create_resized(col, 0, sizeof(double), &col1);
	MPI_Type_create_hvector(n, 1, sizeof(double), col1, &cols);
	MPI_Type_create_resized(cols, 0, (MPI_Aint)n * n * (MPI_Aint)sizeof(double), &t);
	MPI_Type_free(&col);
	MPI_Type_free(&col1);
	MPI_Type_free(&cols);
	MPI_Type_commit(&t);
	return t;
}

/* { int at offset 4, int at offset 0 }: dense, lower bound 0, size = extent,
 * but its elements are not in memory order. */
static MPI_Datatype swapped_pair(void)
{
	int len[2] = { 1, 1 };
	MPI_Aint disp[2] = { 4, 0 };
	MPI_Datatype types[2] = { MPI_INT, MPI_INT }, t;

	MPI_Type_create_struct(2, len, disp, types, &t);
	MPI_Type_commit(&t);
	return t;
}

static MPI_Datatype committed(MPI_Datatype t)
{
	MPI_Type_commit(&t);
	return t;
}

static void predefined(int n, struct types *t)
{
	t->s = (struct side){ MPI_DOUBLE, n * n };
	t->r = t->s;
}

static void contiguous(int n, struct types *t)
{
	MPI_Datatype c;

	MPI_Type_contiguous(16, MPI_DOUBLE, &c);
	t->s = (struct side){ committed(c), n * n / 16 };
	t->r = t->s;
}

/* Every other double of 2N^2 (not dense), received as plain doubles. */
static void vector(int n, struct types *t)
{
	MPI_Datatype v;

	MPI_Type_vector(n * n, 1, 2, MPI_DOUBLE, &v);
	t->s = (struct side){ committed(v), 1 };
	t->r = (struct side){ MPI_DOUBLE, n * n };
}

static void transpose_send(int n, struct types *t)
{
	t->s = (struct side){ transpose_type(n), 1 };
	t->r = (struct side){ MPI_DOUBLE, n * n };
}

static void transpose_recv(int n, struct types *t)
{
	t->s = (struct side){ MPI_DOUBLE, n * n };
	t->r = (struct side){ transpose_type(n), 1 };
}

static void transpose_both(int n, struct types *t)
{
	t->s = (struct side){ transpose_type(n), 1 };
	t->r = (struct side){ transpose_type(n), 1 };
}

static void struct_send(int n, struct types *t)
{
	t->s = (struct side){ swapped_pair(), n * n / 2 };
	t->r = (struct side){ MPI_INT, n * n };
}

static void struct_recv(int n, struct types *t)
{
	t->s = (struct side){ MPI_INT, n * n };
	t->r = (struct side){ swapped_pair(), n * n / 2 };
}

/* Two ints in 12 bytes (4 bytes of gap each), both sides. */
static void resized_gaps(int n, struct types *t)
{
	MPI_Datatype c, r;

	MPI_Type_contiguous(2, MPI_INT, &c);
	MPI_Type_create_resized(c, 0, 12, &r);
	MPI_Type_free(&c);
	t->s = (struct side){ committed(r), n * n / 2 };
	t->r = t->s;
}

/* Two ints 16 bytes before the buffer's address, in a 24-byte extent that
 * starts there too (lower bound and true lower bound -16); against ints. */
static MPI_Datatype negative_lb_type(void)
{
	int len = 2;
	MPI_Aint disp = -16;
	MPI_Datatype h, r;

	MPI_Type_create_hindexed(1, &len, &disp, MPI_INT, &h);
	MPI_Type_create_resized(h, -16, 24, &r);
	MPI_Type_free(&h);
	return committed(r);
}

static void negative_lb(int n, struct types *t)
{
	t->s = (struct side){ negative_lb_type(), n * n / 2 };
	t->r = (struct side){ MPI_INT, n * n };
}

static void negative_lb_recv(int n, struct types *t)
{
	t->s = (struct side){ MPI_INT, n * n };
	t->r = (struct side){ negative_lb_type(), n * n / 2 };
}

/* An N x N block of a 2N x 2N C-order array, received into an N x N block
 * of a (N+16) x (N+8) Fortran-order one. */
static void subarray(int n, struct types *t)
{
	int ssizes[2] = { 2 * n, 2 * n }, rsizes[2] = { n + 16, n + 8 };
	int sub[2] = { n, n }, sstart[2] = { n / 2, n / 4 }, rstart[2] = { 4, 2 };
	MPI_Datatype s, r;

	MPI_Type_create_subarray(2, ssizes, sub, sstart, MPI_ORDER_C, MPI_DOUBLE, &s);
	MPI_Type_create_subarray(2, rsizes, sub, rstart, MPI_ORDER_FORTRAN, MPI_DOUBLE, &r);
	t->s = (struct side){ committed(s), 1 };
	t->r = (struct side){ committed(r), 1 };
}

static const struct {
	const char *name;
	void (*build)(int n, struct types *t);
	int elem;
	const char *elem_name;
} cases[] = {
	{ "predefined", predefined, 8, "double" },
	{ "contiguous", contiguous, 8, "double" },
	{ "vector-to-double", vector, 8, "double" },
	{ "transpose-send", transpose_send, 8, "double" },
	{ "transpose-recv", transpose_recv, 8, "double" },
	{ "transpose-both", transpose_both, 8, "double" },
	{ "struct-permuted-send", struct_send, 4, "int" },
	{ "struct-permuted-recv", struct_recv, 4, "int" },
	{ "resized-gaps", resized_gaps, 4, "int" },
	{ "negative-lb-send", negative_lb, 4, "int" },
	{ "negative-lb-recv", negative_lb_recv, 4, "int" },
	{ "subarray", subarray, 8, "double" },
};
#define CASES (int)(sizeof(cases) / sizeof(cases[0]))

static void free_type(MPI_Datatype *t)
{
	int ni, na, nd, combiner;

	MPI_Type_get_envelope(*t, &ni, &na, &nd, &combiner);
	if (combiner != MPI_COMBINER_NAMED)
		MPI_Type_free(t);
}

/* Pairs per call: blocks of k(src, dst) times the case's count in alltoallv. */
static int mult(int src, int dst)
{
	return 1 + (src + dst) % 2;
}

/* One side's counts and displacements (in extents), and its allocation:
 * [base, base + bytes) holds every byte any block touches, PAD either side;
 * buf is what the call gets. */
struct layout {
	int *counts, *displs;
	unsigned char *base, *buf;
	size_t bytes;
};

/*
 * Lay out one side: v (alltoallv) gives pair i mult() blocks, the send side
 * (recv false) in reverse rank order, each block after a gap of one extent;
 * otherwise the standard MPI_Alltoall layout, block i at i * count.
 */
static int make_layout(struct layout *l, const struct side *sd, int size, int rank, int v,
		       int recv)
{
	MPI_Aint lb, extent, tlb, textent, lo = 0, hi = 0, at = 0;
	int i;

	MPI_Type_get_extent(sd->type, &lb, &extent);
	MPI_Type_get_true_extent(sd->type, &tlb, &textent);
	l->counts = calloc((size_t)size, sizeof(int));
	l->displs = calloc((size_t)size, sizeof(int));
	if (!l->counts || !l->displs)
		return -1;
	for (i = 0; i < size; i++) {
		int j = recv ? i : size - 1 - i;
		int c = sd->count * (v ? (recv ? mult(j, rank) : mult(rank, j)) : 1);

		l->counts[j] = c;
		l->displs[j] = v ? (int)at + 1 : j * sd->count;
		at += v ? c + 1 : 0;
	}
	/* The bytes the blocks can touch, from each block's true extent. */
	for (i = 0; i < size; i++) {
		MPI_Aint first = (MPI_Aint)l->displs[i] * extent + tlb;
		MPI_Aint last = first + (l->counts[i] ? (MPI_Aint)(l->counts[i] - 1) * extent + textent : 0);

		if (first < lo)
			lo = first;
		if (last > hi)
			hi = last;
	}
	l->bytes = (size_t)(hi - lo) + 2 * PAD;
	l->base = malloc(l->bytes);
	if (!l->base)
		return -1;
	l->buf = l->base + PAD - lo;
	return 0;
}

static void free_layout(struct layout *l)
{
	free(l->counts);
	free(l->displs);
	free(l->base);
}

/* The byte at offset k of rank's send allocation: a hash, so moved bytes show. */
static unsigned char pattern(int rank, size_t k)
{
	uint32_t x = (uint32_t)k * 2654435761u + (uint32_t)rank * 40503u + 12345u;

	x ^= x >> 15;
	x *= 2246822519u;
	x ^= x >> 13;
	return (unsigned char)(x >> 24);
}

/* Run case c through MPI_... and PMPI_... (v: the v call); 1 if this rank's
 * buffers differ, -1 if it cannot run, 0 if alike. */
static int run_case(int c, int n, int v, int rank, int size)
{
	struct types t = { .elem = cases[c].elem, .elem_name = cases[c].elem_name };
	struct layout s = { 0 }, r = { 0 };
	unsigned char *ref = NULL;
	size_t k, bytes = 0, elems = 0;
	int ret = -1, arrived = 0;

	cases[c].build(n, &t);
	if (make_layout(&s, &t.s, size, rank, v, 0) < 0 || make_layout(&r, &t.r, size, rank, v, 1) < 0 ||
	    !(ref = malloc(r.bytes)))
		goto out;
	for (k = 0; k < s.bytes; k++)
		s.base[k] = pattern(rank, k);
	memset(r.base, 0xAB, r.bytes);
	memset(ref, 0xAB, r.bytes);
	if (v) {
		MPI_Alltoallv(s.buf, s.counts, s.displs, t.s.type, r.buf, r.counts, r.displs, t.r.type,
			      MPI_COMM_WORLD);
		PMPI_Alltoallv(s.buf, s.counts, s.displs, t.s.type, ref + (r.buf - r.base), r.counts,
			       r.displs, t.r.type, MPI_COMM_WORLD);
	} else {
		MPI_Alltoall(s.buf, t.s.count, t.s.type, r.buf, t.r.count, t.r.type, MPI_COMM_WORLD);
		PMPI_Alltoall(s.buf, t.s.count, t.s.type, ref + (r.buf - r.base), t.r.count, t.r.type,
			      MPI_COMM_WORLD);
	}
	for (k = 0; k < r.bytes; k++) {
		bytes += r.base[k] != ref[k];
		arrived |= ref[k] != 0xAB;
	}
	for (k = 0; k + (size_t)t.elem <= r.bytes; k += (size_t)t.elem)
		elems += memcmp(r.base + k, ref + k, (size_t)t.elem) != 0;
	ret = bytes != 0;
	if (bytes)
		printf("TYPES FAIL %s %s rank %d: %zu of %zu bytes differ (%zu of %zu %ss)\n",
		       cases[c].name, v ? "MPI_Alltoallv" : "MPI_Alltoall", rank, bytes, r.bytes,
		       elems, r.bytes / (size_t)t.elem, t.elem_name);
	if (!arrived) {	/* the MPI's own moved nothing: the case tests nothing */
		printf("TYPES FAIL %s %s rank %d: nothing arrived through PMPI\n", cases[c].name,
		       v ? "MPI_Alltoallv" : "MPI_Alltoall", rank);
		ret = 1;
	}
out:
	if (ret < 0)
		printf("TYPES FAIL %s rank %d: out of memory\n", cases[c].name, rank);
	fflush(stdout);
	free(ref);
	free_layout(&s);
	free_layout(&r);
	if (t.r.type != t.s.type)	/* one type for both sides is freed once */
		free_type(&t.r.type);
	free_type(&t.s.type);
	return ret;
}

int main(int argc, char **argv)
{
	int rank, size, n, c, v, failures = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	n = argc > 1 ? atoi(argv[1]) : 32;
	/* Every block 1 KiB or more (the smallest: N^2 ints), N even, N/4 >= 1. */
	if (n < 16 || n > 512 || n % 16) {
		if (rank == 0)
			fprintf(stderr, "usage: a2a_types [N]: N a multiple of 16, 16 to 512\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	for (c = 0; c < CASES; c++)
		for (v = 0; v < 2; v++) {
			int bad = run_case(c, n, v, rank, size) != 0;

			MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
			failures += bad;
		}
	if (rank == 0)
		printf("TYPES cases=%d ranks=%d failures=%d\n", 2 * CASES, size, failures);
	/* The verdict out now, not in exit's flush after MPI_Finalize: what
	 * becomes of a rank after it is the launcher's business (a CI run's
	 * MPICH job ended with status 0 and no CHECK line in its output). */
	fflush(stdout);
	MPI_Finalize();
	return failures ? 1 : 0;
}
