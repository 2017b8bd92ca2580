/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_dispatch.c - libibnet-alltoall.so, what --ordered-alltoall preloads.
 *
 * One preload serves every MPI: it defines MPI_Alltoall, MPI_Alltoallv and
 * their Fortran names, and socket() for the TCP floor (ibnet_tcp_floor.c),
 * nothing else. It does not link libmpi and does
 * nothing when loaded, so bash, srun or python without MPI run exactly as
 * without it. On the first call (by then an MPI is in the process) it asks
 * the MPI which it is (MPI_Get_library_version) and loads the paced
 * all-to-all built for that ABI from its own directory:
 *   Open MPI                        libibnet-a2a-ompi.so
 *   MPICH, Intel MPI, MVAPICH2      libibnet-a2a-mpich.so (the MPICH ABI)
 * Any other MPI, or a build that does not load, gets the MPI's own routines,
 * and the process says so once on stderr.
 *
 * The dispatcher cannot include an mpi.h: handles are int in the MPICH ABI
 * and pointers in Open MPI's. It passes them through as pointer-sized
 * words. On the LP64 ABIs we build for (x86-64 SysV, AArch64 AAPCS64) an
 * int argument travels in a full register or an 8-byte stack slot, so the
 * callee built with the right mpi.h reads exactly what the caller passed.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibnet_a2a_settings.h"

#if !defined(__x86_64__) && !defined(__aarch64__)
#error "the handle pass-through is checked for x86-64 and AArch64 only"
#endif

#define EXPORT __attribute__((visibility("default")))

typedef void *handle_t;	/* an MPI handle of either ABI, as a register-sized word */

typedef int (*c_alltoall_fn)(const void *, int, handle_t, void *, int, handle_t, handle_t);
typedef int (*c_alltoallv_fn)(const void *, const int *, const int *, handle_t, void *,
			      const int *, const int *, handle_t, handle_t);
typedef void (*f_alltoall_fn)(void *, void *, void *, void *, void *, void *, void *, void *);
typedef void (*f_alltoallv_fn)(void *, void *, void *, void *, void *, void *, void *, void *,
			       void *, void *);
typedef int (*version_fn)(char *, int *);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static c_alltoall_fn c_alltoall;
static c_alltoallv_fn c_alltoallv;
static f_alltoall_fn f_alltoall;
static f_alltoallv_fn f_alltoallv;

static void say(const char *what, const char *detail)
{
	fprintf(stderr, "spank-ibnet alltoall: %s%s; the MPI library's own all-to-all runs\n",
		what, detail ? detail : "");
}

/* Which build serves this process's MPI, or NULL. */
static const char *abi_build(void)
{
	/* MPI_MAX_LIBRARY_VERSION_STRING is 8192 in MPICH, 256 in Open MPI. */
	static char version[8192 + 1];
	version_fn get = (version_fn)dlsym(RTLD_DEFAULT, "PMPI_Get_library_version");
	int len = 0;

	if (!get || get(version, &len) != 0)
		return NULL;
	version[sizeof(version) - 1] = '\0';
	if (strstr(version, "Open MPI"))
		return "libibnet-a2a-ompi.so";
	if (strstr(version, "MPICH") || strstr(version, "Intel(R) MPI") ||
	    strstr(version, "MVAPICH"))
		return "libibnet-a2a-mpich.so";
	return NULL;
}

static void resolve(void)
{
	Dl_info self;
	char path[4096];
	const char *build, *word = getenv(IBNET_A2A_ENV_SCHEME);
	enum ibnet_a2a_scheme scheme = IBNET_ALLTOALL_PACED;
	void *lib;

	/*
	 * Preloaded for the TCP floor alone (the step's SLURM_IBNET_ALLTOALL is
	 * not paced): the MPI's own, and nothing said.
	 */
	if (word && (ibnet_a2a_scheme_parse(word, &scheme) < 0 || scheme != IBNET_ALLTOALL_PACED)) {
		c_alltoall = (c_alltoall_fn)dlsym(RTLD_DEFAULT, "PMPI_Alltoall");
		c_alltoallv = (c_alltoallv_fn)dlsym(RTLD_DEFAULT, "PMPI_Alltoallv");
		return;
	}
	build = abi_build();
	if (build && dladdr((void *)resolve, &self) && self.dli_fname) {
		const char *slash = strrchr(self.dli_fname, '/');
		int dir = slash ? (int)(slash - self.dli_fname) : 1;

		snprintf(path, sizeof(path), "%.*s/%s", dir, slash ? self.dli_fname : ".", build);
		lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		if (lib) {
			c_alltoall = (c_alltoall_fn)dlsym(lib, "ibnet_a2a_alltoall");
			c_alltoallv = (c_alltoallv_fn)dlsym(lib, "ibnet_a2a_alltoallv");
			f_alltoall = (f_alltoall_fn)dlsym(lib, "ibnet_a2a_f_alltoall");
			f_alltoallv = (f_alltoallv_fn)dlsym(lib, "ibnet_a2a_f_alltoallv");
		}
		if (!lib || !c_alltoall || !c_alltoallv || !f_alltoall || !f_alltoallv) {
			say("cannot load ", path);
			c_alltoall = NULL, c_alltoallv = NULL, f_alltoall = NULL, f_alltoallv = NULL;
		}
	} else if (!build) {
		say("this MPI library is not one the paced all-to-all is built for", NULL);
	}
	/* The MPI's own routines, where no build serves. */
	if (!c_alltoall)
		c_alltoall = (c_alltoall_fn)dlsym(RTLD_DEFAULT, "PMPI_Alltoall");
	if (!c_alltoallv)
		c_alltoallv = (c_alltoallv_fn)dlsym(RTLD_DEFAULT, "PMPI_Alltoallv");
}

EXPORT int MPI_Alltoall(const void *sb, int sc, handle_t st, void *rb, int rc, handle_t rt,
			handle_t comm)
{
	pthread_once(&once, resolve);
	return c_alltoall(sb, sc, st, rb, rc, rt, comm);
}

EXPORT int MPI_Alltoallv(const void *sb, const int *sc, const int *sd, handle_t st, void *rb,
			 const int *rc, const int *rd, handle_t rt, handle_t comm)
{
	pthread_once(&once, resolve);
	return c_alltoallv(sb, sc, sd, st, rb, rc, rd, rt, comm);
}

/*
 * The Fortran names (gfortran and most compilers use the first; the others
 * are the manglings MPI libraries also export). Without a build, each name
 * goes to the MPI library's own routine of that name.
 */
#define FORTRAN_ALLTOALL(name)                                                          \
	EXPORT void name(void *a, void *b, void *c, void *d, void *e, void *f, void *g,   \
			 void *h)                                                         \
	{                                                                                 \
		pthread_once(&once, resolve);                                             \
		if (f_alltoall)                                                           \
			f_alltoall(a, b, c, d, e, f, g, h);                               \
		else                                                                      \
			((f_alltoall_fn)dlsym(RTLD_NEXT, #name))(a, b, c, d, e, f, g, h); \
	}
#define FORTRAN_ALLTOALLV(name)                                                         \
	EXPORT void name(void *a, void *b, void *c, void *d, void *e, void *f, void *g,   \
			 void *h, void *i, void *j)                                       \
	{                                                                                 \
		pthread_once(&once, resolve);                                             \
		if (f_alltoallv)                                                          \
			f_alltoallv(a, b, c, d, e, f, g, h, i, j);                        \
		else                                                                      \
			((f_alltoallv_fn)dlsym(RTLD_NEXT, #name))(a, b, c, d, e, f, g, h, \
								 i, j);                  \
	}

FORTRAN_ALLTOALL(mpi_alltoall_)
FORTRAN_ALLTOALL(mpi_alltoall__)
FORTRAN_ALLTOALL(mpi_alltoall)
FORTRAN_ALLTOALL(MPI_ALLTOALL)
FORTRAN_ALLTOALLV(mpi_alltoallv_)
FORTRAN_ALLTOALLV(mpi_alltoallv__)
FORTRAN_ALLTOALLV(mpi_alltoallv)
FORTRAN_ALLTOALLV(MPI_ALLTOALLV)
