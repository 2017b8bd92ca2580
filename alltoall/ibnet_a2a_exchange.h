/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_exchange.h - the paced exchange pair by pair (ibnet_a2a_exchange.c).
 */
#ifndef IBNET_A2A_EXCHANGE_H
#define IBNET_A2A_EXCHANGE_H

#include "ibnet_a2a_comm.h"

/*
 * Move slen[r] bytes from sbuf+soff[r] to every rank r, and receive rlen[r]
 * from r at rbuf+roff[r], paced; sharers: the node's receivers that share
 * its window (all its ranks pair by pair, its lanes node to node).
 */
int paced_exchange(struct comm_info *ci, const char *sbuf, const MPI_Aint *soff,
		   const MPI_Aint *slen, char *rbuf, const MPI_Aint *roff, const MPI_Aint *rlen,
		   int sharers);

#endif
