/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_env_alltoall.h - the job preload's parts of a step's plan
 * (ibnet_planner.h lists every part, in order): which all-to-all the step
 * gets, the TCP retransmission floor, the paced scheme's settings.
 */
#ifndef IBNET_ENV_ALLTOALL_H
#define IBNET_ENV_ALLTOALL_H

#include <stdbool.h>

#include "ibnet_planner.h"

enum ibnet_a2a_scheme plan_alltoall_scheme(struct planner *pl, const struct ibnet_config *cfg,
					   const struct ibnet_job *job);
int plan_rto_floor(struct planner *pl, const struct ibnet_config *cfg,
		   const struct ibnet_job *job, bool *floor, struct ibnet_err *err);
int plan_alltoall_settings(struct planner *pl, const struct ibnet_config *cfg,
			   const struct ibnet_job *job, struct ibnet_err *err);

#endif
