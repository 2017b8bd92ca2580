/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_netstat.h - the node's loss feed (ibnet_a2a_netstat.c; the model
 * at scale links its own, devel/smpi-model).
 */
#ifndef IBNET_A2A_NETSTAT_H
#define IBNET_A2A_NETSTAT_H

/*
 * The TCP segments this node has retransmitted (its network namespace's
 * RetransSegs), 0 if unreadable.
 */
unsigned long node_retransmits(void);

#endif
