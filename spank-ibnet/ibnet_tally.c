/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_tally.c - the node's sum of a paced step's all-to-all calls
 * (ibnet_tally.h). The files are the user's, written by the user's
 * processes, and this runs as root in slurmstepd: nothing here trusts them.
 * A link or anything but a plain file is skipped (O_NOFOLLOW, fstat), a file
 * is read up to 4 KiB, a directory up to 4096 entries, and a line that is not
 * KIND<TAB>ROUTE<TAB>COUNT is ignored. Counts saturate instead of wrapping.
 */
#include "ibnet_tally.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TALLY_MAX_ENTRIES 4096
#define TALLY_MAX_FILE 4096

static int field(const char *start, const char *end, char *out)
{
	size_t n = (size_t)(end - start);
	size_t i;

	if (n == 0 || n >= IBNET_TALLY_NAME)
		return -1;
	for (i = 0; i < n; i++)	/* printable words only: they go into a log line */
		if ((unsigned char)start[i] < ' ' || (unsigned char)start[i] > '~' ||
		    start[i] == ';')
			return -1;
	memcpy(out, start, n);
	out[n] = '\0';
	return 0;
}

int ibnet_tally_add_line(struct ibnet_tally *t, const char *line)
{
	char kind[IBNET_TALLY_NAME], route[IBNET_TALLY_NAME], *end;
	const char *tab1 = strchr(line, '\t'), *tab2 = tab1 ? strchr(tab1 + 1, '\t') : NULL;
	unsigned long count;
	int i;

	if (!tab2 || field(line, tab1, kind) < 0 || field(tab1 + 1, tab2, route) < 0)
		return -1;
	if (tab2[1] < '0' || tab2[1] > '9')
		return -1;
	errno = 0;
	count = strtoul(tab2 + 1, &end, 10);
	if (errno || (*end && *end != '\n'))
		return -1;
	for (i = 0; i < t->rows; i++)
		if (!strcmp(t->row[i].kind, kind) && !strcmp(t->row[i].route, route))
			break;
	if (i == t->rows) {
		if (t->rows == IBNET_TALLY_ROWS)
			return -1;
		strcpy(t->row[i].kind, kind);
		strcpy(t->row[i].route, route);
		t->row[i].count = 0;
		t->rows++;
	}
	t->row[i].count = t->row[i].count > (unsigned long)-1 - count ? (unsigned long)-1 :
			  t->row[i].count + count;
	return 0;
}

/* One file's lines; -1 if it is not a plain file or has a bad line. */
static int add_file(struct ibnet_tally *t, int dirfd, const char *name)
{
	char buf[TALLY_MAX_FILE + 1], *line, *next;
	struct stat st;
	ssize_t n;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), bad = 0;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	n = read(fd, buf, TALLY_MAX_FILE);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	for (line = buf; *line; line = next) {
		next = strchr(line, '\n');
		next = next ? next + 1 : line + strlen(line);
		if (next[-1] == '\n')
			next[-1] = '\0';
		if (*line && ibnet_tally_add_line(t, line) < 0)
			bad = 1;
	}
	return bad ? -1 : 0;
}

int ibnet_tally_collect(struct ibnet_tally *t, const char *path, int remove)
{
	int dirfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), entries = 0;
	struct dirent *e;
	DIR *dir;

	if (dirfd < 0)
		return -1;
	dir = fdopendir(dirfd);
	if (!dir) {
		close(dirfd);
		return -1;
	}
	while ((e = readdir(dir)) && entries < TALLY_MAX_ENTRIES) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		entries++;
		if (add_file(t, dirfd, e->d_name) == 0)
			t->files++;
		else
			t->skipped++;
		if (remove)
			unlinkat(dirfd, e->d_name, 0);
	}
	closedir(dir);
	if (remove)
		rmdir(path);	/* fails, harmlessly, if entries were left */
	return 0;
}

static int row_order(const void *a, const void *b)
{
	const struct ibnet_tally_row *x = a, *y = b;
	int c = strcmp(x->kind, y->kind);

	return c ? c : strcmp(x->route, y->route);
}

void ibnet_tally_describe(const struct ibnet_tally *tally, char *buf, size_t len)
{
	struct ibnet_tally sorted = *tally, *t = &sorted;
	size_t n = 0;
	int i, j, k;

	if (!len)
		return;
	/* The files come in no particular order: sort, so the line does not vary. */
	qsort(t->row, (size_t)t->rows, sizeof(t->row[0]), row_order);
	buf[0] = '\0';
	for (i = 0; i < t->rows; i++) {
		unsigned long total = 0, paced = 0;

		for (j = 0; j < i; j++)	/* each kind once, where first seen */
			if (!strcmp(t->row[j].kind, t->row[i].kind))
				break;
		if (j < i)
			continue;
		for (k = i; k < t->rows; k++) {
			if (strcmp(t->row[k].kind, t->row[i].kind))
				continue;
			total += t->row[k].count;
			if (!strcmp(t->row[k].route, "paced"))
				paced += t->row[k].count;
		}
		if (n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s: %lu call%s: %lu paced",
					      n ? "; " : "", t->row[i].kind, total,
					      total == 1 ? "" : "s", paced);
		for (k = i; k < t->rows && n < len; k++)
			if (!strcmp(t->row[k].kind, t->row[i].kind) &&
			    strcmp(t->row[k].route, "paced"))
				n += (size_t)snprintf(buf + n, len - n, ", %lu %s", t->row[k].count,
						      t->row[k].route);
	}
}
