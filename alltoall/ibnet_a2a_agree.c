/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_agree.c - one route per communicator for every rank
 * (ibnet_a2a_agree.h).
 *
 * The paced scheme runs collectives of its own on the user's communicator;
 * a rank that handed the call to the MPI's own all-to-all meanwhile sits in
 * a different collective, and the job hangs. Every input a rank decides its
 * route from is the same on all ranks by the MPI standard (sizes, MPI_IN_PLACE,
 * the communicator) except two that are the process's own: whether its
 * paced build loaded, and its settings (environment; MPMD programs may
 * differ). So on the first all-to-all on a communicator, every rank - also
 * one without a paced build, which is why this lives in the dispatcher -
 * contributes those two to one MPI_Allreduce (MPI_MIN of three ints), and
 * all take the same verdict; cached on the communicator. The thread level
 * is not among them: calls on different communicators may run at once under
 * MPI_THREAD_MULTIPLE, and every part of the scheme keeps its state per
 * communicator or updates it atomically (0.9: before, such ranks handed over).
 * The MPI's own routine would run after it unharmed: it is a plain
 * collective on the same communicator, in the order every rank calls it.
 *
 * The dispatcher includes no mpi.h, so it names the two handles the
 * allreduce needs per ABI: MPICH's are fixed integers of its ABI (shared by
 * Intel MPI and MVAPICH), Open MPI's are addresses of objects in libmpi.
 */
#include "ibnet_a2a_agree.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "ibnet_a2a_mpi.h"
#include "ibnet_a2a_settings.h"
#include "ibnet_say_line.h"

typedef void *handle_t;

/* The MPICH ABI's MPI_INT and MPI_MIN (mpi.h of MPICH 3.x and 4.x). */
#define MPICH_ABI_INT 0x4c000405ul
#define MPICH_ABI_MIN 0x58000002ul

typedef int (*allreduce_fn)(const void *, void *, int, handle_t, handle_t, handle_t);
typedef int (*keyval_fn)(void *, void *, int *, void *);
typedef int (*get_attr_fn)(handle_t, int, void *, int *);
typedef int (*set_attr_fn)(handle_t, int, void *);
typedef int (*test_inter_fn)(handle_t, int *);

static bool active;		/* an ABI we can agree in */
static bool have_build;
static handle_t mpi_int, mpi_min;
static allreduce_fn allreduce;
static get_attr_fn get_attr;
static set_attr_fn set_attr;
static test_inter_fn test_inter;
static keyval_fn create_keyval;
static int keyval = -1;
static pthread_once_t keyval_once = PTHREAD_ONCE_INIT;

/* The verdict is not copied to a duplicate (it agrees anew) and holds no memory. */
static int no_copy(handle_t comm, int kv, void *extra, void *in, void *out, int *flag)
{
	(void)comm, (void)kv, (void)extra, (void)in, (void)out;
	*flag = 0;
	return 0;
}

static int no_delete(handle_t comm, int kv, void *attr, void *extra)
{
	(void)comm, (void)kv, (void)attr, (void)extra;
	return 0;
}

static void make_keyval(void)
{
	if (create_keyval(no_copy, no_delete, &keyval, NULL) != 0)
		keyval = -1;
}

void ibnet_a2a_agree_setup(enum ibnet_a2a_abi abi, bool build)
{
	have_build = build;
	if (abi == IBNET_A2A_ABI_MPICH) {
		mpi_int = (handle_t)MPICH_ABI_INT;
		mpi_min = (handle_t)MPICH_ABI_MIN;
	} else if (abi == IBNET_A2A_ABI_OMPI) {
		mpi_int = ibnet_a2a_mpi_find("ompi_mpi_int");
		mpi_min = ibnet_a2a_mpi_find("ompi_mpi_op_min");
	} else {
		return;
	}
	allreduce = (allreduce_fn)ibnet_a2a_mpi_find("PMPI_Allreduce");
	create_keyval = (keyval_fn)ibnet_a2a_mpi_find("PMPI_Comm_create_keyval");
	get_attr = (get_attr_fn)ibnet_a2a_mpi_find("PMPI_Comm_get_attr");
	set_attr = (set_attr_fn)ibnet_a2a_mpi_find("PMPI_Comm_set_attr");
	test_inter = (test_inter_fn)ibnet_a2a_mpi_find("PMPI_Comm_test_inter");
	active = mpi_int && mpi_min && allreduce && create_keyval && get_attr && set_attr &&
		 test_inter;
	if (!active)
		ibnet_say_line("spank-ibnet alltoall: this MPI library lacks a routine or handle "
			       "the ranks' agreement needs; each rank routes its calls alone");
}

int ibnet_a2a_settings_hash(char *const *vars)
{
	static const char prefix[] = "SLURM_IBNET_ALLTOALL";
	uint32_t h = 2166136261u;	/* FNV-1a */
	int i, c;

	for (i = 0; vars && vars[i]; i++) {
		const char *v = vars[i];
		bool counts = false;

		if (strncmp(v, prefix, sizeof(prefix) - 1) == 0)
			counts = strncmp(v, IBNET_A2A_ENV_REPORT "=", sizeof(IBNET_A2A_ENV_REPORT)) &&
				 strncmp(v, IBNET_A2A_ENV_TALLY "=", sizeof(IBNET_A2A_ENV_TALLY)) &&
				 /* the node's own link: nodes may differ */
				 strncmp(v, IBNET_A2A_ENV_LINK_MBIT "=",
					 sizeof(IBNET_A2A_ENV_LINK_MBIT));
		for (c = 0; !counts && ibnet_a2a_mpi_choices[c].mpi; c++) {
			size_t n = strlen(ibnet_a2a_mpi_choices[c].variable);

			counts = strncmp(v, ibnet_a2a_mpi_choices[c].variable, n) == 0 && v[n] == '=';
		}
		if (!counts)
			continue;
		/* environ's order is the process's own: combine entries order-free. */
		{
			uint32_t e = 2166136261u;

			for (; *v; v++)
				e = (e ^ (unsigned char)*v) * 16777619u;
			h += e * 2654435761u;
		}
	}
	return (int)(h & 0x7fffffffu);
}

enum ibnet_a2a_verdict ibnet_a2a_agree(uintptr_t comm_word)
{
	extern char **environ;
	handle_t comm = (handle_t)comm_word;
	void *cached = NULL;
	int found = 0, inter = 0, vote[3], all[3];
	enum ibnet_a2a_verdict verdict;

	if (!active)
		return IBNET_A2A_AGREED;
	pthread_once(&keyval_once, make_keyval);
	if (keyval >= 0 && get_attr(comm, keyval, &cached, &found) == 0 && found)
		return (enum ibnet_a2a_verdict)((uintptr_t)cached - 1);
	/* An inter-communicator is handed over by every rank alike (its allreduce
	 * would combine the other group's votes): nothing to agree. */
	if (test_inter(comm, &inter) != 0 || inter)
		return IBNET_A2A_AGREED;
	vote[0] = have_build;
	vote[1] = ibnet_a2a_settings_hash(environ);
	vote[2] = -vote[1];
	/* A failure is the MPI's, reported through comm's handler; the call then
	 * goes to the MPI's own, which meets the same failure. */
	if (allreduce(vote, all, 3, mpi_int, mpi_min, comm) != 0)
		return IBNET_A2A_NOT_AGREED;
	if (!all[0])
		verdict = IBNET_A2A_DIFFER_BUILD;
	else if (all[1] != -all[2])	/* the smallest hash is not the largest */
		verdict = IBNET_A2A_DIFFER_SETTINGS;
	else
		verdict = IBNET_A2A_AGREED;
	if (keyval >= 0)
		set_attr(comm, keyval, (void *)((uintptr_t)verdict + 1));
	return verdict;
}
