/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_hostlist.h - expand Slurm hostlist expressions ("c1-[1-4,7]").
 *
 * Our own small expander, so the hostname rules and the ibnet-hosts tool
 * work without libslurm. It accepts what SLURM_JOB_NODELIST contains:
 * comma-separated items, each a name with zero or more bracketed range
 * lists ("node[001-010]", "c[1-2]-[1-4]"); zero padding follows the
 * lower bound as written.
 */
#ifndef IBNET_HOSTLIST_H
#define IBNET_HOSTLIST_H

#include "ibnet_util.h"

/* More hosts than this in one expression is a typo, not a cluster. */
#define IBNET_HOSTLIST_MAX (1u << 20)

/*
 * The most hosts a job's variables may name (SLURM_JOB_NODELIST, a
 * heterogeneous job's components together): Slurm's own limit for one range,
 * and 30 times the largest InfiniBand cluster. The job's variables are the
 * user's to set, so this bounds what slurmstepd spends on them.
 */
#define IBNET_JOB_HOSTS_MAX 65536u

/* Append the hosts of expr to out, in order. 0 on success. */
int ibnet_hostlist_expand(const char *expr, struct ibnet_strvec *out,
			  struct ibnet_err *err);
/* The same, refusing more than max hosts (the job's size, where it is known). */
int ibnet_hostlist_expand_max(const char *expr, unsigned long max, struct ibnet_strvec *out,
			      struct ibnet_err *err);

/*
 * One hostlist per line, as sinfo -h -o %N prints them (one per partition
 * state), made comma-separated items, in place; blank lines and the blanks
 * around each line go. A list with no newline is left exactly as given
 * (SLURM_JOB_NODELIST never has one), so a space inside a line is still
 * refused by the expander.
 */
void ibnet_hostlist_lines_to_items(char *s);

#endif
