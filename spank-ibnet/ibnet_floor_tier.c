/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_floor_tier.c - which tier gives this node's steps the floor
 * (ibnet_floor_tier.h).
 */
#include "ibnet_floor_tier.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ibnet_floor_settings.h"

const char *ibnet_floor_tier_name(enum ibnet_floor_tier tier)
{
	switch (tier) {
	case IBNET_FLOOR_SOCKOPT:
		return "socket option";
	case IBNET_FLOOR_BPF:
		return "bpf";
	default:
		return "none";
	}
}

#ifndef TCP_RTO_MIN_US
#define TCP_RTO_MIN_US 45	/* Linux 6.15; Debian 12's headers predate it */
#endif

/*
 * The socket-option tier on this node: a socket, TCP_RTO_MIN_US set to
 * want_us and read back (the kernel rounds to whole jiffies); 0 with the
 * value it took in *got_us, or -1 with why (no such option before 6.15).
 */
static int sockopt_tier(unsigned long want_us, unsigned long *got_us, char *why, size_t len)
{
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), v = (int)want_us, got = 0, e = 0;
	socklen_t glen = sizeof(got);
	bool set = false;

	*got_us = 0;
	if (s < 0) {
		snprintf(why, len, "cannot open a TCP socket to probe TCP_RTO_MIN_US: %m");
		return -1;
	}
	/*
	 * The kernel takes 2 jiffies to 200 ms and refuses less with EINVAL: a
	 * smaller value is raised, a millisecond at a time, to what it takes
	 * (8 ms at HZ=250, 20 ms at HZ=100; at most 200 tries of one call each).
	 */
	for (; v <= (int)IBNET_RTO_MIN_HIGH_US; v += 1000) {
		if (setsockopt(s, IPPROTO_TCP, TCP_RTO_MIN_US, &v, sizeof(v)) == 0) {
			set = true;
			break;
		}
		e = errno;
		if (e != EINVAL)
			break;
	}
	if (set && (getsockopt(s, IPPROTO_TCP, TCP_RTO_MIN_US, &got, &glen) < 0 || got <= 0))
		got = v;	/* set, but not read back: the value given */
	close(s);
	if (!set && (e == ENOPROTOOPT || e == EINVAL))
		snprintf(why, len, "this node's kernel has no TCP_RTO_MIN_US socket option "
			 "(Linux 6.15 or later)");
	else if (!set)
		snprintf(why, len, "the kernel refused TCP_RTO_MIN_US: %s", strerror(e));
	*got_us = set ? (unsigned long)got : 0;
	return set ? 0 : -1;
}

/*
 * The BPF tier: 0 with it checked (keep NULL) or started in keep, and the
 * floor as the kernel takes it in *got_us; -1 with why.
 */
static int bpf_tier(unsigned long want_us, const char *object, struct ibnet_bpf_floor *keep,
		    const char *step_cgroup, char *why, size_t wlen, char *swept, size_t swept_len,
		    unsigned long *got_us)
{
	struct ibnet_bpf_floor f;
	char mount[PATH_MAX], slurms[PATH_MAX], note[200];

	if (!object) {
		snprintf(why, wlen, "the site has the BPF tier off (tcp_rto_bpf=none)");
		return -1;
	}
	if (!ibnet_bpf_floor_built()) {	/* said before the mount search, which would not matter */
		snprintf(why, wlen, "this spank-ibnet was built without libbpf (its BPF tier)");
		return -1;
	}
	/* Slurm's own step cgroup first (cgroup/v2): there is nothing to move or make. */
	if (keep && ibnet_bpf_floor_find_slurm_step(slurms, sizeof(slurms)) == 0) {
		if (ibnet_bpf_floor_load(&f, object, want_us, why, wlen) < 0)
			return -1;
		if (ibnet_bpf_floor_attach_slurms(&f, slurms, why, wlen) < 0) {
			ibnet_bpf_floor_stop(&f, note, sizeof(note));
			return -1;
		}
		*got_us = f.floor_us;
		*keep = f;
		return 0;
	}
	/*
	 * A check outside a step (ibnet-hosts): where slurmd runs cgroup/v2, a
	 * step would be in Slurm's step cgroup (above), which the check cannot
	 * be in: the object is loaded (the verifier's answer) and that said.
	 */
	if (!keep && ibnet_bpf_floor_find_mount(mount, sizeof(mount), why, wlen) < 0) {
		if (ibnet_bpf_floor_find_slurm_scope(slurms, sizeof(slurms)) < 0)
			return -1;
		if (ibnet_bpf_floor_load(&f, object, want_us, why, wlen) < 0)
			return -1;
		*got_us = f.floor_us;
		ibnet_bpf_floor_stop(&f, note, sizeof(note));
		return 0;
	}
	if (keep && ibnet_bpf_floor_find_mount(mount, sizeof(mount), why, wlen) < 0)
		return -1;
	if (ibnet_bpf_floor_load(&f, object, want_us, why, wlen) < 0)
		return -1;
	*got_us = f.floor_us;
	if (!keep) {
		ibnet_bpf_floor_stop(&f, note, sizeof(note));
		return 0;
	}
	if (swept)
		ibnet_bpf_floor_sweep(mount, step_cgroup, swept, swept_len);
	if (ibnet_bpf_floor_attach(&f, mount, step_cgroup, why, wlen) < 0) {
		ibnet_bpf_floor_stop(&f, note, sizeof(note));
		return -1;
	}
	*keep = f;
	return 0;
}

void ibnet_floor_choose(unsigned long want_us, bool preload, const char *bpf_object,
			struct ibnet_bpf_floor *keep, const char *step_cgroup,
			struct ibnet_floor_choice *out, char *swept, size_t swept_len)
{
	char sockopt_why[200], bpf_why[300];

	memset(out, 0, sizeof(*out));
	if (swept && swept_len)
		swept[0] = '\0';
	/* The socket option is set by the job preload: the site has none, the BPF tier. */
	if (!preload)
		snprintf(sockopt_why, sizeof(sockopt_why), "the socket option is set by the job "
			 "preload, which the site has off (alltoall_lib=none)");
	else if (sockopt_tier(want_us, &out->floor_us, sockopt_why,
				       sizeof(sockopt_why)) == 0) {
		out->tier = IBNET_FLOOR_SOCKOPT;
		return;
	}
	if (bpf_tier(want_us, bpf_object, keep, step_cgroup, bpf_why, sizeof(bpf_why),
		     swept, swept_len, &out->floor_us) == 0) {
		out->tier = IBNET_FLOOR_BPF;
		return;
	}
	out->tier = IBNET_FLOOR_NONE;
	out->floor_us = 0;
	snprintf(out->why_not, sizeof(out->why_not), "%.180s, and no BPF tier: %.300s", sockopt_why, bpf_why);
}

void ibnet_floor_counts_line(char *buf, size_t len, unsigned long floor_us,
			     enum ibnet_floor_tier tier, unsigned long long floored,
			     unsigned long long timeouts, unsigned long long retransmitted)
{
	snprintf(buf, len, "TCP retransmission floor %lu us (%s): %llu floor%s given, %llu "
		 "retransmission timeout%s, %llu segment%s retransmitted", floor_us,
		 ibnet_floor_tier_name(tier), floored, floored == 1 ? "" : "s", timeouts,
		 timeouts == 1 ? "" : "s", retransmitted, retransmitted == 1 ? "" : "s");
}
