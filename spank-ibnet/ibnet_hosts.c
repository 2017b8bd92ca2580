/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_hosts.c - the ibnet-hosts command: spank-ibnet's decisions, without Slurm.
 *
 *   ibnet-hosts --rule 's/^c(.*)/cib\1/' 'c1-[1-4]'     -> cib1-1,cib1-2,cib1-3,cib1-4
 *   ibnet-hosts --config 'ib_hostname=... allowed=tcp,ipoib' --check
 *   ibnet-hosts --config '...' --env --transport=rsocket --nodelist 'c1-[1-3]'
 *
 * It runs the same code as the plugin (--env calls ibnet_step_plan, as the
 * plugin does in slurmstepd), so admins can try a rule or a plugstack.conf
 * line before installing it, and the tests reach the C layer through it.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ibnet_config.h"
#include "ibnet_gaussian.h"
#include "ibnet_hostlist.h"
#include "ibnet_preload.h"
#include "ibnet_probe.h"
#include "ibnet_request.h"
#include "ibnet_site.h"
#include "ibnet_step.h"
#include "ibnet_tally.h"

static void usage(FILE *fp)
{
	fputs("Usage: ibnet-hosts [--rule RULE | --config 'KEY=VALUE ...'] [--expand] HOSTLIST\n"
	      "       ibnet-hosts [--config 'KEY=VALUE ...' | --site] --check [--nodelist HOSTLIST]\n"
	      "       ibnet-hosts [--config '...' | --site] --probe [--rspreload PATH]\n"
	      "                   [--preloaded LIST]\n"
	      "       ibnet-hosts [--config '...' | --site] --env [--transport=T]\n"
	      "                   [--[no-]ordered-alltoall] [--tcp-rto-min[=TIME|off]]\n"
	      "                   [--nodelist HOSTLIST] [--iface NAME]\n"
	      "       ibnet-hosts [--site | --rule RULE] --linda-input [FILE]\n"
	      "       ibnet-hosts --linda-workers FILE\n"
	      "       ibnet-hosts --tally DIR\n"
	      "\n"
	      "Map a Slurm hostlist to IB host names with spank-ibnet's rules.\n"
	      "  --rule RULE        s/REGEX/REPLACEMENT/ or file:PATH (default " IBNET_RULE_DEFAULT ")\n"
	      "  --config ARGS      plugstack.conf arguments of spank-ibnet, space-separated\n"
	      "  --site             the arguments of the site's own spank_ibnet.so line: in\n"
	      "                     $IBNET_PLUGSTACK_CONF, else slurm.conf's PlugStackConfig,\n"
	      "                     else plugstack.conf beside $SLURM_CONF (/etc/slurm)\n"
	      "  --linda-input      copy a Gaussian input (FILE or stdin) to stdout with each\n"
	      "                     %LindaWorkers line's hosts under their IB names; the\n"
	      "                     rule is read only if there is such a line\n"
	      "  --linda-workers FILE  has the Gaussian input a %LindaWorkers line? Exit 0\n"
	      "                     if it has, 1 if not, 3 if FILE cannot be read\n"
	      "  --expand           print the hosts without mapping them\n"
	      "  --separator SEP    between hosts in the output (default ',')\n"
	      "  --check            check --config and print the settings it gives; with\n"
	      "                     --nodelist, map every node as the plugin would\n"
	      "  --probe            print the librspreload and gate this node would preload,\n"
	      "                     the site's rsocket_programs, and $LD_PRELOAD with both\n"
	      "                     added as the plugin adds them (ld_preload=); a library\n"
	      "                     already preloaded is taken as it is; then the job\n"
	      "                     preload (alltoall_lib=) and which per-MPI paced builds\n"
	      "                     are beside it (alltoall_builds=)\n"
	      "  --rspreload PATH   with --probe: this librspreload, whatever the arguments say\n"
	      "  --preloaded LIST   with --probe: the job's LD_PRELOAD (default $LD_PRELOAD)\n"
	      "  --env              print, as shell commands, the environment changes a job\n"
	      "                     step would get, taking this environment as the job's,\n"
	      "                     and the decision on stderr as the plugin logs it\n"
	      "  --transport T      rsocket, ipoib, tcp or none (with --env; default\n"
	      "                     $SLURM_IBNET_TRANSPORT, else default_transport)\n"
	      "  --[no-]ordered-alltoall  (with --env; default $SLURM_IBNET_ALLTOALL)\n"
	      "  --tcp-rto-min[=TIME|off]  (with --env; default $SLURM_IBNET_TCP_RTO_MIN)\n"
	      "  --nodelist LIST    the job's nodes (with --env or --check; default\n"
	      "                     $SLURM_JOB_NODELIST, or every $SLURM_JOB_NODELIST_HET_GROUP_N\n"
	      "                     of a heterogeneous job); one hostlist per line is taken\n"
	      "                     too, as sinfo -h -o %N prints them\n"
	      "  --iface NAME       the interface the node has (with --env; default: look for\n"
	      "                     eth_iface or ib_iface on this machine, as the plugin does)\n"
	      "  --tally DIR        sum a paced step's all-to-all counts (the directory in\n"
	      "                     $SLURM_IBNET_ALLTOALL_TALLY) as the plugin logs them at\n"
	      "                     the step's end; nothing is removed\n"
	      "  --version          print the version\n"

	      "  --repeat N         do the mapping (or --env plan) N times and print its median\n"
	      "                     time on stderr, as the plugin would spend it\n"
	      "In a source tree, --probe and --env take the gate and the job preload from\n"
	      "beside this ibnet-hosts when nothing is installed at their configured paths.\n"
	      "Exit status: 0, 1 on a failure (with a sentence), 2 on a usage error.\n",
	      fp);
}

/*
 * In a source tree, before 'make install': a library path still at its
 * installed default, where nothing is installed, becomes the library of
 * the same name beside this ibnet-hosts (build/). Not silent: --probe
 * prints the path, and --env's decision line names the library it preloads.
 * Only for --probe and --env: --check prints what the line gives, as the
 * plugin would take it.
 */
static int use_built_library(char **slot, const char *installed)
{
	char exe[4096], *dir, *built;
	const char *base = strrchr(installed, '/');
	ssize_t n;

	if (!*slot || strcmp(*slot, installed) != 0 || access(installed, R_OK) == 0 || !base)
		return 0;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return 0;
	exe[n] = '\0';
	dir = strrchr(exe, '/');
	if (!dir)
		return 0;
	*dir = '\0';
	if (asprintf(&built, "%s%s", exe, base) < 0)
		return -1;
	if (access(built, R_OK) != 0) {
		free(built);
		return 0;
	}
	free(*slot);
	*slot = built;
	return 0;
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Print the median and range of n timings (microseconds) on stderr. */
static void report_times(double *t, int n)
{
	qsort(t, (size_t)n, sizeof(*t), cmp_double);
	fprintf(stderr, "TIME runs=%d median_us=%.1f min_us=%.1f max_us=%.1f\n", n, t[n / 2], t[0],
		t[n - 1]);
}

static const char *process_getenv(void *ctx, const char *name)
{
	(void)ctx;
	return getenv(name);
}

/* Single-quote a value for a POSIX shell. */
static void print_quoted(const char *s)
{
	putchar('\'');
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", stdout);
		else
			putchar(*s);
	}
	putchar('\'');
}


/*
 * --check --nodelist "$(sinfo -h -o %N)": what would fail at run time on
 * this cluster's nodes fails here, before the line is installed.
 */
static int do_check_nodes(const struct ibnet_config *cfg, const char *nodelist,
			  struct ibnet_err *err)
{
	struct ibnet_strvec hosts = { 0 }, mapped = { 0 };
	int rc = -1;

	if (ibnet_hostlist_expand(nodelist, &hosts, err) == 0 &&
	    ibnet_rule_map(cfg->ib_rule, &hosts, &mapped, err) == 0) {
		printf("nodes: %zu, each mapped (first: %s -> %s)\n", hosts.n, hosts.v[0],
		       mapped.v[0]);
		rc = 0;
	}
	ibnet_strvec_free(&hosts);
	ibnet_strvec_free(&mapped);
	return rc;
}

/*
 * --probe: the job preload and its per-MPI builds, as a paced step's log
 * line names them (ibnet_probe_paced_builds_describe).
 */
static void print_paced_builds(const struct ibnet_config *cfg)
{
	const char *a2a = ibnet_probe_alltoall(cfg);
	bool have[IBNET_A2A_ABI_COUNT];
	char line[512];

	if (!a2a) {
		printf("alltoall_lib=none%s%s%s\n", cfg->alltoall_lib ? " (" : "",
		       cfg->alltoall_lib ? cfg->alltoall_lib : "", cfg->alltoall_lib ?
		       " is not on this node, or not a file every user can read)" : "");
		return;
	}
	ibnet_probe_paced_builds(a2a, have);
	printf("alltoall_lib=%s\nalltoall_builds=%s\n", a2a,
	       ibnet_probe_paced_builds_describe(have, line, sizeof(line)));
}

/*
 * What linda-rsockets needs on this node: librspreload and the gate, the
 * site's programs, and the job's LD_PRELOAD (preloaded) with both added by
 * the plugin's rule (ibnet_preload.h). A library the job preloads already
 * (in an rsocket job, the plugin's) is the one it uses: no search, and
 * nothing added for it.
 */
static int do_probe(const struct ibnet_config *cfg, const char *preloaded, struct ibnet_err *err)
{
	struct ibnet_strvec have = { 0 };
	struct ibnet_job rsocket = { .transport = IBNET_RSOCKET };
	const char *rspreload = NULL, *rsgate = NULL, *ours[3];
	char *ld_preload = NULL;
	size_t n;
	int rc = -1;

	if (preloaded && ibnet_preload_split(&have, preloaded) < 0)
		goto nomem;
	rspreload = ibnet_preload_find(&have, "librspreload.so");
	if (!rspreload && !(rspreload = ibnet_probe_rspreload(cfg, err)))
		goto out;
	rsgate = ibnet_preload_find(&have, cfg->rsgate);
	if (!rsgate && !(rsgate = ibnet_probe_rsgate(cfg, err)))
		goto out;
	/* An rsocket step's libraries, in the plugin's order (no job preload here). */
	rsocket.rsgate_path = rsgate;
	rsocket.rspreload_path = rspreload;
	n = ibnet_preload_ours(&rsocket, false, ours);
	if (ibnet_preload_compose(preloaded, ours, n, &ld_preload) < 0)
		goto nomem;
	printf("rspreload=%s\nrsgate=%s\nrsocket_programs=%s\nld_preload=%s\n", rspreload, rsgate,
	       cfg->rsocket_programs, ld_preload ? ld_preload : "");
	print_paced_builds(cfg);
	rc = 0;
	goto out;
nomem:
	ibnet_err_set(err, IBNET_PREFIX "out of memory");
out:
	free(ld_preload);
	ibnet_strvec_free(&have);
	return rc;
}

/*
 * The plan a step would get, through ibnet_step_plan, the plugin's own
 * function: this process's environment is the step's.
 */
static int do_env(const struct ibnet_config *cfg, const struct ibnet_step_inputs *in,
		  int repeat, struct ibnet_err *err)
{
	struct ibnet_step step;
	size_t i;
	int r;

	if (repeat > 0) {
		double *t = malloc((size_t)repeat * sizeof(*t));

		for (r = 0; t && r < repeat; r++) {
			double t0 = now_us();

			if (ibnet_step_plan(cfg, in, &step, err) < 0) {
				free(t);
				return -1;
			}
			t[r] = now_us() - t0;
			ibnet_step_free(&step);
		}
		if (t)
			report_times(t, repeat);
		free(t);
	}
	if (ibnet_step_plan(cfg, in, &step, err) < 0)
		return -1;
	{
		char line[IBNET_LOG_LINE_MAX];

		/* The plugin's log line, capped as the plugin caps it. */
		fprintf(stderr, "%s\n", ibnet_log_line(line, IBNET_PREFIX "%s",
							step.summary ? step.summary : "(out of memory)"));
	}
	for (i = 0; i < step.plan.n; i++) {
		if (step.plan.ops[i].value) {
			printf("export %s=", step.plan.ops[i].name);
			print_quoted(step.plan.ops[i].value);
			putchar('\n');
		} else {
			printf("unset %s\n", step.plan.ops[i].name);
		}
	}
	for (i = 0; i < step.plan.too_long.n; i++)
		fprintf(stderr, IBNET_PREFIX "%s not set: over the kernel's limit for one "
			"environment variable\n", step.plan.too_long.v[i]);
	ibnet_step_free(&step);
	return 0;
}

static int do_map(const struct ibnet_config *cfg, const char *hostlist, int expand_only,
		  const char *sep, int repeat, struct ibnet_err *err)
{
	struct ibnet_strvec hosts = { 0 }, mapped = { 0 };
	double *t = repeat > 0 ? malloc((size_t)repeat * sizeof(*t)) : NULL;
	char *out = NULL;
	int rc = -1, r;

	for (r = 0; r <= repeat; r++) {
		double t0 = now_us();

		ibnet_strvec_free(&hosts);
		ibnet_strvec_free(&mapped);
		if (ibnet_hostlist_expand(hostlist, &hosts, err) < 0)
			goto done;
		if (!expand_only && ibnet_rule_map(cfg->ib_rule, &hosts, &mapped, err) < 0)
			goto done;
		if (t && r < repeat)
			t[r] = now_us() - t0;
	}
	if (t)
		report_times(t, repeat);
	out = ibnet_strvec_join(expand_only ? &hosts : &mapped, sep);
	if (!out) {
		ibnet_err_set(err, IBNET_PREFIX "out of memory");
		goto done;
	}
	puts(out);
	rc = 0;
done:
	free(t);
	free(out);
	ibnet_strvec_free(&hosts);
	ibnet_strvec_free(&mapped);
	return rc;
}

/* The whole of a Gaussian input; inputs are small, but bound what is read. */
#define LINDA_INPUT_MAX (64u << 20)
static int read_all(const char *path, struct ibnet_buf *b, struct ibnet_err *err)
{
	FILE *fp = path && strcmp(path, "-") ? fopen(path, "rb") : stdin;
	char chunk[65536];
	size_t n;

	if (!fp) {
		ibnet_err_set(err, IBNET_PREFIX "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0) {
		if (b->len + n > LINDA_INPUT_MAX || ibnet_buf_add(b, chunk, n) < 0) {
			ibnet_err_set(err, IBNET_PREFIX "%s: larger than 64 MiB or out of memory",
				      path ? path : "standard input");
			break;
		}
	}
	if (!err->msg[0] && ferror(fp))
		ibnet_err_set(err, IBNET_PREFIX "cannot read %s", path ? path : "standard input");
	if (fp != stdin)
		fclose(fp);
	if (!b->s && !err->msg[0])
		ibnet_buf_add(b, "", 0);
	return err->msg[0] ? -1 : 0;
}

/* The job's IB names, when run inside a job whose nodes the rule maps. */
static int do_linda_input(const struct ibnet_config *cfg, const struct ibnet_buf *in,
			  struct ibnet_err *err)
{
	struct ibnet_strvec hosts = { 0 }, ib_hosts = { 0 };
	struct ibnet_err ignored = { "" };
	struct ibnet_buf out = { 0 };
	unsigned long max = 0;
	char *nodelist = NULL;
	int rc;

	/* Hosts of the job already under IB names are kept as they are. */
	if (ibnet_job_nodelist(process_getenv, NULL, &nodelist, &max, NULL, 0, &ignored) == 0 && nodelist &&
	    ibnet_hostlist_expand(nodelist, &hosts, &ignored) == 0)
		ibnet_rule_map(cfg->ib_rule, &hosts, &ib_hosts, &ignored);
	free(nodelist);
	rc = ibnet_linda_input_rewrite(cfg->ib_rule, &ib_hosts, in->s, in->len, &out, err);
	if (rc == 0 && fwrite(out.s ? out.s : "", 1, out.len, stdout) != out.len) {
		ibnet_err_set(err, IBNET_PREFIX "cannot write standard output");
		rc = -1;
	}
	ibnet_buf_free(&out);
	ibnet_strvec_free(&hosts);
	ibnet_strvec_free(&ib_hosts);
	return rc;
}

/* --tally DIR: the plugin's log line for that directory, the directory left alone. */
static int print_tally(const char *dir)
{
	struct ibnet_tally tally = { 0 };
	char line[1024];

	if (ibnet_tally_read(&tally, dir) < 0) {
		fprintf(stderr, IBNET_PREFIX "--tally: cannot read the directory %s: %s\n", dir,
			strerror(errno));
		return 1;
	}
	ibnet_tally_describe(&tally, line, sizeof(line));
	printf("processes=%u skipped=%u\n%s\n", tally.files, tally.skipped, line);
	ibnet_tally_window(&tally, line, sizeof(line));
	if (line[0])
		printf("%s\n", line);
	ibnet_tally_routes(&tally, line, sizeof(line));
	if (line[0])
		printf("%s\n", line);
	if (tally.floor_files) {
		unsigned long sockets, timeouts, retransmitted;

		ibnet_tally_floor(&tally, &sockets, &timeouts, &retransmitted);
		printf("floor: processes=%u sockets=%lu timeouts=%lu retransmitted=%lu\n",
		       tally.floor_files, sockets, timeouts, retransmitted);
	}
	return 0;
}


/*
 * The command line, and what a mode is given: the options, the operands, and
 * the configuration once read. hosts_cmd_free is the one clean-up.
 */
struct hosts_cmd {
	const struct hosts_mode *mode;
	int argc;
	char **operands;		/* after the options */
	int noperands;
	const char *rule, *config, *sep, *iface, *nodelist, *rspreload, *preloaded;
	const char *mode_arg;		/* --tally DIR, --linda-workers FILE */
	bool site, expand, probe_only;
	int repeat;
	struct ibnet_options opts;
	struct ibnet_strvec args;	/* the plugstack.conf arguments */
	char *site_from;		/* --site: the file that has them */
	struct ibnet_config cfg;
	struct ibnet_buf input;		/* --linda-input's */
	struct ibnet_err err;
};

static void hosts_cmd_free(struct hosts_cmd *c)
{
	ibnet_config_free(&c->cfg);
	ibnet_strvec_free(&c->args);
	ibnet_buf_free(&c->input);
	free(c->site_from);
}

/* What a mode needs before it runs. */
enum {
	NEEDS_CONFIG = 1 << 0,		/* the arguments (--config, --site, --rule), parsed */
	NEEDS_BUILT = 1 << 1,		/* in a source tree, build/'s libraries (use_built_library) */
	TAKES_PRELOAD = 1 << 2,		/* --rspreload and --preloaded go with it */
	ALONE = 1 << 3,			/* ibnet-hosts --MODE ARG, nothing else */
};

/* A mode's run returns its exit status, or FAILED or OUT_OF_MEMORY. */
struct hosts_mode {
	const char *flag;		/* the option that picks it; NULL: a HOSTLIST */
	int needs;
	int min_operands, max_operands;
	int (*run)(struct hosts_cmd *c);
};

/*
 * Exit statuses: a usage error is 2, before anything is read. Inside,
 * FAILED is a failure with c->err's sentence and OUT_OF_MEMORY one without
 * (both exit 1); GO_ON: the options so far leave nothing to stop for.
 */
#define USAGE_ERROR 2
#define FAILED (-1)
#define OUT_OF_MEMORY (-2)
#define GO_ON (-3)

static int usage_error(void)
{
	usage(stderr);
	return USAGE_ERROR;
}

/*
 * The configuration a mode reads: --config's or --site's arguments, with
 * --rule as ib_hostname=, and --rspreload over them. 0, or the exit status.
 */
static int load_config(struct hosts_cmd *c)
{
	if (c->probe_only && !(c->mode->needs & TAKES_PRELOAD)) {
		fprintf(stderr, IBNET_PREFIX "--rspreload and --preloaded go with --probe\n");
		return USAGE_ERROR;
	}
	if (c->site && *c->config) {
		fprintf(stderr, IBNET_PREFIX "--site and --config both give the arguments; use one\n");
		return USAGE_ERROR;
	}
	if (c->site ? ibnet_site_args(process_getenv, NULL, &c->args, &c->site_from, &c->err) < 0
		    : ibnet_strvec_split(&c->args, c->config, " \t\n") < 0)
		return c->err.msg[0] ? FAILED : OUT_OF_MEMORY;
	if (c->rule) {
		char *kv;

		if (asprintf(&kv, "ib_hostname=%s", c->rule) < 0)
			return OUT_OF_MEMORY;
		if (ibnet_strvec_push_owned(&c->args, kv) < 0)
			return OUT_OF_MEMORY;
	}
	if (ibnet_config_parse(&c->cfg, (int)c->args.n, c->args.v, &c->err) < 0) {
		if (c->site_from)
			fprintf(stderr, "%s (the spank_ibnet.so line of %s)\n", c->err.msg, c->site_from);
		else
			fprintf(stderr, "%s\n", c->err.msg);
		return 1;
	}
	/* Over the site's arguments: the admin's librspreload wins (gaussian-ib-setup --preload). */
	if (c->rspreload && ibnet_config_override(&c->cfg, "rspreload", c->rspreload, &c->err) < 0) {
		fprintf(stderr, "%s (--rspreload)\n", c->err.msg);
		return 1;
	}
	if ((c->mode->needs & NEEDS_BUILT) &&
	    (use_built_library(&c->cfg.rsgate, IBNET_RSGATE_DEFAULT) < 0 ||
	     use_built_library(&c->cfg.alltoall_lib, IBNET_A2A_DEFAULT) < 0 ||
	     use_built_library(&c->cfg.tcp_rto_bpf, IBNET_BPF_FLOOR_DEFAULT) < 0))
		return OUT_OF_MEMORY;
	return 0;
}

static int run_map(struct hosts_cmd *c)
{
	ibnet_hostlist_lines_to_items(c->operands[0]);
	return do_map(&c->cfg, c->operands[0], c->expand, c->sep, c->repeat, &c->err);
}

/*
 * --check: every file the line names, checked on this node, each missing
 * one said with its key. Said, not refused: a login node needs only the
 * plugin, and this may be one (run --check on a compute node as well).
 */
static void check_paths(const struct ibnet_config *cfg)
{
	const struct { const char *key, *path; } files[] = {
		{ "rspreload", cfg->rspreload }, { "rsgate", cfg->rsgate },
		{ "alltoall_lib", cfg->alltoall_lib }, { "tcp_rto_bpf", cfg->tcp_rto_bpf },
	};
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		const char *problem = files[i].path ? ibnet_probe_file_problem(files[i].path) : NULL;

		if (problem)
			printf("missing: %s=%s: %s (a step that needs it is refused, or runs "
			       "without it, on such a node)\n", files[i].key, files[i].path, problem);
	}
}

static int run_check(struct hosts_cmd *c)
{
	ibnet_config_print(&c->cfg, stdout);
	check_paths(&c->cfg);
	return c->nodelist ? do_check_nodes(&c->cfg, c->nodelist, &c->err) : 0;
}

static int run_probe(struct hosts_cmd *c)
{
	return do_probe(&c->cfg, c->preloaded, &c->err);
}

static int run_env(struct hosts_cmd *c)
{
	/* In a task, slurmstepd's SLURMD_NODENAME is this node's Slurm name. */
	struct ibnet_step_inputs in = { .opts = &c->opts, .lookup = process_getenv,
					.nodelist = c->nodelist, .iface = c->iface,
					.node_name = getenv("SLURMD_NODENAME") };

	return do_env(&c->cfg, &in, c->repeat, &c->err);
}

/* The configuration is read only for an input with hosts to rename. */
static int run_linda_input(struct hosts_cmd *c)
{
	int rc;

	if (read_all(c->noperands ? c->operands[0] : NULL, &c->input, &c->err) < 0)
		return FAILED;
	/* Nothing to rename: pass it through without needing the site's rule. */
	if (!ibnet_linda_input_has_workers(c->input.s, c->input.len))
		return fwrite(c->input.s, 1, c->input.len, stdout) == c->input.len ? 0 : 1;
	if ((rc = load_config(c)) != 0)
		return rc;
	return do_linda_input(&c->cfg, &c->input, &c->err);
}

/*
 * --linda-workers FILE: does the input have a %LindaWorkers line, by the
 * rule that renames them (the g16 wrapper asks before it rewrites).
 * 0 yes, 1 no, 3 unreadable: not 2, every mode's usage error, so that the
 * wrapper tells an ibnet-hosts without this mode from a file it cannot read.
 */
static int run_linda_workers(struct hosts_cmd *c)
{
	if (read_all(c->mode_arg, &c->input, &c->err) < 0) {
		fprintf(stderr, "%s\n", c->err.msg);
		return 3;
	}
	return ibnet_linda_input_has_workers(c->input.s, c->input.len) ? 0 : 1;
}

static int run_tally(struct hosts_cmd *c)
{
	return print_tally(c->mode_arg);
}

/* The modes; the first, a HOSTLIST alone, is taken when no other is asked. */
static const struct hosts_mode modes[] = {
	{ NULL, NEEDS_CONFIG, 1, 1, run_map },
	{ "check", NEEDS_CONFIG, 0, 0, run_check },
	{ "probe", NEEDS_CONFIG | NEEDS_BUILT | TAKES_PRELOAD, 0, 0, run_probe },
	{ "env", NEEDS_CONFIG | NEEDS_BUILT, 0, 0, run_env },
	{ "linda-input", 0, 0, 1, run_linda_input },
	{ "linda-workers", ALONE, 0, 0, run_linda_workers },
	{ "tally", ALONE, 0, 0, run_tally },
};
#define MODE_COUNT (sizeof(modes) / sizeof(modes[0]))

static const struct hosts_mode *mode_named(const char *flag)
{
	size_t i;

	for (i = 1; i < MODE_COUNT; i++)
		if (strcmp(modes[i].flag, flag) == 0)
			return &modes[i];
	return NULL;
}

enum { OPT_RULE = 256, OPT_CONFIG, OPT_EXPAND, OPT_MODE, OPT_TRANSPORT, OPT_ORDERED,
       OPT_NO_ORDERED, OPT_NODELIST, OPT_IFACE, OPT_SEP, OPT_REPEAT, OPT_HELP, OPT_VERSION,
       OPT_SITE, OPT_RTO, OPT_RSPRELOAD, OPT_PRELOADED };

/* The mode options' names are the modes' flags. */
static const struct option longopts[] = {
	{ "rule", required_argument, NULL, OPT_RULE },
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "expand", no_argument, NULL, OPT_EXPAND },
	{ "check", no_argument, NULL, OPT_MODE },
	{ "probe", no_argument, NULL, OPT_MODE },
	{ "env", no_argument, NULL, OPT_MODE },
	{ "transport", required_argument, NULL, OPT_TRANSPORT },
	{ "ordered-alltoall", no_argument, NULL, OPT_ORDERED },
	{ "no-ordered-alltoall", no_argument, NULL, OPT_NO_ORDERED },
	{ "tcp-rto-min", optional_argument, NULL, OPT_RTO },
	{ "nodelist", required_argument, NULL, OPT_NODELIST },
	{ "iface", required_argument, NULL, OPT_IFACE },
	{ "separator", required_argument, NULL, OPT_SEP },
	{ "repeat", required_argument, NULL, OPT_REPEAT },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "site", no_argument, NULL, OPT_SITE },
	{ "linda-input", no_argument, NULL, OPT_MODE },
	{ "linda-workers", required_argument, NULL, OPT_MODE },
	{ "rspreload", required_argument, NULL, OPT_RSPRELOAD },
	{ "preloaded", required_argument, NULL, OPT_PRELOADED },
	{ "tally", required_argument, NULL, OPT_MODE },
	{ NULL, 0, NULL, 0 }
};

/*
 * One option into c; a mode's option adds to asked[]. GO_ON, or the exit
 * status (a bad value, --help, --version).
 */
static int take_option(struct hosts_cmd *c, int opt, const char *name, bool asked[])
{
	const struct hosts_mode *mode;

	switch (opt) {
	case OPT_RULE: c->rule = optarg; break;
	case OPT_CONFIG: c->config = optarg; break;
	case OPT_EXPAND: c->expand = true; break;
	case OPT_MODE:
		mode = mode_named(name);
		if (!mode)
			return usage_error();
		asked[mode - modes] = true;
		c->mode_arg = optarg ? optarg : c->mode_arg;
		break;
	case OPT_TRANSPORT:
		if (ibnet_transport_parse(optarg, "--transport", &c->opts.transport, &c->err) < 0) {
			fprintf(stderr, "%s\n", c->err.msg);
			return USAGE_ERROR;
		}
		c->opts.transport_given = true;
		break;
	case OPT_ORDERED:
	case OPT_NO_ORDERED:
		c->opts.ordered = opt == OPT_ORDERED;
		c->opts.alltoall_given = true;
		break;
	case OPT_RTO:
		if (ibnet_options_set_rto(&c->opts, optarg, &c->err) < 0) {
			fprintf(stderr, "%s\n", c->err.msg);
			return USAGE_ERROR;
		}
		break;
	case OPT_NODELIST:
		ibnet_hostlist_lines_to_items(optarg);
		c->nodelist = optarg;
		break;
	case OPT_IFACE: c->iface = optarg; break;
	case OPT_SEP: c->sep = optarg; break;
	case OPT_REPEAT:
		c->repeat = atoi(optarg);
		if (c->repeat < 1 || c->repeat > 100000) {
			fprintf(stderr, IBNET_PREFIX "--repeat must be 1..100000, not '%s'\n", optarg);
			return USAGE_ERROR;
		}
		break;
	case OPT_HELP: usage(stdout); return 0;
	case OPT_VERSION: puts("ibnet-hosts (spank-ibnet) " IBNET_VERSION); return 0;
	case OPT_SITE: c->site = true; break;
	case OPT_RSPRELOAD: c->rspreload = optarg; c->probe_only = true; break;
	case OPT_PRELOADED: c->preloaded = optarg; c->probe_only = true; break;
	default: return usage_error();
	}
	return GO_ON;
}

/*
 * The mode asked for (a HOSTLIST alone if none), with the operands it
 * takes. An ALONE mode is its option and argument, nothing else: three
 * words on the command line. 0, or the usage error.
 */
static int choose_mode(struct hosts_cmd *c, const bool asked[])
{
	size_t i, n = 0;

	c->mode = &modes[0];
	for (i = 1; i < MODE_COUNT; i++) {
		if (!asked[i])
			continue;
		if (modes[i].needs & ALONE) {
			c->mode = &modes[i];
			return c->argc == 3 ? 0 : usage_error();
		}
		c->mode = &modes[i];
		n++;
	}
	if (n > 1 || c->noperands < c->mode->min_operands ||
	    c->noperands > c->mode->max_operands)
		return usage_error();
	return 0;
}

int main(int argc, char **argv)
{
	struct hosts_cmd c = { .argc = argc, .config = "", .sep = ",",
			       .preloaded = getenv("LD_PRELOAD"), .err = { "" } };
	bool asked[MODE_COUNT] = { false };
	int opt, idx, rc = GO_ON;

	while (rc == GO_ON && (opt = getopt_long(argc, argv, "", longopts, &idx)) != -1)
		rc = take_option(&c, opt, opt == OPT_MODE ? longopts[idx].name : NULL, asked);
	if (rc != GO_ON)
		return rc;
	c.operands = argv + optind;
	c.noperands = argc - optind;
	if (choose_mode(&c, asked) != 0)
		return USAGE_ERROR;
	rc = c.mode->needs & NEEDS_CONFIG ? load_config(&c) : 0;
	if (rc == 0)
		rc = c.mode->run(&c);
	if (rc == FAILED)
		fprintf(stderr, "%s\n", c.err.msg);
	else if (rc == OUT_OF_MEMORY)
		fprintf(stderr, IBNET_PREFIX "out of memory\n");
	hosts_cmd_free(&c);
	return rc < 0 ? 1 : rc;
}
