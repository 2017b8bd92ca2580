/*
 * ibnet_probe.h - what this node has: librspreload, our gate, interfaces.
 *
 * Run on the node where the job step starts (slurmstepd), so a job asking
 * for a network the node does not have fails with a sentence instead of
 * running silently on the wrong one.
 */
#ifndef IBNET_PROBE_H
#define IBNET_PROBE_H

#include "ibnet_config.h"
#include "ibnet_util.h"

/*
 * The librspreload to preload: the admin's rspreload= if set (it must
 * exist), else the first of IBNET_RSPRELOAD_SEARCH that exists. Returns a
 * pointer into cfg or a static string; NULL with err set if none.
 */
const char *ibnet_probe_rspreload(const struct ibnet_config *cfg, struct ibnet_err *err);

/* cfg->rsgate if it exists, else NULL with err set. */
const char *ibnet_probe_rsgate(const struct ibnet_config *cfg, struct ibnet_err *err);

/*
 * 0 if interface `iface` has an IPv4 or IPv6 address in this network
 * namespace (getifaddrs, not /sys, which may show another namespace).
 */
int ibnet_probe_iface(const char *iface, const char *why, struct ibnet_err *err);

#endif
