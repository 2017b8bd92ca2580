/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_host.h - what the dispatcher (libibnet-alltoall.so, one for
 * every MPI) lends the per-MPI build it loads (libibnet-a2a-ABI.so).
 *
 * Both sides include it; it names no MPI type, since the dispatcher cannot
 * include an mpi.h. A communicator crosses it as a register-sized word
 * (ibnet_a2a_handle_of in the build: the handle's bytes, zero-extended).
 */
#ifndef IBNET_A2A_HOST_H
#define IBNET_A2A_HOST_H

#include <stdint.h>

/*
 * The route every rank of a communicator agreed on, once per communicator
 * (ibnet_a2a_agree.c): the paced scheme may run, or why every rank hands
 * its calls on that communicator to the MPI library's own routine.
 */
enum ibnet_a2a_verdict {
	IBNET_A2A_AGREED,		/* every rank can pace, with the same settings */
	IBNET_A2A_DIFFER_BUILD,		/* a rank has no paced build for its MPI */
	IBNET_A2A_DIFFER_SETTINGS,	/* the ranks' SLURM_IBNET_ALLTOALL* settings differ */
	IBNET_A2A_NOT_AGREED,		/* the agreement's own allreduce failed */
};

struct ibnet_a2a_host {
	/* The MPI library's own symbol of that name; never NULL: where it
	 * cannot be found the process ends with a sentence saying so. */
	void *(*own)(const char *name);
	/* The same, or NULL where the MPI has no such symbol. */
	void *(*find)(const char *name);
	/* Collective over comm on its first call there, cached after. */
	enum ibnet_a2a_verdict (*agree)(uintptr_t comm);
};

/* The build's: called once, right after it is loaded, before any call. */
typedef void (*ibnet_a2a_attach_fn)(const struct ibnet_a2a_host *host);
#define IBNET_A2A_ATTACH "ibnet_a2a_attach"

#endif
