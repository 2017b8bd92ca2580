/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_gaussian.h - Gaussian's Linda worker lists (GAUSS_WDEF, %LindaWorkers)
 * under IB names.
 *
 * Link 0 lines beat environment variables in Gaussian, so a
 * "%LindaWorkers=c1-1,c1-2:2" line in an input would defeat the IB worker
 * list the plugin puts in GAUSS_WDEF. gaussian-ib-input (ibnet-hosts
 * --linda-input) rewrites each such line with the GAUSS_WDEF grammar of
 * ibnet_wdef_rewrite, the only one; every other byte passes through.
 */
#ifndef IBNET_GAUSSIAN_H
#define IBNET_GAUSSIAN_H

#include <stdbool.h>
#include <stddef.h>

#include "ibnet_rule.h"
#include "ibnet_util.h"

/*
 * Rewrite a Linda worker list ("c1-1:2,c1-2") to IB names, keeping ":N".
 * Hosts already equal to an IB name of one of ib_hosts are kept as they are.
 */
char *ibnet_wdef_rewrite(const struct ibnet_rule *rule, const char *wdef,
			 const struct ibnet_strvec *ib_hosts, struct ibnet_err *err);

/* Does the input hold a %LindaWorkers line (so the site's rule is needed)? */
bool ibnet_linda_input_has_workers(const char *in, size_t len);

/*
 * Append the input to out with every %LindaWorkers line (any case, any
 * blanks around '=', CRLF kept, blanks after the list dropped) rewritten
 * to IB names; ib_hosts are the job's IB names, kept as they are.
 * -1 with err naming the line on a bad list.
 */
int ibnet_linda_input_rewrite(const struct ibnet_rule *rule, const struct ibnet_strvec *ib_hosts,
			      const char *in, size_t len, struct ibnet_buf *out,
			      struct ibnet_err *err);

#endif
