/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_layout.h - a communicator's nodes (struct comm_info, made by
 * ibnet_a2a_layout.c on its first paced call).
 */
#ifndef IBNET_A2A_LAYOUT_H
#define IBNET_A2A_LAYOUT_H

#include "ibnet_a2a_comm.h"

void a2a_layout_init(void);
/* comm's layout, made on the first call (collective); *out NULL: out of memory. */
int comm_info(MPI_Comm comm, struct comm_info **out);
/* Slurm's compressed tasks per node ("4(x8),2") for node `nodeid`; 0: unknown. */
int tasks_on_node(const char *list, const char *nodeid);

#endif
