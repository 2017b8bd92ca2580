/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_hostlist.c - expand Slurm hostlist expressions.
 *
 * An item is split into segments: literal text and bracket groups. The
 * hosts of the item are the cartesian product of the brackets, in Slurm's
 * order (checked against scontrol show hostnames, tests/unit/hostlist-diff):
 * the last bracket varies fastest, then the first, the second, and so on
 * (a[1-2][1-2][1-2] is a111 a112 a211 a212 a121 ...); with one or two
 * brackets that is plain lexicographic order. The product is walked like
 * an odometer, so the cost is linear in the hosts written, whatever the
 * number of ranges in a bracket.
 */
#include "ibnet_hostlist.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One number range inside brackets, e.g. "001-010": lo=1 hi=10 width=3. */
struct range {
	unsigned long lo, hi;
	int width;
};

/* One segment of an item: either literal text or a list of ranges. */
struct segment {
	char *text;		/* literal, or NULL for a bracket group */
	struct range *ranges;
	size_t nranges, cap;
	unsigned long count;	/* how many values this segment yields */
};

static void segments_free(struct segment *seg, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(seg[i].text);
		free(seg[i].ranges);
	}
	free(seg);
}

static int parse_number(const char **p, unsigned long *val, int *width)
{
	const char *s = *p;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*val = strtoul(s, &end, 10);
	if (errno || end - s > 18)
		return -1;
	*width = (int)(end - s);
	*p = end;
	return 0;
}

/* Parse "1-4,7,010-012" up to the closing bracket. */
static int parse_bracket(const char *s, size_t len, struct segment *seg,
			 const char *expr, unsigned long max, struct ibnet_err *err)
{
	const char *p = s, *end = s + len;

	seg->count = 0;
	while (p < end) {
		struct range r;
		struct range *nr;
		int w2;

		if (parse_number(&p, &r.lo, &r.width) < 0)
			goto bad;
		r.hi = r.lo;
		if (p < end && *p == '-') {
			p++;
			if (parse_number(&p, &r.hi, &w2) < 0 || r.hi < r.lo)
				goto bad;
		}
		if (p < end && *p != ',')
			goto bad;
		if (p < end && ++p == end)
			goto bad;	/* "[2,]": an empty range is a typo, as Slurm says */
		if (r.hi - r.lo >= max || seg->count + (r.hi - r.lo + 1) > max) {
			ibnet_err_set(err, IBNET_PREFIX "hostlist %s has more than %lu hosts",
				      ibnet_quote(expr), max);
			return -1;
		}
		if (seg->nranges == seg->cap) {
			size_t cap = seg->cap ? seg->cap * 2 : 8;

			nr = realloc(seg->ranges, cap * sizeof(*nr));
			if (!nr)
				goto nomem;
			seg->ranges = nr;
			seg->cap = cap;
		}
		seg->ranges[seg->nranges++] = r;
		seg->count += r.hi - r.lo + 1;
	}
	if (seg->nranges == 0)
		goto bad;
	return 0;
bad:
	{
		char tmp[64];
		size_t n = len < sizeof(tmp) - 1 ? len : sizeof(tmp) - 1;

		memcpy(tmp, s, n);
		tmp[n] = '\0';
		ibnet_err_set(err, IBNET_PREFIX "invalid hostlist %s: bad range list [%s]",
			      ibnet_quote(expr), ibnet_quote(tmp));
	}
	return -1;
nomem:
	ibnet_err_set(err, IBNET_PREFIX "out of memory expanding hostlist");
	return -1;
}

/*
 * Write v in decimal, zero-padded to width, at out; return the length.
 * (snprintf was a third of the time of mapping a 10,000-node list.)
 */
static size_t put_padded(char *out, unsigned long v, int width)
{
	char digits[24];
	size_t n = 0, len;

	do {
		digits[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while ((int)n < width && n < sizeof(digits))
		digits[n++] = '0';
	for (len = n; n > 0; n--)
		*out++ = digits[n - 1];
	return len;
}

/* Where the odometer stands in one bracket segment: range r, value lo + off. */
struct cursor {
	size_t r;
	unsigned long off;
};

/*
 * Step to the next host; false after the last. order[] lists the bracket
 * segments from the fastest-varying: the last bracket, then the others from
 * the first.
 */
static bool cursor_next(const struct segment *seg, struct cursor *cur, const size_t *order,
			size_t nbrackets)
{
	size_t k;

	for (k = 0; k < nbrackets; k++) {
		size_t i = order[k];
		const struct range *r = &seg[i].ranges[cur[i].r];

		if (r->lo + cur[i].off < r->hi) {
			cur[i].off++;
			return true;
		}
		cur[i].off = 0;
		if (++cur[i].r < seg[i].nranges)
			return true;
		cur[i].r = 0;	/* carry into the bracket before */
	}
	return false;
}

static int expand_item(const char *item, size_t len, const char *expr,
		       unsigned long max, struct ibnet_strvec *out, unsigned long *total,
		       struct ibnet_err *err)
{
	struct segment *seg = NULL;
	size_t nseg = 0, i, namelen = 0;
	const char *p = item, *end = item + len;
	unsigned long count = 1, k;
	char *name = NULL;
	struct cursor *cur = NULL;
	size_t *order = NULL, nbrackets = 0;
	int rc = -1;

	while (p < end) {
		struct segment *ns = realloc(seg, (nseg + 1) * sizeof(*ns));

		if (!ns)
			goto nomem;
		seg = ns;
		memset(&seg[nseg], 0, sizeof(seg[nseg]));
		if (*p == '[') {
			const char *close = memchr(p, ']', (size_t)(end - p));

			nseg++;
			if (!close) {
				ibnet_err_set(err, IBNET_PREFIX "invalid hostlist %s: '[' without ']'",
					      ibnet_quote(expr));
				goto out;
			}
			if (parse_bracket(p + 1, (size_t)(close - p - 1), &seg[nseg - 1],
					  expr, max, err) < 0)
				goto out;
			p = close + 1;
		} else {
			size_t n = 0;

			/* Within this item only: strcspn would scan the rest of the
			 * whole list for every item, quadratic in a long plain list
			 * (found by fuzz_hostlist: 19,350 names took 1.1 s). */
			while (p + n < end && p[n] != '[' && p[n] != ']')
				n++;
			if (n == 0) {
				ibnet_err_set(err, IBNET_PREFIX "invalid hostlist %s: ']' without '['",
					      ibnet_quote(expr));
				nseg++;
				goto out;
			}
			seg[nseg].text = strndup(p, n);
			seg[nseg].count = 1;
			nseg++;
			if (!seg[nseg - 1].text)
				goto nomem;
			p += n;
		}
		if (count > max / seg[nseg - 1].count) {
			ibnet_err_set(err, IBNET_PREFIX "hostlist %s has more than %lu hosts",
				      ibnet_quote(expr), max);
			goto out;
		}
		count *= seg[nseg - 1].count;
	}
	if (*total + count > max) {
		ibnet_err_set(err, IBNET_PREFIX "hostlist %s has more than %lu hosts",
			      ibnet_quote(expr), max);
		goto out;
	}
	*total += count;

	/* Longest name: every text plus 20 digits per bracket. */
	for (i = 0; i < nseg; i++)
		namelen += seg[i].text ? strlen(seg[i].text) : 24;
	name = malloc(namelen + 1);
	if (!name)
		goto nomem;

	cur = calloc(nseg ? nseg : 1, sizeof(*cur));
	order = malloc((nseg ? nseg : 1) * sizeof(*order));
	if (!cur || !order)
		goto nomem;
	for (i = nseg; i-- > 0;) {	/* the last bracket first */
		if (!seg[i].text) {
			order[nbrackets++] = i;
			break;
		}
	}
	for (i = 0; nbrackets && i < order[0]; i++)
		if (!seg[i].text)
			order[nbrackets++] = i;
	for (k = 0; k < count; k++, cursor_next(seg, cur, order, nbrackets)) {
		size_t o = 0;

		for (i = 0; i < nseg; i++) {
			if (seg[i].text) {
				size_t l = strlen(seg[i].text);

				memcpy(name + o, seg[i].text, l);
				o += l;
			} else {
				const struct range *r = &seg[i].ranges[cur[i].r];

				o += put_padded(name + o, r->lo + cur[i].off, r->width);
			}
		}
		name[o] = '\0';
		if (!ibnet_hostname_valid(name)) {
			ibnet_err_set(err, IBNET_PREFIX "invalid hostlist %s: %s is not a host name",
				      ibnet_quote(expr), ibnet_quote(name));
			goto out;
		}
		if (ibnet_strvec_push(out, name) < 0)
			goto nomem;
	}
	rc = 0;
	goto out;
nomem:
	ibnet_err_set(err, IBNET_PREFIX "out of memory expanding hostlist");
out:
	free(name);
	free(cur);
	free(order);
	segments_free(seg, nseg);
	return rc;
}

int ibnet_hostlist_expand(const char *expr, struct ibnet_strvec *out,
			  struct ibnet_err *err)
{
	return ibnet_hostlist_expand_max(expr, IBNET_HOSTLIST_MAX, out, err);
}

int ibnet_hostlist_expand_max(const char *expr, unsigned long max, struct ibnet_strvec *out,
			      struct ibnet_err *err)
{
	const char *p = expr;
	unsigned long total = 0;

	if (!expr || !*expr) {
		ibnet_err_set(err, IBNET_PREFIX "empty hostlist");
		return -1;
	}
	while (*p) {
		/* An item ends at a comma outside brackets. */
		const char *q = p;
		int depth = 0;

		while (*q && (depth || *q != ',')) {
			if (*q == '[')
				depth++;
			else if (*q == ']' && depth)
				depth--;
			q++;
		}
		if (q == p) {
			ibnet_err_set(err, IBNET_PREFIX "invalid hostlist %s: empty item",
				      ibnet_quote(expr));
			return -1;
		}
		if (expand_item(p, (size_t)(q - p), expr, max, out, &total, err) < 0)
			return -1;
		p = *q ? q + 1 : q;
		if (*q && !*p) {
			ibnet_err_set(err, IBNET_PREFIX "invalid hostlist %s: empty item",
				      ibnet_quote(expr));
			return -1;
		}
	}
	return 0;
}

void ibnet_hostlist_lines_to_items(char *s)
{
	char *in = s, *out = s;

	if (!strchr(s, '\n'))
		return;
	while (*in) {
		char *end = strchr(in, '\n'), *last;

		if (!end)
			end = in + strlen(in);
		last = end;
		while (in < last && (*in == ' ' || *in == '\t' || *in == '\r'))
			in++;
		while (last > in && (last[-1] == ' ' || last[-1] == '\t' || last[-1] == '\r'))
			last--;
		if (last > in) {
			if (out != s)
				*out++ = ',';
			memmove(out, in, (size_t)(last - in));
			out += last - in;
		}
		in = *end ? end + 1 : end;
	}
	*out = '\0';
}
