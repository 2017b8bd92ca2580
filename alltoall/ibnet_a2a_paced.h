/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_paced.h - the paced build's C entry points (ibnet_a2a_paced.c),
 * which the Fortran bindings call too. ibnet_a2a_state.h lists the build's
 * parts, floor by floor. Internal: never installed as a header.
 */
#ifndef IBNET_A2A_PACED_H
#define IBNET_A2A_PACED_H

#include <mpi.h>

int ibnet_a2a_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		       int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int ibnet_a2a_alltoallv(const void *sendbuf, const int *sendcounts, const int *sdispls,
			MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
			const int *rdispls, MPI_Datatype recvtype, MPI_Comm comm);
int ibnet_a2a_alltoallw(const void *sendbuf, const int *sendcounts, const int *sdispls,
			const MPI_Datatype *sendtypes, void *recvbuf, const int *recvcounts,
			const int *rdispls, const MPI_Datatype *recvtypes, MPI_Comm comm);

#endif
