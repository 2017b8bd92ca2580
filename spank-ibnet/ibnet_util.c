/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_util.c - growable strings and string vectors, error messages.
 */
#include "ibnet_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ibnet_err_set(struct ibnet_err *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

void ibnet_err_append(struct ibnet_err *err, const char *fmt, ...)
{
	size_t used;
	va_list ap;

	if (!err)
		return;
	used = strnlen(err->msg, sizeof(err->msg));
	if (used >= sizeof(err->msg) - 1)
		return;
	va_start(ap, fmt);
	vsnprintf(err->msg + used, sizeof(err->msg) - used, fmt, ap);
	va_end(ap);
}

char *ibnet_log_line(char buf[IBNET_LOG_LINE_MAX], const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, IBNET_LOG_LINE_MAX, fmt, ap);
	va_end(ap);
	if (n < 0)
		buf[0] = '\0';
	else if (n >= IBNET_LOG_LINE_MAX)
		memcpy(buf + IBNET_LOG_LINE_MAX - 4, "...", 4);
	return buf;
}

const char *ibnet_quote(const char *value)
{
	/* Rotating buffers: a message may quote a key and a value. */
	static char bufs[4][IBNET_QUOTE_MAX * 4 + 48];
	static unsigned next;
	char *out = bufs[next++ % 4];
	size_t o = 0, i, len;

	if (!value)
		return "(none)";
	len = strlen(value);
	out[o++] = '\'';
	for (i = 0; i < len && i < IBNET_QUOTE_MAX; i++) {
		unsigned char c = (unsigned char)value[i];

		if (c >= 0x20 && c < 0x7f)
			out[o++] = (char)c;
		else
			o += (size_t)sprintf(out + o, "\\x%02x", c);
	}
	if (len > IBNET_QUOTE_MAX)
		sprintf(out + o, "...' (%zu characters)", len);
	else
		sprintf(out + o, "'");
	return out;
}

static int strvec_grow(struct ibnet_strvec *sv)
{
	size_t cap;
	char **v;

	if (sv->n + 1 < sv->cap)
		return 0;
	cap = sv->cap ? sv->cap * 2 : 16;
	v = realloc(sv->v, cap * sizeof(*v));
	if (!v)
		return -1;
	sv->v = v;
	sv->cap = cap;
	return 0;
}

int ibnet_strvec_push_owned(struct ibnet_strvec *sv, char *s)
{
	if (!s || strvec_grow(sv) < 0) {
		free(s);
		return -1;
	}
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
	return 0;
}

int ibnet_strvec_push(struct ibnet_strvec *sv, const char *s)
{
	return ibnet_strvec_push_owned(sv, strdup(s));
}

void ibnet_strvec_free(struct ibnet_strvec *sv)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = sv->cap = 0;
}

char *ibnet_strvec_join(const struct ibnet_strvec *sv, const char *sep)
{
	size_t i, total = 1, seplen = strlen(sep);
	char *out, *p;

	for (i = 0; i < sv->n; i++)
		total += strlen(sv->v[i]) + seplen;
	out = malloc(total);
	if (!out)
		return NULL;
	p = out;
	for (i = 0; i < sv->n; i++) {
		size_t l = strlen(sv->v[i]);

		if (i) {
			memcpy(p, sep, seplen);
			p += seplen;
		}
		memcpy(p, sv->v[i], l);
		p += l;
	}
	*p = '\0';
	return out;
}

bool ibnet_strvec_contains(const struct ibnet_strvec *sv, const char *s)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		if (strcmp(sv->v[i], s) == 0)
			return true;
	return false;
}

int ibnet_strvec_split(struct ibnet_strvec *sv, const char *s, const char *seps)
{
	while (*s) {
		size_t n = strcspn(s, seps);

		if (n > 0 && ibnet_strvec_push_owned(sv, strndup(s, n)) < 0)
			return -1;
		s += n;
		if (*s)
			s++;
	}
	return 0;
}

int ibnet_buf_add(struct ibnet_buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		char *p;

		while (cap < b->len + n + 1)
			cap *= 2;
		p = realloc(b->s, cap);
		if (!p)
			return -1;
		b->s = p;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
	return 0;
}

int ibnet_buf_adds(struct ibnet_buf *b, const char *s)
{
	return ibnet_buf_add(b, s, strlen(s));
}

char *ibnet_buf_take(struct ibnet_buf *b)
{
	char *s = b->s;

	if (!s)
		s = strdup("");
	b->s = NULL;
	b->len = b->cap = 0;
	return s;
}

void ibnet_buf_free(struct ibnet_buf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

bool ibnet_hostname_valid(const char *s)
{
	size_t n = 0;

	if (!s)
		return false;
	for (; s[n]; n++) {
		char c = s[n];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_'))
			return false;
	}
	return n >= 1 && n <= 255;
}

uint32_t ibnet_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 16777619u;
	}
	return h;
}
