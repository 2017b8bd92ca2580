/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_nodes.h - the paced exchange node to node (ibnet_a2a_nodes.c).
 */
#ifndef IBNET_A2A_NODES_H
#define IBNET_A2A_NODES_H

#include <stdbool.h>

#include "ibnet_a2a_comm.h"

/* The node's segments made or grown for bound bytes (collective); *ready on every rank alike. */
int nodes_ready(struct comm_info *ci, unsigned long bound, bool *ready);
int nodes_exchange(struct comm_info *ci, const char *sbuf, const MPI_Aint *soff,
		   const MPI_Aint *slen, char *rbuf, const MPI_Aint *roff, const MPI_Aint *rlen,
		   MPI_Aint uniform);
void nodes_free(struct node_stage *st);

#endif
