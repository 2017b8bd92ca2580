/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_nodes.h - the paced exchange node to node (ibnet_a2a_nodes.c).
 */
#ifndef IBNET_A2A_NODES_H
#define IBNET_A2A_NODES_H

#include <stdbool.h>

#include "ibnet_a2a_comm.h"

/* Whether a call node to node can be had (nodes_ready): every rank alike. */
enum nodes_ready {
	NODES_READY,	/* the node's segments hold the call */
	NODES_SHORT,	/* a node's /dev/shm could not: this call goes pair by pair */
	NODES_FAILED,	/* a node is out of memory: the communicator's calls are handed over */
};
/* The node's segments made, grown or shrunk for bound bytes (collective). */
int nodes_ready(struct comm_info *ci, unsigned long bound, enum nodes_ready *ready);
int nodes_exchange(struct comm_info *ci, const char *sbuf, const MPI_Aint *soff,
		   const MPI_Aint *slen, char *rbuf, const MPI_Aint *roff, const MPI_Aint *rlen,
		   MPI_Aint uniform);
void nodes_free(struct node_stage *st);

#endif
