/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_pack.c - a call's buffers as the exchange moves them: the user's
 * own memory where the datatype is plain (ibnet_a2a_types.c), else packed
 * into scratch and unpacked with the receiver's type.
 */
#include <stdlib.h>
#include <string.h>

#include "ibnet_a2a_paced.h"
#include "ibnet_a2a_types.h"

/*
 * The byte layout of one side of the exchange: where each rank's bytes
 * are, packed into a scratch buffer if the datatype is not plain bytes.
 */
struct side {
	char *buf;		/* the user's buffer, or scratch */
	char *scratch;
	MPI_Aint *off, *len;
};

static void side_free(struct side *s)
{
	free(s->scratch);
	free(s->off);
	free(s->len);
}

/* Where rank i's block starts in the user's buffer, in extents (MPI_Aint:
 * an MPI_Alltoall's i * count passes INT_MAX before any one block does). */
static MPI_Aint block_start(int i, const int *displs, int count)
{
	return displs ? (MPI_Aint)displs[i] : (MPI_Aint)i * count;
}

static int side_layout(struct side *s, int size, const int *counts, const int *displs,
		       int count, MPI_Datatype type, const void *user)
{
	MPI_Aint lb, extent, total = 0;
	int tsize, i;
	bool plain = ibnet_a2a_type_is_plain(type);

	PMPI_Type_size(type, &tsize);
	PMPI_Type_get_extent(type, &lb, &extent);
	s->off = malloc(sizeof(MPI_Aint) * (size_t)size);
	s->len = malloc(sizeof(MPI_Aint) * (size_t)size);
	s->scratch = NULL;
	if (!s->off || !s->len)
		return -1;
	for (i = 0; i < size; i++) {
		int c = counts ? counts[i] : count;

		s->len[i] = (MPI_Aint)c * tsize;
		if (plain) {
			s->off[i] = block_start(i, displs, count) * extent;
		} else {
			s->off[i] = total;
			total += s->len[i];
		}
	}
	s->buf = (char *)user;
	if (!plain) {
		s->scratch = malloc(total ? (size_t)total : 1);
		if (!s->scratch)
			return -1;
		s->buf = s->scratch;
	}
	return 0;
}

/*
 * Between the user's buffer and the scratch one, each rank's block: pack
 * (to scratch) or unpack. Packed bytes of a homogeneous job are the data's
 * own bytes (both MPIs). A block's bytes fit an int (block_limit).
 */
static int side_copy(struct side *s, bool pack, MPI_Comm comm, int size, const int *counts,
		     const int *displs, int count, MPI_Datatype type, const void *user)
{
	MPI_Aint lb, extent;
	int i, pos, rc;

	PMPI_Type_get_extent(type, &lb, &extent);
	for (i = 0; i < size; i++) {
		char *block = (char *)user + block_start(i, displs, count) * extent;
		int c = counts ? counts[i] : count;

		pos = 0;
		if (pack)
			rc = PMPI_Pack(block, c, type, s->scratch + s->off[i], (int)s->len[i], &pos,
				       comm);
		else
			rc = PMPI_Unpack(s->scratch + s->off[i], (int)s->len[i], &pos, block, c,
					 type, comm);
		if (rc != MPI_SUCCESS)
			return rc;
	}
	return MPI_SUCCESS;
}

/* Both calls: alltoall has counts == NULL (sendcount/recvcount for all);
 * by_node: the node-to-node exchange (ibnet_a2a_nodes.c), else pair by pair. */
int run_paced(struct comm_info *ci, bool by_node, const void *sendbuf, const int *scounts, const int *sdispls,
	      int scount, MPI_Datatype stype, void *recvbuf, const int *rcounts,
	      const int *rdispls, int rcount, MPI_Datatype rtype)
{
	struct side s = { 0 }, r = { 0 };
	int rc = MPI_SUCCESS;

	if (test_no_scratch(ci->rank) ||
	    side_layout(&s, ci->size, scounts, sdispls, scount, stype, sendbuf) < 0 ||
	    side_layout(&r, ci->size, rcounts, rdispls, rcount, rtype, recvbuf) < 0)
		out_of_memory(ci, "its buffer layout (and scratch, for a non-contiguous type)");
	if (s.scratch)
		rc = side_copy(&s, true, ci->priv, ci->size, scounts, sdispls, scount, stype,
			       sendbuf);
	if (rc == MPI_SUCCESS) {
		rc = by_node ? nodes_exchange(ci, s.buf, s.off, s.len, r.buf, r.off, r.len) :
			paced_exchange(ci, s.buf, s.off, s.len, r.buf, r.off, r.len,
				       ci->node_start[ci->mynode + 1] - ci->node_start[ci->mynode]);
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
		rc = side_copy(&r, false, ci->priv, ci->size, rcounts, rdispls, rcount, rtype,
			       recvbuf);
	side_free(&s);
	side_free(&r);
	return rc;
}
