/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_floor_tier.h - which way this node gives a step its TCP
 * retransmission floor: one floor, two tiers, chosen here only.
 *
 *   socket option   TCP_RTO_MIN_US on each socket, set by the job preload
 *                   (Linux 6.15 and later): the first choice, no privilege
 *   bpf             a sock_ops program on a cgroup holding the step's tasks
 *                   (Linux 5.10 to 6.14; ibnet_bpf_floor.h): where the
 *                   kernel lacks the option, the object loads and passes the
 *                   verifier, and Slurm's cgroup/v2 gives the step a cgroup
 *                   or a cgroup2 mount without controllers exists
 *   none            the step runs with Linux's 200 ms, and its log line says why
 */
#ifndef IBNET_FLOOR_TIER_H
#define IBNET_FLOOR_TIER_H

#include <stddef.h>

#include "ibnet_bpf_floor.h"

enum ibnet_floor_tier { IBNET_FLOOR_NONE, IBNET_FLOOR_SOCKOPT, IBNET_FLOOR_BPF };

/* "none", "socket option", "bpf": the words of the log line and ibnet-hosts. */
const char *ibnet_floor_tier_name(enum ibnet_floor_tier tier);

struct ibnet_floor_choice {
	enum ibnet_floor_tier tier;
	unsigned long floor_us;		/* what the step's sockets get; 0 with none */
	char why_not[512];		/* with none: why, for the log line */
};

/*
 * Choose the tier for a floor of want_us on this node. preload: the site
 * has the job preload (alltoall_lib), which sets the socket option; with
 * alltoall_lib=none the socket-option tier is skipped, said why. (A preload
 * the site set that is missing on a node is the caller's to say: the step
 * then gets no floor, named in its log line, so a broken install shows.) bpf_object is the
 * BPF tier's object (NULL: the site has the tier off). out->floor_us is the
 * floor as the node's kernel takes it (the BPF tier: whole jiffies, at
 * least 2).
 *
 * keep NULL: a check, as ibnet-hosts makes it: the object is loaded (the
 * verifier's answer) and closed again; nothing is made or attached.
 * keep set (the plugin, as root, at the step's start): the BPF tier is
 * started in *keep, attached to Slurm's step cgroup if this slurmstepd is in
 * one (cgroup/v2), else to a cgroup of ours named step_cgroup
 * (ibnet_bpf_floor_name), made after the node's stale cgroups of the
 * plugin's were swept (their names into swept, if not NULL). The caller
 * stops it at the step's end.
 */
void ibnet_floor_choose(unsigned long want_us, bool preload, const char *bpf_object,
			struct ibnet_bpf_floor *keep, const char *step_cgroup,
			struct ibnet_floor_choice *out, char *swept, size_t swept_len);

/*
 * The step's log line of what its sockets met, the same for both tiers:
 * "TCP retransmission floor 10000 us (bpf): 6 floors given, 20 retransmission
 * timeouts, 63 segments retransmitted".
 */
void ibnet_floor_counts_line(char *buf, size_t len, unsigned long floor_us,
			     enum ibnet_floor_tier tier, unsigned long long floored,
			     unsigned long long timeouts, unsigned long long retransmitted);

#endif
