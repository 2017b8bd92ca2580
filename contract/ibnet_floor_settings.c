/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_floor_settings.c - the TCP retransmission floor's values as a user,
 * an admin or the plugin writes them.
 */
#include "ibnet_floor_settings.h"

#include <stdio.h>
#include <string.h>

#include "ibnet_job_vars.h"

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
	char buf[IBNET_SHOWN_BUF];

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
		 "such as 10ms or 8000us, or off)", source, ibnet_value_shown(value, buf));
	return -1;
}

int ibnet_rto_parse_us(const char *value, unsigned long *us, char *msg, size_t msglen)
{
	const char *end;
	char buf[IBNET_SHOWN_BUF];

	if (parse_digits(value, &end, us) == 0 && !*end && *us >= IBNET_RTO_MIN_LOW_US &&
	    *us <= IBNET_RTO_MIN_HIGH_US)
		return 0;
	snprintf(msg, msglen, "%s: '%s' is not a number of microseconds (%lu to %lu)",
		 IBNET_RTO_ENV_US, ibnet_value_shown(value, buf), IBNET_RTO_MIN_LOW_US, IBNET_RTO_MIN_HIGH_US);
	return -1;
}
