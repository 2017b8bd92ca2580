/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * a2a_sessions.c - an MPI-4 sessions program: it never calls MPI_Init, so
 * MPI_COMM_WORLD and MPI_COMM_SELF do not exist for it. It makes its
 * communicator from the "mpi://WORLD" process set, and checks MPI_Alltoall
 * and MPI_Alltoallv on it (what a preload may replace) against
 * PMPI_Alltoall/v (the library's own), byte for byte.
 *
 *   a2a_sessions BYTES_PER_PAIR CALLS
 *
 * Prints "SESSIONS ranks=N calls=C bad=B" on the first rank; exits 1 if any
 * byte differs. An MPI without sessions (before MPI 4.0; Open MPI has them
 * from 5.0, whose mpi.h still says 3.1) prints "SESSIONS unsupported (MPI
 * x.y)" and exits 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if MPI_VERSION < 4 && !(defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
int main(void)
{
	printf("SESSIONS unsupported (MPI %d.%d)\n", MPI_VERSION, MPI_SUBVERSION);
	return 0;
}
#else
static void die(const char *what, int rc)
{
	fprintf(stderr, "a2a_sessions: %s failed (%d)\n", what, rc);
	exit(2);
}

int main(int argc, char **argv)
{
	MPI_Session session;
	MPI_Group group;
	MPI_Comm comm;
	int rank, size, calls, c, r, rc, bad = 0;
	long bytes;
	unsigned char *send, *mine, *theirs;
	int *counts, *displs;

	if (argc != 3) {
		fprintf(stderr, "usage: a2a_sessions BYTES_PER_PAIR CALLS\n");
		return 2;
	}
	bytes = atol(argv[1]);
	calls = atoi(argv[2]);
	if ((rc = MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session)) != MPI_SUCCESS)
		die("MPI_Session_init", rc);
	if ((rc = MPI_Group_from_session_pset(session, "mpi://WORLD", &group)) != MPI_SUCCESS)
		die("MPI_Group_from_session_pset", rc);
	if ((rc = MPI_Comm_create_from_group(group, "org.spank-ibnet.a2a_sessions", MPI_INFO_NULL,
					     MPI_ERRORS_RETURN, &comm)) != MPI_SUCCESS)
		die("MPI_Comm_create_from_group", rc);
	MPI_Group_free(&group);
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	send = malloc((size_t)size * (size_t)bytes);
	mine = malloc((size_t)size * (size_t)bytes);
	theirs = malloc((size_t)size * (size_t)bytes);
	counts = malloc(sizeof(int) * (size_t)size);
	displs = malloc(sizeof(int) * (size_t)size);
	if (!send || !mine || !theirs || !counts || !displs)
		die("malloc", 0);
	for (r = 0; r < size; r++) {
		counts[r] = (int)bytes;
		displs[r] = r * (int)bytes;
	}
	for (c = 0; c < calls; c++) {
		long i;

		for (i = 0; i < size * bytes; i++)
			send[i] = (unsigned char)(c * 7 + rank * 13 + i * 3);
		memset(mine, 0xa5, (size_t)size * (size_t)bytes);
		memset(theirs, 0x5a, (size_t)size * (size_t)bytes);
		if (c % 2 == 0) {
			if ((rc = MPI_Alltoall(send, (int)bytes, MPI_BYTE, mine, (int)bytes, MPI_BYTE,
					       comm)) != MPI_SUCCESS)
				die("MPI_Alltoall", rc);
			if ((rc = PMPI_Alltoall(send, (int)bytes, MPI_BYTE, theirs, (int)bytes, MPI_BYTE,
						comm)) != MPI_SUCCESS)
				die("PMPI_Alltoall", rc);
		} else {
			if ((rc = MPI_Alltoallv(send, counts, displs, MPI_BYTE, mine, counts, displs,
						MPI_BYTE, comm)) != MPI_SUCCESS)
				die("MPI_Alltoallv", rc);
			if ((rc = PMPI_Alltoallv(send, counts, displs, MPI_BYTE, theirs, counts, displs,
						 MPI_BYTE, comm)) != MPI_SUCCESS)
				die("PMPI_Alltoallv", rc);
		}
		if (memcmp(mine, theirs, (size_t)size * (size_t)bytes) != 0)
			bad++;
	}
	MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, comm);
	if (rank == 0)
		printf("SESSIONS ranks=%d calls=%d bad=%d\n", size, calls, bad);
	MPI_Comm_free(&comm);
	MPI_Session_finalize(&session);
	free(send), free(mine), free(theirs), free(counts), free(displs);
	return bad ? 1 : 0;
}
#endif
