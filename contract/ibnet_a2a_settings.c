/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_settings.c - the all-to-all's one table, and the parsing of its values.
 */
#include "ibnet_a2a_settings.h"
#include "ibnet_job_vars.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const scheme_names[IBNET_ALLTOALL_SCHEME_COUNT] = {
	[IBNET_ALLTOALL_DEFAULT] = "default",
	[IBNET_ALLTOALL_PACED] = "paced",
	[IBNET_ALLTOALL_PAIRWISE] = "pairwise",
};

/* What a user may write in SLURM_IBNET_ALLTOALL (IBNET_A2A_SCHEME_WORDS). */
static const struct {
	const char *word;
	enum ibnet_a2a_scheme scheme;
} scheme_words[] = {
	{ "ordered", IBNET_ALLTOALL_PACED },		/* --ordered-alltoall's word */
	{ "paced", IBNET_ALLTOALL_PACED },
	{ "pairwise", IBNET_ALLTOALL_PAIRWISE },
	{ "default", IBNET_ALLTOALL_DEFAULT },
};

const struct ibnet_a2a_build ibnet_a2a_builds[IBNET_A2A_ABI_COUNT] = {
	[IBNET_A2A_ABI_OMPI] = { "ompi", "libibnet-a2a-ompi.so", "Open MPI jobs" },
	[IBNET_A2A_ABI_MPICH] = { "mpich", "libibnet-a2a-mpich.so", "MPICH-ABI jobs" },
};

/* The error's words; %s and %s are the bounds, written as a user would. */
const struct ibnet_a2a_key_info ibnet_a2a_keys[IBNET_A2A_KEY_COUNT] = {
	[IBNET_A2A_WINDOW] = { "alltoall_window", IBNET_A2A_ENV_WINDOW, IBNET_A2A_WINDOW_MIN,
			       IBNET_A2A_WINDOW_MAX, "a window size (bytes in flight towards one "
			       "node, %s to %s, e.g. 64k), or auto (sized from each call, up to "
			       "alltoall_window_max)" },
	[IBNET_A2A_WINDOW_MAX_KEY] = { "alltoall_window_max", IBNET_A2A_ENV_WINDOW_MAX,
				       IBNET_A2A_WINDOW_MIN, IBNET_A2A_WINDOW_MAX,
				       "a window size (the most alltoall_window=auto reaches, %s "
				       "to %s, e.g. 16m)" },
	[IBNET_A2A_CREDITS] = { "alltoall_credits", IBNET_A2A_ENV_CREDITS, 1, IBNET_A2A_CREDITS_MAX,
				"a number of credits (%s to %s)" },
	[IBNET_A2A_THRESHOLD] = { "alltoall_threshold", IBNET_A2A_ENV_THRESHOLD, 0,
				  IBNET_A2A_THRESHOLD_MAX, "a size (bytes converging on one node's "
				  "port, %s to %s, e.g. 8k)" },
	[IBNET_A2A_AGGREGATE] = { "alltoall_aggregate", IBNET_A2A_ENV_AGGREGATE, 0,
				  IBNET_A2A_AGGREGATE_MAX, "a number of ranks per node (%s to "
				  "%s; 0: never node to node), or auto (node to node where pair by "
				  "pair would exceed the window)" },
};

/*
 * Checked against the installed libraries (ompi_info, MPICH's CVAR list):
 * Open MPI 4.1 coll/tuned (2 = pairwise; its dynamic rules must be on for
 * the choice to count) and MPICH 4. Intel MPI and MVAPICH2 from their
 * documentation, not tested here.
 */
const struct ibnet_a2a_mpi_choice ibnet_a2a_mpi_choices[] = {
	{ "Open MPI", "OMPI_MCA_coll_tuned_alltoall_algorithm", "2",
	  "OMPI_MCA_coll_tuned_use_dynamic_rules", "1" },
	{ "MPICH", "MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM", "pairwise", NULL, NULL },
	{ "Intel MPI", "I_MPI_ADJUST_ALLTOALL", "3", NULL, NULL },	/* pairwise exchange */
	{ "MVAPICH2", "MV2_ALLTOALL_TUNING", "3", NULL, NULL },	/* ALLTOALL_PAIRWISE_MV2 */
	{ NULL, NULL, NULL, NULL, NULL },
};

const char *ibnet_a2a_scheme_name(enum ibnet_a2a_scheme scheme)
{
	return (unsigned)scheme < IBNET_ALLTOALL_SCHEME_COUNT ? scheme_names[scheme] : "?";
}

const char *ibnet_a2a_user_choice(const char *(*get)(void *ctx, const char *name), void *ctx)
{
	int i;

	for (i = 0; ibnet_a2a_mpi_choices[i].mpi; i++)
		if (get(ctx, ibnet_a2a_mpi_choices[i].variable))
			return ibnet_a2a_mpi_choices[i].variable;
	return NULL;
}

void ibnet_a2a_settings_default(struct ibnet_a2a_settings *s)
{
	s->window = IBNET_A2A_WINDOW_DEFAULT;
	s->window_max = IBNET_A2A_WINDOW_MAX_DEFAULT;
	s->credits = IBNET_A2A_CREDITS_DEFAULT;
	s->threshold = IBNET_A2A_THRESHOLD_DEFAULT;
	s->aggregate = IBNET_A2A_AGGREGATE_DEFAULT;
}

static unsigned long *setting_slot(struct ibnet_a2a_settings *s, enum ibnet_a2a_key key)
{
	switch (key) {
	case IBNET_A2A_WINDOW:
		return &s->window;
	case IBNET_A2A_WINDOW_MAX_KEY:
		return &s->window_max;
	case IBNET_A2A_CREDITS:
		return &s->credits;
	case IBNET_A2A_AGGREGATE:
		return &s->aggregate;
	case IBNET_A2A_THRESHOLD:
	default:
		return &s->threshold;
	}
}

unsigned long ibnet_a2a_setting_get(const struct ibnet_a2a_settings *s, enum ibnet_a2a_key key)
{
	return *setting_slot((struct ibnet_a2a_settings *)s, key);
}

void ibnet_a2a_setting_text(const struct ibnet_a2a_settings *s, enum ibnet_a2a_key key,
			    char *out, size_t len)
{
	unsigned long n = ibnet_a2a_setting_get(s, key);

	if (key == IBNET_A2A_AGGREGATE && n == IBNET_A2A_AGGREGATE_AUTO)
		snprintf(out, len, "%s", IBNET_A2A_AGGREGATE_WORD);
	else if (key == IBNET_A2A_WINDOW && n == IBNET_A2A_WINDOW_AUTO)
		snprintf(out, len, "%s", IBNET_A2A_WINDOW_WORD);
	else
		snprintf(out, len, "%lu", n);
}

int ibnet_a2a_key_by_config(const char *name)
{
	int k;

	for (k = 0; k < IBNET_A2A_KEY_COUNT; k++)
		if (strcmp(name, ibnet_a2a_keys[k].config_key) == 0)
			return k;
	return -1;
}

/* "123", "64k", "2m" (powers of 1024); digits only before the unit. */
static int parse_size(const char *v, unsigned long *out)
{
	unsigned long n, unit = 1;
	char *end;

	if (!v || *v < '0' || *v > '9' || strlen(v) > 20)
		return -1;
	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno)
		return -1;
	if (*end == 'k' || *end == 'K')
		unit = 1024, end++;
	else if (*end == 'm' || *end == 'M')
		unit = 1024 * 1024, end++;
	if (*end || n > (unsigned long)-1 / unit)
		return -1;
	*out = n * unit;
	return 0;
}

/* n as a user writes it: 64m, 1k, 64 (whole units of 1024 only). */
static void size_text(unsigned long n, char out[24])
{
	if (n && n % (1024ul * 1024) == 0)
		snprintf(out, 24, "%lum", n / (1024ul * 1024));
	else if (n && n % 1024 == 0)
		snprintf(out, 24, "%luk", n / 1024);
	else
		snprintf(out, 24, "%lu", n);
}

int ibnet_a2a_setting_set(struct ibnet_a2a_settings *s, enum ibnet_a2a_key key,
			  const char *value, const char *source, char *msg, size_t msglen)
{
	const struct ibnet_a2a_key_info *k;
	unsigned long n;
	char buf[IBNET_SHOWN_BUF];

	if ((unsigned)key >= IBNET_A2A_KEY_COUNT) {
		snprintf(msg, msglen, "%s: unknown all-to-all setting", source);
		return -1;
	}
	k = &ibnet_a2a_keys[key];
	if (key == IBNET_A2A_AGGREGATE && value && strcmp(value, IBNET_A2A_AGGREGATE_WORD) == 0) {
		s->aggregate = IBNET_A2A_AGGREGATE_AUTO;
		return 0;
	}
	if (key == IBNET_A2A_WINDOW && value && strcmp(value, IBNET_A2A_WINDOW_WORD) == 0) {
		s->window = IBNET_A2A_WINDOW_AUTO;
		return 0;
	}
	if (parse_size(value, &n) < 0 || n < k->min || n > k->max) {
		char lo[24], hi[24], expected[160];

		size_text(k->min, lo);
		size_text(k->max, hi);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		snprintf(expected, sizeof(expected), k->expected, lo, hi);
#pragma GCC diagnostic pop
		snprintf(msg, msglen, "%s: '%s' is not %s", source, ibnet_value_shown(value, buf),
			 expected);
		return -1;
	}
	*setting_slot(s, key) = n;
	return 0;
}

int ibnet_a2a_link_mbit_parse(const char *value, unsigned long *mbit)
{
	unsigned long n;
	char *end;

	if (!value || *value < '0' || *value > '9' || strlen(value) > 12)
		return -1;
	errno = 0;
	n = strtoul(value, &end, 10);
	if (errno || *end || n > IBNET_A2A_LINK_MBIT_MAX)
		return -1;
	*mbit = n;
	return 0;
}

int ibnet_a2a_scheme_parse(const char *value, enum ibnet_a2a_scheme *out)
{
	size_t i;

	for (i = 0; value && i < sizeof(scheme_words) / sizeof(scheme_words[0]); i++)
		if (strcmp(value, scheme_words[i].word) == 0) {
			*out = scheme_words[i].scheme;
			return 0;
		}
	return -1;
}

void ibnet_a2a_bytes_text(unsigned long n, char *out, size_t len)
{
	if (n >= 1024ul * 1024 * 1024)
		snprintf(out, len, "%.3g GiB", (double)n / (1024.0 * 1024 * 1024));
	else if (n >= 1024ul * 1024)
		snprintf(out, len, "%.3g MiB", (double)n / (1024.0 * 1024));
	else
		snprintf(out, len, "%.3g KiB", (double)n / 1024.0);
}

FILE *ibnet_a2a_tally_open(const char *dir, const char *prefix)
{
	char path[4096];
	FILE *f;
	int fd;

	if (snprintf(path, sizeof(path), "%s/%sXXXXXX", dir, prefix) >= (int)sizeof(path) ||
	    (fd = mkstemp(path)) < 0)
		return NULL;
	f = fdopen(fd, "w");
	if (!f)
		close(fd);
	return f;
}
