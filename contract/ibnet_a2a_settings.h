/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_settings.h - the all-to-all's one table: its schemes, the MPI
 * variables with which a user picks an MPI's own algorithm, and the paced
 * scheme's settings with their variables and bounds, and the paced
 * scheme's build for each MPI ABI.
 *
 * The plugin's configuration (alltoall_window=, ...), its request
 * (SLURM_IBNET_ALLTOALL), its environment plan, its node probe, ibnet-hosts
 * and the job's libraries (the dispatcher, the paced scheme) read the
 * schemes, the per-MPI builds, the MPI variables, the settings' variables
 * and their bounds here; the config's key table (config_keys[] in
 * spank-ibnet/ibnet_config.c) points at ibnet_a2a_keys[] for the alltoall_*
 * keys, so their names are written only here. (The scheduler's record says
 * "ordered", a word of its own.) No MPI, no Slurm.
 */
#ifndef IBNET_A2A_SETTINGS_H
#define IBNET_A2A_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * The all-to-all a step asks for and gets. A step asks for DEFAULT (nothing),
 * PACED (--ordered-alltoall: the paced scheme where the node has it, else
 * each MPI's pairwise) or PAIRWISE (the MPI's own pairwise only); the plan
 * says which it got, in SLURM_IBNET_ALLTOALL.
 */
enum ibnet_a2a_scheme {
	IBNET_ALLTOALL_DEFAULT,
	IBNET_ALLTOALL_PACED,
	IBNET_ALLTOALL_PAIRWISE,
	IBNET_ALLTOALL_SCHEME_COUNT
};

/* The variable that asks, and later says, which scheme a step has. */
#define IBNET_A2A_ENV_SCHEME "SLURM_IBNET_ALLTOALL"

/* "default", "paced" or "pairwise": what SLURM_IBNET_ALLTOALL says a step got. */
const char *ibnet_a2a_scheme_name(enum ibnet_a2a_scheme scheme);

/*
 * A SLURM_IBNET_ALLTOALL value a user writes: ordered (the option's word,
 * the same as paced), paced, pairwise or default. 0, or -1 for anything else
 * (the caller's sentence lists IBNET_A2A_SCHEME_WORDS).
 */
int ibnet_a2a_scheme_parse(const char *value, enum ibnet_a2a_scheme *out);
#define IBNET_A2A_SCHEME_WORDS "ordered, paced, pairwise or default"

/*
 * The paced scheme is built once per MPI ABI (its handles differ), each
 * build a file beside the dispatcher, which loads the one for the job's MPI
 * (alltoall/ibnet_a2a_dispatch.c); the plugin's probe checks which are on
 * the node, for the step's log line (spank-ibnet/ibnet_probe.c). Without
 * the build for its MPI, a process hands every call to the MPI's own.
 * (The Makefile names them libibnet-a2a-$(ABI).so from its own list.)
 */
enum ibnet_a2a_abi {
	IBNET_A2A_ABI_UNKNOWN,		/* no build serves it: the MPI's own */
	IBNET_A2A_ABI_OMPI,
	IBNET_A2A_ABI_MPICH,		/* MPICH, Intel MPI, MVAPICH2 */
	IBNET_A2A_ABI_COUNT
};

struct ibnet_a2a_build {
	const char *abi;		/* "ompi": the word the log line uses */
	const char *file;		/* in the dispatcher's directory */
	const char *jobs;		/* whose calls it paces, for a sentence */
};
/* Indexed by ABI; IBNET_A2A_ABI_UNKNOWN's row is all NULL. */
extern const struct ibnet_a2a_build ibnet_a2a_builds[IBNET_A2A_ABI_COUNT];

/*
 * The window: bytes in flight towards one node's switch port. The default,
 * "auto" (IBNET_A2A_WINDOW_AUTO), sizes itself per node from what each
 * paced call shows (alltoall/ibnet_a2a_window.h says the rule): it starts
 * at IBNET_A2A_WINDOW_START and never passes alltoall_window_max. A number
 * fixes it. The start is the window measured on the test cluster
 * (docs/benchmarks.md, "Choosing the window"): one credit of 16 KiB towards
 * a node's port kept the wire of a 100 Mbit/s port busy, and 32 KiB already
 * overflowed the 24 KB port of gige-lossy; at a few Gbit/s 16 KiB covers a
 * few microseconds of the wire, far less than a credit's round trip, which
 * is why it grows (0.9: the fixed 16 KiB made large all-to-alls 4-6x slower
 * than the MPI's own there).
 * The threshold counts the bytes one call makes converge on the busiest
 * node's port (bytes per pair x ranks on the node x ranks elsewhere): from
 * the window up, a port can overflow, so the scheme paces (0.5: before, it
 * counted bytes per pair and let 8 nodes x 12 KiB flood a 24 KB port); with
 * "auto", from the window the ranks agreed up (a call the window holds
 * whole would be granted at once: pacing it holds nothing back). On
 * InfiniBand transports (IBNET_A2A_THRESHOLD_IB_DEFAULT), whose link layer
 * does not drop, 128 KiB: there pacing only pays where the MPI's own
 * algorithm is poor. On the bench's ipoib, 192 KiB and more converging
 * paced ran 0.54-0.88x Open MPI's time, 112 KiB 1.03x, and Quantum
 * ESPRESSO on 8 nodes (77 KiB) took 1.16x with the 0.4 value of 32 KiB.
 */
#define IBNET_A2A_WINDOW_AUTO ((unsigned long)-1)
#define IBNET_A2A_WINDOW_WORD "auto"
#define IBNET_A2A_WINDOW_DEFAULT IBNET_A2A_WINDOW_AUTO
#define IBNET_A2A_WINDOW_START (16ul * 1024)
/*
 * The most "auto" lets a node have in flight: a port with more buffer than
 * this never loses to one all-to-all of ours. 16 MiB holds a call of 4 MiB
 * per pair on 4 nodes whole, and is below the per-port share of the deep-
 * buffered switches sites buy for incast; shallow ones lose first, and the
 * controller stops below where they lost.
 */
#define IBNET_A2A_WINDOW_MAX_DEFAULT (16ul * 1024 * 1024)
#define IBNET_A2A_CREDITS_DEFAULT 1u
#define IBNET_A2A_THRESHOLD_DEFAULT (16ul * 1024)
#define IBNET_A2A_THRESHOLD_IB_DEFAULT (128ul * 1024)
/*
 * From how many ranks on a node a node's blocks travel together, node to
 * node (ibnet_a2a_nodes.c); 0: never, always pair by pair. The default,
 * "auto" (IBNET_A2A_AGGREGATE_AUTO), goes node to node exactly where pair by
 * pair cannot keep the window: a receiver grants at least 1 KiB at a time
 * (alltoall/ibnet_a2a_paced.h, IBNET_A2A_CHUNK_MIN), so a node of L ranks
 * has L x 1 KiB in flight towards its port, over the window from
 * L > window / 1 KiB (17 ranks at 16 KiB).
 * Below that pair by pair stays: on the test cluster (docs/bench/many-ranks.md)
 * node to node was level with it at 8 x 4 and mixed at 8 x 8 and 8 x 16
 * (5x faster at 4 KiB per pair, slower at 512 B), on 2 shared cores.
 */
#define IBNET_A2A_AGGREGATE_AUTO ((unsigned long)-1)
#define IBNET_A2A_AGGREGATE_DEFAULT IBNET_A2A_AGGREGATE_AUTO
#define IBNET_A2A_AGGREGATE_WORD "auto"
#define IBNET_A2A_AGGREGATE_MAX 1000ul

/* Bytes per pair under which no call is paced (a guard for many ranks per
 * node, not measured here: ibnet_a2a_paced.c, fanin_route). */
#define IBNET_A2A_PAIR_MIN 1024ul

#define IBNET_A2A_WINDOW_MIN 1024ul
#define IBNET_A2A_WINDOW_MAX (64ul * 1024 * 1024)
#define IBNET_A2A_CREDITS_MAX 64u
#define IBNET_A2A_THRESHOLD_MAX (1024ul * 1024 * 1024)

struct ibnet_a2a_settings {
	unsigned long window;		/* bytes in flight towards one node; IBNET_A2A_WINDOW_AUTO */
	unsigned long window_max;	/* auto's bound */
	unsigned long credits;		/* chunks of window/credits granted at once */
	unsigned long threshold;	/* fan-in bytes on a port below which MPI's own runs */
	unsigned long aggregate;	/* ranks on a node from which it goes node to node; 0 never;
					 * IBNET_A2A_AGGREGATE_AUTO where pair by pair exceeds the window */
};

/* The variables a job sees (the plugin sets them; the user's value wins). */
#define IBNET_A2A_ENV_WINDOW "SLURM_IBNET_ALLTOALL_WINDOW"
#define IBNET_A2A_ENV_WINDOW_MAX "SLURM_IBNET_ALLTOALL_WINDOW_MAX"
#define IBNET_A2A_ENV_CREDITS "SLURM_IBNET_ALLTOALL_CREDITS"
#define IBNET_A2A_ENV_THRESHOLD "SLURM_IBNET_ALLTOALL_THRESHOLD"
#define IBNET_A2A_ENV_AGGREGATE "SLURM_IBNET_ALLTOALL_AGGREGATE"
/*
 * Whether each call's route is chosen by measurement: with
 * alltoall_window=auto and a threshold, a call the scheme would pace is
 * timed on the paced route and on the MPI's own, per communicator and size,
 * and goes the faster way, paced wherever the MPI's own lost packets
 * (alltoall/ibnet_a2a_choice.h says the rule). The job's own variable, not a
 * plugstack.conf key (a site pins the paced route with a fixed
 * alltoall_window): "0" paces every call from the threshold up (0.9's rule);
 * unset or "1", measured. Among the settings the ranks agree (its name
 * begins SLURM_IBNET_ALLTOALL). On the 16-core machine the paced call took
 * 1.4-3.9x the MPI's own time where the links were fast and lost nothing
 * (issue 48).
 */
#define IBNET_A2A_ENV_MEASURE "SLURM_IBNET_ALLTOALL_MEASURE"
/*
 * The rate of the node's link in Mbit/s, as the kernel says it
 * (/sys/class/net/IFACE/speed of the step's interface; the plugin's probe
 * reads it), for the window's controller: the window covers twice this rate
 * times the credits' round trip. Per node, so not among the settings the
 * ranks agree (ibnet_a2a_settings_hash leaves it out); the user's value wins
 * (a virtual NIC, a bond or the test cluster's token buckets report none or
 * another). Unset or 0: unknown, the controller goes by loss alone.
 */
#define IBNET_A2A_ENV_LINK_MBIT "SLURM_IBNET_ALLTOALL_LINK_MBIT"
#define IBNET_A2A_LINK_MBIT_MAX 10000000ul	/* 10 Tbit/s */
/* "25000" -> *mbit; 0 or -1 (not digits, or over the maximum). */
int ibnet_a2a_link_mbit_parse(const char *value, unsigned long *mbit);

/* "0": this run uses the MPI library's own all-to-all. */
#define IBNET_A2A_ENV_PACED "SLURM_IBNET_ALLTOALL_PACED"
/* On (ibnet_flag_on): each process says at exit how many calls were paced or handed over. */
#define IBNET_A2A_ENV_REPORT "SLURM_IBNET_ALLTOALL_REPORT"
/*
 * A directory the plugin makes for a paced step, and for a step whose TCP
 * floor the job preload sets (spank-ibnet/ibnet_tally.h). Each process
 * leaves files there at exit, one line per count:
 *   KIND<TAB>ROUTE<TAB>COUNT     e.g. "MPI_Alltoall\tbelow the threshold\t12"
 * the paced library one file a2a.* of the calls it served (each kind and
 * route), the TCP floor one file tcp.* of its sockets (kind "floor":
 * sockets, timeouts, retransmitted); the plugin sums the files into the
 * node's log lines at the step's end.
 */
#define IBNET_A2A_ENV_TALLY "SLURM_IBNET_ALLTOALL_TALLY"
#define IBNET_A2A_TALLY_CALLS "a2a."
#define IBNET_A2A_TALLY_FLOOR "tcp."
#define IBNET_A2A_TALLY_FLOOR_KIND "floor"
/*
 * With alltoall_window=auto, the paced library's a2a.* file also has rows
 * of kind "window" (not calls): "least" and "most", the window it reached
 * in bytes (the node keeps the least and the most of its processes, not a
 * sum), "round trip us" (the least, kept least) and "lost" (its calls with
 * loss, summed).
 */
#define IBNET_A2A_TALLY_WINDOW_KIND "window"
#define IBNET_A2A_TALLY_WINDOW_LEAST "least"
#define IBNET_A2A_TALLY_WINDOW_MOST "most"
#define IBNET_A2A_TALLY_WINDOW_RTT "round trip us"
#define IBNET_A2A_TALLY_WINDOW_LOST "lost"
/* A size class's route by measurement: "route<TAB>1 MiB own<TAB>1", a process each. */
#define IBNET_A2A_TALLY_CHOICE_KIND "route"
#define IBNET_A2A_TALLY_CHOICE_OWN "own"
#define IBNET_A2A_TALLY_CHOICE_PACED "paced"

/* n bytes as a person reads them ("16 KiB", "1.5 MiB"): the window in the
 * report (alltoall/) and in the node's log line (spank-ibnet/ibnet_tally.c). */
void ibnet_a2a_bytes_text(unsigned long n, char *out, size_t len);

/* A new file PREFIX + 6 random characters in dir (mkstemp), to write; NULL if none. */
FILE *ibnet_a2a_tally_open(const char *dir, const char *prefix);

/* The settings, each one row of ibnet_a2a_keys. */
enum ibnet_a2a_key {
	IBNET_A2A_WINDOW,
	IBNET_A2A_WINDOW_MAX_KEY,
	IBNET_A2A_CREDITS,
	IBNET_A2A_THRESHOLD,
	IBNET_A2A_AGGREGATE,
	IBNET_A2A_KEY_COUNT
};

struct ibnet_a2a_key_info {
	const char *config_key;		/* plugstack.conf: alltoall_window= */
	const char *env;		/* the job's variable */
	unsigned long min, max;		/* written with k and m suffixes (powers of 1024) */
	const char *expected;		/* what a good value is, "%s to %s" the bounds */
};
extern const struct ibnet_a2a_key_info ibnet_a2a_keys[IBNET_A2A_KEY_COUNT];

void ibnet_a2a_settings_default(struct ibnet_a2a_settings *s);

unsigned long ibnet_a2a_setting_get(const struct ibnet_a2a_settings *s, enum ibnet_a2a_key key);
/* A setting as the job's variable and the config dump write it ("auto" for
 * IBNET_A2A_AGGREGATE_AUTO and IBNET_A2A_WINDOW_AUTO, else the number). */
void ibnet_a2a_setting_text(const struct ibnet_a2a_settings *s, enum ibnet_a2a_key key,
			    char *out, size_t len);

/*
 * Set one setting from text such as "65536", "64k", "1m"; source names where
 * the text came from ("plugstack.conf: alltoall_window" or
 * SLURM_IBNET_ALLTOALL_WINDOW). On a bad value, writes a sentence naming
 * source and value into msg and returns -1.
 */
int ibnet_a2a_setting_set(struct ibnet_a2a_settings *s, enum ibnet_a2a_key key,
			  const char *value, const char *source, char *msg, size_t msglen);

/* The key whose config_key is name (alltoall_window), or -1. */
int ibnet_a2a_key_by_config(const char *name);

/*
 * How a user picks an MPI library's own all-to-all algorithm: one row per
 * MPI, the variable and the value that means pairwise. Any of the variables
 * set by the job: the user's choice wins, the paced all-to-all stands aside
 * (the plugin does not plan it, the library does not run it). A pairwise
 * step gets each MPI's variable (and its companion, if any) where unset.
 * The list ends with a row whose mpi is NULL.
 */
struct ibnet_a2a_mpi_choice {
	const char *mpi;
	const char *variable;
	const char *pairwise;
	const char *companion;		/* also needed for the choice to take effect */
	const char *companion_value;
};
extern const struct ibnet_a2a_mpi_choice ibnet_a2a_mpi_choices[];

/* The first of the MPI choice variables that get(name) finds set, or NULL. */
const char *ibnet_a2a_user_choice(const char *(*get)(void *ctx, const char *name), void *ctx);

#endif
