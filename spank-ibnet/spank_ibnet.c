/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * spank_ibnet.c - Slurm SPANK plugin: the right network for the jobs that
 * ask for one, and nothing for those that do not.
 *
 *   sbatch --transport=rsocket|ipoib|tcp|none [--[no-]ordered-alltoall] job.sh
 *
 * plugstack.conf:
 *   required /usr/local/lib/slurm/spank_ibnet.so ib_hostname=s/^c(.*)/cib\1/
 *
 * This file is the thin layer between Slurm and the decisions, which live
 * in files testable without Slurm (docs/architecture.md maps them): it
 * gathers Slurm's items, calls ibnet_config_parse (the site's arguments)
 * and ibnet_step_plan (one step, from request to environment: the same
 * function ibnet-hosts --env calls), and applies the plan.
 *
 * Where things happen:
 *   srun, sbatch, salloc (local/allocator context): every user value and the
 *     site configuration are checked before the job is queued: the options
 *     in their callbacks, the SLURM_IBNET_* defaults in init_post_opt.
 *   slurmstepd (remote context): nothing fails before task_init. Slurm
 *     drains a node whose batch step fails in init or user_init, and only
 *     logs a failed option callback there, which would let a step run on
 *     the variable's or the default's network instead. So init, the option
 *     callbacks and user_init only record; user_init plans the environment
 *     once per step and node and logs the decision; task_init applies the
 *     plan to the batch script and every task, or fails the task with the
 *     reason, which the user sees.
 *   slurmstepd as root: init_post_opt chooses the step's TCP floor tier and
 *     starts the BPF tier (ibnet_floor_tier.c, ibnet_bpf_floor.c) if the step
 *     asks for a floor, task_post_fork moves each task into its cgroup before
 *     the task execs, exit logs what the step's sockets met and removes it.
 *   job epilog (root): the BPF tier's cgroups a killed slurmstepd left are
 *     removed; it never fails (a failed epilog drains the node).
 *   slurmd, prolog: nothing; a bad argument must never stop slurmd.
 */
#include <slurm/spank.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ibnet_bpf_floor.h"
#include "ibnet_config.h"
#include "ibnet_floor_tier.h"
#include "ibnet_request.h"
#include "ibnet_step.h"
#include "ibnet_tally.h"

#ifndef IBNET_VERSION
#define IBNET_VERSION "unknown"
#endif

SPANK_PLUGIN(ibnet, 1);

#if defined(SLURM_VERSION_NUMBER) && SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 5, 0)
/*
 * Slurm 25.05+: should init ever fail in slurmstepd, fail the job, not the
 * node. (Init does not fail there by design; this is the second line.)
 */
int slurm_spank_init_failure_mode = ESPANK_JOB_FAILURE;
#endif

static struct ibnet_config cfg;
static bool cfg_loaded;
/* Remote context: the configuration could not be read on this node. */
static struct ibnet_err cfg_err;
static bool cfg_broken;
static enum ibnet_transport broken_default;	/* read on its own, see ibnet_config.h */
static bool broken_default_known;

static struct ibnet_options opts;

/* The step's plan, made in user_init, applied in each task_init. */
static struct ibnet_step step;
static bool step_planned;
static struct ibnet_err step_err;
/* A paced step's tally directory (IBNET_A2A_ENV_TALLY), made in user_init. */
static struct ibnet_tally_dir tally_dir;
/*
 * The step's retransmission floor tier, chosen as root in init_post_opt
 * (the BPF tier must be started there: user_init runs as the user); the
 * BPF tier's program, attached until exit.
 */
static struct ibnet_floor_choice floor_choice;
static bool floor_chosen;
static struct ibnet_bpf_floor bpf_floor;

/*
 * A line for the node's log, at most IBNET_LOG_LINE_MAX bytes (what the job
 * puts in its environment can reach these lines).
 */
#define LOG_CAPPED(log_fn, ...)                                         \
	do {                                                            \
		char capped_[IBNET_LOG_LINE_MAX];                       \
		log_fn("%s", ibnet_log_line(capped_, __VA_ARGS__));     \
	} while (0)

static int _opt_transport(int val, const char *optarg, int remote);
static int _opt_ordered(int val, const char *optarg, int remote);
static int _opt_rto(int val, const char *optarg, int remote);

static struct spank_option ibnet_options[] = {
	{ "transport", "rsocket|ipoib|tcp|none",
	  "Network for the job's sockets and MPI: rsocket (sockets over RDMA via "
	  "librspreload, IB host names), ipoib (TCP over the IB network), tcp "
	  "(Ethernet), or none (leave the environment alone). "
	  "Default: $SLURM_IBNET_TRANSPORT, else the site's (normally none).",
	  1, 0, _opt_transport },
	{ "ordered-alltoall", NULL,
	  "Replace the job's MPI all-to-all with a paced, ordered one (any MPI), "
	  "which keeps an Ethernet switch without flow control from losing packets. "
	  "Implies --tcp-rto-min. "
	  "Default: $SLURM_IBNET_ALLTOALL (ordered, paced, pairwise or default).",
	  0, 1, _opt_ordered },
	{ "no-ordered-alltoall", NULL,
	  "Turn --ordered-alltoall off, e.g. for one step of a job that asked for it.",
	  0, 0, _opt_ordered },
	{ "tcp-rto-min", "[TIME|off]",
	  "Give every TCP socket of the job a retransmission floor (Linux 6.15 or "
	  "later, or 5.10 and later where the site installed the BPF tier): a lost "
	  "packet is resent after milliseconds instead of 200 ms. "
	  "TIME: 1ms to 200ms, such as 10ms; without it, the site's value. "
	  "Default: $SLURM_IBNET_TCP_RTO_MIN, else on with --ordered-alltoall or on "
	  "the transports the site lists (tcp_rto_min_transports).",
	  2, 0, _opt_rto },
	SPANK_OPTIONS_TABLE_END
};

/*
 * Locally a refusal stops the command before anything is queued. Remotely
 * Slurm would only log it and run the step anyway, so keep the reason and
 * fail the step's tasks with it.
 */
static int refuse_option(int remote, const struct ibnet_err *err)
{
	if (!remote) {
		LOG_CAPPED(slurm_error, "%s", err->msg);
		return -1;
	}
	if (!opts.refused) {
		opts.refused = true;
		opts.refusal = *err;
	}
	return 0;
}

static int _opt_transport(int val, const char *optarg, int remote)
{
	struct ibnet_err err = { "" };
	enum ibnet_transport t;

	(void)val;
	if (ibnet_transport_parse(optarg, "--transport", &t, &err) < 0 ||
	    (cfg_loaded && ibnet_transport_check_allowed(&cfg, t, "--transport", &err) < 0))
		return refuse_option(remote, &err);
	opts.transport = t;
	opts.transport_given = true;
	return 0;
}

/* val: 1 for --ordered-alltoall, 0 for --no-ordered-alltoall; the last given wins. */
static int _opt_ordered(int val, const char *optarg, int remote)
{
	(void)optarg;
	(void)remote;
	opts.ordered = val == 1;
	opts.alltoall_given = true;
	return 0;
}

/* --tcp-rto-min alone: the site's value, known once plugstack.conf is read. */
static int _opt_rto(int val, const char *optarg, int remote)
{
	struct ibnet_err err = { "" };

	(void)val;
	/* Below the site's least: refused here too, before the job is queued. */
	if (ibnet_options_set_rto(&opts, optarg, &err) < 0 ||
	    (cfg_loaded && !opts.rto_site &&
	     ibnet_rto_check_least(&cfg, opts.rto_us, "--tcp-rto-min", &err) < 0))
		return refuse_option(remote, &err);
	return 0;
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	struct ibnet_err err = { "" };
	spank_context_t ctx = spank_context();
	int i;

	if (ctx == S_CTX_SLURMD)
		slurm_info(IBNET_PREFIX "version " IBNET_VERSION " loaded");
	if (ctx != S_CTX_LOCAL && ctx != S_CTX_ALLOCATOR && ctx != S_CTX_REMOTE)
		return 0;
	for (i = 0; ibnet_options[i].name; i++) {
		if (spank_option_register(sp, &ibnet_options[i]) != ESPANK_SUCCESS) {
			slurm_error(IBNET_PREFIX "cannot register option --%s", ibnet_options[i].name);
			return -1;
		}
	}
	if (ibnet_config_parse(&cfg, ac, av, &err) == 0) {
		cfg_loaded = true;
		return 0;
	}
	LOG_CAPPED(slurm_error, "%s", err.msg);
	if (ctx != S_CTX_REMOTE)
		return -1;	/* the user sees it; nothing is queued */
	/* On a compute node: never fail here (that drains the node); see task_init. */
	cfg_broken = true;
	cfg_err = err;
	broken_default_known = ibnet_config_default_transport(ac, av, &broken_default) == 0;
	return 0;
}

static const char *process_getenv(void *ctx, const char *name)
{
	(void)ctx;
	return getenv(name);
}

/* Read a variable from the job's environment array (no size limit). */
static const char *job_getenv(void *ctx, const char *name)
{
	char **env = ctx;
	size_t n = strlen(name);

	for (; env && *env; env++)
		if (strncmp(*env, name, n) == 0 && (*env)[n] == '=')
			return *env + n + 1;
	return NULL;
}

/*
 * Tell the scheduler what the job asked for (job_submit.lua, prolog, epilog:
 * see ibnet_request_control_env). Only a command that creates the job can:
 * an srun inside an allocation gets ESPANK_NOT_LOCAL or has no job to
 * change, which is not an error.
 */
static void record_for_scheduler(spank_t sp, const struct ibnet_job *job)
{
	struct ibnet_control_var vars[IBNET_CONTROL_VARS_MAX];
	size_t i, n = ibnet_request_control_env(job, vars);

	for (i = 0; i < n; i++) {
		spank_err_t rc = spank_job_control_setenv(sp, vars[i].name, vars[i].value, 1);

		if (rc != ESPANK_SUCCESS)
			slurm_debug(IBNET_PREFIX "job control environment: %s=%s not recorded: %s",
				    vars[i].name, vars[i].value, spank_strerror(rc));
	}
}

static void step_name(spank_t sp, char *buf, size_t len);

/* The step's cgroup name for the BPF tier: job_12.step_0.c1-4, job_12.step_batch.c1-4. */
static int floor_cgroup_name(spank_t sp, char *buf, size_t len)
{
	uint32_t job_id = 0, step_id = 0;
	char step[16], host[256] = "";

	if (spank_get_item(sp, S_JOB_ID, &job_id) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_STEPID, &step_id) != ESPANK_SUCCESS)
		return -1;
	if (step_id == 0xfffffffb)		/* SLURM_BATCH_SCRIPT */
		snprintf(step, sizeof(step), "batch");
	else if (step_id == 0xfffffffc)		/* SLURM_EXTERN_CONT */
		snprintf(step, sizeof(step), "extern");
	else if (step_id == 0xfffffffa)		/* SLURM_INTERACTIVE_STEP */
		snprintf(step, sizeof(step), "interactive");
	else
		snprintf(step, sizeof(step), "%u", step_id);
	if (gethostname(host, sizeof(host) - 1) < 0)
		host[0] = '\0';
	return ibnet_bpf_floor_name(buf, len, job_id, step, host);
}

/*
 * slurmstepd, as root, before user_init plans the step: a step that asks for
 * a floor gets its tier chosen here, where the BPF tier can be started
 * (loaded, its cgroup made, attached); the plan takes the choice. A step
 * that asks for no floor is untouched: no cgroup, no program.
 */
static void start_floor(spank_t sp, const struct ibnet_job *job)
{
	char cgroup[64] = "", swept[512], name[128];

	if (!job->tcp_rto_min_us)
		return;
	if (floor_cgroup_name(sp, cgroup, sizeof(cgroup)) < 0)
		cgroup[0] = '\0';
	ibnet_floor_choose(job->tcp_rto_min_us, cfg.alltoall_lib != NULL,
			   cfg.tcp_rto_bpf, &bpf_floor, cgroup, &floor_choice, swept, sizeof(swept));
	floor_chosen = true;
	step_name(sp, name, sizeof(name));
	if (bpf_floor.link) {	/* which cgroup holds the floor: an admin's first question */
		char spread[160];

		ibnet_bpf_floor_spread_said(&bpf_floor, spread, sizeof(spread));
		LOG_CAPPED(slurm_info, IBNET_PREFIX "%s: TCP retransmission floor by BPF on %s "
			   "cgroup %s, %s", name, bpf_floor.slurms ? "Slurm's step" : "the plugin's own",
			   bpf_floor.cgroup, spread);
	}
	if (bpf_floor.note[0])	/* a stale directory of the step's own name, made anew */
		LOG_CAPPED(slurm_info, IBNET_PREFIX "%s: %s", name, bpf_floor.note);
	if (swept[0])
		LOG_CAPPED(slurm_info, IBNET_PREFIX "%s: removed the empty cgroups of ended steps "
			   "(their slurmstepd was killed): %s", name, swept);
}

/*
 * The one place the SPANK layer resolves a request on its own: locally, to
 * refuse a bad one before the job is queued; remotely (root, before
 * user_init), to know whether the step asks for a floor. A remote request
 * that does not resolve is refused in user_init, with its sentence.
 */
int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	struct ibnet_err err = { "" };
	struct ibnet_job job = { 0 };
	bool remote = spank_remote(sp);
	char **env = NULL;

	(void)ac;
	(void)av;
	if (!cfg_loaded || (remote && spank_get_item(sp, S_JOB_ENV, &env) != ESPANK_SUCCESS))
		return 0;
	if (ibnet_request_resolve(&cfg, &opts, remote ? job_getenv : process_getenv, env, &job,
				  &err) < 0) {
		if (remote)
			return 0;
		LOG_CAPPED(slurm_error, "%s", err.msg);
		return -1;
	}
	if (remote)
		start_floor(sp, &job);
	else
		record_for_scheduler(sp, &job);
	return 0;
}

static int apply_plan(spank_t sp, const struct ibnet_env_plan *plan)
{
	size_t i;

	for (i = 0; i < plan->n; i++) {
		const struct ibnet_env_op *op = &plan->ops[i];
		spank_err_t rc = op->value ? spank_setenv(sp, op->name, op->value, 1)
					   : spank_unsetenv(sp, op->name);

		if (rc != ESPANK_SUCCESS) {
			LOG_CAPPED(slurm_error, IBNET_PREFIX "cannot set %s in the job environment: %s",
				   op->name, spank_strerror(rc));
			return -1;
		}
	}
	for (i = 0; i < plan->too_long.n; i++)
		LOG_CAPPED(slurm_error, IBNET_PREFIX "%s not set: with this job's hosts it would "
			   "exceed the kernel's %d-byte limit for one environment variable; use "
			   "SLURM_JOB_NODELIST and ibnet-hosts instead", plan->too_long.v[i],
			   IBNET_ENV_STRING_MAX);
	return 0;
}

/* "job 12 step 0 on c1-2", for the node's log. */
static void step_name(spank_t sp, char *buf, size_t len)
{
	uint32_t job_id = 0, step_id = 0;
	char host[64] = "?";

	spank_get_item(sp, S_JOB_ID, &job_id);
	spank_get_item(sp, S_JOB_STEPID, &step_id);
	gethostname(host, sizeof(host) - 1);
	if (step_id == 0xfffffffb)		/* SLURM_BATCH_SCRIPT */
		snprintf(buf, len, "job %u batch step on %s", job_id, host);
	else
		snprintf(buf, len, "job %u step %u on %s", job_id, step_id, host);
}

/*
 * A node whose plugstack.conf arguments are broken runs the steps that ask
 * for nothing, as the site default (read on its own) would have them, and
 * fails the rest with the reason.
 */
static bool broken_config_blocks(char **env)
{
	if (ibnet_request_explicit(&opts, job_getenv, env))
		return true;
	return !broken_default_known || broken_default != IBNET_NONE;
}

/* Decide and plan once per step and node; never fail here (see the top). */
static void plan_step(spank_t sp)
{
	struct ibnet_step_inputs in = { .opts = &opts, .lookup = job_getenv };
	char **env = NULL, *node_name = NULL;
	char name[128];
	uint32_t node_id = 0, step_id = 0;

	step_name(sp, name, sizeof(name));
	if (spank_get_item(sp, S_JOB_ENV, &env) != ESPANK_SUCCESS) {
		ibnet_err_set(&step_err, IBNET_PREFIX "cannot read the job environment");
		goto refused;
	}
	if (cfg_broken) {
		if (!broken_config_blocks(env)) {
			slurm_info(IBNET_PREFIX "%s: transport=none; this node's plugstack.conf "
				   "arguments are invalid, and the step asked for nothing", name);
			step_planned = true;	/* an empty plan */
			return;
		}
		ibnet_err_set(&step_err, "%s (plugstack.conf of node %s: this step cannot get its "
			      "network there; please tell the cluster's administrators)",
			      cfg_err.msg, strrchr(name, ' ') + 1);
		goto refused;
	}
	in.ctx = env;
	in.floor_chosen = floor_chosen ? &floor_choice : NULL;
	/* The interface by route knows this node among the job's by its Slurm name too. */
	if (spank_get_item(sp, S_JOB_NODEID, &node_id) == ESPANK_SUCCESS &&
	    spank_get_item(sp, S_JOB_STEPID, &step_id) == ESPANK_SUCCESS)
		in.node_name = node_name = ibnet_job_node_name(job_getenv, env, node_id,
							       step_id == 0xfffffffb);
	if (ibnet_step_plan(&cfg, &in, &step, &step_err) < 0) {
		free(node_name);
		goto refused;
	}
	free(node_name);	/* read by the plan only */
	step.job.node_name = NULL;
	step_planned = true;
	if (step.asked_nothing)
		LOG_CAPPED(slurm_verbose, IBNET_PREFIX "%s: %s", name,
			   step.summary ? step.summary : "transport=none");
	else
		LOG_CAPPED(slurm_info, IBNET_PREFIX "%s: %s", name,
			   step.summary ? step.summary : "(out of memory)");
	return;
refused:
	LOG_CAPPED(slurm_info, IBNET_PREFIX "%s: refused: %s", name, step_err.msg +
		   (strncmp(step_err.msg, IBNET_PREFIX, strlen(IBNET_PREFIX)) ? 0 : strlen(IBNET_PREFIX)));
}

/*
 * A paced step gets a directory for its processes' all-to-all counts, so
 * the node's log says what the step got even when the user asked for no
 * report. Made here, as the user (user_init runs with the user's ids), so
 * the user's processes can write there and nothing else can; read and
 * removed at the step's end (log_tally). Every step gets its own, also one
 * that inherits the batch step's (an srun, or mpirun's daemons, in a batch
 * job: that directory is on another node, or summed by another step). A job
 * that set the variable to a directory of its own keeps it, and its files.
 */
#define TALLY_TEMPLATE "/tmp/spank-ibnet-tally."

/* The step's floor is the job preload's (it counts its sockets into the tally). */
static bool sockopt_floor(void)
{
	return floor_chosen && floor_choice.tier == IBNET_FLOOR_SOCKOPT;
}

static void make_tally_dir(spank_t sp)
{
	const char *had;
	char **env = NULL;

	if (!step_planned || (step.job.alltoall != IBNET_ALLTOALL_PACED && !sockopt_floor()))
		return;
	if (spank_get_item(sp, S_JOB_ENV, &env) == ESPANK_SUCCESS &&
	    (had = job_getenv(env, IBNET_A2A_ENV_TALLY)) &&
	    strncmp(had, TALLY_TEMPLATE, strlen(TALLY_TEMPLATE)) != 0)
		return;
	if (ibnet_tally_dir_make(&tally_dir, TALLY_TEMPLATE) < 0) {
		slurm_verbose(IBNET_PREFIX "no all-to-all tally for this step: cannot make a "
			      "directory " TALLY_TEMPLATE "XXXXXX: %m");
		return;
	}
	if (spank_setenv(sp, IBNET_A2A_ENV_TALLY, tally_dir.path, 1) != ESPANK_SUCCESS) {
		slurm_verbose(IBNET_PREFIX "no all-to-all tally for this step: %s not set",
			      IBNET_A2A_ENV_TALLY);
		ibnet_tally_dir_discard(&tally_dir);
	}
}

/*
 * The step's all-to-all counts, summed over its processes on this node, or
 * that none reported; the directory goes only if it is still the one made.
 */
static void log_tally(spank_t sp)
{
	struct ibnet_tally tally = { 0 };
	char name[128], line[IBNET_LOG_LINE_MAX];

	if (!tally_dir.path[0])
		return;
	step_name(sp, name, sizeof(name));
	if (ibnet_tally_collect(&tally, &tally_dir, line, sizeof(line)) < 0) {
		LOG_CAPPED(slurm_error, IBNET_PREFIX "%s: %s", name, line);
		tally_dir.path[0] = '\0';
		return;
	}
	/* The socket option's counts, in the BPF tier's words (stop_floor). */
	if (sockopt_floor()) {
		unsigned long sockets, timeouts, retransmitted;

		ibnet_tally_floor(&tally, &sockets, &timeouts, &retransmitted);
		if (tally.floor_files)
			ibnet_floor_counts_line(line, sizeof(line), floor_choice.floor_us,
						IBNET_FLOOR_SOCKOPT, sockets, timeouts,
						retransmitted);
		else
			snprintf(line, sizeof(line), "TCP retransmission floor %lu us (socket "
				 "option): no process reported its sockets (none made a TCP "
				 "socket, or it did not load the job preload)", floor_choice.floor_us);
		LOG_CAPPED(slurm_info, IBNET_PREFIX "%s: %s", name, line);
	}
	if (step.job.alltoall == IBNET_ALLTOALL_PACED) {
		ibnet_tally_log_line(&tally, tally_dir.path, line, sizeof(line));
		LOG_CAPPED(slurm_info, IBNET_PREFIX "%s: %s", name, line);
		/* alltoall_window=auto: the window the node's processes reached. */
		ibnet_tally_window(&tally, line, sizeof(line));
		if (line[0])
			LOG_CAPPED(slurm_info, IBNET_PREFIX "%s: %s", name, line);
		/* The route by measurement: the route each size class took. */
		ibnet_tally_routes(&tally, line, sizeof(line));
		if (line[0])
			LOG_CAPPED(slurm_info, IBNET_PREFIX "%s: %s", name, line);
	}
	tally_dir.path[0] = '\0';
}

int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	if ((cfg_loaded || cfg_broken) && spank_remote(sp)) {
		plan_step(sp);
		make_tally_dir(sp);
	}
	return 0;
}

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	if (!(cfg_loaded || cfg_broken) || !spank_remote(sp))
		return 0;
	if (!step_planned) {
		LOG_CAPPED(slurm_error, "%s", step_err.msg[0] ? step_err.msg :
			   IBNET_PREFIX "no environment was planned for this step");
		return -1;
	}
	return apply_plan(sp, &step.plan);
}

/*
 * slurmstepd, as root, once per task, before the task may exec: the BPF
 * tier's cgroup takes the task, so every socket it and its children make is
 * the step's. A task that cannot be moved runs without the floor, logged.
 */
int slurm_spank_task_post_fork(spank_t sp, int ac, char **av)
{
	char why[300];
	pid_t pid = 0;

	(void)ac;
	(void)av;
	if (!spank_remote(sp) || !bpf_floor.link)
		return 0;
	if (spank_get_item(sp, S_TASK_PID, &pid) != ESPANK_SUCCESS)
		snprintf(why, sizeof(why), "its process id is not known");
	else if (ibnet_bpf_floor_add_pid(&bpf_floor, pid, why, sizeof(why)) == 0)
		return 0;
	LOG_CAPPED(slurm_error, IBNET_PREFIX "a task of this step runs without the TCP "
		   "retransmission floor: %s", why);
	return 0;
}

/*
 * The BPF tier at the step's end: what the step's sockets met, for the
 * node's log line; then detached and its cgroup removed. (A slurmstepd
 * killed before this closes the link's descriptor by dying, which detaches
 * the program; its cgroup goes in the job's epilog, below.)
 */
static void stop_floor(spank_t sp)
{
	struct ibnet_bpf_floor_counts c;
	char name[128], note[512], line[256];

	if (!bpf_floor.link)
		return;
	step_name(sp, name, sizeof(name));
	if (ibnet_bpf_floor_read(&bpf_floor, &c) == 0) {
		ibnet_floor_counts_line(line, sizeof(line), bpf_floor.floor_us, IBNET_FLOOR_BPF,
					c.floored, c.rto, c.retrans);
		LOG_CAPPED(slurm_info, IBNET_PREFIX "%s: %s%s", name, line,
			   c.refused ? " (refused on some sockets)" : "");
	}
	ibnet_bpf_floor_stop(&bpf_floor, note, sizeof(note));
	if (note[0])
		LOG_CAPPED(slurm_info, IBNET_PREFIX "%s: %s", name, note);
}

/*
 * The job's end on this node (slurmd's epilog, root): the BPF tier's
 * cgroups of the job's steps whose slurmstepd was killed (no exit callback
 * ran), with any task that outlived it moved out; their programs went with
 * the killed slurmstepd. A step that ended normally left none. Never fails:
 * a failed epilog drains the node.
 */
int slurm_spank_job_epilog(spank_t sp, int ac, char **av)
{
	char mount[PATH_MAX], why[300], note[512], host[256] = "";
	uint32_t job_id = 0;

	(void)ac;
	(void)av;
	if (spank_get_item(sp, S_JOB_ID, &job_id) != ESPANK_SUCCESS ||
	    ibnet_bpf_floor_find_mount(mount, sizeof(mount), why, sizeof(why)) < 0)
		return 0;
	if (gethostname(host, sizeof(host) - 1) < 0)
		host[0] = '\0';
	if (ibnet_bpf_floor_sweep_job(mount, job_id, host, note, sizeof(note)) > 0 || note[0])
		LOG_CAPPED(slurm_info, IBNET_PREFIX "job %u: the TCP retransmission floor's cgroups "
			   "of steps whose slurmstepd was killed: %s", job_id, note);
	return 0;
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	if (spank_remote(sp)) {
		log_tally(sp);
		stop_floor(sp);
	}
	floor_chosen = false;
	if (step_planned)
		ibnet_step_free(&step);
	step_planned = false;
	if (cfg_loaded)
		ibnet_config_free(&cfg);
	cfg_loaded = false;
	return 0;
}
