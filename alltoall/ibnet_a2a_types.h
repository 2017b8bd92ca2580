/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_types.h - when a datatype's bytes may travel as plain memory.
 *
 * Built per MPI ABI with the paced scheme (needs that MPI's mpi.h).
 */
#ifndef IBNET_A2A_TYPES_H
#define IBNET_A2A_TYPES_H

#include <stdbool.h>

#include <mpi.h>

/*
 * True only when count elements of type at buf are, provably, the bytes
 * buf[0 .. count * size) in the order MPI packs them: a predefined type
 * without holes, or a derived type whose type map (read back with
 * MPI_Type_get_envelope/contents) is dense and in memory order, with lower
 * bound 0 and extent = size. Anything else, and anything this cannot read,
 * is false: the caller packs it, which is right for every type.
 */
bool ibnet_a2a_type_is_plain(MPI_Datatype type);

#ifdef IBNET_A2A_TESTING
/* How many type maps this process read back (the test build's report). */
unsigned long ibnet_a2a_types_contents_read(void);
#endif

#endif
