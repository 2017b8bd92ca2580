/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_rule.h - how a node name becomes its IB host name.
 *
 * A rule is exactly one of
 *   s/REGEX/REPLACEMENT/   POSIX extended regex on the node name, the first
 *                          match replaced; \1..\9 in the replacement name
 *                          groups, \\ is a backslash, \/ a slash.
 *   file:PATH              a table, one "NODENAME IBNAME" pair a line,
 *                          '#' starts a comment.
 * A name the rule does not match (or the table does not list) is an
 * error: a job on the wrong network is worse than a job refused.
 *
 * This is the only implementation: the gaussian-ib module, the g16 wrapper
 * and gaussian-ib-input ask ibnet-hosts. tests/vectors/hostname-rules.tsv
 * holds the vectors it must pass.
 */
#ifndef IBNET_RULE_H
#define IBNET_RULE_H

#include "ibnet_util.h"

/* The rule used when the admin sets none: node7 -> node7-ib. */
#define IBNET_RULE_DEFAULT "s/$/-ib/"

struct ibnet_rule;

/* Parse (and for file: rules, read) a rule. NULL on error. */
struct ibnet_rule *ibnet_rule_parse(const char *spec, struct ibnet_err *err);
void ibnet_rule_free(struct ibnet_rule *rule);
const char *ibnet_rule_spec(const struct ibnet_rule *rule);

/* The IB name of node (malloc'd), or NULL with err set. */
char *ibnet_rule_apply(const struct ibnet_rule *rule, const char *node,
		       struct ibnet_err *err);

/* Map every host of in to out through rule. */
int ibnet_rule_map(const struct ibnet_rule *rule, const struct ibnet_strvec *in,
		   struct ibnet_strvec *out, struct ibnet_err *err);

#endif
