/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_util.h - growable strings and string vectors, error messages.
 *
 * Everything here allocates on the heap and reports failure by return
 * value: slurmstepd must never abort because a job was larger than a
 * fixed buffer.
 */
#ifndef IBNET_UTIL_H
#define IBNET_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Every message a user or admin sees starts with this. */
#define IBNET_PREFIX "spank-ibnet: "

/*
 * The longest line the plugin writes to a node's log, in bytes: a longer
 * one is cut and ends in "..." (ibnet_log_cap), so no job can fill
 * slurmd.log with what it puts in its environment.
 */
#define IBNET_LOG_LINE_MAX 1024

/*
 * Format one log line into buf (IBNET_LOG_LINE_MAX bytes, with its '\0'); a
 * longer one is cut, and its last three characters become "...". Returns buf.
 */
char *ibnet_log_line(char buf[IBNET_LOG_LINE_MAX], const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * An error message. Messages quote user values shortened (see
 * ibnet_quote), so a fixed size is enough and never truncates a job.
 */
struct ibnet_err {
	char msg[1024];
};

void ibnet_err_set(struct ibnet_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* More of the same sentence, after what err says already. */
void ibnet_err_append(struct ibnet_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Quote a value for an error message, in single quotes: at most IBNET_QUOTE_MAX characters,
 * non-printable bytes as \xNN, and a note of the full length if cut.
 * Returns a pointer into one of a few rotating static buffers, so several
 * quotes can appear in one message.
 */
#define IBNET_QUOTE_MAX 60
const char *ibnet_quote(const char *value);

struct ibnet_strvec {
	char **v;
	size_t n;
	size_t cap;
};

int ibnet_strvec_push(struct ibnet_strvec *sv, const char *s);
int ibnet_strvec_push_owned(struct ibnet_strvec *sv, char *s);
void ibnet_strvec_free(struct ibnet_strvec *sv);
/* Joined copy, or NULL on allocation failure. An empty vector gives "". */
char *ibnet_strvec_join(const struct ibnet_strvec *sv, const char *sep);
bool ibnet_strvec_contains(const struct ibnet_strvec *sv, const char *s);
/* Split s on any of the characters in seps, dropping empty fields. */
int ibnet_strvec_split(struct ibnet_strvec *sv, const char *s, const char *seps);

struct ibnet_buf {
	char *s;
	size_t len;
	size_t cap;
};

int ibnet_buf_add(struct ibnet_buf *b, const char *s, size_t n);
int ibnet_buf_adds(struct ibnet_buf *b, const char *s);
/* Hand the string to the caller (never NULL after a successful add). */
char *ibnet_buf_take(struct ibnet_buf *b);
void ibnet_buf_free(struct ibnet_buf *b);

/*
 * A host name as Slurm and DNS accept it: letters, digits, '-', '.', '_',
 * 1..255 characters. Anything else (spaces, shell metacharacters) never
 * reaches a job's environment.
 */
bool ibnet_hostname_valid(const char *s);

/* 32-bit FNV-1a, used to notice that a user changed a variable we set. */
uint32_t ibnet_hash(const char *s);

#endif
