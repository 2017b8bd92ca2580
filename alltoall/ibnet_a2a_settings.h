/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_settings.h - the paced all-to-all's settings, read once here.
 *
 * The plugin reads them from plugstack.conf (alltoall_window=, ...) and
 * checks a job's own SLURM_IBNET_ALLTOALL_* with the same code; the library
 * reads the variables the plugin set, or the user's. No MPI, no Slurm.
 */
#ifndef IBNET_A2A_SETTINGS_H
#define IBNET_A2A_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Defaults, measured on the test cluster (docs/benchmarks.md, "Choosing the
 * window and the threshold"): one credit of 16 KiB in flight towards a
 * node's port; 32 KiB already overflowed the 24 KB port of gige-lossy.
 * The threshold counts the bytes one call makes converge on the busiest
 * node's port (bytes per pair x ranks on the node x ranks elsewhere): from
 * the window up, a port can overflow, so the scheme paces (0.5: before, it
 * counted bytes per pair and let 8 nodes x 12 KiB flood a 24 KB port). On
 * InfiniBand transports (IBNET_A2A_THRESHOLD_IB_DEFAULT), whose link layer
 * does not drop, 128 KiB: there pacing only pays where the MPI's own
 * algorithm is poor. On the bench's ipoib, 192 KiB and more converging
 * paced ran 0.54-0.88x Open MPI's time, 112 KiB 1.03x, and Quantum
 * ESPRESSO on 8 nodes (77 KiB) took 1.16x with the 0.4 value of 32 KiB.
 */
#define IBNET_A2A_WINDOW_DEFAULT (16ul * 1024)
#define IBNET_A2A_CREDITS_DEFAULT 1u
#define IBNET_A2A_THRESHOLD_DEFAULT (16ul * 1024)
#define IBNET_A2A_THRESHOLD_IB_DEFAULT (128ul * 1024)

/* Bytes per pair under which no call is paced (a guard for many ranks per
 * node, not measured here: ibnet_a2a_paced.c, fanin_route). */
#define IBNET_A2A_PAIR_MIN 1024ul

#define IBNET_A2A_WINDOW_MIN 1024ul
#define IBNET_A2A_WINDOW_MAX (64ul * 1024 * 1024)
#define IBNET_A2A_CREDITS_MAX 64u
#define IBNET_A2A_THRESHOLD_MAX (1024ul * 1024 * 1024)

struct ibnet_a2a_settings {
	unsigned long window;		/* bytes in flight towards one node */
	unsigned credits;		/* chunks of window/credits granted at once */
	unsigned long threshold;	/* fan-in bytes on a port below which MPI's own runs */
};

/* The variables a job sees (the plugin sets them; the user's value wins). */
#define IBNET_A2A_ENV_WINDOW "SLURM_IBNET_ALLTOALL_WINDOW"
#define IBNET_A2A_ENV_CREDITS "SLURM_IBNET_ALLTOALL_CREDITS"
#define IBNET_A2A_ENV_THRESHOLD "SLURM_IBNET_ALLTOALL_THRESHOLD"
/* "0": this run uses the MPI library's own all-to-all. */
#define IBNET_A2A_ENV_PACED "SLURM_IBNET_ALLTOALL_PACED"
/* "1": each process says at exit how many calls were paced or handed over. */
#define IBNET_A2A_ENV_REPORT "SLURM_IBNET_ALLTOALL_REPORT"

void ibnet_a2a_settings_default(struct ibnet_a2a_settings *s);

/*
 * Set one setting by its key ("window", "credits", "threshold") from text
 * such as "65536", "64k", "1m"; source names where the text came from
 * ("alltoall_window" or SLURM_IBNET_ALLTOALL_WINDOW). On a bad value, writes
 * a sentence naming source and value into msg and returns -1.
 */
int ibnet_a2a_setting_set(struct ibnet_a2a_settings *s, const char *key, const char *value,
			  const char *source, char *msg, size_t msglen);

/* The variable of a key ("window" -> SLURM_IBNET_ALLTOALL_WINDOW), or NULL. */
const char *ibnet_a2a_setting_env(const char *key);

extern const char *const ibnet_a2a_setting_keys[];	/* NULL-terminated */

/*
 * The MPI variables with which a user picks the MPI library's own all-to-all
 * algorithm (NULL-terminated). Any of them set: the user's choice wins, the
 * plugin does not preload the paced all-to-all and the library stands aside.
 */
extern const char *const ibnet_a2a_user_choice[];

/*
 * The TCP retransmission floor (ibnet_tcp_floor.c), which the same preload
 * carries. A job asks with --tcp-rto-min or SLURM_IBNET_TCP_RTO_MIN (10ms,
 * 8000us, 10 meaning milliseconds, or off); --ordered-alltoall implies the
 * site's value. The plugin puts what the node's kernel accepted, in
 * microseconds, in SLURM_IBNET_TCP_RTO_MIN_US, which the preload reads.
 * Bounds: Linux takes 2 jiffies (8 ms at HZ=250) to 200 ms, its default;
 * the plugin's probe raises a smaller value to what the kernel takes
 * (ibnet_probe_rto_floor), and the kernel rounds up to whole jiffies (10 ms
 * reads back as 12 ms at HZ=250). The default, 10 ms,
 * is from the bench (docs/benchmarks.md, "The retransmission floor").
 */
#define IBNET_RTO_ENV_ASK "SLURM_IBNET_TCP_RTO_MIN"
#define IBNET_RTO_ENV_US "SLURM_IBNET_TCP_RTO_MIN_US"
#define IBNET_RTO_MIN_DEFAULT_US 10000ul
#define IBNET_RTO_MIN_LOW_US 1000ul
#define IBNET_RTO_MIN_HIGH_US 200000ul

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
