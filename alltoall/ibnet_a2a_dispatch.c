/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_dispatch.c - libibnet-alltoall.so, what --ordered-alltoall preloads.
 *
 * One preload serves every MPI: it defines MPI_Alltoall, MPI_Alltoallv,
 * MPI_Alltoallw, MPI_Ialltoall, MPI_Ialltoallv and their Fortran names (use
 * mpi and mpif.h, and Open MPI's use mpi_f08: its f08 names up to 5.0, the C
 * wrappers its f08 routines call from 6.0), the large-count C forms, and
 * socket() for the TCP floor
 * (ibnet_tcp_floor.c), nothing else. It does not link libmpi and does
 * nothing when loaded, so bash, srun or python without MPI run exactly as
 * without it. On the first call (by then an MPI is in the process) it asks
 * the MPI which it is (MPI_Get_library_version) and loads the paced
 * all-to-all built for that ABI from its own directory (ibnet_a2a_builds):
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
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibnet_a2a_agree.h"
#include "ibnet_a2a_host.h"
#include "ibnet_a2a_mpi.h"
#include "ibnet_a2a_settings.h"
#include "ibnet_say_line.h"

#if !defined(__x86_64__) && !defined(__aarch64__)
#error "the handle pass-through is checked for x86-64 and AArch64 only"
#endif

#define EXPORT __attribute__((visibility("default")))

typedef void *handle_t;	/* an MPI handle of either ABI, as a register-sized word */

typedef int (*c_alltoall_fn)(const void *, int, handle_t, void *, int, handle_t, handle_t);
typedef int (*c_alltoallv_fn)(const void *, const int *, const int *, handle_t, void *,
			      const int *, const int *, handle_t, handle_t);
/* The datatypes of MPI_Alltoallw: an array, passed through as its address. */
typedef int (*c_alltoallw_fn)(const void *, const int *, const int *, const void *, void *,
			      const int *, const int *, const void *, handle_t);
/* MPI 4.0's large counts: MPI_Count and MPI_Aint are 64 bits in both ABIs. */
typedef long long count_t;
typedef long aint_t;
typedef int (*c_alltoall_c_fn)(const void *, count_t, handle_t, void *, count_t, handle_t,
			       handle_t);
typedef int (*c_alltoallv_c_fn)(const void *, const count_t *, const aint_t *, handle_t, void *,
				const count_t *, const aint_t *, handle_t, handle_t);
typedef int (*c_alltoallw_c_fn)(const void *, const count_t *, const aint_t *, const void *,
				void *, const count_t *, const aint_t *, const void *, handle_t);
/* The request is an MPI_Request *: a pointer in either ABI. */
typedef int (*c_ialltoall_fn)(const void *, int, handle_t, void *, int, handle_t, handle_t,
			      void *);
typedef int (*c_ialltoallv_fn)(const void *, const int *, const int *, handle_t, void *,
			       const int *, const int *, handle_t, handle_t, void *);
/* Fortran passes everything by address: 8 to 11 pointers. */
typedef void (*f8_fn)(void *, void *, void *, void *, void *, void *, void *, void *);
typedef void (*f9_fn)(void *, void *, void *, void *, void *, void *, void *, void *, void *);
typedef void (*f10_fn)(void *, void *, void *, void *, void *, void *, void *, void *, void *,
		       void *);
typedef void (*f11_fn)(void *, void *, void *, void *, void *, void *, void *, void *, void *,
		       void *, void *);
typedef int (*version_fn)(char *, int *);
typedef handle_t (*comm_f2c_fn)(int);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static enum ibnet_a2a_abi abi;
/* The paced build's routines (NULL without one: then the MPI's own below). */
static c_alltoall_fn c_alltoall;
static c_alltoallv_fn c_alltoallv;
static c_alltoallw_fn c_alltoallw;
static c_alltoall_c_fn c_alltoall_c;
static c_alltoallv_c_fn c_alltoallv_c;
static c_alltoallw_c_fn c_alltoallw_c;
static c_ialltoall_fn c_ialltoall;
static c_ialltoallv_fn c_ialltoallv;
/* use mpi and mpif.h */
static f8_fn f_alltoall;
static f10_fn f_alltoallv;
static f10_fn f_alltoallw;
static f9_fn f_ialltoall;
static f11_fn f_ialltoallv;
/* use mpi_f08: Open MPI's build only (MPICH's f08 routines call MPI_Alltoall) */
static f8_fn f08_alltoall;
static f10_fn f08_alltoallv;
static f10_fn f08_alltoallw;
static f9_fn f08_ialltoall;
static f11_fn f08_ialltoallv;
/* use mpi_f08 from Open MPI 6.0: the C wrappers its f08 routines call */
static f8_fn f08w_alltoall;
static f10_fn f08w_alltoallv;
static f9_fn f08w_ialltoall;
static f11_fn f08w_ialltoallv;
static ibnet_a2a_attach_fn attach;
/* The MPI library's own C routines, found where the program loaded it. */
static c_alltoall_fn own_alltoall;
static c_alltoallv_fn own_alltoallv;
static c_alltoallw_fn own_alltoallw;
static c_alltoall_c_fn own_alltoall_c;
static c_alltoallv_c_fn own_alltoallv_c;
static c_alltoallw_c_fn own_alltoallw_c;
static c_ialltoall_fn own_ialltoall;
static c_ialltoallv_fn own_ialltoallv;
static comm_f2c_fn own_comm_f2c;

/* What the build borrows from us: the MPI's own symbols and the agreement. */
static const struct ibnet_a2a_host host = {
	.own = ibnet_a2a_mpi_own,
	.find = ibnet_a2a_mpi_find,
	.agree = ibnet_a2a_agree,
};

static void say(const char *what, const char *detail)
{
	ibnet_say_line("spank-ibnet alltoall: %s%s; the MPI library's own all-to-all runs", what,
		       detail ? detail : "");
}

/* Which ABI this process's MPI has. */
static enum ibnet_a2a_abi abi_of_mpi(void)
{
	/* MPI_MAX_LIBRARY_VERSION_STRING is 8192 in MPICH, 256 in Open MPI. */
	static char version[8192 + 1];
	version_fn get = (version_fn)ibnet_a2a_mpi_find("PMPI_Get_library_version");
	int len = 0;

	if (!get || get(version, &len) != 0)
		return IBNET_A2A_ABI_UNKNOWN;
	version[sizeof(version) - 1] = '\0';
	if (strstr(version, "Open MPI"))
		return IBNET_A2A_ABI_OMPI;
	if (strstr(version, "MPICH") || strstr(version, "Intel(R) MPI") ||
	    strstr(version, "MVAPICH"))
		return IBNET_A2A_ABI_MPICH;
	return IBNET_A2A_ABI_UNKNOWN;
}

/* The build that serves an ABI (the one table: ibnet_a2a_settings.h), or NULL. */
static const char *abi_build(enum ibnet_a2a_abi which)
{
	return (unsigned)which < IBNET_A2A_ABI_COUNT ? ibnet_a2a_builds[which].file : NULL;
}

/* The MPI's own C routines; one missing is looked up again, with its sentence, when called. */
static void mpis_own_c(void)
{
	own_alltoall = (c_alltoall_fn)ibnet_a2a_mpi_find("PMPI_Alltoall");
	own_alltoallv = (c_alltoallv_fn)ibnet_a2a_mpi_find("PMPI_Alltoallv");
	own_alltoallw = (c_alltoallw_fn)ibnet_a2a_mpi_find("PMPI_Alltoallw");
	own_ialltoall = (c_ialltoall_fn)ibnet_a2a_mpi_find("PMPI_Ialltoall");
	own_ialltoallv = (c_ialltoallv_fn)ibnet_a2a_mpi_find("PMPI_Ialltoallv");
	own_comm_f2c = (comm_f2c_fn)ibnet_a2a_mpi_find("PMPI_Comm_f2c");
}

/* The MPI's own routine in *slot, found now if it was not before (never NULL). */
static void *own_in(void **slot, const char *name)
{
	void *fn = __atomic_load_n(slot, __ATOMIC_ACQUIRE);

	if (!fn) {
		fn = ibnet_a2a_mpi_own(name);
		__atomic_store_n(slot, fn, __ATOMIC_RELEASE);
	}
	return fn;
}
#define OWN(slot, name) ((__typeof__(slot))own_in((void **)&(slot), (name)))

/*
 * What a paced build provides, each into its pointer here. The mpi_f08 ones
 * are absent from a build whose MPI needs none (MPICH's); the others are
 * required, and a build without one of them serves nothing.
 */
static const struct {
	void *slot;		/* the address of one of the pointers above */
	const char *name;
	bool optional;
} build_symbols[] = {
	{ &attach, IBNET_A2A_ATTACH, false },
	{ &c_alltoall, "ibnet_a2a_alltoall", false },
	{ &c_alltoallv, "ibnet_a2a_alltoallv", false },
	{ &c_alltoallw, "ibnet_a2a_alltoallw", false },
	/* Only in a build whose mpi.h is MPI 4.0 or later (MPICH 4, Open MPI 6). */
	{ &c_alltoall_c, "ibnet_a2a_alltoall_c", true },
	{ &c_alltoallv_c, "ibnet_a2a_alltoallv_c", true },
	{ &c_alltoallw_c, "ibnet_a2a_alltoallw_c", true },
	{ &c_ialltoall, "ibnet_a2a_ialltoall", false },
	{ &c_ialltoallv, "ibnet_a2a_ialltoallv", false },
	{ &f_alltoall, "ibnet_a2a_f_alltoall", false },
	{ &f_alltoallv, "ibnet_a2a_f_alltoallv", false },
	{ &f_alltoallw, "ibnet_a2a_f_alltoallw", false },
	{ &f_ialltoall, "ibnet_a2a_f_ialltoall", false },
	{ &f_ialltoallv, "ibnet_a2a_f_ialltoallv", false },
	{ &f08_alltoall, "ibnet_a2a_f08_alltoall", true },
	{ &f08_alltoallv, "ibnet_a2a_f08_alltoallv", true },
	{ &f08_alltoallw, "ibnet_a2a_f08_alltoallw", true },
	{ &f08_ialltoall, "ibnet_a2a_f08_ialltoall", true },
	{ &f08_ialltoallv, "ibnet_a2a_f08_ialltoallv", true },
	{ &f08w_alltoall, "ibnet_a2a_f08w_alltoall", true },
	{ &f08w_alltoallv, "ibnet_a2a_f08w_alltoallv", true },
	{ &f08w_ialltoall, "ibnet_a2a_f08w_ialltoall", true },
	{ &f08w_ialltoallv, "ibnet_a2a_f08w_ialltoallv", true },
};
#define BUILD_SYMBOLS (sizeof(build_symbols) / sizeof(build_symbols[0]))

/* Take every routine of the build; false, with none taken, if one it must have is missing. */
static bool load_build(void *lib)
{
	size_t i;

	for (i = 0; i < BUILD_SYMBOLS; i++) {
		void *fn = dlsym(lib, build_symbols[i].name);

		if (!fn && !build_symbols[i].optional) {
			for (i = 0; i < BUILD_SYMBOLS; i++)
				*(void **)build_symbols[i].slot = NULL;
			return false;
		}
		*(void **)build_symbols[i].slot = fn;
	}
	attach(&host);
	return true;
}

static void resolve(void)
{
	Dl_info self;
	char path[4096];
	const char *build, *word = getenv(IBNET_A2A_ENV_SCHEME);
	enum ibnet_a2a_scheme scheme = IBNET_ALLTOALL_PACED;
	void *lib;

	abi = abi_of_mpi();
	mpis_own_c();
	/*
	 * Preloaded for the TCP floor alone (the step's SLURM_IBNET_ALLTOALL is
	 * not paced): the MPI's own, and nothing said; the agreement below
	 * still runs, in case another rank of the job was asked to pace.
	 */
	if (word && (ibnet_a2a_scheme_parse(word, &scheme) < 0 || scheme != IBNET_ALLTOALL_PACED)) {
		ibnet_a2a_agree_setup(abi, false);
		return;
	}
	build = abi_build(abi);
	if (!build) {
		say("this MPI library is not one the paced all-to-all is built for", NULL);
	} else if (!ibnet_a2a_mpi_global()) {
		say("the MPI library's symbols cannot be made visible to the paced build", NULL);
	} else if (dladdr((void *)resolve, &self) && self.dli_fname) {
		const char *slash = strrchr(self.dli_fname, '/');
		int dir = slash ? (int)(slash - self.dli_fname) : 1;

		snprintf(path, sizeof(path), "%.*s/%s", dir, slash ? self.dli_fname : ".", build);
		lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		if (!lib || !load_build(lib))
			say("cannot load ", path);
	}
	ibnet_a2a_agree_setup(abi, c_alltoall != NULL);
}

/*
 * Every entry point first: remember who called (ibnet_a2a_mpi_caller), and
 * find the routines once. The caller is taken on the first call only.
 */
static bool caller_seen;
#define ENTER()                                                           \
	do {                                                              \
		if (!caller_seen) {                                       \
			ibnet_a2a_mpi_caller(__builtin_return_address(0)); \
			caller_seen = true;                               \
		}                                                         \
		pthread_once(&once, resolve);                             \
	} while (0)

/*
 * Without a build, the blocking calls still join the ranks' agreement on
 * the communicator (ibnet_a2a_agree.c): ranks with a build wait for it, and
 * learn from it that this one has none. Its verdict can only be the MPI's own.
 */
EXPORT int MPI_Alltoall(const void *sb, int sc, handle_t st, void *rb, int rc, handle_t rt,
			handle_t comm)
{
	ENTER();
	if (c_alltoall)
		return c_alltoall(sb, sc, st, rb, rc, rt, comm);
	ibnet_a2a_agree((uintptr_t)comm);
	return OWN(own_alltoall, "PMPI_Alltoall")(sb, sc, st, rb, rc, rt, comm);
}

EXPORT int MPI_Alltoallv(const void *sb, const int *sc, const int *sd, handle_t st, void *rb,
			 const int *rc, const int *rd, handle_t rt, handle_t comm)
{
	ENTER();
	if (c_alltoallv)
		return c_alltoallv(sb, sc, sd, st, rb, rc, rd, rt, comm);
	ibnet_a2a_agree((uintptr_t)comm);
	return OWN(own_alltoallv, "PMPI_Alltoallv")(sb, sc, sd, st, rb, rc, rd, rt, comm);
}

EXPORT int MPI_Alltoallw(const void *sb, const int *sc, const int *sd, const void *st, void *rb,
			 const int *rc, const int *rd, const void *rt, handle_t comm)
{
	ENTER();
	if (c_alltoallw)
		return c_alltoallw(sb, sc, sd, st, rb, rc, rd, rt, comm);
	ibnet_a2a_agree((uintptr_t)comm);
	return OWN(own_alltoallw, "PMPI_Alltoallw")(sb, sc, sd, st, rb, rc, rd, rt, comm);
}

/*
 * The large-count forms: defined for every MPI, reached only where its
 * mpi.h declares them (a program built against Open MPI 4 or 5 never calls
 * them). Without a build that has them, the MPI's own, after the agreement.
 */
EXPORT int MPI_Alltoall_c(const void *sb, count_t sc, handle_t st, void *rb, count_t rc,
			  handle_t rt, handle_t comm)
{
	ENTER();
	if (c_alltoall_c)
		return c_alltoall_c(sb, sc, st, rb, rc, rt, comm);
	ibnet_a2a_agree((uintptr_t)comm);
	return OWN(own_alltoall_c, "PMPI_Alltoall_c")(sb, sc, st, rb, rc, rt, comm);
}

EXPORT int MPI_Alltoallv_c(const void *sb, const count_t *sc, const aint_t *sd, handle_t st,
			   void *rb, const count_t *rc, const aint_t *rd, handle_t rt, handle_t comm)
{
	ENTER();
	if (c_alltoallv_c)
		return c_alltoallv_c(sb, sc, sd, st, rb, rc, rd, rt, comm);
	ibnet_a2a_agree((uintptr_t)comm);
	return OWN(own_alltoallv_c, "PMPI_Alltoallv_c")(sb, sc, sd, st, rb, rc, rd, rt, comm);
}

EXPORT int MPI_Alltoallw_c(const void *sb, const count_t *sc, const aint_t *sd, const void *st,
			   void *rb, const count_t *rc, const aint_t *rd, const void *rt,
			   handle_t comm)
{
	ENTER();
	if (c_alltoallw_c)
		return c_alltoallw_c(sb, sc, sd, st, rb, rc, rd, rt, comm);
	ibnet_a2a_agree((uintptr_t)comm);
	return OWN(own_alltoallw_c, "PMPI_Alltoallw_c")(sb, sc, sd, st, rb, rc, rd, rt, comm);
}

EXPORT int MPI_Ialltoall(const void *sb, int sc, handle_t st, void *rb, int rc, handle_t rt,
			 handle_t comm, void *request)
{
	ENTER();
	if (c_ialltoall)
		return c_ialltoall(sb, sc, st, rb, rc, rt, comm, request);
	return OWN(own_ialltoall, "PMPI_Ialltoall")(sb, sc, st, rb, rc, rt, comm, request);
}

EXPORT int MPI_Ialltoallv(const void *sb, const int *sc, const int *sd, handle_t st, void *rb,
			  const int *rc, const int *rd, handle_t rt, handle_t comm, void *request)
{
	ENTER();
	if (c_ialltoallv)
		return c_ialltoallv(sb, sc, sd, st, rb, rc, rd, rt, comm, request);
	return OWN(own_ialltoallv, "PMPI_Ialltoallv")(sb, sc, sd, st, rb, rc, rd, rt, comm,
						       request);
}

/*
 * The Fortran names: to the build's routine (to), or without one to the MPI
 * library's own routine of the same name (found once, where the program
 * loaded it). The F77 names come in the manglings MPI libraries export
 * (gfortran and most compilers use the first); mpi_alltoall_f08_ is Open
 * MPI's mpi_f08 name up to 5.0, one mangling, as its library has; from 6.0
 * its mpi_alltoall_f08ts_ calls the C routine ompi_alltoall_wrapper_f08,
 * whose arguments are the same but for the buffers (C descriptors, which
 * the dispatcher passes through like any address). The ierror of mpi_f08
 * is OPTIONAL (NULL when left out): passed through.
 *
 * Open MPI's own Fortran MPI_Alltoall(v) calls PMPI_Alltoall(v), not ours,
 * so without a build a blocking one joins the ranks' agreement here (comm,
 * the INTEGER handle, is its 7th or 9th argument); MPICH's calls
 * MPI_Alltoall(v), which joins it.
 */
static void fortran_agree(const int *fcomm)
{
	if (abi == IBNET_A2A_ABI_OMPI && fcomm)
		ibnet_a2a_agree((uintptr_t)OWN(own_comm_f2c, "PMPI_Comm_f2c")(*fcomm));
}

#define P8 void *a, void *b, void *c, void *d, void *e, void *f, void *g, void *h
#define A8 a, b, c, d, e, f, g, h
#define P9 P8, void *i
#define A9 A8, i
#define P10 P9, void *j
#define A10 A9, j
#define P11 P10, void *k
#define A11 A10, k
#define FORTRAN_NAME(name, to, type, params, args, comm)              \
	EXPORT void name(params)                                       \
	{                                                              \
		static void *own_fn;                                   \
		ENTER();                                               \
		if (to) {                                              \
			to(args);                                      \
			return;                                        \
		}                                                      \
		fortran_agree(comm);                                   \
		((type)OWN(own_fn, #name))(args);                      \
	}
#define FORTRAN_ALLTOALL(name) FORTRAN_NAME(name, f_alltoall, f8_fn, P8, A8, g)
#define FORTRAN_ALLTOALLV(name) FORTRAN_NAME(name, f_alltoallv, f10_fn, P10, A10, i)
#define FORTRAN_ALLTOALLW(name) FORTRAN_NAME(name, f_alltoallw, f10_fn, P10, A10, i)
#define FORTRAN_IALLTOALL(name) FORTRAN_NAME(name, f_ialltoall, f9_fn, P9, A9, NULL)
#define FORTRAN_IALLTOALLV(name) FORTRAN_NAME(name, f_ialltoallv, f11_fn, P11, A11, NULL)

FORTRAN_ALLTOALL(mpi_alltoall_)
FORTRAN_ALLTOALL(mpi_alltoall__)
FORTRAN_ALLTOALL(mpi_alltoall)
FORTRAN_ALLTOALL(MPI_ALLTOALL)
FORTRAN_ALLTOALLV(mpi_alltoallv_)
FORTRAN_ALLTOALLV(mpi_alltoallv__)
FORTRAN_ALLTOALLV(mpi_alltoallv)
FORTRAN_ALLTOALLV(MPI_ALLTOALLV)
FORTRAN_ALLTOALLW(mpi_alltoallw_)
FORTRAN_ALLTOALLW(mpi_alltoallw__)
FORTRAN_ALLTOALLW(mpi_alltoallw)
FORTRAN_ALLTOALLW(MPI_ALLTOALLW)
FORTRAN_IALLTOALL(mpi_ialltoall_)
FORTRAN_IALLTOALL(mpi_ialltoall__)
FORTRAN_IALLTOALL(mpi_ialltoall)
FORTRAN_IALLTOALL(MPI_IALLTOALL)
FORTRAN_IALLTOALLV(mpi_ialltoallv_)
FORTRAN_IALLTOALLV(mpi_ialltoallv__)
FORTRAN_IALLTOALLV(mpi_ialltoallv)
FORTRAN_IALLTOALLV(MPI_IALLTOALLV)
FORTRAN_NAME(mpi_alltoall_f08_, f08_alltoall, f8_fn, P8, A8, g)
FORTRAN_NAME(mpi_alltoallv_f08_, f08_alltoallv, f10_fn, P10, A10, i)
FORTRAN_NAME(mpi_alltoallw_f08_, f08_alltoallw, f10_fn, P10, A10, i)
FORTRAN_NAME(mpi_ialltoall_f08_, f08_ialltoall, f9_fn, P9, A9, NULL)
FORTRAN_NAME(mpi_ialltoallv_f08_, f08_ialltoallv, f11_fn, P11, A11, NULL)
FORTRAN_NAME(ompi_alltoall_wrapper_f08, f08w_alltoall, f8_fn, P8, A8, g)
FORTRAN_NAME(ompi_alltoallv_wrapper_f08, f08w_alltoallv, f10_fn, P10, A10, i)
FORTRAN_NAME(ompi_ialltoall_wrapper_f08, f08w_ialltoall, f9_fn, P9, A9, NULL)
FORTRAN_NAME(ompi_ialltoallv_wrapper_f08, f08w_ialltoallv, f11_fn, P11, A11, NULL)
