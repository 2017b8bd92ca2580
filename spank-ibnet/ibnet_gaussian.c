/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_gaussian.c - Gaussian's Linda worker lists under IB names: the
 * GAUSS_WDEF grammar (ibnet_wdef_rewrite, the only one) and the
 * %LindaWorkers lines of an input, which use it.
 */
#include "ibnet_gaussian.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>


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

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r' || c == '\n';
}

/*
 * In body[0..n) (a line without its '\n' and '\r'), find the worker list of
 * a %LindaWorkers line: *start and *end bound it. False for any other line.
 */
static bool workers_line(const char *body, size_t n, size_t *start, size_t *end)
{
	static const char key[] = "%lindaworkers";
	size_t i = 0;

	while (i < n && blank(body[i]))
		i++;
	if (n - i < sizeof(key) - 1 || strncasecmp(body + i, key, sizeof(key) - 1) != 0)
		return false;
	i += sizeof(key) - 1;
	while (i < n && blank(body[i]))
		i++;
	if (i == n || body[i] != '=')
		return false;
	i++;
	while (i < n && blank(body[i]))
		i++;
	*start = i;
	while (i < n && !blank(body[i]))
		i++;
	*end = i;
	while (i < n && blank(body[i]))
		i++;
	return *end > *start && i == n;
}

/* Split the next line off in[*pos..len): body length, and "\r" and "\n" present. */
static size_t next_line(const char *in, size_t len, size_t *pos, size_t *body, bool *cr, bool *nl)
{
	const char *line = in + *pos;
	const char *eol = memchr(line, '\n', len - *pos);
	size_t n = eol ? (size_t)(eol - line) : len - *pos;
	size_t start = *pos;

	*nl = eol != NULL;
	*cr = n > 0 && line[n - 1] == '\r';
	*body = *cr ? n - 1 : n;
	*pos += n + (*nl ? 1 : 0);
	return start;
}

bool ibnet_linda_input_has_workers(const char *in, size_t len)
{
	size_t pos = 0, body, s, e;
	bool cr, nl;

	while (pos < len) {
		size_t at = next_line(in, len, &pos, &body, &cr, &nl);

		if (workers_line(in + at, body, &s, &e))
			return true;
	}
	return false;
}

int ibnet_linda_input_rewrite(const struct ibnet_rule *rule, const struct ibnet_strvec *ib_hosts,
			      const char *in, size_t len, struct ibnet_buf *out,
			      struct ibnet_err *err)
{
	size_t pos = 0, body, s, e, lineno = 0;
	bool cr, nl;
	int ok = 0;

	while (pos < len) {
		size_t at = next_line(in, len, &pos, &body, &cr, &nl);
		const char *line = in + at;
		char *list, *rewritten;

		lineno++;
		if (!workers_line(line, body, &s, &e)) {
			ok |= ibnet_buf_add(out, line, pos - at);
			continue;
		}
		list = strndup(line + s, e - s);
		if (!list || memchr(line + s, '\0', e - s)) {
			if (list)
				ibnet_err_set(err, IBNET_PREFIX "line %zu: a NUL byte in %%LindaWorkers",
					      lineno);
			else
				ibnet_err_set(err, IBNET_PREFIX "out of memory");
			free(list);
			return -1;
		}
		rewritten = ibnet_wdef_rewrite(rule, list, ib_hosts, err);
		free(list);
		if (!rewritten) {
			char msg[sizeof(err->msg)];
			const char *m = msg;

			snprintf(msg, sizeof(msg), "%s", err->msg);
			if (strncmp(m, IBNET_PREFIX, strlen(IBNET_PREFIX)) == 0)
				m += strlen(IBNET_PREFIX);
			ibnet_err_set(err, IBNET_PREFIX "line %zu: %s", lineno, m);
			return -1;
		}
		ok |= ibnet_buf_add(out, line, s);
		ok |= ibnet_buf_adds(out, rewritten);
		if (cr)
			ok |= ibnet_buf_adds(out, "\r");
		if (nl)
			ok |= ibnet_buf_adds(out, "\n");
		free(rewritten);
	}
	if (ok < 0) {
		ibnet_err_set(err, IBNET_PREFIX "out of memory");
		return -1;
	}
	return 0;
}
