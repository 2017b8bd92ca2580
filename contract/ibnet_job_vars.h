/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_job_vars.h - what the job's own processes read from their
 * environment: the rsocket gate's variables and their default, how a
 * yes/no variable is read, and how a bad value is shown in a sentence.
 *
 * Header-only: the gate (rsocket-gate/rsocket_gate.c) and the job's preload
 * (alltoall/) link nothing of the plugin's, yet the plugin, ibnet-hosts and
 * the shell tools (which ask ibnet-hosts --probe) must agree with them. One
 * statement each, here.
 */
#ifndef IBNET_JOB_VARS_H
#define IBNET_JOB_VARS_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>

/* Comma-separated fnmatch patterns of the programs whose sockets become rsockets. */
#define IBNET_RSOCKET_PROGRAMS_VAR "SLURM_IBNET_RSOCKET_PROGRAMS"
/* Unless the admin widens it (rsocket_programs=): Gaussian's Linda executables. */
#define IBNET_RSOCKET_PROGRAMS_DEFAULT "*.exel"
/* On: the gate says on stderr what it chose for each program. */
#define IBNET_RSOCKET_DEBUG_VAR "SLURM_IBNET_RSOCKET_DEBUG"
/*
 * Whether the step's transport needs InfiniBand, "yes" or "no"; unset in a
 * step without a transport. The plugin answers (ibnet_transport_needs_ib)
 * so that the gaussian-ib module does not decide again; the scheduler's
 * job_submit.lua reads the same answer from the job control environment.
 */
#define IBNET_NEEDS_IB_VAR "SLURM_IBNET_NEEDS_INFINIBAND"
#define IBNET_NEEDS_IB_CONTROL "IBNET_NEEDS_INFINIBAND"
#define IBNET_NEEDS_IB_WORD(needs) ((needs) ? "yes" : "no")

/*
 * A yes/no variable (SLURM_IBNET_RSOCKET_DEBUG, SLURM_IBNET_ALLTOALL_REPORT):
 * unset, empty, 0, no, off and false (any case) are off; anything else is on.
 */
static inline bool ibnet_flag_on(const char *value)
{
	return value && *value && strcmp(value, "0") != 0 && strcasecmp(value, "no") != 0 &&
	       strcasecmp(value, "off") != 0 && strcasecmp(value, "false") != 0;
}

/*
 * A value for a sentence about it (a bad setting, a bad variable), in buf:
 * at most 40 characters, anything unprintable as '?', "..." if cut, so a
 * job's variable cannot write what it likes into a message or a log.
 */
#define IBNET_SHOWN_BUF 44
static inline const char *ibnet_value_shown(const char *value, char buf[IBNET_SHOWN_BUF])
{
	size_t i;

	for (i = 0; value && value[i] && i < IBNET_SHOWN_BUF - 4; i++)
		buf[i] = value[i] >= 0x20 && value[i] < 0x7f ? value[i] : '?';
	strcpy(buf + i, value && value[i] ? "..." : "");
	return buf;
}

#endif
