/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_job_vars.h - what the job's own processes read from their
 * environment: the rsocket gate's variables and their default, and how a
 * yes/no variable is read.
 *
 * Header-only: the gate (rsocket_gate.c) and the job's preload link nothing
 * of the plugin's, yet the plugin, ibnet-hosts and the shell tools (which
 * ask ibnet-hosts --probe) must agree with them. One statement each, here.
 */
#ifndef IBNET_JOB_VARS_H
#define IBNET_JOB_VARS_H

#include <stdbool.h>
#include <string.h>
#include <strings.h>

/* Comma-separated fnmatch patterns of the programs whose sockets become rsockets. */
#define IBNET_RSOCKET_PROGRAMS_VAR "SLURM_IBNET_RSOCKET_PROGRAMS"
/* Unless the admin widens it (rsocket_programs=): Gaussian's Linda executables. */
#define IBNET_RSOCKET_PROGRAMS_DEFAULT "*.exel"
/* On: the gate says on stderr what it chose for each program. */
#define IBNET_RSOCKET_DEBUG_VAR "SLURM_IBNET_RSOCKET_DEBUG"

/*
 * A yes/no variable (SLURM_IBNET_RSOCKET_DEBUG, SLURM_IBNET_ALLTOALL_REPORT):
 * unset, empty, 0, no, off and false (any case) are off; anything else is on.
 */
static inline bool ibnet_flag_on(const char *value)
{
	return value && *value && strcmp(value, "0") != 0 && strcasecmp(value, "no") != 0 &&
	       strcasecmp(value, "off") != 0 && strcasecmp(value, "false") != 0;
}

#endif
