/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_pack.h - a call's two sides as the user gave them, and the
 * paced run of a call over them (ibnet_a2a_pack.c).
 */
#ifndef IBNET_A2A_PACK_H
#define IBNET_A2A_PACK_H

#include <stdbool.h>

#include "ibnet_a2a_comm.h"

/*
 * One side of a call, as the user gave it:
 *   MPI_Alltoall   count, type
 *   MPI_Alltoallv  counts, displs (in extents of type), type
 *   MPI_Alltoallw  counts, displs (in bytes), types
 * buf MPI_IN_PLACE on the send side: the receive side's blocks are sent.
 */
struct a2a_side {
	const void *buf;
	const int *counts, *displs;	/* NULL: MPI_Alltoall */
	int count;
	MPI_Datatype type;
	const MPI_Datatype *types;	/* MPI_Alltoallw; NULL otherwise */
};

/* by_node: the node-to-node exchange, else pair by pair. */
int run_paced(struct comm_info *ci, bool by_node, const struct a2a_side *send,
	      const struct a2a_side *recv);

#endif
