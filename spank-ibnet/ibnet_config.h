/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_config.h - the transports, and the site's plugstack.conf arguments.
 *
 * Every value is checked here, once, at the edge; an unknown key or a bad
 * value is an error naming both, and the plugin refuses to run rather
 * than guess.
 */
#ifndef IBNET_CONFIG_H
#define IBNET_CONFIG_H

#include <stdbool.h>
#include <stdio.h>

#include "ibnet_rule.h"
#include "ibnet_util.h"
/* What the job's libraries read too (contract/). */
#include "ibnet_a2a_settings.h"
#include "ibnet_floor_settings.h"
#include "ibnet_job_vars.h"

/*
 * IBNET_NONE is the default: a job that asks for nothing gets nothing. It
 * is always allowed (a user can always decline), and the only transport a
 * step can fall back to without a user or admin choosing it.
 */
enum ibnet_transport {
	IBNET_NONE,
	IBNET_TCP,
	IBNET_IPOIB,
	IBNET_RSOCKET,
	IBNET_TRANSPORT_COUNT
};

#define IBNET_TRANSPORTS_EXPECTED "rsocket, ipoib, tcp or none"

/* The variable that asks for a transport, and later says which a step has. */
#define IBNET_TRANSPORT_ENV "SLURM_IBNET_TRANSPORT"

const char *ibnet_transport_name(enum ibnet_transport t);

/*
 * Does the transport need InfiniBand on the node (ib_iface=, IB host names)?
 * The one answer: the plugin records it for those that cannot ask (the
 * scheduler's job_submit.lua, the gaussian-ib module), as IBNET_NEEDS_IB_VAR.
 */
bool ibnet_transport_needs_ib(enum ibnet_transport t);

/*
 * Parse a transport name given by `source` (e.g. "--transport" or
 * "SLURM_IBNET_TRANSPORT"), which the error message names.
 */
int ibnet_transport_parse(const char *value, const char *source,
			  enum ibnet_transport *out, struct ibnet_err *err);

/* Default places of librspreload: Debian/Ubuntu, then RHEL family. */
#define IBNET_RSPRELOAD_SEARCH                                  \
	"/usr/lib/x86_64-linux-gnu/rsocket/librspreload.so",    \
	"/usr/lib/aarch64-linux-gnu/rsocket/librspreload.so",   \
	"/usr/lib64/rsocket/librspreload.so",                   \
	"/usr/lib/rsocket/librspreload.so"

#ifndef IBNET_RSGATE_DEFAULT
#define IBNET_RSGATE_DEFAULT "/usr/local/lib/spank-ibnet/libibnet-rsgate.so"
#endif

#ifndef IBNET_A2A_DEFAULT
#define IBNET_A2A_DEFAULT "/usr/local/lib/spank-ibnet/libibnet-alltoall.so"
#endif

#ifndef IBNET_BPF_FLOOR_DEFAULT
#define IBNET_BPF_FLOOR_DEFAULT "/usr/local/lib/spank-ibnet/ibnet_tcp_floor.bpf.o"
#endif

struct ibnet_config {
	enum ibnet_transport default_transport;
	bool allowed[IBNET_TRANSPORT_COUNT];
	char *rspreload;	/* admin's path; NULL: search IBNET_RSPRELOAD_SEARCH */
	char *rsgate;		/* our rsocket gate library */
	struct ibnet_rule *ib_rule;
	char *eth_iface;	/* comma list of names or fnmatch patterns, or "route" */
	char *ib_iface;
	/* Set by the admin: else the default (eth0, ib0) falls back to the
	 * interface of the route to the job's other nodes (ibnet_iface_route.h) */
	bool eth_iface_given, ib_iface_given;
	char *rsocket_programs;	/* comma list of fnmatch patterns */
	char *rdma_device;	/* e.g. mlx5_0:1; NULL: let the MPI choose */
	char *alltoall_lib;	/* the paced all-to-all preload; NULL: alltoall_lib=none */
	struct ibnet_a2a_settings a2a;	/* alltoall_window=, alltoall_credits= */
	/* alltoall_threshold=, per transport (none takes tcp's) */
	unsigned long a2a_threshold[IBNET_TRANSPORT_COUNT];
	/* tcp_rto_min=: the TCP retransmission floor a step gets when it asks
	 * (--tcp-rto-min, --ordered-alltoall), in microseconds; 0: off */
	unsigned long tcp_rto_min_us;
	/* tcp_rto_min_least=: the least floor a job may ask for (default 1 ms,
	 * the bound); below it the job is refused (ibnet_rto_check_least) */
	unsigned long tcp_rto_min_least_us;
	/* tcp_rto_bpf=: the BPF tier's object, for kernels without
	 * TCP_RTO_MIN_US; NULL: tcp_rto_bpf=none */
	char *tcp_rto_bpf;
	/* tcp_rto_min_transports=: steps on these get the floor unasked */
	bool tcp_rto_min_default[IBNET_TRANSPORT_COUNT];
};

/* Parse plugstack.conf arguments (argv[0..argc-1], each key=value). */
int ibnet_config_parse(struct ibnet_config *cfg, int argc, char **argv,
		       struct ibnet_err *err);
void ibnet_config_free(struct ibnet_config *cfg);

/*
 * Every key with the value a parsed configuration gives it, one key=value
 * line each, in the admin guide's order (ibnet-hosts --check).
 */
void ibnet_config_print(const struct ibnet_config *cfg, FILE *fp);

/*
 * One key over a parsed configuration, checked as in plugstack.conf (for
 * ibnet-hosts --rspreload, which overrides what the site's line says).
 */
int ibnet_config_override(struct ibnet_config *cfg, const char *key, const char *value,
			  struct ibnet_err *err);

/*
 * The site default, read on its own from plugstack.conf arguments that
 * failed to parse as a whole: a node with a broken configuration still
 * knows whether a job that asked for nothing may run untouched. Returns
 * 0 and sets *t (IBNET_NONE if the key is absent), or -1 if the key is
 * there but unreadable.
 */
int ibnet_config_default_transport(int argc, char **argv, enum ibnet_transport *t);

/* Refuse a transport the site does not allow, naming the allowed ones. */
int ibnet_transport_check_allowed(const struct ibnet_config *cfg,
				  enum ibnet_transport t, const char *source,
				  struct ibnet_err *err);

#endif
