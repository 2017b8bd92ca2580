/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_probe.h - what this node has: librspreload, our gate, the job preload
 * and its per-MPI builds, interfaces.
 *
 * Run on the node where the job step starts (slurmstepd), so a job asking
 * for a network the node does not have fails with a sentence instead of
 * running silently on the wrong one.
 */
#ifndef IBNET_PROBE_H
#define IBNET_PROBE_H

#include "ibnet_config.h"
#include "ibnet_job.h"
#include "ibnet_util.h"

/*
 * The librspreload to preload: the admin's rspreload= if set (it must
 * exist), else the first of IBNET_RSPRELOAD_SEARCH that exists; either must
 * pass ibnet_probe_rspreload_calls. Returns a pointer into cfg or a static
 * string; NULL with err set if none.
 */
const char *ibnet_probe_rspreload(const struct ibnet_config *cfg, struct ibnet_err *err);

/*
 * 0 if the librspreload at `path` exports only calls the gate knows
 * (rspreload_calls.h), read from its ELF dynamic symbol table without
 * loading it. A newer librspreload exporting more would run its own code in
 * every program of the job, which is what the gate exists to prevent, so
 * the step is refused with the names.
 */
int ibnet_probe_rspreload_calls(const char *path, struct ibnet_err *err);

/* cfg->rsgate if it exists, else NULL with err set. */
const char *ibnet_probe_rsgate(const struct ibnet_config *cfg, struct ibnet_err *err);

/* Does the comma list name the item "route" (ibnet_iface_route.h)? */
bool ibnet_probe_lists_route(const char *list);

/*
 * The interface a transport uses on this node: the first entry of `list`
 * (eth_iface or ib_iface: names or fnmatch patterns, comma-separated) that
 * has an IPv4 or IPv6 address in this network namespace; for a pattern,
 * the first matching name in alphabetical order. Written to `found`.
 * getifaddrs and ioctl, not /sys, which may show another namespace.
 */
int ibnet_probe_iface(const char *list, const char *why, char found[IBNET_IFNAME_MAX],
		      struct ibnet_err *err);

/*
 * What keeps a file the plugin gives a job (a library, the BPF object) from
 * being used on this node: "not on this node", "not a plain file", "not
 * readable by every user"; NULL when nothing does.
 */
const char *ibnet_probe_file_problem(const char *path);

/* The job preload, cfg->alltoall_lib, if every user can read it here; else NULL. */
const char *ibnet_probe_alltoall(const struct ibnet_config *cfg);

/*
 * Which per-MPI paced builds (ibnet_a2a_builds) are beside the dispatcher
 * at alltoall_path, each taken only as a plain file every user can read,
 * as the job's loader needs it.
 */
void ibnet_probe_paced_builds(const char *alltoall_path, bool have[IBNET_A2A_ABI_COUNT]);

/*
 * What they mean, for the step's log line and ibnet-hosts --probe:
 * "paced builds: ompi, mpich", "paced builds: ompi (libibnet-a2a-mpich.so
 * missing: ...)" or "no paced build on this node: ...". None is a refusal:
 * the dispatcher hands those calls to the MPI's own. Returns buf.
 */
char *ibnet_probe_paced_builds_describe(const bool have[IBNET_A2A_ABI_COUNT], char *buf,
					size_t len);

/*
 * An interface's rate in Mbit/s as the kernel reports it
 * (/sys/class/net/IFACE/speed): 0 where it says nothing (-1, as virtual
 * and down links do), cannot be read, or is a veth's fixed 10000 (a
 * container's interface, or a network namespace's: no link's rate). The
 * paced all-to-all's window stops growing where the node receives at half
 * this rate (alltoall/ibnet_a2a_window.h).
 */
#define IBNET_VETH_MBIT 10000ul
unsigned long ibnet_probe_link_mbit(const char *iface);

/*
 * Everything a step needs on this node, filled into job: the job preload
 * (paced all-to-all, TCP floor) where the step wants it and the node has
 * it, for a paced step its per-MPI builds, the floor the kernel takes, the interface (from eth_iface for tcp,
 * ib_iface otherwise, into job->iface_found; skipped if job->iface is
 * already set), for a paced step its link's rate (job->link_mbit: the
 * transport's interface, else the first of eth_iface found; unknown is
 * not a refusal), and for rsocket librspreload and the gate. 0, or -1 with
 * err set.
 */
int ibnet_probe_job(const struct ibnet_config *cfg, struct ibnet_job *job, struct ibnet_err *err);

#endif
