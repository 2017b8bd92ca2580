/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_pack.c - a call's buffers as the exchange moves them: each
 * block in the user's own memory where its datatype is plain
 * (ibnet_a2a_types.c), else packed into scratch and unpacked with the
 * receiver's type. One description (struct a2a_side) serves MPI_Alltoall,
 * MPI_Alltoallv and MPI_Alltoallw, and MPI_IN_PLACE.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ibnet_a2a_exchange.h"
#include "ibnet_a2a_nodes.h"
#include "ibnet_a2a_pack.h"
#include "ibnet_a2a_state.h"
#include "ibnet_a2a_types.h"

/*
 * The byte layout of one side of the exchange: block i is len[i] bytes at
 * buf + off[i], where buf is the user's buffer and the block either the
 * user's own memory or a place in scratch (off[i] then the distance from
 * buf to it, as MPI_Aint displacements from MPI_BOTTOM are).
 */
struct side {
	char *buf;
	char *scratch;
	MPI_Aint *off, *len;
	bool *packed;		/* block i lives in scratch */
};

static void side_free(struct side *s)
{
	free(s->scratch);
	free(s->off);
	free(s->len);
	free(s->packed);
}

static MPI_Datatype type_of(const struct a2a_side *a, int i)
{
	return a->types ? a->types[i] : a->type;
}

static int count_of(const struct a2a_side *a, int i)
{
	return a->counts ? a->counts[i] : a->count;
}

/* Where rank i's block starts in the user's buffer, in bytes: Alltoallw's
 * displacements are bytes, the others' are extents of the one type
 * (MPI_Aint: an MPI_Alltoall's i * count * extent passes INT_MAX before any
 * one block does). */
static MPI_Aint block_start(const struct a2a_side *a, int i)
{
	MPI_Aint lb, extent;

	if (a->types)
		return (MPI_Aint)a->displs[i];
	PMPI_Type_get_extent(a->type, &lb, &extent);
	return (a->displs ? (MPI_Aint)a->displs[i] : (MPI_Aint)i * a->count) * extent;
}

/*
 * Lay one side out; force_pack: every block into scratch (the send side of
 * a call in place, whose receive overwrites the bytes it sends). -1: out
 * of memory.
 */
static int side_layout(struct side *s, int size, const struct a2a_side *a, bool force_pack)
{
	MPI_Aint total = 0;
	int tsize, i;

	s->buf = (char *)a->buf;
	s->scratch = NULL;
	s->off = malloc(sizeof(MPI_Aint) * (size_t)size);
	s->len = malloc(sizeof(MPI_Aint) * (size_t)size);
	s->packed = malloc(sizeof(bool) * (size_t)size);
	if (!s->off || !s->len || !s->packed)
		return -1;
	for (i = 0; i < size; i++) {
		MPI_Datatype t = type_of(a, i);

		PMPI_Type_size(t, &tsize);
		s->len[i] = (MPI_Aint)count_of(a, i) * tsize;
		/* A type is checked once per call, not per block, unless it varies. */
		if (i == 0 || a->types)
			s->packed[i] = force_pack || !ibnet_a2a_type_is_plain(t);
		else
			s->packed[i] = s->packed[0];
		if (s->packed[i]) {
			s->off[i] = total;	/* within scratch, for now */
			total += s->len[i];
		} else {
			s->off[i] = block_start(a, i);
		}
	}
	if (!total)
		return 0;
	s->scratch = malloc((size_t)total);
	if (!s->scratch)
		return -1;
	for (i = 0; i < size; i++)
		if (s->packed[i])
			s->off[i] += (MPI_Aint)((uintptr_t)s->scratch - (uintptr_t)s->buf);
	return 0;
}

/*
 * Between the user's buffer and scratch, each packed block: pack (to
 * scratch) or unpack. Packed bytes of a homogeneous job are the data's own
 * bytes (both MPIs). A block's bytes fit an int (block_limit).
 */
static int side_copy(struct side *s, bool pack, MPI_Comm comm, int size, const struct a2a_side *a)
{
	int i, pos, rc;

	for (i = 0; i < size; i++) {
		char *block = (char *)a->buf + block_start(a, i);
		char *packed = s->buf + s->off[i];

		if (!s->packed[i])
			continue;
		pos = 0;
		if (pack)
			rc = PMPI_Pack(block, count_of(a, i), type_of(a, i), packed, (int)s->len[i], &pos,
				       comm);
		else
			rc = PMPI_Unpack(packed, (int)s->len[i], &pos, block, count_of(a, i),
					 type_of(a, i), comm);
		if (rc != MPI_SUCCESS)
			return rc;
	}
	return MPI_SUCCESS;
}

/*
 * Every call: send and receive described alike. In place (send->buf ==
 * MPI_IN_PLACE), the send side is the receive side's description: node to
 * node, its blocks are copied into the node's segment before any is
 * received (ibnet_a2a_nodes.c, barrier B), so they travel from the user's
 * buffer itself, with no scratch; pair by pair, a block may be received
 * before it is sent, so the send side is packed into scratch first.
 */
int run_paced(struct comm_info *ci, bool by_node, const struct a2a_side *send,
	      const struct a2a_side *recv)
{
	struct side s = { 0 }, r = { 0 };
	bool in_place = send->buf == MPI_IN_PLACE;
	const struct a2a_side *from = in_place ? recv : send;
	int rc = MPI_SUCCESS;

	if (test_no_scratch(ci->rank) || side_layout(&s, ci->size, from, in_place && !by_node) < 0 ||
	    side_layout(&r, ci->size, recv, false) < 0)
		out_of_memory(ci, "its buffer layout (and scratch, for a non-contiguous type)");
	if (s.scratch)
		rc = side_copy(&s, true, ci->priv, ci->size, from);
	if (rc == MPI_SUCCESS) {
		/* MPI_Alltoall: one block size on every rank, for every pair. */
		MPI_Aint uniform = !from->counts && !recv->counts ? r.len[0] : -1;

		rc = by_node ? nodes_exchange(ci, s.buf, s.off, s.len, r.buf, r.off, r.len, uniform) :
			paced_exchange(ci, s.buf, s.off, s.len, r.buf, r.off, r.len,
				       (ci->node_start[ci->mynode + 1] - ci->node_start[ci->mynode]) *
				       ci->concurrent);
		/*
		 * A failed exchange left its requests to the MPI (ev_abandon): sends
		 * may still read the scratch send buffer, and a matched receive may
		 * still write the scratch receive buffer. They are leaked on purpose,
		 * once, on a path that ends the job in all but name.
		 */
		if (rc != MPI_SUCCESS)
			s.scratch = NULL, r.scratch = NULL;
	}
	if (rc == MPI_SUCCESS && r.scratch)
		rc = side_copy(&r, false, ci->priv, ci->size, recv);
	side_free(&s);
	side_free(&r);
	return rc;
}
