/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_mpi.c - finding the MPI library's own routines from the job
 * preload (ibnet_a2a_mpi.h).
 *
 * The preload defines MPI_Alltoall and its Fortran names for every MPI
 * process of a job, and must then call the MPI's own. A program linked
 * against libmpi has it in the global scope, where dlsym finds it. A program that dlopen()s a module linked against libmpi with
 * RTLD_LOCAL (Python, R and Julia extensions) does not: the preload, being
 * global, still takes the module's calls, but libmpi is visible only from
 * the module. So we look, in this order: the global scope; the
 * scope of the object that called us first (the module and its libraries);
 * every object loaded. A symbol found must not be our own.
 */
#include "ibnet_a2a_mpi.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibnet_say_line.h"

/* Loaded objects looked through at most; a process has a few hundred at most. */
#define OBJECTS_MAX 1024

static void *caller_scope;	/* dlopen handle of the first caller's object, or NULL */

/* Is p defined in this preload (never the MPI's own)? */
static bool ours(void *p)
{
	Dl_info self, where;

	return dladdr((void *)ibnet_a2a_mpi_find, &self) && dladdr(p, &where) &&
	       self.dli_fbase == where.dli_fbase;
}

void ibnet_a2a_mpi_caller(void *caller)
{
	Dl_info where;

	if (caller_scope || !caller || !dladdr(caller, &where) || !where.dli_fname)
		return;
	/* NULL for the main program (found by name ""), whose scope is the global one. */
	caller_scope = dlopen(where.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
}

struct objects {
	char *name[OBJECTS_MAX];
	int n;
};

static int list_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct objects *o = arg;

	(void)size;
	if (info->dlpi_name && *info->dlpi_name && o->n < OBJECTS_MAX)
		o->name[o->n++] = strdup(info->dlpi_name);
	return 0;
}

/* Every loaded object, each asked alone (dlopen is not called under the
 * loader's lock that dl_iterate_phdr holds). */
static void *search_everywhere(const char *name)
{
	struct objects o = { .n = 0 };
	void *found = NULL;
	int i;

	dl_iterate_phdr(list_object, &o);
	for (i = 0; i < o.n; i++) {
		void *h = o.name[i] ? dlopen(o.name[i], RTLD_LAZY | RTLD_NOLOAD) : NULL;

		if (h) {
			void *p = found ? NULL : dlsym(h, name);

			if (p && !ours(p))
				found = p;
			dlclose(h);	/* NOLOAD counted a reference */
		}
		free(o.name[i]);
	}
	return found;
}

void *ibnet_a2a_mpi_find(const char *name)
{
	/*
	 * The global scope first, the program included: Fortran's sentinels
	 * (MPI_IN_PLACE, a common block) may live in the executable, which
	 * libmpi's own references then use. Past us for the names we define.
	 */
	void *p = dlsym(RTLD_DEFAULT, name);

	if (p && !ours(p))
		return p;
	if ((p = dlsym(RTLD_NEXT, name)) && !ours(p))
		return p;
	if (caller_scope && (p = dlsym(caller_scope, name)) && !ours(p))
		return p;
	return search_everywhere(name);
}

void *ibnet_a2a_mpi_own(const char *name)
{
	void *p = ibnet_a2a_mpi_find(name);

	if (!p) {
		ibnet_say_line("spank-ibnet alltoall: the MPI library's own %s cannot be found in "
			       "this process, so the all-to-all cannot run; run this program without "
			       "the spank-ibnet preload (libibnet-alltoall.so in LD_PRELOAD: "
			       "srun --no-ordered-alltoall --tcp-rto-min=off)", name);
		abort();
	}
	return p;
}

bool ibnet_a2a_mpi_global(void)
{
	Dl_info where;
	void *p;

	if (dlsym(RTLD_DEFAULT, "PMPI_Alltoall"))
		return true;
	p = ibnet_a2a_mpi_find("PMPI_Alltoall");
	if (!p || !dladdr(p, &where) || !where.dli_fname ||
	    !dlopen(where.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_GLOBAL))
		return false;
	return dlsym(RTLD_DEFAULT, "PMPI_Alltoall") != NULL;
}
