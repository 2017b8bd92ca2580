/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_state.c - what every part of the paced build reads back
 * (ibnet_a2a_state.h): the settings, read once from the environment; the
 * dispatcher's help; say() and report_failure(); and, in test builds
 * (-DIBNET_A2A_TESTING, the Makefile's build/tests/ copies, never
 * installed), the SLURM_IBNET_ALLTOALL_TEST_* variables below.
 */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ibnet_a2a_state.h"
#include "ibnet_job_vars.h"
#include "ibnet_say_line.h"

/*
 * Loaded without the dispatcher (devel/bench/a2a_versus.c opens builds
 * side by side and calls them directly): the MPI is in the global scope and
 * every rank runs the same build, so there is nothing to agree.
 */
static void *standalone_find(const char *name)
{
	return dlsym(RTLD_DEFAULT, name);
}

static void *standalone_own(const char *name)
{
	void *p = dlsym(RTLD_DEFAULT, name);

	if (!p) {
		ibnet_say_line("spank-ibnet alltoall: the MPI library's own %s cannot be found", name);
		abort();
	}
	return p;
}

static enum ibnet_a2a_verdict standalone_agree(uintptr_t comm)
{
	(void)comm;
	return IBNET_A2A_AGREED;
}

static const struct ibnet_a2a_host standalone = {
	.own = standalone_own,
	.find = standalone_find,
	.agree = standalone_agree,
};

/* The dispatcher's help: the MPI's own symbols, and the ranks' agreement. */
const struct ibnet_a2a_host *host = &standalone;

EXPORT void ibnet_a2a_attach(const struct ibnet_a2a_host *h)
{
	host = h;
}

/* A communicator as the agreement takes it: its handle's bytes, zero-extended. */
uintptr_t handle_of(MPI_Comm comm)
{
	uintptr_t word = 0;

	memcpy(&word, &comm, sizeof(comm));
	return word;
}

bool enabled;
bool report;
struct ibnet_a2a_settings settings;
int world_rank = -1;
/* The process that read the settings: a fork()ed child that exits leaves no tally. */
pid_t settings_pid;
/*
 * The largest block (bytes one rank sends one other) the scheme takes. Its
 * local sends and receives, packing and unpacking pass a block's bytes as an
 * int count of MPI_BYTE; a call with a larger block goes to the MPI's own
 * routine, which has its own ways past int. Every rank decides alike: an
 * MPI_Alltoall's bytes per pair are equal on all (equal type signatures), an
 * MPI_Alltoallv's largest block is agreed by allreduce. Data between nodes
 * moves in chunks of at most the window (64 MiB), far below it.
 */
unsigned long block_limit = INT_MAX;
/* SLURM_IBNET_ALLTOALL_MEASURE: each call's route by measurement (unset: yes). */
bool measure_routes = true;
/* SLURM_IBNET_ALLTOALL_LINK_MBIT, in bytes per second; 0: unknown. */
double link_rate;

#ifdef IBNET_A2A_TESTING
/*
 * Test builds only: the installed libraries do not contain these names, so
 * no job can set them by accident.
 *   SLURM_IBNET_ALLTOALL_TEST_RANKS_PER_NODE=K: each run of K consecutive
 *     ranks is a node (one machine's MPI sees one node, which is handed over).
 *   SLURM_IBNET_ALLTOALL_TEST_BLOCK_LIMIT=B: hand over blocks over B bytes
 *     (lower only), to test that route without 2 GiB buffers.
 *   SLURM_IBNET_ALLTOALL_TEST_FAIL=N: this process's Nth point-to-point call
 *     of the scheme returns MPI_ERR_OTHER without being posted.
 *   SLURM_IBNET_ALLTOALL_TEST_NO_MEMORY=R: rank R of each new communicator
 *     takes its layout's allocation as failed.
 *   SLURM_IBNET_ALLTOALL_TEST_NO_SCRATCH=R: rank R of a paced call takes the
 *     call's own allocation as failed.
 *   SLURM_IBNET_ALLTOALL_TEST_NO_SEGMENT=R: rank R cannot take part in its
 *     node's shared segments (ibnet_a2a_nodes.c).
 *   SLURM_IBNET_ALLTOALL_TEST_DIE_IN_SEGMENT=R: rank R is killed (SIGKILL)
 *     while its node's ranks share a segment it has just been given, as a
 *     job ended by scancel or its time limit may be.
 *   SLURM_IBNET_ALLTOALL_TEST_LANES=K: at most K lanes per node, not
 *     IBNET_A2A_LANES_MAX.
 *   SLURM_IBNET_ALLTOALL_TEST_NODE_SIZES=3,5,1: pretend nodes of uneven
 *     sizes, in rank order, of a communicator's ranks (each a node past them).
 *   SLURM_IBNET_ALLTOALL_TEST_STEP_TASKS=LIST:NODEID: the job's ranks on this
 *     node as Slurm's SLURM_STEP_TASKS_PER_NODE and SLURM_NODEID would say
 *     them, over the launcher's count and beside pretend nodes.
 */
int test_ranks_per_node;
static int test_no_memory_rank = -1, test_no_scratch_rank = -1, test_no_segment_rank = -1;
static int test_die_in_segment_rank = -1;
int test_lanes;
char test_node_sizes[256];
char test_step_tasks[256];
/* Credits granted by this process: each a round trip (ibnet_a2a_exchange.c). */
unsigned long test_grants, test_round_trips;
/* Communicator state made and freed, said at exit with the report. */
unsigned long test_infos_made, test_infos_freed;
/* The most requests one exchange had posted at once (slots handed out). */
int test_most_slots;
unsigned long test_segments_made, test_segments_shrunk;
static unsigned long test_fail_at, test_p2p_calls;

static void read_test_settings(void)
{
	const char *v;
	unsigned long limit;

	if ((v = getenv("SLURM_IBNET_ALLTOALL_TEST_RANKS_PER_NODE")))
		test_ranks_per_node = atoi(v);
	if ((v = getenv("SLURM_IBNET_ALLTOALL_TEST_BLOCK_LIMIT")) &&
	    (limit = strtoul(v, NULL, 10)) > 0 && limit < block_limit)
		block_limit = limit;
	if ((v = getenv("SLURM_IBNET_ALLTOALL_TEST_FAIL")))
		test_fail_at = strtoul(v, NULL, 10);
	if ((v = getenv("SLURM_IBNET_ALLTOALL_TEST_NO_MEMORY")))
		test_no_memory_rank = atoi(v);
	if ((v = getenv("SLURM_IBNET_ALLTOALL_TEST_NO_SCRATCH")))
		test_no_scratch_rank = atoi(v);
	if ((v = getenv("SLURM_IBNET_ALLTOALL_TEST_NO_SEGMENT")))
		test_no_segment_rank = atoi(v);
	if ((v = getenv("SLURM_IBNET_ALLTOALL_TEST_DIE_IN_SEGMENT")))
		test_die_in_segment_rank = atoi(v);
	if ((v = getenv("SLURM_IBNET_ALLTOALL_TEST_LANES")))
		test_lanes = atoi(v);
	if ((v = getenv("SLURM_IBNET_ALLTOALL_TEST_NODE_SIZES")))
		snprintf(test_node_sizes, sizeof(test_node_sizes), "%s", v);
	if ((v = getenv("SLURM_IBNET_ALLTOALL_TEST_STEP_TASKS")))
		snprintf(test_step_tasks, sizeof(test_step_tasks), "%s", v);
}

/* The first rank of rank's pretend node when nodes are runs of the sizes in
 * test_node_sizes ("3,5,1"); ranks past them are one node each. */
int test_node_leader(int rank)
{
	const char *p = test_node_sizes;
	int start = 0, n;

	while (*p) {
		n = atoi(p);
		if (n < 1)
			break;
		if (rank < start + n)
			return start;
		start += n;
		p = strchr(p, ',');
		if (!p)
			break;
		p++;
	}
	return rank;
}

bool test_no_segment(int rank)
{
	return rank == test_no_segment_rank;
}

void test_die_in_segment(int rank)
{
	if (rank == test_die_in_segment_rank)
		raise(SIGKILL);
}

bool test_no_scratch(int rank)
{
	return rank == test_no_scratch_rank;
}

bool test_no_memory(MPI_Comm comm)
{
	int rank = -1;

	PMPI_Comm_rank(comm, &rank);
	return rank == test_no_memory_rank;
}

bool injected_failure(void)
{
	return test_fail_at &&
	       __atomic_add_fetch(&test_p2p_calls, 1, __ATOMIC_RELAXED) == test_fail_at;
}
#else
static void read_test_settings(void)
{
}
#endif

void say(const char *what)
{
	ibnet_say_line("spank-ibnet alltoall: %s", what);
}

static const char *process_getenv(void *ctx, const char *name)
{
	(void)ctx;
	return getenv(name);
}

/* IBNET_A2A_ENV_MEASURE: "0" or "1"; anything else is said and taken as 1. */
static void read_measure(void)
{
	const char *v = getenv(IBNET_A2A_ENV_MEASURE);
	char msg[300], buf[IBNET_SHOWN_BUF];

	if (!v || !strcmp(v, "1"))
		return;
	if (!strcmp(v, "0")) {
		measure_routes = false;
		return;
	}
	snprintf(msg, sizeof(msg), "%s: '%s' is not 0 or 1; each call's route is chosen by "
		 "measurement, the default", IBNET_A2A_ENV_MEASURE, ibnet_value_shown(v, buf));
	say(msg);
}

/* The node's link (IBNET_A2A_ENV_LINK_MBIT): a bad value is said and taken as unknown. */
static void read_link_rate(void)
{
	const char *v = getenv(IBNET_A2A_ENV_LINK_MBIT);
	unsigned long mbit = 0;
	char msg[256], buf[IBNET_SHOWN_BUF];

	if (!v)
		return;
	if (ibnet_a2a_link_mbit_parse(v, &mbit) < 0) {
		snprintf(msg, sizeof(msg), "%s: '%s' is not a rate in Mbit/s (0 to %lu); the "
			 "window goes by loss alone", IBNET_A2A_ENV_LINK_MBIT,
			 ibnet_value_shown(v, buf), IBNET_A2A_LINK_MBIT_MAX);
		say(msg);
		return;
	}
	link_rate = (double)mbit * 1e6 / 8;
}

static void read_settings(void)
{
	const char *v;
	char msg[256];
	int k;

	ibnet_a2a_settings_default(&settings);
	settings_pid = getpid();
	enabled = true;
	report = ibnet_flag_on(getenv(IBNET_A2A_ENV_REPORT));
	read_link_rate();
	read_measure();
	if ((v = getenv(IBNET_A2A_ENV_PACED)) && strcmp(v, "0") == 0) {
		enabled = false;
		return;
	}
	if ((v = ibnet_a2a_user_choice(process_getenv, NULL))) {
		if (report) {
			snprintf(msg, sizeof(msg), "%s is set: the MPI library's own all-to-all "
				 "runs, as the user chose", v);
			say(msg);
		}
		enabled = false;
		return;
	}
	for (k = 0; k < IBNET_A2A_KEY_COUNT; k++) {
		const char *name = ibnet_a2a_keys[k].env;

		if ((v = getenv(name)) &&
		    ibnet_a2a_setting_set(&settings, (enum ibnet_a2a_key)k, v, name, msg,
					  sizeof(msg)) < 0) {
			strncat(msg, "; the MPI library's own all-to-all runs instead",
				sizeof(msg) - strlen(msg) - 1);
			say(msg);
			enabled = false;
			return;
		}
	}
}

/* The process's window controller; calls on several communicators may run
 * at once (MPI_THREAD_MULTIPLE), so it is read and moved under a lock. */
static struct window_ctl window_ctl;
static pthread_mutex_t window_lock = PTHREAD_MUTEX_INITIALIZER;

void a2a_read_settings(void)
{
	bool fixed;

	read_settings();
	read_test_settings();
	fixed = settings.window != IBNET_A2A_WINDOW_AUTO;
	window_ctl_init(&window_ctl, fixed ? settings.window : IBNET_A2A_WINDOW_START,
			fixed ? settings.window : settings.window_max, link_rate, fixed);
}

unsigned long window_now(void)
{
	unsigned long w;

	pthread_mutex_lock(&window_lock);
	w = window_ctl.window;
	pthread_mutex_unlock(&window_lock);
	return w;
}

void window_unpaced_loss(void)
{
	pthread_mutex_lock(&window_lock);
	window_ctl_unpaced_loss(&window_ctl);
	pthread_mutex_unlock(&window_lock);
}

unsigned long window_learn(const struct window_sample *s)
{
	unsigned long w;

	pthread_mutex_lock(&window_lock);
	w = window_ctl_update(&window_ctl, s);
	pthread_mutex_unlock(&window_lock);
	return w;
}

bool window_state(struct window_ctl *copy)
{
	pthread_mutex_lock(&window_lock);
	*copy = window_ctl;
	pthread_mutex_unlock(&window_lock);
	return copy->calls > 0;
}

/*
 * A call's own allocation failed on this rank after its route was taken:
 * its peers are already exchanging with it and would wait for it forever if
 * it returned. So the job ends here, with the reason, as MPI_ERRORS_ARE_FATAL
 * would end it (what no MPI error handler can make safe).
 */
void out_of_memory(const struct comm_info *ci, const char *what)
{
	char line[256];

	snprintf(line, sizeof(line), "rank %d of %d: out of memory for %s in a paced all-to-all; "
		 "its peers are waiting for it, so the job ends here", ci->rank, ci->size, what);
	say(line);
	PMPI_Abort(ci->priv, MPI_ERR_NO_MEM);
}

/*
 * A call of ours failed with rc: tell the user's communicator's error handler,
 * as the MPI's own all-to-all would (the default handler aborts the job), and
 * give the code back for the caller to return.
 */
int report_failure(MPI_Comm comm, int rc)
{
	PMPI_Comm_call_errhandler(comm, rc);
	return rc;
}
