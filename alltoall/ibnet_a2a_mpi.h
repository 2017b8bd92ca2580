/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_mpi.h - finding the MPI library's own routines from the job
 * preload, wherever the program loaded its MPI (ibnet_a2a_mpi.c).
 */
#ifndef IBNET_A2A_MPI_H
#define IBNET_A2A_MPI_H

#include <stdbool.h>

/*
 * Remember the object that called us first (its address, from
 * __builtin_return_address): a program that loaded its MPI privately
 * (RTLD_LOCAL, as Python, R and Julia load extension modules) still sees
 * its MPI from there.
 */
void ibnet_a2a_mpi_caller(void *caller);

/* The MPI's symbol of that name, never ours, or NULL. */
void *ibnet_a2a_mpi_find(const char *name);

/* The same, but a missing one ends the process with a sentence naming it. */
void *ibnet_a2a_mpi_own(const char *name);

/*
 * Make the MPI library's symbols global, as the paced build (linked against
 * no libmpi) needs them to load; true when they are. Promotes a privately
 * loaded libmpi (RTLD_NOLOAD | RTLD_GLOBAL), which mpi4py also does.
 */
bool ibnet_a2a_mpi_global(void);

#endif
