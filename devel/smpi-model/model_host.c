/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * model_host.c - what the model at scale puts around the paced library's
 * own code (alltoall/, compiled unchanged with smpicc) in place of a real
 * node: the dispatcher's help (ibnet_a2a_host.h), the node's loss feed
 * (ibnet_a2a_netstat.h: drops of the simulated switch, ns3_ports.cc), and
 * the switch's set-up before the program's first message.
 *
 * SMPI's MPI_ symbols are weak and its PMPI_ strong, so the library's
 * MPI_Alltoall and this MPI_Init override SMPI's, as an LD_PRELOAD does on
 * a real node. Every rank runs in one process; SMPI gives each its own
 * copy of the program's globals (privatisation), so the library's
 * per-process state is per rank, as on a node.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "ibnet_a2a_host.h"
#include "ibnet_a2a_netstat.h"

/* ns3_ports.cc (one copy for the whole simulation). */
int model_ports_setup(unsigned long port_bytes, unsigned long nic_bytes, const char *nic_rate,
		      unsigned long burst_bytes);
unsigned long model_drops_from(unsigned node);
unsigned long model_drops_total(void);
unsigned long model_timeouts_total(void);
void model_ports_debug(void);

/* The paced build's entry, normally called by the dispatcher after dlopen.
 * Its report comes in PMPI_Finalize, as on a node (MPI_COMM_SELF's delete
 * callback, which SMPI runs too). */
void ibnet_a2a_attach(const struct ibnet_a2a_host *h);

/* Nothing in the model is looked up by name: a C program's calls only. */
static void *model_find(const char *name)
{
	(void)name;
	return NULL;
}

static void *model_own(const char *name)
{
	fprintf(stderr, "model: %s asked of the host; the model serves C programs only\n", name);
	abort();
}

/* One MPI, one build, one environment for every rank: always alike. */
static enum ibnet_a2a_verdict model_agree(uintptr_t comm)
{
	(void)comm;
	return IBNET_A2A_AGREED;
}

static const struct ibnet_a2a_host model = { model_own, model_find, model_agree };

/* This rank's node: the platform names its hosts n0, n1, ... in the order
 * ns-3 numbers them (devel/smpi-model/platform). */
static unsigned my_node(void)
{
	char name[MPI_MAX_PROCESSOR_NAME];
	int len = 0;

	PMPI_Get_processor_name(name, &len);
	return name[0] == 'n' ? (unsigned)strtoul(name + 1, NULL, 10) : 0;
}

static int flow_model(void)
{
	const char *net = getenv("MODEL_NET");

	return net && strcmp(net, "flow") == 0;
}

unsigned long node_retransmits(void)
{
	return flow_model() ? 0 : model_drops_from(my_node());
}

/* What the dispatcher's MPI_Alltoall and _v do on a node: the paced build's. */
int ibnet_a2a_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		       int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int ibnet_a2a_alltoallv(const void *sendbuf, const int *sendcounts, const int *sdispls,
			MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
			const int *rdispls, MPI_Datatype recvtype, MPI_Comm comm);

/*
 * MODEL_JITTER_US=J (an experiment; off unless set): each rank starts each
 * all-to-all a random 0 to J us late (its own stream), as a real node's
 * CPUs stagger a call's start. The model otherwise starts every rank at
 * once, so every sender's burst meets every other's at the ports.
 */
int smpi_usleep(useconds_t usecs);	/* SMPI's, simulated time (smpi_helpers_internal.h) */

static void start_late(void)
{
	static long most = -1;
	static unsigned seed;

	if (most < 0) {
		const char *v = getenv("MODEL_JITTER_US");
		int rank = 0;

		most = v && *v ? atol(v) : 0;
		PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
		seed = (unsigned)rank + 1;
	}
	if (most > 0)
		smpi_usleep((useconds_t)(rand_r(&seed) % (unsigned long)(most + 1)));
}

/* MODEL_TRACE (model_trace.h): each rank's all-to-all, its bytes per
 * pair and its simulated start and end. */
FILE *model_trace_file(void);

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		 int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	FILE *trace = model_trace_file();
	double t0 = trace ? PMPI_Wtime() : 0;
	int rc, rank = 0, size = 0;

	start_late();
	rc = ibnet_a2a_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
	if (trace) {
		PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
		PMPI_Type_size(sendtype, &size);
		fprintf(trace, "C %d %ld %.9f %.9f\n", rank, (long)sendcount * size, t0, PMPI_Wtime());
	}
	return rc;
}

int MPI_Alltoallv(const void *sendbuf, const int *sendcounts, const int *sdispls,
		  MPI_Datatype sendtype, void *recvbuf, const int *recvcounts, const int *rdispls,
		  MPI_Datatype recvtype, MPI_Comm comm)
{
	start_late();
	return ibnet_a2a_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
				   rdispls, recvtype, comm);
}

static unsigned long env_bytes(const char *name, unsigned long otherwise)
{
	const char *v = getenv(name);

	return v && *v ? strtoul(v, NULL, 10) : otherwise;
}

int MPI_Init(int *argc, char ***argv)
{
	int rc = PMPI_Init(argc, argv), rank = 0;

	if (rc != MPI_SUCCESS)
		return rc;
	PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
	/* SimGrid's flow model (MODEL_NET=flow): no packets, no ports, no loss. */
	if (rank == 0 && !flow_model() && model_ports_setup(env_bytes("MODEL_PORT_BYTES", 24000),
					   env_bytes("MODEL_NIC_BYTES", 64UL << 20),
					   getenv("MODEL_NIC_RATE"),
					   env_bytes("MODEL_BURST", 0)) < 2) {
		fprintf(stderr, "model: the platform is not a star of single-link hosts\n");
		PMPI_Abort(MPI_COMM_WORLD, 2);
	}
	ibnet_a2a_attach(&model);
	return PMPI_Barrier(MPI_COMM_WORLD);
}

int MPI_Finalize(void)
{
	int rank = 0;

	PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
	PMPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0 && !flow_model())
		printf("MODEL drops=%lu timeouts=%lu\n", model_drops_total(), model_timeouts_total());
	if (rank == 0)
		model_ports_debug();
	if (rank == 0 && model_trace_file())
		fflush(model_trace_file());
	return PMPI_Finalize();
}
