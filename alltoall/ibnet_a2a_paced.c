/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_paced.c - a paced, node-aware all-to-all for one MPI ABI: its
 * C entry points, the top floor of the build (ibnet_a2a_state.h lists the
 * parts, floor by floor).
 *
 * Built twice, against Open MPI's and MPICH's mpi.h (libibnet-a2a-ompi.so,
 * libibnet-a2a-mpich.so), and loaded by the dispatcher (ibnet_a2a_dispatch.c)
 * into MPI programs only. Not linked against libmpi: its PMPI_* symbols are
 * the ones the program already loaded.
 *
 * The scheme itself is in ibnet_a2a_exchange.c. Anything it does not handle
 * is handed to the MPI library's own implementation (ibnet_a2a_route.c says
 * what and why).
 * A call of ours that fails is reported once, through the error handler the
 * user's communicator has at the call, and its code returned (report_failure()).
 */
#include <limits.h>
#include <stdlib.h>

#include "ibnet_a2a_paced.h"
#include "ibnet_a2a_route.h"
#include "ibnet_a2a_state.h"

static bool paced(enum route r)
{
	return r == PACED || r == PACED_NODES;
}

static int run_call(struct comm_info *ci, enum route route, const struct a2a_side *send,
		    const struct a2a_side *recv, MPI_Comm comm)
{
	int rc = run_paced(ci, route == PACED_NODES, send, recv);

	if (rc == MPI_SUCCESS)
		rc = choice_done(ci);
	if (rc == MPI_SUCCESS)
		rc = window_agree(ci);
	return rc == MPI_SUCCESS ? rc : report_failure(comm, rc);
}

/*
 * A call handed to the MPI's own, rc its code: one "within the window" is
 * watched for loss, one the route by measurement sent there is timed.
 */
static int unpaced_done(struct comm_info *ci, enum route route, MPI_Comm comm, int rc)
{
	if (rc != MPI_SUCCESS)
		return rc;
	if (route == OWN_ON_TRIAL || route == OWN_MEASURED)
		rc = choice_done(ci);
	else if (route == WITHIN_WINDOW)
		rc = window_watch(ci);
	else
		return rc;
	return rc == MPI_SUCCESS ? rc : report_failure(comm, rc);
}

EXPORT int ibnet_a2a_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			      void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	struct a2a_side send = { sendbuf, NULL, NULL, sendcount, sendtype, NULL };
	struct a2a_side recv = { recvbuf, NULL, NULL, recvcount, recvtype, NULL };
	enum route route;
	struct comm_info *ci;
	int rc;

	if ((rc = call_route(ALLTOALL, comm, &send, &recv, true, false, &route, &ci)))
		return rc;
	if (!paced(route))
		return unpaced_done(ci, route, comm, PMPI_Alltoall(sendbuf, sendcount, sendtype,
								   recvbuf, recvcount, recvtype, comm));
	return run_call(ci, route, &send, &recv, comm);
}

EXPORT int ibnet_a2a_alltoallv(const void *sendbuf, const int *sendcounts, const int *sdispls,
			       MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
			       const int *rdispls, MPI_Datatype recvtype, MPI_Comm comm)
{
	struct a2a_side send = { sendbuf, sendcounts, sdispls, 0, sendtype, NULL };
	struct a2a_side recv = { recvbuf, recvcounts, rdispls, 0, recvtype, NULL };
	enum route route;
	struct comm_info *ci;
	int rc;

	if ((rc = call_route(ALLTOALLV, comm, &send, &recv, false, false, &route, &ci)))
		return rc;
	if (!paced(route))
		return unpaced_done(ci, route, comm,
				    PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
						   recvcounts, rdispls, recvtype, comm));
	return run_call(ci, route, &send, &recv, comm);
}

/* MPI_Alltoallw: a datatype per block, displacements in bytes. */
EXPORT int ibnet_a2a_alltoallw(const void *sendbuf, const int *sendcounts, const int *sdispls,
			       const MPI_Datatype *sendtypes, void *recvbuf, const int *recvcounts,
			       const int *rdispls, const MPI_Datatype *recvtypes, MPI_Comm comm)
{
	struct a2a_side send = { sendbuf, sendcounts, sdispls, 0, MPI_DATATYPE_NULL, sendtypes };
	struct a2a_side recv = { recvbuf, recvcounts, rdispls, 0, MPI_DATATYPE_NULL, recvtypes };
	enum route route;
	struct comm_info *ci;
	int rc;

	if ((rc = call_route(ALLTOALLW, comm, &send, &recv, false, false, &route, &ci)))
		return rc;
	if (!paced(route))
		return unpaced_done(ci, route, comm,
				    PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
						   recvcounts, rdispls, recvtypes, comm));
	return run_call(ci, route, &send, &recv, comm);
}

#if MPI_VERSION >= 4
/*
 * The large-count forms (MPI 4.0: MPICH 4, Open MPI 6), what mpi4py 4 calls.
 * The scheme counts in int: a call whose counts and displacements all fit
 * is paced as its int form is (copied into int arrays); a rank with one
 * that does not makes every rank hand the call to the MPI's own _c routine
 * (route LARGE_COUNT), agreed in the call's one allreduce.
 */
static bool fits(MPI_Count c)
{
	return c >= 0 && c <= INT_MAX;
}

/* Copy n counts (and, if any, displacements) into int arrays; false: one does not fit. */
static bool narrow(int n, const MPI_Count *c, const MPI_Aint *d, int **ci, int **di)
{
	int i;
	bool ok = true;

	*ci = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
	*di = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
	if (!*ci || !*di)
		return false;
	for (i = 0; i < n && c; i++) {
		ok = ok && fits(c[i]) && d[i] >= 0 && d[i] <= INT_MAX;
		(*ci)[i] = fits(c[i]) ? (int)c[i] : 0;
		(*di)[i] = d[i] >= 0 && d[i] <= INT_MAX ? (int)d[i] : 0;
	}
	return ok;
}

EXPORT int ibnet_a2a_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
				void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
				MPI_Comm comm)
{
	struct a2a_side send = { sendbuf, NULL, NULL, fits(sendcount) ? (int)sendcount : 0,
				 sendtype, NULL };
	struct a2a_side recv = { recvbuf, NULL, NULL, fits(recvcount) ? (int)recvcount : 0,
				 recvtype, NULL };
	bool wide = !fits(recvcount) || (sendbuf != MPI_IN_PLACE && !fits(sendcount));
	enum route route;
	struct comm_info *ci;
	int rc;

	if ((rc = call_route(ALLTOALL_C, comm, &send, &recv, true, wide, &route, &ci)))
		return rc;
	if (!paced(route))
		return unpaced_done(ci, route, comm,
				    PMPI_Alltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount,
						    recvtype, comm));
	return run_call(ci, route, &send, &recv, comm);
}

static int vector_c(enum kind k, const void *sendbuf, const MPI_Count *sc, const MPI_Aint *sd,
		    MPI_Datatype st, const MPI_Datatype *sts, void *recvbuf, const MPI_Count *rc_,
		    const MPI_Aint *rd, MPI_Datatype rt, const MPI_Datatype *rts, MPI_Comm comm,
		    enum route *route, struct comm_info **ci_out)
{
	int size = 0, *sci = NULL, *sdi = NULL, *rci = NULL, *rdi = NULL, rc;
	bool in_place = sendbuf == MPI_IN_PLACE, ok;
	struct comm_info *ci = NULL;

	PMPI_Comm_size(comm, &size);
	ok = narrow(size, in_place ? NULL : sc, sd, &sci, &sdi);
	ok = narrow(size, rc_, rd, &rci, &rdi) && ok;
	if (!sci || !sdi || !rci || !rdi) {
		free(sci), free(sdi), free(rci), free(rdi);
		return report_failure(comm, MPI_ERR_NO_MEM);
	}
	{
		struct a2a_side send = { sendbuf, sci, sdi, 0, st, sts };
		struct a2a_side recv = { recvbuf, rci, rdi, 0, rt, rts };

		rc = call_route(k, comm, &send, &recv, false, !ok, route, &ci);
		if (rc == MPI_SUCCESS && paced(*route))
			rc = run_call(ci, *route, &send, &recv, comm);
	}
	free(sci), free(sdi), free(rci), free(rdi);
	*ci_out = ci;
	return rc;
}

EXPORT int ibnet_a2a_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
				 const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
				 const MPI_Count recvcounts[], const MPI_Aint rdispls[],
				 MPI_Datatype recvtype, MPI_Comm comm)
{
	enum route route = OFF;
	struct comm_info *ci;
	int rc = vector_c(ALLTOALLV_C, sendbuf, sendcounts, sdispls, sendtype, NULL, recvbuf,
			  recvcounts, rdispls, recvtype, NULL, comm, &route, &ci);

	if (rc != MPI_SUCCESS || paced(route))
		return rc;
	return unpaced_done(ci, route, comm,
			    PMPI_Alltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
					     recvcounts, rdispls, recvtype, comm));
}

EXPORT int ibnet_a2a_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
				 const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
				 void *recvbuf, const MPI_Count recvcounts[],
				 const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
				 MPI_Comm comm)
{
	enum route route = OFF;
	struct comm_info *ci;
	int rc = vector_c(ALLTOALLW_C, sendbuf, sendcounts, sdispls, MPI_DATATYPE_NULL, sendtypes,
			  recvbuf, recvcounts, rdispls, MPI_DATATYPE_NULL, recvtypes, comm, &route,
			  &ci);

	if (rc != MPI_SUCCESS || paced(route))
		return rc;
	return unpaced_done(ci, route, comm,
			    PMPI_Alltoallw_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
					     recvcounts, rdispls, recvtypes, comm));
}
#endif

EXPORT int ibnet_a2a_ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			       void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
			       MPI_Request *request)
{
	count(IALLTOALL, nonblocking_route());
	return PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
			      request);
}

EXPORT int ibnet_a2a_ialltoallv(const void *sendbuf, const int *sendcounts, const int *sdispls,
				MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
				const int *rdispls, MPI_Datatype recvtype, MPI_Comm comm,
				MPI_Request *request)
{
	count(IALLTOALLV, nonblocking_route());
	return PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
			       rdispls, recvtype, comm, request);
}
