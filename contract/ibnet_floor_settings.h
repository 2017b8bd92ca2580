/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_floor_settings.h - the TCP retransmission floor's variables, bounds
 * and the parsing of its values, which the plugin (the option, the
 * config's tcp_rto_min=, the plan, the probe) and the job's preload (the
 * floor it sets on each socket) read alike. No Slurm, no MPI.
 */
#ifndef IBNET_FLOOR_SETTINGS_H
#define IBNET_FLOOR_SETTINGS_H

#include <stddef.h>

/*
 * The TCP retransmission floor (alltoall/ibnet_tcp_floor.c, in the job's
 * preload; or the BPF tier, spank-ibnet/ibnet_bpf_floor.c). A job asks with
 * --tcp-rto-min or SLURM_IBNET_TCP_RTO_MIN (10ms, 8000us, 10 meaning
 * milliseconds, or off); --ordered-alltoall implies the site's value. The plugin puts what the node's kernel accepted, in
 * microseconds, in SLURM_IBNET_TCP_RTO_MIN_US, which the preload reads.
 * Bounds: Linux takes 2 jiffies (8 ms at HZ=250) to 200 ms, its default;
 * the plugin's probe raises a smaller value to what the kernel takes
 * (spank-ibnet/ibnet_floor_tier.c), and the kernel rounds up to whole jiffies (10 ms
 * reads back as 12 ms at HZ=250). The default, 10 ms,
 * is from the bench (docs/benchmarks.md, "The retransmission floor").
 */
#define IBNET_RTO_ENV_ASK "SLURM_IBNET_TCP_RTO_MIN"
#define IBNET_RTO_ENV_US "SLURM_IBNET_TCP_RTO_MIN_US"
#define IBNET_RTO_MIN_DEFAULT_US 10000ul
#define IBNET_RTO_MIN_LOW_US 1000ul
#define IBNET_RTO_MIN_HIGH_US 200000ul

/*
 * SLURM_IBNET_TCP_RTO_SPREAD=off: every socket the preload floors gets the
 * floor itself, not one spread per socket over the floor to twice it
 * (contract/ibnet_tcp_floor_rule.h, issue 49). For measurements of the
 * spread, before and after, only: not a setting for sites or jobs, and the
 * BPF tier does not read it. Unset, or anything but ibnet_flag_on's off
 * words (0, no, off, false, empty): spread.
 */
#define IBNET_RTO_ENV_SPREAD "SLURM_IBNET_TCP_RTO_SPREAD"

/*
 * A floor as a user or admin writes it: "10ms", "10" (milliseconds),
 * "8000us" or "off" (*us = 0). On a bad value, writes a sentence naming
 * source and value into msg and returns -1.
 */
int ibnet_rto_parse(const char *value, const char *source, unsigned long *us, char *msg,
		    size_t msglen);

/*
 * SLURM_IBNET_TCP_RTO_MIN_US: plain microseconds within the bounds. On a
 * bad value, writes a sentence naming the variable and value into msg.
 */
int ibnet_rto_parse_us(const char *value, unsigned long *us, char *msg, size_t msglen);

#endif
