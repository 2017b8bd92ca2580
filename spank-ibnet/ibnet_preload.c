/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_preload.c - LD_PRELOAD: which of our libraries a step preloads,
 * in which order, after the user's. linda-rsockets asks for the same
 * composition through ibnet-hosts --probe (ibnet_preload_compose).
 */
#include "ibnet_preload.h"

#include <stdlib.h>
#include <string.h>

#include "ibnet_planner.h"

/* The length of a library's name: its file name up to ".so" (librspreload.so.1 is librspreload.so). */
static size_t lib_name(const char *path, const char **name)
{
	const char *slash = strrchr(path, '/'), *so;

	*name = slash ? slash + 1 : path;
	/* ".so" at the end or before a version (".so.1"), not ".something". */
	for (so = strstr(*name, ".so"); so; so = strstr(so + 1, ".so"))
		if (so[3] == '\0' || so[3] == '.')
			return (size_t)(so + 3 - *name);
	return strlen(*name);
}

static bool same_library(const char *a, const char *b)
{
	const char *na, *nb;
	size_t la = lib_name(a, &na), lb = lib_name(b, &nb);

	return la == lb && strncmp(na, nb, la) == 0;
}

const char *ibnet_preload_find(const struct ibnet_strvec *list, const char *lib)
{
	size_t i;

	for (i = 0; i < list->n; i++)
		if (same_library(list->v[i], lib))
			return list->v[i];
	return NULL;
}

int ibnet_preload_split(struct ibnet_strvec *list, const char *ld_preload)
{
	/* ld.so takes colons and blanks between entries. */
	return ibnet_strvec_split(list, ld_preload, ": \t");
}

int ibnet_preload_compose(const char *cur, const char *const *ours, size_t n, char **out)
{
	struct ibnet_strvec have = { 0 };
	struct ibnet_buf b = { 0 };
	size_t i;
	int rc = -1;

	*out = NULL;
	if (cur && ibnet_preload_split(&have, cur) < 0)
		goto out;
	if (cur && ibnet_buf_adds(&b, cur) < 0)
		goto out;
	for (i = 0; i < n; i++) {
		if (!ours[i] || ibnet_preload_find(&have, ours[i]))
			continue;
		if ((b.len && ibnet_buf_adds(&b, ":") < 0) || ibnet_buf_adds(&b, ours[i]) < 0)
			goto out;
	}
	*out = b.s ? ibnet_buf_take(&b) : NULL;
	rc = 0;
out:
	ibnet_buf_free(&b);
	ibnet_strvec_free(&have);
	return rc;
}

size_t ibnet_preload_ours(const struct ibnet_job *job, bool job_preload, const char *ours[3])
{
	size_t n = 0;

	if (job_preload)
		ours[n++] = job->alltoall_path;
	if (job->transport == IBNET_RSOCKET) {
		ours[n++] = job->rsgate_path;
		ours[n++] = job->rspreload_path;
	}
	return n;
}

/* The step's LD_PRELOAD, by ibnet_preload.h's rule; the user's value kept to restore. */
void plan_preload(struct planner *pl, const struct ibnet_job *job, bool job_preload)
{
	const char *cur = planner_get(pl, "LD_PRELOAD");
	const char *ours[3];
	size_t n = ibnet_preload_ours(job, job_preload, ours);
	char *value;

	if (ibnet_preload_compose(cur, ours, n, &value) < 0) {
		pl->nomem = true;
		return;
	}
	if (value && (!cur || strcmp(value, cur) != 0)) {
		if (cur)
			planner_set_changed(pl, "LD_PRELOAD", cur, value);
		else
			planner_set_managed(pl, "LD_PRELOAD", value);
	}
	free(value);
}
