/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * model_waitsome.c - the paced library's PMPI_Waitsome under the model,
 * linked in its place with -Wl,--wrap=PMPI_Waitsome (build.mk): the
 * library's source is not touched.
 *
 * Why: SimGrid 3.32's Request::waitsome is a waitany and then a test of
 * every other request, each test one simulated call (a switch to SimGrid's
 * maestro and back). The paced scheme waits on as many requests as it has
 * peers in flight, so at 256 x 1 a call cost about 16 million of them and
 * the model did not end 2 calls in 600 s. This one waits with one waitany
 * and then takes what else has finished with testany, one simulated call
 * each, until none has: the same requests in the same (index) order, in
 * one simulated call per finished request plus one.
 *
 * MODEL_POLL_US (default 0): simulated time charged once per return, one
 * progress poll of a real MPI's Waitsome when it wakes with what finished
 * (devel/smpi-model/cpu-cost measured 2.12 us for an MPI_Test that finds
 * nothing on the test cluster). SMPI's own smpi/test charges every request
 * a Waitsome tests instead, which is why run sets it to 0.
 */
#include <stdlib.h>

#include <mpi.h>
#include <smpi/smpi.h>

int __wrap_PMPI_Waitsome(int n, MPI_Request *req, int *outcount, int *indices,
			 MPI_Status *status);

/* The poll's cost in seconds, read once (every rank reads the same). */
static double poll_seconds(void)
{
	static double s = -1;
	const char *v;

	if (s < 0) {
		v = getenv("MODEL_POLL_US");
		s = v && *v ? atof(v) * 1e-6 : 0;
		if (s < 0)
			s = 0;
	}
	return s;
}

int __wrap_PMPI_Waitsome(int n, MPI_Request *req, int *outcount, int *indices,
			 MPI_Status *status)
{
	int i, flag, rc;
	MPI_Status *st = status == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &status[0];

	*outcount = 0;
	rc = PMPI_Waitany(n, req, &i, st);
	if (rc != MPI_SUCCESS)
		return rc;
	if (i == MPI_UNDEFINED) {
		*outcount = MPI_UNDEFINED;	/* no active request, as MPI says */
		return MPI_SUCCESS;
	}
	indices[(*outcount)++] = i;
	while (*outcount < n) {
		st = status == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &status[*outcount];
		rc = PMPI_Testany(n, req, &i, &flag, st);
		if (rc != MPI_SUCCESS)
			return rc;
		if (!flag || i == MPI_UNDEFINED)
			break;
		indices[(*outcount)++] = i;
	}
	if (poll_seconds() > 0)
		smpi_execute(poll_seconds());
	return MPI_SUCCESS;
}
