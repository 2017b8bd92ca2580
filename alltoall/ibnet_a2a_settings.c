/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_settings.c - parse the paced all-to-all's settings.
 */
#include "ibnet_a2a_settings.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const ibnet_a2a_setting_keys[] = { "window", "credits", "threshold", NULL };

const char *const ibnet_a2a_user_choice[] = {
	"OMPI_MCA_coll_tuned_alltoall_algorithm", "MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM",
	"I_MPI_ADJUST_ALLTOALL", "MV2_ALLTOALL_TUNING", NULL,
};

void ibnet_a2a_settings_default(struct ibnet_a2a_settings *s)
{
	s->window = IBNET_A2A_WINDOW_DEFAULT;
	s->credits = IBNET_A2A_CREDITS_DEFAULT;
	s->threshold = IBNET_A2A_THRESHOLD_DEFAULT;
}

const char *ibnet_a2a_setting_env(const char *key)
{
	if (strcmp(key, "window") == 0)
		return IBNET_A2A_ENV_WINDOW;
	if (strcmp(key, "credits") == 0)
		return IBNET_A2A_ENV_CREDITS;
	if (strcmp(key, "threshold") == 0)
		return IBNET_A2A_ENV_THRESHOLD;
	return NULL;
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

/* The value for a message: at most 40 characters, anything unprintable as '?'. */
static const char *shown(const char *value, char buf[44])
{
	size_t i;

	for (i = 0; value && value[i] && i < 40; i++)
		buf[i] = value[i] >= 0x20 && value[i] < 0x7f ? value[i] : '?';
	strcpy(buf + i, value && value[i] ? "..." : "");
	return buf;
}

int ibnet_a2a_setting_set(struct ibnet_a2a_settings *s, const char *key, const char *value,
			  const char *source, char *msg, size_t msglen)
{
	unsigned long n;
	char buf[44];

	if (strcmp(key, "window") == 0) {
		if (parse_size(value, &n) < 0 || n < IBNET_A2A_WINDOW_MIN || n > IBNET_A2A_WINDOW_MAX) {
			snprintf(msg, msglen, "%s: '%s' is not a window size (bytes in flight "
				 "towards one node, 1k to 64m, e.g. 64k)", source, shown(value, buf));
			return -1;
		}
		s->window = n;
	} else if (strcmp(key, "credits") == 0) {
		if (parse_size(value, &n) < 0 || n < 1 || n > IBNET_A2A_CREDITS_MAX) {
			snprintf(msg, msglen, "%s: '%s' is not a number of credits (1 to %u)",
				 source, shown(value, buf), IBNET_A2A_CREDITS_MAX);
			return -1;
		}
		s->credits = (unsigned)n;
	} else if (strcmp(key, "threshold") == 0) {
		if (parse_size(value, &n) < 0 || n > IBNET_A2A_THRESHOLD_MAX) {
			snprintf(msg, msglen, "%s: '%s' is not a size (bytes converging on one node's port, 0 to 1024m, "
				 "e.g. 8k)", source, shown(value, buf));
			return -1;
		}
		s->threshold = n;
	} else {
		snprintf(msg, msglen, "%s: unknown all-to-all setting", source);
		return -1;
	}
	return 0;
}

/* Digits only, at most 9 of them. */
static int parse_digits(const char *v, const char **end, unsigned long *out)
{
	size_t n = 0;

	*out = 0;
	while (v[n] >= '0' && v[n] <= '9' && n < 9)
		*out = *out * 10 + (unsigned long)(v[n++] - '0');
	*end = v + n;
	return n ? 0 : -1;
}

int ibnet_rto_parse(const char *value, const char *source, unsigned long *us, char *msg,
		    size_t msglen)
{
	unsigned long n;
	const char *end;
	char buf[44];

	if (value && strcmp(value, "off") == 0) {
		*us = 0;
		return 0;
	}
	if (value && parse_digits(value, &end, &n) == 0) {
		if (strcmp(end, "us") == 0)
			*us = n;
		else if (strcmp(end, "ms") == 0 || !*end)
			*us = n * 1000;
		else
			goto bad;
		if (*us >= IBNET_RTO_MIN_LOW_US && *us <= IBNET_RTO_MIN_HIGH_US)
			return 0;
	}
bad:
	snprintf(msg, msglen, "%s: '%s' is not a retransmission floor (1ms to 200ms, "
		 "such as 10ms or 8000us, or off)", source, shown(value, buf));
	return -1;
}

int ibnet_rto_parse_us(const char *value, unsigned long *us, char *msg, size_t msglen)
{
	const char *end;
	char buf[44];

	if (parse_digits(value, &end, us) == 0 && !*end && *us >= IBNET_RTO_MIN_LOW_US &&
	    *us <= IBNET_RTO_MIN_HIGH_US)
		return 0;
	snprintf(msg, msglen, "%s: '%s' is not a number of microseconds (%lu to %lu)",
		 IBNET_RTO_ENV_US, shown(value, buf), IBNET_RTO_MIN_LOW_US, IBNET_RTO_MIN_HIGH_US);
	return -1;
}
