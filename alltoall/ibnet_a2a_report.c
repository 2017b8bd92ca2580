/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_report.c - the counts of each call kind and route, the report at
 * exit (SLURM_IBNET_ALLTOALL_REPORT), and the node's tally file.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ibnet_a2a_choice.h"
#include "ibnet_a2a_report.h"
#include "ibnet_a2a_state.h"
#include "ibnet_a2a_types.h"
#include "ibnet_job_vars.h"

const char *const route_name[ROUTES] = {
	"paced", "paced node to node", "switched off", "a rank without the paced build",
	"settings that differ between ranks", "no agreement between ranks",
	"inter-communicator", "one rank",
	"below the threshold", "all ranks on one node", "a block of 2 GiB or more",
	"a count or displacement past an int", "a non-contiguous Fortran array",
	"send and receive sizes that differ", "out of memory", "non-blocking (the MPI's own)",
	"within the window", "the MPI's own on trial", "the MPI's own measured faster",
};

const char *const kind_name[KINDS] = {
	"MPI_Alltoall", "MPI_Alltoallv", "MPI_Alltoallw", "MPI_Alltoall_c", "MPI_Alltoallv_c",
	"MPI_Alltoallw_c", "MPI_Ialltoall", "MPI_Ialltoallv",
};
static unsigned long served[KINDS][ROUTES];

/* Count one call; atomic, as calls on different communicators may run at once. */
void count(enum kind k, enum route r)
{
	__atomic_fetch_add(&served[k][r], 1, __ATOMIC_RELAXED);
}

/* The calls of one kind this process made, whatever their route. */
static unsigned long calls_of(enum kind k)
{
	unsigned long total = 0;
	int r;

	for (r = 0; r < ROUTES; r++)
		total += served[k][r];
	return total;
}

/*
 * The last choice of each size class, on whichever communicator made it
 * (ibnet_a2a_route.c): its figures for the report, its route for the tally;
 * a class never chosen is all zero (chosen false). Rare (a class's look),
 * so a lock.
 */
static pthread_mutex_t choices_lock = PTHREAD_MUTEX_INITIALIZER;
static struct choice_class choices[CHOICE_CLASSES];

void report_choice(const struct choice_class *c, int cls)
{
	if (cls < 0 || cls >= CHOICE_CLASSES)
		return;
	pthread_mutex_lock(&choices_lock);
	choices[cls] = *c;
	pthread_mutex_unlock(&choices_lock);
}

/* The most communicators one paced call shared this node's window with. */
static int shared_most, shared_job_ranks, shared_comm_ranks;

void report_shared_window(int concurrent, int job_ranks, int comm_ranks)
{
	/* Rare (a communicator's first call) and only for the report: a lock-free
	 * maximum; the two counts beside it are the same on every call of a job. */
	int most = __atomic_load_n(&shared_most, __ATOMIC_RELAXED);

	while (concurrent > most && !__atomic_compare_exchange_n(&shared_most, &most, concurrent,
								 false, __ATOMIC_RELAXED,
								 __ATOMIC_RELAXED))
		;
	__atomic_store_n(&shared_job_ranks, job_ranks, __ATOMIC_RELAXED);
	__atomic_store_n(&shared_comm_ranks, comm_ranks, __ATOMIC_RELAXED);
}

/* The last look at calls within the window, of whichever communicator
 * looked most. Rare (one in 16 to 256 such calls), so a lock. */
static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	unsigned long looks;
	int every;
	double agree, call;
} watch;

void report_window_watch(unsigned long looks, int every, double agree, double call)
{
	pthread_mutex_lock(&watch_lock);
	if (looks >= watch.looks) {
		watch.looks = looks;
		watch.every = every;
		watch.agree = agree;
		watch.call = call;
	}
	pthread_mutex_unlock(&watch_lock);
}

static void print_report(void)
{
	struct window_ctl w;
	char line[512];
	int k, r, n;

	for (k = 0; k < KINDS; k++) {
		unsigned long total = calls_of((enum kind)k);

		if (!total)
			continue;
		n = snprintf(line, sizeof(line), "rank %d: %s: %lu call%s: ", world_rank,
			     kind_name[k], total, total == 1 ? "" : "s");
		/* "N paced" counts both exchanges; a line of its own says how many
		 * went node to node, so this line reads as it always has. */
		n += snprintf(line + n, sizeof(line) - (size_t)n, "%lu paced",
			      served[k][PACED] + served[k][PACED_NODES]);
		for (r = PACED_NODES + 1; r < ROUTES && n < (int)sizeof(line); r++)
			if (served[k][r])
				n += snprintf(line + n, sizeof(line) - (size_t)n, ", %lu %s",
					      served[k][r], route_name[r]);
		say(line);
		if (served[k][PACED_NODES]) {
			snprintf(line, sizeof(line), "rank %d: %s: %lu of the paced calls node to node "
				 "(a node's blocks together%s)", world_rank, kind_name[k],
				 served[k][PACED_NODES],
				 settings.aggregate == IBNET_A2A_AGGREGATE_AUTO ?
				 "; alltoall_aggregate=auto: more ranks on a node than pair by pair "
				 "keeps within the window" : "");
			say(line);
		}
	}
	pthread_mutex_lock(&choices_lock);
	for (k = 0; k < CHOICE_CLASSES; k++) {
		char sentence[400];

		if (!choices[k].chosen)
			continue;
		choice_describe(&choices[k], k, sentence, sizeof(sentence));
		snprintf(line, sizeof(line), "rank %d: route by measurement: %s", world_rank,
			 sentence);
		say(line);
	}
	pthread_mutex_unlock(&choices_lock);
	if (window_state(&w)) {
		char said[600];

		window_ctl_describe(&w, line, sizeof(line));
		snprintf(said, sizeof(said), "rank %d: %s", world_rank, line);
		say(said);
	}
	pthread_mutex_lock(&watch_lock);
	if (watch.looks) {
		snprintf(line, sizeof(line), "rank %d: within the window: looked at for loss %lu "
			 "time%s, every %d calls now (a look's agreement %.1f us, a call %.1f us: "
			 "at most %.0f%% of their time, %d to %d calls apart)", world_rank,
			 watch.looks, watch.looks == 1 ? "" : "s", watch.every, watch.agree * 1e6,
			 watch.call * 1e6, CHOICE_WATCH_SHARE * 100, CHOICE_WATCH_CALLS,
			 CHOICE_WATCH_MOST);
		say(line);
	}
	pthread_mutex_unlock(&watch_lock);
	if (shared_most > 1) {
		snprintf(line, sizeof(line), "rank %d: the node's window shared by up to %d "
			 "communicators at once (the job has %d ranks on this node, a communicator "
			 "%d)", world_rank, shared_most, shared_job_ranks, shared_comm_ranks);
		say(line);
	}
}

/*
 * This process's counts for the node's log line: one file in the step's
 * tally directory (IBNET_A2A_ENV_TALLY), one line per call kind and route.
 */
static void write_tally(const char *dir)
{
	FILE *f = ibnet_a2a_tally_open(dir, IBNET_A2A_TALLY_CALLS);
	struct window_ctl w;
	int k, r;

	if (!f)
		return;
	for (k = 0; k < KINDS; k++)
		for (r = 0; r < ROUTES; r++)
			if (served[k][r])
				fprintf(f, "%s\t%s\t%lu\n", kind_name[k], route_name[r],
					served[k][r]);
	pthread_mutex_lock(&choices_lock);
	for (k = 0; k < CHOICE_CLASSES; k++) {
		char size[24];

		if (!choices[k].chosen)
			continue;
		ibnet_a2a_bytes_text(1ul << k, size, sizeof(size));
		fprintf(f, "%s\t%s %s\t1\n", IBNET_A2A_TALLY_CHOICE_KIND, size,
			choices[k].way == CHOICE_OWN ? IBNET_A2A_TALLY_CHOICE_OWN :
			IBNET_A2A_TALLY_CHOICE_PACED);
	}
	pthread_mutex_unlock(&choices_lock);
	if (window_state(&w) && !w.fixed) {
		const char *kind = IBNET_A2A_TALLY_WINDOW_KIND;

		fprintf(f, "%s\t%s\t%lu\n", kind, IBNET_A2A_TALLY_WINDOW_LEAST, w.window);
		fprintf(f, "%s\t%s\t%lu\n", kind, IBNET_A2A_TALLY_WINDOW_MOST, w.window);
		fprintf(f, "%s\t%s\t%lu\n", kind, IBNET_A2A_TALLY_WINDOW_RTT,
			(unsigned long)(w.round_trip * 1e6));
		fprintf(f, "%s\t%s\t%lu\n", kind, IBNET_A2A_TALLY_WINDOW_LOST, w.losses);
	}
	fclose(f);
}

#ifdef IBNET_A2A_TESTING
/* The test build's counts, at exit (after MPI_Finalize freed what it holds). */
static void say_test_counts(void)
{
	char line[160];

	snprintf(line, sizeof(line), "rank %d: test: communicator state: %lu made, "
		 "%lu freed; most requests outstanding: %d", world_rank,
		 test_infos_made, test_infos_freed, test_most_slots);
	say(line);
	snprintf(line, sizeof(line), "rank %d: test: type maps read back: %lu",
		 world_rank, ibnet_a2a_types_contents_read());
	say(line);
	if (test_segments_made) {
		snprintf(line, sizeof(line), "rank %d: test: node data segments: "
			 "%lu made, %lu of them shrinking", world_rank,
			 test_segments_made, test_segments_shrunk);
		say(line);
	}
	/* Each credit a round trip the receiver waits for (one credit
	 * at a time, the default): the busiest rank's count is the
	 * critical path's round trips. */
	snprintf(line, sizeof(line), "rank %d: test: credits granted: %lu; "
		 "round trips in a row, over all calls: %lu", world_rank, test_grants,
		 test_round_trips);
	say(line);
}
#endif

/* The calls the report said, where MPI_Finalize said it (0: not said yet). */
static unsigned long reported_calls;

static unsigned long all_calls(void)
{
	unsigned long total = 0;
	int k;

	for (k = 0; k < KINDS; k++)
		total += calls_of((enum kind)k);
	return total;
}

/*
 * What this process says of its calls: the report when asked for; and when
 * nobody asked for a report but the step asked for the paced scheme
 * (SLURM_IBNET_ALLTOALL=paced) and not one call was paced, rank 0 says why
 * anyway (every rank routes alike): the user asked for something they did
 * not get.
 */
static void say_calls(void)
{
	const char *asked = getenv(IBNET_A2A_ENV_SCHEME);
	enum ibnet_a2a_scheme scheme;
	int k;

	reported_calls = all_calls();
	if (report) {
		print_report();
		return;
	}
	if (getenv(IBNET_A2A_ENV_REPORT) || world_rank != 0 || !asked ||
	    ibnet_a2a_scheme_parse(asked, &scheme) < 0 || scheme != IBNET_ALLTOALL_PACED)
		return;
	for (k = 0; k < KINDS; k++)
		if (served[k][PACED] || served[k][PACED_NODES])
			return;
	say("--ordered-alltoall was asked for, but no all-to-all call of this job was paced; "
	    "why, by call (" IBNET_A2A_ENV_REPORT "=0 silences this):");
	print_report();
}

/*
 * At MPI_Finalize, before the MPI finalizes: what say_calls says. Said
 * here rather than at exit because a launcher may stop forwarding a rank's
 * output, or end the rank, once the others have finalized and left (in
 * CI, rank 0's report at exit was missing from the output now and then in
 * the Debian 13 stack; a likely cause, found later: its glibc wrote each
 * line 128 bytes at a time, cut by other ranks' lines, which say() no
 * longer lets happen, contract/ibnet_say_line.h). No call can
 * follow MPI_Finalize on the world model's communicators.
 */
void a2a_at_finalize(void)
{
	if (getpid() != settings_pid || !all_calls())
		return;
	say_calls();
}

/*
 * At exit: the node's tally when the plugin made a directory for it, and
 * say_calls where MPI_Finalize did not say it (a program of MPI-4 sessions
 * alone has no MPI_Finalize) or calls came after it (a session's).
 */
void a2a_at_exit(void)
{
	const char *dir = getenv(IBNET_A2A_ENV_TALLY);
	unsigned long total;

	if (getpid() != settings_pid || !(total = all_calls()))
		return;
	if (dir && *dir)
		write_tally(dir);
	if (total != reported_calls)
		say_calls();
#ifdef IBNET_A2A_TESTING
	if (report)
		say_test_counts();
#endif
}
