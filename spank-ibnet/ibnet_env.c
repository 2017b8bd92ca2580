/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_env.c - the environment a job gets for its transport and all-to-all.
 */
#include "ibnet_env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibnet_hostlist.h"

#define T_NONE (1u << IBNET_NONE)
#define T_TCP (1u << IBNET_TCP)
#define T_IPOIB (1u << IBNET_IPOIB)
#define T_RSOCKET (1u << IBNET_RSOCKET)
/* Every transport that names a network; "none" sets only the all-to-all. */
#define T_NET (T_TCP | T_IPOIB | T_RSOCKET)
#define T_ANY (T_NET | T_NONE)

enum value_kind {
	V_LITERAL,	/* the literal below */
	V_IFACE,	/* the interface found on the node from eth_iface (tcp) or ib_iface */
	V_RDMA_DEVICE,	/* rdma_device as given (mlx5_0:1); skipped when unset */
	V_RDMA_HCA,	/* rdma_device without its port (mlx5_0); skipped when unset */
};

/*
 * What each MPI library is told, per transport. Every entry is set only
 * when the user has not set it. Open MPI and MPICH entries were checked
 * against the installed libraries (ompi_info, mpivars); Intel MPI and
 * MVAPICH2 entries come from their documentation and are not tested here.
 *
 * For rsocket the RDMA fabric itself is left to each library's own
 * selection (UCX, OFI and verbs pick the HCA), unless the admin names
 * rdma_device; the TCP settings keep any socket fallback on the IB network.
 */
static const struct env_rule {
	const char *name;
	unsigned transports;
	bool ordered_only;
	enum value_kind kind;
	const char *literal;
} env_rules[] = {
	/* Open MPI 4.1: TCP BTL and runtime (oob) traffic. */
	{ "OMPI_MCA_btl_tcp_if_include", T_NET, false, V_IFACE, NULL },
	{ "OMPI_MCA_oob_tcp_if_include", T_NET, false, V_IFACE, NULL },
	/*
	 * Open MPI 5: its runtime is PRRTE, which reads its own prefix and
	 * ignores OMPI_MCA_oob_*. prte_if_include is the name; oob_tcp_if_include
	 * is its deprecated synonym, and setting both makes every mpirun print a
	 * deprecation warning (PRRTE 3.0.8).
	 */
	{ "PRTE_MCA_prte_if_include", T_NET, false, V_IFACE, NULL },
	/* Open MPI 4.1 coll/tuned: 2 = pairwise. */
	{ "OMPI_MCA_coll_tuned_use_dynamic_rules", T_ANY, true, V_LITERAL, "1" },
	{ "OMPI_MCA_coll_tuned_alltoall_algorithm", T_ANY, true, V_LITERAL, "2" },
	/* MPICH 4 (ch4:ucx): UCX devices, Hydra's interface, alltoall CVAR. */
	{ "UCX_NET_DEVICES", T_TCP | T_IPOIB, false, V_IFACE, NULL },
	{ "UCX_NET_DEVICES", T_RSOCKET, false, V_RDMA_DEVICE, NULL },
	{ "HYDRA_IFACE", T_NET, false, V_IFACE, NULL },
	{ "MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM", T_ANY, true, V_LITERAL, "pairwise" },
	/* Intel MPI 2019+ (not tested here): OFI over TCP, or its RDMA provider. */
	{ "I_MPI_FABRICS", T_NET, false, V_LITERAL, "shm:ofi" },
	{ "I_MPI_OFI_PROVIDER", T_TCP | T_IPOIB, false, V_LITERAL, "tcp" },
	{ "FI_TCP_IFACE", T_TCP | T_IPOIB, false, V_IFACE, NULL },
	{ "I_MPI_HYDRA_IFACE", T_NET, false, V_IFACE, NULL },
	{ "I_MPI_ADJUST_ALLTOALL", T_ANY, true, V_LITERAL, "3" },	/* pairwise exchange */
	/* MVAPICH2 (not tested here): verbs only, so only the HCA and alltoall. */
	{ "MV2_IBA_HCA", T_RSOCKET, false, V_RDMA_HCA, NULL },
	{ "MV2_ALLTOALL_TUNING", T_ANY, true, V_LITERAL, "3" },	/* ALLTOALL_PAIRWISE_MV2 */
};

#define MANAGED_VAR "SLURM_IBNET_MANAGED"
#define ORIG_PREFIX "SLURM_IBNET_ORIG_"

void ibnet_env_plan_free(struct ibnet_env_plan *plan)
{
	size_t i;

	for (i = 0; i < plan->n; i++) {
		free(plan->ops[i].name);
		free(plan->ops[i].value);
	}
	free(plan->ops);
	ibnet_strvec_free(&plan->too_long);
	ibnet_strvec_free(&plan->notes);
	memset(plan, 0, sizeof(*plan));
}

/* The planning state: the plan so far is an overlay on the job's env. */
struct planner {
	struct ibnet_env_plan *plan;
	ibnet_env_lookup_fn lookup;
	void *ctx;
	struct ibnet_strvec managed;	/* NAME:HASH entries for the new plan */
	struct ibnet_strvec users;	/* names the job took over: never touched */
	bool nomem;
};

static struct ibnet_env_op *find_op(struct planner *pl, const char *name)
{
	size_t i;

	for (i = 0; i < pl->plan->n; i++)
		if (strcmp(pl->plan->ops[i].name, name) == 0)
			return &pl->plan->ops[i];
	return NULL;
}

/* The value name would have after the plan so far. */
static const char *view_get(struct planner *pl, const char *name)
{
	struct ibnet_env_op *op = find_op(pl, name);

	return op ? op->value : pl->lookup(pl->ctx, name);
}

/* Record name=value (value NULL: unset), replacing an earlier op. */
static void put(struct planner *pl, const char *name, const char *value)
{
	struct ibnet_env_op *op = find_op(pl, name);
	char *v = NULL;

	if (value && !(v = strdup(value))) {
		pl->nomem = true;
		return;
	}
	if (op) {
		free(op->value);
		op->value = v;
		return;
	}
	if (pl->plan->n == pl->plan->cap) {
		size_t cap = pl->plan->cap ? pl->plan->cap * 2 : 32;
		struct ibnet_env_op *ops = realloc(pl->plan->ops, cap * sizeof(*ops));

		if (!ops) {
			free(v);
			pl->nomem = true;
			return;
		}
		pl->plan->ops = ops;
		pl->plan->cap = cap;
	}
	op = &pl->plan->ops[pl->plan->n];
	if (!(op->name = strdup(name))) {
		free(v);
		pl->nomem = true;
		return;
	}
	op->value = v;
	pl->plan->n++;
}

/* Would "name=value" fit in one environment string? */
static bool fits(const char *name, const char *value)
{
	return strlen(name) + strlen(value) + 2 <= IBNET_ENV_STRING_MAX;
}

static void orig_name(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, ORIG_PREFIX "%.100s", name);	/* names are <= 100 */
}

/* Set a variable the plugin owns from now on, remembering its hash. */
static void put_managed(struct planner *pl, const char *name, const char *value)
{
	char entry[160];

	if (ibnet_strvec_contains(&pl->users, name))
		return;		/* the job changed or unset it after us: theirs */
	if (!fits(name, value)) {
		if (ibnet_strvec_push(&pl->plan->too_long, name) < 0)
			pl->nomem = true;
		return;
	}
	put(pl, name, value);
	/*
	 * A SLURM_IBNET_ORIG_<NAME> we did not plan here is not the user's value
	 * of a variable we changed (the job or a stale environment set it): left
	 * in place, a later step would "restore" it.
	 */
	orig_name(entry, sizeof(entry), name);
	if (!find_op(pl, entry) && pl->lookup(pl->ctx, entry))
		put(pl, entry, NULL);
	snprintf(entry, sizeof(entry), "%.100s:%08x", name, ibnet_hash(value));
	if (ibnet_strvec_push(&pl->managed, entry) < 0)
		pl->nomem = true;
}

/* Change a variable the user set, keeping their value to restore later. */
static void put_changed(struct planner *pl, const char *name, const char *user_value,
			const char *value)
{
	char oname[160];

	if (ibnet_strvec_contains(&pl->users, name))
		return;
	if (!fits(name, value)) {
		if (ibnet_strvec_push(&pl->plan->too_long, name) < 0)
			pl->nomem = true;
		return;
	}
	orig_name(oname, sizeof(oname), name);
	put(pl, oname, user_value);
	put_managed(pl, name, value);
}

static bool env_name_valid(const char *s, size_t n)
{
	return n >= 1 && n <= 100 &&
	       strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") >= n;
}

/*
 * The job took name over (changed or unset it after the plugin set it):
 * remember it for this step and every later one, and say so once.
 */
static void hand_over(struct planner *pl, const char *name, const char *how)
{
	char entry[160], note[200];

	if (ibnet_strvec_contains(&pl->users, name))
		return;
	snprintf(entry, sizeof(entry), "%.100s:-", name);
	if (ibnet_strvec_push(&pl->users, name) < 0 ||
	    ibnet_strvec_push(&pl->managed, entry) < 0)
		pl->nomem = true;
	if (how) {
		snprintf(note, sizeof(note), "%.100s %s by the job after spank-ibnet set it: "
			 "left as the job has it", name, how);
		if (ibnet_strvec_push(&pl->plan->notes, note) < 0)
			pl->nomem = true;
	}
}

/* Undo what an earlier step of this job set, where the user has not since. */
static void undo_previous(struct planner *pl)
{
	const char *managed = pl->lookup(pl->ctx, MANAGED_VAR);
	struct ibnet_strvec entries = { 0 };
	size_t i;

	if (!managed)
		return;
	if (ibnet_strvec_split(&entries, managed, ",") < 0) {
		pl->nomem = true;
		return;
	}
	for (i = 0; i < entries.n; i++) {
		char *colon = strrchr(entries.v[i], ':');
		char oname[160];
		const char *cur, *orig;
		unsigned long hash;

		if (!colon || !env_name_valid(entries.v[i], (size_t)(colon - entries.v[i])))
			continue;
		*colon = '\0';
		if (strcmp(colon + 1, "-") == 0) {
			hand_over(pl, entries.v[i], NULL);	/* taken over in an earlier step */
			continue;
		}
		hash = strtoul(colon + 1, NULL, 16);
		orig_name(oname, sizeof(oname), entries.v[i]);
		cur = pl->lookup(pl->ctx, entries.v[i]);
		orig = pl->lookup(pl->ctx, oname);
		if (cur && ibnet_hash(cur) == hash)
			put(pl, entries.v[i], orig);
		else
			hand_over(pl, entries.v[i], cur ? "was changed" : "was unset");
		if (orig)
			put(pl, oname, NULL);
	}
	put(pl, MANAGED_VAR, NULL);
	ibnet_strvec_free(&entries);
}

static const char *rule_value(const struct env_rule *r, const struct ibnet_config *cfg,
			      const struct ibnet_job *job, char *buf, size_t len)
{
	switch (r->kind) {
	case V_LITERAL:
		return r->literal;
	case V_IFACE:
		return job->iface;
	case V_RDMA_DEVICE:
		return cfg->rdma_device;
	case V_RDMA_HCA:
		if (!cfg->rdma_device)
			return NULL;
		snprintf(buf, len, "%.*s", (int)strcspn(cfg->rdma_device, ":,"), cfg->rdma_device);
		return buf;
	}
	return NULL;
}

/*
 * LD_PRELOAD: our libraries after the user's, each listed once: the job
 * preload (paced all-to-all, TCP floor) first, so that its socket() sees
 * every socket and passes each on down the chain; for rsocket the gate
 * before librspreload (its socket() decides).
 */
static void plan_preload(struct planner *pl, const struct ibnet_job *job, bool job_preload)
{
	const char *cur = view_get(pl, "LD_PRELOAD");
	struct ibnet_strvec have = { 0 };
	struct ibnet_buf b = { 0 };
	const char *ours[3];
	size_t i, n = 0;

	if (job_preload)
		ours[n++] = job->alltoall_path;
	if (job->transport == IBNET_RSOCKET) {
		ours[n++] = job->rsgate_path;
		ours[n++] = job->rspreload_path;
	}
	if (cur && ibnet_strvec_split(&have, cur, ": \t") < 0)
		pl->nomem = true;
	if (cur)
		ibnet_buf_adds(&b, cur);
	for (i = 0; i < n; i++) {
		if (ibnet_strvec_contains(&have, ours[i]))
			continue;
		if (b.len)
			ibnet_buf_adds(&b, ":");
		ibnet_buf_adds(&b, ours[i]);
	}
	if (b.s && (!cur || strcmp(b.s, cur) != 0)) {
		if (cur)
			put_changed(pl, "LD_PRELOAD", cur, b.s);
		else
			put_managed(pl, "LD_PRELOAD", b.s);
	}
	ibnet_buf_free(&b);
	ibnet_strvec_free(&have);
}

static void note(struct planner *pl, const char *text)
{
	if (ibnet_strvec_push(&pl->plan->notes, text) < 0)
		pl->nomem = true;
}

/*
 * Which all-to-all an ordered step gets: the paced one where the node has
 * it, unless the user asked for pairwise or picked an MPI algorithm
 * themselves (theirs stands; the pairwise settings fill in the other MPIs
 * as before). Each fallback is a note in the step's log line.
 */
static const char *alltoall_scheme(struct planner *pl, const struct ibnet_config *cfg,
				   const struct ibnet_job *job)
{
	char text[300];
	int i;

	if (!job->ordered_alltoall)
		return "default";
	if (job->alltoall_pairwise)
		return "pairwise";
	for (i = 0; ibnet_a2a_user_choice[i]; i++)
		if (view_get(pl, ibnet_a2a_user_choice[i])) {
			snprintf(text, sizeof(text), "%s is set by the job: its MPI algorithm "
				 "choice stands, the paced all-to-all stands aside",
				 ibnet_a2a_user_choice[i]);
			note(pl, text);
			return "pairwise";
		}
	if (!job->alltoall_path) {
		snprintf(text, sizeof(text), "the paced all-to-all %s is not on this node: "
			 "each MPI's pairwise all-to-all instead", cfg->alltoall_lib ?
			 cfg->alltoall_lib : "(alltoall_lib=none)");
		note(pl, text);
		return "pairwise";
	}
	return "paced";
}

/*
 * The paced all-to-all's settings: the site's, unless the job set its own,
 * which must then be valid (the step is refused with the sentence).
 */
static int plan_alltoall_settings(struct planner *pl, const struct ibnet_config *cfg,
				  enum ibnet_transport transport, struct ibnet_err *err)
{
	struct ibnet_a2a_settings check = cfg->a2a;
	char value[32], msg[256];
	int i;

	for (i = 0; ibnet_a2a_setting_keys[i]; i++) {
		const char *key = ibnet_a2a_setting_keys[i], *name = ibnet_a2a_setting_env(key);
		const char *user = view_get(pl, name);

		if (user) {
			if (ibnet_a2a_setting_set(&check, key, user, name, msg, sizeof(msg)) < 0) {
				ibnet_err_set(err, IBNET_PREFIX "%s", msg);
				return -1;
			}
			continue;
		}
		if (strcmp(key, "credits") == 0)
			snprintf(value, sizeof(value), "%u", cfg->a2a.credits);
		else
			snprintf(value, sizeof(value), "%lu", strcmp(key, "window") == 0 ?
				 cfg->a2a.window : cfg->a2a_threshold[transport]);
		put_managed(pl, name, value);
	}
	return 0;
}

static void put_bookkeeping(struct planner *pl, bool untouched, const char *name,
			    const char *value);

/*
 * The TCP retransmission floor: SLURM_IBNET_TCP_RTO_MIN_US, the value the
 * node's kernel took, for the preload; a job's own value stands if valid.
 * Asked but not possible here: the step runs without it, and says why.
 * *floor says whether the step's sockets get one (the preload is needed).
 */
static int plan_rto_floor(struct planner *pl, const struct ibnet_config *cfg,
			  const struct ibnet_job *job, bool *floor, struct ibnet_err *err)
{
	const char *user = view_get(pl, IBNET_RTO_ENV_US);
	unsigned long us;
	char value[32], text[300], msg[160];

	*floor = false;
	if (job->ordered_alltoall && !job->tcp_rto_min_us && !cfg->tcp_rto_min_us)
		note(pl, "no TCP retransmission floor: the site has it off (tcp_rto_min=off)");
	if (job->tcp_rto_min_record) {
		if (job->tcp_rto_min_us % 1000)
			snprintf(value, sizeof(value), "%luus", job->tcp_rto_min_us);
		else if (job->tcp_rto_min_us)
			snprintf(value, sizeof(value), "%lums", job->tcp_rto_min_us / 1000);
		else
			snprintf(value, sizeof(value), "off");
		put_bookkeeping(pl, false, IBNET_RTO_ENV_ASK, value);
	}
	if (!job->tcp_rto_min_us)
		return 0;
	if (!job->tcp_rto_floor_us || !job->alltoall_path) {
		snprintf(text, sizeof(text), "no TCP retransmission floor (%s): %s; the step's "
			 "sockets keep Linux's 200 ms", job->tcp_rto_min_source ?
			 job->tcp_rto_min_source : "?", job->tcp_rto_why_not[0] ?
			 job->tcp_rto_why_not : "not available on this node");
		note(pl, text);
		return 0;
	}
	*floor = true;
	if (user) {
		if (ibnet_rto_parse_us(user, &us, msg, sizeof(msg)) < 0) {
			ibnet_err_set(err, IBNET_PREFIX "%s", msg);
			return -1;
		}
		return 0;
	}
	snprintf(value, sizeof(value), "%lu", job->tcp_rto_floor_us);
	put_managed(pl, IBNET_RTO_ENV_US, value);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* More entries per node than this is not a Linda worker list (":N" counts workers). */
#define WDEF_MAX_PER_NODE 4

char *ibnet_wdef_rewrite(const struct ibnet_rule *rule, const char *wdef,
			 const struct ibnet_strvec *ib_hosts, struct ibnet_err *err)
{
	struct ibnet_strvec items = { 0 }, out = { 0 };
	char **sorted = NULL;
	char *result = NULL;
	size_t i;

	if (ib_hosts->n) {
		sorted = malloc(ib_hosts->n * sizeof(*sorted));
		if (!sorted)
			goto nomem;
		memcpy(sorted, ib_hosts->v, ib_hosts->n * sizeof(*sorted));
		qsort(sorted, ib_hosts->n, sizeof(*sorted), cmp_str);
	}
	if (ibnet_strvec_split(&items, wdef, ",") < 0)
		goto nomem;
	/* Linda starts workers on the job's nodes: the list grows with the job. */
	if (items.n > WDEF_MAX_PER_NODE * (ib_hosts->n > 4 ? ib_hosts->n : 4)) {
		ibnet_err_set(err, IBNET_PREFIX "GAUSS_WDEF lists %zu workers, more than %d per node "
			      "of this %zu-node job", items.n, WDEF_MAX_PER_NODE, ib_hosts->n);
		goto out;
	}
	for (i = 0; i < items.n; i++) {
		char *host = items.v[i];
		char *count = strchr(host, ':');
		char *ib;
		struct ibnet_buf b = { 0 };

		if (count) {
			*count++ = '\0';
			if (!*count || strspn(count, "0123456789") != strlen(count) ||
			    strlen(count) > 6)
				goto bad;
		}
		if (!ibnet_hostname_valid(host))
			goto bad;
		if (sorted && bsearch(&host, sorted, ib_hosts->n, sizeof(*sorted), cmp_str))
			ib = strdup(host);	/* already an IB name of this job */
		else if (!(ib = ibnet_rule_apply(rule, host, err)))
			goto out;
		if (!ib || ibnet_buf_adds(&b, ib) < 0 ||
		    (count && (ibnet_buf_adds(&b, ":") < 0 || ibnet_buf_adds(&b, count) < 0))) {
			free(ib);
			ibnet_buf_free(&b);
			goto nomem;
		}
		free(ib);
		if (ibnet_strvec_push_owned(&out, ibnet_buf_take(&b)) < 0)
			goto nomem;
	}
	if (items.n == 0)
		goto bad;
	result = ibnet_strvec_join(&out, ",");
	if (!result)
		goto nomem;
	goto out;
bad:
	ibnet_err_set(err, IBNET_PREFIX "invalid GAUSS_WDEF %s (expected host[:N],host[:N],...)",
		      ibnet_quote(wdef));
	goto out;
nomem:
	ibnet_err_set(err, IBNET_PREFIX "out of memory");
out:
	free(sorted);
	ibnet_strvec_free(&items);
	ibnet_strvec_free(&out);
	return result;
}

/* GAUSS_WDEF: the Linda worker list, one worker per node, batch host first. */
static int plan_wdef(struct planner *pl, const struct ibnet_config *cfg,
		     const struct ibnet_job *job, const struct ibnet_strvec *net_hosts,
		     struct ibnet_err *err)
{
	const char *cur = view_get(pl, "GAUSS_WDEF");

	if (cur) {
		char *rewritten;

		if (job->transport == IBNET_TCP)
			return 0;	/* the user's names are already the TCP names */
		rewritten = ibnet_wdef_rewrite(cfg->ib_rule, cur, net_hosts, err);
		if (!rewritten)
			return -1;
		if (strcmp(rewritten, cur) != 0)
			put_changed(pl, "GAUSS_WDEF", cur, rewritten);
		free(rewritten);
		return 0;
	}
	/* One node needs no Linda worker; Gaussian runs shared-memory there. */
	if (net_hosts->n > 1) {
		char *list = ibnet_strvec_join(net_hosts, ",");

		if (!list)
			return -1;
		put_managed(pl, "GAUSS_WDEF", list);
		free(list);
	}
	return 0;
}

/*
 * The plugin's own SLURM_IBNET_* variables. A step that gets nothing
 * (transport none, default all-to-all) adds none of them; it only corrects
 * those an earlier step left, so they never describe a network the step
 * does not have.
 */
static void put_bookkeeping(struct planner *pl, bool untouched, const char *name,
			    const char *value)
{
	const char *cur = view_get(pl, name);

	if (untouched && !cur)
		return;
	if (!cur || !value || strcmp(cur, value) != 0)
		put(pl, name, value);
}

int ibnet_env_plan_build(const struct ibnet_config *cfg, const struct ibnet_job *job,
			 ibnet_env_lookup_fn lookup, void *ctx,
			 struct ibnet_env_plan *plan, struct ibnet_err *err)
{
	struct planner pl = { .plan = plan, .lookup = lookup, .ctx = ctx };
	struct ibnet_strvec hosts = { 0 }, net_hosts = { 0 };
	unsigned tbit = 1u << job->transport;
	bool network = job->transport != IBNET_NONE;
	bool untouched = !network && !job->ordered_alltoall && !job->tcp_rto_min_us &&
			 !job->tcp_rto_min_record;
	bool paced, floor;
	char *list = NULL;
	size_t i;
	int rc = -1;

	memset(plan, 0, sizeof(*plan));
	if (network && !job->iface) {
		ibnet_err_set(err, IBNET_PREFIX "--transport=%s: no network interface was chosen",
			      ibnet_transport_name(job->transport));
		return -1;
	}
	undo_previous(&pl);

	if (network && job->nodelist) {
		if (ibnet_hostlist_expand_max(job->nodelist, job->max_hosts ? job->max_hosts :
					      IBNET_HOSTLIST_MAX, &hosts, err) < 0)
			goto out;
		if (job->transport == IBNET_TCP) {
			net_hosts = hosts;
			memset(&hosts, 0, sizeof(hosts));
		} else if (ibnet_rule_map(cfg->ib_rule, &hosts, &net_hosts, err) < 0) {
			goto out;
		}
	}

	/* The plugin's own variables say what this step got. */
	put_bookkeeping(&pl, untouched, "SLURM_IBNET_TRANSPORT", ibnet_transport_name(job->transport));
	plan->alltoall_scheme = alltoall_scheme(&pl, cfg, job);
	paced = strcmp(plan->alltoall_scheme, "paced") == 0;
	put_bookkeeping(&pl, untouched, "SLURM_IBNET_ALLTOALL", plan->alltoall_scheme);
	if (!network) {
		put_bookkeeping(&pl, true, "SLURM_IBNET_HOSTS", NULL);
	} else {
		if (!(list = ibnet_strvec_join(&net_hosts, ",")))
			goto nomem;
		if (fits("SLURM_IBNET_HOSTS", list)) {
			put(&pl, "SLURM_IBNET_HOSTS", list);
		} else {
			put(&pl, "SLURM_IBNET_HOSTS", NULL);
			if (ibnet_strvec_push(&plan->too_long, "SLURM_IBNET_HOSTS") < 0)
				goto nomem;
		}
	}

	for (i = 0; i < sizeof(env_rules) / sizeof(env_rules[0]); i++) {
		const struct env_rule *r = &env_rules[i];
		char buf[80];
		const char *value;

		if (!(r->transports & tbit) ||
		    (r->ordered_only && strcmp(plan->alltoall_scheme, "pairwise") != 0))
			continue;
		value = rule_value(r, cfg, job, buf, sizeof(buf));
		if (value && !view_get(&pl, r->name))
			put_managed(&pl, r->name, value);
	}

	if (plan_rto_floor(&pl, cfg, job, &floor, err) < 0)
		goto out;
	plan_preload(&pl, job, paced || floor);
	if (paced && plan_alltoall_settings(&pl, cfg, job->transport, err) < 0)
		goto out;
	if (job->transport == IBNET_RSOCKET) {
		if (!view_get(&pl, "SLURM_IBNET_RSOCKET_PROGRAMS"))
			put_managed(&pl, "SLURM_IBNET_RSOCKET_PROGRAMS", cfg->rsocket_programs);
	}

	if (network && plan_wdef(&pl, cfg, job, &net_hosts, err) < 0)
		goto out;

	if (pl.managed.n) {
		char *m = ibnet_strvec_join(&pl.managed, ",");

		if (!m)
			goto nomem;
		put(&pl, MANAGED_VAR, m);
		free(m);
	}
	if (pl.nomem)
		goto nomem;
	rc = 0;
	goto out;
nomem:
	ibnet_err_set(err, IBNET_PREFIX "out of memory building the job environment");
out:
	if (rc < 0)
		ibnet_env_plan_free(plan);
	free(list);
	ibnet_strvec_free(&hosts);
	ibnet_strvec_free(&net_hosts);
	ibnet_strvec_free(&pl.managed);
	ibnet_strvec_free(&pl.users);
	return rc;
}

char *ibnet_env_plan_describe(const struct ibnet_job *job, const struct ibnet_env_plan *plan)
{
	struct ibnet_buf b = { 0 };
	char part[256];
	size_t i;

	snprintf(part, sizeof(part), "transport=%s (%s), alltoall=%s (%s)",
		 ibnet_transport_name(job->transport),
		 job->transport_source ? job->transport_source : "?",
		 plan->alltoall_scheme ? plan->alltoall_scheme : "default",
		 job->alltoall_source ? job->alltoall_source : "?");
	ibnet_buf_adds(&b, part);
	if (job->iface) {
		ibnet_buf_adds(&b, ", interface ");
		ibnet_buf_adds(&b, job->iface);
	}
	if (job->rsgate_path && job->rspreload_path) {
		ibnet_buf_adds(&b, ", preload ");
		ibnet_buf_adds(&b, job->rsgate_path);
		ibnet_buf_adds(&b, ":");
		ibnet_buf_adds(&b, job->rspreload_path);
	}
	if (plan->alltoall_scheme && strcmp(plan->alltoall_scheme, "paced") == 0) {
		ibnet_buf_adds(&b, ", paced all-to-all ");
		ibnet_buf_adds(&b, job->alltoall_path);
	}
	if (job->tcp_rto_floor_us && job->alltoall_path) {
		snprintf(part, sizeof(part), ", TCP retransmission floor %lu us (%s)",
			 job->tcp_rto_floor_us, job->tcp_rto_min_source ? job->tcp_rto_min_source : "?");
		ibnet_buf_adds(&b, part);
	}
	if (plan->n == 0) {
		ibnet_buf_adds(&b, "; environment untouched");
	} else {
		snprintf(part, sizeof(part), "; %zu environment change%s", plan->n,
			 plan->n == 1 ? "" : "s");
		ibnet_buf_adds(&b, part);
	}
	for (i = 0; i < plan->notes.n; i++) {
		ibnet_buf_adds(&b, "; ");
		ibnet_buf_adds(&b, plan->notes.v[i]);
	}
	for (i = 0; i < plan->too_long.n; i++) {
		ibnet_buf_adds(&b, "; not set (too long): ");
		ibnet_buf_adds(&b, plan->too_long.v[i]);
	}
	return ibnet_buf_take(&b);
}
