/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ibnet_a2a_room.h - the room a node's shared segment may take (ibnet_a2a_room.c). */
#ifndef IBNET_A2A_ROOM_H
#define IBNET_A2A_ROOM_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The node leader's check before it makes a segment of bytes: true when
 * they fit in half of what /dev/shm has free and in half of what the job's
 * memory limit leaves (the other half to the MPI's own shared memory, the
 * application's growth, other communicators and the node's other jobs).
 * Says why not, on standard error.
 */
bool segment_room_allows(size_t bytes);

#endif
