/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_env_mpi.h - each MPI library's variables, a part of a step's plan
 * (ibnet_planner.h lists every part, in order).
 */
#ifndef IBNET_ENV_MPI_H
#define IBNET_ENV_MPI_H

#include "ibnet_planner.h"

void plan_mpi_vars(struct planner *pl, const struct ibnet_config *cfg,
		   const struct ibnet_job *job, enum ibnet_a2a_scheme scheme);

#endif
