/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_fortran.c - the Fortran bindings of the paced build (use mpi,
 * mpif.h, and Open MPI's use mpi_f08).
 */
#include <pthread.h>
#include <stdlib.h>

#include "ibnet_a2a_paced.h"
#include "ibnet_a2a_route.h"
#include "ibnet_a2a_state.h"

/* OPEN_MPI is mpi.h's, included above. */
#ifdef OPEN_MPI
#if __has_include(<ISO_Fortran_binding.h>)
#include <ISO_Fortran_binding.h>	/* the compiler's, with gfortran (TS 29113) */
#define IBNET_A2A_CFI 1
#endif
#endif

_Static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran INTEGER is a C int here");

/*
 * Fortran. Open MPI's mpi_alltoall_ calls PMPI_Alltoall itself, so the
 * dispatcher takes the Fortran names too; so does its mpi_f08
 * mpi_alltoall_f08_ (through the same C routine as mpi_alltoall_,
 * ompi_alltoall_f). MPICH's Fortran routines, mpi_f08's included, call
 * MPI_Alltoall (and MPI_Ialltoall), which is already ours, and count there:
 * for MPICH the library's own Fortran routine runs. Open MPI's Fortran
 * MPI_IN_PLACE and MPI_BOTTOM become C's (c_buffer).
 *
 * Every Fortran routine gets its handles as the address of an INTEGER: so
 * does Open MPI's mpi_f08 (TYPE(MPI_Comm) is one INTEGER, MPI_VAL, passed by
 * reference). Its ierror is OPTIONAL: NULL when the caller leaves it out.
 */
typedef void (*f_alltoall_fn)(void *, MPI_Fint *, MPI_Fint *, void *, MPI_Fint *, MPI_Fint *,
			      MPI_Fint *, MPI_Fint *);
typedef void (*f_alltoallv_fn)(void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, void *, MPI_Fint *,
			       MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *);
typedef f_alltoallv_fn f_alltoallw_fn;
typedef void (*f_ialltoall_fn)(void *, MPI_Fint *, MPI_Fint *, void *, MPI_Fint *, MPI_Fint *,
			       MPI_Fint *, MPI_Fint *, MPI_Fint *);
typedef void (*f_ialltoallv_fn)(void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, void *, MPI_Fint *,
				MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *);

/* The MPI's own Fortran routine of that name (its profiling name: pmpi_...). */
static void *mpis_own(const char *name)
{
	return host->own(name);
}

#ifdef OPEN_MPI
/*
 * Open MPI's Fortran sentinels, under each name mangling it may use. Its
 * mpi_f08 MPI_IN_PLACE and MPI_BOTTOM are these same variables:
 * "bind(C, name=...)" to the mangled mpi_fortran_in_place
 * (ompi/mpi/fortran/base/gen-mpi-mangling.pl, mpif-f08-types.h).
 */
static const char *const sentinel_names[] = {
	"mpi_fortran_in_place", "mpi_fortran_in_place_", "mpi_fortran_in_place__",
	"MPI_FORTRAN_IN_PLACE", "mpi_fortran_bottom", "mpi_fortran_bottom_",
	"mpi_fortran_bottom__", "MPI_FORTRAN_BOTTOM",
};
#define SENTINELS (sizeof(sentinel_names) / sizeof(sentinel_names[0]))
#define IN_PLACE_NAMES 4	/* the first four; then MPI_BOTTOM's */
static void *sentinel[SENTINELS];
static pthread_once_t sentinels_once = PTHREAD_ONCE_INIT;

/* Looked up once: a name the MPI lacks costs a walk over every loaded object. */
static void find_sentinels(void)
{
	size_t i;

	for (i = 0; i < SENTINELS; i++)
		sentinel[i] = host->find(sentinel_names[i]);
}

/* A Fortran buffer as C sees it: Fortran's MPI_IN_PLACE and MPI_BOTTOM are
 * variables of the library, C's are constants. */
static void *c_buffer(void *buf)
{
	size_t i;

	pthread_once(&sentinels_once, find_sentinels);
	for (i = 0; i < SENTINELS; i++)
		if (sentinel[i] && sentinel[i] == buf)
			return i < IN_PLACE_NAMES ? MPI_IN_PLACE : MPI_BOTTOM;
	return buf;
}
#endif

/* Both Fortran bindings of MPI_Alltoall; own names the MPI's routine of the binding. */
static void f_alltoall(const char *own, void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb,
		       MPI_Fint *rc, MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *ierr)
{
#ifdef OPEN_MPI
	int err = ibnet_a2a_alltoall(c_buffer(sb), *sc, PMPI_Type_f2c(*st), c_buffer(rb), *rc,
				     PMPI_Type_f2c(*rt), PMPI_Comm_f2c(*comm));

	(void)own;
	if (ierr)
		*ierr = err;
#else
	((f_alltoall_fn)mpis_own(own))(sb, sc, st, rb, rc, rt, comm, ierr);
#endif
}

static void f_alltoallv(const char *own, void *sb, MPI_Fint *sc, MPI_Fint *sd, MPI_Fint *st,
			void *rb, MPI_Fint *rc, MPI_Fint *rd, MPI_Fint *rt, MPI_Fint *comm,
			MPI_Fint *ierr)
{
#ifdef OPEN_MPI
	int err = ibnet_a2a_alltoallv(c_buffer(sb), sc, sd, PMPI_Type_f2c(*st), c_buffer(rb), rc,
				      rd, PMPI_Type_f2c(*rt), PMPI_Comm_f2c(*comm));

	(void)own;
	if (ierr)
		*ierr = err;
#else
	((f_alltoallv_fn)mpis_own(own))(sb, sc, sd, st, rb, rc, rd, rt, comm, ierr);
#endif
}

/*
 * MPI_Alltoallw from Fortran: INTEGER datatypes, one per block, each made
 * C's (their number is the communicator's size); the counts and byte
 * displacements are INTEGER arrays, C int arrays here.
 */
static void f_alltoallw(const char *own, void *sb, MPI_Fint *sc, MPI_Fint *sd, MPI_Fint *st,
			void *rb, MPI_Fint *rc, MPI_Fint *rd, MPI_Fint *rt, MPI_Fint *comm,
			MPI_Fint *ierr)
{
#ifdef OPEN_MPI
	MPI_Comm c = PMPI_Comm_f2c(*comm);
	MPI_Datatype *types;
	int size = 0, i, err;
	bool in_place;

	(void)own;
	PMPI_Comm_size(c, &size);
	sb = c_buffer(sb);
	in_place = sb == MPI_IN_PLACE;
	types = malloc(sizeof(MPI_Datatype) * 2 * (size_t)(size > 0 ? size : 1));
	if (!types) {
		err = report_failure(c, MPI_ERR_NO_MEM);
	} else {
		for (i = 0; i < size; i++) {
			types[i] = in_place ? MPI_DATATYPE_NULL : PMPI_Type_f2c(st[i]);
			types[size + i] = PMPI_Type_f2c(rt[i]);
		}
		err = ibnet_a2a_alltoallw(sb, sc, sd, types, c_buffer(rb), rc, rd, types + size, c);
		free(types);
	}
	if (ierr)
		*ierr = err;
#else
	((f_alltoallw_fn)mpis_own(own))(sb, sc, sd, st, rb, rc, rd, rt, comm, ierr);
#endif
}

/*
 * Non-blocking from Fortran: the MPI's own routine. Open MPI's calls
 * PMPI_Ialltoall, unseen by us, so the call is counted here; MPICH's calls
 * MPI_Ialltoall, ours, which counts it.
 */
static void f_ialltoall(const char *own, void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb,
			MPI_Fint *rc, MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr)
{
#ifdef OPEN_MPI
	count(IALLTOALL, nonblocking_route());
#endif
	((f_ialltoall_fn)mpis_own(own))(sb, sc, st, rb, rc, rt, comm, req, ierr);
}

static void f_ialltoallv(const char *own, void *sb, MPI_Fint *sc, MPI_Fint *sd, MPI_Fint *st,
			 void *rb, MPI_Fint *rc, MPI_Fint *rd, MPI_Fint *rt, MPI_Fint *comm,
			 MPI_Fint *req, MPI_Fint *ierr)
{
#ifdef OPEN_MPI
	count(IALLTOALLV, nonblocking_route());
#endif
	((f_ialltoallv_fn)mpis_own(own))(sb, sc, sd, st, rb, rc, rd, rt, comm, req, ierr);
}

/* use mpi and mpif.h: what the dispatcher's mpi_alltoall_ and its other manglings call. */
EXPORT void ibnet_a2a_f_alltoall(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc,
				 MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *ierr)
{
	f_alltoall("pmpi_alltoall_", sb, sc, st, rb, rc, rt, comm, ierr);
}

EXPORT void ibnet_a2a_f_alltoallv(void *sb, MPI_Fint *sc, MPI_Fint *sd, MPI_Fint *st, void *rb,
				  MPI_Fint *rc, MPI_Fint *rd, MPI_Fint *rt, MPI_Fint *comm,
				  MPI_Fint *ierr)
{
	f_alltoallv("pmpi_alltoallv_", sb, sc, sd, st, rb, rc, rd, rt, comm, ierr);
}

EXPORT void ibnet_a2a_f_alltoallw(void *sb, MPI_Fint *sc, MPI_Fint *sd, MPI_Fint *st, void *rb,
				  MPI_Fint *rc, MPI_Fint *rd, MPI_Fint *rt, MPI_Fint *comm,
				  MPI_Fint *ierr)
{
	f_alltoallw("pmpi_alltoallw_", sb, sc, sd, st, rb, rc, rd, rt, comm, ierr);
}

EXPORT void ibnet_a2a_f_ialltoall(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc,
				  MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr)
{
	f_ialltoall("pmpi_ialltoall_", sb, sc, st, rb, rc, rt, comm, req, ierr);
}

EXPORT void ibnet_a2a_f_ialltoallv(void *sb, MPI_Fint *sc, MPI_Fint *sd, MPI_Fint *st, void *rb,
				   MPI_Fint *rc, MPI_Fint *rd, MPI_Fint *rt, MPI_Fint *comm,
				   MPI_Fint *req, MPI_Fint *ierr)
{
	f_ialltoallv("pmpi_ialltoallv_", sb, sc, sd, st, rb, rc, rd, rt, comm, req, ierr);
}

#ifdef OPEN_MPI
/*
 * use mpi_f08, Open MPI (4.1 and 5.0: mpi_alltoall_f08_ in
 * libmpi_usempif08; 6.0: see below). MPICH's mpi_f08 routines have other names
 * (mpi_alltoall_f08ts_) and reach our MPI_Alltoall by themselves: its build
 * has none of these, and the dispatcher sends the f08 names to the MPI.
 */
EXPORT void ibnet_a2a_f08_alltoall(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc,
				   MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *ierr)
{
	f_alltoall("pmpi_alltoall_f08_", sb, sc, st, rb, rc, rt, comm, ierr);
}

EXPORT void ibnet_a2a_f08_alltoallv(void *sb, MPI_Fint *sc, MPI_Fint *sd, MPI_Fint *st, void *rb,
				    MPI_Fint *rc, MPI_Fint *rd, MPI_Fint *rt, MPI_Fint *comm,
				    MPI_Fint *ierr)
{
	f_alltoallv("pmpi_alltoallv_f08_", sb, sc, sd, st, rb, rc, rd, rt, comm, ierr);
}

EXPORT void ibnet_a2a_f08_alltoallw(void *sb, MPI_Fint *sc, MPI_Fint *sd, MPI_Fint *st, void *rb,
				    MPI_Fint *rc, MPI_Fint *rd, MPI_Fint *rt, MPI_Fint *comm,
				    MPI_Fint *ierr)
{
	f_alltoallw("pmpi_alltoallw_f08_", sb, sc, sd, st, rb, rc, rd, rt, comm, ierr);
}

EXPORT void ibnet_a2a_f08_ialltoall(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc,
				    MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr)
{
	f_ialltoall("pmpi_ialltoall_f08_", sb, sc, st, rb, rc, rt, comm, req, ierr);
}

EXPORT void ibnet_a2a_f08_ialltoallv(void *sb, MPI_Fint *sc, MPI_Fint *sd, MPI_Fint *st,
				     void *rb, MPI_Fint *rc, MPI_Fint *rd, MPI_Fint *rt,
				     MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr)
{
	f_ialltoallv("pmpi_ialltoallv_f08_", sb, sc, sd, st, rb, rc, rd, rt, comm, req, ierr);
}

#ifdef IBNET_A2A_CFI
/*
 * use mpi_f08, Open MPI 6.0 (built with TS 29113, as Debian's is): its
 * Fortran mpi_alltoall_f08ts_ passes each buffer as a C descriptor
 * (CFI_cdesc_t) to ompi_alltoall_wrapper_f08, which calls PMPI_Alltoall
 * itself, unseen by us; the dispatcher takes the wrappers' names (through
 * libmpi_usempif08's PLT), and the f08 names of 4.1 and 5.0 above are no
 * longer called. The memory is the descriptor's base address; Open MPI's
 * own routine takes only contiguous buffers (any other is MPI_ERR_INTERN),
 * so a non-contiguous one goes to it, counted (NONCONTIGUOUS); the
 * sentinels become C's MPI_IN_PLACE and MPI_BOTTOM, paced. An Open MPI 6 built without TS 29113 passes plain
 * addresses to the same names and exports mpi_alltoall_f08_ instead:
 * asked once.
 */
static pthread_once_t ts_once = PTHREAD_ONCE_INIT;
static bool ts_descriptors;

static void find_ts(void)
{
	ts_descriptors = host->find("mpi_alltoall_f08ts_") != NULL;
}

/* TS 29113's CFI_is_contiguous, which is libgfortran's and not linked here. */
static bool cfi_contiguous(const CFI_cdesc_t *d)
{
	CFI_index_t stride = (CFI_index_t)d->elem_len;
	int i;

	for (i = 0; i < d->rank; i++) {
		if (d->dim[i].extent == -1 && i == d->rank - 1)
			return true;	/* assumed size: contiguous by definition */
		if (d->dim[i].extent > 1 && d->dim[i].sm != stride)
			return false;
		stride *= d->dim[i].extent;
	}
	return true;
}

/* The memory one buffer argument of a wrapper names; false where it is not contiguous. */
static bool wrapper_buffer(void *arg, void **mem)
{
	const CFI_cdesc_t *d = arg;

	pthread_once(&ts_once, find_ts);
	if (!ts_descriptors) {
		*mem = arg;
		return true;
	}
	*mem = d->base_addr;
	return d->rank == 0 || cfi_contiguous(d);
}

/* Both buffers' memory, and whether the scheme can take the call with them. */
static bool wrapper_buffers(void *x1, void *x2, void **sb, void **rb)
{
	bool plain1 = wrapper_buffer(x1, sb), plain2 = wrapper_buffer(x2, rb);

	*sb = c_buffer(*sb), *rb = c_buffer(*rb);
	return plain1 && plain2;
}

/*
 * A call handed to the wrapper still joins the ranks' agreement on the
 * communicator, as the C entry does: the others may be pacing theirs. Its
 * route is the verdict, or NONCONTIGUOUS when the ranks agreed to pace.
 */
static enum route fortran_agree(MPI_Fint *comm)
{
	enum ibnet_a2a_verdict v = host->agree(handle_of(PMPI_Comm_f2c(*comm)));

	return v == IBNET_A2A_AGREED ? NONCONTIGUOUS : verdict_route(v);
}

EXPORT void ibnet_a2a_f08w_alltoall(void *x1, MPI_Fint *sc, MPI_Fint *st, void *x2, MPI_Fint *rc,
				    MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *ierr)
{
	void *sb, *rb;

	if (wrapper_buffers(x1, x2, &sb, &rb)) {
		int err = ibnet_a2a_alltoall(sb, *sc, PMPI_Type_f2c(*st), rb, *rc,
					     PMPI_Type_f2c(*rt), PMPI_Comm_f2c(*comm));

		if (ierr)
			*ierr = err;
		return;
	}
	count(ALLTOALL, fortran_agree(comm));
	((f_alltoall_fn)mpis_own("ompi_alltoall_wrapper_f08"))(x1, sc, st, x2, rc, rt, comm, ierr);
}

EXPORT void ibnet_a2a_f08w_alltoallv(void *x1, MPI_Fint *sc, MPI_Fint *sd, MPI_Fint *st, void *x2,
				     MPI_Fint *rc, MPI_Fint *rd, MPI_Fint *rt, MPI_Fint *comm,
				     MPI_Fint *ierr)
{
	void *sb, *rb;

	if (wrapper_buffers(x1, x2, &sb, &rb)) {
		int err = ibnet_a2a_alltoallv(sb, sc, sd, PMPI_Type_f2c(*st), rb, rc, rd,
					      PMPI_Type_f2c(*rt), PMPI_Comm_f2c(*comm));

		if (ierr)
			*ierr = err;
		return;
	}
	count(ALLTOALLV, fortran_agree(comm));
	((f_alltoallv_fn)mpis_own("ompi_alltoallv_wrapper_f08"))(x1, sc, sd, st, x2, rc, rd, rt, comm,
								 ierr);
}

/* Non-blocking: the descriptors go through untouched, as with use mpi. */
EXPORT void ibnet_a2a_f08w_ialltoall(void *x1, MPI_Fint *sc, MPI_Fint *st, void *x2, MPI_Fint *rc,
				     MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr)
{
	f_ialltoall("ompi_ialltoall_wrapper_f08", x1, sc, st, x2, rc, rt, comm, req, ierr);
}

EXPORT void ibnet_a2a_f08w_ialltoallv(void *x1, MPI_Fint *sc, MPI_Fint *sd, MPI_Fint *st,
				      void *x2, MPI_Fint *rc, MPI_Fint *rd, MPI_Fint *rt,
				      MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr)
{
	f_ialltoallv("ompi_ialltoallv_wrapper_f08", x1, sc, sd, st, x2, rc, rd, rt, comm, req, ierr);
}
#endif
#endif
