/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_site.h - the site's own spank-ibnet line, read from plugstack.conf.
 *
 * ibnet-hosts --site, and through it the gaussian-ib module and
 * gaussian-ib-input, use the arguments the admin gave the plugin, so users
 * get the site's hostname rule, not a built-in default. Where plugstack.conf
 * is: $IBNET_PLUGSTACK_CONF, else slurm.conf's PlugStackConfig, else
 * plugstack.conf beside slurm.conf ($SLURM_CONF, else /etc/slurm/slurm.conf),
 * as Slurm finds it. "include" lines are followed as Slurm does (globs;
 * relative paths from the including file's directory), at most 8 deep.
 */
#ifndef IBNET_SITE_H
#define IBNET_SITE_H

#include "ibnet_job.h"
#include "ibnet_util.h"

/*
 * Fill args with the arguments of the first "required" or "optional" line
 * whose plugin is spank_ibnet.so, and *from (malloc'd) with the file that
 * holds it. -1 with err set when no file loads the plugin or one cannot be
 * read.
 */
int ibnet_site_args(ibnet_env_lookup_fn lookup, void *ctx, struct ibnet_strvec *args,
		    char **from, struct ibnet_err *err);

#endif
