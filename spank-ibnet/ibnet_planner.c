/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_planner.c - the ownership of the variables the plugin manages: the
 * one place that writes a plan's operations, records SLURM_IBNET_MANAGED
 * and SLURM_IBNET_ORIG_<NAME>, undoes an earlier step's changes and hands a
 * variable the job changed back to the job (the rules: ibnet_env.h).
 */
#include "ibnet_planner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct ibnet_env_op *find_op(struct planner *pl, const char *name)
{
	size_t i;

	for (i = 0; i < pl->plan->n; i++)
		if (strcmp(pl->plan->ops[i].name, name) == 0)
			return &pl->plan->ops[i];
	return NULL;
}

/* The value name would have after the plan so far. */
const char *planner_get(struct planner *pl, const char *name)
{
	struct ibnet_env_op *op = find_op(pl, name);

	return op ? op->value : pl->lookup(pl->ctx, name);
}

/* Record name=value (value NULL: unset), replacing an earlier op. */
void planner_put(struct planner *pl, const char *name, const char *value)
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
bool planner_fits(const char *name, const char *value)
{
	return strlen(name) + strlen(value) + 2 <= IBNET_ENV_STRING_MAX;
}

static void orig_name(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, IBNET_ORIG_PREFIX "%.100s", name);	/* names are <= 100 */
}

/* Set a variable the plugin owns from now on, remembering its hash. */
void planner_set_managed(struct planner *pl, const char *name, const char *value)
{
	char entry[160];

	if (ibnet_strvec_contains(&pl->users, name))
		return;		/* the job changed or unset it after us: theirs */
	if (!planner_fits(name, value)) {
		if (ibnet_strvec_push(&pl->plan->too_long, name) < 0)
			pl->nomem = true;
		return;
	}
	planner_put(pl, name, value);
	/*
	 * A SLURM_IBNET_ORIG_<NAME> we did not plan here is not the user's value
	 * of a variable we changed (the job or a stale environment set it): left
	 * in place, a later step would "restore" it.
	 */
	orig_name(entry, sizeof(entry), name);
	if (!find_op(pl, entry) && pl->lookup(pl->ctx, entry))
		planner_put(pl, entry, NULL);
	snprintf(entry, sizeof(entry), "%.100s:%08x", name, ibnet_hash(value));
	if (ibnet_strvec_push(&pl->managed, entry) < 0)
		pl->nomem = true;
}

/* Change a variable the user set, keeping their value to restore later. */
void planner_set_changed(struct planner *pl, const char *name, const char *user_value,
			const char *value)
{
	char oname[160];

	if (ibnet_strvec_contains(&pl->users, name))
		return;
	if (!planner_fits(name, value)) {
		if (ibnet_strvec_push(&pl->plan->too_long, name) < 0)
			pl->nomem = true;
		return;
	}
	orig_name(oname, sizeof(oname), name);
	planner_put(pl, oname, user_value);
	planner_set_managed(pl, name, value);
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
void planner_undo_previous(struct planner *pl)
{
	const char *managed = pl->lookup(pl->ctx, IBNET_MANAGED_VAR);
	struct ibnet_strvec entries = { 0 };
	size_t i;

	if (!managed)
		return;
	/* strnlen: the job's value may be megabytes, and each entry costs a search. */
	if (strnlen(managed, IBNET_MANAGED_MAX + 1) > IBNET_MANAGED_MAX) {
		char note[200];

		snprintf(note, sizeof(note), IBNET_MANAGED_VAR " not read: longer than %d bytes, "
			 "which spank-ibnet never writes; what an earlier step set is left as it is",
			 IBNET_MANAGED_MAX);
		planner_note(pl, note);
		planner_put(pl, IBNET_MANAGED_VAR, NULL);
		return;
	}
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
			planner_put(pl, entries.v[i], orig);
		else
			hand_over(pl, entries.v[i], cur ? "was changed" : "was unset");
		if (orig)
			planner_put(pl, oname, NULL);
	}
	planner_put(pl, IBNET_MANAGED_VAR, NULL);
	ibnet_strvec_free(&entries);
}

void planner_note(struct planner *pl, const char *text)
{
	if (ibnet_strvec_push(&pl->plan->notes, text) < 0)
		pl->nomem = true;
}

/*
 * The plugin's own SLURM_IBNET_* variables. A step that gets nothing
 * (transport none, default all-to-all) adds none of them; it only corrects
 * those an earlier step left, so they never describe a network the step
 * does not have.
 */
void planner_put_bookkeeping(struct planner *pl, bool untouched, const char *name,
			     const char *value)
{
	const char *cur = planner_get(pl, name);

	if (untouched && !cur)
		return;
	if (!cur || !value || strcmp(cur, value) != 0)
		planner_put(pl, name, value);
}

void planner_finish(struct planner *pl)
{
	char *m;

	if (!pl->managed.n)
		return;
	if (!(m = ibnet_strvec_join(&pl->managed, ",")))
		pl->nomem = true;
	else
		planner_put(pl, IBNET_MANAGED_VAR, m);
	free(m);
}
