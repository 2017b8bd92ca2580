/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_env_mpi.c - what each MPI library is told: its network per
 * transport (this file's table), and for a pairwise step its all-to-all
 * algorithm (the all-to-all's table, ibnet_a2a_mpi_choices).
 */
#include "ibnet_env_mpi.h"

#include <stdio.h>
#include <string.h>

#define T_TCP (1u << IBNET_TCP)
#define T_IPOIB (1u << IBNET_IPOIB)
#define T_RSOCKET (1u << IBNET_RSOCKET)
/* Every transport that names a network. */
#define T_NET (T_TCP | T_IPOIB | T_RSOCKET)

enum value_kind {
	V_LITERAL,	/* the literal below */
	V_IFACE,	/* the interface found on the node from eth_iface (tcp) or ib_iface */
	V_RDMA_DEVICE,	/* rdma_device as given (mlx5_0:1); skipped when unset */
	V_RDMA_HCA,	/* rdma_device without its port (mlx5_0); skipped when unset */
};

/*
 * What each MPI library is told, per transport. Every entry is set only
 * when the user has set neither it nor its synonym. Open MPI and MPICH
 * entries were checked against the installed libraries (ompi_info,
 * prte_info, mpivars); Intel MPI and MVAPICH2 entries come from their
 * documentation and are not tested here.
 *
 * For rsocket the RDMA fabric itself is left to each library's own
 * selection (UCX, OFI and verbs pick the HCA), unless the admin names
 * rdma_device; the TCP settings keep any socket fallback on the IB network.
 */
static const struct env_rule {
	const char *name;
	unsigned transports;
	enum value_kind kind;
	const char *literal;
	const char *synonym;	/* another name the MPI reads for the same setting */
} env_rules[] = {
	/* Open MPI 4.1: TCP BTL and runtime (oob) traffic. */
	{ "OMPI_MCA_btl_tcp_if_include", T_NET, V_IFACE, NULL, NULL },
	{ "OMPI_MCA_oob_tcp_if_include", T_NET, V_IFACE, NULL, NULL },
	/*
	 * Open MPI 5: its runtime is PRRTE, which reads its own prefix and
	 * ignores OMPI_MCA_oob_*. prte_if_include is the name; oob_tcp_if_include
	 * is its deprecated synonym, and setting both makes every mpirun print a
	 * deprecation warning (PRRTE 3.0.8): a user's own synonym stands alone.
	 */
	{ "PRTE_MCA_prte_if_include", T_NET, V_IFACE, NULL, "PRTE_MCA_oob_tcp_if_include" },
	/* MPICH 4 (ch4:ucx): UCX devices, Hydra's interface. */
	{ "UCX_NET_DEVICES", T_TCP | T_IPOIB, V_IFACE, NULL, NULL },
	{ "UCX_NET_DEVICES", T_RSOCKET, V_RDMA_DEVICE, NULL, NULL },
	{ "HYDRA_IFACE", T_NET, V_IFACE, NULL, NULL },
	/* Intel MPI 2019+ (not tested here): OFI over TCP, or its RDMA provider. */
	{ "I_MPI_FABRICS", T_NET, V_LITERAL, "shm:ofi", NULL },
	{ "I_MPI_OFI_PROVIDER", T_TCP | T_IPOIB, V_LITERAL, "tcp", NULL },
	{ "FI_TCP_IFACE", T_TCP | T_IPOIB, V_IFACE, NULL, NULL },
	{ "I_MPI_HYDRA_IFACE", T_NET, V_IFACE, NULL, NULL },
	/* MVAPICH2 (not tested here): verbs only, so only the HCA. */
	{ "MV2_IBA_HCA", T_RSOCKET, V_RDMA_HCA, NULL, NULL },
};

static const char *rule_value(const struct env_rule *r, const struct ibnet_config *cfg,
			      const struct ibnet_job *job, char *buf, size_t len)
{
	switch (r->kind) {
	case V_LITERAL:
		return r->literal;
	case V_IFACE:
		return job->iface;
	case V_RDMA_DEVICE:
		return cfg->rdma_device;
	case V_RDMA_HCA:
		if (!cfg->rdma_device)
			return NULL;
		snprintf(buf, len, "%.*s", (int)strcspn(cfg->rdma_device, ":,"), cfg->rdma_device);
		return buf;
	}
	return NULL;
}

static void set_unless_users(struct planner *pl, const char *name, const char *value)
{
	if (value && !planner_get(pl, name))
		planner_set_managed(pl, name, value);
}

void plan_mpi_vars(struct planner *pl, const struct ibnet_config *cfg,
		   const struct ibnet_job *job, enum ibnet_a2a_scheme scheme)
{
	unsigned tbit = 1u << job->transport;
	size_t i;

	for (i = 0; i < sizeof(env_rules) / sizeof(env_rules[0]); i++) {
		const struct env_rule *r = &env_rules[i];
		char buf[80], text[300];

		if (!(r->transports & tbit))
			continue;
		if (r->synonym && planner_get(pl, r->synonym)) {
			if (!planner_get(pl, r->name)) {
				snprintf(text, sizeof(text), "%s is set by the job: %s, its synonym, "
					 "is left unset", r->synonym, r->name);
				planner_note(pl, text);
			}
			continue;
		}
		set_unless_users(pl, r->name, rule_value(r, cfg, job, buf, sizeof(buf)));
	}
	if (scheme != IBNET_ALLTOALL_PAIRWISE)
		return;
	for (i = 0; ibnet_a2a_mpi_choices[i].mpi; i++) {
		const struct ibnet_a2a_mpi_choice *c = &ibnet_a2a_mpi_choices[i];

		if (c->companion)
			set_unless_users(pl, c->companion, c->companion_value);
		set_unless_users(pl, c->variable, c->pairwise);
	}
}
