/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_tally.c - the node's sum of a paced step's all-to-all calls
 * (ibnet_tally.h). The files are the user's, written by the user's
 * processes, and this runs as root in slurmstepd: nothing here trusts them.
 * A link or anything but a plain file is skipped (O_NOFOLLOW, fstat), a file
 * is read up to 4 KiB, a directory up to IBNET_TALLY_MAX_READ files, and a
 * line that is not KIND<TAB>ROUTE<TAB>COUNT is ignored; a file without one
 * valid line is no process's. Counts saturate instead of wrapping.
 *
 * Removing is where root could be tricked: O_NOFOLLOW stops a symlink, not
 * a rename, and the user can move any directory they may write onto the
 * tally's name (another user's world-writable one, say). So the directory is
 * recorded when the user makes it (ibnet_tally_dir_make) and collected only
 * through a descriptor checked against that record; inside it, only the
 * user's own plain files and directories go, each by a name relative to a
 * checked descriptor.
 */
#include "ibnet_tally.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
		t->row[i].count = count;
		t->rows++;
		return 0;
	}
	/* The window's least and most are kept as such, not summed. */
	if (!strcmp(kind, IBNET_A2A_TALLY_WINDOW_KIND) &&
	    (!strcmp(route, IBNET_A2A_TALLY_WINDOW_LEAST) ||
	     !strcmp(route, IBNET_A2A_TALLY_WINDOW_RTT))) {
		if (count < t->row[i].count)
			t->row[i].count = count;
		return 0;
	}
	if (!strcmp(kind, IBNET_A2A_TALLY_WINDOW_KIND) &&
	    !strcmp(route, IBNET_A2A_TALLY_WINDOW_MOST)) {
		if (count > t->row[i].count)
			t->row[i].count = count;
		return 0;
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
	int lines = 0;

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
		if (!*line)
			continue;
		if (ibnet_tally_add_line(t, line) < 0)
			bad = 1;
		else
			lines++;
	}
	/* A process writes a file only when it has counts: an empty one is no process's. */
	return bad || !lines ? -1 : 0;
}

int ibnet_tally_dir_make(struct ibnet_tally_dir *d, const char *prefix)
{
	char name[sizeof(d->path)];
	struct stat st;

	d->path[0] = '\0';
	if (snprintf(name, sizeof(name), "%sXXXXXX", prefix) >= (int)sizeof(name)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	/*
	 * On failure mkdtemp may have rewritten the X's: that name is not ours,
	 * so d->path stays empty and nothing is ever removed by it.
	 */
	if (!mkdtemp(name))
		return -1;
	if (lstat(name, &st) < 0 || !S_ISDIR(st.st_mode)) {
		int e = errno ? errno : ENOTDIR;

		rmdir(name);	/* made an instant ago, by this call, empty */
		errno = e;
		return -1;
	}
	memcpy(d->path, name, sizeof(name));
	d->dev = st.st_dev;
	d->ino = st.st_ino;
	d->uid = st.st_uid;
	return 0;
}

static int same_dir(const struct stat *st, const struct ibnet_tally_dir *d)
{
	return S_ISDIR(st->st_mode) && st->st_dev == d->dev && st->st_ino == d->ino &&
	       st->st_uid == d->uid;
}

/*
 * rmdir the name only while it still leads to the recorded directory. (A
 * rename between the check and the rmdir can still slip in; rmdir removes
 * only an empty directory, so such a race costs at most an empty one.)
 */
static int remove_dir_if_same(const char *path, const struct ibnet_tally_dir *d)
{
	struct stat st;

	if (lstat(path, &st) < 0 || !same_dir(&st, d))
		return -1;
	return rmdir(path);
}

void ibnet_tally_dir_discard(struct ibnet_tally_dir *d)
{
	if (d->path[0])
		remove_dir_if_same(d->path, d);
	d->path[0] = '\0';
}

static int is_dot(const char *name)
{
	return !strcmp(name, ".") || !strcmp(name, "..");
}

/* Sum the files of an open directory (which this takes and closes). */
static void read_dir(struct ibnet_tally *t, int dirfd)
{
	DIR *dir = fdopendir(dirfd);
	struct dirent *e;
	unsigned entries = 0;

	if (!dir) {
		if (dirfd >= 0)
			close(dirfd);
		return;
	}
	rewinddir(dir);	/* a duplicate descriptor shares its position */
	while ((e = readdir(dir))) {
		if (is_dot(e->d_name))
			continue;
		if (entries++ >= IBNET_TALLY_MAX_READ) {
			t->unread++;
			if (t->unread >= IBNET_TALLY_MAX_REMOVE)
				break;	/* bounded: the count says "at least" */
			continue;
		}
		if (add_file(t, dirfd, e->d_name) < 0)
			t->skipped++;
		else if (!strncmp(e->d_name, IBNET_TALLY_FLOOR_FILE, strlen(IBNET_TALLY_FLOOR_FILE)))
			t->floor_files++;
		else
			t->files++;
	}
	closedir(dir);
}

int ibnet_tally_read(struct ibnet_tally *t, const char *path)
{
	int dirfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (dirfd < 0)
		return -1;
	read_dir(t, dirfd);
	return 0;
}

/*
 * Remove the user's own entries of a checked directory: plain files owned
 * by uid, and directories owned by uid, emptied the same way down to
 * IBNET_TALLY_MAX_DEPTH. Everything else stays, and is counted in t->left.
 * *budget bounds the entries looked at in all. 0 if the directory is now
 * empty.
 */
static int remove_own_entries(struct ibnet_tally *t, int dirfd, uid_t uid, int depth,
			      unsigned *budget)
{
	int dupfd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0), left = 0;
	struct dirent *e;
	DIR *dir;

	if (dupfd < 0 || !(dir = fdopendir(dupfd))) {
		if (dupfd >= 0)
			close(dupfd);
		t->left++;
		return -1;
	}
	rewinddir(dir);	/* a duplicate descriptor shares its position */
	while ((e = readdir(dir))) {
		struct stat st;

		if (is_dot(e->d_name))
			continue;
		if (!*budget) {
			t->left++;
			left = 1;
			break;
		}
		--*budget;
		if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || st.st_uid != uid) {
			t->left++;
			left = 1;
		} else if (S_ISREG(st.st_mode)) {
			if (unlinkat(dirfd, e->d_name, 0) < 0) {
				t->left++;
				left = 1;
			}
		} else if (S_ISDIR(st.st_mode) && depth < IBNET_TALLY_MAX_DEPTH) {
			/* Checked through its descriptor: what was stat'ed may have moved. */
			int sub = openat(dirfd, e->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			struct stat sst;
			int emptied = sub >= 0 && fstat(sub, &sst) == 0 && sst.st_uid == uid &&
				      sst.st_dev == st.st_dev && sst.st_ino == st.st_ino &&
				      remove_own_entries(t, sub, uid, depth + 1, budget) == 0;

			if (sub >= 0)
				close(sub);
			if (!emptied || fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
			    st.st_dev != sst.st_dev || st.st_ino != sst.st_ino ||
			    unlinkat(dirfd, e->d_name, AT_REMOVEDIR) < 0) {
				t->left++;
				left = 1;
			}
		} else {
			t->left++;	/* a link, a fifo, too deep: not ours to remove */
			left = 1;
		}
	}
	closedir(dir);
	return left ? -1 : 0;
}

static void say(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!len)
		return;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

int ibnet_tally_collect(struct ibnet_tally *t, const struct ibnet_tally_dir *d, char *why,
			size_t len)
{
	int dirfd = open(d->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	unsigned budget = IBNET_TALLY_MAX_REMOVE;
	struct stat st;

	if (dirfd < 0) {
		say(why, len, "the step's all-to-all tally directory %s cannot be opened (%s); "
		    "nothing in it was read or removed", d->path, strerror(errno));
		return -1;
	}
	if (fstat(dirfd, &st) < 0 || !same_dir(&st, d)) {
		say(why, len, "%s is no longer the all-to-all tally directory made for this step "
		    "(another directory, or another owner, now has its name); nothing in it was "
		    "read or removed", d->path);
		close(dirfd);
		return -1;
	}
	read_dir(t, fcntl(dirfd, F_DUPFD_CLOEXEC, 0));
	if (remove_own_entries(t, dirfd, d->uid, 0, &budget) == 0 &&
	    remove_dir_if_same(d->path, d) == 0)
		t->dir_removed = 1;
	close(dirfd);
	return 0;
}

static int row_order(const void *a, const void *b)
{
	const struct ibnet_tally_row *x = a, *y = b;
	int c = strcmp(x->kind, y->kind);

	return c ? c : strcmp(x->route, y->route);
}

void ibnet_tally_floor(const struct ibnet_tally *t, unsigned long *sockets,
		       unsigned long *timeouts, unsigned long *retransmitted)
{
	int i;

	*sockets = *timeouts = *retransmitted = 0;
	for (i = 0; i < t->rows; i++) {
		if (strcmp(t->row[i].kind, IBNET_TALLY_FLOOR_KIND))
			continue;
		if (!strcmp(t->row[i].route, "sockets"))
			*sockets = t->row[i].count;
		else if (!strcmp(t->row[i].route, "timeouts"))
			*timeouts = t->row[i].count;
		else if (!strcmp(t->row[i].route, "retransmitted"))
			*retransmitted = t->row[i].count;
	}
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
		unsigned long total = 0, paced = 0, nodes = 0;

		if (!strcmp(t->row[i].kind, IBNET_TALLY_FLOOR_KIND) ||	/* not calls */
		    !strcmp(t->row[i].kind, IBNET_A2A_TALLY_WINDOW_KIND) ||
		    !strcmp(t->row[i].kind, IBNET_A2A_TALLY_CHOICE_KIND))
			continue;
		for (j = 0; j < i; j++)	/* each kind once, where first seen */
			if (!strcmp(t->row[j].kind, t->row[i].kind))
				break;
		if (j < i)
			continue;
		for (k = i; k < t->rows; k++) {
			if (strcmp(t->row[k].kind, t->row[i].kind))
				continue;
			total += t->row[k].count;
			if (!strncmp(t->row[k].route, "paced", 5))	/* "paced node to node" too */
				paced += t->row[k].count;
			if (!strcmp(t->row[k].route, "paced node to node"))
				nodes += t->row[k].count;
		}
		if (n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s: %lu call%s: %lu paced",
					      n ? "; " : "", t->row[i].kind, total,
					      total == 1 ? "" : "s", paced);
		if (nodes && n < len)
			n += (size_t)snprintf(buf + n, len - n, " (%lu node to node)", nodes);
		for (k = i; k < t->rows && n < len; k++)
			if (!strcmp(t->row[k].kind, t->row[i].kind) &&
			    strncmp(t->row[k].route, "paced", 5))
				n += (size_t)snprintf(buf + n, len - n, ", %lu %s", t->row[k].count,
						      t->row[k].route);
	}
}

void ibnet_tally_window(const struct ibnet_tally *t, char *buf, size_t len)
{
	unsigned long least = 0, most = 0, rtt = 0, lost = 0;
	bool any = false;
	char lo[24], hi[24];
	int i;

	if (!len)
		return;
	buf[0] = '\0';
	for (i = 0; i < t->rows; i++) {
		const struct ibnet_tally_row *r = &t->row[i];

		if (strcmp(r->kind, IBNET_A2A_TALLY_WINDOW_KIND))
			continue;
		any = true;
		if (!strcmp(r->route, IBNET_A2A_TALLY_WINDOW_LEAST))
			least = r->count;
		else if (!strcmp(r->route, IBNET_A2A_TALLY_WINDOW_MOST))
			most = r->count;
		else if (!strcmp(r->route, IBNET_A2A_TALLY_WINDOW_RTT))
			rtt = r->count;
		else if (!strcmp(r->route, IBNET_A2A_TALLY_WINDOW_LOST))
			lost = r->count;
	}
	if (!any)
		return;
	ibnet_a2a_bytes_text(least, lo, sizeof(lo));
	ibnet_a2a_bytes_text(most, hi, sizeof(hi));
	if (least == most)
		snprintf(buf, len, "window reached %s (auto); least credit round trip %lu us; "
			 "%lu call%s with loss", lo, rtt, lost, lost == 1 ? "" : "s");
	else
		snprintf(buf, len, "window reached %s to %s (auto); least credit round trip %lu "
			 "us; %lu call%s with loss", lo, hi, rtt, lost, lost == 1 ? "" : "s");
}

void ibnet_tally_routes(const struct ibnet_tally *tally, char *buf, size_t len)
{
	struct ibnet_tally sorted = *tally, *t = &sorted;
	size_t n = 0;
	int i;

	if (!len)
		return;
	/* Each "SIZE own|paced" once, in name order, as ibnet_tally_describe sorts. */
	qsort(t->row, (size_t)t->rows, sizeof(t->row[0]), row_order);
	buf[0] = '\0';
	for (i = 0; i < t->rows && n < len; i++) {
		const struct ibnet_tally_row *r = &t->row[i];

		if (strcmp(r->kind, IBNET_A2A_TALLY_CHOICE_KIND))
			continue;
		n += (size_t)snprintf(buf + n, len - n, "%s%s by %lu process%s",
				      n ? ", " : "route by measurement, blocks from: ", r->route,
				      r->count, r->count == 1 ? "" : "es");
	}
}

void ibnet_tally_log_line(const struct ibnet_tally *t, const char *path, char *buf, size_t len)
{
	char sum[1024];
	size_t n;

	if (!len)
		return;
	if (t->files) {
		ibnet_tally_describe(t, sum, sizeof(sum));
		n = (size_t)snprintf(buf, len, "all-to-all calls of %u process%s: %s", t->files,
				     t->files == 1 ? "" : "es", sum);
	} else {
		n = (size_t)snprintf(buf, len, "no process reported its all-to-all calls (a "
				     "program that does not load the job preload leaves none: a "
				     "static binary, or one started by a launcher that drops "
				     "LD_PRELOAD)");
	}
	if (n < len && t->skipped)
		n += (size_t)snprintf(buf + n, len - n, "; %u entr%s skipped (not a file of counts)",
				      t->skipped, t->skipped == 1 ? "y" : "ies");
	if (n < len && t->unread)
		n += (size_t)snprintf(buf + n, len - n, "; %u file%s not read (more than %d)",
				      t->unread, t->unread == 1 ? "" : "s", IBNET_TALLY_MAX_READ);
	if (n < len && t->left)
		snprintf(buf + n, len - n, "; %s left in place, with %u entr%s that %s not the job "
			 "user's own files (or past %d entries, or %d directories deep)", path,
			 t->left, t->left == 1 ? "y" : "ies", t->left == 1 ? "is" : "are",
			 IBNET_TALLY_MAX_REMOVE, IBNET_TALLY_MAX_DEPTH);
}
